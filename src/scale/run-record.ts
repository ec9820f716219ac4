import type { AnyEvent } from '../events/event';
import { UsageTotals, type UsageState } from '../providers/usage';
import { runCostOf } from '../runner/outcome';
import type { RunCost } from '../runner/types';
import type { RunJob } from './run-job';
import type { WorkspaceChanges } from './workspace';

/*
 * The record of a run: what a list of runs shows without reading any stream. The one home of how it
 * is made and kept up to date, for every store (in process, on disk, on Redis): made when the run is
 * queued, `running` when a worker takes it, its usage and status updated as its events are appended
 * (usage added up by the usage rules, `UsageTotals`, event by event: a list never reads a stream),
 * ended when its stream is completed. A session's record will be the same with more `turns`.
 */

/** Where a run is: waiting for a worker, running, or how it ended (`cancelled`: its result was `aborted`). */
export type RunRecordStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

/** The statuses of a run that is not over. */
const OPEN: readonly RunRecordStatus[] = ['queued', 'running'];

/** The longest title kept, in characters: a list shows a line, not the prompt. */
export const TITLE_MAX_CHARS = 120;

/** A run's record as a store keeps it (JSON: a Redis value, a line of the data directory's index). */
export interface StoredRun {
  readonly id: string;
  readonly owner: string | null;
  readonly provider: string;
  readonly model: string | null;
  /** The prompt's first line (of text), cut to `TITLE_MAX_CHARS`. */
  readonly title: string;
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
}

/** A run as the runs API lists it (`GET /runs`, `GET /runs/:id`): the caller's own, never its owner. */
export interface RunSummary {
  readonly id: string;
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
  /** How many at most; default 20. */
  limit?: number;
  /** Only runs older than this one. */
  before?: RunCursor;
}

/** The record of a run just queued. */
export function newRunRecord(id: string, job: RunJob, owner: string | null, now: number): StoredRun {
  return { id, owner, provider: job.provider, model: job.model ?? null, title: titleOf(job.prompt), turns: 1, createdAt: now, endedAt: null, status: 'queued', usage: null, changes: null };
}

/** The first line of `prompt` that has text, trimmed and cut to `TITLE_MAX_CHARS` characters. */
export function titleOf(prompt: string): string {
  const line = prompt.split('\n').map((part) => part.trim()).find((part) => part !== '') ?? '';
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
    record.status = status === 'completed' ? 'completed' : status === 'aborted' ? 'cancelled' : 'failed';
    const changes = (metadata as Record<string, unknown> | undefined)?.changes;
    if (isChanges(changes)) record.changes = { files: changes.files, insertions: changes.insertions, deletions: changes.deletions };
  }
}

/** Notes that a worker took the run. */
export function noteTaken(record: StoredRun): void {
  if (record.status === 'queued') record.status = 'running';
}

/** Notes the end of the run's stream: a run that ended without a result failed. */
export function noteEnd(record: StoredRun, now: number): void {
  record.endedAt = now;
  if (isOpen(record)) record.status = 'failed';
}

/** Whether the run is queued or running. */
export function isOpen(record: { readonly status: RunRecordStatus }): boolean {
  return OPEN.includes(record.status);
}

/** The summary of `record` a caller is shown, its events kept `ttlSeconds` after its end. */
export function summaryOf(record: StoredRun, ttlSeconds: number): RunSummary {
  return {
    id: record.id,
    provider: record.provider,
    model: record.model,
    status: record.status,
    created_at: new Date(record.createdAt).toISOString(),
    ended_at: record.endedAt === null ? null : new Date(record.endedAt).toISOString(),
    title: record.title,
    turns: record.turns,
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
  const { before, limit = 20 } = options;
  const matching = [...records].filter((record) => before === undefined || isOlder(record, before));
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
  };
}

function isChanges(value: unknown): value is WorkspaceChanges {
  if (typeof value !== 'object' || value === null) return false;
  const { files, insertions, deletions } = value as Record<string, unknown>;
  return [files, insertions, deletions].every((count) => typeof count === 'number');
}
