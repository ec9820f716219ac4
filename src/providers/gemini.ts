import { hasOwn, type JsonObject } from '../schema/json';
import { errorDraft, finishDrafts, obj, str } from './drafts';
import { readApiError, type ApiError } from './error-codes';
import type { EventDraft, ProviderProfile } from './profile';
import { usageDraft } from './usage';

/*
 * Gemini CLI, `gemini -p … --output-format stream-json` (checked against 0.61.0 and the
 * JsonStreamEvent types in google-gemini/gemini-cli packages/core/src/output/types.ts).
 * Every line is `{type, timestamp, …}` with type init, message, tool_use, tool_result,
 * error or result; only `init` names the session (`session_id`).
 */

/** What a Gemini run carries from line to line. */
export interface GeminiState {
  /** The assistant text streamed since the last line that was not an assistant delta, or null. */
  text: string | null;
  /** The model `init` named (Gemini CLI says "auto" when it routes each turn itself). */
  model: string | null;
  /** An `error` line of severity error was seen: the run failed, whatever its `result` says, and has its error event. */
  failed: boolean;
  /** The text of the latest whole assistant message: the run's output, as Claude's and Codex's results carry it. */
  answer: string | null;
}

/** True for a streamed piece of assistant text. */
function isAssistantDelta(line: JsonObject | null): boolean {
  return line !== null && line.type === 'message' && line.role === 'assistant' && line.delta === true && typeof line.content === 'string';
}

/** One text block, the shape the other providers' message content takes. */
function textBlock(text: string): JsonObject {
  return { type: 'text', text };
}

function assistantMessage(text: string, state: GeminiState): EventDraft {
  state.answer = text;
  return { kind: 'assistant_message', payload: { content: [textBlock(text)], model: state.model } };
}

function decodeInit(line: JsonObject, state: GeminiState): EventDraft[] {
  state.model = str(line.model);
  const metadata: JsonObject = {};
  if (state.model !== null) metadata.model = state.model;
  return [{ kind: 'run_started', payload: { provider_session_id: str(line.session_id), metadata } }];
}

function decodeMessage(line: JsonObject, state: GeminiState): EventDraft[] {
  const content = str(line.content);
  if (content === null) return [];
  if (line.role === 'user') return [{ kind: 'user_message', payload: { content: [textBlock(content)] } }];
  if (line.role !== 'assistant') return [];
  // Gemini CLI streams the assistant's text only as `delta: true` pieces, cut anywhere (mid-word
  // too); the whole message is released once a line that is not a delta shows the text ended.
  if (line.delta === true) {
    state.text = (state.text ?? '') + content;
    return [{ kind: 'assistant_delta', payload: { content } }];
  }
  return [assistantMessage(content, state)];
}

function decodeToolUse(line: JsonObject): EventDraft[] {
  return [
    { kind: 'tool_use', payload: { tool_name: str(line.tool_name), tool_call_id: str(line.tool_id), input: obj(line.parameters) ?? {} } },
  ];
}

function decodeToolResult(line: JsonObject): EventDraft[] {
  const error = obj(line.error);
  // A failed tool carries `error: {type, message}`, and usually the same text as `output`.
  const content = str(line.output) ?? str(error?.message) ?? null;
  const metadata: JsonObject = {};
  if (error) metadata.error = error;
  return [
    {
      kind: 'tool_result',
      payload: { tool_call_id: str(line.tool_id), content, is_error: line.status === 'error' || error !== null, metadata },
    },
  ];
}

/**
 * The CLI prints severity "warning" (loop detected, blocked agent) or "error" (an invalid stream, the
 * turn limit). An error ends the run: the `result` after it says `"status":"success"` all the same
 * (Gemini CLI 0.61 on "Maximum session turns exceeded"), and is a failure here, as Claude's
 * `error_max_turns` is.
 */
function decodeError(line: JsonObject, state: GeminiState): EventDraft[] {
  const message = str(line.message);
  if (message === null) return [];
  if (line.severity === 'warning') return [errorDraft(message, 'warning', 'notice')];
  state.failed = true;
  if (/maximum session turns/i.test(message)) return [errorDraft(message, 'error', 'max_turns')];
  const error = apiError(message, null);
  return [errorDraft(error.message, 'error', error.body ? error.code : 'execution', error.metadata)];
}

/** An error text, with the API's JSON body read out of Gemini's `[API Error: {…}]` wrapper. */
function apiError(message: string, type: string | null): ApiError & { body: boolean } {
  // Gemini CLI names every API error type "unknown": the body's own status says more.
  const error = readApiError(message, { type: type === 'unknown' ? null : type });
  return { message: error.message, code: error.code, metadata: error.metadata, body: error.message !== message };
}

function decodeResult(line: JsonObject, state: GeminiState): EventDraft[] {
  const drafts: EventDraft[] = [];
  const stats = obj(line.stats);
  if (stats) {
    // `input_tokens` already counts the cached ones; Gemini CLI reports no price.
    drafts.push(
      usageDraft(
        { input_tokens: stats.input_tokens, output_tokens: stats.output_tokens, cache_read_input_tokens: stats.cached },
        'cumulative',
        { native_usage: stats },
      ),
    );
  }
  const error = obj(line.error);
  // Any sign of failure counts: a status other than "success", an error object, or an error line before.
  const failed = line.status !== 'success' || error !== null || state.failed;
  const metadata: JsonObject = {};
  if (line.status !== undefined) metadata.status = line.status;
  const reported = error ? apiError(str(error.message) ?? 'the run failed', str(error.type)) : null;
  drafts.push(
    ...finishDrafts({
      failed,
      errorReported: state.failed,
      errorMessage: reported?.message,
      errorCode: reported?.code ?? 'execution',
      errorMetadata: reported?.metadata,
      output: state.answer,
      metadata,
    }),
  );
  state.failed = false;
  state.answer = null;
  return drafts;
}

/** Native `type` → handler. */
const HANDLERS: Record<string, (line: JsonObject, state: GeminiState) => EventDraft[]> = {
  init: decodeInit,
  message: decodeMessage,
  tool_use: decodeToolUse,
  tool_result: decodeToolResult,
  error: decodeError,
  result: decodeResult,
};

/**
 * Recognises a Gemini line by fields no other provider prints together: Claude's init is
 * `system`/`init` and its result has `subtype`; OpenCode's `tool_use`/`error` lines carry
 * `part`/`error` objects rather than `tool_id`/`severity`.
 */
function detect(line: JsonObject): boolean {
  switch (line.type) {
    case 'init':
      return typeof line.session_id === 'string';
    case 'message':
      return (line.role === 'user' || line.role === 'assistant') && typeof line.content === 'string';
    case 'tool_use':
    case 'tool_result':
      return typeof line.tool_id === 'string';
    case 'error':
      return typeof line.message === 'string' && (line.severity === 'warning' || line.severity === 'error');
    case 'result':
      return (line.status === 'success' || line.status === 'error') && !('subtype' in line);
    default:
      return false;
  }
}

/** Gemini CLI's stream-json output. */
export const geminiProfile: ProviderProfile<GeminiState> = {
  id: 'gemini',
  detect,
  newState: () => ({ text: null, model: null, failed: false, answer: null }),
  sessionId: (line) => str(line.session_id),
  timestamp: (line) => str(line.timestamp),
  decode(line, state) {
    const handler = typeof line.type === 'string' && hasOwn(HANDLERS, line.type) ? HANDLERS[line.type] : undefined;
    return handler ? handler(line, state) : [];
  },
  release(next, state) {
    if (state.text === null || isAssistantDelta(next)) return [];
    const text = state.text;
    state.text = null;
    return [assistantMessage(text, state)];
  },
};
