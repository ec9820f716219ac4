import { AnyJson, JsonValue, OptionalNonNegInt, TextString } from '../schema/conventions';
import { Payload } from './payload';

/** A streamed piece of assistant output. */
export class AssistantDeltaPayload extends Payload {
  static override readonly kind = 'assistant_delta' as const;

  /** Never trimmed: stream deltas are byte-meaningful and trimming corrupts the rendered text. */
  @TextString('') content!: string;
  @OptionalNonNegInt() index!: number | null;
  /** How to render `content`; "text" unless the provider says otherwise. */
  @AnyJson('text') format!: JsonValue;
}
