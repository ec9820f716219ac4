import { AnyJson, JsonValue } from '../schema/conventions';
import { Payload } from './payload';

/** An unnormalized provider payload. */
export class RawPayload extends Payload {
  static override readonly kind = 'raw' as const;

  /** Which stream it came from: "stdout" unless said. */
  @AnyJson('stdout') stream!: JsonValue;
  @AnyJson() content!: JsonValue;
}
