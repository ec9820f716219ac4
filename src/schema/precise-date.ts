/** ISO 8601 date-time with an explicit offset; fractions up to nanoseconds, as other runtimes emit. */
const ISO_8601 = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

/**
 * A `Date` that remembers the exact text it was parsed from, so that
 * `2026-03-19T00:00:00.123456Z` serializes back with its microseconds.
 */
export class PreciseDate extends Date {
  /** The text written by `toJSON()`. */
  readonly iso: string;

  constructor(epochMs: number, iso?: string) {
    super(epochMs);
    this.iso = iso ?? super.toISOString();
  }

  override toJSON(): string {
    return this.iso;
  }
}

/**
 * Epoch ms of 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z. A Date or epoch ms is
 * written as `toISOString()`, which outside these years has a 6-digit year (`+010000-…`)
 * that no ISO 8601 reader here accepts back, so such inputs are refused.
 */
const MIN_WRITABLE_MS = -62167219200000;
const MAX_WRITABLE_MS = 253402300799999;

function writable(ms: number): boolean {
  return ms >= MIN_WRITABLE_MS && ms <= MAX_WRITABLE_MS;
}

/**
 * Reads an ISO 8601 string, a `Date` or epoch milliseconds as a `PreciseDate`;
 * answers undefined for anything else (including invalid dates).
 */
export function toPreciseDate(value: unknown): PreciseDate | undefined {
  if (value instanceof PreciseDate) return value;
  if (value instanceof Date) {
    const ms = value.getTime();
    return writable(ms) ? new PreciseDate(ms) : undefined;
  }
  if (typeof value === 'number') {
    return writable(value) ? new PreciseDate(value) : undefined;
  }
  if (typeof value === 'string' && ISO_8601.test(value)) {
    const ms = Date.parse(value);
    return Number.isNaN(ms) ? undefined : new PreciseDate(ms, value);
  }
  return undefined;
}
