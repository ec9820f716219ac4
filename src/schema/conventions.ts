import { Transform, Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsDate,
  IsDefined,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { FieldSpec, normalize, recordField } from './field';
import { IsJsonValue } from './is-json-value';
import type { JsonObject as JsonObjectData, JsonValue } from './json';
import { PreciseDate } from './precise-date';

/*
 * The field vocabulary. Each decorator records a FieldSpec (read by the fast
 * parser and the JSON Schema) and applies the real class-transformer and
 * class-validator decorators with the same meaning (read by NestJS pipes and
 * by the reference parse path). Payload classes are declared only with these.
 */

/** Field types for payload declarations: `JsonObject` names both the decorator and the type. */
export type JsonObject = JsonObjectData;
export type { JsonValue };

type SpecOptions = Omit<FieldSpec, 'key' | 'required' | 'nullable'> & { required?: boolean; nullable?: boolean };

function field(options: SpecOptions, ...validators: PropertyDecorator[]): PropertyDecorator {
  return (target, property) => {
    const key = String(property);
    const spec: FieldSpec = {
      ...options,
      key,
      required: options.required ?? false,
      nullable: options.nullable ?? false,
    };
    recordField(target, spec);
    if (spec.type === 'payload') return applyAll(validators, target, property);
    // Reads the source value itself (`obj`), not class-transformer's recursive copy,
    // which would drop `__proto__` keys and turn JSON data into other shapes.
    Transform(({ obj }) => normalize(spec, (obj as Record<string, unknown>)[key]), { toClassOnly: true })(
      target,
      property,
    );
    applyAll(validators, target, property);
  };
}

function applyAll(decorators: PropertyDecorator[], target: object, property: string | symbol): void {
  for (const decorate of decorators) decorate(target, property);
}

/** A default factory that hands out a fresh copy of `value` each time. */
function fresh(value: unknown): () => unknown {
  if (Array.isArray(value) && value.length === 0) return () => [];
  if (typeof value === 'object' && value !== null) {
    return Object.keys(value).length === 0 ? () => ({}) : () => structuredClone(value);
  }
  return () => value;
}

const SAFE_INT = [IsInt(), Max(Number.MAX_SAFE_INTEGER)];

/** Free text kept byte for byte (never trimmed): stream deltas, thinking, stderr. */
export const TextString = (defaultValue = ''): PropertyDecorator =>
  field({ type: 'text', default: fresh(defaultValue) }, IsString());

/** A trimmed string with a non-null default. */
export const TrimmedString = (defaultValue = ''): PropertyDecorator =>
  field({ type: 'trimmed', default: fresh(defaultValue) }, IsString());

/** A trimmed string or null (the default). */
export const OptionalTrimmedString = (): PropertyDecorator =>
  field({ type: 'trimmed', default: fresh(null), nullable: true }, IsOptional(), IsString());

/** A trimmed string that must be present and not blank. */
export const RequiredTrimmedString = (): PropertyDecorator =>
  field({ type: 'trimmed', required: true }, IsDefined(), IsString(), IsNotEmpty());

/** A non-negative safe integer with a default. */
export const NonNegInt = (defaultValue = 0): PropertyDecorator =>
  field({ type: 'int', min: 0, default: fresh(defaultValue) }, ...SAFE_INT, Min(0));

/** A non-negative safe integer or null (the default). */
export const OptionalNonNegInt = (): PropertyDecorator =>
  field({ type: 'int', min: 0, default: fresh(null), nullable: true }, IsOptional(), ...SAFE_INT, Min(0));

/** A positive safe integer; `defaultValue` is called for each missing value (ids). */
export const PositiveInt = (defaultValue: () => number): PropertyDecorator =>
  field({ type: 'int', min: 1, default: defaultValue, generated: true }, ...SAFE_INT, Min(1));

/** A non-negative finite number with a default. */
export const NonNegNumber = (defaultValue = 0): PropertyDecorator =>
  field({ type: 'number', min: 0, default: fresh(defaultValue) }, IsNumber({ allowNaN: false, allowInfinity: false }), Min(0));

/** A boolean with a default. */
export const Bool = (defaultValue = false): PropertyDecorator =>
  field({ type: 'bool', default: fresh(defaultValue) }, IsBoolean());

/** One of `values` (string input is trimmed); required when no default is given. */
export const Enum = (values: readonly string[], defaultValue?: string): PropertyDecorator =>
  defaultValue === undefined
    ? field({ type: 'enum', values, required: true }, IsDefined(), IsIn([...values]))
    : field({ type: 'enum', values, default: fresh(defaultValue) }, IsIn([...values]));

/** A JSON object with a default (a fresh copy each time). */
export const JsonObject = (defaultValue: object = {}): PropertyDecorator =>
  field({ type: 'object', default: fresh(defaultValue) }, IsObject(), IsJsonValue());

/** A JSON object or null (the default). */
export const OptionalJsonObject = (): PropertyDecorator =>
  field({ type: 'object', default: fresh(null), nullable: true }, IsOptional(), IsObject(), IsJsonValue());

/** A JSON array with a default. */
export const JsonArray = (defaultValue: unknown[] = []): PropertyDecorator =>
  field({ type: 'array', default: fresh(defaultValue) }, IsArray(), IsJsonValue());

/** Any JSON value; missing or null takes `defaultValue` (null unless given). */
export const AnyJson = (defaultValue: unknown = null): PropertyDecorator =>
  field({ type: 'any', default: fresh(defaultValue), nullable: true }, IsJsonValue());

/** A list of strings, each trimmed. */
export const StringList = (defaultValue: string[] = []): PropertyDecorator =>
  field({ type: 'string_list', default: fresh(defaultValue) }, IsArray(), IsString({ each: true }));

/** A point in time: ISO 8601 text, a Date or epoch ms in; a `PreciseDate` stored; missing means now. */
export const Timestamp = (): PropertyDecorator =>
  field({ type: 'timestamp', default: () => new PreciseDate(Date.now()), generated: true }, IsDate());

/** A free-form metadata bag (`metadata`, `provider_metadata`): a JSON object, default {}, written after the other fields. */
export const Metadata = (): PropertyDecorator =>
  field({ type: 'object', default: fresh({}), trailing: true }, IsObject(), IsJsonValue());

/**
 * The event's payload, whose class depends on the sibling `kind`. `resolve` names the
 * class for class-transformer (NestJS pipes); the library's own parse uses the registry in force.
 */
export const PayloadField = (resolve: (kind: unknown) => (new () => object) | undefined): PropertyDecorator =>
  field(
    { type: 'payload' },
    ValidateNested(),
    Type((help) => resolve((help?.object as { kind?: unknown } | undefined)?.kind) ?? Object),
  );
