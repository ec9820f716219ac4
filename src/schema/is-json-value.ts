import { ValidateBy, ValidationOptions, buildMessage } from 'class-validator';
import { validateSerializable } from './json';

/** Name of the constraint, as it appears in class-validator errors. */
export const IS_JSON_VALUE = 'isJsonValue';

/**
 * class-validator decorator: the value is plain JSON data (see `validateSerializable`).
 * Works on its own in any class-validator DTO.
 */
export function IsJsonValue(validationOptions?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: IS_JSON_VALUE,
      validator: {
        validate: (value): boolean => validateSerializable(value).length === 0,
        defaultMessage: buildMessage((each) => `${each}$property must be JSON-serializable data`, validationOptions),
      },
    },
    validationOptions,
  );
}
