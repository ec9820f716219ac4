import type { JsonObject } from '../schema/json';
import { anthropicUsage, claudeProfile, isAmpThreadId, type ClaudeState } from './claude';
import { obj, str } from './drafts';
import type { EventDraft, ProviderProfile } from './profile';
import { usageDraft } from './usage';

/*
 * Amp, `amp -x "…" --stream-json`: "Claude Code compatible stream JSON" (ampcode.com manual).
 * Its lines are Claude's system/init, user, assistant and result lines, thinner (no uuid,
 * no model, no cost), so Claude's mapping applies unchanged. What tells them apart is the
 * session id: Amp's thread ids read `T-<uuid>`, Claude's are bare UUIDs.
 */

/** The line types Amp prints (ampcode.com manual and public captures); every one carries the thread id. */
const AMP_TYPES = new Set(['system', 'user', 'assistant', 'result']);

/** The Amp profile: Claude's mapping under Amp's own id, recognised by its `T-` thread ids. */
export const ampProfile: ProviderProfile<ClaudeState> = {
  ...claudeProfile,
  id: 'amp',
  detect: (line) => AMP_TYPES.has(str(line.type) ?? '') && isAmpThreadId(line.session_id),
  decode(line, state) {
    const drafts = claudeProfile.decode(line, state);
    return line.type === 'assistant' ? [...drafts, ...messageCost(line)] : drafts;
  },
};

/**
 * Amp's result line has no usage or cost, but each assistant line carries its model call's
 * final usage (Claude's carry a placeholder from message_start instead, so Claude takes
 * its totals from the result): one cost_update per assistant line, a delta without a price.
 */
function messageCost(line: JsonObject): EventDraft[] {
  const usage = obj(obj(line.message)?.usage);
  if (!usage) return [];
  return [usageDraft(anthropicUsage(usage), 'delta', { native_usage: usage })];
}
