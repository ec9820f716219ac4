import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { arr, errorDraft, obj, str } from '../providers/drafts';
import { splitLines } from '../providers/lines';
import type { EventDraft, ProviderProfile } from '../providers/profile';
import type { JsonObject, JsonValue } from '../schema/json';
import { functionResponseDraft, geminiUsageDraft, partsOf, partsText } from './gemini-parts';
import { noteTime, titleOf, type StoredFormat, type StoredSummary } from './stored-format';

/*
 * Gemini CLI's chats, `<GEMINI_CLI_HOME or HOME>/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl`
 * (read from stores of 0.61.0, whose own reader is `loadConversationRecord`). Not one line per
 * event but a log of a JSON document's changes, replayed in order:
 * - the session's metadata (`{sessionId, projectHash, startTime, lastUpdated, kind}`), first;
 * - message records (`{id, timestamp, type: user|gemini|info|warning|error, content, …}`): a record
 *   whose `id` was seen before replaces that message (a `gemini` message is written when it starts
 *   and again with its `toolCalls`, each with its `args`, `result` parts and `status`);
 * - `{"$set": {…}}` patches of the metadata (`lastUpdated`, `summary`…); a `$set` of `messages`
 *   replaces them all (a `--resume` rewrites the whole conversation so, then appends);
 * - `{"$rewindTo": id}` drops that message and the later ones.
 * Older versions kept one JSON document (`session-*.json`, the same fields with `messages`):
 * `geminiChatLines` gives its records as the same lines. The records hold no cwd: Gemini CLI keeps
 * the project's root beside the chats (`<project>/.project_root`, whose SHA-256 is the
 * `projectHash`), which `geminiChatLines` adds to the metadata record as `projectRoot`.
 * A `--resume` also starts a new file holding only the metadata and the `<session_context>` message,
 * which Gemini CLI itself does not list (no resumable content): nor is it listed here.
 */

/** The project's root Gemini CLI keeps for the chats' folder, where its hash is the metadata's `projectHash`. */
async function projectRoot(chatPath: string, projectHash: string): Promise<string | null> {
  try {
    const root = (await readFile(join(dirname(dirname(chatPath)), '.project_root'), 'utf8')).trim();
    return createHash('sha256').update(root).digest('hex') === projectHash ? root : null;
  } catch {
    return null;
  }
}

function isMetadataRecord(record: JsonObject): boolean {
  return typeof record.sessionId === 'string' && typeof record.projectHash === 'string' && record.id === undefined;
}

/** The metadata record with the project's root added (a line that is not one, unchanged). */
async function withProjectRoot(line: string, path: string): Promise<string> {
  let record: JsonObject | null = null;
  try {
    record = obj(JSON.parse(line));
  } catch {
    return line;
  }
  if (!record || !isMetadataRecord(record) || record.projectRoot !== undefined) return line;
  const root = await projectRoot(path, record.projectHash as string);
  return root === null ? line : JSON.stringify({ ...record, projectRoot: root });
}

/**
 * A chat's records as lines: a `.jsonl` chat's own lines, the metadata record with `projectRoot`
 * added; an older `.json` document as its metadata and then one line per message (a document that
 * does not parse, one being written, as its text lines, which read as raw).
 */
export async function* geminiChatLines(path: string): AsyncIterable<string> {
  if (path.endsWith('.jsonl')) {
    for await (const line of splitLines(createReadStream(path))) yield await withProjectRoot(line, path);
    return;
  }
  const text = await readFile(path, 'utf8');
  let document: JsonObject | null = null;
  try {
    document = obj(JSON.parse(text));
  } catch {
    // a document cut short: its lines below
  }
  if (!document) {
    yield* text.split('\n');
    return;
  }
  const { messages, ...metadata } = document;
  yield await withProjectRoot(JSON.stringify(metadata), path);
  for (const message of arr(messages)) yield JSON.stringify(message);
}

/** What was already told of a message (its records repeat it as it grows). */
interface Told {
  text: boolean;
  thoughts: number;
  tokens: boolean;
  calls: Set<string>;
  results: Set<string>;
}

interface ChatState {
  started: boolean;
  told: Map<string, Told>;
}

/** Text Gemini CLI sends as a user message for itself (its own test, `isIgnoredUserContent`): not the user's words. */
function isContext(text: string): boolean {
  const trimmed = text.trim();
  return trimmed.startsWith('<session_context>') || trimmed.startsWith('<hook_context>');
}

/** Gemini CLI's own test of a message worth resuming (`isResumableMessageRecord`): a prompt, or a model's answer, call or thought. */
function isResumable(message: JsonObject): boolean {
  if (message.type === 'user') {
    const text = partsText(message.content).trim();
    return text !== '' && !isContext(text) && !text.startsWith('/') && !text.startsWith('?');
  }
  if (message.type === 'gemini')
    return partsText(message.content).trim() !== '' || arr(message.toolCalls).length > 0 || arr(message.thoughts).length > 0;
  return false;
}

function toldOf(state: ChatState, id: string): Told {
  let told = state.told.get(id);
  if (!told) {
    told = { text: false, thoughts: 0, tokens: false, calls: new Set(), results: new Set() };
    state.told.set(id, told);
  }
  return told;
}

/** A message record's events, less what its earlier records of the same id already gave. */
function message(record: JsonObject, state: ChatState): EventDraft[] {
  const id = str(record.id);
  if (id === null) return [];
  const told = toldOf(state, id);
  const metadata: JsonObject = { message_id: id };
  switch (record.type) {
    case 'user': {
      // A user record of `functionResponse` parts only is the tool results sent back: its `gemini` message's `toolCalls` hold them.
      const text = partsText(record.content);
      if (told.text || (text === '' && partsOf(record.content, 'functionResponse').length > 0)) return [];
      told.text = true;
      if (isContext(text)) metadata.context = true;
      return [{ kind: 'user_message', payload: { content: [{ type: 'text', text }], metadata } }];
    }
    case 'gemini':
      return modelMessage(record, told, metadata);
    case 'warning':
    case 'error': {
      const text = partsText(record.content);
      if (told.text || text === '') return [];
      told.text = true;
      return [
        errorDraft(text, record.type === 'warning' ? 'warning' : 'error', record.type === 'warning' ? 'notice' : 'execution', metadata),
      ];
    }
    default:
      // `info`: the CLI's notes to the user.
      return [];
  }
}

function modelMessage(record: JsonObject, told: Told, metadata: JsonObject): EventDraft[] {
  const drafts: EventDraft[] = [];
  const thoughts = arr(record.thoughts);
  for (const thought of thoughts.slice(told.thoughts)) {
    const object = obj(thought);
    const text = [str(object?.subject), str(object?.description)].filter((part) => part !== null && part !== '').join(': ');
    drafts.push({ kind: 'thinking', payload: { content: text, metadata } });
  }
  told.thoughts = Math.max(told.thoughts, thoughts.length);
  const text = partsText(record.content);
  if (!told.text && text !== '') {
    told.text = true;
    drafts.push({ kind: 'assistant_message', payload: { content: [{ type: 'text', text }], model: str(record.model), metadata } });
  }
  for (const value of arr(record.toolCalls)) {
    const call = obj(value);
    const callId = str(call?.id);
    if (!call || callId === null) continue;
    if (!told.calls.has(callId)) {
      told.calls.add(callId);
      drafts.push({
        kind: 'tool_use',
        payload: { tool_name: str(call.name), tool_call_id: callId, input: obj(call.args) ?? {}, metadata },
      });
    }
    if (told.results.has(callId) || call.result === undefined || call.result === null) continue;
    told.results.add(callId);
    drafts.push(toolResult(call, callId));
  }
  const tokens = obj(record.tokens);
  if (!told.tokens && tokens) {
    told.tokens = true;
    drafts.push(
      geminiUsageDraft({ prompt: tokens.input, candidates: tokens.output, cached: tokens.cached, thoughts: tokens.thoughts }, tokens),
    );
  }
  return drafts;
}

/** A stored tool call's result: the `functionResponse` the model got, its `status`, and what the CLI showed (`resultDisplay`). */
function toolResult(call: JsonObject, callId: string): EventDraft {
  const failed = call.status === 'error' || call.status === 'cancelled';
  const metadata: JsonObject = {};
  if (call.status !== undefined) metadata.status = call.status;
  if (call.resultDisplay !== undefined) metadata.result_display = call.resultDisplay;
  const [response] = partsOf(call.result as JsonValue, 'functionResponse');
  if (response) return functionResponseDraft({ ...response, id: callId }, failed, metadata);
  const content = typeof call.resultDisplay === 'string' ? call.resultDisplay : (call.result as JsonValue);
  return { kind: 'tool_result', payload: { tool_call_id: callId, content, is_error: failed, metadata } };
}

const profile: ProviderProfile<ChatState> = {
  id: 'gemini',
  detect: isMetadataRecord,
  newState: () => ({ started: false, told: new Map() }),
  sessionId: (line) => (isMetadataRecord(line) ? str(line.sessionId) : null),
  timestamp: (line) => str(line.timestamp) ?? (isMetadataRecord(line) ? str(line.startTime) : null),
  decode(line, state) {
    if (isMetadataRecord(line)) {
      if (state.started) return [];
      state.started = true;
      const metadata: JsonObject = { project_hash: line.projectHash };
      if (line.kind !== undefined) metadata.kind = line.kind;
      return [{ kind: 'run_started', payload: { provider_session_id: str(line.sessionId), cwd: str(line.projectRoot), metadata } }];
    }
    if (typeof line.id === 'string') return message(line, state);
    const set = obj(line.$set);
    // A `$set` of `messages` (a resume's rewrite): the messages not told yet; other patches and `$rewindTo` stay raw.
    if (set && Array.isArray(set.messages))
      return set.messages.flatMap((value) => (obj(value) ? message(obj(value) as JsonObject, state) : []));
    return [];
  },
};

/**
 * What a chat's records say of it until one is worth resuming: Gemini CLI lists no chat without
 * one (a resume's stray new file), so neither does this (a summary with no id and no time).
 */
const pending = new WeakMap<StoredSummary, { id: string | null; cwd: string | null; times: unknown[] }>();

function summarize(line: JsonObject, into: StoredSummary): void {
  const held = pending.get(into) ?? { id: null, cwd: null, times: [] };
  pending.set(into, held);
  const note = (time: unknown) => (into.id === null ? held.times.push(time) : noteTime(time, into));
  if (isMetadataRecord(line)) {
    held.id ??= str(line.sessionId);
    held.cwd ??= str(line.projectRoot);
    // An older `.json` document's metadata holds its `summary`.
    if (typeof line.summary === 'string') into.title = titleOf(line.summary);
    note(line.startTime);
    note(line.lastUpdated);
    return;
  }
  const set = obj(line.$set);
  if (set) {
    note(set.lastUpdated);
    // `saveSummary`: Gemini CLI's one-line summary of the session, its title in its session list.
    if (typeof set.summary === 'string') into.title = titleOf(set.summary);
    for (const value of arr(set.messages)) if (obj(value)) summarizeMessage(obj(value) as JsonObject, into, held, note);
    return;
  }
  if (typeof line.id === 'string') summarizeMessage(line, into, held, note);
}

function summarizeMessage(
  record: JsonObject,
  into: StoredSummary,
  held: { id: string | null; cwd: string | null; times: unknown[] },
  note: (time: unknown) => void,
): void {
  if (into.id === null && isResumable(record) && held.id !== null) {
    into.id = held.id;
    into.cwd ??= held.cwd;
    for (const time of held.times) noteTime(time, into);
  }
  note(record.timestamp);
  if (record.type === 'gemini' && typeof record.model === 'string') into.model = record.model;
  // Gemini CLI's `summary` (a `$set`) wins over the first prompt.
  if (into.title === null && record.type === 'user' && isResumable(record)) into.title = titleOf(partsText(record.content));
}

/** Gemini CLI's chat format. */
export const geminiChat: StoredFormat = { profile, summarize };
