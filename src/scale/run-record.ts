import type { AnyEvent } from '../events/event';
import { UsageTotals, type UsageState } from '../providers/usage';
import { runCostOf } from '../runner/outcome';
import type { RunCost } from '../runner/types';
import { CLIS } from '../clis';
import type { RunJob, SessionJob } from './run-job';
import type { WorkspaceChanges } from './workspace';

/*
 * The record of a run: what a list of runs shows without reading any stream. The one home of how it
 * is made and kept up to date, for every store (in process, on disk, on Redis): made when the run is
 * queued, `running` when a worker takes it, its usage and status updated as its events are appended
 * (usage added up by the usage rules, `UsageTotals`, event by event: a list never reads a stream),
 * ended when its stream is completed. A session's record is the same with more `turns`, its job kept to start its CLI again.
 */

/**
 * Where a run is: waiting for a worker, running, or how it ended (`cancelled`: its result was
 * `aborted`). A session is `idle` between turns, `queued` or `running` with a turn, and `closed`
 * once it ends.
 */
export type RunRecordStatus = 'queued' | 'running' | 'idle' | 'completed' | 'failed' | 'cancelled' | 'closed';

/** The statuses of a run or session that is not over. */
const OPEN: readonly RunRecordStatus[] = ['queued', 'running', 'idle'];

/** A one-turn run (`POST /runs`) or a conversation (`POST /sessions`). */
export type RecordKind = 'run' | 'session';

/** The longest title kept, in characters: a list shows a line, not the prompt. */
export const TITLE_MAX_CHARS = 120;

/** A run's record as a store keeps it (JSON: a Redis value, a line of the data directory's index). */
export interface StoredRun {
  readonly id: string;
  /** A run, or a session (absent in records written before sessions: a run). */
  readonly kind: RecordKind;
  readonly owner: string | null;
  readonly provider: string;
  readonly model: string | null;
  /** The prompt's first line (of text), cut to `TITLE_MAX_CHARS` (a session's: its first message's). */
  title: string;
  /** The turns asked: 1 for a run. */
  turns: number;
  /** When it was queued, in ms since the epoch. */
  readonly createdAt: number;
  /** When its stream was completed, in ms since the epoch; null while it is not. */
  endedAt: number | null;
  status: RunRecordStatus;
  /** Its usage so far, as `UsageTotals` hold it; null while no `cost_update` came. */
  usage: UsageState | null;
  /** What it changed in its worktree (its result's `metadata.changes`, written with its diff); null when nothing says. */
  changes: WorkspaceChanges | null;
  /** A session's job (the CLI and its options, the server's defaults applied): what starts its CLI again for a later turn; null for a run. */
  readonly job: SessionJob | null;
}

/** A run as the runs API lists it (`GET /runs`, `GET /runs/:id`): the caller's own, never its owner. */
export interface RunSummary {
  readonly id: string;
  readonly kind: RecordKind;
  readonly provider: string;
  readonly model: string | null;
  readonly status: RunRecordStatus;
  /** When it was queued (ISO 8601). */
  readonly created_at: string;
  /** When it ended (ISO 8601), or null while it has not. */
  readonly ended_at: string | null;
  /** The prompt's first line, cut to 120 characters. */
  readonly title: string;
  readonly turns: number;
  /**
   * A session: whether its CLI can be started again on its conversation (Claude `--resume`, Codex
   * `thread/resume`, ACP `session/load`) once it was closed (idle, a worker lost); when not, a
   * closed CLI ends the session. Null for a run.
   */
  readonly resumable: boolean | null;
  /** Tokens and price added up over its `cost_update` events by the usage rules; null while none came. */
  readonly usage: RunCost | null;
  /** Files, lines added and removed in its worktree; null when it ran in none or has not ended. */
  readonly changes: WorkspaceChanges | null;
  /** How long its events (and diff) are kept after it ends, in seconds. */
  readonly ttl_seconds: number;
  /** When its events (and diff) go (ISO 8601), or null while it runs. */
  readonly expires_at: string | null;
}

/** What a store knows of a run besides its events: its owner, and what `GET /runs` shows of it. */
export interface RunRecord extends RunSummary {
  /** The principal that queued it (the runs API's caller), or null when none was given. */
  readonly owner: string | null;
}

/** Where a page of runs starts: after the run of `createdAt` and `id` (newest first: older, or as old with a smaller id). */
export interface RunCursor {
  readonly createdAt: number;
  readonly id: string;
}

/** Options of `RunStore.listRuns`. */
export interface ListRunsOptions {
  /** Runs (default) or sessions. */
  kind?: RecordKind;
  /** How many at most; default 20. */
  limit?: number;
  /** Only runs older than this one. */
  before?: RunCursor;
}

/** The record of a run just queued. */
export function newRunRecord(id: string, job: RunJob, owner: string | null, now: number): StoredRun {
  return {
    id,
    kind: 'run',
    owner,
    provider: job.provider,
    model: job.model ?? null,
    title: titleOf(job.prompt),
    turns: 1,
    createdAt: now,
    endedAt: null,
    status: 'queued',
    usage: null,
    changes: null,
    job: null,
  };
}

/** The record of a session just opened: idle, no turn yet, its title the first message's when it comes. */
export function newSessionRecord(id: string, job: SessionJob, owner: string | null, now: number): StoredRun {
  return {
    id,
    kind: 'session',
    owner,
    provider: job.provider,
    model: job.model ?? null,
    title: '',
    turns: 0,
    createdAt: now,
    endedAt: null,
    status: 'idle',
    usage: null,
    changes: null,
    job,
  };
}

/** Notes a message queued to a session: one more turn, the first message its title. */
export function noteMessage(record: StoredRun, text: string): void {
  if (record.turns === 0) record.title = titleOf(text);
  record.turns += 1;
  if (record.status === 'idle') record.status = 'queued';
}

/** The first line of `prompt` that has text, trimmed and cut to `TITLE_MAX_CHARS` characters. */
export function titleOf(prompt: string): string {
  const line =
    prompt
      .split('\n')
      .map((part) => part.trim())
      .find((part) => part !== '') ?? '';
  const chars = [...line];
  return chars.length > TITLE_MAX_CHARS ? `${chars.slice(0, TITLE_MAX_CHARS - 1).join('')}…` : line;
}

/** Whether `event` changes a record (its usage or status): a store reads and writes a record only for these. */
export function changesRecord(event: AnyEvent): boolean {
  return event.kind === 'cost_update' || event.kind === 'result';
}

/** Notes an appended event: a `cost_update` adds to the usage, a `result` sets the status and the changes. */
export function noteEvent(record: StoredRun, event: AnyEvent): void {
  if (event.kind === 'cost_update') {
    const totals = record.usage ? UsageTotals.fromState(record.usage) : new UsageTotals();
    totals.add(event.payload);
    record.usage = totals.state;
  } else if (event.kind === 'result') {
    const { status, metadata } = event.payload;
    // A session's turn is over: the session waits for the next message.
    if (record.kind === 'session') record.status = 'idle';
    else record.status = status === 'completed' ? 'completed' : status === 'aborted' ? 'cancelled' : 'failed';
    const changes = (metadata as Record<string, unknown> | undefined)?.changes;
    if (isChanges(changes)) record.changes = { files: changes.files, insertions: changes.insertions, deletions: changes.deletions };
  }
}

/** Notes that a worker took the run (or a session's turn). */
export function noteTaken(record: StoredRun): void {
  if (record.status === 'queued' || record.status === 'idle') record.status = 'running';
}

/** Notes the end of the stream: a session is closed; a run that ended without a result failed. */
export function noteEnd(record: StoredRun, now: number): void {
  record.endedAt = now;
  if (record.kind === 'session') record.status = 'closed';
  else if (isOpen(record)) record.status = 'failed';
}

/** Whether the run (or a session's turn) waits for a worker or runs: what counts against its owner's limit (an idle session holds nothing). */
export function holdsWork(record: { readonly status: RunRecordStatus }): boolean {
  return record.status === 'queued' || record.status === 'running';
}

/** Whether the run is queued or running, or the session not closed. */
export function isOpen(record: { readonly status: RunRecordStatus }): boolean {
  return OPEN.includes(record.status);
}

/** The summary of `record` a caller is shown, its events kept `ttlSeconds` after its end. */
export function summaryOf(record: StoredRun, ttlSeconds: number): RunSummary {
  return {
    id: record.id,
    kind: record.kind,
    provider: record.provider,
    model: record.model,
    status: record.status,
    created_at: new Date(record.createdAt).toISOString(),
    ended_at: record.endedAt === null ? null : new Date(record.endedAt).toISOString(),
    title: record.title,
    turns: record.turns,
    resumable: record.job === null ? null : CLIS[record.job.provider].session.resume !== null,
    usage: record.usage ? runCostOf(UsageTotals.fromState(record.usage)) : null,
    changes: record.changes,
    ttl_seconds: ttlSeconds,
    expires_at: record.endedAt === null ? null : new Date(record.endedAt + ttlSeconds * 1000).toISOString(),
  };
}

/** The record a store answers for `record`, its events kept `ttlSeconds` after its end. */
export function runRecordOf(record: StoredRun, ttlSeconds: number): RunRecord {
  return { ...summaryOf(record, ttlSeconds), owner: record.owner };
}

/** Orders records newest first: later `createdAt`, then the larger id. */
export function newestFirst(a: RunCursor, b: RunCursor): number {
  return b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/** Whether `record` comes after `cursor` in newest-first order (older). */
export function isOlder(record: RunCursor, cursor: RunCursor): boolean {
  return newestFirst(cursor, record) < 0;
}

/** The text of a cursor (`<createdAt>.<id>`): what `GET /runs` answers as `next` and reads from `?before=`. */
export function cursorText(cursor: RunCursor): string {
  return `${cursor.createdAt}.${cursor.id}`;
}

/** The cursor a `cursorText` names, or null when `text` is not one. */
export function parseCursor(text: string): RunCursor | null {
  const match = /^(\d{1,16})\.([0-9a-f-]{36})$/.exec(text);
  return match ? { createdAt: Number(match[1]), id: match[2] } : null;
}

/** The page of `records` that `options` asks for (the in-process store's listing; Redis reads its sorted set). */
export function pageOf(records: Iterable<StoredRun>, options: ListRunsOptions): StoredRun[] {
  const { before, limit = 20, kind = 'run' } = options;
  const matching = [...records].filter((record) => record.kind === kind && (before === undefined || isOlder(record, before)));
  return matching.sort(newestFirst).slice(0, limit);
}

/** A record read back from JSON (a store's, or one written by an older version, which kept only the owner). */
export function readStoredRun(id: string, text: string): StoredRun | null {
  let value: Partial<StoredRun>;
  try {
    value = JSON.parse(text) as Partial<StoredRun>;
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  return {
    id,
    kind: value.kind === 'session' ? 'session' : 'run',
    owner: typeof value.owner === 'string' ? value.owner : null,
    provider: typeof value.provider === 'string' ? value.provider : 'unknown',
    model: typeof value.model === 'string' ? value.model : null,
    title: typeof value.title === 'string' ? value.title : '',
    turns: typeof value.turns === 'number' ? value.turns : 1,
    createdAt: typeof value.createdAt === 'number' ? value.createdAt : 0,
    endedAt: typeof value.endedAt === 'number' ? value.endedAt : null,
    status: typeof value.status === 'string' ? value.status : 'running',
    usage: value.usage ?? null,
    changes: value.changes ?? null,
    job: value.kind === 'session' && typeof value.job === 'object' && value.job !== null ? value.job : null,
  };
}

function isChanges(value: unknown): value is WorkspaceChanges {
  if (typeof value !== 'object' || value === null) return false;
  const { files, insertions, deletions } = value as Record<string, unknown>;
  return [files, insertions, deletions].every((count) => typeof count === 'number');
}
