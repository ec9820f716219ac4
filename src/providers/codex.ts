import type { JsonObject, JsonValue } from '../schema/json';
import { costDraft, errorDraft, finishDrafts, num, obj, str } from './drafts';
import type { EventDraft, ProviderProfile } from './profile';

/*
 * Codex CLI, `codex exec --json` (item-based format, Codex ≥ 0.4x; read from
 * codex-rs/exec/src/exec_events.rs and checked against captures of codex 0.169).
 * Every line is `{"type": …}`: thread.started, turn.started, turn.completed, turn.failed,
 * item.started / item.updated / item.completed (with an `item` whose own `type` says what it
 * is), item.plan.delta, request_user_input, error. Lines carry no times at all.
 */

/** The running token totals Codex reports in `turn.completed` (every field a thread total). */
interface Totals {
  input_tokens: number;
  cached_input_tokens: number;
  cache_write_input_tokens: number;
  output_tokens: number;
  reasoning_output_tokens: number;
}

const TOTAL_FIELDS = ['input_tokens', 'cached_input_tokens', 'cache_write_input_tokens', 'output_tokens', 'reasoning_output_tokens'] as const;

/** What one Codex run remembers between lines. */
export interface CodexState {
  thread: string | null;
  /** Tool items whose `tool_use` was emitted and whose `tool_result` is still owed. */
  openTools: Set<string>;
  /** The running totals of the last `turn.completed`, to emit per-turn differences. */
  totals: Totals;
  /** The text of the turn's last agent message: the result's output, as `codex exec -o` writes it. */
  lastMessage: string | null;
}

/** Item types that are tool calls: a `tool_use` when they start, a `tool_result` when they complete. */
const TOOL_ITEMS = new Set(['command_execution', 'file_change', 'mcp_tool_call', 'web_search', 'collab_tool_call']);

const ZERO: Totals = { input_tokens: 0, cached_input_tokens: 0, cache_write_input_tokens: 0, output_tokens: 0, reasoning_output_tokens: 0 };

/** Line types only Codex prints (`error` is shared with Gemini, so it does not name the provider). */
const CODEX_TYPES = new Set(['thread.started', 'turn.started', 'turn.completed', 'turn.failed', 'item.started', 'item.updated', 'item.completed', 'item.plan.delta', 'request_user_input']);

/** The Codex profile: see the mapping table in the README's "Decoding CLI output". */
export const codexProfile: ProviderProfile<CodexState> = {
  id: 'codex',
  detect: (line) => CODEX_TYPES.has(str(line.type) ?? ''),
  newState: () => ({ thread: null, openTools: new Set(), totals: { ...ZERO }, lastMessage: null }),
  sessionId: (line) => (line.type === 'thread.started' ? str(line.thread_id) : null),
  timestamp: () => null,
  decode(line, state) {
    switch (line.type) {
      case 'thread.started':
        return threadStarted(line, state);
      case 'turn.started':
        state.lastMessage = null;
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
        return finishDrafts({ failed: true, errorMessage: str(obj(line.error)?.message) ?? 'the turn failed' });
      case 'error':
        return [topLevelError(line)];
      default:
        return [];
    }
  },
};

function threadStarted(line: JsonObject, state: CodexState): EventDraft[] {
  const thread = str(line.thread_id);
  // `codex exec resume` announces the same thread again; another thread starts its totals afresh.
  if (thread !== state.thread) state.totals = { ...ZERO };
  state.thread = thread;
  return [{ kind: 'run_started', payload: { provider_session_id: thread, metadata: {} } }];
}

type Phase = 'item.started' | 'item.updated' | 'item.completed';

function decodeItem(phase: Phase, item: JsonObject | null, state: CodexState): EventDraft[] {
  if (!item) return [];
  const type = str(item.type) ?? '';
  const id = str(item.id);
  if (TOOL_ITEMS.has(type)) return toolItem(phase, type, id, item, state);
  // Messages, reasoning and error items arrive once, complete; other phases stay raw.
  if (phase !== 'item.completed') return [];
  const metadata: JsonObject = id === null ? {} : { item_id: id };
  switch (type) {
    case 'agent_message':
      return agentMessage(str(item.text), metadata, state);
    case 'plan':
      // Plan mode's proposed plan: the turn's answer when there is no agent message.
      return agentMessage(str(item.text), { ...metadata, item_type: 'plan' }, state);
    case 'reasoning':
      return [{ kind: 'thinking', payload: { content: str(item.text) ?? '', metadata } }];
    case 'error':
      // Non-fatal notices (unknown model metadata, config and deprecation warnings, reroutes).
      return [errorDraft(str(item.message) ?? 'error', 'warning', null, metadata)];
    default:
      // todo_list (the agent's plan checklist) is neither a message nor a tool call: raw.
      return [];
  }
}

function agentMessage(text: string | null, metadata: JsonObject, state: CodexState): EventDraft[] {
  if (text === null) return [];
  state.lastMessage = text;
  return [{ kind: 'assistant_message', payload: { content: [{ type: 'text', text }], metadata } }];
}

/** A tool item: `tool_use` when first seen, `tool_result` at completion (both when it only completes). */
function toolItem(phase: Phase, type: string, id: string | null, item: JsonObject, state: CodexState): EventDraft[] {
  const drafts: EventDraft[] = [];
  const open = id !== null && state.openTools.has(id);
  if (!open) {
    drafts.push({ kind: 'tool_use', payload: { tool_name: toolName(type, item), tool_call_id: id, input: toolInput(type, item), metadata: {} } });
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
  return metadata;
}

/** Plan mode streams its plan text; a delta of it is assistant text. */
function planDelta(line: JsonObject): EventDraft[] {
  const delta = str(line.delta);
  if (delta === null) return [];
  return [{ kind: 'assistant_delta', payload: { content: delta, metadata: { item_id: line.item_id ?? null, item_type: 'plan' } } }];
}

/**
 * `turn.completed` usage is the thread's running total (a second turn reports both turns,
 * and `codex exec resume` carries the earlier runs' tokens too), so the cost event holds the
 * difference from the last total seen; the totals themselves stay in its metadata.
 */
function turnCompleted(line: JsonObject, state: CodexState): EventDraft[] {
  const usage = obj(line.usage) ?? {};
  const current = { ...ZERO };
  for (const field of TOTAL_FIELDS) current[field] = Math.max(0, Math.floor(num(usage[field]) ?? 0));
  // A total below the last one means a new series (another thread's log appended): start afresh.
  const restarted = TOTAL_FIELDS.some((field) => current[field] < state.totals[field]);
  const base = restarted ? ZERO : state.totals;
  const turn = { ...ZERO };
  for (const field of TOTAL_FIELDS) turn[field] = current[field] - base[field];
  state.totals = current;
  const cost = costDraft(
    { input_tokens: turn.input_tokens, output_tokens: turn.output_tokens },
    {
      cached_input_tokens: turn.cached_input_tokens,
      cache_write_input_tokens: turn.cache_write_input_tokens,
      reasoning_output_tokens: turn.reasoning_output_tokens,
      thread_totals: { ...current },
    },
  );
  const output = state.lastMessage;
  state.lastMessage = null;
  return [cost, ...finishDrafts({ failed: false, output })];
}

/** A top-level `error`: "Reconnecting… n/m" is a retry in progress, anything else a real error. */
function topLevelError(line: JsonObject): EventDraft {
  const message = str(line.message) ?? 'error';
  return errorDraft(message, /^\s*reconnecting/i.test(message) ? 'warning' : 'error');
}
