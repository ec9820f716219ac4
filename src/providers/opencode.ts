import { hasOwn, type JsonObject } from '../schema/json';
import { errorDraft, finishDrafts, num, obj, str, type Outcome } from './drafts';
import { readApiError, type ApiError, type ErrorCode } from './error-codes';
import type { EventDraft, ProviderProfile } from './profile';
import { usageDraft } from './usage';

/*
 * OpenCode: `opencode run --format json`. `run.ts` wraps each finished server part in
 * `{type, timestamp, sessionID, part}`: `step_start`, `text` (a whole text part), `reasoning`
 * (only with `--thinking`), `tool_use` (printed once, when the tool has completed or failed),
 * `step_finish` (per-step tokens and cost, and the model's finish reason), `error`
 * (`session.error`) and, in recent versions, a final `done`. There is no init line and,
 * before `done`, no end marker: the step that finishes for a reason other than `tool-calls`
 * ends the run, as OpenCode's own prompt loop decides.
 */

/** What one OpenCode run remembers between lines. */
export interface OpencodeState {
  /** The first `step_start` announced the run. */
  started: boolean;
  /** The run's `result` was emitted (a terminal step, an error, or `done`). */
  finished: boolean;
  /** Text parts of the current step: the final step's text is the run's output. */
  stepText: string[];
}

/** The `type`s `run --format json` prints. */
const OPENCODE_TYPES = new Set(['step_start', 'step_finish', 'text', 'reasoning', 'tool_use', 'error', 'done']);

/** Finish reasons after which OpenCode's loop runs another step (`session/prompt.ts`). */
const CONTINUING_REASONS = new Set(['tool-calls', 'unknown']);

/** Finish reasons that end the run without a whole answer, by their neutral error code. */
const FAILED_REASONS: ReadonlyMap<string, ErrorCode> = new Map([
  ['error', 'api_error'],
  ['length', 'max_tokens'],
  ['content-filter', 'refusal'],
]);

/** OpenCode's named errors (`session.error`'s `error.name`) that say more than their HTTP status would. */
const ERROR_NAMES: ReadonlyMap<string, ErrorCode> = new Map([
  ['ProviderAuthError', 'auth'],
  ['MessageOutputLengthError', 'max_tokens'],
  ['MessageAbortedError', 'aborted'],
]);

type Handler = (line: JsonObject, part: JsonObject, state: OpencodeState) => EventDraft[];

const HANDLERS: Record<string, Handler> = {
  step_start: stepStart,
  text: (_line, part, state) => {
    const text = str(part.text) ?? '';
    state.stepText.push(text);
    return [{ kind: 'assistant_message', payload: { content: [{ type: 'text', text }], metadata: partIds(part) } }];
  },
  reasoning: (_line, part) => [{ kind: 'thinking', payload: { content: str(part.text) ?? '', metadata: partIds(part) } }],
  tool_use: toolDrafts,
  step_finish: stepFinish,
  error: errorDrafts,
  done: (line, _part, state) =>
    state.finished ? [] : finish(state, { failed: false, stop_reason: str(line.reason), metadata: { rejected: line.rejected ?? null } }),
};

/** The OpenCode profile. */
export const opencodeProfile: ProviderProfile<OpencodeState> = {
  id: 'opencode',
  // Every line names its session in camelCase `sessionID`, which no other CLI here uses.
  detect: (line) => str(line.sessionID) !== null && OPENCODE_TYPES.has(str(line.type) ?? ''),
  newState: () => ({ started: false, finished: false, stepText: [] }),
  sessionId: (line) => str(line.sessionID) ?? str(obj(line.part)?.sessionID),
  // `timestamp` is the epoch ms at which `run` printed the line.
  timestamp: (line) => num(line.timestamp),
  decode(line, state) {
    const type = str(line.type);
    const handler = type !== null && hasOwn(HANDLERS, type) ? HANDLERS[type] : undefined;
    return handler ? handler(line, obj(line.part) ?? {}, state) : [];
  },
};

/** The first step announces the run (OpenCode prints no init line); later steps only reset the step text. */
function stepStart(line: JsonObject, part: JsonObject, state: OpencodeState): EventDraft[] {
  state.stepText = [];
  return state.started ? [] : announce(line, part, state);
}

/** The run's `run_started`, from its first line that names the session. */
function announce(line: JsonObject, part: JsonObject, state: OpencodeState): EventDraft[] {
  state.started = true;
  const provider_session_id = str(line.sessionID) ?? str(part.sessionID);
  return [{ kind: 'run_started', payload: { provider_session_id, metadata: { snapshot: part.snapshot ?? null } } }];
}

/**
 * `run` prints a tool part only once it has completed or failed, so one line gives both the
 * `tool_use` and its `tool_result`. A failed state, or a non-zero `metadata.exit` (bash), is an error.
 */
function toolDrafts(_line: JsonObject, part: JsonObject): EventDraft[] {
  const state = obj(part.state) ?? {};
  const callId = str(part.callID);
  const status = str(state.status);
  const drafts: EventDraft[] = [
    { kind: 'tool_use', payload: { tool_name: str(part.tool), tool_call_id: callId, input: obj(state.input) ?? {} } },
  ];
  if (status !== 'completed' && status !== 'error') return drafts;
  const exit = num(obj(state.metadata)?.exit);
  const content = status === 'error' ? (state.error ?? null) : (state.output ?? null);
  drafts.push({
    kind: 'tool_result',
    payload: {
      tool_call_id: callId,
      content,
      is_error: status === 'error' || (exit !== null && exit !== 0),
      metadata: { status, title: state.title ?? null },
    },
  });
  return drafts;
}

/**
 * Each step reports its own tokens and cost (not a running total: a delta); a non-continuing reason
 * ends the run. OpenCode's `input` leaves the cache out and its `output` the reasoning
 * (its total is input + output + reasoning + cache reads and writes).
 */
function stepFinish(_line: JsonObject, part: JsonObject, state: OpencodeState): EventDraft[] {
  const drafts: EventDraft[] = [];
  const tokens = obj(part.tokens);
  if (tokens || num(part.cost) !== null) {
    const cache = obj(tokens?.cache);
    const read = num(cache?.read) ?? 0;
    const write = num(cache?.write) ?? 0;
    const reasoning = num(tokens?.reasoning) ?? 0;
    drafts.push(
      usageDraft(
        {
          input_tokens: (num(tokens?.input) ?? 0) + read + write,
          output_tokens: (num(tokens?.output) ?? 0) + reasoning,
          cache_read_input_tokens: read,
          cache_write_input_tokens: write,
          reasoning_output_tokens: reasoning,
          cost_usd: part.cost,
        },
        'delta',
        { native_usage: tokens ?? {} },
      ),
    );
  }
  const reason = str(part.reason);
  if (reason === null || CONTINUING_REASONS.has(reason) || state.finished) return drafts;
  const code = FAILED_REASONS.get(reason);
  const metadata = { message_id: part.messageID ?? null };
  return [
    ...drafts,
    ...finish(state, {
      failed: code !== undefined,
      errorMessage: `the model stopped: ${reason}`,
      errorCode: code,
      errorMetadata: { native_code: reason },
      stop_reason: reason,
      metadata,
    }),
  ];
}

/**
 * A `session.error` ends the run (OpenCode stops the loop and the CLI exits, with code 0 in
 * v1.14.25 and 1 later), so the first one is the run's failure; v1.14.50 prints a second,
 * generic one for the same failure, which stays a plain `error`.
 */
function errorDrafts(line: JsonObject, part: JsonObject, state: OpencodeState): EventDraft[] {
  const error = sessionError(line);
  if (state.finished) return [errorDraft(error.message, 'error', error.code, error.metadata)];
  // A model call refused at once (an HTTP 400) fails before any step starts: the error is the run's first line.
  const started = state.started ? [] : announce(line, part, state);
  const failed = finish(state, { failed: true, errorMessage: error.message, errorCode: error.code, errorMetadata: error.metadata });
  return [...started, ...failed];
}

/** A `session.error`: `{name, data: {message, statusCode?, responseBody?}}`; an API error's body is read for its code. */
function sessionError(line: JsonObject): ApiError {
  const error = obj(line.error);
  const data = obj(error?.data);
  const name = str(error?.name) ?? str(error?.type);
  const message = str(data?.message) ?? str(error?.message) ?? str(line.error) ?? 'OpenCode reported an error';
  const read = readApiError(str(data?.responseBody) ?? message, {
    status: num(data?.statusCode),
    type: name === 'APIError' || name === 'UnknownError' ? null : name,
  });
  const named = name === null ? undefined : ERROR_NAMES.get(name);
  return { message, code: named ?? read.code, metadata: { ...read.metadata, ...(name === null ? {} : { native_code: name }) } };
}

/** The run's `result` (after its `error` on failure), with the final step's text as output. */
function finish(state: OpencodeState, outcome: Outcome): EventDraft[] {
  state.finished = true;
  const output = state.stepText.length > 0 ? state.stepText.join('') : null;
  return finishDrafts({ output, ...outcome });
}

/** The part and message ids of a part, to tie events back to OpenCode's session store. */
function partIds(part: JsonObject): JsonObject {
  return { part_id: part.id ?? null, message_id: part.messageID ?? null };
}
