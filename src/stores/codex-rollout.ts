import { codexUsageFigures } from '../providers/codex';
import { arr, finishDrafts, obj, str } from '../providers/drafts';
import type { EventDraft, ProviderProfile } from '../providers/profile';
import { usageDraft } from '../providers/usage';
import type { JsonObject, JsonValue } from '../schema/json';
import { noteTime, titleOf, type StoredFormat, type StoredSummary } from './stored-format';

/*
 * Codex's rollout, `<CODEX_HOME>/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl` (read from stores of
 * 0.169): each line `{timestamp, type, payload}`. `session_meta` opens it (id, cwd, originator,
 * `source`: `exec` for `codex exec`), `turn_context` names each turn's model, `response_item` holds
 * what went to and came from the model (Responses API items: messages, reasoning, function calls
 * and their outputs), `event_msg` what the CLI showed (token counts, task ends, and copies of the
 * messages). The events come from the response items (the model's record, where 0.169 keeps the
 * user's prompt), the usage from `token_count`, a turn's end from `task_complete`; copies stay raw.
 * This is not `codex exec --json`'s format: the live profile (providers/codex.ts) cannot read it.
 */

interface RolloutState {
  /** The turn's last answer, for its result. */
  lastMessage: string | null;
}

/** Context Codex sends the model as user messages (environment, AGENTS.md, instructions): not the user's words. */
function isContext(text: string): boolean {
  return /^\s*(<environment_context>|<user_instructions>|<permissions instructions>|# AGENTS\.md instructions)/.test(text);
}

/** A Responses message's content as text blocks (`input_text`, `output_text`); other blocks as they are. */
function blocks(content: JsonValue | undefined): JsonObject[] {
  return arr(content).flatMap((block) => {
    const object = obj(block);
    if (!object) return [];
    const text = str(object.text);
    return [object.type === 'input_text' || object.type === 'output_text' ? { type: 'text', text: text ?? '' } : object];
  });
}

function textOf(content: JsonObject[]): string {
  return content.map((block) => (block.type === 'text' ? (str(block.text) ?? '') : '')).join('');
}

/** A function call's arguments are JSON text; anything else is kept as `{ input }`. */
function argumentsOf(item: JsonObject): JsonObject {
  const text = str(item.arguments);
  if (text !== null) {
    try {
      const parsed = obj(JSON.parse(text));
      if (parsed) return parsed;
    } catch {
      // not JSON: kept as text below
    }
    return { arguments: text };
  }
  if (item.input !== undefined) return { input: item.input };
  return obj(item.action) ?? {};
}

function responseItem(item: JsonObject, state: RolloutState): EventDraft[] {
  const metadata: JsonObject = {};
  if (typeof item.id === 'string') metadata.item_id = item.id;
  switch (item.type) {
    case 'message': {
      const content = blocks(item.content);
      if (item.role === 'assistant') {
        state.lastMessage = textOf(content);
        if (item.phase !== undefined) metadata.phase = item.phase;
        return [{ kind: 'assistant_message', payload: { content, metadata } }];
      }
      if (item.role !== 'user') return [];
      if (isContext(textOf(content))) metadata.context = true;
      return [{ kind: 'user_message', payload: { content, metadata } }];
    }
    case 'reasoning': {
      const summary = arr(item.summary)
        .map((part) => str(obj(part)?.text) ?? '')
        .join('\n');
      const text =
        summary ||
        blocks(item.content)
          .map((block) => str(block.text) ?? '')
          .join('');
      if (item.encrypted_content !== undefined && item.encrypted_content !== null) metadata.encrypted = true;
      return [{ kind: 'thinking', payload: { content: text, metadata } }];
    }
    case 'function_call':
    case 'custom_tool_call':
    case 'local_shell_call':
    case 'web_search_call':
    case 'tool_search_call': {
      const name = str(item.name) ?? String(item.type).replace(/_call$/, '');
      if (typeof item.namespace === 'string') metadata.namespace = item.namespace;
      metadata.item_type = item.type as string;
      const id = str(item.call_id) ?? str(item.id);
      return [{ kind: 'tool_use', payload: { tool_name: name, tool_call_id: id, input: argumentsOf(item), metadata } }];
    }
    case 'function_call_output':
    case 'custom_tool_call_output':
    case 'tool_search_output': {
      metadata.item_type = item.type as string;
      const output = item.output ?? null;
      const failed = obj(output)?.success === false;
      return [{ kind: 'tool_result', payload: { tool_call_id: str(item.call_id), content: output, is_error: failed, metadata } }];
    }
    default:
      return [];
  }
}

function eventMsg(event: JsonObject, state: RolloutState): EventDraft[] {
  switch (event.type) {
    case 'token_count': {
      const total = obj(obj(event.info)?.total_token_usage);
      // The thread's running total, as `turn.completed` reports it live.
      return total ? [usageDraft(codexUsageFigures(total), 'cumulative', { native_usage: total })] : [];
    }
    case 'task_complete':
    case 'turn_complete': {
      const output = str(event.last_agent_message) ?? state.lastMessage;
      state.lastMessage = null;
      return finishDrafts({ failed: false, output, metadata: typeof event.turn_id === 'string' ? { turn_id: event.turn_id } : {} });
    }
    case 'turn_aborted':
      state.lastMessage = null;
      return finishDrafts({
        failed: true,
        errorMessage: `turn aborted${typeof event.reason === 'string' ? ` (${event.reason})` : ''}`,
        errorCode: null,
      });
    case 'error':
      return finishDrafts({ failed: true, errorMessage: str(event.message) });
    default:
      // user_message, agent_message, agent_reasoning, item_completed…: copies of the response items.
      return [];
  }
}

const profile: ProviderProfile<RolloutState> = {
  id: 'codex',
  detect: (line) => line.type === 'session_meta' && obj(line.payload) !== null,
  newState: () => ({ lastMessage: null }),
  sessionId: (line) => (line.type === 'session_meta' ? (str(obj(line.payload)?.id) ?? str(obj(line.payload)?.session_id)) : null),
  timestamp: (line) => str(line.timestamp),
  decode(line, state) {
    const payload = obj(line.payload);
    if (!payload) return [];
    switch (line.type) {
      case 'session_meta': {
        const metadata: JsonObject = {};
        for (const key of ['originator', 'cli_version', 'source', 'model_provider', 'model'])
          if (payload[key] !== undefined) metadata[key] = payload[key];
        const id = str(payload.id) ?? str(payload.session_id);
        return [{ kind: 'run_started', payload: { provider_session_id: id, cwd: str(payload.cwd), metadata } }];
      }
      case 'response_item':
        return responseItem(payload, state);
      case 'event_msg':
        return eventMsg(payload, state);
      default:
        // turn_context, compacted…: bookkeeping, kept as raw.
        return [];
    }
  },
};

/** The user's text in a line, where the prompt may be (a response item, 0.169's `item_completed` UserMessage, older `user_message`). */
function promptText(line: JsonObject): string | null {
  const payload = obj(line.payload);
  if (!payload) return null;
  if (line.type === 'response_item' && payload.type === 'message' && payload.role === 'user') return textOf(blocks(payload.content));
  if (line.type !== 'event_msg') return null;
  if (payload.type === 'user_message') return str(payload.message);
  const item = obj(payload.item);
  if (payload.type === 'item_completed' && item && /^user_?message$/i.test(str(item.type) ?? '')) {
    return str(item.text) ?? textOf(blocks(item.content)) ?? null;
  }
  return null;
}

function summarize(line: JsonObject, into: StoredSummary): void {
  noteTime(line.timestamp, into);
  const payload = obj(line.payload);
  if (!payload) return;
  if (line.type === 'session_meta') {
    into.id ??= str(payload.id) ?? str(payload.session_id);
    into.cwd ??= str(payload.cwd);
    into.model ??= str(payload.model);
    noteTime(payload.timestamp, into);
    // `codex exec` records `source: "exec"` (and originator `codex_exec`).
    const source = str(payload.source);
    const originator = str(payload.originator);
    into.origin ??= source === 'exec' || originator === 'codex_exec' ? 'exec' : (source ?? originator);
    return;
  }
  if (line.type === 'turn_context') {
    into.model = str(payload.model) ?? into.model;
    into.cwd ??= str(payload.cwd);
    return;
  }
  if (into.title !== null) return;
  const text = promptText(line);
  if (text !== null && !isContext(text)) into.title = titleOf(text);
}

/** Codex's rollout format. */
export const codexRollout: StoredFormat = { profile, summarize };
