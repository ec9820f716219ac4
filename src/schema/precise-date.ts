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

/** The number written by the two ASCII digits of `text` at `at`, or -1 (also past the end: charCodeAt gives NaN). */
function twoDigits(text: string, at: number): number {
  const a = text.charCodeAt(at) - 48;
  const b = text.charCodeAt(at + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
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
 * rolls Feb 30 over to March. Each character is read once: strings out of JSON.parse
 * are often slices of the line, on which every `charCodeAt` pays for the indirection.
 */
export function parseIsoMs(text: string): number {
  if (text.length < 17) return NaN;
  const sep = text.charCodeAt(10);
  if (text.charCodeAt(4) !== DASH || text.charCodeAt(7) !== DASH || text.charCodeAt(13) !== COLON) return NaN;
  if (sep !== 84 /* T */ && sep !== 116 /* t */ && sep !== 32 /* space */) return NaN;
  const high = twoDigits(text, 0);
  const low = twoDigits(text, 2);
  const month = twoDigits(text, 5);
  const day = twoDigits(text, 8);
  const hour = twoDigits(text, 11);
  const minute = twoDigits(text, 14);
  if (high < 0 || low < 0) return NaN;
  const year = high * 100 + low;
  const monthDays = month === 2 && isLeap(year) ? 29 : DAYS_IN_MONTH[month - 1];
  if (!(month >= 1 && month <= 12 && day >= 1 && day <= monthDays && hour >= 0 && hour <= 23 && minute >= 0 && minute <= 59)) return NaN;
  let i = 16;
  let second = 0;
  let ms = 0;
  let c = text.charCodeAt(i);
  if (c === COLON) {
    second = twoDigits(text, 17);
    if (second < 0 || second > 59) return NaN;
    i = 19;
    c = text.charCodeAt(i);
    if (c === DOT) {
      const start = ++i;
      // Digits past the third are below a millisecond: a Date cannot hold them.
      for (c = text.charCodeAt(i); c >= 48 && c <= 57; c = text.charCodeAt(++i)) if (i - start < 3) ms = ms * 10 + (c - 48);
      const count = i - start;
      if (count === 0 || count > 9) return NaN;
      if (count < 3) ms *= count === 1 ? 100 : 10;
    }
  }
  let offset = 0;
  if (c === PLUS || c === DASH) {
    const hours = twoDigits(text, i + 1);
    i += text.charCodeAt(i + 3) === COLON ? 4 : 3;
    const minutes = twoDigits(text, i);
    i += 2;
    if (!(hours >= 0 && hours <= 23 && minutes >= 0 && minutes <= 59)) return NaN;
    offset = (c === PLUS ? 1 : -1) * (hours * 60 + minutes);
  } else if (c === 90 /* Z */ || c === 122 /* z */) {
    i++;
  } else {
    return NaN;
  }
  if (i !== text.length) return NaN;
  return ((daysFromCivil(year, month, day) * 24 + hour) * 60 + minute - offset) * 60_000 + second * 1000 + ms;
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
