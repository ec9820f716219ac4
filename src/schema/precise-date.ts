/**
 * A `Date` that remembers the exact text it was parsed from, so that
 * `2026-03-19T00:00:00.123456Z` serializes back with its microseconds.
 */
export class PreciseDate extends Date {
  /** The exact ISO 8601 text this date was read from; undefined when it was made from a number or a Date. */
  readonly text: string | undefined;

  constructor(epochMs: number, text?: string) {
    super(epochMs);
    this.text = text;
  }

  /** The text written by `toJSON()`: the text read, else `toISOString()` (made only when asked for: it is slow). */
  get iso(): string {
    return this.text ?? this.toISOString();
  }

  override toJSON(): string {
    return this.text ?? this.toISOString();
  }
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil); exact for every year. */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  return era * 146097 + yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear - 719468;
}

/** The number written by `count` ASCII digits of `text` at `at`, or NaN. */
function digitsAt(text: string, at: number, count: number): number {
  let value = 0;
  for (let i = at; i < at + count; i++) {
    const d = text.charCodeAt(i) - 48;
    if (!(d >= 0 && d <= 9)) return NaN;
    value = value * 10 + d;
  }
  return value;
}

const DASH = 45;
const COLON = 58;
const DOT = 46;
const PLUS = 43;

/**
 * Epoch ms of a strict ISO 8601 date-time with an explicit offset:
 * `YYYY-MM-DD[T ]HH:MM[:SS[.fraction]](Z|±HH[:]MM)`, fractions up to nanoseconds
 * (cut to ms: other runtimes emit more digits than a Date holds). NaN when the
 * text is not of that form or names no real calendar time (Feb 30, 25:00).
 * Hand-written because it runs once per event; stricter than Date.parse, which
 * rolls Feb 30 over to March.
 */
export function parseIsoMs(text: string): number {
  const sep = text.charCodeAt(10);
  if (text.charCodeAt(4) !== DASH || text.charCodeAt(7) !== DASH || text.charCodeAt(13) !== COLON) return NaN;
  if (sep !== 84 /* T */ && sep !== 116 /* t */ && sep !== 32 /* space */) return NaN;
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  const hour = digitsAt(text, 11, 2);
  const minute = digitsAt(text, 14, 2);
  let i = 16;
  let second = 0;
  let ms = 0;
  if (text.charCodeAt(i) === COLON) {
    second = digitsAt(text, 17, 2);
    i = 19;
    if (text.charCodeAt(i) === DOT) {
      const start = ++i;
      while (i < text.length && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i++;
      if (i === start || i - start > 9) return NaN;
      const count = Math.min(3, i - start);
      ms = digitsAt(text, start, count) * (count === 1 ? 100 : count === 2 ? 10 : 1);
    }
  }
  let offset = 0;
  const zone = text.charCodeAt(i);
  if (zone === PLUS || zone === DASH) {
    const hours = digitsAt(text, i + 1, 2);
    i += text.charCodeAt(i + 3) === COLON ? 4 : 3;
    const minutes = digitsAt(text, i, 2);
    i += 2;
    if (!(hours <= 23 && minutes <= 59)) return NaN;
    offset = (zone === PLUS ? 1 : -1) * (hours * 60 + minutes);
  } else if (zone === 90 /* Z */ || zone === 122 /* z */) {
    i++;
  } else {
    return NaN;
  }
  if (i !== text.length) return NaN;
  const monthDays = month === 2 && isLeap(year) ? 29 : DAYS_IN_MONTH[month - 1];
  // Each comparison is false for NaN, so a non-digit anywhere fails here.
  if (!(month >= 1 && month <= 12 && day >= 1 && day <= monthDays && hour <= 23 && minute <= 59 && second <= 59)) return NaN;
  return (daysFromCivil(year, month, day) * 1440 + hour * 60 + minute - offset) * 60_000 + second * 1000 + ms;
}

/** The largest |epoch ms| a Date can hold. */
const MAX_TIME = 8.64e15;

/**
 * Epoch ms of 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z. A Date or epoch ms is
 * written as `toISOString()`, which outside these years has a 6-digit year (`+010000-…`)
 * that no ISO 8601 reader here accepts back, so such inputs are refused.
 */
export const MIN_WRITABLE_MS = -62167219200000;
export const MAX_WRITABLE_MS = 253402300799999;

function writable(ms: number): boolean {
  return ms >= MIN_WRITABLE_MS && ms <= MAX_WRITABLE_MS;
}

const getTime = Date.prototype.getTime;

/**
 * Reads an ISO 8601 string, a `Date` or epoch milliseconds as a new `PreciseDate` (never the
 * caller's object, whose later `setTime` must not reach a parsed value); answers undefined for
 * anything else, including invalid dates and times outside the years 0000-9999.
 */
export function toPreciseDate(value: unknown): PreciseDate | undefined {
  if (typeof value === 'string') {
    const ms = parseIsoMs(value);
    return Math.abs(ms) <= MAX_TIME ? new PreciseDate(ms, value) : undefined;
  }
  if (typeof value === 'number') return writable(value) ? new PreciseDate(value) : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  let ms: number;
  try {
    // The Date's own time slot: a subclass overriding getTime, or a Proxy, cannot lie about it
    // (a non-Date throws here, without running any of the caller's code).
    ms = getTime.call(value);
  } catch {
    return undefined;
  }
  if (!writable(ms)) return undefined;
  // A PreciseDate's text is kept only when it names that very time (new PreciseDate(0, 'x') does not).
  const own = Object.getOwnPropertyDescriptor(value, 'text');
  const text: unknown = own && 'value' in own ? own.value : undefined;
  if (typeof text === 'string' && parseIsoMs(text) === ms) return new PreciseDate(ms, text);
  return text === undefined ? new PreciseDate(ms) : undefined;
}
