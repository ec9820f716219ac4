import { Metadata } from '../schema/conventions';
import { ParseSetup } from '../schema/engine';
import { SchemaError } from '../schema/issue';
import { JsonObject } from '../schema/json';
import { Model } from '../schema/model';
import type { EventKind } from '../registry/kinds';

/**
 * Base of the fourteen payload classes. Each subclass names its `kind` and declares
 * its fields with the conventions; parsing, defaults, `extra`, `toMap` and `schema` come from here.
 */
export abstract class Payload extends Model {
  /** The event kind this payload class belongs to. */
  static readonly kind: EventKind;

  /** Errors name the payload's kind. */
  static override readonly parseSetup: ParseSetup = {
    toError: (issues, _ctx, cls) => new SchemaError('invalid_payload', issues, (cls as unknown as typeof Payload).kind),
  };

  /** Free-form facts about the payload; default {}. */
  @Metadata() metadata!: JsonObject;
}
