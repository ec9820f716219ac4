import { IsString } from 'class-validator';
import { FieldRule } from '../field';
import { nullable } from '../json-schema';
import { defineField, fresh, wrongType } from './define';

/** Free text kept byte for byte: deltas, thinking and stderr are byte-meaningful, and trimming corrupts them. */
export const textRule: FieldRule = {
  type: 'text',
  scalar: true,
  read: (value) => (typeof value === 'string' ? value : wrongType('string', value)),
  schema: (spec) => nullable(spec, { type: 'string' }),
  validators: () => [IsString()],
};

/** Free text kept byte for byte (never trimmed): stream deltas, thinking, stderr. */
export const TextString = (defaultValue = ''): PropertyDecorator => defineField(textRule, { default: fresh(defaultValue) });
