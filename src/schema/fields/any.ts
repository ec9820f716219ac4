import { FieldRule } from '../field';
import { IsJsonValue } from '../is-json-value';
import { readJsonData } from '../json';
import { nullable } from '../json-schema';
import { defineField, fresh } from './define';

/** Any JSON value (statuses, outputs, raw provider data). */
export const anyRule: FieldRule = {
  type: 'any',
  read: (value, _spec, trusted) => readJsonData(value, trusted),
  schema: (spec) => nullable(spec, {}),
  validators: () => [IsJsonValue()],
};

/** Any JSON value; missing or null takes `defaultValue` (null unless given). */
export const AnyJson = (defaultValue: unknown = null): PropertyDecorator => defineField(anyRule, { default: fresh(defaultValue) });
