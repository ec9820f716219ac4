import { resolve } from 'node:path';
import { HISTORY_CLI_IDS, isCliId, type HistoryCli } from '../../clis';
import { listCliSessions, type CliSessionRef } from '../../history';
import { cliSessionKey, parseCliSessionKey } from '../../history/session-key';
import type { JsonObject } from '../../schema/json';
import type { AcpHistory } from './history';

/*
 * `session/list` of the ACP agent: its own sessions (`AcpHistory`) and the sessions its CLI stored
 * itself (`listCliSessions`: a session started in a terminal), newest first, a page at a time.
 *
 * Ids: a CLI's own session is listed as `<cli>:<the CLI's session id>` (`claude:3f2a…`), the agent's
 * own as the UUID it made. The shape of the id cannot tell them apart (Claude Code's ids are UUIDs
 * too); the prefix can, needs no lookup, names the CLI the session belongs to, and can never be the
 * name of a file of the agent's history (its ids have no `:`).
 */

/** What `session/list` says of a session (the schema's `SessionInfo`). */
export type AcpSessionInfo = {
  sessionId: string;
  cwd: string;
  title: string | null;
  updatedAt: string | null;
  _meta: { cli: string; origin: 'agent' | 'cli' } & JsonObject;
};

/** A page of `session/list`'s answer (`nextCursor` only when there is more). */
export type AcpSessionPage = {
  sessions: AcpSessionInfo[];
  nextCursor?: string;
};

/** How many sessions a page holds by default. */
export const SESSION_PAGE_SIZE = 50;

/** The `session/list` id of a CLI's own stored session. */
export function cliSessionAcpId(provider: HistoryCli, id: string): string {
  return cliSessionKey(provider, id);
}

/** The CLI and its session id of a `session/list` id of a CLI's own session; null for any other id (the agent's own). */
export function parseCliSessionAcpId(sessionId: string): { provider: HistoryCli; id: string } | null {
  return parseCliSessionKey(sessionId);
}

/** True when a CLI's own sessions are read (its registry file has a `history`). */
export function hasCliHistory(provider: string): provider is HistoryCli {
  return isCliId<HistoryCli>(provider, HISTORY_CLI_IDS);
}

/** What `listAcpSessions` lists. */
export interface ListAcpSessionsOptions {
  /** The agent's CLIs (its one CLI, or every CLI a provider-less agent offers; the first is its default): their own stored sessions are listed. */
  providers: readonly string[];
  /** The agent's history (null: none kept). */
  history: AcpHistory | null;
  /** Only the sessions of this folder (the client's `cwd`, compared resolved). */
  cwd?: string;
  /** The environment that says where a CLI's store is (the one its sessions get). */
  env: (provider: string) => NodeJS.ProcessEnv;
}

/**
 * Every session `session/list` offers, newest first. A CLI session that one of the agent's own
 * sessions ran (its record names it) is left out: the agent's record is that conversation, as the
 * client saw it.
 */
export async function listAcpSessions(options: ListAcpSessionsOptions): Promise<AcpSessionInfo[]> {
  const cwd = options.cwd === undefined ? null : resolve(options.cwd);
  const records = options.history?.list() ?? [];
  const own = records.filter((record) => cwd === null || resolve(record.cwd) === cwd);
  const infos: AcpSessionInfo[] = own.map((record) => ({
    sessionId: record.sessionId,
    cwd: record.cwd,
    title: record.title,
    updatedAt: record.updatedAt,
    _meta: { cli: record.provider ?? options.providers[0], origin: 'agent' },
  }));
  const ran = new Set(records.map((record) => record.cliSessionId));
  for (const provider of options.providers.filter(hasCliHistory)) {
    const refs = await listCliSessions({ provider, cwd: cwd ?? undefined, env: options.env(provider) });
    for (const ref of refs) if (ref.cwd !== null && !ran.has(ref.id)) infos.push(cliSessionInfo(ref, ref.cwd));
  }
  return infos.sort(newestFirst);
}

/** A CLI's own session as `session/list` lists it (the CLI, its model and how it was started in `_meta`). */
function cliSessionInfo(ref: CliSessionRef, cwd: string): AcpSessionInfo {
  return {
    sessionId: cliSessionAcpId(ref.provider, ref.id),
    cwd,
    title: ref.title,
    updatedAt: ref.updated_at === null ? null : isoTime(ref.updated_at),
    _meta: { cli: ref.provider, origin: 'cli', cliSessionId: ref.id, model: ref.model, startedBy: ref.origin },
  };
}

/** One ISO 8601 spelling (UTC, milliseconds), so that the times of every source sort as text. */
function isoTime(time: string): string {
  const date = new Date(time);
  return Number.isNaN(date.getTime()) ? time : date.toISOString();
}

/** Where a session sorts: newest first, no time last, then by id (a total order the cursor can point into). */
function newestFirst(a: Pick<AcpSessionInfo, 'sessionId' | 'updatedAt'>, b: Pick<AcpSessionInfo, 'sessionId' | 'updatedAt'>): number {
  return (b.updatedAt ?? '').localeCompare(a.updatedAt ?? '') || (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0);
}

/**
 * The page of `sessions` (sorted newest first) after `cursor` (none: the first page). The cursor is
 * the position of the last session of the previous page (its time and id, opaque to the client), not
 * an offset: a session that starts or moves up between two pages shifts no other session into a page
 * already read or out of the next one. A cursor this agent did not make is a `TypeError`.
 */
export function sessionPage(sessions: readonly AcpSessionInfo[], cursor: string | null, size = SESSION_PAGE_SIZE): AcpSessionPage {
  const after = cursor === null ? null : decodeCursor(cursor);
  const rest = after === null ? sessions : sessions.filter((session) => newestFirst(session, after) > 0);
  const page = rest.slice(0, size);
  const last = page.at(-1);
  return rest.length > size && last ? { sessions: page, nextCursor: encodeCursor(last) } : { sessions: page };
}

function encodeCursor(session: Pick<AcpSessionInfo, 'sessionId' | 'updatedAt'>): string {
  return Buffer.from(JSON.stringify([session.updatedAt, session.sessionId]), 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): Pick<AcpSessionInfo, 'sessionId' | 'updatedAt'> {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    value = null;
  }
  if (!Array.isArray(value) || value.length !== 2 || (value[0] !== null && typeof value[0] !== 'string') || typeof value[1] !== 'string')
    throw new TypeError(`not a cursor of this agent's session/list: ${JSON.stringify(cursor)}`);
  return { updatedAt: value[0] as string | null, sessionId: value[1] };
}
