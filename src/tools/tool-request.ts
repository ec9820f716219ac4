import { JsonObject, RequiredTrimmedString } from '../schema/conventions';
import { ToolData } from './tool-data';

/** A request to run a tool, as normalized from a provider. */
export class ToolRequest extends ToolData {
  @RequiredTrimmedString() tool_name!: string;
  @RequiredTrimmedString() tool_call_id!: string;
  @JsonObject({}) input!: JsonObject;
}
