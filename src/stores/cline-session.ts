import { readFile } from 'node:fs/promises';
import { clineProfile, type ClineState } from '../providers/cline';
import { arr, num, obj, str } from '../providers/drafts';
import type { EventDraft, ProviderProfile } from '../providers/profile';
import type { JsonObject } from '../schema/json';
import { noteTime, titleOf, type StoredFormat, type StoredSummary } from './stored-format';

/*
 * Cline's sessions (measured with 3.0.65, `CLINE_SESSION_BACKEND_MODE=local`): a folder per session
 * in its sessions dir, `<id>/<id>.json` (the session's row: `session_id`, `cwd`, `started_at`,
 * `ended_at`, `status`, `provider`, `model`, `prompt`, `metadata.title`, `metadata.usage`…, as in
 * its `db/sessions.db`) beside `<id>/<id>.messages.json` (one JSON document: `sessionId`,
 * `updated_at`, `messages`: `{id, role, content, ts, modelInfo, metrics}`, the content blocks being
 * Anthropic's `text`, `thinking`, `tool_use` and `tool_result`; a prompt's text is wrapped in
 * `<user_input mode="act">…</user_input>`). A session is read as JSON lines: the session's row as
 * a `session` line, then one `message` line per message. A messages document that does not parse
 * (cut while written) is one line of its text, so it comes out raw.
 */

/** The session's lines (`HistorySetup.lines`); `path` is its `<id>.json`. */
export async function* clineLines(path: string): AsyncGenerator<string> {
  const info = await readFile(path, 'utf8');
  yield JSON.stringify({ type: 'session', session: parsedOr(info) });
  let text: string;
  try {
    text = await readFile(path.replace(/\.json$/, '.messages.json'), 'utf8');
  } catch {
    return; // a session whose first message is not saved yet
  }
  const document = parsedOr(text);
  if (typeof document === 'string') {
    yield text.replace(/\s*\n\s*/g, ' ');
    return;
  }
  for (const message of arr(document.messages)) yield JSON.stringify({ type: 'message', sessionId: document.sessionId ?? null, message });
}

function parsedOr(text: string): JsonObject | string {
  try {
    return obj(JSON.parse(text)) ?? text;
  } catch {
    return text;
  }
}

/** The prompt inside Cline's `<user_input mode="…">` wrapper (the text itself when unwrapped). */
function promptOf(text: string): string {
  return /^<user_input[^>]*>([\s\S]*)<\/user_input>$/.exec(text.trim())?.[1] ?? text;
}

/** A stored message's blocks as the live agent events (`content_start`/`content_end`, `usage`) carry them. */
function message(line: JsonObject, state: ClineState): EventDraft[] {
  const stored = obj(line.message) ?? {};
  const live = (event: JsonObject) => clineProfile.decode({ type: 'agent_event', event }, state);
  const drafts: EventDraft[] = [];
  const metadata: JsonObject = { message_id: stored.id ?? null };
  for (const value of arr(stored.content)) {
    const block = obj(value) ?? {};
    if (block.type === 'text' && stored.role === 'user') {
      drafts.push({ kind: 'user_message', payload: { content: [{ type: 'text', text: promptOf(str(block.text) ?? '') }], metadata } });
    } else if (block.type === 'text') {
      drafts.push(...live({ type: 'content_end', contentType: 'text', text: block.text ?? '' }));
    } else if (block.type === 'thinking') {
      drafts.push({ kind: 'thinking', payload: { content: str(block.thinking) ?? '', signature: str(block.signature), metadata } });
    } else if (block.type === 'tool_use') {
      drafts.push(
        ...live({
          type: 'content_start',
          contentType: 'tool',
          toolName: block.name ?? null,
          toolCallId: block.id ?? null,
          input: block.input ?? {},
        }),
      );
    } else if (block.type === 'tool_result') {
      const output = Array.isArray(block.content) ? block.content : [{ result: block.content ?? null }];
      drafts.push(
        ...live({ type: 'content_end', contentType: 'tool', toolName: block.name ?? null, toolCallId: block.tool_use_id ?? null, output }),
      );
    }
  }
  const metrics = obj(stored.metrics);
  if (metrics) drafts.push(...live({ type: 'usage', ...metrics }));
  const model = str(obj(stored.modelInfo)?.id);
  for (const draft of drafts) if (draft.kind === 'assistant_message') (draft.payload as { model?: string | null }).model = model;
  return drafts;
}

const profile: ProviderProfile<ClineState> = {
  ...clineProfile,
  detect: (line) => (line.type === 'session' && obj(line.session)?.session_id !== undefined) || line.type === 'message',
  sessionId: (line) => str(obj(line.session)?.session_id) ?? str(line.sessionId),
  timestamp: (line) => num(obj(line.message)?.ts) ?? str(obj(line.session)?.started_at),
  decode(line, state) {
    if (line.type === 'session') {
      const session = obj(line.session) ?? {};
      const metadata: JsonObject = {
        status: session.status ?? null,
        source: session.source ?? null,
        title: obj(session.metadata)?.title ?? null,
      };
      return [{ kind: 'run_started', payload: { provider_session_id: str(session.session_id), cwd: str(session.cwd), metadata } }];
    }
    return line.type === 'message' ? message(line, state) : [];
  },
};

function summarize(line: JsonObject, into: StoredSummary): void {
  if (line.type === 'session') {
    const session = obj(line.session) ?? {};
    into.id ??= str(session.session_id);
    into.cwd ??= str(session.cwd);
    noteTime(session.started_at, into);
    noteTime(session.ended_at, into);
    const prompt = str(session.prompt);
    const title = str(obj(session.metadata)?.title) ?? (prompt === null ? null : promptOf(prompt));
    if (title !== null) into.title = titleOf(title);
    into.model ??= str(session.model);
    into.origin ??= str(session.source);
    return;
  }
  const stored = obj(line.message);
  const ts = num(stored?.ts);
  if (ts !== null) noteTime(new Date(ts).toISOString(), into);
  const model = str(obj(stored?.modelInfo)?.id);
  if (model !== null) into.model = model;
}

/** Cline's session format. */
export const clineSession: StoredFormat = { profile, summarize };
