import type { JsonObject as JsonObjectData, JsonValue } from './json';

/*
 * The field vocabulary. Payload, event and tool classes are declared only with these
 * decorators. Each one lives in its rule's module under `fields/`, next to that rule's
 * normalization, issues, JSON Schema and class-validator decorators.
 */

/** Field types for payload declarations: `JsonObject` names both the decorator and the type. */
export type JsonObject = JsonObjectData;
export type { JsonValue };

export { AnyJson } from './fields/any';
export { JsonArray } from './fields/array';
export { Bool } from './fields/bool';
export { Enum } from './fields/enum';
export { NonNegInt, OptionalNonNegInt, PositiveInt } from './fields/int';
export { Metadata } from './fields/metadata';
export { NonNegNumber } from './fields/number';
export { JsonObject, OptionalJsonObject } from './fields/object';
export { PayloadField } from './fields/payload';
export { StringList } from './fields/string-list';
export { TextString } from './fields/text';
export { Timestamp } from './fields/timestamp';
export { OptionalTrimmedString, RequiredTrimmedString, TrimmedString } from './fields/trimmed';
