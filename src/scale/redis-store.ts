import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { Event, type AnyEvent } from '../events/event';
import type { ApprovalAnswer } from '../sessions/types';
import type { RunJob } from './run-job';
import type { JobSignals, ReadOptions, RunStore, StreamEntry, TakenJob } from './store';

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
    this.ttl = options.ttlSeconds ?? 86_400;
    this.connection = { url: options.url };
    const Redis = modules.ioredis.default ?? modules.ioredis;
    this.redis = new Redis(options.url, { maxRetriesPerRequest: null });
    this.queue = new modules.bullmq.Queue(`${this.prefix}-runs`, { connection: this.connectionOptions() });
  }

  async enqueue(job: RunJob): Promise<string> {
    const runId = randomUUID();
    // The job's id is the run's: a run is queued once. Finished jobs are dropped: the stream is the record.
    await this.queue.add('run', { runId, job }, { jobId: runId, removeOnComplete: true, removeOnFail: { age: this.ttl } });
    return runId;
  }

  async append(runId: string, event: AnyEvent): Promise<string> {
    return this.redis.xadd(this.key(runId, 'events'), '*', 'e', JSON.stringify(event));
  }

  async complete(runId: string): Promise<boolean> {
    const first = await this.redis.set(this.key(runId, 'ended'), '1', 'EX', this.ttl, 'NX');
    if (first !== 'OK') return false;
    const events = this.key(runId, 'events');
    await this.redis.multi().xadd(events, '*', END_FIELD, '1').expire(events, this.ttl).del(this.key(runId, 'cancel')).exec();
    return true;
  }

  async isComplete(runId: string): Promise<boolean> {
    return (await this.redis.exists(this.key(runId, 'ended'))) === 1;
  }

  async *read(runId: string, options: ReadOptions = {}): AsyncIterable<StreamEntry> {
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
        const reply = follow ? await reader.xread('BLOCK', 1000, 'COUNT', 500, 'STREAMS', key, cursor) : [[key, await reader.xrange(key, `(${cursor}`, '+')]];
        const entries: [string, string[]][] = reply?.[0]?.[1] ?? [];
        for (const [id, fields] of entries) {
          cursor = id;
          if (fields[0] === END_FIELD) return;
          yield { id, event: Event.fromJSON(fields[1]) };
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
          const cancelled = (await this.redis.exists(this.key(runId, 'cancel'))) === 1;
          const signals: JobSignals = { onCancel: (listener) => emitter.on('cancel', listener), onApprove: (listener) => emitter.on('approve', listener), cancelled };
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

  private key(runId: string, what: 'events' | 'ended' | 'cancel' | 'control'): string {
    return `${this.prefix}:run:${runId}:${what}`;
  }

  /** BullMQ's own connections, from the same URL. */
  private connectionOptions(): Record<string, unknown> {
    const url = new URL(this.connection.url);
    const db = url.pathname.length > 1 ? Number(url.pathname.slice(1)) : undefined;
    return { host: url.hostname, port: Number(url.port || 6379), ...(db === undefined ? {} : { db }), ...(url.password ? { password: decodeURIComponent(url.password) } : {}), maxRetriesPerRequest: null };
  }
}
