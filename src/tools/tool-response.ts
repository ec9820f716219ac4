import { AnyJson, Bool, JsonValue, RequiredTrimmedString } from '../schema/conventions';
import { ToolData } from './tool-data';

/** A tool's answer to a `ToolRequest`. */
export class ToolResponse extends ToolData {
  @RequiredTrimmedString() tool_call_id!: string;
  @AnyJson() content!: JsonValue;
  @Bool(false) is_error!: boolean;
}
