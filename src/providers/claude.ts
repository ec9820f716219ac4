import type { ErrorSeverity } from '../payloads/error.payload';
import { hasOwn, type JsonObject, type JsonValue } from '../schema/json';
import { arr, copyOf, errorDraft, extend, finishDrafts, num, obj, pick, str } from './drafts';
import { classifyApiError, nativeErrorMetadata, type ErrorCode } from './error-codes';
import type { EventDraft, ProviderProfile } from './profile';
import { usageDraft, usageFigures, type UsageFigures, type UsageInput } from './usage';

/*
 * Claude Code, `claude -p --output-format stream-json --verbose` (with or without
 * `--include-partial-messages`): the Agent SDK's `SDKMessage` lines, read from its
 * `sdk.d.ts` and checked against captures of Claude Code 2.1.328 and public recordings.
 * Lines: system (init, status, api_retry, compact_boundary, hook_*, thinking_tokens, task_*…),
 * assistant and user (an Anthropic message each), stream_event (a raw Messages API stream
 * event), result, rate_limit_event, control_request / control_response (SDK control
 * protocol), and more that come and go between versions. Amp prints the same format
 * (`amp.ts` reuses this mapping).
 */

/** What one Claude run remembers between lines. */
export interface ClaudeState {
  /**
   * `can_use_tool` requests still waiting, by request id, as Claude asked them: a
   * `control_cancel_request` resolves one, and the session's control protocol answers one (and
   * takes it out: the one place a Claude session's native requests are kept).
   */
  pendingApprovals: Map<string, JsonObject>;
  /** The turn's failure already has its error event (a synthetic API-error message): its result adds none. */
  errorReported: boolean;
  /** The id of the message being streamed (`message_start`), for deltas of CLIs that do not name it on each line. */
  streamMessageId: string | null;
  /** Subagent and background tasks whose `tool_use` was emitted (`task_started`). */
  startedTasks: Set<string>;
}

type Handler = (line: JsonObject, state: ClaudeState) => EventDraft[];

/** One handler per native `type` (a Map: a line typed "constructor" must not find Object's). */
const HANDLERS = new Map<string, Handler>([
  ['system', system],
  ['assistant', assistant],
  ['user', user],
  ['stream_event', streamEvent],
  ['control_request', controlRequest],
  ['control_cancel_request', controlCancel],
  ['result', result],
  ['rate_limit_event', rateLimit],
  ['auth_status', authStatus],
]);

/** Amp prints Claude's format but names its threads `T-<uuid>`; Claude's session ids are bare UUIDs. */
export function isAmpThreadId(value: unknown): boolean {
  return typeof value === 'string' && /^T-[0-9a-f]{8}-[0-9a-f]{4}-/i.test(value);
}

/** Qwen Code's init line: Claude's shape, with Qwen's own version field (qwen.ts reuses this mapping). */
export function isQwenInit(line: JsonObject): boolean {
  return line.type === 'system' && line.subtype === 'init' && str(line.qwen_code_version) !== null;
}

/**
 * True for a line in Claude's stream-json shape. Only fields the look-alikes lack count:
 * Cursor's lines use the same `type` names but carry no `uuid`, `parent_tool_use_id`,
 * `tools` list, `num_turns` or cost; `stream_event` and the control protocol are Claude's own.
 */
function isClaudeShaped(line: JsonObject): boolean {
  switch (line.type) {
    case 'stream_event':
      return obj(line.event) !== null;
    case 'control_request':
      return str(line.request_id) !== null && obj(line.request) !== null;
    case 'control_response':
      return str(obj(line.response)?.request_id) !== null;
    case 'system':
      if (line.subtype === 'init' && Array.isArray(line.tools) && Array.isArray(line.mcp_servers)) return true;
      return hasMessageBase(line);
    case 'assistant':
    case 'user':
      return obj(line.message) !== null && (str(line.uuid) !== null || hasOwn(line, 'parent_tool_use_id'));
    case 'result':
      return str(line.uuid) !== null || num(line.total_cost_usd) !== null || num(line.num_turns) !== null;
    default:
      // rate_limit_event, command_lifecycle, tool_progress…: the SDK's message base.
      return hasMessageBase(line);
  }
}

/** Every SDK message but the control protocol carries both (`SDKMessageBase`). */
function hasMessageBase(line: JsonObject): boolean {
  return str(line.uuid) !== null && str(line.session_id) !== null;
}

/** The Claude Code profile: see its mapping table in docs/decoding.md. */
export const claudeProfile: ProviderProfile<ClaudeState> = {
  id: 'claude',
  // Amp and Qwen Code print Claude's format too (amp.ts, qwen.ts).
  detect: (line) => isClaudeShaped(line) && !isAmpThreadId(line.session_id) && !isQwenInit(line),
  newState: () => ({ pendingApprovals: new Map(), errorReported: false, streamMessageId: null, startedTasks: new Set() }),
  sessionId: (line) => str(line.session_id),
  // Only assistant and user lines carry a `timestamp` (ISO text); the others take the last one seen.
  timestamp: (line) => str(line.timestamp),
  decode(line, state) {
    const handler = HANDLERS.get(str(line.type) ?? '');
    return handler ? handler(line, state) : [];
  },
};

// ---- system ------------------------------------------------------------------------------

function system(line: JsonObject, state: ClaudeState): EventDraft[] {
  switch (line.subtype) {
    case 'init':
      return [runStarted(line)];
    case 'api_retry':
      return [apiRetry(line)];
    case 'permission_denied':
      return [permissionDenied(line)];
    case 'informational':
      return [informational(line)];
    case 'model_refusal_fallback':
    case 'model_refusal_no_fallback':
      return [refusal(line)];
    case 'status':
      return compactionFailed(line);
    case 'task_started':
      return [taskStarted(line, state)];
    case 'task_notification':
      return taskNotification(line, state);
    default:
      // hook_*, thinking_tokens, task_progress, task_updated, compact_boundary…: bookkeeping, kept as raw.
      return [];
  }
}

function runStarted(line: JsonObject): EventDraft {
  const metadata: JsonObject = {};
  copy(line, metadata, 'model', 'model');
  copy(line, metadata, 'tools', 'tools');
  copy(line, metadata, 'mcp_servers', 'mcp_servers');
  copy(line, metadata, 'permissionMode', 'permissionMode');
  copy(line, metadata, 'claude_code_version', 'version');
  copy(line, metadata, 'apiKeySource', 'apiKeySource');
  return { kind: 'run_started', payload: { provider_session_id: str(line.session_id), cwd: str(line.cwd), metadata } };
}

/** Claude Code retries a failed API call itself; each retry is announced, and the run may still succeed. */
function apiRetry(line: JsonObject): EventDraft {
  const status = num(line.error_status);
  const attempt = num(line.attempt);
  const max = num(line.max_retries);
  const message = `API request failed${status === null ? '' : ` (HTTP ${status})`}; retrying${attempt === null ? '' : ` (attempt ${attempt}${max === null ? '' : ` of ${max}`})`}`;
  const metadata = extend(lineIds(line), nativeErrorMetadata({ status, type: str(line.error) }));
  return errorDraft(message, 'warning', 'retry', pick(line, ['attempt', 'max_retries', 'retry_delay_ms'], metadata));
}

/**
 * A tool call Claude denied by itself, without asking (a deny rule, dontAsk mode, `-p` with nothing
 * to ask): the answer to a question nobody was asked, so an `approval_resolved` of that call.
 */
function permissionDenied(line: JsonObject): EventDraft {
  const metadata = lineIds(line);
  metadata.automatic = true;
  pick(line, ['tool_name', 'decision_reason_type', 'message', 'agent_id'], metadata);
  const reason = str(line.decision_reason) || str(line.message);
  return { kind: 'approval_resolved', payload: { approval_id: str(line.tool_use_id), decision: 'deny', reason, metadata } };
}

/** A notice the CLI shows the user (a hook's message, a stop it explains); `warning` level is a warning. */
function informational(line: JsonObject): EventDraft {
  const severity: ErrorSeverity = line.level === 'warning' ? 'warning' : 'info';
  const metadata = pick(line, ['level', 'tool_use_id', 'prevent_continuation', 'tag'], lineIds(line));
  return errorDraft(str(line.content) ?? '', severity, 'notice', metadata);
}

/** The model refused; with a fallback model the turn is retried (a warning), without one it is an error. */
function refusal(line: JsonObject): EventDraft {
  const fellBack = line.subtype === 'model_refusal_fallback';
  const metadata = pick(
    line,
    ['original_model', 'fallback_model', 'direction', 'scope', 'api_refusal_category', 'retracted_message_uuids', 'request_id'],
    lineIds(line),
  );
  return errorDraft(str(line.content) || 'the model refused', fellBack ? 'warning' : 'error', 'refusal', metadata);
}

/** A `status` line is bookkeeping, but a compaction that failed is worth a warning (the context was not shrunk). */
function compactionFailed(line: JsonObject): EventDraft[] {
  if (line.compact_result !== 'failed') return [];
  return [errorDraft(str(line.compact_error) || 'compaction failed', 'warning', 'compaction_failed', lineIds(line))];
}

/**
 * A subagent or background task is a tool call of its own: `task_started` is its `tool_use` (the
 * spawning call's id in `metadata.parent_tool_call_id`), `task_notification` its `tool_result`.
 */
function taskStarted(line: JsonObject, state: ClaudeState): EventDraft {
  const id = str(line.task_id);
  if (id !== null) state.startedTasks.add(id);
  const input = pick(line, ['description', 'prompt', 'task_type', 'subagent_type', 'workflow_name']);
  return { kind: 'tool_use', payload: { tool_name: 'task', tool_call_id: id, input, metadata: taskMetadata(line) } };
}

function taskNotification(line: JsonObject, state: ClaudeState): EventDraft[] {
  const id = str(line.task_id);
  const drafts: EventDraft[] = [];
  // A task this process did not start (a resumed session's): its call is announced here.
  if (id === null || !state.startedTasks.delete(id))
    drafts.push({ kind: 'tool_use', payload: { tool_name: 'task', tool_call_id: id, input: {}, metadata: taskMetadata(line) } });
  const metadata = pick(line, ['status', 'reason', 'output_file', 'usage', 'duration_ms', 'resource_links'], taskMetadata(line));
  drafts.push({
    kind: 'tool_result',
    payload: { tool_call_id: id, content: str(line.summary), is_error: line.status !== 'completed', metadata },
  });
  return drafts;
}

function taskMetadata(line: JsonObject): JsonObject {
  const metadata: JsonObject = lineIds(line);
  copy(line, metadata, 'tool_use_id', 'parent_tool_call_id');
  return pick(line, ['run_id', 'is_backgrounded', 'spawn_depth', 'parent_task_id', 'skip_transcript', 'ambient'], metadata);
}

// ---- rate limits and login -----------------------------------------------------------------

/** A subscription limit: `rejected` stops the run's calls (an error), `allowed_warning` nears it; `allowed` is bookkeeping. */
function rateLimit(line: JsonObject): EventDraft[] {
  const info = obj(line.rate_limit_info);
  const status = str(info?.status);
  if (status !== 'rejected' && status !== 'allowed_warning') return [];
  const kind = str(info?.rateLimitType);
  const resets = num(info?.resetsAt);
  const when = resets === null ? '' : `; resets at ${new Date(resets * 1000).toISOString()}`;
  const message = `${status === 'rejected' ? 'rate limit reached' : 'nearing the rate limit'}${kind === null ? '' : ` (${kind})`}${when}`;
  const metadata = lineIds(line);
  metadata.rate_limit_info = info;
  return [errorDraft(message, status === 'rejected' ? 'error' : 'warning', 'rate_limit', metadata)];
}

/** Logging in: only a failure means something to the run. */
function authStatus(line: JsonObject): EventDraft[] {
  const error = str(line.error);
  if (error === null) return [];
  const metadata = lineIds(line);
  metadata.output = line.output ?? [];
  return [errorDraft(error, 'error', 'auth', metadata)];
}

// ---- assistant and user ----------------------------------------------------------------

/**
 * One event per content block, in order: a tool call sits inside an assistant message's
 * content next to its text and thinking, so mapping the line to one message loses it.
 */
function assistant(line: JsonObject, state: ClaudeState): EventDraft[] {
  const message = obj(line.message) ?? {};
  const model = str(message.model);
  const metadata = messageMetadata(line, message);
  if (isApiErrorMessage(line, model)) return [syntheticError(line, message, metadata, state)];
  return contentBlocks(message.content).map((block) => assistantBlock(block, model, metadata));
}

/**
 * Claude stands an API failure ("API Error: 400 …", "Not logged in · Please run /login") in for the
 * assistant's answer: a message of model `<synthetic>` flagged `is_api_error_message`. It is the
 * turn's error, not an answer; the failed result that follows adds no second one.
 */
function isApiErrorMessage(line: JsonObject, model: string | null): boolean {
  return line.is_api_error_message === true || (model === '<synthetic>' && str(line.error) !== null && line.error !== 'none');
}

function syntheticError(line: JsonObject, message: JsonObject, metadata: JsonObject, state: ClaudeState): EventDraft {
  state.errorReported = true;
  const text = contentBlocks(message.content)
    .map((block) => str(block.text) ?? '')
    .join('');
  const fields = { status: num(line.api_error_status), type: str(line.api_error_type) ?? str(line.error) };
  return errorDraft(text || 'API error', 'error', classifyApiError(fields), extend(copyOf(metadata), nativeErrorMetadata(fields)));
}

function assistantBlock(block: JsonObject, model: string | null, metadata: JsonObject): EventDraft {
  switch (block.type) {
    case 'thinking':
      return { kind: 'thinking', payload: { content: str(block.thinking) ?? '', signature: str(block.signature), metadata } };
    case 'redacted_thinking':
      // Encrypted reasoning: nothing readable, the opaque data stays in the metadata.
      return { kind: 'thinking', payload: { content: '', signature: null, metadata: redacted(metadata, block) } };
    case 'tool_use':
    case 'server_tool_use':
    case 'mcp_tool_use':
      return {
        kind: 'tool_use',
        payload: {
          tool_name: str(block.name),
          tool_call_id: str(block.id),
          input: obj(block.input) ?? {},
          metadata: withBlockType(metadata, block, 'tool_use'),
        },
      };
    default:
      // Server tool results (web search…) answer a server_tool_use inside the same message.
      if (isToolResult(block)) return toolResult(block, metadata);
      return { kind: 'assistant_message', payload: { content: [block], model, metadata } };
  }
}

/** The metadata of a redacted thinking block: the message's, marked, with the opaque data. */
function redacted(metadata: JsonObject, block: JsonObject): JsonObject {
  const own = copyOf(metadata);
  own.redacted = true;
  own.data = block.data ?? null;
  return own;
}

/** User lines hold tool results (one event each) and text; consecutive other blocks make one user_message. */
function user(line: JsonObject): EventDraft[] {
  const message = obj(line.message) ?? {};
  const metadata = messageMetadata(line, message);
  const blocks = contentBlocks(message.content);
  let results = 0;
  for (const block of blocks) if (isToolResult(block)) results++;
  const drafts: EventDraft[] = [];
  let text: JsonObject[] = [];
  for (const block of blocks) {
    if (isToolResult(block)) {
      if (text.length > 0) drafts.push(userMessage(text, metadata));
      text = [];
      drafts.push(toolResult(block, toolResultMetadata(line, block, metadata, results === 1)));
    } else {
      text.push(block);
    }
  }
  if (text.length > 0) drafts.push(userMessage(text, metadata));
  return drafts;
}

function userMessage(content: JsonObject[], metadata: JsonObject): EventDraft {
  return { kind: 'user_message', payload: { content, metadata } };
}

/**
 * What Claude says about a tool result beside the message: its structured output (stdout,
 * stderr, interrupted…, for the line's only result) and, since 2.1.2xx, `tool_result_meta`
 * (how permission was decided, or why the tool did not run).
 */
function toolResultMetadata(line: JsonObject, block: JsonObject, metadata: JsonObject, single: boolean): JsonObject {
  const own = copyOf(metadata);
  if (single && line.tool_use_result !== undefined) own.tool_use_result = line.tool_use_result;
  const meta = arr(line.tool_result_meta).find((entry) => obj(entry)?.id === block.tool_use_id);
  if (meta !== undefined) own.tool_result_meta = meta;
  return own;
}

function toolResult(block: JsonObject, metadata: JsonObject): EventDraft {
  return {
    kind: 'tool_result',
    payload: {
      tool_call_id: str(block.tool_use_id),
      content: block.content ?? null,
      is_error: block.is_error === true,
      metadata: withBlockType(metadata, block, 'tool_result'),
    },
  };
}

function isToolResult(block: JsonObject): boolean {
  return block.type === 'tool_result' || (typeof block.type === 'string' && block.type.endsWith('_tool_result') && 'tool_use_id' in block);
}

/** A message's content as blocks: a plain string (Claude's echoed prompts, Amp) is one text block. */
function contentBlocks(content: JsonValue | undefined): JsonObject[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  const blocks: JsonObject[] = [];
  if (Array.isArray(content)) {
    for (const block of content) {
      const object = obj(block);
      if (object) blocks.push(object);
    }
  }
  return blocks;
}

/** What a message line says beside its message, kept in the metadata as it is. */
const MESSAGE_KEYS = [
  'error',
  'api_error_status',
  'api_error_type',
  'request_id',
  'aborted',
  'supersedes',
  'agent_id',
  'subagent_type',
  'task_description',
];

/** What every event of an assistant or user line says about where it came from. */
function messageMetadata(line: JsonObject, message: JsonObject): JsonObject {
  const metadata: JsonObject = lineIds(line);
  copy(message, metadata, 'id', 'message_id');
  // Non-null for the output of a subagent (the Task tool call that runs it).
  if (line.parent_tool_use_id !== null && line.parent_tool_use_id !== undefined) metadata.parent_tool_use_id = line.parent_tool_use_id;
  // A synthetic assistant message ("API Error: 400 …", "Not logged in") names the API error it stands for.
  // `aborted`: cut off by an interrupt; `supersedes`: the uuids of earlier messages this one replaces (a
  // refusal fallback); the subagent that wrote it.
  pick(line, MESSAGE_KEYS, metadata);
  if (line.isReplay === true) metadata.replay = true;
  if (line.isSynthetic === true) metadata.synthetic = true;
  return metadata;
}

/** The line's own id (`uuid`, every SDK message has one): it ties each event to the line the SDK and transcripts name. */
function lineIds(line: JsonObject): JsonObject {
  return pick(line, LINE_ID_KEYS);
}

const LINE_ID_KEYS = ['uuid'];

function withBlockType(metadata: JsonObject, block: JsonObject, usual: string): JsonObject {
  if (block.type === usual || block.type === undefined) return metadata;
  const own = copyOf(metadata);
  own.block_type = block.type;
  return own;
}

// ---- stream_event (--include-partial-messages) -------------------------------------------

/**
 * Text and thinking deltas; the rest of the Messages API stream (…_start, …_stop, input_json_delta)
 * stays raw. A block `index` restarts with every message, so each delta names its message
 * (`metadata.message_id`, as the whole message's events do): Claude puts `api_message_id` on the line;
 * older versions only name it in `message_start`.
 */
function streamEvent(line: JsonObject, state: ClaudeState): EventDraft[] {
  const event = obj(line.event);
  if (event?.type === 'message_start') state.streamMessageId = str(obj(event.message)?.id);
  if (event?.type !== 'content_block_delta') return [];
  const delta = obj(event.delta);
  const index = num(event.index);
  const metadata: JsonObject = lineIds(line);
  const messageId = str(line.api_message_id) ?? state.streamMessageId;
  if (messageId !== null) metadata.message_id = messageId;
  if (line.parent_tool_use_id !== null && line.parent_tool_use_id !== undefined) metadata.parent_tool_use_id = line.parent_tool_use_id;
  if (delta?.type === 'text_delta') {
    return [
      {
        kind: 'assistant_delta',
        payload: { content: str(delta.text) ?? '', index: index !== null && index >= 0 ? Math.floor(index) : null, metadata },
      },
    ];
  }
  if (delta?.type === 'thinking_delta') {
    // The metadata is this delta's own: its keys are added to it.
    metadata.delta = true;
    metadata.index = index;
    return [{ kind: 'thinking', payload: { content: str(delta.thinking) ?? '', signature: null, metadata } }];
  }
  return [];
}

// ---- control protocol --------------------------------------------------------------------

/** `can_use_tool` is Claude asking whether a tool may run (`--permission-prompt-tool stdio`, the SDK). */
function controlRequest(line: JsonObject, state: ClaudeState): EventDraft[] {
  const request = obj(line.request);
  if (request?.subtype !== 'can_use_tool') return [];
  const id = str(line.request_id);
  if (id !== null) state.pendingApprovals.set(id, request);
  const metadata: JsonObject = {};
  if (request.tool_use_id !== undefined) metadata.tool_call_id = request.tool_use_id;
  return [{ kind: 'approval_requested', payload: { approval_id: id, subject: str(request.tool_name), details: request, metadata } }];
}

/** Claude withdraws a question it asked (the turn was interrupted): that approval is over. */
function controlCancel(line: JsonObject, state: ClaudeState): EventDraft[] {
  const id = str(line.request_id);
  if (id === null || !state.pendingApprovals.delete(id)) return [];
  return [
    {
      kind: 'approval_resolved',
      payload: { approval_id: id, decision: 'cancelled', reason: 'the CLI cancelled the request', metadata: {} },
    },
  ];
}

// ---- result ------------------------------------------------------------------------------

/** Terminal reasons that are a deliberate pause, not a failure: a tool call left for a human to decide, a turn sent to the background. */
const PAUSES = new Set(['tool_deferred', 'background_requested']);

/** The neutral code of an `error_*` subtype or a failing terminal reason. */
const FAILURE_CODES: Readonly<Record<string, ErrorCode>> = {
  error_max_turns: 'max_turns',
  max_turns: 'max_turns',
  error_max_budget_usd: 'budget',
  budget_exhausted: 'budget',
  prompt_too_long: 'context_length',
  blocking_limit: 'rate_limit',
  rapid_refill_breaker: 'rate_limit',
};

/**
 * Terminal reasons of a turn the user interrupted (a `control_request` `interrupt`, Ctrl-C): Claude
 * prints `error_during_execution` with `is_error: true`, but the turn was stopped, not failed.
 */
const INTERRUPTED = new Set(['aborted_streaming', 'aborted_tools']);

/** What a result line says of the run, kept in the result's metadata as it is. */
const RESULT_KEYS = [
  'subtype',
  'is_error',
  'terminal_reason',
  'num_turns',
  'duration_ms',
  'duration_api_ms',
  'api_error_status',
  'permission_denials',
  'deferred_tool_use',
];

function result(line: JsonObject, state: ClaudeState): EventDraft[] {
  const drafts: EventDraft[] = [];
  const usage = obj(line.usage);
  const modelUsage = obj(line.modelUsage);
  // Amp's result has neither usage nor cost: no cost_update rather than one made of zeros.
  if (usage || modelUsage || num(line.total_cost_usd) !== null) {
    // `usage` is the main loop's last turn only; `modelUsage` and `total_cost_usd` cover every model
    // (subagents, web search, the permission classifier) and every turn of the process so far.
    const figures = modelUsage && Object.keys(modelUsage).length > 0 ? modelUsageFigures(modelUsage) : anthropicUsage(usage ?? {});
    const metadata: JsonObject = lineIds(line);
    if (usage) metadata.main_loop_usage = usage;
    if (modelUsage) metadata.model_usage = modelUsage;
    const input: UsageInput = figures;
    input.cost_usd = line.total_cost_usd;
    drafts.push(usageDraft(input, 'cumulative', metadata));
  }
  const subtype = str(line.subtype);
  const terminal = str(line.terminal_reason);
  const paused = terminal !== null && PAUSES.has(terminal);
  // Any sign of failure: Claude prints `"subtype":"success"` with `"is_error":true` for API errors,
  // and an `error_*` subtype (max turns, budget) may come with `"is_error":false`.
  const failed =
    line.is_error === true || (subtype?.startsWith('error') ?? false) || (terminal !== null && terminal !== 'completed' && !paused);
  const metadata = pick(line, RESULT_KEYS, lineIds(line));
  if (terminal !== null && INTERRUPTED.has(terminal)) {
    state.errorReported = false;
    drafts.push({ kind: 'result', payload: { status: 'aborted', stop_reason: terminal, output: null, object: null, metadata } });
    return drafts;
  }
  const apiFields = { status: num(line.api_error_status), type: str(line.api_error_type) };
  const apiFailure = apiFields.status !== null || apiFields.type !== null;
  drafts.push(
    ...finishDrafts({
      failed,
      errorReported: state.errorReported,
      errorMessage: errorText(line),
      errorCode: apiFailure ? classifyApiError(apiFields) : (FAILURE_CODES[subtype ?? ''] ?? FAILURE_CODES[terminal ?? ''] ?? 'execution'),
      errorMetadata: apiFailure ? nativeErrorMetadata(apiFields) : {},
      stop_reason: paused ? terminal : (line.stop_reason ?? null),
      output: str(line.result),
      object: line.structured_output ?? null,
      metadata,
    }),
  );
  // The next turn of the process (a session) starts with no failure of its own.
  state.errorReported = false;
  return drafts;
}

/** Claude's `modelUsage`, summed over the models: its `inputTokens` leave the cache out, the convention counts it in. */
export function modelUsageFigures(modelUsage: JsonObject): UsageFigures {
  const sum = usageFigures({});
  for (const value of Object.values(modelUsage)) {
    const model = usageFigures({
      input_tokens:
        (num(obj(value)?.inputTokens) ?? 0) +
        (num(obj(value)?.cacheReadInputTokens) ?? 0) +
        (num(obj(value)?.cacheCreationInputTokens) ?? 0),
      output_tokens: obj(value)?.outputTokens,
      cache_read_input_tokens: obj(value)?.cacheReadInputTokens,
      cache_write_input_tokens: obj(value)?.cacheCreationInputTokens,
      reasoning_output_tokens: obj(value)?.thinkingTokens,
    });
    sum.input_tokens += model.input_tokens;
    sum.output_tokens += model.output_tokens;
    sum.cache_read_input_tokens += model.cache_read_input_tokens;
    sum.cache_write_input_tokens += model.cache_write_input_tokens;
    sum.reasoning_output_tokens += model.reasoning_output_tokens;
  }
  return sum;
}

/** An Anthropic `usage` object (`input_tokens` without the cache) in the convention's figures (no price). */
export function anthropicUsage(usage: JsonObject): UsageFigures {
  const read = num(usage.cache_read_input_tokens) ?? 0;
  const write = num(usage.cache_creation_input_tokens) ?? 0;
  return usageFigures({
    input_tokens: (num(usage.input_tokens) ?? 0) + read + write,
    output_tokens: usage.output_tokens,
    cache_read_input_tokens: read,
    cache_write_input_tokens: write,
    reasoning_output_tokens: obj(usage.output_tokens_details)?.thinking_tokens,
  });
}

/** The provider's own words for a failure: `result` (Claude), `errors` (error_* subtypes), `error` (Amp). */
function errorText(line: JsonObject): string | null {
  const errors: string[] = [];
  for (const entry of arr(line.errors)) if (typeof entry === 'string') errors.push(entry);
  return str(line.result) || errors.join('; ') || str(line.error) || str(obj(line.error)?.message) || null;
}

/** Copies `from[key]` to `to[as]` when present. */
function copy(from: JsonObject, to: JsonObject, key: string, as: string): void {
  if (hasOwn(from, key) && from[key] !== undefined) to[as] = from[key];
}
