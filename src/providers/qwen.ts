import type { JsonObject } from '../schema/json';
import { claudeProfile, isQwenInit, type ClaudeState } from './claude';
import { arr, errorDraft, obj, str } from './drafts';
import { readApiError } from './error-codes';
import type { EventDraft, ProviderProfile } from './profile';
import { usageDraft } from './usage';

/*
 * Qwen Code, `qwen -p … -o stream-json` (checked against captures of Qwen Code 0.15.10): Claude
 * Code's stream-json lines (system/init, assistant, user, result), so Claude's mapping applies.
 * What tells it apart is its init line's `qwen_code_version`. What differs: its usage follows
 * OpenAI's convention (`input_tokens` already counts the cached ones), and an API failure is an
 * assistant message `[API Error: 400 …]` followed by a `success` result.
 */

export interface QwenState extends ClaudeState {
  /** The turn's answer was an API error: its result is a failure. */
  apiError: boolean;
}

/** The Qwen Code profile: Claude's mapping under Qwen's id, with Qwen's usage and API errors. */
export const qwenProfile: ProviderProfile<QwenState> = {
  ...(claudeProfile as ProviderProfile<QwenState>),
  id: 'qwen',
  detect: isQwenInit,
  newState: () => ({ ...claudeProfile.newState(), apiError: false }),
  decode(line, state) {
    if (line.type === 'assistant') {
      const error = apiErrorText(line);
      if (error !== null) {
        state.apiError = true;
        // "400 scripted invalid request": the HTTP status, then the API's message.
        const status = /^(\d{3})\s/.exec(error);
        const { message, code, metadata } = readApiError(error, { status: status ? Number(status[1]) : null });
        return [errorDraft(message, 'error', code, metadata)];
      }
    }
    const drafts = claudeProfile.decode(line, state);
    return line.type === 'result' ? result(line, drafts, state) : drafts;
  },
};

/** The text of an assistant message that is only Qwen's `[API Error: …]`, unwrapped; else null. */
function apiErrorText(line: JsonObject): string | null {
  const blocks = arr(obj(line.message)?.content);
  const text = blocks.length === 1 ? str(obj(blocks[0])?.text) : null;
  const match = text === null ? null : /^\[API Error: ([\s\S]*)\]$/.exec(text.trim());
  return match ? match[1] : null;
}

/** Qwen's usage instead of Claude's reading of it, and a result that fails after an API error. */
function result(line: JsonObject, drafts: EventDraft[], state: QwenState): EventDraft[] {
  const failed = state.apiError;
  state.apiError = false;
  const out: EventDraft[] = [];
  const usage = obj(line.usage);
  // The run's usage: all input (cache included), as Qwen counts it; Qwen reports no price.
  if (usage)
    out.push(
      usageDraft(
        { input_tokens: usage.input_tokens, output_tokens: usage.output_tokens, cache_read_input_tokens: usage.cache_read_input_tokens },
        'cumulative',
        { native_usage: usage },
      ),
    );
  for (const draft of drafts) {
    if (draft.kind === 'cost_update') continue;
    out.push(failed && draft.kind === 'result' ? { kind: 'result', payload: { ...draft.payload, status: 'failed', output: null } } : draft);
  }
  return out;
}
