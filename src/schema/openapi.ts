import { ModelClass } from './context';
import { FieldSpec, fieldsOf } from './field';
import { JsonSchema } from './json-schema';

/*
 * The OpenAPI 3.0 form of the generated schemas. OpenAPI 3.0 takes a subset of JSON Schema:
 * one `type` per schema with `nullable: true` instead of type arrays, no `const`, `$defs`,
 * `if`/`then` or `$schema`. Everything here is converted from the 2020-12 schemas the field
 * rules generate, so the two forms cannot drift apart.
 */

/** Keywords that only apply to one JSON type, for splitting a multi-type schema into `anyOf`. */
const TYPE_KEYWORDS: Record<string, readonly string[]> = {
  string: ['pattern', 'minLength', 'maxLength', 'format'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'],
  integer: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'],
  array: ['items', 'minItems', 'maxItems'],
  object: ['properties', 'required', 'additionalProperties'],
};
const ALL_TYPE_KEYWORDS = new Set(Object.values(TYPE_KEYWORDS).flat());

/** A JSON Schema (draft 2020-12) fragment as an OpenAPI 3.0 schema object. */
export function toOpenApi30(schema: JsonSchema): JsonSchema {
  const { $schema: _dialect, const: constant, type, anyOf, ...rest } = schema;
  const out: JsonSchema = { ...rest };
  if (constant !== undefined) out.enum = [constant];
  if (Array.isArray(out.enum) && out.enum.includes(null)) out.nullable = true; // 3.0.3: null must be listed and nullable set
  if (out.properties) {
    out.properties = Object.fromEntries(
      Object.entries(out.properties as JsonSchema).map(([key, value]) => [key, toOpenApi30(value as JsonSchema)]),
    );
  }
  if (out.items) out.items = toOpenApi30(out.items as JsonSchema);
  if (Array.isArray(anyOf)) {
    const branches = (anyOf as JsonSchema[]).filter((branch) => branch.type !== 'null');
    if (branches.length !== anyOf.length) out.nullable = true;
    out.anyOf = branches.map(toOpenApi30);
  }
  const types = type === undefined ? [] : Array.isArray(type) ? (type as string[]) : [type as string];
  // An enum of strings is a string (3.0 tools show the type); a schema of any value allows null too.
  if (type === undefined && Array.isArray(out.enum) && out.enum.every((v) => v === null || typeof v === 'string')) out.type = 'string';
  if (type === undefined && !out.enum && !out.anyOf && !out.$ref && !out.allOf && !out.oneOf) out.nullable = true;
  if (types.includes('null')) out.nullable = true;
  const nonNull = types.filter((t) => t !== 'null');
  if (nonNull.length === 1) out.type = nonNull[0];
  if (nonNull.length > 1) {
    // `["string", "number"]`: one branch per type, each with the keywords that apply to it.
    for (const keyword of ALL_TYPE_KEYWORDS) delete out[keyword];
    out.anyOf = nonNull.map((t) => {
      const branch: JsonSchema = { type: t };
      for (const keyword of TYPE_KEYWORDS[t] ?? []) if (schema[keyword] !== undefined) branch[keyword] = schema[keyword];
      return branch;
    });
  }
  return out;
}

/** One field's OpenAPI 3.0 schema. */
function fieldSchema(spec: FieldSpec): JsonSchema {
  return toOpenApi30(spec.rule.schema(spec));
}

/** The OpenAPI 3.0 schema of a model class's accepted JSON input (its payload field, if any, an object). */
export function openApiSchemaOf(cls: ModelClass): JsonSchema {
  const fields = fieldsOf(cls);
  const required = fields.filter((spec) => spec.required).map((spec) => spec.key);
  return {
    title: cls.name,
    type: 'object',
    properties: Object.fromEntries(fields.map((spec) => [spec.key, fieldSchema(spec)])),
    ...(required.length ? { required } : {}),
    additionalProperties: true,
  };
}

/** Any JSON value, as OpenAPI 3.0 writes it for Swagger (which wants a type for every property). */
const ANY_JSON: readonly JsonSchema[] = [
  { type: 'string' },
  { type: 'number' },
  { type: 'boolean' },
  { type: 'object' },
  { type: 'array', items: {} },
];

/** What `@ApiProperty()` takes for one field: the OpenAPI schema plus `required`. */
export type OpenApiPropertyMetadata = JsonSchema & { required: boolean; type?: unknown };

/**
 * The property metadata `@nestjs/swagger` reads from a class's static `_OPENAPI_METADATA_FACTORY`
 * (the convention of its CLI plugin; no import of `@nestjs/swagger` is needed). `payloadType`
 * names the class of an event's payload field, for the per-kind event models.
 */
export function openApiMetadataOf(cls: ModelClass, payloadType?: () => ModelClass): Record<string, OpenApiPropertyMetadata> {
  const metadata: Record<string, OpenApiPropertyMetadata> = {};
  for (const spec of fieldsOf(cls)) {
    const schema = fieldSchema(spec);
    if (spec.type === 'payload' && payloadType) {
      metadata[spec.key] = { required: false, nullable: true, description: schema.description, type: payloadType() };
    } else if (schema.type !== undefined) {
      metadata[spec.key] = { ...schema, required: spec.required };
    } else {
      // Swagger needs a type to start from (else it reports a circular dependency) and drops it
      // again for a schema with `anyOf`; a field of any JSON value lists the JSON types.
      metadata[spec.key] = { anyOf: ANY_JSON, ...schema, required: spec.required, type: 'string' };
    }
  }
  return metadata;
}

/** Options of `X.schema()`: `{ openapi: '3.0' }` answers the OpenAPI 3.0 form instead of JSON Schema 2020-12. */
export interface SchemaOptions {
  openapi?: '3.0';
}
