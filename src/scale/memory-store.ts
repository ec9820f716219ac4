import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { AnyEvent } from '../events/event';
import type { ApprovalAnswer } from '../sessions/types';
import { isAfter, nextId } from './entry-id';
import type { RunJob } from './run-job';
import { entryOfEvent } from './stream-entry';
import { DEFAULT_TTL_SECONDS, timerMs, type EnqueueOptions, type JobSignals, type ReadOptions, type RunCounts, type RunRecord, type RunStore, type StreamEntry, type TakenJob } from './store';

/** A run's stream in memory. */
interface MemoryStream {
  readonly entries: StreamEntry[];
  complete: boolean;
  owner: string | null;
  diff: string | null;
  /** The CLI's session id the events announced last. */
  sessionId: string | null;
  /** Readers waiting for more. */
  readonly waiting: Set<() => void>;
}

/**
 * The in-process store: the same API as the Redis one, for a single process (a fresh machine, a
 * test, an app that needs no second machine). Streams of completed runs expire after `ttlMs`.
 */
export class MemoryRunStore implements RunStore {
  private readonly streams = new Map<string, MemoryStream>();
  private readonly queue: { runId: string; job: RunJob }[] = [];
  private readonly signals = new Map<string, EventEmitter>();
  private readonly cancelled = new Set<string>();
  private readonly pullers = new Set<() => void>();

  constructor(private readonly options: { ttlMs?: number } = {}) {}

  async enqueueRun(job: RunJob, options: EnqueueOptions = {}): Promise<string> {
    const runId = randomUUID();
    this.stream(runId).owner = options.owner ?? null;
    this.queue.push({ runId, job });
    for (const pull of this.pullers) pull();
    return runId;
  }

  async findRun(runId: string): Promise<RunRecord | null> {
    const stream = this.streams.get(runId);
    return stream ? { owner: stream.owner } : null;
  }

  async countRuns(owner?: string): Promise<RunCounts> {
    let owned = 0;
    if (owner !== undefined) for (const stream of this.streams.values()) if (stream.owner === owner && !stream.complete) owned++;
    return { waiting: this.queue.length, owned };
  }

  async saveDiff(runId: string, patch: string): Promise<void> {
    const stream = this.streams.get(runId);
    if (stream) stream.diff = patch;
  }

  async readDiff(runId: string): Promise<string | null> {
    return this.streams.get(runId)?.diff ?? null;
  }

  async append(runId: string, event: AnyEvent): Promise<string | null> {
    const stream = this.stream(runId);
    if (stream.complete) return null;
    const id = nextId(stream.entries.at(-1)?.id ?? null, Date.now());
    stream.entries.push(entryOfEvent(id, event));
    if (event.provider_session_id) stream.sessionId = event.provider_session_id;
    this.wake(stream);
    return id;
  }

  async complete(runId: string, ending: readonly AnyEvent[] = []): Promise<boolean> {
    const stream = this.stream(runId);
    if (stream.complete) return false;
    for (const event of ending) await this.append(runId, event);
    stream.complete = true;
    this.wake(stream);
    this.signals.delete(runId);
    this.cancelled.delete(runId);
    setTimeout(() => this.streams.delete(runId), timerMs(this.options.ttlMs ?? DEFAULT_TTL_SECONDS * 1000)).unref();
    return true;
  }

  async isComplete(runId: string): Promise<boolean> {
    return this.streams.get(runId)?.complete ?? false;
  }

  async lastSessionId(runId: string): Promise<string | null> {
    return this.streams.get(runId)?.sessionId ?? null;
  }

  async *readRunEvents(runId: string, options: ReadOptions = {}): AsyncIterable<StreamEntry> {
    const { after, signal, follow = true } = options;
    const stream = this.streams.get(runId);
    if (!stream) return;
    let at = after === undefined ? 0 : stream.entries.findIndex((entry) => isAfter(entry.id, after));
    if (at < 0) at = stream.entries.length;
    while (!signal?.aborted) {
      while (at < stream.entries.length) yield stream.entries[at++];
      if (stream.complete || !follow) return;
      await new Promise<void>((resolve) => {
        const done = () => {
          stream.waiting.delete(done);
          signal?.removeEventListener('abort', done);
          resolve();
        };
        stream.waiting.add(done);
        signal?.addEventListener('abort', done, { once: true });
      });
    }
  }

  async cancel(runId: string): Promise<void> {
    // Only a run that is not over can be cancelled: an unknown id leaves nothing behind.
    const stream = this.streams.get(runId);
    if (!stream || stream.complete) return;
    this.cancelled.add(runId);
    this.signals.get(runId)?.emit('cancel');
  }

  async approve(runId: string, approvalId: string, answer: ApprovalAnswer): Promise<void> {
    this.signals.get(runId)?.emit('approve', approvalId, answer);
  }

  work(handle: (taken: TakenJob, signals: JobSignals) => Promise<void>, options: { concurrency: number }): { close(): Promise<void> } {
    const running = new Set<Promise<void>>();
    let closed = false;
    const pull = (): void => {
      while (!closed && running.size < options.concurrency && this.queue.length > 0) {
        const { runId, job } = this.queue.shift() as { runId: string; job: RunJob };
        const emitter = new EventEmitter();
        this.signals.set(runId, emitter);
        const signals: JobSignals = {
          onCancel: (listener) => emitter.on('cancel', listener),
          onApprove: (listener) => emitter.on('approve', listener),
          cancelled: this.cancelled.has(runId),
        };
        const task = handle({ runId, job, attempt: 1 }, signals).finally(() => {
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
      },
    };
  }

  async close(): Promise<void> {
    for (const stream of this.streams.values()) this.wake(stream);
  }

  private stream(runId: string): MemoryStream {
    let stream = this.streams.get(runId);
    if (!stream) {
      stream = { entries: [], complete: false, owner: null, diff: null, sessionId: null, waiting: new Set() };
      this.streams.set(runId, stream);
    }
    return stream;
  }

  private wake(stream: MemoryStream): void {
    for (const resolve of [...stream.waiting]) resolve();
  }
}
