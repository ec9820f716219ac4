import { Enum, OptionalTrimmedString, TrimmedString } from '../schema/conventions';
import { Payload } from './payload';

/** Error severities, mildest first. */
export const ERROR_SEVERITIES = ['info', 'warning', 'error', 'fatal'] as const;
/** One of `ERROR_SEVERITIES`. */
export type ErrorSeverity = (typeof ERROR_SEVERITIES)[number];

/** A normalized runtime error. */
export class ErrorPayload extends Payload {
  static override readonly kind = 'error' as const;

  @TrimmedString('') message!: string;
  @OptionalTrimmedString() code!: string | null;
  /** `fatal` marks transport-terminal failures. */
  @Enum(ERROR_SEVERITIES, 'error') severity!: ErrorSeverity;
}
