import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { FieldRule } from '../field';
import { Invalid } from '../issue';
import { nullable } from '../json-schema';
import { defaultsToNull, defineField, fresh, wrongType } from './define';

const TOO_BIG = new Invalid('too_big', `too big: must be at most ${Number.MAX_SAFE_INTEGER}`);

/** An integer from `min` up to the largest safe integer (ids, sequences, token counts). */
export const intRule: FieldRule = {
  type: 'int',
  scalar: true,
  read(value, spec) {
    if (typeof value !== 'number' || !Number.isInteger(value)) return wrongType('integer', value);
    const min = spec.min ?? 0;
    if (value < min) return new Invalid('too_small', `too small: must be at least ${min}`);
    return value > Number.MAX_SAFE_INTEGER ? TOO_BIG : value;
  },
  schema: (spec) => nullable(spec, { type: 'integer', minimum: spec.min ?? 0, maximum: Number.MAX_SAFE_INTEGER }),
  validators: (spec) => [...(defaultsToNull(spec) ? [IsOptional()] : []), IsInt(), Max(Number.MAX_SAFE_INTEGER), Min(spec.min ?? 0)],
};

/** A non-negative safe integer with a default. */
export const NonNegInt = (defaultValue = 0): PropertyDecorator => defineField(intRule, { min: 0, default: fresh(defaultValue) });

/** A non-negative safe integer or null (the default). */
export const OptionalNonNegInt = (): PropertyDecorator => defineField(intRule, { min: 0, default: fresh(null) });

/** A positive safe integer; `defaultValue` is called for each missing value (ids). */
export const PositiveInt = (defaultValue: () => number): PropertyDecorator =>
  defineField(intRule, { min: 1, default: defaultValue, generated: true });
