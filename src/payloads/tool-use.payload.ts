import { JsonObject, OptionalTrimmedString } from '../schema/conventions';
import { Payload } from './payload';

/** A tool invocation request. */
export class ToolUsePayload extends Payload {
  static override readonly kind = 'tool_use' as const;

  @OptionalTrimmedString() tool_name!: string | null;
  @OptionalTrimmedString() tool_call_id!: string | null;
  /** The tool's arguments. */
  @JsonObject({}) input!: JsonObject;
}
