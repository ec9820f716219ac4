import { Enum, JsonArray, JsonValue, OptionalTrimmedString } from '../schema/conventions';
import { Payload } from './payload';

/** A completed assistant message. */
export class AssistantMessagePayload extends Payload {
  static override readonly kind = 'assistant_message' as const;

  /** Content blocks, as the provider shaped them. */
  @JsonArray([]) content!: JsonValue[];
  @Enum(['assistant'], 'assistant') role!: 'assistant';
  @OptionalTrimmedString() model!: string | null;
}
