import { obj, str } from '../providers/drafts';
import type { EventDraft, ProviderProfile } from '../providers/profile';
import type { JsonObject } from '../schema/json';
import { functionCallDraft, functionResponseDraft, geminiUsageDraft, partsOf, partsText, thoughtText } from './gemini-parts';
import { noteTime, titleOf, type StoredFormat, type StoredSummary } from './stored-format';

/*
 * Qwen Code's chats, `<QWEN_RUNTIME_DIR or QWEN_HOME or ~/.qwen>/projects/<cwd slug>/chats/<session id>.jsonl`
 * (read from stores of 0.15.10; a `--resume` appends to the same file). Each line a record
 * `{uuid, parentUuid, sessionId, timestamp, type, cwd, version, …}`, Claude Code's transcript's
 * frame around Gemini's content: `user` and `assistant` records hold `message: {role, parts}`
 * (Gemini parts: text, thoughts, `functionCall`), an assistant one its `model` and
 * `usageMetadata`; a `tool_result` record the `functionResponse` parts and `toolCallResult`
 * (`callId`, `status`, `resultDisplay`); `system` records are bookkeeping (`ui_telemetry`,
 * `attribution_snapshot`, `chat_compression`) but for `custom_title` (its `systemPayload.customTitle`,
 * the session's name; the last one counts, as Qwen Code reads it). Not `qwen -o stream-json`'s
 * format (Claude's shape, providers/qwen.ts).
 */

interface ChatState {
  started: boolean;
}

function treeMetadata(record: JsonObject): JsonObject {
  const metadata: JsonObject = {};
  if (typeof record.uuid === 'string') metadata.uuid = record.uuid;
  if (typeof record.parentUuid === 'string') metadata.parent_uuid = record.parentUuid;
  return metadata;
}

function messageDrafts(record: JsonObject): EventDraft[] {
  const parts = obj(record.message)?.parts;
  const metadata = treeMetadata(record);
  switch (record.type) {
    case 'user': {
      const text = partsText(parts);
      return text === '' ? [] : [{ kind: 'user_message', payload: { content: [{ type: 'text', text }], metadata } }];
    }
    case 'assistant': {
      const drafts: EventDraft[] = [];
      const thought = thoughtText(parts);
      if (thought !== '') drafts.push({ kind: 'thinking', payload: { content: thought, metadata } });
      const text = partsText(parts);
      if (text !== '')
        drafts.push({ kind: 'assistant_message', payload: { content: [{ type: 'text', text }], model: str(record.model), metadata } });
      for (const call of partsOf(parts, 'functionCall')) drafts.push(functionCallDraft(call, metadata));
      const usage = obj(record.usageMetadata);
      if (usage) {
        const counts = {
          prompt: usage.promptTokenCount,
          candidates: usage.candidatesTokenCount,
          cached: usage.cachedContentTokenCount,
          thoughts: usage.thoughtsTokenCount,
        };
        drafts.push(geminiUsageDraft(counts, usage));
      }
      return drafts;
    }
    case 'tool_result': {
      const result = obj(record.toolCallResult);
      const failed = result?.status === 'error' || result?.status === 'cancelled';
      const resultMetadata: JsonObject = { ...metadata };
      if (result?.status !== undefined) resultMetadata.status = result.status;
      if (result?.resultDisplay !== undefined) resultMetadata.result_display = result.resultDisplay;
      return partsOf(parts, 'functionResponse').map((response) =>
        functionResponseDraft({ ...response, id: str(response.id) ?? str(result?.callId) }, failed, resultMetadata),
      );
    }
    default:
      // `system` records: bookkeeping, kept raw.
      return [];
  }
}

const profile: ProviderProfile<ChatState> = {
  id: 'qwen',
  detect: (line) => typeof line.sessionId === 'string' && typeof line.uuid === 'string' && obj(line.message)?.parts !== undefined,
  newState: () => ({ started: false }),
  sessionId: (line) => str(line.sessionId),
  timestamp: (line) => str(line.timestamp),
  decode(line, state) {
    const drafts = messageDrafts(line);
    // No init record: the first record stands for it.
    if (state.started || str(line.sessionId) === null) return drafts;
    state.started = true;
    const metadata: JsonObject = {};
    if (typeof line.version === 'string') metadata.version = line.version;
    return [{ kind: 'run_started', payload: { provider_session_id: str(line.sessionId), cwd: str(line.cwd), metadata } }, ...drafts];
  },
};

/** Summaries whose title is the CLI's own (`custom_title`), which a first prompt does not replace. */
const named = new WeakSet<StoredSummary>();

function summarize(line: JsonObject, into: StoredSummary): void {
  noteTime(line.timestamp, into);
  into.id ??= str(line.sessionId);
  into.cwd ??= str(line.cwd);
  if (line.type === 'assistant' && typeof line.model === 'string') into.model = line.model;
  if (line.type === 'system' && line.subtype === 'custom_title') {
    const title = str(obj(line.systemPayload)?.customTitle);
    if (title !== null) {
      into.title = titleOf(title);
      named.add(into);
    }
  }
  if (line.type === 'user' && into.title === null && !named.has(into)) {
    const text = partsText(obj(line.message)?.parts);
    if (text !== '') into.title = titleOf(text);
  }
}

/** Qwen Code's chat format. */
export const qwenChat: StoredFormat = { profile, summarize };
