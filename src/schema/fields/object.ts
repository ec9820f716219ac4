import { IsObject, IsOptional } from 'class-validator';
import { FieldRule } from '../field';
import { isArrayInput } from '../input';
import { IsJsonValue } from '../is-json-value';
import { readJsonData } from '../json';
import { nullable } from '../json-schema';
import { defaultsToNull, defineField, fresh, wrongType } from './define';

/** A JSON object (tool input, details). A function is let through to the JSON check, which names it. */
export const objectRule: FieldRule = {
  type: 'object',
  read: (value, _spec, trusted) =>
    (typeof value === 'object' && !isArrayInput(value)) || typeof value === 'function'
      ? readJsonData(value, trusted)
      : wrongType('object', value),
  schema: (spec) => nullable(spec, { type: 'object' }),
  validators: (spec) => [...(defaultsToNull(spec) ? [IsOptional()] : []), IsObject(), IsJsonValue()],
};

/** A JSON object with a default (a fresh copy each time). */
export const JsonObject = (defaultValue: object = {}): PropertyDecorator => defineField(objectRule, { default: fresh(defaultValue) });

/** A JSON object or null (the default). */
export const OptionalJsonObject = (): PropertyDecorator => defineField(objectRule, { default: fresh(null) });
