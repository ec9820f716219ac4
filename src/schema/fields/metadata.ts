import { defineField, fresh } from './define';
import { objectRule } from './object';

/**
 * A free-form metadata bag (`metadata`, `provider_metadata`): a JSON object, default {},
 * written after the other fields, as the wire format closes every payload with it.
 */
export const Metadata = (): PropertyDecorator => defineField(objectRule, { default: fresh({}), trailing: true });
