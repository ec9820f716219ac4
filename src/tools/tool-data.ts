import { JsonObject, Metadata } from '../schema/conventions';
import { ParseSetup } from '../schema/engine';
import { SchemaError } from '../schema/issue';
import { Model } from '../schema/model';

/**
 * Base of the neutral, serializable tool classes. They describe tool contracts and
 * exchanges; they never hold callbacks or run anything.
 */
export abstract class ToolData extends Model {
  static override readonly parseSetup: ParseSetup = {
    toError: (issues) => new SchemaError('invalid_tool', issues),
  };

  /** Provider-specific facts about the tool; default {}. */
  @Metadata() provider_metadata!: JsonObject;
}
