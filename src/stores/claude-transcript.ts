import { anthropicUsage, claudeProfile, type ClaudeState } from '../providers/claude';
import { num, obj, str } from '../providers/drafts';
import type { EventDraft, ProviderProfile } from '../providers/profile';
import { usageDraft } from '../providers/usage';
import type { JsonObject } from '../schema/json';
import { noteTime, titleOf, type StoredFormat, type StoredSummary } from './stored-format';

/*
 * Claude Code's transcript, `<config>/projects/<cwd slug>/<session id>.jsonl` (read from stores of
 * 2.1.328). Its `user` and `assistant` lines are the stream-json lines with more keys (`parentUuid`,
 * `isSidechain`, `sessionId` in camelCase, `cwd`, `version`, `gitBranch`), so the live profile reads
 * them; the rest is the transcript's own bookkeeping (`summary`, `queue-operation`, `attachment`,
 * `last-prompt`, `api-request*`, `file-history-snapshot`, the `compact_boundary` system line,
 * `cost-state`…), kept as `raw`.
 *
 * Usage is each API response's `message.usage`, one `delta` per message. The transcript writes one
 * line per content block, each repeating its message's usage: a message is counted once, on its first
 * line, by message id and request id (as ccusage counts it). `cost-state`, the process's running
 * total, is not usage here: it would count the messages a second time, and it says neither when nor
 * by which model each part was spent (the runner still reads it for a resume's baseline).
 */

interface TranscriptState extends ClaudeState {
  /** The transcript has no init line: the first message line stands for it. */
  started: boolean;
  /** The messages whose usage was counted, by message id and request id. */
  counted: Set<string>;
}

/** Message lines the CLI wrote for itself (command caveats, local command output): not the user's words. */
function isMeta(line: JsonObject): boolean {
  return line.isMeta === true;
}

/** What a transcript line says about where it sits in the conversation, added to each of its events. */
function treeMetadata(line: JsonObject): JsonObject {
  const metadata: JsonObject = {};
  if (typeof line.parentUuid === 'string') metadata.parent_uuid = line.parentUuid;
  // A subagent's conversation (the Task tool's), interleaved with the main one.
  if (line.isSidechain === true) metadata.sidechain = true;
  if (line.isCompactSummary === true) metadata.compact_summary = true;
  if (isMeta(line)) metadata.meta = true;
  return metadata;
}

function withTree(drafts: EventDraft[], line: JsonObject): EventDraft[] {
  const tree = treeMetadata(line);
  if (Object.keys(tree).length === 0) return drafts;
  for (const draft of drafts) {
    const payload = draft.payload as { metadata?: JsonObject };
    payload.metadata = { ...(payload.metadata ?? {}), ...tree };
  }
  return drafts;
}

/** The session's start, from its first message line (the stream's `system` init line is not stored). */
function runStarted(line: JsonObject): EventDraft {
  const metadata: JsonObject = {};
  if (typeof line.version === 'string') metadata.version = line.version;
  if (typeof line.gitBranch === 'string') metadata.git_branch = line.gitBranch;
  return { kind: 'run_started', payload: { provider_session_id: str(line.sessionId), cwd: str(line.cwd), metadata } };
}

/**
 * An assistant line's usage, the first time its message is seen (none for a later block of it, nor
 * for a message with no usage). A line's `costUSD` (older versions wrote one) is its price.
 */
function messageUsage(line: JsonObject, state: TranscriptState): EventDraft[] {
  const message = obj(line.message);
  const usage = obj(message?.usage);
  if (!message || !usage) return [];
  const messageId = str(message.id);
  const requestId = str(line.requestId);
  if (messageId !== null) {
    const key = `${messageId}\u0000${requestId ?? ''}`;
    if (state.counted.has(key)) return [];
    state.counted.add(key);
  }
  const figures = anthropicUsage(usage);
  if (figures.input_tokens === 0 && figures.output_tokens === 0) return [];
  const metadata: JsonObject = { native_usage: usage, model: str(message.model), message_id: messageId, request_id: requestId };
  return [usageDraft({ ...figures, cost_usd: num(line.costUSD) }, 'delta', metadata)];
}

const profile: ProviderProfile<TranscriptState> = {
  id: 'claude',
  detect: (line) => typeof line.sessionId === 'string' && 'parentUuid' in line,
  newState: () => ({ ...claudeProfile.newState(), started: false, counted: new Set() }),
  sessionId: (line) => str(line.sessionId) ?? str(line.session_id),
  timestamp: (line) => str(line.timestamp),
  decode(line, state) {
    switch (line.type) {
      case 'user':
      case 'assistant': {
        // The transcript names the tool's structured output in camelCase; the live lines in snake_case.
        const live =
          line.toolUseResult !== undefined && line.tool_use_result === undefined ? { ...line, tool_use_result: line.toolUseResult } : line;
        const drafts = withTree(
          [...claudeProfile.decode(live, state), ...(line.type === 'assistant' ? messageUsage(line, state) : [])],
          line,
        );
        if (state.started || str(line.sessionId) === null) return drafts;
        state.started = true;
        return [runStarted(line), ...drafts];
      }
      case 'system':
        return withTree(claudeProfile.decode(line, state), line);
      default:
        return [];
    }
  },
};

/** The first text of a user line, unless it is the CLI's own (meta, a tool result, a subagent's, a compaction summary). */
function promptText(line: JsonObject): string | null {
  if (isMeta(line) || line.isSidechain === true || line.isCompactSummary === true) return null;
  const content = obj(line.message)?.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  for (const block of content) {
    const text = obj(block)?.type === 'text' ? str(obj(block)?.text) : null;
    if (text !== null) return text;
  }
  return null;
}

function summarize(line: JsonObject, into: StoredSummary): void {
  noteTime(line.timestamp, into);
  into.id ??= str(line.sessionId);
  into.cwd ??= str(line.cwd);
  switch (line.type) {
    case 'summary':
    case 'custom-title':
    case 'ai-title': {
      // The CLI's own title wins over the first prompt; a later one over an earlier one.
      const title = str(line.summary) ?? str(line.customTitle) ?? str(line.aiTitle) ?? str(line.title);
      if (title !== null) into.title = titleOf(title);
      break;
    }
    case 'user': {
      const text = into.title === null ? promptText(line) : null;
      if (text !== null) into.title = titleOf(text);
      break;
    }
    case 'assistant': {
      const model = str(obj(line.message)?.model);
      // `<synthetic>`: a message the CLI made up (an API error), not a model's.
      if (model !== null && model !== '<synthetic>') into.model = model;
      break;
    }
  }
}

/** Claude Code's transcript format. */
export const claudeTranscript: StoredFormat = { profile, summarize };
