import { IsDefined, IsIn } from 'class-validator';
import { FieldRule } from '../field';
import { Invalid, preview } from '../issue';
import { nullable } from '../json-schema';
import { defineField, fresh, trim } from './define';

/**
 * One of the declared values; string input is trimmed. The declared constant itself is
 * stored (an internalized string), so later lookups by it, such as the registry's, need
 * no hashing of a fresh parsed string.
 */
export const enumRule: FieldRule = {
  type: 'enum',
  scalar: true,
  read(value, spec) {
    const text = typeof value === 'string' ? trim(value) : value;
    const values = spec.values ?? [];
    // Lengths first: a parsed string is not hashed yet, and most declared values differ in length.
    if (typeof text === 'string')
      for (let i = 0; i < values.length; i++) if (values[i].length === text.length && values[i] === text) return values[i];
    return new Invalid('invalid_enum', `expected one of ${values.map((v) => JSON.stringify(v)).join(', ')}; got ${preview(text)}`);
  },
  schema: (spec) => nullable(spec, { enum: [...(spec.values ?? [])] }),
  validators: (spec) => (spec.required ? [IsDefined(), IsIn([...(spec.values ?? [])])] : [IsIn([...(spec.values ?? [])])]),
};

/** One of `values` (string input is trimmed); required when no default is given. */
export const Enum = (values: readonly string[], defaultValue?: string): PropertyDecorator =>
  defaultValue === undefined
    ? defineField(enumRule, { values, required: true })
    : defineField(enumRule, { values, default: fresh(defaultValue) });
