import { Enum, JsonArray, JsonValue } from '../schema/conventions';
import { Payload } from './payload';

/** Normalized user input. */
export class UserMessagePayload extends Payload {
  static override readonly kind = 'user_message' as const;

  /** Content blocks, as the provider shaped them. */
  @JsonArray([]) content!: JsonValue[];
  @Enum(['user'], 'user') role!: 'user';
}
