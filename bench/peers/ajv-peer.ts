import Ajv2020 from 'ajv/dist/2020';
import { Event } from '../../src';

/** Validate-only floor: ajv's compiled validator for the library's own Event JSON Schema. */
export function ajvValidator(): (value: unknown) => boolean {
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  const validate = ajv.compile(Event.schema());
  return (value) => validate(value) as boolean;
}
