import { ModelClass } from './context';
import { FieldSpec, fieldsOf } from './field';

/** A JSON Schema document or sub-schema. */
export type JsonSchema = { [key: string]: unknown };

/** The dialect of every generated document. */
export const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

/*
 * The schemas describe ACCEPTED INPUT on the JSON wire, not only emitted output:
 * a missing or null field takes its default, so every defaulted field also allows
 * null, and unknown keys are allowed (they are kept in `extra`). Every `toJSON()`
 * output is therefore valid, and so is every JSON document `parse` accepts, with one
 * intentional gap: `parse` trims enum values (`" error "` → `"error"`), the schema
 * lists only the exact values.
 */

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

/** Epoch ms of years 0000 to 9999, the range `toPreciseDate` accepts (its text must be readable back). */
const MIN_EPOCH_MS = -62167219200000;
const MAX_EPOCH_MS = 253402300799999;

const INPUT_NOTE =
  'Accepted JSON input: a missing or null field takes its default; unknown keys are allowed and kept in `extra`.';

/** `type` for a field: null is allowed unless the field is required (null takes the default). */
function typeOf(type: string, spec: FieldSpec): string | string[] {
  return spec.required ? type : [type, 'null'];
}

/** The schema of one field's accepted input, from its spec. */
export function fieldSchema(spec: FieldSpec): JsonSchema {
  // Generated defaults (ids, now) are not constants and are never called here: calling would use up an id.
  const base: JsonSchema = spec.default && !spec.generated ? { default: spec.default() } : {};
  switch (spec.type) {
    case 'text':
      return { ...base, type: typeOf('string', spec) };
    case 'trimmed':
      // Required strings must have a non-whitespace character (they are trimmed, then must not be empty).
      return spec.required ? { type: 'string', pattern: '\\S' } : { ...base, type: typeOf('string', spec) };
    case 'int':
      return { ...base, type: typeOf('integer', spec), minimum: spec.min ?? 0, maximum: Number.MAX_SAFE_INTEGER };
    case 'number':
      return { ...base, type: typeOf('number', spec), minimum: spec.min ?? 0 };
    case 'bool':
      return { ...base, type: typeOf('boolean', spec) };
    case 'enum':
      return { ...base, enum: spec.required ? [...(spec.values ?? [])] : [...(spec.values ?? []), null] };
    case 'object':
      return { ...base, type: typeOf('object', spec) };
    case 'array':
      return { ...base, type: typeOf('array', spec) };
    case 'string_list':
      return { ...base, type: typeOf('array', spec), items: { type: 'string' } };
    case 'timestamp':
      return {
        description: 'ISO 8601 date-time with an offset, or epoch milliseconds; default: now',
        type: ['string', 'number', 'null'],
        pattern: TIMESTAMP_PATTERN,
        minimum: MIN_EPOCH_MS,
        maximum: MAX_EPOCH_MS,
      };
    case 'payload':
      return { description: "The kind's payload; default: the kind's default payload", type: ['object', 'null'] };
    default:
      return base; // any JSON value
  }
}

/**
 * The JSON Schema (draft 2020-12) of a model class's accepted JSON input, generated from
 * its field specs. Unknown keys are allowed (forward compatibility). `root: false` leaves
 * out `$schema`, for use inside another document's `$defs`.
 */
export function jsonSchemaOf(cls: ModelClass, options: { root?: boolean } = {}): JsonSchema {
  const fields = fieldsOf(cls);
  const properties: JsonSchema = {};
  for (const spec of fields) properties[spec.key] = fieldSchema(spec);
  const required = fields.filter((spec) => spec.required).map((spec) => spec.key);
  return {
    ...(options.root === false ? {} : { $schema: DRAFT_2020_12 }),
    title: cls.name,
    description: INPUT_NOTE,
    type: 'object',
    properties,
    ...(required.length ? { required } : {}),
    additionalProperties: true,
  };
}
