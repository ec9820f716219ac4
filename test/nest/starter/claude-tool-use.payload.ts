import { OptionalTrimmedString, ToolUsePayload } from '../../../src';

// A provider subclass under the starter's useDefineForClassFields: refused with the fix.
export class ClaudeToolUsePayload extends ToolUsePayload {
  @OptionalTrimmedString() server_name!: string | null;
}
