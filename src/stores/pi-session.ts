import { piProfile, type PiState } from '../providers/pi';
import { arr, obj, str } from '../providers/drafts';
import type { EventDraft, ProviderProfile } from '../providers/profile';
import type { JsonObject } from '../schema/json';
import { noteTime, titleOf, type StoredFormat, type StoredSummary } from './stored-format';

/*
 * pi's session file, `<agent dir>/sessions/--<cwd with / as ->--/<time>_<id>.jsonl` (measured with
 * 0.73.1; its docs/session.md): a `session` header (`{type, version, id, timestamp, cwd}`, the line
 * `--mode json` prints first), then entries that form a tree by `id` and `parentId`:
 * `model_change` (`provider`, `modelId`), `thinking_level_change`, and `message`, whose `message`
 * is the one `message_end` carries live (`role` `user`, `assistant` with its text, thinking,
 * `toolCall` blocks and usage, or `toolResult`); also `compaction`, `branch_summary`, `label`,
 * `session_info` (a `name`) and `custom` entries. A resumed session appends to the same file.
 * The header and messages are read by the live profile; a stored assistant message names its
 * tool calls (live they come from `tool_execution_start`) and a `toolResult` message is the
 * result (live `tool_execution_end`).
 */

/** The entry's place in the session's tree, added to each of its events. */
function withTree(drafts: EventDraft[], line: JsonObject): EventDraft[] {
  const metadata: JsonObject = {};
  if (typeof line.id === 'string') metadata.entry_id = line.id;
  if (typeof line.parentId === 'string') metadata.parent_id = line.parentId;
  if (Object.keys(metadata).length === 0) return drafts;
  for (const draft of drafts) {
    const payload = draft.payload as { metadata?: JsonObject };
    payload.metadata = { ...(payload.metadata ?? {}), ...metadata };
  }
  return drafts;
}

function message(line: JsonObject, state: PiState): EventDraft[] {
  const stored = obj(line.message) ?? {};
  if (stored.role === 'toolResult') {
    // The live `tool_execution_end` has the same fields, but the result's content is `result.content`.
    return piProfile.decode(
      {
        type: 'tool_execution_end',
        toolCallId: stored.toolCallId ?? null,
        toolName: stored.toolName ?? null,
        isError: stored.isError ?? false,
        result: { content: stored.content ?? [], details: stored.details ?? null },
      },
      state,
    );
  }
  const drafts = piProfile.decode({ type: 'message_end', message: stored }, state);
  if (stored.role !== 'assistant') return drafts;
  const calls: EventDraft[] = [];
  for (const value of arr(stored.content)) {
    const block = obj(value);
    if (block?.type === 'toolCall')
      calls.push({
        kind: 'tool_use',
        payload: { tool_name: str(block.name), tool_call_id: str(block.id), input: obj(block.arguments) ?? {} },
      });
  }
  // Calls after the text and thinking, before the usage, as the live lines order them.
  const usage = drafts.filter((draft) => draft.kind === 'cost_update');
  return [...drafts.filter((draft) => draft.kind !== 'cost_update'), ...calls, ...usage];
}

const profile: ProviderProfile<PiState> = {
  ...piProfile,
  detect: (line) => line.type === 'session' || line.type === 'message' || line.type === 'model_change',
  // Entries carry ISO text (`timestamp`); their messages epoch ms.
  timestamp: (line) => str(line.timestamp),
  decode(line, state) {
    switch (line.type) {
      case 'session':
        return piProfile.decode(line, state);
      case 'message':
        return withTree(message(line, state), line);
      default:
        return [];
    }
  },
};

function summarize(line: JsonObject, into: StoredSummary): void {
  noteTime(line.timestamp, into);
  switch (line.type) {
    case 'session':
      into.id ??= str(line.id);
      into.cwd ??= str(line.cwd);
      break;
    case 'session_info': {
      // The user's name for the session (`/name`): the title, over the first prompt.
      const name = str(line.name);
      if (name !== null) into.title = titleOf(name);
      break;
    }
    case 'model_change':
      if (str(line.modelId) !== null) into.model = `${str(line.provider) ?? ''}${str(line.provider) ? '/' : ''}${str(line.modelId)}`;
      break;
    case 'message': {
      const stored = obj(line.message);
      if (stored?.role === 'assistant' && str(stored.model) !== null)
        into.model = str(stored.provider) ? `${str(stored.provider)}/${str(stored.model)}` : str(stored.model);
      if (stored?.role === 'user' && into.title === null) {
        const text = arr(stored.content)
          .map((block) => (obj(block)?.type === 'text' ? (str(obj(block)?.text) ?? '') : ''))
          .join('');
        into.title = titleOf(text);
      }
      break;
    }
  }
}

/** pi's session format. */
export const piSession: StoredFormat = { profile, summarize };
