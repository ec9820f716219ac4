import { AnyJson, JsonValue } from '../schema/conventions';
import { Payload } from './payload';

/** The terminal result of a provider CLI run. */
export class ResultPayload extends Payload {
  static override readonly kind = 'result' as const;

  @AnyJson() status!: JsonValue;
  @AnyJson() stop_reason!: JsonValue;
  @AnyJson() output!: JsonValue;
  /** A structured object the provider returned because one was requested (Elixir `Payload.Result.object`). */
  @AnyJson() object!: JsonValue;
}
