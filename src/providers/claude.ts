import { hasOwn, type JsonObject, type JsonValue } from '../schema/json';
import { arr, costDraft, errorDraft, finishDrafts, num, obj, str } from './drafts';
import type { EventDraft, ProviderProfile } from './profile';

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
  /** `can_use_tool` requests still waiting, so a `control_cancel_request` can resolve them. */
  pendingApprovals: Set<string>;
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
]);

/** Amp prints Claude's format but names its threads `T-<uuid>`; Claude's session ids are bare UUIDs. */
export function isAmpThreadId(value: unknown): boolean {
  return typeof value === 'string' && /^T-[0-9a-f]{8}-[0-9a-f]{4}-/i.test(value);
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

/** The Claude Code profile: see the mapping table in the README's "Decoding CLI output". */
export const claudeProfile: ProviderProfile<ClaudeState> = {
  id: 'claude',
  detect: (line) => isClaudeShaped(line) && !isAmpThreadId(line.session_id),
  newState: () => ({ pendingApprovals: new Set() }),
  sessionId: (line) => str(line.session_id),
  // Only assistant and user lines carry a `timestamp` (ISO text); the others take the last one seen.
  timestamp: (line) => str(line.timestamp),
  decode(line, state) {
    const handler = HANDLERS.get(str(line.type) ?? '');
    return handler ? handler(line, state) : [];
  },
};

// ---- system ------------------------------------------------------------------------------

function system(line: JsonObject): EventDraft[] {
  switch (line.subtype) {
    case 'init':
      return [runStarted(line)];
    case 'api_retry':
      return [apiRetry(line)];
    default:
      // status, compact_boundary, hook_*, thinking_tokens, task_*…: bookkeeping, kept as raw.
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
  const metadata: JsonObject = {};
  for (const key of ['attempt', 'max_retries', 'retry_delay_ms', 'error_status']) copy(line, metadata, key, key);
  return errorDraft(message, 'warning', str(line.error), metadata);
}

// ---- assistant and user ----------------------------------------------------------------

/**
 * One event per content block, in order: a tool call sits inside an assistant message's
 * content next to its text and thinking, so mapping the line to one message loses it.
 */
function assistant(line: JsonObject): EventDraft[] {
  const message = obj(line.message) ?? {};
  const model = str(message.model);
  const metadata = messageMetadata(line, message);
  return contentBlocks(message.content).map((block) => assistantBlock(block, model, metadata));
}

function assistantBlock(block: JsonObject, model: string | null, metadata: JsonObject): EventDraft {
  switch (block.type) {
    case 'thinking':
      return { kind: 'thinking', payload: { content: str(block.thinking) ?? '', signature: str(block.signature), metadata } };
    case 'redacted_thinking':
      // Encrypted reasoning: nothing readable, the opaque data stays in the metadata.
      return { kind: 'thinking', payload: { content: '', signature: null, metadata: { ...metadata, redacted: true, data: block.data ?? null } } };
    case 'tool_use':
    case 'server_tool_use':
    case 'mcp_tool_use':
      return {
        kind: 'tool_use',
        payload: { tool_name: str(block.name), tool_call_id: str(block.id), input: obj(block.input) ?? {}, metadata: withBlockType(metadata, block, 'tool_use') },
      };
    default:
      // Server tool results (web search…) answer a server_tool_use inside the same message.
      if (isToolResult(block)) return toolResult(block, metadata);
      return { kind: 'assistant_message', payload: { content: [block], model, metadata } };
  }
}

/** User lines hold tool results (one event each) and text; consecutive other blocks make one user_message. */
function user(line: JsonObject): EventDraft[] {
  const message = obj(line.message) ?? {};
  const metadata = messageMetadata(line, message);
  const blocks = contentBlocks(message.content);
  const single = blocks.filter(isToolResult).length === 1;
  const drafts: EventDraft[] = [];
  let text: JsonObject[] = [];
  const flush = () => {
    if (text.length > 0) drafts.push({ kind: 'user_message', payload: { content: text, metadata } });
    text = [];
  };
  for (const block of blocks) {
    if (isToolResult(block)) {
      flush();
      drafts.push(toolResult(block, toolResultMetadata(line, block, metadata, single)));
    } else {
      text.push(block);
    }
  }
  flush();
  return drafts;
}

/**
 * What Claude says about a tool result beside the message: its structured output (stdout,
 * stderr, interrupted…, for the line's only result) and, since 2.1.2xx, `tool_result_meta`
 * (how permission was decided, or why the tool did not run).
 */
function toolResultMetadata(line: JsonObject, block: JsonObject, metadata: JsonObject, single: boolean): JsonObject {
  const extra: JsonObject = {};
  if (single && line.tool_use_result !== undefined) extra.tool_use_result = line.tool_use_result;
  const meta = arr(line.tool_result_meta).find((entry) => obj(entry)?.id === block.tool_use_id);
  if (meta !== undefined) extra.tool_result_meta = meta;
  return { ...metadata, ...extra };
}

function toolResult(block: JsonObject, metadata: JsonObject): EventDraft {
  return {
    kind: 'tool_result',
    payload: { tool_call_id: str(block.tool_use_id), content: block.content ?? null, is_error: block.is_error === true, metadata: withBlockType(metadata, block, 'tool_result') },
  };
}

function isToolResult(block: JsonObject): boolean {
  return block.type === 'tool_result' || (typeof block.type === 'string' && block.type.endsWith('_tool_result') && 'tool_use_id' in block);
}

/** A message's content as blocks: a plain string (Claude's echoed prompts, Amp) is one text block. */
function contentBlocks(content: JsonValue | undefined): JsonObject[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return arr(content).flatMap((block) => {
    const object = obj(block);
    return object ? [object] : [];
  });
}

/** What every event of an assistant or user line says about where it came from. */
function messageMetadata(line: JsonObject, message: JsonObject): JsonObject {
  const metadata: JsonObject = {};
  copy(message, metadata, 'id', 'message_id');
  // Non-null for the output of a subagent (the Task tool call that runs it).
  if (line.parent_tool_use_id !== null && line.parent_tool_use_id !== undefined) metadata.parent_tool_use_id = line.parent_tool_use_id;
  // A synthetic assistant message ("API Error: 400 …", "Not logged in") names the API error it stands for.
  for (const key of ['error', 'api_error_status', 'api_error_type', 'request_id']) copy(line, metadata, key, key);
  if (line.isReplay === true) metadata.replay = true;
  if (line.isSynthetic === true) metadata.synthetic = true;
  return metadata;
}

function withBlockType(metadata: JsonObject, block: JsonObject, usual: string): JsonObject {
  return block.type === usual || block.type === undefined ? metadata : { ...metadata, block_type: block.type };
}

// ---- stream_event (--include-partial-messages) -------------------------------------------

/** Text and thinking deltas; the rest of the Messages API stream (message_start, …_stop, input_json_delta) stays raw. */
function streamEvent(line: JsonObject): EventDraft[] {
  const event = obj(line.event);
  if (event?.type !== 'content_block_delta') return [];
  const delta = obj(event.delta);
  const index = num(event.index);
  const metadata: JsonObject = {};
  if (line.parent_tool_use_id !== null && line.parent_tool_use_id !== undefined) metadata.parent_tool_use_id = line.parent_tool_use_id;
  if (delta?.type === 'text_delta') {
    return [{ kind: 'assistant_delta', payload: { content: str(delta.text) ?? '', index: index !== null && index >= 0 ? Math.floor(index) : null, metadata } }];
  }
  if (delta?.type === 'thinking_delta') {
    return [{ kind: 'thinking', payload: { content: str(delta.thinking) ?? '', signature: null, metadata: { ...metadata, delta: true, index } } }];
  }
  return [];
}

// ---- control protocol --------------------------------------------------------------------

/** `can_use_tool` is Claude asking whether a tool may run (`--permission-prompt-tool stdio`, the SDK). */
function controlRequest(line: JsonObject, state: ClaudeState): EventDraft[] {
  const request = obj(line.request);
  if (request?.subtype !== 'can_use_tool') return [];
  const id = str(line.request_id);
  if (id !== null) state.pendingApprovals.add(id);
  return [{ kind: 'approval_requested', payload: { approval_id: id, subject: str(request.tool_name), details: request, metadata: {} } }];
}

/** Claude withdraws a question it asked (the turn was interrupted): that approval is over. */
function controlCancel(line: JsonObject, state: ClaudeState): EventDraft[] {
  const id = str(line.request_id);
  if (id === null || !state.pendingApprovals.delete(id)) return [];
  return [{ kind: 'approval_resolved', payload: { approval_id: id, decision: 'cancelled', reason: 'the CLI cancelled the request', metadata: {} } }];
}

// ---- result ------------------------------------------------------------------------------

function result(line: JsonObject): EventDraft[] {
  const drafts: EventDraft[] = [];
  const usage = obj(line.usage);
  // Amp's result has neither usage nor cost: no cost_update rather than one made of zeros.
  if (usage || num(line.total_cost_usd) !== null) {
    const metadata: JsonObject = {};
    copy(usage ?? {}, metadata, 'cache_creation_input_tokens', 'cache_creation_input_tokens');
    copy(usage ?? {}, metadata, 'cache_read_input_tokens', 'cache_read_input_tokens');
    copy(line, metadata, 'modelUsage', 'model_usage');
    drafts.push(costDraft({ input_tokens: usage?.input_tokens, output_tokens: usage?.output_tokens, cost_usd: line.total_cost_usd }, metadata));
  }
  const subtype = str(line.subtype);
  const terminal = str(line.terminal_reason);
  // Any sign of failure: Claude prints `"subtype":"success"` with `"is_error":true` for API errors,
  // and an `error_*` subtype (max turns, budget) may come with `"is_error":false`.
  const failed = line.is_error === true || (subtype?.startsWith('error') ?? false) || (terminal !== null && terminal !== 'completed');
  const metadata: JsonObject = {};
  for (const key of ['subtype', 'is_error', 'terminal_reason', 'num_turns', 'duration_ms', 'duration_api_ms', 'api_error_status', 'permission_denials']) copy(line, metadata, key, key);
  drafts.push(
    ...finishDrafts({
      failed,
      errorMessage: errorText(line),
      errorCode: str(line.api_error_type) ?? (subtype?.startsWith('error') ? subtype : null) ?? (terminal !== 'completed' ? terminal : null),
      stop_reason: line.stop_reason ?? null,
      output: str(line.result),
      object: line.structured_output ?? null,
      metadata,
    }),
  );
  return drafts;
}

/** The provider's own words for a failure: `result` (Claude), `errors` (error_* subtypes), `error` (Amp). */
function errorText(line: JsonObject): string | null {
  const errors = arr(line.errors).flatMap((entry) => (typeof entry === 'string' ? [entry] : []));
  return str(line.result) || errors.join('; ') || str(line.error) || str(obj(line.error)?.message) || null;
}

/** Copies `from[key]` to `to[as]` when present. */
function copy(from: JsonObject, to: JsonObject, key: string, as: string): void {
  if (hasOwn(from, key) && from[key] !== undefined) to[as] = from[key];
}
