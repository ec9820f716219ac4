import { TextString } from '../schema/conventions';
import { Payload } from './payload';

/** Standard-error output of a provider CLI. */
export class StderrPayload extends Payload {
  static override readonly kind = 'stderr' as const;

  /** Not trimmed: it is a byte stream. */
  @TextString('') content!: string;
}
