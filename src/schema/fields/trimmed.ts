import { IsDefined, IsOptional, IsString, ValidateBy } from 'class-validator';
import { FieldRule } from '../field';
import { Invalid } from '../issue';
import { nullable } from '../json-schema';
import { defaultsToNull, defineField, fresh, trim, wrongType } from './define';

const BLANK = new Invalid('required', 'required: must not be blank');

/** class-validator's IsNotEmpty lets "  " through; the rule trims first, so blank is empty. */
const IsNotBlank = (): PropertyDecorator =>
  ValidateBy({
    name: 'isNotBlank',
    validator: {
      validate: (value) => typeof value === 'string' && value.trim() !== '',
      defaultMessage: (args) => `${args?.property ?? 'value'} must not be blank`,
    },
  });

/** A string, trimmed; a required one must not be blank once trimmed. */
export const trimmedRule: FieldRule = {
  type: 'trimmed',
  scalar: true,
  read(value, spec) {
    if (typeof value !== 'string') return wrongType('string', value);
    const text = trim(value);
    return spec.required && text === '' ? BLANK : text;
  },
  // A required string must have a non-whitespace character (trimmed, it must not be empty).
  schema: (spec) => (spec.required ? { type: 'string', pattern: '\\S' } : nullable(spec, { type: 'string' })),
  validators: (spec) =>
    spec.required ? [IsDefined(), IsString(), IsNotBlank()] : defaultsToNull(spec) ? [IsOptional(), IsString()] : [IsString()],
};

/** A trimmed string with a non-null default. */
export const TrimmedString = (defaultValue = ''): PropertyDecorator => defineField(trimmedRule, { default: fresh(defaultValue) });

/** A trimmed string or null (the default). */
export const OptionalTrimmedString = (): PropertyDecorator => defineField(trimmedRule, { default: fresh(null) });

/** A trimmed string that must be present and not blank. */
export const RequiredTrimmedString = (): PropertyDecorator => defineField(trimmedRule, { required: true });
