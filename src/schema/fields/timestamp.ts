import { Transform } from 'class-transformer';
import { IsDate } from 'class-validator';
import { FieldRule } from '../field';
import { Invalid, preview } from '../issue';
import type { JsonSchema } from '../json-schema';
import { MAX_WRITABLE_MS, MIN_WRITABLE_MS, PreciseDate, toPreciseDate } from '../precise-date';
import { defineField } from './define';

/** A leap year: divisible by 4 and not by 100, or by 400 (0000 is one). */
const LEAP_YEAR = '(?:\\d\\d(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)';

/**
 * ISO 8601 text the timestamp parser accepts (`parseIsoMs` in `precise-date.ts`):
 * `YYYY-MM-DD[Tt ]HH:MM[:SS[.1-9 digits]](Z|±HH[:]MM)`, a real calendar day (Feb 29 only
 * in leap years), hours 00-23, minutes and seconds 00-59, offsets up to ±23:59.
 */
export const TIMESTAMP_PATTERN =
  '^(?:\\d{4}-(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1\\d|2[0-8])|(?:0[13-9]|1[0-2])-(?:29|30)|(?:0[13578]|1[02])-31)' +
  `|${LEAP_YEAR}-02-29)` +
  '[Tt ](?:[01]\\d|2[0-3]):[0-5]\\d(?::[0-5]\\d(?:\\.\\d{1,9})?)?' +
  '(?:[Zz]|[+-](?:[01]\\d|2[0-3]):?[0-5]\\d)$';

const TIMESTAMP_SCHEMA: JsonSchema = {
  description: 'ISO 8601 date-time with an offset, or epoch milliseconds; default: now',
  type: ['string', 'number', 'null'],
  pattern: TIMESTAMP_PATTERN,
  // Epoch ms of the years 0000 to 9999, the range `toPreciseDate` accepts (its text must be readable back).
  minimum: MIN_WRITABLE_MS,
  maximum: MAX_WRITABLE_MS,
};

/** For instanceToPlain: the timestamp as JSON.stringify writes it. */
const WRITE_EXACT_TEXT = Transform(({ value }) => (value instanceof Date ? value.toJSON() : value), { toPlainOnly: true });

/** A point in time: ISO 8601 text, a Date or epoch ms in; a `PreciseDate` that writes back its exact text stored. */
export const timestampRule: FieldRule = {
  type: 'timestamp',
  read: (value) =>
    toPreciseDate(value) ??
    new Invalid('invalid_date', `expected an ISO 8601 timestamp, a Date or epoch milliseconds; got ${preview(value)}`),
  schema: () => TIMESTAMP_SCHEMA,
  // instanceToPlain (NestJS's ClassSerializerInterceptor) would copy the Date and lose its exact text (µs).
  validators: () => [IsDate(), WRITE_EXACT_TEXT],
};

/** A point in time: ISO 8601 text, a Date or epoch ms in; a `PreciseDate` stored; missing means now. */
export const Timestamp = (): PropertyDecorator =>
  defineField(timestampRule, { default: () => new PreciseDate(Date.now()), generated: true });
