/**
 * Days and months as a person's calendar has them: in the local time zone (`TZ`), or in `timeZone`
 * (an IANA name), as ccusage groups them.
 */
export class LocalCalendar {
  private readonly format: Intl.DateTimeFormat;

  /** Throws a RangeError for a time zone Intl does not know. */
  constructor(readonly timeZone?: string) {
    this.format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
  }

  /** `YYYY-MM-DD` of `time` (an ISO 8601 text or a Date). */
  day(time: string | Date): string {
    const parts = this.format.formatToParts(typeof time === 'string' ? new Date(time) : time);
    const part = (type: string) => parts.find((each) => each.type === type)?.value ?? '';
    return `${part('year')}-${part('month')}-${part('day')}`;
  }
}

/** A date of the command line (`2026-12-05` or `20261205`) as `YYYY-MM-DD`, or null when it is neither. */
export function dayOption(value: string): string | null {
  const match = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(value.trim());
  if (!match) return null;
  const [, year, month, day] = match;
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (date.getUTCMonth() !== Number(month) - 1 || date.getUTCDate() !== Number(day)) return null;
  return `${year}-${month}-${day}`;
}
