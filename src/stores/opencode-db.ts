import { stat } from 'node:fs/promises';
import { opencodeProfile, type OpencodeState } from '../providers/opencode';
import { num, obj, str } from '../providers/drafts';
import type { EventDraft, ProviderProfile } from '../providers/profile';
import type { JsonObject } from '../schema/json';
import { readSqlite, type SqliteRows } from './sqlite-file';
import { noteTime, titleOf, type StoredFormat, type StoredSummary } from './stored-format';

/*
 * OpenCode's session store (measured with 1.18.33, and Kilo 7.7.7, its fork, which keeps the same
 * tables in `kilo.db`): one SQLite database, `<data>/opencode.db`, in WAL mode, holding every
 * session. Its tables: `session` (id, `directory` (the cwd), `title`, `version`, `model` as JSON
 * `{id, providerID}`, `time_created`/`time_updated` in epoch ms, token totals…), `message` (one
 * per user prompt and per assistant reply, its `data` JSON: `role`, `time`, `modelID`,
 * `providerID`, `tokens`, `cost`, `finish`, `error`) and `part` (its `data` JSON is the part that
 * `opencode run --format json` prints: `text`, `reasoning`, `tool` with its `state`, `step-start`,
 * `step-finish` with the step's tokens; a user prompt is a `text` part of a user message).
 *
 * A session is read as JSON lines made from its rows, in order: a `session` line, then each
 * message as a `message` line followed by its parts as `part` lines (`{type, sessionID,
 * timestamp, role, part}`). An assistant's part is read by the live profile as the line `run`
 * prints for it; a row whose JSON does not parse keeps its text (`data`) and comes out raw.
 */

/** A session's path as `listCliSessions` gives it: the database's path, `#`, the session's id. */
const SEPARATOR = '#';

function sessionPath(db: string, id: string): string {
  return `${db}${SEPARATOR}${id}`;
}

function splitPath(path: string): { db: string; id: string } {
  const at = path.lastIndexOf(SEPARATOR);
  return at < 0 ? { db: path, id: '' } : { db: path.slice(0, at), id: path.slice(at + 1) };
}

/** The sessions the database holds, each as `<db>#<id>` (subagents' child sessions among them). */
export async function opencodeSessions(db: string): Promise<string[]> {
  return [...(await storeLines(db)).keys()].map((id) => sessionPath(db, id));
}

/** The last database read: a list reads each of its sessions after it, and each would read the whole file again. */
let lastRead: { db: string; version: string; lines: Promise<Map<string, string[]>> } | null = null;

/** Every session's lines, by id, from one read of the database (again only when it or its log changed). */
async function storeLines(db: string): Promise<Map<string, string[]>> {
  const version = (
    await Promise.all(
      [db, `${db}-wal`].map((file) =>
        stat(file).then(
          (info) => `${info.size}:${info.mtimeMs}`,
          () => '-',
        ),
      ),
    )
  ).join('/');
  if (lastRead?.db !== db || lastRead.version !== version) {
    const lines = readSqlite(db, (rows) => {
      const sessions = new Map<string, string[]>();
      for (const row of rows.all('SELECT id FROM session ORDER BY time_created'))
        sessions.set(String(row.id), sessionLines(rows, String(row.id)));
      return sessions;
    });
    lastRead = { db, version, lines };
    // A failed read is not kept.
    lines.catch(() => {
      if (lastRead?.lines === lines) lastRead = null;
    });
  }
  return lastRead.lines;
}

/** Parsed JSON text, or null. */
function parsed(text: unknown): JsonObject | null {
  if (typeof text !== 'string') return null;
  try {
    return obj(JSON.parse(text));
  } catch {
    return null;
  }
}

/** The JSON lines of one session (`<db>#<id>`), from its rows, as the header describes. */
function sessionLines(rows: SqliteRows, id: string): string[] {
  const lines: string[] = [];
  for (const row of rows.all('SELECT * FROM session WHERE id = ?', [id])) {
    const session: JsonObject = {};
    for (const [column, value] of Object.entries(row)) {
      const json = column === 'model' || column === 'metadata' ? parsed(value) : null;
      session[column] = json ?? (value as JsonObject[string]);
    }
    lines.push(JSON.stringify({ type: 'session', sessionID: id, timestamp: num(row.time_created), session }));
  }
  const parts = new Map<string, Record<string, unknown>[]>();
  for (const part of rows.all('SELECT id, message_id, time_created, data FROM part WHERE session_id = ? ORDER BY message_id, id', [id])) {
    const list = parts.get(String(part.message_id)) ?? [];
    list.push(part);
    parts.set(String(part.message_id), list);
  }
  for (const message of rows.all('SELECT id, time_created, data FROM message WHERE session_id = ? ORDER BY time_created, id', [id])) {
    const data = parsed(message.data);
    const role = str(data?.role);
    lines.push(
      JSON.stringify({
        type: 'message',
        sessionID: id,
        timestamp: num(message.time_created),
        ...(data ? { message: { id: message.id, ...data } } : { id: message.id, data: message.data }),
      }),
    );
    for (const part of parts.get(String(message.id)) ?? []) {
      const value = parsed(part.data);
      lines.push(
        JSON.stringify({
          type: 'part',
          sessionID: id,
          timestamp: num(part.time_created),
          role,
          ...(value ? { part: { id: part.id, messageID: message.id, sessionID: id, ...value } } : { id: part.id, data: part.data }),
        }),
      );
    }
  }
  return lines;
}

/** A session's lines (`HistorySetup.lines`): the database read once, in memory, never written. */
export async function* opencodeLines(path: string): AsyncGenerator<string> {
  const { db, id } = splitPath(path);
  yield* (await storeLines(db)).get(id) ?? [];
}

/** The live line `opencode run --format json` prints for a part of each type. */
const LIVE_TYPES: Readonly<Record<string, string>> = {
  'step-start': 'step_start',
  text: 'text',
  reasoning: 'reasoning',
  tool: 'tool_use',
  'step-finish': 'step_finish',
};

/** The default titles OpenCode gives a session before (or without) naming it: not a title. */
const DEFAULT_TITLE = /^(New session|Child session) - \d{4}-\d\d-\d\dT/;

/** The live state, and the model of the assistant message being read (a part does not name it). */
interface StoredState extends OpencodeState {
  model: string | null;
}

function decode(line: JsonObject, state: StoredState): EventDraft[] {
  switch (line.type) {
    case 'session': {
      const session = obj(line.session) ?? {};
      state.started = true;
      const metadata: JsonObject = { title: session.title ?? null, version: session.version ?? null, parent_id: session.parent_id ?? null };
      return [{ kind: 'run_started', payload: { provider_session_id: str(session.id), cwd: str(session.directory), metadata } }];
    }
    case 'message': {
      const message = obj(line.message);
      // A new prompt: its steps end a turn of their own.
      if (message?.role === 'user') Object.assign(state, { finished: false, stepText: [] });
      if (message?.role === 'assistant')
        state.model = str(message.modelID) === null ? null : modelName(message.providerID, message.modelID);
      const error = obj(message?.error);
      return error ? opencodeProfile.decode({ type: 'error', sessionID: line.sessionID, error }, state) : [];
    }
    case 'part': {
      const part = obj(line.part);
      if (!part) return [];
      if (line.role === 'user') {
        // A prompt's text; the parts OpenCode adds itself (a file's contents it read) are `synthetic`.
        if (part.type !== 'text' || part.synthetic === true) return [];
        return [
          {
            kind: 'user_message',
            payload: {
              content: [{ type: 'text', text: str(part.text) ?? '' }],
              metadata: { part_id: part.id ?? null, message_id: part.messageID ?? null },
            },
          },
        ];
      }
      const type = LIVE_TYPES[str(part.type) ?? ''];
      if (type === undefined) return [];
      const drafts = opencodeProfile.decode({ type, sessionID: line.sessionID, timestamp: line.timestamp, part }, state);
      for (const draft of drafts) if (draft.kind === 'assistant_message') (draft.payload as { model?: string | null }).model = state.model;
      return drafts;
    }
    default:
      return [];
  }
}

const epochIso = (value: unknown): string | null => {
  const ms = num(value);
  return ms === null ? null : new Date(ms).toISOString();
};

function summarize(line: JsonObject, into: StoredSummary): void {
  noteTime(epochIso(line.timestamp), into);
  switch (line.type) {
    case 'session': {
      const session = obj(line.session) ?? {};
      into.id ??= str(session.id);
      into.cwd ??= str(session.directory);
      noteTime(epochIso(session.time_updated), into);
      const title = str(session.title);
      if (title !== null && !DEFAULT_TITLE.test(title)) into.title = titleOf(title);
      const model = obj(session.model);
      if (str(model?.id) !== null) into.model = modelName(model?.providerID, model?.id);
      break;
    }
    case 'message': {
      const message = obj(line.message);
      if (message?.role === 'assistant' && str(message.modelID) !== null) into.model = modelName(message.providerID, message.modelID);
      break;
    }
    case 'part': {
      const part = obj(line.part);
      if (into.title === null && line.role === 'user' && part?.type === 'text' && part.synthetic !== true)
        into.title = titleOf(str(part.text) ?? '');
      break;
    }
  }
}

/** A model as OpenCode's `--model` takes it: `provider/model`. */
function modelName(provider: unknown, model: unknown): string {
  return typeof provider === 'string' ? `${provider}/${String(model)}` : String(model);
}

/** The stored format of OpenCode's database, its events carrying `id` (`opencode`, or `kilo` for the fork). */
export function opencodeStore(id: string): StoredFormat {
  const profile: ProviderProfile<StoredState> = {
    ...opencodeProfile,
    id,
    newState: () => ({ ...opencodeProfile.newState(), model: null }),
    detect: (line) => str(line.sessionID) !== null && (line.type === 'session' || line.type === 'message' || line.type === 'part'),
    timestamp: (line) => num(line.timestamp),
    decode,
  };
  return { profile, summarize };
}
