import { hasOwn, type JsonObject } from '../schema/json';
import { arr, errorDraft, finishDrafts, num, obj, str } from './drafts';
import { readApiError } from './error-codes';
import type { EventDraft, ProviderProfile } from './profile';
import { usageDraft } from './usage';

/*
 * Cline (`cline`), `cline --json <prompt>`, measured with 3.0.65: every line has `ts` (ISO text)
 * and a `type`:
 * - `hook_event`: its hooks' lifecycle (`hookEventName`: `agent_start`, `tool_call`, `tool_result`,
 *   `agent_end`, `agent_error`), each with the conversation's `taskId` (the session id; there is no
 *   other header);
 * - `agent_event`: the agent's `event` (`iteration_start`/`_end`; `content_start` pieces of text
 *   (`text`, `accumulated`), of reasoning and a tool call's start (`toolName`, `toolCallId`,
 *   `input`); `content_update` (a command's output chunks); `content_end` (the whole text, reasoning,
 *   or a tool's `output`, one entry per command with `success`); `usage` (one model call's counts,
 *   its `inputTokens` counting the cached ones, and the run's totals); `error`; `done`);
 * - `run_result`, its last line: `finishReason` (`completed`, `error`…), the run's `usage` and
 *   `text` (the answer, or the error's message).
 * A failed model call is an `error` agent event then a `run_result` with `finishReason: "error"`;
 * Cline then writes `{"type":"error",…}` to stderr and exits 1: the result is held until the end of
 * the stream (or the next line), so that it stays the run's last event. A SIGTERM kills a running
 * command, but the agent goes on to its `run_result` and then prints `run_aborted`
 * (`reason: "local_abort"`): that line drops the held result, and whoever stopped the run says how it ended.
 */

/** What one Cline run remembers between lines. */
export interface ClineState {
  /** `run_started` was emitted (on the first `agent_start`). */
  started: boolean;
  /** The run's error was emitted (an `error` agent event): the failed result adds none. */
  errorReported: boolean;
  /** The drafts of `run_result`, held until the next line or the end of the stream. */
  held: EventDraft[];
}

/** The `type`s of Cline's lines. */
const CLINE_TYPES = new Set(['hook_event', 'agent_event', 'run_result', 'run_aborted']);

/** `finishReason`s of an interrupted run (its abort). */
const ABORTED_REASONS = new Set(['aborted', 'cancelled', 'canceled']);

type Handler = (event: JsonObject, state: ClineState) => EventDraft[];

const AGENT_EVENTS: Record<string, Handler> = {
  content_start: contentStart,
  content_end: contentEnd,
  usage: usage,
  error: agentError,
};

/** The Cline profile. */
export const clineProfile: ProviderProfile<ClineState> = {
  id: 'cline',
  // Only Cline prints these types; each of its lines carries its own time in `ts`.
  detect: (line) => CLINE_TYPES.has(str(line.type) ?? '') && str(line.ts) !== null,
  newState: () => ({ started: false, errorReported: false, held: [] }),
  sessionId: (line) => (line.type === 'hook_event' ? str(line.taskId) : null),
  timestamp: (line) => str(line.ts),
  decode(line, state) {
    if (line.type === 'hook_event') return hookEvent(line, state);
    if (line.type === 'run_result') {
      // The line itself stays a `raw` event; its result comes with the next line or the end.
      state.held = runResult(line, state);
      return [];
    }
    const event = obj(line.event);
    const type = str(event?.type);
    const handler = event && type !== null && hasOwn(AGENT_EVENTS, type) ? AGENT_EVENTS[type] : undefined;
    return handler && event ? handler(event, state) : [];
  },
  release(next, state) {
    const held = state.held;
    state.held = [];
    return next?.type === 'run_aborted' ? [] : held;
  },
};

/** The first `agent_start` starts the run; the other hook events repeat what the agent events say. */
function hookEvent(line: JsonObject, state: ClineState): EventDraft[] {
  if (line.hookEventName !== 'agent_start' || state.started) return [];
  state.started = true;
  return [
    { kind: 'run_started', payload: { provider_session_id: str(line.taskId), cwd: null, metadata: { agent_id: line.agentId ?? null } } },
  ];
}

/** A piece of text or reasoning as it streams, or a tool call's start. */
function contentStart(event: JsonObject): EventDraft[] {
  if (event.contentType === 'text') return [{ kind: 'assistant_delta', payload: { content: str(event.text) ?? '', index: null } }];
  // Reasoning comes only here before the answer (its `content_end` repeats it after the text's).
  if (event.contentType === 'reasoning') {
    return [
      {
        kind: 'thinking',
        payload: { content: str(event.reasoning) ?? '', signature: null, metadata: { delta: true, redacted: event.redacted ?? null } },
      },
    ];
  }
  if (event.contentType === 'tool') {
    return [
      { kind: 'tool_use', payload: { tool_name: str(event.toolName), tool_call_id: str(event.toolCallId), input: obj(event.input) ?? {} } },
    ];
  }
  return [];
}

/** The whole text, or a tool's output (one entry per command: `run_commands` takes a list). */
function contentEnd(event: JsonObject): EventDraft[] {
  if (event.contentType === 'text')
    return [
      { kind: 'assistant_message', payload: { content: [{ type: 'text', text: str(event.text) ?? '' }], model: null, metadata: {} } },
    ];
  if (event.contentType !== 'tool') return [];
  const outputs = arr(event.output).map((entry) => obj(entry) ?? {});
  const text = outputs.map((entry) => str(entry.result) ?? str(entry.error) ?? '').join('\n');
  const failed = outputs.some((entry) => entry.success === false) || str(event.error) !== null;
  return [
    {
      kind: 'tool_result',
      payload: {
        tool_call_id: str(event.toolCallId),
        content: outputs.length > 0 ? text : (str(event.error) ?? ''),
        is_error: failed,
        metadata: { tool_name: event.toolName ?? null, output: event.output ?? null, duration_ms: event.durationMs ?? null },
      },
    },
  ];
}

/** One model call's counts (a delta); its `inputTokens` already count the cached ones. */
function usage(event: JsonObject): EventDraft[] {
  const cost = num(event.totalCost);
  return [
    usageDraft(
      {
        input_tokens: event.inputTokens,
        output_tokens: event.outputTokens,
        cache_read_input_tokens: event.cacheReadTokens,
        cache_write_input_tokens: event.cacheWriteTokens,
        // Cline prices only the models it knows: an unknown one costs 0 there, which is no price.
        cost_usd: cost !== null && cost > 0 ? cost : null,
      },
      'delta',
      { native_usage: event },
    ),
  ];
}

/** The agent's failure (a failed model call): its message is the API's. */
function agentError(event: JsonObject, state: ClineState): EventDraft[] {
  const error = obj(event.error);
  const text = str(error?.message) ?? 'the agent failed';
  const api = readApiError(text);
  state.errorReported = event.recoverable !== true;
  const metadata = { ...api.metadata, error_class: event.errorClass ?? null, recoverable: event.recoverable ?? null };
  return [errorDraft(api.message, event.recoverable === true ? 'warning' : 'error', api.code, metadata)];
}

/** The run's last line: how it ended, its answer and its total usage. */
function runResult(line: JsonObject, state: ClineState): EventDraft[] {
  const reason = str(line.finishReason);
  const metadata: JsonObject = {
    usage: line.aggregateUsage ?? line.usage ?? null,
    iterations: line.iterations ?? null,
    model: line.model ?? null,
  };
  if (reason !== null && ABORTED_REASONS.has(reason)) {
    return [{ kind: 'result', payload: { status: 'aborted', stop_reason: reason, output: null, object: null, metadata } }];
  }
  const failed = reason !== 'completed';
  const text = str(line.text);
  return finishDrafts({
    failed,
    output: text,
    errorReported: state.errorReported,
    errorMessage: text ?? `the run ended: ${String(reason)}`,
    errorMetadata: { native_code: reason },
    stop_reason: reason,
    metadata,
  });
}
