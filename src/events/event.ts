import type { Payload } from '../payloads/payload';
import { EventKind, KINDS } from '../registry/kinds';
import { DefaultPayloadClasses, PayloadFor } from '../registry/payload-classes';
import { PayloadClassMap, Registry } from '../registry/registry';
import {
  AnyJson,
  Enum,
  JsonObject,
  JsonValue,
  Metadata,
  OptionalNonNegInt,
  OptionalTrimmedString,
  PayloadField,
  PositiveInt,
  Timestamp,
} from '../schema/conventions';
import { ParseOptions, ParseSetup, parseAs, parseJsonAs, extraOf, safeParseAs, safeParseJsonAs, toPlain } from '../schema/engine';
import { ModelClass } from '../schema/context';
import { initInstance } from '../schema/field';
import { ParseResult, SchemaError } from '../schema/issue';
import { ModelInput } from '../schema/model';
import { OpenApiPropertyMetadata, SchemaOptions, openApiMetadataOf, openApiSchemaOf } from '../schema/openapi';
import { UnknownKeys, assignExtra } from '../schema/unknown-keys';
import { nextEventId } from './event-id';
import { eventSchema } from './event-schema';

/** Options of `Event.parse` and friends: the parse mode and the registry of payload classes. */
export interface EventParseOptions<M extends PayloadClassMap = DefaultPayloadClasses> extends ParseOptions {
  /** Which payload class parses each kind; `Registry.default` unless given. */
  registry?: Registry<M>;
}

/** An event of any kind: a union that narrows on `event.kind`. */
export type AnyEvent<M extends PayloadClassMap = DefaultPayloadClasses> = {
  [K in EventKind]: Event<K, InstanceType<M[K]>>;
}[EventKind];

/** Input of `Event.create(kind, attrs)`: envelope fields and the payload (an instance or its attributes). */
export type EventInput<K extends EventKind> = ModelInput<Event<K>, 'kind'>;

/** One setup per registry, made once: a Nest `EventParser` passes its registry on every call. */
const SETUPS = new WeakMap<object, ParseSetup>();

/** @internal The parse setup of a registry (the default one's unless given); the trusted build reads it too. */
export function setupFor(registry: { classFor(kind: string): ModelClass | undefined } | undefined): ParseSetup {
  if (!registry || registry === (Registry.default as object)) return DEFAULT_SETUP;
  let setup = SETUPS.get(registry);
  if (!setup) {
    setup = { toError: eventError, payloadClass: (kind) => registry.classFor(kind) };
    SETUPS.set(registry, setup);
  }
  return setup;
}

/** Envelope problems make an `invalid_event`; problems only inside the payload, an `invalid_event_payload` of that kind. */
function eventError(issues: SchemaError['issues'], ctx: { kind?: string }): SchemaError {
  const payloadOnly = issues.every((issue) => issue.path[0] === 'payload' || issue.code === 'too_many_issues');
  return payloadOnly ? new SchemaError('invalid_event_payload', issues, ctx.kind) : new SchemaError('invalid_event', issues);
}

const DEFAULT_SETUP: ParseSetup = { toError: eventError, payloadClass: (kind) => Registry.default.classFor(kind) };

/**
 * The normalized runtime event envelope. Generic in its kind:
 * `Event.create('tool_use', …)` is an `Event<'tool_use'>` whose `payload` is a `ToolUsePayload`.
 */
export class Event<K extends EventKind = EventKind, P extends Payload = PayloadFor<K>> {
  /** Positive safe integer; default: the next process-local id. */
  @PositiveInt(nextEventId) id!: number;
  @Enum(KINDS) kind!: K;
  /** Which provider CLI emitted it ("claude", "codex", …). */
  @OptionalTrimmedString() provider!: string | null;
  /** Position in the provider's stream, when known. */
  @OptionalNonNegInt() sequence!: number | null;
  /** Default: now. Parsed text keeps its exact digits on output. */
  @Timestamp() timestamp!: Date;
  /** The kind's payload; missing or null gives the kind's default payload. */
  @PayloadField((kind) => Registry.default.classFor(String(kind))) payload!: P;
  /** The provider's original line or object, when kept. */
  @AnyJson() raw!: JsonValue;
  @OptionalTrimmedString() provider_session_id!: string | null;
  @Metadata() metadata!: JsonObject;
  /**
   * Unknown envelope keys, kept exactly: own properties of the event after its fields, so
   * `JSON.stringify` writes them back. Reading gives a frozen snapshot; assign a plain JSON
   * object to replace them.
   */
  // How class-transformer and class-validator see it (an incoming `extra` key is an unknown key): unknown-keys.ts.
  @UnknownKeys()
  get extra(): JsonObject {
    return extraOf(this) as JsonObject;
  }
  set extra(value: JsonObject) {
    assignExtra(this, value);
  }

  /** An event with every field at its default (kind and payload unset); prefer `Event.create`. */
  constructor() {
    initInstance(this, new.target);
  }

  /** The fourteen kinds, in their stable order. */
  static kinds(): readonly EventKind[] {
    return KINDS;
  }

  /** Parses a plain object (or returns an event as is); throws `SchemaError`. */
  static parse<M extends PayloadClassMap = DefaultPayloadClasses>(input: unknown, options?: EventParseOptions<M>): AnyEvent<M> {
    return parseAs(Event, input, options, setupFor(options?.registry)) as AnyEvent<M>;
  }

  /** Like `parse`, but answers `{ success, data | error }` and never throws. */
  static safeParse<M extends PayloadClassMap = DefaultPayloadClasses>(
    input: unknown,
    options?: EventParseOptions<M>,
  ): ParseResult<AnyEvent<M>> {
    return safeParseAs(Event, input, options, setupFor(options?.registry)) as ParseResult<AnyEvent<M>>;
  }

  /** Parses one JSON line; bad JSON throws a `SchemaError` (`invalid_event`, issue code `json`). */
  static fromJSON<M extends PayloadClassMap = DefaultPayloadClasses>(text: string, options?: EventParseOptions<M>): AnyEvent<M> {
    return parseJsonAs(Event, text, options, setupFor(options?.registry)) as AnyEvent<M>;
  }

  /** Like `fromJSON`, but never throws. */
  static safeFromJSON<M extends PayloadClassMap = DefaultPayloadClasses>(
    text: string,
    options?: EventParseOptions<M>,
  ): ParseResult<AnyEvent<M>> {
    return safeParseJsonAs(Event, text, options, setupFor(options?.registry)) as ParseResult<AnyEvent<M>>;
  }

  /** Validated construction of an event of `kind`; throws `SchemaError`. */
  static create<K extends EventKind>(kind: K, attrs: EventInput<K> = {}, options?: EventParseOptions): Event<K> {
    return parseAs(Event, attrs, options, setupFor(options?.registry), { kind }) as unknown as Event<K>;
  }

  /**
   * The JSON Schema (draft 2020-12) of the accepted JSON input, with `payload` tied to `kind` (if/then
   * per kind, payloads in `$defs`). `{ openapi: '3.0' }`: the envelope as an OpenAPI 3.0 schema object
   * (`payload` any object; `anyEventOpenApi()` has the union over `kind`).
   */
  static schema(options?: SchemaOptions): Record<string, unknown> {
    return options?.openapi === '3.0' ? openApiSchemaOf(Event) : eventSchema(Event);
  }

  /**
   * The envelope's fields as `@nestjs/swagger` reads them (its CLI plugin's convention); the
   * per-kind models of `eventKindModels()` add the payload class of each kind.
   * @internal
   */
  static _OPENAPI_METADATA_FACTORY(): Record<string, OpenApiPropertyMetadata> {
    return openApiMetadataOf(Event);
  }

  /** The plain snake_case object: envelope fields, payload mapped, then `extra` keys merged back. */
  toMap(): Record<string, unknown> {
    return toPlain(this, false);
  }
}
