import { EventKind, KINDS } from '../registry/kinds';
import { Registry, type AnyRegistry } from '../registry/registry';
import { ModelClass } from '../schema/context';
import { JsonSchema } from '../schema/json-schema';
import { OpenApiPropertyMetadata, openApiMetadataOf, openApiSchemaOf } from '../schema/openapi';
import { Event } from './event';

/*
 * An event body in OpenAPI: a union over `kind`. OpenAPI's discriminator maps each value of
 * `kind` to a named schema, so each kind gets a model of its own, `ToolUseEvent` (the envelope
 * with `kind: "tool_use"` and a `ToolUsePayload`), for documentation only: events are still
 * parsed as `Event`.
 */

/** A per-kind event model: a class only for `@nestjs/swagger` (`extraModels`, `getSchemaPath`). */
export interface EventKindModel {
  new (): object;
  readonly name: string;
  readonly kind: EventKind;
  _OPENAPI_METADATA_FACTORY(): Record<string, OpenApiPropertyMetadata>;
}

const MODELS = new WeakMap<AnyRegistry, readonly EventKindModel[]>();

/** `tool_use` → `ToolUseEvent`. */
function modelName(kind: EventKind): string {
  return `${kind.replace(/(^|_)([a-z])/g, (_, _sep: string, letter: string) => letter.toUpperCase())}Event`;
}

function kindModel(kind: EventKind, payloadClass: ModelClass): EventKindModel {
  const model = class {
    static readonly kind = kind;
    static _OPENAPI_METADATA_FACTORY(): Record<string, OpenApiPropertyMetadata> {
      const envelope = openApiMetadataOf(Event, () => payloadClass);
      return { ...envelope, kind: { type: 'string', enum: [kind], required: true } };
    }
  };
  Object.defineProperty(model, 'name', { value: modelName(kind) });
  return model;
}

/**
 * The fourteen per-kind event models (`RunStartedEvent`, …, `RawEvent`), each with the payload
 * class the registry names for its kind: give them to `@ApiExtraModels(...)` or to
 * `SwaggerModule.createDocument(app, config, { extraModels })`. `@EventBody()` does that for you.
 */
export function eventKindModels(registry: AnyRegistry = Registry.default): readonly EventKindModel[] {
  let models = MODELS.get(registry);
  if (!models) {
    models = KINDS.map((kind) => kindModel(kind, registry.classFor(kind) as ModelClass));
    MODELS.set(registry, models);
  }
  return models;
}

/** Where a named schema sits in an OpenAPI 3 document. */
const ref = (name: string): string => `#/components/schemas/${name}`;

/**
 * The OpenAPI schema of any event: `oneOf` the per-kind event models with a `kind` discriminator,
 * for `@ApiBody({ schema: anyEventOpenApi() })` (with the models of `eventKindModels()` registered).
 */
export function anyEventOpenApi(registry: AnyRegistry = Registry.default): JsonSchema {
  const models = eventKindModels(registry);
  return {
    oneOf: models.map((model) => ({ $ref: ref(model.name) })),
    discriminator: { propertyName: 'kind', mapping: Object.fromEntries(models.map((model) => [model.kind, ref(model.name)])) },
  };
}

/**
 * The OpenAPI 3.0 `components.schemas` of events without `@nestjs/swagger`: `Event`, the per-kind
 * event models and every payload class, for a hand-written document next to `anyEventOpenApi()`.
 */
export function eventOpenApiComponents(registry: AnyRegistry = Registry.default): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = { Event: openApiSchemaOf(Event) };
  for (const model of eventKindModels(registry)) {
    const payloadClass = registry.classFor(model.kind) as ModelClass;
    const envelope = openApiSchemaOf(Event);
    schemas[payloadClass.name] = openApiSchemaOf(payloadClass);
    schemas[model.name] = {
      ...envelope,
      title: model.name,
      properties: {
        ...(envelope.properties as JsonSchema),
        kind: { type: 'string', enum: [model.kind] },
        payload: { nullable: true, allOf: [{ $ref: ref(payloadClass.name) }] },
      },
    };
  }
  return schemas;
}
