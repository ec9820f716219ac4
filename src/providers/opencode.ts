import { hasOwn, type JsonObject } from '../schema/json';
import { costDraft, errorDraft, finishDrafts, num, obj, str, type Outcome } from './drafts';
import type { EventDraft, ProviderProfile } from './profile';

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

/** Finish reasons that end the run without a whole answer. */
const FAILED_REASONS = new Set(['error', 'length', 'content-filter']);

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
  done: (line, _part, state) => (state.finished ? [] : finish(state, { failed: false, stop_reason: str(line.reason), metadata: { rejected: line.rejected ?? null } })),
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
  if (state.started) return [];
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
  const drafts: EventDraft[] = [{ kind: 'tool_use', payload: { tool_name: str(part.tool), tool_call_id: callId, input: obj(state.input) ?? {} } }];
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

/** Each step reports its own tokens and cost (not a running total); a non-continuing reason ends the run. */
function stepFinish(_line: JsonObject, part: JsonObject, state: OpencodeState): EventDraft[] {
  const drafts: EventDraft[] = [];
  const tokens = obj(part.tokens);
  if (tokens || num(part.cost) !== null) {
    const cache = obj(tokens?.cache);
    drafts.push(
      costDraft(
        { input_tokens: tokens?.input, output_tokens: tokens?.output, total_tokens: tokens?.total, cost_usd: part.cost },
        { reasoning_tokens: tokens?.reasoning ?? null, cache_read_tokens: cache?.read ?? null, cache_write_tokens: cache?.write ?? null },
      ),
    );
  }
  const reason = str(part.reason);
  if (reason === null || CONTINUING_REASONS.has(reason) || state.finished) return drafts;
  const failed = FAILED_REASONS.has(reason);
  const metadata = { message_id: part.messageID ?? null };
  return [...drafts, ...finish(state, { failed, errorMessage: `the model stopped: ${reason}`, errorCode: reason, stop_reason: reason, metadata })];
}

/**
 * A `session.error` ends the run (OpenCode stops the loop and the CLI exits, with code 0 in
 * v1.14.25 and 1 later), so the first one is the run's failure; v1.14.50 prints a second,
 * generic one for the same failure, which stays a plain `error`.
 */
function errorDrafts(line: JsonObject, _part: JsonObject, state: OpencodeState): EventDraft[] {
  const error = obj(line.error);
  const message = str(obj(error?.data)?.message) ?? str(error?.message) ?? str(line.error) ?? 'OpenCode reported an error';
  const code = str(error?.name) ?? str(error?.type);
  if (state.finished) return [errorDraft(message, 'error', code)];
  return finish(state, { failed: true, errorMessage: message, errorCode: code });
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
