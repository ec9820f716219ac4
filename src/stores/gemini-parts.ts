import { arr, num, obj, str } from '../providers/drafts';
import type { EventDraft } from '../providers/profile';
import { usageDraft } from '../providers/usage';
import type { JsonObject, JsonValue } from '../schema/json';

/*
 * Gemini's `Content` parts (`{text}`, `{text, thought: true}`, `{functionCall}`,
 * `{functionResponse}`), as Gemini CLI stores a user message (and a tool call's `result`) and its
 * fork Qwen Code stores every message (`message.parts`). One home for reading them, for both
 * stored formats (gemini-chat.ts, qwen-chat.ts).
 */

/** The text of a message's parts (or its plain string content), thoughts left out. */
export function partsText(content: JsonValue | undefined): string {
  if (typeof content === 'string') return content;
  return arr(content)
    .map((part) => {
      const object = obj(part);
      return object && object.thought !== true ? (str(object.text) ?? '') : '';
    })
    .join('');
}

/** The thoughts among the parts (`thought: true`), as text. */
export function thoughtText(content: JsonValue | undefined): string {
  return arr(content)
    .map((part) => (obj(part)?.thought === true ? (str(obj(part)?.text) ?? '') : ''))
    .join('');
}

/** The parts that are of one kind (`functionCall`, `functionResponse`), unwrapped. */
export function partsOf(content: JsonValue | undefined, key: 'functionCall' | 'functionResponse'): JsonObject[] {
  return arr(content).flatMap((part) => {
    const inner = obj(obj(part)?.[key]);
    return inner ? [inner] : [];
  });
}

/** A `functionCall` part as `tool_use`. */
export function functionCallDraft(call: JsonObject, metadata: JsonObject = {}): EventDraft {
  return { kind: 'tool_use', payload: { tool_name: str(call.name), tool_call_id: str(call.id), input: obj(call.args) ?? {}, metadata } };
}

/**
 * A `functionResponse` part as `tool_result`: the tool's `output` as the model got it (else its
 * `error`, else the whole response); `failed` where the store records the call's status.
 */
export function functionResponseDraft(response: JsonObject, failed: boolean, metadata: JsonObject = {}): EventDraft {
  const body = obj(response.response);
  const error = body?.error;
  const content = body ? (body.output ?? (typeof error === 'string' ? error : (obj(error)?.message ?? null)) ?? body) : null;
  return {
    kind: 'tool_result',
    payload: { tool_call_id: str(response.id), content, is_error: failed || (error !== undefined && error !== null), metadata },
  };
}

/**
 * One model request's usage, Gemini's counts (`usageMetadata`'s, or Gemini CLI's `tokens`) in the
 * convention: the prompt count already holds the cached tokens; thoughts are output. Each stored
 * message carries its own request's usage, so the updates are `delta`s.
 */
export function geminiUsageDraft(
  counts: { prompt: unknown; candidates: unknown; cached: unknown; thoughts: unknown },
  native: JsonObject,
): EventDraft {
  const thoughts = num(counts.thoughts) ?? 0;
  return usageDraft(
    {
      input_tokens: counts.prompt,
      output_tokens: (num(counts.candidates) ?? 0) + thoughts,
      cache_read_input_tokens: counts.cached,
      reasoning_output_tokens: thoughts,
    },
    'delta',
    { native_usage: native },
  );
}
