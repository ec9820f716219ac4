import type { JsonObject, JsonValue } from '../schema/json';
import { arr, errorDraft, finishDrafts, num, obj, str } from './drafts';
import { readApiError } from './error-codes';
import type { EventDraft, ProviderProfile } from './profile';
import { usageDraft, usageFigures, type UsageFigures } from './usage';

/*
 * Codex CLI, `codex exec --json` (item-based format, Codex ≥ 0.4x; read from
 * codex-rs/exec/src/exec_events.rs and checked against captures of codex 0.169).
 * Every line is `{"type": …}`: thread.started, turn.started, turn.completed, turn.failed,
 * item.started / item.updated / item.completed (with an `item` whose own `type` says what it
 * is), item.plan.delta, request_user_input, error. Lines carry no times at all.
 */

/** What one Codex run remembers between lines. */
export interface CodexState {
  /** Tool items whose `tool_use` was emitted and whose `tool_result` is still owed. */
  openTools: Set<string>;
  /** The text of the turn's last agent message: the result's output, as `codex exec -o` writes it. */
  lastMessage: string | null;
  /** The turn's failure already has its error event (a top-level `error` before `turn.failed`). */
  errorReported: boolean;
}

/** Item types that are tool calls: a `tool_use` when they start, a `tool_result` when they complete. */
const TOOL_ITEMS = new Set(['command_execution', 'file_change', 'mcp_tool_call', 'web_search', 'collab_tool_call', 'todo_list']);

/** Line types only Codex prints (`error` is shared with Gemini, so it does not name the provider). */
const CODEX_TYPES = new Set([
  'thread.started',
  'turn.started',
  'turn.completed',
  'turn.failed',
  'item.started',
  'item.updated',
  'item.completed',
  'item.plan.delta',
  'request_user_input',
]);

/** The Codex profile: see its mapping table in docs/decoding.md. */
export const codexProfile: ProviderProfile<CodexState> = {
  id: 'codex',
  detect: (line) => CODEX_TYPES.has(str(line.type) ?? ''),
  newState: () => ({ openTools: new Set(), lastMessage: null, errorReported: false }),
  sessionId: (line) => (line.type === 'thread.started' ? str(line.thread_id) : null),
  timestamp: () => null,
  decode(line, state) {
    switch (line.type) {
      case 'thread.started':
        return [{ kind: 'run_started', payload: { provider_session_id: str(line.thread_id), metadata: {} } }];
      case 'turn.started':
        state.lastMessage = null;
        state.errorReported = false;
        return [];
      case 'item.started':
      case 'item.updated':
      case 'item.completed':
        return decodeItem(line.type, obj(line.item), state);
      case 'item.plan.delta':
        return planDelta(line);
      case 'turn.completed':
        return turnCompleted(line, state);
      case 'turn.failed':
        return turnFailed(line, state);
      case 'error':
        return [topLevelError(line, state)];
      case 'request_user_input':
        return [requestUserInput(line)];
      default:
        return [];
    }
  },
};

type Phase = 'item.started' | 'item.updated' | 'item.completed';

function decodeItem(phase: Phase, item: JsonObject | null, state: CodexState): EventDraft[] {
  if (!item) return [];
  const type = str(item.type) ?? '';
  const id = str(item.id);
  if (TOOL_ITEMS.has(type)) return toolItem(phase, type, id, item, state);
  // Messages, reasoning and error items arrive once, complete; other phases stay raw.
  if (phase !== 'item.completed') return [];
  // The item's own metadata: keys are added to it.
  const metadata: JsonObject = id === null ? {} : { item_id: id };
  switch (type) {
    case 'agent_message':
      // `phase` tells commentary between tool calls from the final answer (newer versions).
      if (item.phase !== undefined) metadata.phase = item.phase;
      return agentMessage(str(item.text), metadata, state);
    case 'plan':
      // Plan mode's proposed plan: the turn's answer when there is no agent message.
      metadata.item_type = 'plan';
      return agentMessage(str(item.text), metadata, state);
    case 'reasoning':
      return [{ kind: 'thinking', payload: { content: str(item.text) ?? '', metadata } }];
    case 'error':
      // Non-fatal notices (unknown model metadata, config and deprecation warnings, reroutes).
      return [errorDraft(str(item.message) ?? 'error', 'warning', 'notice', metadata)];
    default:
      return [];
  }
}

function agentMessage(text: string | null, metadata: JsonObject, state: CodexState): EventDraft[] {
  if (text === null) return [];
  state.lastMessage = text;
  return [{ kind: 'assistant_message', payload: { content: [{ type: 'text', text }], metadata } }];
}

/**
 * A tool item: `tool_use` when first seen, `tool_result` at completion (both when it only completes).
 * A to-do list restates the whole plan at each update, so each update is a `tool_use` of its own
 * (as Claude's repeated TodoWrite calls are). A web search names its query only at completion (the
 * started line says `query: ""`), so its `tool_use` waits for it.
 */
function toolItem(phase: Phase, type: string, id: string | null, item: JsonObject, state: CodexState): EventDraft[] {
  const drafts: EventDraft[] = [];
  const open = id !== null && state.openTools.has(id);
  if (type === 'web_search' && phase !== 'item.completed' && !str(item.query)) return [];
  if (!open || (type === 'todo_list' && phase === 'item.updated')) {
    drafts.push({
      kind: 'tool_use',
      payload: { tool_name: toolName(type, item), tool_call_id: id, input: toolInput(type, item), metadata: {} },
    });
    if (id !== null) state.openTools.add(id);
  }
  if (phase === 'item.completed') {
    if (id !== null) state.openTools.delete(id);
    const status = str(item.status);
    drafts.push({
      kind: 'tool_result',
      payload: { tool_call_id: id, content: toolOutput(type, item), is_error: toolFailed(item), metadata: toolMetadata(item, status) },
    });
  }
  // A progress update of an open call (a file change's patch, partial output) has no event of its own.
  return drafts;
}

/** The item type, except MCP calls, which are named `server/tool` as users know them. */
function toolName(type: string, item: JsonObject): string {
  if (type !== 'mcp_tool_call') return type;
  const server = str(item.server) ?? '';
  const tool = str(item.tool) ?? '';
  return server === '' ? tool || type : `${server}/${tool}`;
}

/** What the agent asked for. */
function toolInput(type: string, item: JsonObject): JsonObject {
  switch (type) {
    case 'command_execution':
      return { command: item.command ?? null };
    case 'file_change':
      return { changes: item.changes ?? [] };
    case 'web_search':
      return { query: item.query ?? null };
    case 'mcp_tool_call':
      return mcpArguments(item.arguments);
    case 'collab_tool_call':
      return { tool: item.tool ?? null, prompt: item.prompt ?? null, receiver_thread_ids: item.receiver_thread_ids ?? [] };
    case 'todo_list':
      return { items: item.items ?? [] };
    default:
      return {};
  }
}

/** MCP arguments are an object, but some versions print them as JSON text. */
function mcpArguments(value: JsonValue | undefined): JsonObject {
  const direct = obj(value);
  if (direct) return direct;
  if (typeof value === 'string') {
    try {
      const parsed = obj(JSON.parse(value));
      if (parsed) return parsed;
    } catch {
      // Not JSON: kept as text below.
    }
  }
  return value === undefined || value === null ? {} : { arguments: value };
}

/** What came back. */
function toolOutput(type: string, item: JsonObject): JsonValue {
  switch (type) {
    case 'command_execution':
      return item.aggregated_output ?? null;
    case 'file_change':
      return item.changes ?? [];
    case 'web_search':
      return item.action ?? null;
    case 'mcp_tool_call': {
      const error = obj(item.error);
      return error ? (error.message ?? error) : (item.result ?? null);
    }
    case 'collab_tool_call':
      return item.agents_states ?? null;
    case 'todo_list':
      return item.items ?? [];
    default:
      return null;
  }
}

/** A non-zero exit code, a failed or declined status, an MCP error or an MCP result flagged `is_error`. */
function toolFailed(item: JsonObject): boolean {
  const exit = num(item.exit_code);
  if (exit !== null && exit !== 0) return true;
  const status = str(item.status);
  if (status === 'failed' || status === 'declined') return true;
  if (obj(item.error)) return true;
  return obj(item.result)?.is_error === true;
}

function toolMetadata(item: JsonObject, status: string | null): JsonObject {
  const metadata: JsonObject = {};
  if (status !== null) metadata.status = status;
  if (item.exit_code !== undefined) metadata.exit_code = item.exit_code;
  // A web search's query, and the results some versions list beside the action.
  if (item.type === 'web_search') {
    if (item.query !== undefined) metadata.query = item.query;
    if (item.results !== undefined) metadata.results = item.results;
  }
  return metadata;
}

/** Plan mode streams its plan text; a delta of it is assistant text. */
function planDelta(line: JsonObject): EventDraft[] {
  const delta = str(line.delta);
  if (delta === null) return [];
  return [{ kind: 'assistant_delta', payload: { content: delta, metadata: { item_id: line.item_id ?? null, item_type: 'plan' } } }];
}

/**
 * `turn.completed` usage is the thread's running total (a second turn reports both turns, and
 * `codex exec resume` carries the earlier runs' tokens too): a cumulative cost update. Its
 * `input_tokens` already count the cached ones.
 */
function turnCompleted(line: JsonObject, state: CodexState): EventDraft[] {
  const usage = obj(line.usage) ?? {};
  const cost = usageDraft(codexUsageFigures(usage), 'cumulative', { native_usage: usage });
  const output = state.lastMessage;
  state.lastMessage = null;
  return [cost, ...finishDrafts({ failed: false, output })];
}

/** Codex's token usage (a `turn.completed` usage, a rollout's `total_token_usage`) in the convention's figures (Codex reports no price). */
export function codexUsageFigures(usage: JsonObject): UsageFigures {
  return usageFigures({
    input_tokens: usage.input_tokens,
    output_tokens: usage.output_tokens,
    cache_read_input_tokens: usage.cached_input_tokens,
    cache_write_input_tokens: usage.cache_write_input_tokens,
    reasoning_output_tokens: usage.reasoning_output_tokens,
  });
}

/**
 * A top-level `error`: "Reconnecting… n/m" is a retry in progress, anything else the turn's failure,
 * whose message is the API's raw JSON body (read here); the `turn.failed` that follows repeats it.
 */
function topLevelError(line: JsonObject, state: CodexState): EventDraft {
  const message = str(line.message) ?? 'error';
  if (/^\s*reconnecting/i.test(message)) return errorDraft(message, 'warning', 'retry');
  state.errorReported = true;
  const error = readApiError(message);
  return errorDraft(error.message, 'error', error.code, error.metadata);
}

function turnFailed(line: JsonObject, state: CodexState): EventDraft[] {
  const error = readApiError(str(obj(line.error)?.message) ?? 'the turn failed');
  const drafts = finishDrafts({
    failed: true,
    errorReported: state.errorReported,
    errorMessage: error.message,
    errorCode: error.code,
    errorMetadata: error.metadata,
  });
  state.errorReported = false;
  return drafts;
}

/** The model asks the user a question (the request_user_input tool): the host is asked, as for an approval. */
function requestUserInput(line: JsonObject): EventDraft {
  return {
    kind: 'approval_requested',
    payload: {
      approval_id: str(line.call_id),
      subject: 'request_user_input',
      details: { questions: arr(line.questions), turn_id: line.id ?? null },
      metadata: {},
    },
  };
}
