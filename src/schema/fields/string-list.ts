import { IsArray, IsString } from 'class-validator';
import { FieldRule } from '../field';
import { getInput, isArrayInput } from '../input';
import { Invalid, typeName } from '../issue';
import { nullable } from '../json-schema';
import { defineField, fresh, trim, wrongType } from './define';

/**
 * A list of strings, each trimmed (command-line arguments). Each item is read once; a hole of
 * a sparse array reads as undefined and is refused, where class-validator's `each` skips it.
 */
export const stringListRule: FieldRule = {
  type: 'string_list',
  read(value, _spec, trusted) {
    if (!isArrayInput(value)) return wrongType('array of strings', value);
    const items = value as unknown[];
    const length = trusted ? items.length : (getInput(items, 'length') as number);
    const out = new Array<string>(length);
    for (let i = 0; i < length; i++) {
      const item = trusted ? items[i] : getInput(items, i);
      if (typeof item !== 'string') return new Invalid('invalid_type', `expected string, got ${typeName(item)}`, [i]);
      out[i] = trim(item);
    }
    return out;
  },
  schema: (spec) => nullable(spec, { type: 'array', items: { type: 'string' } }),
  validators: () => [IsArray(), IsString({ each: true })],
};

/** A list of strings, each trimmed. */
export const StringList = (defaultValue: string[] = []): PropertyDecorator => defineField(stringListRule, { default: fresh(defaultValue) });
