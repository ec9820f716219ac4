import type { Event } from '../events/event';
import { obj, str } from '../providers/drafts';
import type { JsonObject, JsonValue } from '../schema/json';

/**
 * The tool call an approval asks about, as both projections show it when no `tool_use` came first
 * (a CLI that asks before it says): its id (the one its `tool_use` has, `metadata.tool_call_id`), the
 * tool's name, its input (Claude's `input`, an ACP agent's `toolCall.rawInput`, Codex's `command` or
 * file `changes`), and an ACP agent's own description of it (`toolCall`: kind, title, locations).
 */
export function approvalCall(event: Event<'approval_requested'>): {
  id: string;
  name: string | null;
  input: JsonObject;
  native: JsonObject;
} {
  const { details, metadata, subject, approval_id: approvalId } = event.payload;
  const native = obj(details.toolCall) ?? {};
  const input =
    obj(details.input) ??
    obj(native.rawInput) ??
    (str(details.command) !== null ? { command: details.command } : Array.isArray(details.changes) ? { changes: details.changes } : {});
  return { id: str(metadata.tool_call_id) ?? approvalId ?? 'tool', name: str(details.tool_name) ?? subject, input, native };
}

/** The text of an assistant message's content: its text blocks (and plain strings), joined. */
export function messageText(content: readonly JsonValue[]): string {
  return content
    .map((block) => {
      if (typeof block === 'string') return block;
      const object = obj(block);
      return object?.type === 'text' ? (str(object.text) ?? '') : '';
    })
    .join('');
}
