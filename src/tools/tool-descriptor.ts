import { JsonObject, OptionalJsonObject, OptionalTrimmedString, RequiredTrimmedString } from '../schema/conventions';
import { ToolData } from './tool-data';

/** A serializable description of a tool contract. */
export class ToolDescriptor extends ToolData {
  @RequiredTrimmedString() name!: string;
  @OptionalTrimmedString() description!: string | null;
  /** JSON Schema of the tool's input. */
  @JsonObject({}) input_schema!: JsonObject;
  /** JSON Schema of the tool's output, when declared. */
  @OptionalJsonObject() output_schema!: JsonObject | null;
}
