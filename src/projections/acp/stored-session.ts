import { listCliSessions, readCliSession, type CliSessionRef } from '../../history';
import { obj } from '../../providers/drafts';
import type { JsonObject } from '../../schema/json';
import { messageText } from '../approval-call';
import type { AcpHistory } from './history';
import { AcpProjector } from './projector';
import { parseCliSessionAcpId } from './session-list';

/** A session `session/load` or `session/resume` continues: the CLI session to resume, and (load) the updates to replay. */
export interface StoredSession {
  /** The CLI's session id to resume; null when none ran yet (the CLI starts afresh). */
  readonly cliSessionId: string | null;
  /** The CLI it ran (null: an agent's record that names none). */
  readonly provider: string | null;
  /** The history as `session/update`s (empty when not asked for: `session/resume` replays nothing). */
  readonly updates: JsonObject[];
}

/** Where `storedSession` looks. */
export interface StoredSessionSources {
  /** The agent's CLIs (a CLI's own session of another CLI is not one of this agent's). */
  providers: readonly string[];
  history: AcpHistory | null;
  /** The environment that says where a CLI's store is. */
  env: (provider: string) => NodeJS.ProcessEnv;
}

/**
 * Session `sessionId` of `session/list`: one of the agent's own (its history's record), or a CLI's
 * own (`<cli>:<id>`, read from the CLI's store); null when there is no such session. `replay` asks
 * for its updates too.
 */
export async function storedSession(sessionId: string, sources: StoredSessionSources, replay: boolean): Promise<StoredSession | null> {
  const cli = parseCliSessionAcpId(sessionId);
  if (cli === null) {
    const saved = sources.history?.read(sessionId) ?? null;
    return saved && { cliSessionId: saved.cliSessionId, provider: saved.provider, updates: replay ? saved.updates : [] };
  }
  if (!sources.providers.includes(cli.provider)) return null;
  const ref = (await listCliSessions({ provider: cli.provider, env: sources.env(cli.provider) })).find(
    (candidate) => candidate.id === cli.id,
  );
  if (!ref) return null;
  return { cliSessionId: ref.id, provider: cli.provider, updates: replay ? await replayed(ref) : [] };
}

/**
 * A CLI's stored session as the updates a live session would have sent: its events through a
 * projector of its own, each prompt as a `user_message_chunk` (not the context the CLI adds as user
 * messages: Codex's environment and AGENTS.md, Claude Code's meta lines).
 */
async function replayed(ref: CliSessionRef): Promise<JsonObject[]> {
  const projector = new AcpProjector('replay-');
  const updates: JsonObject[] = [];
  for await (const event of readCliSession(ref)) {
    if (event.kind === 'user_message') {
      const metadata = obj(event.payload.metadata);
      const text = messageText(event.payload.content);
      if (metadata?.context !== true && metadata?.meta !== true && text !== '')
        updates.push({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text } });
    } else if (event.kind === 'result') projector.answer(event);
    else updates.push(...projector.updates(event));
  }
  return updates;
}
