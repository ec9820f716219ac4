import { KINDS } from '../registry/kinds';
import { PAYLOAD_CLASSES } from '../registry/payload-classes';
import { DRAFT_2020_12, JsonSchema, jsonSchemaOf } from '../schema/json-schema';
import { ModelClass } from '../schema/context';

/** The event envelope's schema; each kind's payload schema sits in `$defs` and is tied to `kind` by if/then. */
export function eventSchema(eventClass: ModelClass): JsonSchema {
  const envelope = jsonSchemaOf(eventClass, { root: false });
  const $defs: JsonSchema = {};
  for (const kind of KINDS) $defs[PAYLOAD_CLASSES[kind].name] = jsonSchemaOf(PAYLOAD_CLASSES[kind], { root: false });
  return {
    $schema: DRAFT_2020_12,
    ...envelope,
    allOf: KINDS.map((kind) => ({
      if: { properties: { kind: { const: kind } }, required: ['kind'] },
      then: { properties: { payload: { anyOf: [{ $ref: `#/$defs/${PAYLOAD_CLASSES[kind].name}` }, { type: 'null' }] } } },
    })),
    $defs,
  };
}
