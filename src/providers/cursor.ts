import { hasOwn, type JsonObject, type JsonValue } from '../schema/json';
import { arr, errorDraft, finishDrafts, num, obj, str } from './drafts';
import { readApiError } from './error-codes';
import type { EventDraft, ProviderProfile } from './profile';
import { usageDraft } from './usage';

/*
 * Cursor CLI: `cursor-agent -p --output-format stream-json` (also installed as `agent`),
 * with or without `--stream-partial-output`. Its lines look like Claude Code's at first
 * sight (system/init, user, assistant, result) but differ where it matters: thinking and
 * tool calls are top-level `thinking` and `tool_call` lines, a tool is named by the key of
 * its `tool_call` object (`shellToolCall`, `readToolCall`…), usage is camelCase and there
 * is no cost. Cursor lines never carry Claude's `uuid` or `parent_tool_use_id`.
 */

/** What one Cursor run remembers between lines. */
export interface CursorState {
  /** The model the init line announced (a display name such as "Auto"); Cursor's assistant lines name none. */
  model: string | null;
  /** Assistant text streamed as deltas since the last complete message. */
  deltaText: string;
  /** Thinking text streamed since the last `thinking`/`completed`. */
  thinkingText: string;
  /** Call ids whose `tool_use` was already emitted. */
  startedCalls: Set<string>;
}

/** Lines only Cursor prints (Claude Code, Codex, Gemini and OpenCode have no such `type`). */
const CURSOR_ONLY_TYPES = new Set(['tool_call', 'thinking', 'connection', 'retry', 'interaction_query']);

/**
 * Tool outcomes that are not failures. A completed tool's `result` holds one outcome key:
 * `success`, or `rejected`, `error`, `failure`, `timeout`, `permissionDenied`,
 * `fileNotFound`… (the CLI's protobuf oneof). Anything not listed here, and not named
 * `…Success` (`startSuccess`, `saveSuccess`), counts as an error.
 */
const NON_FAILURE_OUTCOMES = new Set(['success', 'complete', 'registered', 'approved', 'async', 'stillRunning']);

type Handler = (line: JsonObject, state: CursorState) => EventDraft[];

const HANDLERS: Record<string, Handler> = {
  system: (line, state) => (str(line.subtype) === 'init' ? [runStarted(line, state)] : []),
  user: (line) => [{ kind: 'user_message', payload: { content: contentBlocks(line) } }],
  assistant: assistantDrafts,
  thinking: thinkingDrafts,
  tool_call: toolCallDrafts,
  interaction_query: interactionDrafts,
  connection: (line) =>
    // The CLI retries a dropped stream by itself; the run goes on, so only a warning.
    str(line.subtype) === 'reconnecting'
      ? [errorDraft(`reconnecting (attempt ${String(num(line.attempt) ?? '?')})`, 'warning', 'retry')]
      : [],
  // Not in the public captures (failures went to stderr there); parsers of newer CLIs list it.
  error: (line) => {
    const error = readApiError(messageOf(line) ?? 'the Cursor CLI reported an error', { type: str(line.subtype) });
    return [errorDraft(error.message, 'error', error.code, error.metadata)];
  },
  result: resultDrafts,
};

/** The Cursor CLI profile. */
export const cursorProfile: ProviderProfile<CursorState> = {
  id: 'cursor',
  detect: isCursorLine,
  newState: () => ({ model: null, deltaText: '', thinkingText: '', startedCalls: new Set() }),
  sessionId: (line) => str(line.session_id),
  // Only streamed lines (deltas, tool calls, retries) carry `timestamp_ms`.
  timestamp: (line) => num(line.timestamp_ms),
  decode(line, state) {
    const type = str(line.type);
    const handler = type !== null && hasOwn(HANDLERS, type) ? HANDLERS[type] : undefined;
    // Any other line closes the streamed assistant text, so the next deltas start a new message.
    if (type !== 'assistant' && type !== 'thinking') state.deltaText = '';
    return handler ? handler(line, state) : [];
  },
};

/**
 * True for a Cursor line. Claude Code lines carry `uuid`/`parent_tool_use_id` and its init
 * lists `tools`; Cursor's init has neither but names `apiKeySource`, and its result has a
 * `request_id` and camelCase usage instead of `total_cost_usd`.
 */
function isCursorLine(line: JsonObject): boolean {
  const type = str(line.type);
  if (type === null || hasOwn(line, 'uuid') || hasOwn(line, 'parent_tool_use_id')) return false;
  if (CURSOR_ONLY_TYPES.has(type)) return true;
  switch (type) {
    case 'system':
      return str(line.subtype) === 'init' && str(line.apiKeySource) !== null && !hasOwn(line, 'tools') && !hasOwn(line, 'mcp_servers');
    case 'result':
      return !hasOwn(line, 'total_cost_usd') && (str(line.request_id) !== null || num(obj(line.usage)?.inputTokens) !== null);
    case 'assistant':
    case 'user':
      return hasOwn(line, 'timestamp_ms') || hasOwn(line, 'model_call_id');
    default:
      return false;
  }
}

function runStarted(line: JsonObject, state: CursorState): EventDraft {
  state.model = str(line.model);
  return {
    kind: 'run_started',
    payload: {
      provider_session_id: str(line.session_id),
      cwd: str(line.cwd),
      metadata: { model: state.model, apiKeySource: line.apiKeySource ?? null, permissionMode: line.permissionMode ?? null },
    },
  };
}

/**
 * With `--stream-partial-output` every token is an `assistant` line of the same shape as a
 * whole message, and the whole message follows the tokens. Token lines carry `timestamp_ms`
 * and no `model_call_id`; the closing line either carries `model_call_id` or no time, and
 * its text is exactly the tokens joined — that equality is the decisive test.
 */
function assistantDrafts(line: JsonObject, state: CursorState): EventDraft[] {
  const content = contentBlocks(line);
  const text = textOf(content);
  const closesDeltas = state.deltaText !== '' && text === state.deltaText;
  const isDelta = !closesDeltas && hasOwn(line, 'timestamp_ms') && !hasOwn(line, 'model_call_id');
  if (isDelta) {
    state.deltaText += text;
    return [{ kind: 'assistant_delta', payload: { content: text } }];
  }
  state.deltaText = '';
  return [{ kind: 'assistant_message', payload: { content, model: state.model } }];
}

/** Thinking only ever arrives as deltas; `completed` closes it, and then carries the whole text. */
function thinkingDrafts(line: JsonObject, state: CursorState): EventDraft[] {
  const subtype = str(line.subtype);
  if (subtype === 'delta') {
    const text = str(line.text) ?? '';
    state.thinkingText += text;
    return [{ kind: 'thinking', payload: { content: text, metadata: { delta: true } } }];
  }
  if (subtype !== 'completed' || state.thinkingText === '') return [];
  const whole = state.thinkingText;
  state.thinkingText = '';
  return [{ kind: 'thinking', payload: { content: whole } }];
}

/** `started` is the `tool_use`; `completed` is the `tool_result` (and the `tool_use` too when no start was seen). */
function toolCallDrafts(line: JsonObject, state: CursorState): EventDraft[] {
  const subtype = str(line.subtype);
  if (subtype !== 'started' && subtype !== 'completed') return [];
  const call = toolCallOf(line);
  const drafts: EventDraft[] = [];
  const known = call.id !== null && state.startedCalls.has(call.id);
  if (subtype === 'started' || !known) {
    if (call.id !== null) state.startedCalls.add(call.id);
    drafts.push({ kind: 'tool_use', payload: { tool_name: call.name, tool_call_id: call.id, input: call.input } });
  }
  if (subtype === 'completed') {
    if (call.id !== null) state.startedCalls.delete(call.id);
    drafts.push(toolResult(call));
  }
  return drafts;
}

/** One `tool_call` line read: the tool is the key of the object-valued entry (`shellToolCall`, or `function`). */
interface ToolCall {
  name: string | null;
  id: string | null;
  input: JsonObject;
  result: JsonObject | null;
}

function toolCallOf(line: JsonObject): ToolCall {
  const wrapper = obj(line.tool_call) ?? {};
  // Recent CLIs put `toolCallId`, `startedAtMs`, `hookAdditionalContexts` beside the tool key.
  const key = Object.keys(wrapper).find((name) => obj(wrapper[name]) !== null && (name.endsWith('ToolCall') || name === 'function'));
  const body = key === undefined ? {} : (obj(wrapper[key]) ?? {});
  const input = key === 'function' ? parseArguments(body.arguments) : (obj(body.args) ?? {});
  const name = key === 'function' ? (str(body.name) ?? key) : (key ?? null);
  const id = str(line.call_id) || str(wrapper.toolCallId) || str(obj(body.args)?.toolCallId) || null;
  return { name, id, input, result: obj(body.result) };
}

/** The generic `function` tool call carries its arguments as JSON text. */
function parseArguments(value: JsonValue | undefined): JsonObject {
  const text = str(value);
  if (text === null) return obj(value) ?? {};
  try {
    return obj(JSON.parse(text)) ?? { arguments: text };
  } catch {
    return { arguments: text };
  }
}

/** The outcome's own object is the content; a failure outcome or a non-zero `exitCode` is an error. */
function toolResult(call: ToolCall): EventDraft {
  const result = call.result;
  const outcome = result === null ? undefined : Object.keys(result).find((key) => obj(result[key]) !== null);
  if (result === null || outcome === undefined) {
    return { kind: 'tool_result', payload: { tool_call_id: call.id, content: result, is_error: false } };
  }
  const body = obj(result[outcome]) ?? {};
  const exitCode = num(body.exitCode);
  const failed = !(NON_FAILURE_OUTCOMES.has(outcome) || outcome.endsWith('Success')) || (exitCode !== null && exitCode !== 0);
  return { kind: 'tool_result', payload: { tool_call_id: call.id, content: body, is_error: failed, metadata: { outcome } } };
}

/** `interaction_query` asks the caller something (a permission, a plan in `--plan` mode) and records the answer. */
function interactionDrafts(line: JsonObject): EventDraft[] {
  const subtype = str(line.subtype);
  if (subtype === 'request') {
    const query = obj(line.query) ?? {};
    return [{ kind: 'approval_requested', payload: { approval_id: idText(query.id), subject: str(line.query_type), details: query } }];
  }
  if (subtype === 'response') {
    const response = line.response ?? null;
    return [
      {
        kind: 'approval_resolved',
        payload: { approval_id: idText(obj(response)?.id), decision: response, metadata: { query_type: line.query_type ?? null } },
      },
    ];
  }
  return [];
}

/**
 * `result` ends the run: its usage (no cost: Cursor reports none), then the outcome. Its
 * `inputTokens` are taken to leave the cache reads and writes out, as the Anthropic-style split it
 * reports beside them suggests (Cursor documents neither).
 */
function resultDrafts(line: JsonObject): EventDraft[] {
  const drafts: EventDraft[] = [];
  const usage = obj(line.usage);
  if (usage) {
    const read = num(usage.cacheReadTokens) ?? 0;
    const write = num(usage.cacheWriteTokens) ?? 0;
    drafts.push(
      usageDraft(
        {
          input_tokens: (num(usage.inputTokens) ?? 0) + read + write,
          output_tokens: usage.outputTokens,
          cache_read_input_tokens: read,
          cache_write_input_tokens: write,
        },
        'cumulative',
        { native_usage: usage },
      ),
    );
  }
  const subtype = str(line.subtype);
  // Any sign of failure: `is_error: true`, or a subtype other than success.
  const failed = line.is_error === true || (subtype !== null && subtype !== 'success');
  const output = line.result ?? null;
  drafts.push(
    ...finishDrafts({
      failed,
      errorMessage: messageOf(line) ?? str(output),
      errorCode: 'execution',
      errorMetadata: subtype === null ? {} : { native_code: subtype },
      output,
      metadata: {
        subtype,
        duration_ms: line.duration_ms ?? null,
        duration_api_ms: line.duration_api_ms ?? null,
        request_id: line.request_id ?? null,
      },
    }),
  );
  return drafts;
}

/** A line's `message.content` blocks; a plain string becomes one text block. */
function contentBlocks(line: JsonObject): JsonValue[] {
  const content = obj(line.message)?.content;
  const text = str(content);
  return text !== null ? [{ type: 'text', text }] : arr(content);
}

/** The text of the `text` blocks, joined. */
function textOf(blocks: JsonValue[]): string {
  return blocks.map((block) => (str(obj(block)?.type) === 'text' ? (str(obj(block)?.text) ?? '') : '')).join('');
}

/** A line's own error text: `error` as text or `{message}`, else `message`. */
function messageOf(line: JsonObject): string | null {
  return str(line.error) ?? str(obj(line.error)?.message) ?? str(line.message);
}

/** A query id (a number in the CLI's output) as text. */
function idText(value: JsonValue | undefined): string | null {
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : str(value);
}
