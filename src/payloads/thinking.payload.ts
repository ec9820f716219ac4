import { OptionalTrimmedString, TextString } from '../schema/conventions';
import { Payload } from './payload';

/** Provider thinking (reasoning) output. */
export class ThinkingPayload extends Payload {
  static override readonly kind = 'thinking' as const;

  /** Not trimmed, unlike the Elixir original: thinking deltas are byte-meaningful too. */
  @TextString('') content!: string;
  @OptionalTrimmedString() signature!: string | null;
}
