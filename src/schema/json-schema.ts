import { ModelClass } from './context';
import { FieldSpec, fieldsOf } from './field';
export { TIMESTAMP_PATTERN } from './fields/timestamp';

/** A JSON Schema document or sub-schema. */
export type JsonSchema = { [key: string]: unknown };

/** The dialect of every generated document. */
export const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

/*
 * The schemas describe ACCEPTED INPUT on the JSON wire, not only emitted output:
 * a missing or null field takes its default, so every defaulted field also allows
 * null, and unknown keys are allowed (they are kept in `extra`). Every `JSON.stringify`
 * output is therefore valid, and so is every JSON document `parse` accepts, with one
 * intentional gap: `parse` trims enum values (`" error "` → `"error"`), the schema
 * lists only the exact values.
 */

const INPUT_NOTE = 'Accepted JSON input: a missing or null field takes its default; unknown keys are allowed and kept in `extra`.';

/**
 * A field's schema with the conventions every field shares: a missing or null value takes the
 * default, so a field that is not required also allows null, and a constant default is named.
 * Generated defaults (ids, now) are never called here: calling would use up an id.
 */
export function nullable(spec: FieldSpec, schema: JsonSchema): JsonSchema {
  const base: JsonSchema = spec.default && !spec.generated ? { default: spec.default() } : {};
  if (spec.required) return { ...base, ...schema };
  if (Array.isArray(schema.enum)) return { ...base, ...schema, enum: [...schema.enum, null] };
  return typeof schema.type === 'string' ? { ...base, ...schema, type: [schema.type, 'null'] } : { ...base, ...schema };
}

/**
 * The JSON Schema (draft 2020-12) of a model class's accepted JSON input, generated from
 * its field specs. Unknown keys are allowed (forward compatibility). `root: false` leaves
 * out `$schema`, for use inside another document's `$defs`.
 */
export function jsonSchemaOf(cls: ModelClass, options: { root?: boolean } = {}): JsonSchema {
  const fields = fieldsOf(cls);
  const properties: JsonSchema = {};
  for (const spec of fields) properties[spec.key] = spec.rule.schema(spec);
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
