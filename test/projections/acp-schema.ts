import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import { readFileSync } from 'node:fs';

/*
 * The JSON Schema the Agent Client Protocol SDK ships (`@agentclientprotocol/sdk`
 * schema/v1/schema.json, draft 2020-12): every ACP message this library writes is checked against
 * it, since the SDK's own client drops a malformed update with only a log line.
 */
const SCHEMA = JSON.parse(readFileSync(require.resolve('@agentclientprotocol/sdk/schema/v1/schema.json'), 'utf8')) as Record<
  string,
  unknown
>;

// strict: false: the schema carries the SDK's own keywords (x-deserialize-default-on-error…).
const ajv = new Ajv2020({ strict: false, allErrors: true });
// The schema's numeric formats (Rust's integer types) and `uri`, checked rather than ignored.
const integer = (min: number, max: number) => ({
  type: 'number' as const,
  validate: (value: number) => Number.isInteger(value) && value >= min && value <= max,
});
ajv.addFormat('uint16', integer(0, 65_535));
ajv.addFormat('uint32', integer(0, 4_294_967_295));
ajv.addFormat('uint64', integer(0, Number.MAX_SAFE_INTEGER));
ajv.addFormat('int32', integer(-2_147_483_648, 2_147_483_647));
ajv.addFormat('int64', integer(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER));
ajv.addFormat('double', { type: 'number', validate: (value: number) => Number.isFinite(value) });
ajv.addFormat('uri', { type: 'string', validate: (value: string) => URL.canParse(value) });
ajv.addSchema({ ...SCHEMA, $id: 'acp' });

const validators = new Map<string, ValidateFunction>();

/** The schema's errors for `value` as the `$defs` type `name` (none when it is valid). */
export function acpErrors(name: string, value: unknown): string[] {
  let validate = validators.get(name);
  if (!validate) {
    validate = ajv.compile({ $ref: name === '__root__' ? 'acp' : `acp#/$defs/${name}` });
    validators.set(name, validate);
  }
  return validate(value)
    ? []
    : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message ?? ''} ${JSON.stringify(error.params)}`);
}

/** The errors of a whole message the agent writes (request, answer or notification), against the schema's root. */
export function acpMessageErrors(message: unknown): string[] {
  return acpErrors('__root__', message);
}
