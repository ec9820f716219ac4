import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { AnyEvent } from '../events/event';
import type { ApprovalAnswer } from '../sessions/types';
import type { RunJob } from './run-job';
import {
  changesRecord,
  isOlder,
  isOpen,
  newRunRecord,
  noteEnd,
  noteEvent,
  noteTaken,
  readStoredRun,
  runRecordOf,
  type ListRunsOptions,
  type RunRecord,
  type StoredRun,
} from './run-record';
import { entryOfJson } from './stream-entry';
import {
  DEFAULT_TTL_SECONDS,
  type EnqueueOptions,
  type JobSignals,
  type ReadOptions,
  type RunCounts,
  type RunStore,
  type StreamEntry,
  type TakenJob,
} from './store';

/* eslint-disable @typescript-eslint/no-explicit-any -- bullmq and ioredis are optional peers, loaded at run time */

/** Options of `RedisRunStore`. */
export interface RedisStoreOptions {
  /** `redis://host:port[/db]`. */
  url: string;
  /** The prefix of every key and of the queue's name; default `csc`. */
  prefix?: string;
  /** How long a completed run's stream stays readable, in seconds; default one day. */
  ttlSeconds?: number;
  /**
   * How long a worker's hold on a run lasts without renewal, in milliseconds (BullMQ's
   * `lockDuration`): a worker that dies is noticed after about this long (then a stalled check).
   * Default 15000; the tests use 2000.
   */
  lockMs?: number;
}

/** The end of a run's stream: an entry of this field, after its last event. */
const END_FIELD = 'end';

/**
 * Appends an event unless the run has ended, and keeps the CLI's session id it announces when it is
 * a new one (what a retried run resumes). KEYS: events, ended, session. ARGV: the event's JSON, its
 * session id or ''. A worker whose hold on a run lapsed (a starved machine) may still be running it
 * after another worker took it for lost and ended it: nothing it says after the end reaches the stream.
 */
const APPEND_IF_OPEN = `if redis.call('EXISTS', KEYS[2]) == 1 then return false end
if ARGV[2] ~= '' and redis.call('GET', KEYS[3]) ~= ARGV[2] then redis.call('SET', KEYS[3], ARGV[2]) end
return redis.call('XADD', KEYS[1], '*', 'e', ARGV[1])`;

/**
 * Ends a run once, its ending events and the end marker at once; its session id expires with its
 * stream (its record does not: it is deleted, `deleteRun`, never expired). KEYS: events, ended,
 * cancel, session. ARGV: the ttl in seconds, then the ending events' JSON.
 */
const END_ONCE = `if not redis.call('SET', KEYS[2], '1', 'EX', ARGV[1], 'NX') then return 0 end
for i = 2, #ARGV do redis.call('XADD', KEYS[1], '*', 'e', ARGV[i]) end
redis.call('XADD', KEYS[1], '*', 'end', '1')
redis.call('EXPIRE', KEYS[1], ARGV[1])
redis.call('EXPIRE', KEYS[4], ARGV[1])
redis.call('DEL', KEYS[3])
return 1`;

/**
 * The Redis store: BullMQ's queue of runs, one Redis Stream of events per run (the entry id is the
 * cursor), and a pub/sub channel per run for what must reach the worker holding it. Every process
 * that opens it (web servers, workers) shares runs through Redis. Needs `bullmq` and `ioredis`
 * (optional peer dependencies of this package).
 */
export class RedisRunStore implements RunStore {
  private readonly redis: any;
  private readonly queue: any;
  private readonly prefix: string;
  private readonly ttl: number;
  private readonly connection: { url: string };
  private readonly readers = new Set<any>();

  /** `bullmq` and `ioredis` modules are passed in (`openRunStore` loads them). */
  constructor(
    private readonly modules: { bullmq: any; ioredis: any },
    private readonly options: RedisStoreOptions,
  ) {
    this.prefix = options.prefix ?? 'csc';
    this.ttl = options.ttlSeconds ?? DEFAULT_TTL_SECONDS;
    this.connection = { url: options.url };
    const Redis = modules.ioredis.default ?? modules.ioredis;
    this.redis = new Redis(options.url, { maxRetriesPerRequest: null });
    this.redis.defineCommand('cscAppendIfOpen', { numberOfKeys: 3, lua: APPEND_IF_OPEN });
    this.redis.defineCommand('cscEndOnce', { numberOfKeys: 4, lua: END_ONCE });
    this.queue = new modules.bullmq.Queue(`${this.prefix}-runs`, { connection: this.connectionOptions() });
  }

  async enqueueRun(job: RunJob, options: EnqueueOptions = {}): Promise<string> {
    const runId = randomUUID();
    const record = newRunRecord(runId, job, options.owner ?? null, Date.now());
    // The record first: a run is known (to its owner) from the moment it can be taken.
    await this.redis
      .pipeline()
      .set(this.key(runId, 'record'), JSON.stringify(record))
      .zadd(this.recordsKey(record.owner), record.createdAt, runId)
      .exec();
    if (options.owner !== undefined) await this.redis.sadd(this.ownerKey(options.owner), runId);
    // The job's id is the run's: a run is queued once. Finished jobs are dropped: the stream is the record.
    await this.queue.add('run', { runId, job }, { jobId: runId, removeOnComplete: true, removeOnFail: { age: this.ttl } });
    return runId;
  }

  async findRun(runId: string): Promise<RunRecord | null> {
    const record = await this.readRecord(runId);
    return record && runRecordOf(record, this.ttl);
  }

  async listRuns(owner: string | null, options: ListRunsOptions = {}): Promise<RunRecord[]> {
    const { before, limit = 20 } = options;
    const key = this.recordsKey(owner);
    // Newest first is the sorted set's reverse order (score, then id): the runs queued in the cursor's
    // millisecond are read with the page and the ones not older than it dropped.
    const tied = before === undefined ? 0 : Number(await this.redis.zcount(key, before.createdAt, before.createdAt));
    const reply: string[] = await this.redis.zrevrangebyscore(
      key,
      before?.createdAt ?? '+inf',
      '-inf',
      'WITHSCORES',
      'LIMIT',
      0,
      limit + tied,
    );
    const ids: string[] = [];
    for (let i = 0; i < reply.length; i += 2)
      if (before === undefined || isOlder({ id: reply[i], createdAt: Number(reply[i + 1]) }, before)) ids.push(reply[i]);
    const page = ids.slice(0, limit);
    const texts: (string | null)[] = page.length === 0 ? [] : await this.redis.mget(...page.map((id) => this.key(id, 'record')));
    const records: RunRecord[] = [];
    texts.forEach((text, index) => {
      const record = text === null ? null : readStoredRun(page[index], text);
      if (record) records.push(runRecordOf(record, this.ttl));
    });
    return records.slice(0, limit);
  }

  async deleteRun(runId: string): Promise<boolean> {
    const record = await this.readRecord(runId);
    if (!record || isOpen(record)) return false;
    const keys = (['record', 'events', 'ended', 'cancel', 'diff', 'session'] as const).map((what) => this.key(runId, what));
    await this.redis
      .pipeline()
      .del(...keys)
      .zrem(this.recordsKey(record.owner), runId)
      .exec();
    if (record.owner !== null) await this.redis.srem(this.ownerKey(record.owner), runId);
    // Its job, when one is left (a run ended before a worker took it; a failed job is kept a while): a reader follows a run while its job lives.
    await this.queue.remove(runId).catch(() => undefined);
    return true;
  }

  async countRuns(owner?: string): Promise<RunCounts> {
    const waiting = Number(await this.queue.getWaitingCount());
    if (owner === undefined) return { waiting, owned: 0 };
    // The owner's set is pruned as it is read: a run that ended (or expired) is no longer theirs to count.
    let owned = 0;
    for (const runId of (await this.redis.smembers(this.ownerKey(owner))) as string[]) {
      const record = await this.readRecord(runId);
      if (record && isOpen(record)) owned++;
      else await this.redis.srem(this.ownerKey(owner), runId);
    }
    return { waiting, owned };
  }

  async saveDiff(runId: string, patch: string): Promise<void> {
    await this.redis.set(this.key(runId, 'diff'), patch, 'EX', this.ttl);
  }

  async readDiff(runId: string): Promise<string | null> {
    return this.redis.get(this.key(runId, 'diff'));
  }

  async append(runId: string, event: AnyEvent): Promise<string | null> {
    const id: string | null =
      (await this.redis.cscAppendIfOpen(
        this.key(runId, 'events'),
        this.key(runId, 'ended'),
        this.key(runId, 'session'),
        JSON.stringify(event),
        event.provider_session_id ?? '',
      )) ?? null;
    // Only the run's worker appends, one event at a time: its record is read and written in turn.
    if (id !== null && changesRecord(event)) await this.updateRecord(runId, (record) => noteEvent(record, event));
    return id;
  }

  async complete(runId: string, ending: readonly AnyEvent[] = []): Promise<boolean> {
    const ended = await this.redis.cscEndOnce(
      this.key(runId, 'events'),
      this.key(runId, 'ended'),
      this.key(runId, 'cancel'),
      this.key(runId, 'session'),
      this.ttl,
      ...ending.map((event) => JSON.stringify(event)),
    );
    if (ended !== 1) return false;
    await this.updateRecord(runId, (record) => {
      for (const event of ending) noteEvent(record, event);
      noteEnd(record, Date.now());
    });
    return true;
  }

  async isComplete(runId: string): Promise<boolean> {
    if ((await this.redis.exists(this.key(runId, 'ended'))) === 1) return true;
    // Past its ttl the end marker is gone with the stream; the record still says the run ended.
    const record = await this.readRecord(runId);
    return record !== null && record.endedAt !== null;
  }

  async lastSessionId(runId: string): Promise<string | null> {
    return this.redis.get(this.key(runId, 'session'));
  }

  async *readRunEvents(runId: string, options: ReadOptions = {}): AsyncIterable<StreamEntry> {
    const { signal, follow = true } = options;
    const key = this.key(runId, 'events');
    let cursor = options.after ?? '0-0';
    // A blocking read holds its connection: each follower has its own.
    const reader = follow ? this.redis.duplicate() : this.redis;
    if (follow) this.readers.add(reader);
    const stop = () => reader.disconnect();
    signal?.addEventListener('abort', stop, { once: true });
    try {
      while (!signal?.aborted) {
        const reply = follow
          ? await reader.xread('BLOCK', 1000, 'COUNT', 500, 'STREAMS', key, cursor)
          : [[key, await reader.xrange(key, `(${cursor}`, '+')]];
        const entries: [string, string[]][] = reply?.[0]?.[1] ?? [];
        for (const [id, fields] of entries) {
          // A reader that left stops at once, not at the end of the batch.
          if (signal?.aborted) return;
          cursor = id;
          if (fields[0] === END_FIELD) return;
          yield entryOfJson(id, fields[1]);
        }
        if (!follow) return;
        // A stream that never was (an unknown run, or one expired): nothing to follow.
        if (entries.length === 0 && (await this.redis.exists(key)) === 0 && (await this.queue.getJob(runId)) === undefined) return;
      }
    } catch (error) {
      if (!signal?.aborted) throw error;
    } finally {
      signal?.removeEventListener('abort', stop);
      if (follow) {
        this.readers.delete(reader);
        reader.disconnect();
      }
    }
  }

  async cancel(runId: string): Promise<void> {
    // A made-up id leaves no key behind (2,000 cancels of unknown ids once left 2,000 keys for a day).
    if ((await this.redis.exists(this.key(runId, 'record'))) === 0 || (await this.isComplete(runId))) return;
    // The flag for a worker yet to take the run; the message for the one holding it.
    await this.redis.set(this.key(runId, 'cancel'), '1', 'EX', this.ttl);
    await this.redis.publish(this.key(runId, 'control'), JSON.stringify({ type: 'cancel' }));
  }

  async approve(runId: string, approvalId: string, answer: ApprovalAnswer): Promise<void> {
    await this.redis.publish(this.key(runId, 'control'), JSON.stringify({ type: 'approve', approvalId, answer }));
  }

  work(handle: (taken: TakenJob, signals: JobSignals) => Promise<void>, options: { concurrency: number }): { close(): Promise<void> } {
    const subscriber = this.redis.duplicate();
    const held = new Map<string, EventEmitter>();
    const channel = this.key('*', 'control');
    void subscriber.psubscribe(channel);
    subscriber.on('pmessage', (_pattern: string, name: string, text: string) => {
      const runId = name.slice(`${this.prefix}:run:`.length, -':control'.length);
      const emitter = held.get(runId);
      if (!emitter) return;
      try {
        const message = JSON.parse(text) as { type: string; approvalId?: string; answer?: ApprovalAnswer };
        if (message.type === 'cancel') emitter.emit('cancel');
        else if (message.type === 'approve') emitter.emit('approve', message.approvalId, message.answer);
      } catch {
        // Not ours to read: ignored.
      }
    });
    const worker = new this.modules.bullmq.Worker(
      `${this.prefix}-runs`,
      async (job: any) => {
        const { runId, job: runJob } = job.data as { runId: string; job: RunJob };
        const emitter = new EventEmitter();
        held.set(runId, emitter);
        try {
          await this.updateRecord(runId, noteTaken);
          const cancelled = (await this.redis.exists(this.key(runId, 'cancel'))) === 1;
          const signals: JobSignals = {
            onCancel: (listener) => emitter.on('cancel', listener),
            onApprove: (listener) => emitter.on('approve', listener),
            cancelled,
          };
          await handle({ runId, job: runJob, attempt: Number(job.attemptsStarted ?? 1) || 1 }, signals);
        } finally {
          held.delete(runId);
        }
      },
      {
        connection: this.connectionOptions(),
        concurrency: options.concurrency,
        lockDuration: this.options.lockMs ?? 15_000,
        stalledInterval: Math.max(500, Math.floor((this.options.lockMs ?? 15_000) / 2)),
        // A run whose worker died is taken again, so that the one taking it decides (fail it, or retry it).
        maxStalledCount: 10,
      },
    );
    // A hold that could not be renewed (a starved machine): the run may be taken for lost by another
    // worker; it is stopped here rather than run on unheard (its stream takes one ending either way).
    worker.on('lockRenewalFailed', (jobIds: string[]) => {
      for (const jobId of jobIds) held.get(jobId)?.emit('cancel');
    });
    return {
      close: async () => {
        await worker.close();
        subscriber.disconnect();
      },
    };
  }

  async close(): Promise<void> {
    for (const reader of this.readers) reader.disconnect();
    await this.queue.close();
    this.redis.disconnect();
  }

  /** The run's record, or null. */
  private async readRecord(runId: string): Promise<StoredRun | null> {
    const text: string | null = await this.redis.get(this.key(runId, 'record'));
    return text === null ? null : readStoredRun(runId, text);
  }

  /** Changes the run's record (a run unknown is left alone: no key is made for it). */
  private async updateRecord(runId: string, change: (record: StoredRun) => void): Promise<void> {
    const record = await this.readRecord(runId);
    if (!record) return;
    change(record);
    await this.redis.set(this.key(runId, 'record'), JSON.stringify(record), 'XX');
  }

  private key(runId: string, what: 'events' | 'ended' | 'cancel' | 'control' | 'record' | 'diff' | 'session'): string {
    return `${this.prefix}:run:${runId}:${what}`;
  }

  /** The sorted set of an owner's records (of the runs queued without one: ''), by the time each was queued. */
  private recordsKey(owner: string | null): string {
    return `${this.prefix}:owner:${encodeURIComponent(owner ?? '')}:records`;
  }

  /** The set of an owner's runs not yet seen ended. */
  private ownerKey(owner: string): string {
    return `${this.prefix}:owner:${encodeURIComponent(owner)}:runs`;
  }

  /** BullMQ's own connections, from the same URL. */
  private connectionOptions(): Record<string, unknown> {
    const url = new URL(this.connection.url);
    const db = url.pathname.length > 1 ? Number(url.pathname.slice(1)) : undefined;
    return {
      host: url.hostname,
      port: Number(url.port || 6379),
      ...(db === undefined ? {} : { db }),
      ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
      maxRetriesPerRequest: null,
    };
  }
}
