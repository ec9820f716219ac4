import { ModelClass } from './context';
import { ParseOptions, ParseSetup, parseAs, parseJsonAs, extraOf, safeParseAs, toPlain } from './engine';
import { initInstance } from './field';
import { ParseResult } from './issue';
import { JsonObject } from './json';
import { JsonSchema, jsonSchemaOf } from './json-schema';
import { OpenApiPropertyMetadata, SchemaOptions, openApiMetadataOf, openApiSchemaOf } from './openapi';
import { UnknownKeys, assignExtra } from './unknown-keys';

/** The data fields of a model: everything but methods and `extra`. */
export type DataKeys<T> = {
  [K in keyof T]-?: T[K] extends (...args: never[]) => unknown ? never : K extends 'extra' ? never : K;
}[keyof T];

/** What a field accepts as input: timestamps as text or epoch ms too, nested models as plain objects too. */
export type FieldInput<V> = V extends Date ? Date | string | number : V extends Model ? V | ModelInput<V> : V;

/**
 * Input for `create`: the data fields (each optional; null takes the default) plus any
 * unknown keys, kept in `extra`. `Omitted` names fields the caller supplies otherwise.
 */
export type ModelInput<T, Omitted extends PropertyKey = never> = {
  [K in Exclude<DataKeys<T>, Omitted>]?: FieldInput<T[K]> | null;
} & { [key: string]: unknown };

/** A concrete model class, as the statics see `this`. */
export type ConcreteModel<T extends Model> = ModelClass<T> & { readonly parseSetup: ParseSetup };

/**
 * Base of payloads and tool data: declared fields plus `extra`, with inherited,
 * subclass-typed `parse` / `safeParse` / `create` / `fromJSON` / `schema`
 * (`ToolUsePayload.parse(x)` returns a `ToolUsePayload`).
 */
export abstract class Model {
  /**
   * Keys the class does not declare, kept exactly as received: own properties of the instance
   * after its fields, so `JSON.stringify` writes them back. Reading gives a frozen snapshot;
   * assign a plain JSON object to replace them.
   */
  // How class-transformer and class-validator see it (an incoming `extra` key is an unknown key): unknown-keys.ts.
  @UnknownKeys()
  get extra(): JsonObject {
    return extraOf(this) as JsonObject;
  }
  set extra(value: JsonObject) {
    assignExtra(this, value);
  }

  /** A model with every field at its default (required fields stay unset). */
  constructor() {
    initInstance(this, new.target);
  }

  /** How this family reports errors; set by each base (Payload, tools). */
  static readonly parseSetup: ParseSetup;

  /** Parses `input` (a plain object, or an instance, returned as is); throws `SchemaError`. */
  static parse<C extends ConcreteModel<Model>>(this: C, input: unknown, options?: ParseOptions): InstanceType<C> {
    return parseAs(this, input, options, this.parseSetup) as InstanceType<C>;
  }

  /** Like `parse`, but answers `{ success, data | error }` and never throws. */
  static safeParse<C extends ConcreteModel<Model>>(this: C, input: unknown, options?: ParseOptions): ParseResult<InstanceType<C>> {
    return safeParseAs(this, input, options, this.parseSetup) as ParseResult<InstanceType<C>>;
  }

  /** Validated construction from attributes; throws `SchemaError`. */
  static create<C extends ConcreteModel<Model>>(this: C, attrs: ModelInput<InstanceType<C>> = {}, options?: ParseOptions): InstanceType<C> {
    return parseAs(this, attrs, options, this.parseSetup) as InstanceType<C>;
  }

  /** Parses a JSON text; bad JSON throws a `SchemaError` with a `json` issue. */
  static fromJSON<C extends ConcreteModel<Model>>(this: C, text: string, options?: ParseOptions): InstanceType<C> {
    return parseJsonAs(this, text, options, this.parseSetup) as InstanceType<C>;
  }

  /**
   * The JSON Schema (draft 2020-12) of this class's accepted JSON input: null takes a default,
   * unknown keys are allowed. `{ openapi: '3.0' }`: the same as an OpenAPI 3.0 schema object.
   */
  static schema(this: ModelClass<Model>, options?: SchemaOptions): JsonSchema {
    return options?.openapi === '3.0' ? openApiSchemaOf(this) : jsonSchemaOf(this);
  }

  /**
   * The fields as `@nestjs/swagger` reads them (the convention of its CLI plugin, so Swagger shows
   * every field's type, nullability, enum and default without any decorator of its own).
   * @internal
   */
  static _OPENAPI_METADATA_FACTORY(this: ModelClass<Model>): Record<string, OpenApiPropertyMetadata> {
    return openApiMetadataOf(this);
  }

  /** The plain snake_case object: declared fields, then `extra` keys merged back. */
  toMap(): Record<string, unknown> {
    return toPlain(this, false);
  }
}
