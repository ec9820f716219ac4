import { KINDS } from '../registry/kinds';
import { PAYLOAD_CLASSES } from '../registry/payload-classes';
import { ModelClass } from '../schema/context';
import { JsonSchema, jsonSchemaOf } from '../schema/json-schema';

/**
 * The event envelope's schema. Each kind's payload schema sits in `$defs` under its
 * class name and is tied to `kind` by one if/then rule per kind; `kind` itself must be
 * one of the kinds, so an unknown kind is invalid.
 */
export function eventSchema(eventClass: ModelClass): JsonSchema {
  const $defs: JsonSchema = {};
  for (const kind of KINDS) $defs[PAYLOAD_CLASSES[kind].name] = jsonSchemaOf(PAYLOAD_CLASSES[kind], { root: false });
  return {
    ...jsonSchemaOf(eventClass),
    allOf: KINDS.map((kind) => ({
      if: { properties: { kind: { const: kind } }, required: ['kind'] },
      // A missing or null payload gives the kind's default payload.
      then: { properties: { payload: { anyOf: [{ $ref: `#/$defs/${PAYLOAD_CLASSES[kind].name}` }, { type: 'null' }] } } },
    })),
    $defs,
  };
}
