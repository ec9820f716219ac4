import { OptionalTrimmedString, StringList } from '../schema/conventions';
import { Payload } from './payload';

/** Marks the start of a provider CLI run. */
export class RunStartedPayload extends Payload {
  static override readonly kind = 'run_started' as const;

  @OptionalTrimmedString() provider_session_id!: string | null;
  @OptionalTrimmedString() command!: string | null;
  /** Command-line arguments, each trimmed. */
  @StringList() args!: string[];
  @OptionalTrimmedString() cwd!: string | null;
}
