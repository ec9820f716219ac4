import { IsArray } from 'class-validator';
import { FieldRule } from '../field';
import { isArrayInput } from '../input';
import { IsJsonValue } from '../is-json-value';
import { readJsonData } from '../json';
import { nullable } from '../json-schema';
import { defineField, fresh, wrongType } from './define';

/** A JSON array (content blocks, as the provider shaped them). */
export const arrayRule: FieldRule = {
  type: 'array',
  read: (value, _spec, trusted) => (isArrayInput(value) ? readJsonData(value, trusted) : wrongType('array', value)),
  schema: (spec) => nullable(spec, { type: 'array' }),
  validators: () => [IsArray(), IsJsonValue()],
};

/** A JSON array with a default. */
export const JsonArray = (defaultValue: unknown[] = []): PropertyDecorator => defineField(arrayRule, { default: fresh(defaultValue) });
