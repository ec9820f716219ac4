import { AnyJson, Bool, JsonValue, OptionalTrimmedString } from '../schema/conventions';
import { Payload } from './payload';

/** The result of a tool invocation. */
export class ToolResultPayload extends Payload {
  static override readonly kind = 'tool_result' as const;

  @OptionalTrimmedString() tool_call_id!: string | null;
  /** Whatever the tool returned. */
  @AnyJson() content!: JsonValue;
  @Bool(false) is_error!: boolean;
}
