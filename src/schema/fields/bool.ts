import { IsBoolean } from 'class-validator';
import { FieldRule } from '../field';
import { nullable } from '../json-schema';
import { defineField, fresh, wrongType } from './define';

/** A boolean (a boxed `new Boolean()` is not JSON and is refused). */
export const boolRule: FieldRule = {
  type: 'bool',
  scalar: true,
  read: (value) => (typeof value === 'boolean' ? value : wrongType('boolean', value)),
  schema: (spec) => nullable(spec, { type: 'boolean' }),
  validators: () => [IsBoolean()],
};

/** A boolean with a default. */
export const Bool = (defaultValue = false): PropertyDecorator => defineField(boolRule, { default: fresh(defaultValue) });
