import { IsNumber, Min } from 'class-validator';
import { FieldRule } from '../field';
import { Invalid } from '../issue';
import { nullable } from '../json-schema';
import { defineField, fresh, wrongType } from './define';

/** A finite number from `min` (costs): NaN and Infinity have no JSON form. */
export const numberRule: FieldRule = {
  type: 'number',
  scalar: true,
  read(value, spec) {
    if (typeof value !== 'number' || !Number.isFinite(value)) return wrongType('finite number', value);
    const min = spec.min ?? 0;
    return value < min ? new Invalid('too_small', `too small: must be at least ${min}`) : value;
  },
  schema: (spec) => nullable(spec, { type: 'number', minimum: spec.min ?? 0 }),
  validators: (spec) => [IsNumber({ allowNaN: false, allowInfinity: false }), Min(spec.min ?? 0)],
};

/** A non-negative finite number with a default. */
export const NonNegNumber = (defaultValue = 0): PropertyDecorator => defineField(numberRule, { min: 0, default: fresh(defaultValue) });
