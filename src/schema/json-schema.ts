import { ModelClass } from './context';
import { FieldSpec, fieldsOf } from './field';

/** A JSON Schema document or sub-schema. */
export type JsonSchema = { [key: string]: unknown };

export const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

/** Adds null to a schema's type: on input, null takes the field's default. */
function orNull(type: string, spec: FieldSpec): string | string[] {
  return spec.required ? type : [type, 'null'];
}

/** The input schema of one field, from its spec. */
export function fieldSchema(spec: FieldSpec): JsonSchema {
  const base: JsonSchema = {};
  const fallback = spec.default?.();
  if (spec.default && !(fallback instanceof Date)) base.default = fallback;
  switch (spec.type) {
    case 'text':
      return { ...base, type: orNull('string', spec) };
    case 'trimmed':
      return spec.required ? { type: 'string', pattern: '\\S' } : { ...base, type: orNull('string', spec) };
    case 'int':
      return { ...base, type: orNull('integer', spec), minimum: spec.min ?? 0, maximum: Number.MAX_SAFE_INTEGER };
    case 'number':
      return { ...base, type: orNull('number', spec), minimum: spec.min ?? 0 };
    case 'bool':
      return { ...base, type: orNull('boolean', spec) };
    case 'enum':
      return { ...base, enum: spec.required ? [...(spec.values ?? [])] : [...(spec.values ?? []), null] };
    case 'object':
      return { ...base, type: orNull('object', spec) };
    case 'array':
      return { ...base, type: orNull('array', spec) };
    case 'string_list':
      return { ...base, type: orNull('array', spec), items: { type: 'string' } };
    case 'timestamp':
      return { type: ['string', 'number', 'null'], description: 'ISO 8601 date-time or epoch milliseconds; default now' };
    default:
      return base; // any JSON value (payloads are tied to their kind by the event schema)
  }
}

/** The JSON Schema (draft 2020-12) of a model class; unknown keys are allowed (forward compatibility). */
export function jsonSchemaOf(cls: ModelClass, options: { root?: boolean } = { root: true }): JsonSchema {
  const fields = fieldsOf(cls);
  const properties: JsonSchema = {};
  for (const spec of fields) properties[spec.key] = fieldSchema(spec);
  const required = fields.filter((spec) => spec.required).map((spec) => spec.key);
  return {
    ...(options.root ? { $schema: DRAFT_2020_12 } : {}),
    title: cls.name,
    type: 'object',
    properties,
    ...(required.length ? { required } : {}),
    additionalProperties: true,
  };
}
