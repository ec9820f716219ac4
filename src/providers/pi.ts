import { hasOwn, type JsonObject } from '../schema/json';
import { arr, copyOf, finishDrafts, num, obj, str } from './drafts';
import { readApiError, type ErrorCode } from './error-codes';
import type { EventDraft, ProviderProfile } from './profile';
import { usageDraft } from './usage';

/*
 * pi (`@mariozechner/pi-coding-agent`): `pi --mode json -p` prints a `session` header
 * (`{type, version, id, timestamp, cwd}`), then its agent's events as they happen (its docs/json.md,
 * measured with 0.73.1): `agent_start`, `turn_start`, `message_start` / `message_update` /
 * `message_end` (user, assistant and tool-result messages; an update carries one
 * `assistantMessageEvent`: `text_delta`, `thinking_delta`, `toolcall_delta`… with the whole partial
 * message beside it), `tool_execution_start` / `_update` / `_end`, `turn_end`, and `agent_end` once
 * the prompt is done. `pi --mode rpc` prints the same events (no header), so sessions read them
 * through this profile too. A failed model call is no line of its own: the assistant message ends
 * with `stopReason: "error"` and an `errorMessage`, and pi still exits 0; an interrupt (`abort`)
 * ends it with `stopReason: "aborted"`.
 */

/** What one pi run remembers between lines. */
export interface PiState {
  /** The text of the last assistant message: the run's answer. */
  lastText: string | null;
  /** The last assistant message's `stopReason` and `errorMessage`. */
  stopReason: string | null;
  errorMessage: string | null;
}

/** The `type`s of pi's header and agent events. */
const PI_TYPES = new Set([
  'session',
  'agent_start',
  'agent_end',
  'turn_start',
  'turn_end',
  'message_start',
  'message_update',
  'message_end',
  'tool_execution_start',
  'tool_execution_update',
  'tool_execution_end',
  'queue_update',
  'compaction_start',
  'compaction_end',
  'auto_retry_start',
  'auto_retry_end',
]);

/** `stopReason`s that end a prompt without a whole answer (pi-ai's `StopReason`), by their neutral error code. */
const FAILED_REASONS: ReadonlyMap<string, ErrorCode> = new Map([
  ['error', 'api_error'],
  ['length', 'max_tokens'],
]);

type Handler = (line: JsonObject, state: PiState) => EventDraft[];

const HANDLERS: Record<string, Handler> = {
  session: (line) => [
    {
      kind: 'run_started',
      payload: { provider_session_id: str(line.id), cwd: str(line.cwd), metadata: { version: line.version ?? null } },
    },
  ],
  message_update: messageUpdate,
  message_end: messageEnd,
  tool_execution_start: (line) => [
    { kind: 'tool_use', payload: { tool_name: str(line.toolName), tool_call_id: str(line.toolCallId), input: obj(line.args) ?? {} } },
  ],
  tool_execution_end: toolEnd,
  agent_end: agentEnd,
};

/** The pi profile. */
export const piProfile: ProviderProfile<PiState> = {
  id: 'pi',
  // Only pi prints these event names; `session` is its header (`version` and `cwd` beside `id`).
  detect: (line) => {
    const type = str(line.type) ?? '';
    if (type === 'session') return str(line.id) !== null && num(line.version) !== null;
    return PI_TYPES.has(type);
  },
  newState: () => ({ lastText: null, stopReason: null, errorMessage: null }),
  sessionId: (line) => (line.type === 'session' ? str(line.id) : null),
  // The header has ISO text; messages carry epoch ms; the other events no time at all.
  timestamp: (line) => str(line.timestamp) ?? num(obj(line.message)?.timestamp),
  decode(line, state) {
    const type = str(line.type);
    const handler = type !== null && hasOwn(HANDLERS, type) ? HANDLERS[type] : undefined;
    return handler ? handler(line, state) : [];
  },
};

/** Text and thinking deltas; the other stream events (`text_start`, `toolcall_delta`…) stay raw. */
function messageUpdate(line: JsonObject): EventDraft[] {
  const event = obj(line.assistantMessageEvent);
  const index = num(event?.contentIndex);
  if (event?.type === 'text_delta') {
    return [
      {
        kind: 'assistant_delta',
        payload: { content: str(event.delta) ?? '', index: index !== null && index >= 0 ? Math.floor(index) : null },
      },
    ];
  }
  if (event?.type === 'thinking_delta') {
    return [{ kind: 'thinking', payload: { content: str(event.delta) ?? '', signature: null, metadata: { delta: true, index } } }];
  }
  return [];
}

/**
 * A whole message. An assistant message gives its thinking, its text and its usage (one model
 * call's: a delta); its tool calls are told by `tool_execution_start`, which pi prints as it runs
 * them. A user message is the prompt; a tool-result message repeats `tool_execution_end` and stays raw.
 */
function messageEnd(line: JsonObject, state: PiState): EventDraft[] {
  const message = obj(line.message) ?? {};
  if (message.role === 'user') return [{ kind: 'user_message', payload: { content: arr(message.content) } }];
  if (message.role !== 'assistant') return [];
  const drafts: EventDraft[] = [];
  const model = str(message.model);
  const metadata: JsonObject = { provider: message.provider ?? null, response_id: message.responseId ?? null };
  const texts: string[] = [];
  for (const value of arr(message.content)) {
    const block = obj(value);
    if (block?.type === 'thinking')
      drafts.push({
        kind: 'thinking',
        payload: { content: str(block.thinking) ?? '', signature: str(block.thinkingSignature), metadata: copyOf(metadata) },
      });
    if (block?.type === 'text') texts.push(str(block.text) ?? '');
  }
  if (texts.length > 0)
    drafts.push({ kind: 'assistant_message', payload: { content: [{ type: 'text', text: texts.join('') }], model, metadata } });
  const usage = obj(message.usage);
  // A failed or aborted call reports zeros: no cost_update rather than one made of them.
  if (usage && (num(usage.totalTokens) ?? 0) + (num(obj(usage.cost)?.total) ?? 0) > 0) {
    const read = num(usage.cacheRead) ?? 0;
    const write = num(usage.cacheWrite) ?? 0;
    // pi's `input` leaves the cache out (its `totalTokens` is input + output + cacheRead + cacheWrite).
    drafts.push(
      usageDraft(
        {
          input_tokens: (num(usage.input) ?? 0) + read + write,
          output_tokens: usage.output,
          cache_read_input_tokens: read,
          cache_write_input_tokens: write,
          cost_usd: obj(usage.cost)?.total,
        },
        'delta',
        { native_usage: usage },
      ),
    );
  }
  state.lastText = texts.length > 0 ? texts.join('') : state.lastText;
  state.stopReason = str(message.stopReason);
  state.errorMessage = str(message.errorMessage);
  return drafts;
}

/** A finished tool call; bash's non-zero exit is `isError` too. */
function toolEnd(line: JsonObject): EventDraft[] {
  const result = obj(line.result);
  const texts = arr(result?.content).map((block) => str(obj(block)?.text) ?? '');
  return [
    {
      kind: 'tool_result',
      payload: {
        tool_call_id: str(line.toolCallId),
        content: texts.join(''),
        is_error: line.isError === true,
        metadata: { tool_name: line.toolName ?? null, details: result?.details ?? null },
      },
    },
  ];
}

/** The prompt is done: its last assistant message says how (stop, tool use, error, aborted, length). */
function agentEnd(_line: JsonObject, state: PiState): EventDraft[] {
  const reason = state.stopReason;
  const metadata: JsonObject = {};
  const drafts: EventDraft[] = [];
  if (reason === 'aborted') {
    drafts.push({ kind: 'result', payload: { status: 'aborted', stop_reason: reason, output: null, object: null, metadata } });
  } else if (reason !== null && FAILED_REASONS.has(reason)) {
    // pi's `errorMessage` is the API client's text, which starts with the HTTP status (`400 scripted invalid request`).
    const text = state.errorMessage ?? 'the model call failed';
    const status = /^([1-5]\d\d)\b/.exec(text);
    const error = reason === 'error' ? readApiError(text, { status: status ? Number(status[1]) : null }) : null;
    const code = error ? error.code : FAILED_REASONS.get(reason);
    drafts.push(
      ...finishDrafts({
        failed: true,
        errorMessage: error?.message ?? `the model stopped: ${reason}`,
        errorCode: code,
        errorMetadata: Object.assign(copyOf(error?.metadata ?? {}), { native_code: reason }),
        stop_reason: reason,
        metadata,
      }),
    );
  } else {
    drafts.push(...finishDrafts({ failed: false, output: state.lastText, stop_reason: reason, metadata }));
  }
  // A session's next prompt starts afresh.
  state.lastText = null;
  state.stopReason = null;
  state.errorMessage = null;
  return drafts;
}
