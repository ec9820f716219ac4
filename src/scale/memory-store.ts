import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { AnyEvent } from '../events/event';
import type { ApprovalAnswer } from '../sessions/types';
import { isAfter, nextId } from './entry-id';
import { endingEvents, type RunJob, type SessionJob } from './run-job';
import {
  changesRecord,
  holdsWork,
  isOpen,
  newRunRecord,
  newSessionRecord,
  noteEnd,
  noteEvent,
  noteMessage,
  noteTaken,
  pageOf,
  runRecordOf,
  type ListRunsOptions,
  type RunRecord,
  type StoredRun,
} from './run-record';
import { entryOfEvent, entryOfJson, isResultEntry } from './stream-entry';
import {
  DEFAULT_TTL_SECONDS,
  MAX_WAITING_MESSAGES,
  timerMs,
  type EnqueueOptions,
  type JobSignals,
  type ReadOptions,
  type RunCounts,
  type SentMessage,
  type SessionStore,
  type StreamEntry,
  type TakenJob,
  type WorkOptions,
} from './store';

/** A run as a journal hands it back when the store opens: its record, its entries as written, its diff. */
export interface JournaledRun {
  readonly record: StoredRun;
  readonly entries: readonly { readonly id: string; readonly json: string }[];
  readonly diff: string | null;
}

/**
 * Where an in-process store writes what it holds, so that a restart loses nothing (`FileRunJournal`:
 * the data directory of `serve`). Synchronous: an event is written before any reader is woken.
 */
export interface RunJournal {
  /** Every run kept that `keep` keeps (the others are removed), read once when the store opens. */
  load(keep: (record: StoredRun) => boolean): JournaledRun[];
  /** Writes the run's record as it now is. */
  saveRecord(record: StoredRun): void;
  /** Appends one entry to the run's events. */
  appendEntry(runId: string, id: string, json: string): void;
  saveDiff(runId: string, patch: string): void;
  /** Removes the run: record, events, diff. */
  remove(runId: string): void;
  close(): void;
}

/** Options of `MemoryRunStore`. */
export interface MemoryStoreOptions {
  /** How long a completed run is kept, in ms; default a day. */
  ttlMs?: number;
  /** Where to keep runs across restarts; default nowhere (this process's memory only). */
  journal?: RunJournal;
}

/** A job waiting for a worker: a run, or a session's turn. */
interface QueuedJob {
  readonly runId: string;
  readonly job: RunJob;
  readonly turn?: number;
}

/** A run in memory. */
interface MemoryRun {
  readonly record: StoredRun;
  readonly entries: StreamEntry[];
  diff: string | null;
  /** The CLI's session id the events announced last. */
  sessionId: string | null;
  /** Readers waiting for more. */
  readonly waiting: Set<() => void>;
  /** A session: closes it once it has been left `ttlMs` with no message and no turn. */
  abandoned?: NodeJS.Timeout;
}

/**
 * The in-process store: the same API as the Redis one, for a single process (a fresh machine, a
 * test, an app that needs no second machine). Completed runs (record and events) expire after
 * `ttlMs`. With a `journal`, every run is written as it goes and read back when the store opens: a
 * run that was queued or running then (its server died) is ended `server_lost`.
 */
export class MemoryRunStore implements SessionStore {
  private readonly runs = new Map<string, MemoryRun>();
  private readonly queue: QueuedJob[] = [];
  /** Sessions with a turn taken by a worker: their next turn waits (one turn at a time, in order). */
  private readonly busy = new Set<string>();
  private readonly signals = new Map<string, EventEmitter>();
  private readonly cancelled = new Set<string>();
  private readonly pullers = new Set<() => void>();
  private readonly ttlMs: number;
  private readonly journal: RunJournal | null;

  constructor(options: MemoryStoreOptions = {}) {
    this.ttlMs = options.ttlMs ?? DEFAULT_TTL_SECONDS * 1000;
    this.journal = options.journal ?? null;
    if (this.journal) {
      const now = Date.now();
      this.restore(
        this.journal.load((record) => record.endedAt === null || record.endedAt + this.ttlMs > now),
        now,
      );
    }
  }

  async enqueueRun(job: RunJob, options: EnqueueOptions = {}): Promise<string> {
    const runId = randomUUID();
    const record = newRunRecord(runId, job, options.owner ?? null, Date.now());
    this.journal?.saveRecord(record);
    this.runs.set(runId, { record, entries: [], diff: null, sessionId: null, waiting: new Set() });
    this.queue.push({ runId, job });
    for (const pull of this.pullers) pull();
    return runId;
  }

  async openSession(job: SessionJob, options: EnqueueOptions = {}): Promise<string> {
    const sessionId = randomUUID();
    const record = newSessionRecord(sessionId, job, options.owner ?? null, Date.now());
    this.journal?.saveRecord(record);
    const run: MemoryRun = { record, entries: [], diff: null, sessionId: null, waiting: new Set() };
    this.runs.set(sessionId, run);
    this.closeIfLeft(run, this.ttlMs);
    return sessionId;
  }

  async sendMessage(sessionId: string, text: string): Promise<SentMessage> {
    const run = this.runs.get(sessionId);
    if (!run || run.record.job === null) return { refused: 'no_session' };
    if (run.record.endedAt !== null) return { refused: 'closed' };
    if (this.queue.filter((entry) => entry.runId === sessionId).length >= MAX_WAITING_MESSAGES) return { refused: 'full' };
    noteMessage(run.record, text);
    this.journal?.saveRecord(run.record);
    const turn = run.record.turns;
    this.closeIfLeft(run, this.ttlMs);
    this.queue.push({ runId: sessionId, job: { ...run.record.job, prompt: text }, turn });
    for (const pull of this.pullers) pull();
    return { turn };
  }

  async interrupt(sessionId: string): Promise<void> {
    if (this.busy.has(sessionId)) this.signals.get(sessionId)?.emit('cancel');
  }

  async closeSession(sessionId: string): Promise<boolean> {
    const run = this.runs.get(sessionId);
    if (!run || run.record.job === null || run.record.endedAt !== null) return false;
    this.dropQueued(sessionId);
    // The worker holding its CLI closes it; with a turn running, that worker completes the stream
    // after the turn's last events (its `aborted` result), else it is completed here.
    this.signals.get(sessionId)?.emit('close');
    if (!this.busy.has(sessionId)) this.completeNow(run, []);
    return true;
  }

  async findRun(runId: string): Promise<RunRecord | null> {
    const run = this.runs.get(runId);
    return run ? runRecordOf(run.record, this.ttlMs / 1000) : null;
  }

  async listRuns(owner: string | null, options: ListRunsOptions = {}): Promise<RunRecord[]> {
    const owned = [...this.runs.values()].map((run) => run.record).filter((record) => record.owner === owner);
    return pageOf(owned, options).map((record) => runRecordOf(record, this.ttlMs / 1000));
  }

  async deleteRun(runId: string): Promise<boolean> {
    const run = this.runs.get(runId);
    if (!run || isOpen(run.record)) return false;
    // A run ended before a worker took it: its job goes too, so that no worker starts it.
    this.dropQueued(runId);
    this.forget(runId);
    return true;
  }

  async countRuns(owner?: string): Promise<RunCounts> {
    let owned = 0;
    if (owner !== undefined)
      for (const run of this.runs.values()) if (run.record.owner === owner && run.record.endedAt === null && holdsWork(run.record)) owned++;
    return { waiting: this.queue.length, owned };
  }

  async saveDiff(runId: string, patch: string): Promise<void> {
    const run = this.runs.get(runId);
    if (!run) return;
    this.journal?.saveDiff(runId, patch);
    run.diff = patch;
  }

  async readDiff(runId: string): Promise<string | null> {
    return this.runs.get(runId)?.diff ?? null;
  }

  async append(runId: string, event: AnyEvent): Promise<string | null> {
    const run = this.runs.get(runId);
    return run ? this.appendNow(run, event) : null;
  }

  async complete(runId: string, ending: readonly AnyEvent[] = []): Promise<boolean> {
    const run = this.runs.get(runId);
    return run ? this.completeNow(run, ending) : false;
  }

  async isComplete(runId: string): Promise<boolean> {
    const run = this.runs.get(runId);
    return run ? run.record.endedAt !== null : false;
  }

  async lastSessionId(runId: string): Promise<string | null> {
    return this.runs.get(runId)?.sessionId ?? null;
  }

  async *readRunEvents(runId: string, options: ReadOptions = {}): AsyncIterable<StreamEntry> {
    const { after, signal, follow = true } = options;
    const run = this.runs.get(runId);
    if (!run) return;
    let at = after === undefined ? 0 : run.entries.findIndex((entry) => isAfter(entry.id, after));
    if (at < 0) at = run.entries.length;
    while (!signal?.aborted) {
      while (at < run.entries.length) yield run.entries[at++];
      if (run.record.endedAt !== null || !follow) return;
      await new Promise<void>((resolve) => {
        const done = () => {
          run.waiting.delete(done);
          signal?.removeEventListener('abort', done);
          resolve();
        };
        run.waiting.add(done);
        signal?.addEventListener('abort', done, { once: true });
        // Aborted while the last entry was being read: no 'abort' event comes any more.
        if (signal?.aborted) done();
      });
    }
  }

  async cancel(runId: string): Promise<void> {
    // Only a run that is not over can be cancelled: an unknown id leaves nothing behind.
    const run = this.runs.get(runId);
    if (!run || run.record.endedAt !== null) return;
    // A session's turn is interrupted: the session goes on.
    if (run.record.kind === 'session') return this.interrupt(runId);
    this.cancelled.add(runId);
    this.signals.get(runId)?.emit('cancel');
  }

  async approve(runId: string, approvalId: string, answer: ApprovalAnswer): Promise<void> {
    this.signals.get(runId)?.emit('approve', approvalId, answer);
  }

  work(handle: (taken: TakenJob, signals: JobSignals) => Promise<void>, options: WorkOptions): { close(): Promise<void> } {
    const running = new Set<Promise<void>>();
    let closed = false;
    const pull = (): void => {
      while (!closed && running.size < options.concurrency) {
        // The first job whose session has no turn running: a session's turns are played one at a time, in order.
        const next = this.queue.findIndex((entry) => !this.busy.has(entry.runId));
        if (next < 0) break;
        const [{ runId, job, turn }] = this.queue.splice(next, 1);
        // A session's emitter is the turn's: its worker listens on it until the next turn is taken (a close between turns reaches it).
        const emitter = new EventEmitter();
        this.signals.set(runId, emitter);
        if (turn !== undefined) this.busy.add(runId);
        this.noteTaken(runId);
        const signals: JobSignals = {
          onCancel: (listener) => emitter.on('cancel', listener),
          onApprove: (listener) => emitter.on('approve', listener),
          onClose: (listener) => emitter.on('close', listener),
          cancelled: this.cancelled.has(runId),
        };
        // A job that throws (its journal could not write: a full disk) never takes the process down;
        // its run stays open, and is ended server_lost when the store opens again.
        const task = handle({ runId, job, attempt: 1, turn }, signals)
          .catch(() => undefined)
          .finally(() => {
            this.busy.delete(runId);
            running.delete(task);
            pull();
          });
        running.add(task);
      }
    };
    this.pullers.add(pull);
    pull();
    return {
      close: async () => {
        closed = true;
        this.pullers.delete(pull);
        await Promise.all(running);
        await options.stopped?.();
      },
    };
  }

  async close(): Promise<void> {
    for (const run of this.runs.values()) this.wake(run);
    this.journal?.close();
  }

  /** Appends `event` unless the run has ended: written (journal), kept, then its readers woken. */
  private appendNow(run: MemoryRun, event: AnyEvent): string | null {
    if (run.record.endedAt !== null) return null;
    const id = nextId(run.entries.at(-1)?.id ?? null, Date.now());
    const entry = entryOfEvent(id, event);
    this.journal?.appendEntry(run.record.id, id, entry.json);
    run.entries.push(entry);
    if (event.provider_session_id) run.sessionId = event.provider_session_id;
    if (changesRecord(event)) {
      noteEvent(run.record, event);
      this.journal?.saveRecord(run.record);
    }
    if (event.kind === 'result' && run.record.kind === 'session') this.closeIfLeft(run, this.ttlMs);
    this.wake(run);
    return id;
  }

  /** Appends `ending` and ends the run, once; schedules its expiry. */
  private completeNow(run: MemoryRun, ending: readonly AnyEvent[]): boolean {
    if (run.record.endedAt !== null) return false;
    for (const event of ending) this.appendNow(run, event);
    noteEnd(run.record, Date.now());
    this.journal?.saveRecord(run.record);
    this.wake(run);
    clearTimeout(run.abandoned);
    const runId = run.record.id;
    this.signals.delete(runId);
    this.cancelled.delete(runId);
    this.dropQueued(runId);
    this.expireIn(runId, this.ttlMs);
    return true;
  }

  /** Removes the jobs of `runId` that wait for a worker (a run's, a session's turns). */
  private dropQueued(runId: string): void {
    for (let index = this.queue.length - 1; index >= 0; index--) if (this.queue[index].runId === runId) this.queue.splice(index, 1);
  }

  private noteTaken(runId: string): void {
    const run = this.runs.get(runId);
    if (!run || !isOpen(run.record)) return;
    noteTaken(run.record);
    this.journal?.saveRecord(run.record);
  }

  /**
   * Takes back the journal's runs (expired ones the journal removed): each kept until it expires, and a
   * run that had not ended ended now, `server_lost` (nothing will finish it: its worker was this
   * process). A session goes on: the turn it was playing (and those waiting) failed `server_lost`,
   * and its next message starts its CLI again on the same conversation.
   */
  private restore(runs: JournaledRun[], now: number): void {
    for (const { record, entries, diff } of runs) {
      const restored = entries.map(({ id, json }) => entryOfJson(id, json));
      const run: MemoryRun = {
        record,
        entries: restored,
        diff,
        sessionId: record.kind === 'session' ? lastSessionIdOf(restored) : null,
        waiting: new Set(),
      };
      this.runs.set(record.id, run);
      if (record.endedAt === null && record.kind === 'session') {
        const lastActive = Math.max(record.createdAt, Number(restored.at(-1)?.id.split('-')[0] ?? 0));
        this.closeIfLeft(run, lastActive + this.ttlMs - now);
        if (record.status !== 'idle') {
          // Each turn not played (the one running, those waiting behind it) gets its ending: every turn ends with a result.
          const unplayed = Math.max(1, record.turns - restored.filter(isResultEntry).length);
          const message = `the server stopped while this session's turn was ${record.status}: that turn (and any message waiting behind it) was not played; send it again`;
          for (let turn = 0; turn < unplayed; turn++)
            for (const event of endingEvents(record.provider, 'server_lost', message, 'failed')) this.appendNow(run, event);
          record.status = 'idle';
          this.journal?.saveRecord(record);
        }
      } else if (record.endedAt === null) {
        const message = `the server stopped while this run was ${record.status}: it was not finished, and is not run again`;
        this.completeNow(run, endingEvents(record.provider, 'server_lost', message, 'failed'));
      } else {
        this.expireIn(record.id, record.endedAt + this.ttlMs - now);
      }
    }
  }

  /**
   * Closes the session in `ms` unless a message or a turn's end comes first (each one starts the wait
   * again): a conversation left is not kept forever (`ttl`: then its events go `ttl` after its end).
   */
  private closeIfLeft(run: MemoryRun, ms: number): void {
    clearTimeout(run.abandoned);
    run.abandoned = setTimeout(
      () => {
        if (!this.busy.has(run.record.id)) void this.closeSession(run.record.id).catch(() => undefined);
        else this.closeIfLeft(run, this.ttlMs);
      },
      timerMs(Math.max(0, ms)),
    );
    run.abandoned.unref();
  }

  private expireIn(runId: string, ms: number): void {
    setTimeout(() => {
      try {
        this.forget(runId);
      } catch {
        // Its files could not be removed now: they are when the store opens again (it is past its ttl).
      }
    }, timerMs(ms)).unref();
  }

  private forget(runId: string): void {
    if (!this.runs.delete(runId)) return;
    this.journal?.remove(runId);
  }

  private wake(run: MemoryRun): void {
    for (const resolve of [...run.waiting]) resolve();
  }
}

/** The CLI's session id the entries announced last (read from the end), or null. */
function lastSessionIdOf(entries: readonly StreamEntry[]): string | null {
  for (let index = entries.length - 1; index >= 0; index--) {
    const id = entries[index].event.provider_session_id;
    if (id) return id;
  }
  return null;
}
