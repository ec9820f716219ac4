import { appendFileSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { obj, str } from '../../providers/drafts';
import type { JsonObject } from '../../schema/json';
import { titleOf } from '../../stores/stored-format';

/** One line of a session's record: its start, an update the client was sent, or the CLI's own session id. */
type HistoryLine = { started: { provider: string; cwd: string } } | { update: JsonObject } | { cli_session_id: string };

/** What `session/load` needs of a session: the updates to replay, and the CLI session to resume. */
export interface SessionHistory {
  readonly updates: JsonObject[];
  /** The CLI's session id last announced; null when no turn ever ran (nothing to resume). */
  readonly cliSessionId: string | null;
  /** The CLI of its last `started` line (a switch of the `cli` option records a new one); null when none names one. */
  readonly provider: string | null;
}

/** The ids this agent makes (UUIDs), and nothing that could leave the directory (nor a CLI's own session's `<cli>:<id>`). */
const SESSION_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** What `session/list` needs of one of the agent's sessions. */
export interface SessionRecord {
  readonly sessionId: string;
  readonly cwd: string;
  /** Its first prompt (`titleOf`: one line, at most 200 characters); null before any. */
  readonly title: string | null;
  /** When its record last changed (ISO 8601). */
  readonly updatedAt: string;
  /** The CLI's session id last announced; null when no turn ever ran. */
  readonly cliSessionId: string | null;
  /** The CLI it last ran (its last `started` line); null when none names one. */
  readonly provider: string | null;
}

/**
 * Where an ACP agent keeps its sessions by default: `$XDG_STATE_HOME/cli-subprocess-core/acp-sessions`
 * (`~/.local/state/…` without it).
 */
export function defaultAcpHistoryDir(): string {
  return join(process.env.XDG_STATE_HOME || join(homedir(), '.local', 'state'), 'cli-subprocess-core', 'acp-sessions');
}

/**
 * What an ACP agent keeps of each session, so that `session/load` (an editor reopening a thread,
 * after a restart too) can replay it: one JSON-lines file per session in `dir`, of the updates the
 * client was sent (its prompts as `user_message_chunk`s included) and the CLI's session id. A CLI
 * resumes its own conversation, but none replays it in ACP's terms: this record is the history.
 */
export class AcpHistory {
  /** The directory was made (once per agent, not once per update). */
  private made = false;

  constructor(readonly dir: string) {}

  /** Appends to session `id`'s record (written at once: an agent killed mid-turn keeps what it sent). */
  record(id: string, line: HistoryLine): void {
    // A CLI's own session (`<cli>:<id>`, see session-list.ts) is recorded by the CLI itself.
    if (!SESSION_ID.test(id)) return;
    if (!this.made) mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    this.made = true;
    appendFileSync(join(this.dir, `${id}.jsonl`), `${JSON.stringify(line)}\n`, { mode: 0o600 });
  }

  /**
   * Session `id`'s record, null when there is none. Consecutive text chunks of one message are
   * joined (the same text, fewer updates); a line that does not parse (a write cut short) is skipped.
   */
  read(id: string): SessionHistory | null {
    if (!SESSION_ID.test(id)) return null;
    const lines = this.lines(id);
    if (lines === null) return null;
    const updates: JsonObject[] = [];
    let cliSessionId: string | null = null;
    let provider: string | null = null;
    for (const line of lines) {
      const update = obj(line.update);
      const started = obj(line.started);
      if (update) appendJoined(updates, update);
      else if (started) {
        // A new CLI session (the `cli` option switched): the earlier CLI's session id is not this one's to resume.
        provider = str(started.provider);
        cliSessionId = null;
      } else cliSessionId = str(line.cli_session_id) ?? cliSessionId;
    }
    return { updates, cliSessionId, provider };
  }

  /** Every session of the directory that says its cwd (every one `session/new` started), in no order. */
  list(): SessionRecord[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return [];
    }
    const records: SessionRecord[] = [];
    for (const name of names) {
      const sessionId = name.slice(0, -'.jsonl'.length);
      if (!name.endsWith('.jsonl') || !SESSION_ID.test(sessionId)) continue;
      const lines = this.lines(sessionId);
      let updatedAt: string;
      try {
        updatedAt = statSync(join(this.dir, name)).mtime.toISOString();
      } catch {
        continue;
      }
      let cwd: string | null = null;
      let title: string | null = null;
      let cliSessionId: string | null = null;
      let provider: string | null = null;
      for (const line of lines ?? []) {
        cwd ??= str(obj(line.started)?.cwd);
        provider = str(obj(line.started)?.provider) ?? provider;
        const update = obj(line.update);
        const content = obj(update?.content);
        if (title === null && update?.sessionUpdate === 'user_message_chunk' && content?.type === 'text')
          title = titleOf(str(content.text) ?? '');
        cliSessionId = str(line.cli_session_id) ?? cliSessionId;
      }
      if (cwd !== null) records.push({ sessionId, cwd, title, updatedAt, cliSessionId, provider });
    }
    return records;
  }

  /** The JSON object lines of session `id`'s record (a line cut short skipped); null when there is none. */
  private lines(id: string): JsonObject[] | null {
    let text: string;
    try {
      text = readFileSync(join(this.dir, `${id}.jsonl`), 'utf8');
    } catch {
      return null;
    }
    const lines: JsonObject[] = [];
    for (const raw of text.split('\n')) {
      try {
        const line = obj(JSON.parse(raw));
        if (line) lines.push(line);
      } catch {
        // a write cut short
      }
    }
    return lines;
  }
}

/** Adds `update` to `updates`, joined to the last one when both are text chunks of one message. */
function appendJoined(updates: JsonObject[], update: JsonObject): void {
  const last = updates.at(-1);
  const text = chunkText(update);
  const lastText = chunkText(last);
  if (last && text !== null && lastText !== null && last.sessionUpdate === update.sessionUpdate && last.messageId === update.messageId) {
    updates[updates.length - 1] = { ...last, content: { type: 'text', text: lastText + text } };
  } else updates.push(update);
}

/** The text of an agent message or thought chunk; null for any other update. */
function chunkText(update: JsonObject | undefined): string | null {
  if (update?.sessionUpdate !== 'agent_message_chunk' && update?.sessionUpdate !== 'agent_thought_chunk') return null;
  const content = obj(update.content);
  return content?.type === 'text' ? str(content.text) : null;
}
