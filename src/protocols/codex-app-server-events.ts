import { codexUsageFigures } from '../providers/codex';
import { arr, errorDraft, finishDrafts, num, obj, str } from '../providers/drafts';
import { readApiError } from '../providers/error-codes';
import type { EventDraft, ProviderProfile } from '../providers/profile';
import { usageDraft } from '../providers/usage';
import { hasOwn, type JsonObject, type JsonValue } from '../schema/json';
import {
  CODEX_NOTIFICATIONS,
  CODEX_SERVER_REQUESTS,
  isMcpToolApproval,
  type CodexNotification,
  type CodexServerRequest,
} from '../wire/codex-app-server';

/*
 * What `codex app-server` prints, as events (Codex 0.169.0; its types: `codex app-server
 * generate-ts`, and the captures in test/fixtures/sessions/codex). One JSON-RPC message a line,
 * without a "jsonrpc" field: notifications `{method, params}`, the server's requests `{method, id,
 * params}` (approvals), and answers to the client's requests `{id, result|error}`. Items are
 * camelCase (`commandExecution`, `aggregatedOutput`), unlike `codex exec --json`'s.
 */

/** What the mapping remembers between lines; the protocol (codex-app-server.ts) reads and writes it too. */
export interface AppServerState {
  /** The thread announced (`thread/started`): run_started is said once. */
  threadId: string | null;
  /** Tool items whose `tool_use` was emitted and whose `tool_result` is still owed. */
  openTools: Set<string>;
  /** Tool items an interrupted turn closed: their late `item/completed` (after the turn's end) stays raw. */
  closedTools: Set<string>;
  /** Items by id, for the file-change approval (which names only the item). */
  items: Map<string, JsonObject>;
  /** The turn's last agent message: its result's output. */
  lastMessage: string | null;
  /** The turn's failure already has its error event (an `error` notification before `turn/completed`). */
  errorReported: boolean;
  /** Approval requests asked and not answered, by request id: a `serverRequest/resolved` of one of these is Codex withdrawing it. */
  asked: Set<string>;
  /** The asked ones that are MCP tool approvals (elicitations), answered `{action}` rather than `{decision}`. */
  elicitations: Set<string>;
}

export function newAppServerState(): AppServerState {
  return {
    threadId: null,
    openTools: new Set(),
    closedTools: new Set(),
    items: new Map(),
    lastMessage: null,
    errorReported: false,
    asked: new Set(),
    elicitations: new Set(),
  };
}

/** Item types that are tool calls: `tool_use` when they start, `tool_result` when they complete. */
const TOOL_ITEMS = new Set([
  'commandExecution',
  'fileChange',
  'mcpToolCall',
  'dynamicToolCall',
  'webSearch',
  'collabAgentToolCall',
  'imageGeneration',
  'imageView',
]);

type Handler = (params: JsonObject, state: AppServerState, line: JsonObject) => EventDraft[];

/**
 * Native method → handler, keyed by the method tables (a renamed method fails to compile; a Map: a
 * method named "constructor" must not find Object's).
 */
const HANDLERS = new Map<string, Handler>(
  Object.entries({
    [CODEX_NOTIFICATIONS.threadStarted]: threadStarted,
    [CODEX_NOTIFICATIONS.itemStarted]: (params, state) => item('started', obj(params.item), state),
    [CODEX_NOTIFICATIONS.itemCompleted]: (params, state) => item('completed', obj(params.item), state),
    [CODEX_NOTIFICATIONS.agentMessageDelta]: agentDelta,
    [CODEX_NOTIFICATIONS.planDelta]: agentDelta,
    [CODEX_NOTIFICATIONS.reasoningSummaryDelta]: reasoningDelta,
    [CODEX_NOTIFICATIONS.reasoningTextDelta]: reasoningDelta,
    [CODEX_NOTIFICATIONS.tokenUsageUpdated]: tokenUsage,
    [CODEX_NOTIFICATIONS.turnStarted]: turnStarted,
    [CODEX_NOTIFICATIONS.turnCompleted]: turnCompleted,
    [CODEX_NOTIFICATIONS.turnPlanUpdated]: planUpdated,
    [CODEX_NOTIFICATIONS.error]: errorNotice,
    [CODEX_NOTIFICATIONS.warning]: (params) => [errorDraft(str(params.message) ?? 'warning', 'warning', 'notice')],
    [CODEX_SERVER_REQUESTS.commandApproval]: commandApproval,
    [CODEX_SERVER_REQUESTS.fileChangeApproval]: fileChangeApproval,
    [CODEX_SERVER_REQUESTS.mcpElicitation]: mcpToolApproval,
    [CODEX_NOTIFICATIONS.serverRequestResolved]: requestResolved,
  } satisfies Record<CodexNotification | CodexServerRequest, Handler>),
);

export const appServerProfile: ProviderProfile<AppServerState> = {
  id: 'codex',
  detect: () => false,
  newState: newAppServerState,
  sessionId: (line) => str(obj((line.method === CODEX_NOTIFICATIONS.threadStarted ? obj(line.params) : obj(line.result))?.thread)?.id),
  // `emittedAtMs` on notifications; server requests and answers carry no time.
  timestamp: (line) => num(line.emittedAtMs),
  decode(line, state) {
    const method = str(line.method);
    // The answer to `thread/start` or `thread/resume` names the thread too (a resumed thread has no `thread/started`).
    if (method === null) return obj(obj(line.result)?.thread) ? threadStarted(obj(line.result) ?? {}, state) : [];
    const handler = HANDLERS.get(method);
    return handler ? handler(obj(line.params) ?? {}, state, line) : [];
  },
};

function threadStarted(params: JsonObject, state: AppServerState): EventDraft[] {
  const thread = obj(params.thread) ?? {};
  if (state.threadId !== null) return [];
  state.threadId = str(thread.id);
  const metadata: JsonObject = {};
  if (hasOwn(thread, 'cliVersion')) metadata.version = thread.cliVersion ?? null;
  if (hasOwn(thread, 'path')) metadata.rollout_path = thread.path ?? null;
  // The answer to thread/start and thread/resume says more than the notification: the model, the policies.
  for (const key of ['model', 'modelProvider', 'approvalPolicy', 'sandbox']) if (params[key] !== undefined) metadata[key] = params[key];
  return [{ kind: 'run_started', payload: { provider_session_id: state.threadId, cwd: str(thread.cwd), metadata } }];
}

function turnStarted(_params: JsonObject, state: AppServerState): EventDraft[] {
  state.lastMessage = null;
  state.errorReported = false;
  return [];
}

function item(phase: 'started' | 'completed', item: JsonObject | null, state: AppServerState): EventDraft[] {
  if (!item) return [];
  const type = str(item.type) ?? '';
  const id = str(item.id);
  if (id !== null) {
    if (phase === 'started') state.items.set(id, item);
    else state.items.delete(id);
  }
  if (TOOL_ITEMS.has(type)) return toolItem(phase, type, id, item, state);
  if (phase !== 'completed') return [];
  const metadata: JsonObject = id === null ? {} : { item_id: id };
  switch (type) {
    case 'agentMessage': {
      const text = str(item.text);
      if (text === null) return [];
      if (item.phase !== null && item.phase !== undefined) metadata.phase = item.phase;
      state.lastMessage = text;
      return [{ kind: 'assistant_message', payload: { content: [{ type: 'text', text }], metadata } }];
    }
    case 'plan': {
      const text = str(item.text);
      if (text === null) return [];
      metadata.item_type = 'plan';
      state.lastMessage = text;
      return [{ kind: 'assistant_message', payload: { content: [{ type: 'text', text }], metadata } }];
    }
    case 'reasoning':
      // The whole reasoning after its deltas, as Claude's thinking block follows its thinking deltas.
      return [
        {
          kind: 'thinking',
          payload: {
            content: [...arr(item.summary), ...arr(item.content)].filter((part) => typeof part === 'string').join('\n\n'),
            metadata,
          },
        },
      ];
    case 'userMessage':
      return [
        { kind: 'user_message', payload: { content: arr(item.content).filter((part) => obj(part) !== null) as JsonObject[], metadata } },
      ];
    default:
      return [];
  }
}

/** A tool item: `tool_use` when first seen, `tool_result` at completion (both when it only completes). */
function toolItem(phase: 'started' | 'completed', type: string, id: string | null, item: JsonObject, state: AppServerState): EventDraft[] {
  const drafts: EventDraft[] = [];
  if (id !== null && state.closedTools.delete(id)) return drafts;
  if (id === null || !state.openTools.has(id)) {
    drafts.push({
      kind: 'tool_use',
      payload: { tool_name: toolName(type, item), tool_call_id: id, input: toolInput(type, item), metadata: {} },
    });
    if (id !== null) state.openTools.add(id);
  }
  if (phase === 'completed') {
    if (id !== null) state.openTools.delete(id);
    const metadata: JsonObject = {};
    if (item.status !== undefined) metadata.status = item.status;
    if (item.exitCode !== undefined && item.exitCode !== null) metadata.exit_code = item.exitCode;
    drafts.push({
      kind: 'tool_result',
      payload: { tool_call_id: id, content: toolOutput(type, item), is_error: toolFailed(item), metadata },
    });
  }
  return drafts;
}

/** The item type, except MCP and dynamic tools, which are named `server/tool` as users know them. */
function toolName(type: string, item: JsonObject): string {
  const tool = str(item.tool);
  if ((type === 'mcpToolCall' || type === 'dynamicToolCall') && tool) {
    const server = str(item.server) ?? str(item.namespace);
    return server ? `${server}/${tool}` : tool;
  }
  return type;
}

function toolInput(type: string, item: JsonObject): JsonObject {
  switch (type) {
    case 'commandExecution':
      return { command: item.command ?? null, cwd: item.cwd ?? null };
    case 'fileChange':
      return { changes: item.changes ?? [] };
    case 'webSearch':
      return { query: item.query ?? null };
    case 'mcpToolCall':
    case 'dynamicToolCall':
      return obj(item.arguments) ?? { arguments: item.arguments ?? null };
    default:
      return {};
  }
}

function toolOutput(type: string, item: JsonObject): JsonValue {
  switch (type) {
    case 'commandExecution':
      return item.aggregatedOutput ?? null;
    case 'fileChange':
      return item.changes ?? [];
    case 'mcpToolCall': {
      const error = obj(item.error);
      return error ? (error.message ?? error) : (item.result ?? null);
    }
    case 'dynamicToolCall':
      return item.contentItems ?? null;
    default:
      return item.action ?? item.result ?? null;
  }
}

/** Failed or declined, a non-zero exit, an MCP error or an unsuccessful dynamic call. */
function toolFailed(item: JsonObject): boolean {
  const exit = num(item.exitCode);
  if (exit !== null && exit !== 0) return true;
  if (item.status === 'failed' || item.status === 'declined') return true;
  return obj(item.error) !== null || item.success === false;
}

function agentDelta(params: JsonObject): EventDraft[] {
  const delta = str(params.delta);
  if (delta === null) return [];
  return [{ kind: 'assistant_delta', payload: { content: delta, metadata: { item_id: params.itemId ?? null } } }];
}

function reasoningDelta(params: JsonObject): EventDraft[] {
  const delta = str(params.delta);
  if (delta === null) return [];
  return [{ kind: 'thinking', payload: { content: delta, metadata: { item_id: params.itemId ?? null, delta: true } } }];
}

/** The thread's running total after each model call: a cumulative cost update (Codex reports no price). */
function tokenUsage(params: JsonObject): EventDraft[] {
  const usage = obj(obj(params.tokenUsage)?.total);
  if (!usage) return [];
  const figures = codexUsageFigures({
    input_tokens: usage.inputTokens ?? null,
    output_tokens: usage.outputTokens ?? null,
    cached_input_tokens: usage.cachedInputTokens ?? null,
    cache_write_input_tokens: usage.cacheWriteInputTokens ?? null,
    reasoning_output_tokens: usage.reasoningOutputTokens ?? null,
  });
  return [usageDraft(figures, 'cumulative', { native_usage: obj(params.tokenUsage) ?? {} })];
}

/** The plan the agent keeps (its to-do list), restated whole at each update: a tool call of its own, as `codex exec`'s `todo_list`. */
function planUpdated(params: JsonObject): EventDraft[] {
  const input: JsonObject = { items: arr(params.plan), explanation: params.explanation ?? null };
  return [
    { kind: 'tool_use', payload: { tool_name: 'todo_list', tool_call_id: null, input, metadata: { turn_id: params.turnId ?? null } } },
  ];
}

/**
 * Codex's own name for a turn's error (`codexErrorInfo`), as the HTTP status it stands for: a 401
 * says no more than "unauthorized" in the message, which it may not hold (then the error is `auth`).
 */
const CODEX_ERROR_STATUS: Readonly<Record<string, number>> = { unauthorized: 401 };
const errorStatus = (error: JsonObject): number | undefined => CODEX_ERROR_STATUS[str(error.codexErrorInfo) ?? ''];

/** An `error` notification: a retry in progress (a warning), or the turn's failure (its `turn/completed` repeats it). */
function errorNotice(params: JsonObject, state: AppServerState): EventDraft[] {
  const body = obj(params.error) ?? {};
  const message = str(body.message) ?? 'error';
  if (params.willRetry === true) return [errorDraft(message, 'warning', 'retry')];
  state.errorReported = true;
  const error = readApiError(message, { status: errorStatus(body) });
  return [errorDraft(error.message, 'error', error.code, error.metadata)];
}

/** The turn is over: completed, interrupted (the host's interrupt: aborted) or failed. */
function turnCompleted(params: JsonObject, state: AppServerState): EventDraft[] {
  const turn = obj(params.turn) ?? {};
  const status = str(turn.status);
  const output = state.lastMessage;
  state.lastMessage = null;
  const metadata: JsonObject = { turn_id: turn.id ?? null };
  if (turn.durationMs !== undefined) metadata.duration_ms = turn.durationMs;
  if (status === 'interrupted')
    return [
      ...closeOpenTools(state),
      { kind: 'result', payload: { status: 'aborted', stop_reason: 'interrupted', output: null, metadata } },
    ];
  const failed = status !== 'completed';
  const error = readApiError(str(obj(turn.error)?.message) ?? 'the turn failed', { status: errorStatus(obj(turn.error) ?? {}) });
  const drafts = finishDrafts({
    failed,
    errorReported: state.errorReported,
    errorMessage: error.message,
    errorCode: error.code,
    errorMetadata: error.metadata,
    output,
    metadata,
  });
  state.errorReported = false;
  return drafts;
}

/**
 * The tool calls an interrupted turn leaves open get their result inside the turn: Codex completes
 * a stopped command's item only after the turn's end (or never, for one it withdrew).
 */
function closeOpenTools(state: AppServerState): EventDraft[] {
  const drafts: EventDraft[] = [];
  for (const id of state.openTools) {
    state.closedTools.add(id);
    drafts.push({
      kind: 'tool_result',
      payload: { tool_call_id: id, content: 'the turn was interrupted', is_error: true, metadata: { status: 'interrupted' } },
    });
  }
  state.openTools.clear();
  return drafts;
}

// ---- approvals -----------------------------------------------------------------------------

function commandApproval(params: JsonObject, state: AppServerState, line: JsonObject): EventDraft[] {
  return [approval(line, state, str(params.command) ?? 'command', params)];
}

/** A file change's request names only its item: the changes come from the item, for the host to see. */
function fileChangeApproval(params: JsonObject, state: AppServerState, line: JsonObject): EventDraft[] {
  const itemId = str(params.itemId);
  const changes = itemId === null ? undefined : state.items.get(itemId)?.changes;
  const details: JsonObject = { ...params, changes: changes ?? [] };
  return [approval(line, state, 'file_change', details)];
}

/**
 * An MCP tool call's approval (an elicitation marked `codex_approval_kind: "mcp_tool_call"`; any other
 * elicitation is declined by the protocol and is no approval). It names the server and tool, not the
 * item: the call is the open `mcpToolCall` item of that server and tool.
 */
function mcpToolApproval(params: JsonObject, state: AppServerState, line: JsonObject): EventDraft[] {
  if (!isMcpToolApproval(params)) return [];
  const meta = obj(params._meta) ?? {};
  const server = str(params.serverName);
  const tool = str(meta.tool_name);
  const item = [...state.openTools]
    .map((id) => state.items.get(id))
    .filter((candidate) => candidate?.type === 'mcpToolCall' && candidate.server === server && candidate.tool === tool)
    .at(-1);
  const subject = server && tool ? `${server}/${tool}` : (tool ?? 'mcp_tool_call');
  if (line.id !== undefined && line.id !== null) state.elicitations.add(String(line.id));
  return [approval(line, state, subject, { ...params, itemId: str(item?.id) ?? null, arguments: meta.tool_params ?? null })];
}

/** The approval id is the request's JSON-RPC id (unique on the connection); the tool call is the item. */
function approval(line: JsonObject, state: AppServerState, subject: string, details: JsonObject): EventDraft {
  const id = line.id === undefined || line.id === null ? null : String(line.id);
  if (id !== null) state.asked.add(id);
  return {
    kind: 'approval_requested',
    payload: { approval_id: id, subject, details, metadata: { tool_call_id: details.itemId ?? null, method: line.method ?? null } },
  };
}

/** Codex withdrew a request nobody answered (its turn was interrupted): that approval is over. */
function requestResolved(params: JsonObject, state: AppServerState): EventDraft[] {
  const id = params.requestId === undefined || params.requestId === null ? null : String(params.requestId);
  if (id === null || !state.asked.delete(id)) return [];
  state.elicitations.delete(id);
  return [
    {
      kind: 'approval_resolved',
      payload: { approval_id: id, decision: 'cancelled', reason: 'the CLI withdrew the request', metadata: {} },
    },
  ];
}
