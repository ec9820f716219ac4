import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { arr, finishDrafts, num, obj, str } from '../providers/drafts';
import type { EventDraft, ProviderProfile } from '../providers/profile';
import { usageDraft, type UsageAggregation } from '../providers/usage';
import type { JsonObject, JsonValue } from '../schema/json';
import { ACP_CLIENT_METHODS, ACP_ERRORS } from '../wire/acp';

/*
 * What an Agent Client Protocol agent prints, as events (JSON-RPC 2.0, one message a line; the
 * schema is `schema/v1/schema.json` of `@agentclientprotocol/sdk`; checked against Gemini CLI
 * 0.61.0, OpenCode 1.18.33, Qwen Code 0.15.10 and Copilot CLI 1.0.102, the captures in
 * test/fixtures/sessions). The agent streams `session/update` notifications (message and thought
 * chunks, tool calls and their updates, plans), asks `session/request_permission`, and answers the
 * client's `session/prompt` with the turn's `stopReason`.
 */

/** What the ACP client's CLI adds to the mapping (clis.ts). */
export interface AcpQuirks {
  /** The CLI's own name of a tool call's tool, when it gives one somewhere of its own (see clis.ts); null: none. */
  toolName?(call: JsonObject): string | null;
  /** How the `usage` of a prompt's answer adds up: the turn's own (default) or the session's running total (Copilot). */
  promptUsage?: UsageAggregation;
  /**
   * Embedded resources go as text even though its `initialize` says `embeddedContext` (Copilot CLI
   * 1.0.102 takes the block and leaves its text out of the model request).
   */
  resourcesAsText?: boolean;
}

/** One tool call as the updates have described it so far. */
interface ToolCall {
  readonly id: string;
  /** The fields of the tool call and its updates, merged (`title`, `kind`, `rawInput`, `locations`…). */
  readonly fields: JsonObject;
  /** Its name, from the first message that gave one. */
  name: string | null;
  /** Its `tool_use` was emitted. */
  announced: boolean;
  /** The host denied it (the agent may never say so). */
  denied: boolean;
}

/** What the mapping remembers; the protocol (acp.ts) writes the request ids it sent. */
export interface AcpState {
  /** Ids of the client's `session/new` (and `session/load`) requests: their answer starts the session. */
  readonly sessionRequests: Set<string>;
  /** Ids of the client's `session/prompt` requests: their answer ends a turn. */
  readonly promptRequests: Set<string>;
  sessionId: string | null;
  /**
   * The id of the session being loaded (`session/load`, to resume it) until the agent answers: the
   * agent replays the session's history as updates first, which are the past, not this session's events.
   */
  loading: string | null;
  /** The streamed message or thought, held until a line that is not its next chunk. */
  held: { kind: 'text' | 'thought'; text: string; messageId: JsonValue } | null;
  /** The turn's last whole message: its result's output. */
  lastMessage: string | null;
  /** The turn's tool calls by id (cleared when the turn ends). */
  readonly tools: Map<string, ToolCall>;
  /**
   * Permission requests asked and not answered, by request id: the tool call each is about, and the
   * options it offers (the protocol answers with one of them, and takes the request out).
   */
  readonly asked: Map<string, { readonly toolCallId: string | null; readonly options: JsonValue[] }>;
  readonly quirks: AcpQuirks;
}

export function newAcpState(quirks: AcpQuirks = {}): AcpState {
  return {
    sessionRequests: new Set(),
    promptRequests: new Set(),
    sessionId: null,
    loading: null,
    held: null,
    lastMessage: null,
    tools: new Map(),
    asked: new Map(),
    quirks,
  };
}

/** A JSON-RPC id as the key the maps use (numbers and strings alike). */
export function idKey(id: JsonValue | undefined): string | null {
  return typeof id === 'number' || typeof id === 'string' ? String(id) : null;
}

type UpdateHandler = (update: JsonObject, state: AcpState) => EventDraft[];

/**
 * `session/update` kind → handler, keyed by the SDK's kinds (a renamed kind fails to compile; a Map:
 * a kind named "constructor" must not find Object's). The other kinds stay raw.
 */
const UPDATES = new Map<string, UpdateHandler>(
  Object.entries({
    agent_message_chunk: (update, state) => chunk('text', update, state),
    agent_thought_chunk: (update, state) => chunk('thought', update, state),
    user_message_chunk: userChunk,
    tool_call: toolUpdate,
    tool_call_update: toolUpdate,
    plan,
  } satisfies Partial<Record<SessionUpdate['sessionUpdate'], UpdateHandler>>),
);

/** The ACP profile; `id` is the CLI's own (one mapping, several CLIs). */
export function acpProfile(id: string): ProviderProfile<AcpState> {
  return {
    id,
    detect: () => false,
    newState: () => newAcpState(),
    sessionId: (line) => str(obj(line.params)?.sessionId) ?? (idKey(line.id) !== null ? str(obj(line.result)?.sessionId) : null),
    timestamp: () => null,
    decode,
    release(next, state) {
      const drafts = releaseHeld(next, state);
      for (const call of state.tools.values()) {
        // A denied call the agent does not close itself (Gemini, Qwen: the next line is the model's
        // answer) ends here; OpenCode closes it with a `failed` update of its own.
        if (!call.denied || !call.announced || updates(next, call.id)) continue;
        drafts.push(toolResult(call, DENIED, true, { status: 'denied' }));
        state.tools.delete(call.id);
      }
      return drafts;
    },
  };
}

const DENIED = 'the host denied this tool call';

/** The held message or thought, whole, once `next` is not its next chunk. */
function releaseHeld(next: JsonObject | null, state: AcpState): EventDraft[] {
  const held = state.held;
  if (held === null || continues(next, held)) return [];
  state.held = null;
  if (held.kind === 'thought') return [{ kind: 'thinking', payload: { content: held.text, metadata: messageMetadata(held.messageId) } }];
  state.lastMessage = held.text;
  return [
    { kind: 'assistant_message', payload: { content: [{ type: 'text', text: held.text }], metadata: messageMetadata(held.messageId) } },
  ];
}

/** Whether `next` is an update of tool call `id`. */
function updates(next: JsonObject | null, id: string): boolean {
  const update = obj(obj(next?.params)?.update);
  return next?.method === ACP_CLIENT_METHODS.sessionUpdate && update?.toolCallId === id;
}

function decode(line: JsonObject, state: AcpState): EventDraft[] {
  const method = str(line.method);
  if (method === ACP_CLIENT_METHODS.sessionUpdate) {
    if (state.loading !== null) return [];
    const update = obj(obj(line.params)?.update) ?? {};
    const handler = UPDATES.get(str(update.sessionUpdate) ?? '');
    return [...usageOf(obj(update._meta)?.usage), ...(handler ? handler(update, state) : [])];
  }
  if (method === ACP_CLIENT_METHODS.requestPermission) return permission(line, state);
  if (method !== null) return [];
  const id = idKey(line.id);
  if (id !== null && state.sessionRequests.delete(id)) return sessionStarted(line, state);
  if (id !== null && state.promptRequests.delete(id)) return turnEnded(line, state);
  return [];
}

/** Whether `next` is the next chunk of what is held (same kind, same message). */
function continues(next: JsonObject | null, held: NonNullable<AcpState['held']>): boolean {
  const update = obj(obj(next?.params)?.update);
  const kind = held.kind === 'text' ? 'agent_message_chunk' : 'agent_thought_chunk';
  return (
    next?.method === ACP_CLIENT_METHODS.sessionUpdate && update?.sessionUpdate === kind && (update.messageId ?? null) === held.messageId
  );
}

function messageMetadata(messageId: JsonValue): JsonObject {
  return messageId === null ? {} : { message_id: messageId };
}

function sessionStarted(line: JsonObject, state: AcpState): EventDraft[] {
  const result = obj(line.result);
  const loaded = state.loading;
  state.loading = null;
  if (!result || state.sessionId !== null) return [];
  // `session/load` answers no session id: it is the one loaded.
  state.sessionId = str(result.sessionId) ?? loaded;
  const metadata: JsonObject = {};
  for (const key of ['modes', 'models', 'configOptions']) if (result[key] !== undefined) metadata[key] = result[key];
  return [{ kind: 'run_started', payload: { provider_session_id: state.sessionId, metadata } }];
}

/**
 * A message or thought arrives only in chunks (cut anywhere): each is a delta, and the whole is
 * released once a line that is not its next chunk shows it ended. Qwen Code sends empty chunks that
 * only carry usage.
 */
function chunk(kind: 'text' | 'thought', update: JsonObject, state: AcpState): EventDraft[] {
  const content = obj(update.content);
  const text = str(content?.text);
  const messageId = update.messageId ?? null;
  if (content?.type !== 'text' || text === null) {
    // An image or resource block: a message of its own.
    return content && kind === 'text'
      ? [{ kind: 'assistant_message', payload: { content: [content], metadata: messageMetadata(messageId) } }]
      : [];
  }
  if (text === '') return [];
  if (state.held?.kind === kind && state.held.messageId === messageId) state.held.text += text;
  else state.held = { kind, text, messageId };
  const metadata = messageMetadata(messageId);
  if (kind === 'text') return [{ kind: 'assistant_delta', payload: { content: text, metadata } }];
  metadata.delta = true;
  return [{ kind: 'thinking', payload: { content: text, metadata } }];
}

function userChunk(update: JsonObject): EventDraft[] {
  const content = obj(update.content);
  return content ? [{ kind: 'user_message', payload: { content: [content] } }] : [];
}

// ---- tool calls ------------------------------------------------------------------------------

const TERMINAL = new Set(['completed', 'failed']);

/** The tool call `fields` describe, merged into what is known of it. */
function trackTool(fields: JsonObject, state: AcpState): ToolCall | null {
  const id = str(fields.toolCallId);
  if (id === null) return null;
  let call = state.tools.get(id);
  if (!call) {
    call = { id, fields: {}, name: null, announced: false, denied: false };
    state.tools.set(id, call);
  }
  for (const key of Object.keys(fields))
    if (key !== 'sessionUpdate' && fields[key] !== null && fields[key] !== undefined) call.fields[key] = fields[key];
  call.name ??= str(obj(fields._meta)?.toolName) ?? state.quirks.toolName?.(fields) ?? null;
  return call;
}

/**
 * A tool call is announced (`tool_use`) once it is under way or asked about, when its input is known
 * (OpenCode's first `tool_call` is `pending` with only the cwd; Gemini and Qwen ask before any
 * `tool_call`); it ends (`tool_result`) at `completed` or `failed`.
 */
function toolUpdate(update: JsonObject, state: AcpState): EventDraft[] {
  const call = trackTool(update, state);
  if (!call) return [];
  const status = str(update.status);
  const drafts: EventDraft[] = [];
  if (status !== null && status !== 'pending') drafts.push(...announce(call));
  if (status !== null && TERMINAL.has(status)) {
    drafts.push(toolResult(call, toolOutput(call.fields), status === 'failed' || call.denied, { status }));
    state.tools.delete(call.id);
  }
  return drafts;
}

function announce(call: ToolCall): EventDraft[] {
  if (call.announced) return [];
  call.announced = true;
  const { rawInput, kind, title, locations } = call.fields;
  const metadata: JsonObject = {};
  if (kind !== undefined) metadata.kind = kind;
  if (title !== undefined) metadata.title = title;
  if (locations !== undefined) metadata.locations = locations;
  // Gemini sends no `rawInput`: its title is the command.
  const input = obj(rawInput) ?? (rawInput === undefined ? (title === undefined ? {} : { title }) : { input: rawInput });
  return [{ kind: 'tool_use', payload: { tool_name: call.name ?? str(kind) ?? 'tool', tool_call_id: call.id, input, metadata } }];
}

function toolResult(call: ToolCall, content: JsonValue, isError: boolean, metadata: JsonObject): EventDraft {
  return { kind: 'tool_result', payload: { tool_call_id: call.id, content, is_error: isError, metadata } };
}

/** The text of a tool call's content blocks (diffs and terminals as they are), else its raw output. */
function toolOutput(fields: JsonObject): JsonValue {
  const texts: string[] = [];
  const others: JsonValue[] = [];
  for (const item of arr(fields.content)) {
    const text = str(obj(obj(item)?.content)?.text);
    if (obj(item)?.type === 'content' && text !== null) texts.push(text);
    else others.push(item);
  }
  if (others.length > 0) return [...texts.map((text) => ({ type: 'text', text })), ...others];
  if (texts.length > 0) return texts.join('\n');
  return fields.rawOutput ?? null;
}

/** The agent's plan (its to-do list), restated whole at each update: a tool call of its own, as Codex's `todo_list`. */
function plan(update: JsonObject): EventDraft[] {
  return [
    { kind: 'tool_use', payload: { tool_name: 'todo_list', tool_call_id: null, input: { items: arr(update.entries) }, metadata: {} } },
  ];
}

// ---- permission ------------------------------------------------------------------------------

/** The approval id is the request's JSON-RPC id; the tool call is announced first when it was not. */
function permission(line: JsonObject, state: AcpState): EventDraft[] {
  const params = obj(line.params) ?? {};
  const call = trackTool(obj(params.toolCall) ?? {}, state);
  const id = idKey(line.id);
  if (id !== null) state.asked.set(id, { toolCallId: call?.id ?? null, options: arr(params.options) });
  const drafts = call ? announce(call) : [];
  const subject = str(call?.fields.title) ?? call?.name ?? null;
  drafts.push({
    kind: 'approval_requested',
    payload: { approval_id: id, subject, details: params, metadata: { tool_call_id: call?.id ?? null } },
  });
  return drafts;
}

// ---- the end of a turn -----------------------------------------------------------------------

/**
 * The answer to `session/prompt`: the turn's end. `end_turn` and `max_tokens` complete it,
 * `cancelled` (the host's interrupt) aborts it, `max_turn_requests` and `refusal` fail it, as
 * Claude's max turns and refusals do; an error answer fails it. Tool calls still open get their
 * result first (a denied one, which Gemini never closes, or one the cancel cut short).
 */
function turnEnded(line: JsonObject, state: AcpState): EventDraft[] {
  const result = obj(line.result);
  const error = obj(line.error);
  const stop = str(result?.stopReason);
  const drafts: EventDraft[] = [...usageOf(result?.usage, state.quirks.promptUsage), ...geminiQuota(obj(obj(result?._meta)?.quota))];
  for (const call of state.tools.values()) {
    if (!call.announced) continue;
    const why = call.denied ? DENIED : 'the turn ended before the tool call did';
    drafts.push(toolResult(call, why, true, { status: call.denied ? 'denied' : 'cancelled' }));
  }
  state.tools.clear();
  const output = state.lastMessage;
  state.lastMessage = null;
  const metadata: JsonObject = {};
  if (stop === 'cancelled') {
    drafts.push({ kind: 'result', payload: { status: 'aborted', stop_reason: 'cancelled', output: null, metadata } });
    return drafts;
  }
  if (error) {
    drafts.push(
      ...finishDrafts({
        failed: true,
        errorMessage: str(error.message) ?? 'the prompt failed',
        // ACP's "authentication required": OpenCode's answer to a prompt whose provider has no key.
        errorCode: error.code === ACP_ERRORS.authRequired ? 'auth' : 'execution',
        errorMetadata: { native_code: error.code ?? null, data: error.data ?? null },
      }),
    );
    return drafts;
  }
  const failure = stop === 'max_turn_requests' ? 'max_turns' : stop === 'refusal' ? 'refusal' : null;
  drafts.push(
    ...finishDrafts({
      failed: failure !== null,
      errorMessage: failure === 'refusal' ? 'the model refused' : 'the turn reached its limit of model requests',
      errorCode: failure,
      stop_reason: stop,
      output,
      metadata,
    }),
  );
  return drafts;
}

/**
 * ACP's `Usage`: in a prompt's answer (OpenCode: its last model call's; Copilot: the session's
 * running total) or in a chunk's `_meta.usage` (Qwen Code: each model call's). Agents disagree on
 * whether `inputTokens` counts the cache (OpenCode leaves it out, Qwen counts it), but
 * `totalTokens` is all of it in both: all input is the total less output and thought. Output
 * counts the thought, as the convention says.
 */
function usageOf(value: JsonValue | undefined, aggregation: UsageAggregation = 'delta'): EventDraft[] {
  const usage = obj(value);
  if (!usage) return [];
  const output = num(usage.outputTokens) ?? 0;
  const thought = num(usage.thoughtTokens) ?? 0;
  const total = num(usage.totalTokens);
  const read = num(usage.cachedReadTokens) ?? 0;
  const write = num(usage.cachedWriteTokens) ?? 0;
  const input = total !== null ? total - output - thought : (num(usage.inputTokens) ?? 0) + read + write;
  if (total === 0 && input === 0) return [];
  return [
    usageDraft(
      {
        input_tokens: input,
        output_tokens: output + thought,
        cache_read_input_tokens: read,
        cache_write_input_tokens: write,
        reasoning_output_tokens: thought,
      },
      aggregation,
      { native_usage: usage },
    ),
  ];
}

/** Gemini CLI's usage: the prompt answer's `_meta.quota.token_count`, the turn's own. */
function geminiQuota(quota: JsonObject | null): EventDraft[] {
  const count = obj(quota?.token_count);
  if (!count) return [];
  return [usageDraft({ input_tokens: count.input_tokens, output_tokens: count.output_tokens }, 'delta', { native_usage: quota ?? {} })];
}
