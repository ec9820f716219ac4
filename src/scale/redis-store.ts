import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { AnyEvent } from '../events/event';
import type { ApprovalAnswer } from '../sessions/types';
import type { RunJob, SessionJob } from './run-job';
import {
  changesRecord,
  holdsWork,
  isOlder,
  isOpen,
  newRunRecord,
  newSessionRecord,
  noteEnd,
  noteEvent,
  noteMessage,
  noteTaken,
  readStoredRun,
  runRecordOf,
  type ListRunsOptions,
  type RecordKind,
  type RunRecord,
  type StoredRun,
} from './run-record';
import { entryOfJson } from './stream-entry';
import {
  DEFAULT_TTL_SECONDS,
  MAX_WAITING_MESSAGES,
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
 * Writes a record over the text it was read as (a record is changed by the web process, a session's
 * messages, and by the worker, its events: neither change may undo the other's), and with a message
 * queues it behind the session's others, at once, unless `ARGV[4]` wait already. KEYS: record, inbox.
 * ARGV: the text read, the new text, the message's JSON or '', the most waiting. Answers 1, 0 when the
 * record changed meanwhile (read it again), -1 when the inbox is full.
 */
const UPDATE_RECORD = `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[3] ~= '' then
  if redis.call('LLEN', KEYS[2]) >= tonumber(ARGV[4]) then return -1 end
  redis.call('RPUSH', KEYS[2], ARGV[3])
end
redis.call('SET', KEYS[1], ARGV[2])
return 1`;

/**
 * Takes a session's next message as its turn in flight, unless one is in flight or the session ends.
 * KEYS: inbox, turn, ended, closing. Answers the message's JSON, or false.
 */
const NEXT_TURN = `if redis.call('EXISTS', KEYS[2]) == 1 or redis.call('EXISTS', KEYS[3]) == 1 or redis.call('EXISTS', KEYS[4]) == 1 then return false end
local message = redis.call('LPOP', KEYS[1])
if not message then return false end
redis.call('SET', KEYS[2], message)
return message`;

/** Deletes a key when it holds the value given. KEYS: the key. ARGV: the value. */
const DELETE_IF = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/** How many turns a worker plays at once of the sessions whose CLI it holds (their CLIs run already: the worker's `concurrency` counts new work). */
const HELD_TURNS_AT_ONCE = 64;

/** A queued job's data: a run, or a session's turn (`lost`: taken from a worker that died playing it). */
interface JobData {
  readonly runId: string;
  readonly job: RunJob;
  readonly turn?: number;
  readonly lost?: boolean;
}

/**
 * Ends a run once, its ending events, the end marker and its ended record at once (a reader that sees
 * the stream complete sees the record ended); its session id expires with its stream (its record does
 * not: it is deleted, `deleteRun`, never expired). KEYS: events, ended, cancel, session, record. ARGV:
 * the ttl in seconds, the record's text as read ('' for none), its ended text, then the ending events'
 * JSON. Answers 1, 0 when the run had ended already, -1 when the record changed meanwhile (read it again).
 */
const END_ONCE = `if (redis.call('GET', KEYS[5]) or '') ~= ARGV[2] then return -1 end
if not redis.call('SET', KEYS[2], '1', 'EX', ARGV[1], 'NX') then return 0 end
for i = 4, #ARGV do redis.call('XADD', KEYS[1], '*', 'e', ARGV[i]) end
redis.call('XADD', KEYS[1], '*', 'end', '1')
redis.call('EXPIRE', KEYS[1], ARGV[1])
redis.call('EXPIRE', KEYS[4], ARGV[1])
redis.call('DEL', KEYS[3])
if ARGV[3] ~= '' then redis.call('SET', KEYS[5], ARGV[3]) end
return 1`;

/**
 * The Redis store: BullMQ's queue of runs, one Redis Stream of events per run (the entry id is the
 * cursor), and a pub/sub channel per run for what must reach the worker holding it. Every process
 * that opens it (web servers, workers) shares runs through Redis. Needs `bullmq` and `ioredis`
 * (optional peer dependencies of this package).
 *
 * A session's messages wait in a list of its own; one at a time becomes its turn in flight, queued
 * on the queue of the worker holding the session's CLI (each worker has one, besides the shared
 * queue) while that worker lives, else on the shared queue, where any worker takes it and starts the
 * CLI on the conversation (its resume). A worker's liveness is a key it renews; the jobs of one that
 * died are moved to the shared queue by the others (the turn it was playing failed `worker_lost`).
 */
export class RedisRunStore implements SessionStore {
  private readonly redis: any;
  private readonly queue: any;
  private readonly prefix: string;
  private readonly ttl: number;
  private readonly connection: { url: string };
  private readonly readers = new Set<any>();
  /** The queues of workers this process routed a turn to, by worker id. */
  private readonly workerQueues = new Map<string, any>();

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
    this.redis.defineCommand('cscEndOnce', { numberOfKeys: 5, lua: END_ONCE });
    this.redis.defineCommand('cscUpdateRecord', { numberOfKeys: 2, lua: UPDATE_RECORD });
    this.redis.defineCommand('cscNextTurn', { numberOfKeys: 4, lua: NEXT_TURN });
    this.redis.defineCommand('cscDeleteIf', { numberOfKeys: 1, lua: DELETE_IF });
    this.queue = new modules.bullmq.Queue(`${this.prefix}-runs`, { connection: this.connectionOptions() });
  }

  async enqueueRun(job: RunJob, options: EnqueueOptions = {}): Promise<string> {
    const runId = randomUUID();
    // The record first: a run is known (to its owner) from the moment it can be taken.
    await this.saveNewRecord(newRunRecord(runId, job, options.owner ?? null, Date.now()));
    // The job's id is the run's: a run is queued once. Finished jobs are dropped: the stream is the record.
    await this.addJob(this.queue, { runId, job }, runId);
    return runId;
  }

  async openSession(job: SessionJob, options: EnqueueOptions = {}): Promise<string> {
    const sessionId = randomUUID();
    await this.saveNewRecord(newSessionRecord(sessionId, job, options.owner ?? null, Date.now()));
    await this.noteActive(sessionId);
    return sessionId;
  }

  async sendMessage(sessionId: string, text: string): Promise<SentMessage> {
    let turn = 0;
    for (;;) {
      const read: string | null = await this.redis.get(this.key(sessionId, 'record'));
      const record = read === null ? null : readStoredRun(sessionId, read);
      if (!record || record.job === null) return { refused: 'no_session' };
      if (record.endedAt !== null || (await this.redis.exists(this.key(sessionId, 'closing'))) === 1) return { refused: 'closed' };
      noteMessage(record, text);
      turn = record.turns;
      const written = Number(
        await this.redis.cscUpdateRecord(
          this.key(sessionId, 'record'),
          this.key(sessionId, 'inbox'),
          read,
          JSON.stringify(record),
          JSON.stringify({ turn, text }),
          MAX_WAITING_MESSAGES,
        ),
      );
      if (written === -1) return { refused: 'full' };
      if (written === 1) break;
    }
    await this.noteActive(sessionId);
    await this.playNext(sessionId);
    return { turn };
  }

  async interrupt(sessionId: string): Promise<void> {
    if ((await this.redis.exists(this.key(sessionId, 'turn'))) === 1) await this.publish(sessionId, { type: 'cancel' });
  }

  async closeSession(sessionId: string): Promise<boolean> {
    const record = await this.readRecord(sessionId);
    if (!record || record.job === null || record.endedAt !== null) return false;
    // From now on no message becomes a turn; the waiting ones are dropped.
    await this.redis.pipeline().set(this.key(sessionId, 'closing'), '1', 'EX', this.ttl).del(this.key(sessionId, 'inbox')).exec();
    // The workers that hold (or held) its CLI close it; a turn in flight ends first (`finishTurn` completes the stream then).
    await this.publish(sessionId, { type: 'close' });
    if ((await this.redis.exists(this.key(sessionId, 'turn'))) === 0) await this.complete(sessionId);
    return true;
  }

  async findRun(runId: string): Promise<RunRecord | null> {
    const record = await this.readRecord(runId);
    return record && runRecordOf(record, this.ttl);
  }

  async listRuns(owner: string | null, options: ListRunsOptions = {}): Promise<RunRecord[]> {
    const { before, limit = 20, kind = 'run' } = options;
    const key = this.recordsKey(owner, kind);
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
    const keys = (['record', 'events', 'ended', 'cancel', 'diff', 'session', 'closing'] as const).map((what) => this.key(runId, what));
    await this.redis
      .pipeline()
      .del(...keys)
      .zrem(this.recordsKey(record.owner, record.kind), runId)
      .zrem(this.activeKey(), runId)
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
      if (record && holdsWork(record)) owned++;
      else if (!record || !isOpen(record)) await this.redis.srem(this.ownerKey(owner), runId);
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
    for (;;) {
      const read: string | null = await this.redis.get(this.key(runId, 'record'));
      const record = read === null ? null : readStoredRun(runId, read);
      if (record) {
        for (const event of ending) noteEvent(record, event);
        noteEnd(record, Date.now());
      }
      const ended = Number(
        await this.redis.cscEndOnce(
          this.key(runId, 'events'),
          this.key(runId, 'ended'),
          this.key(runId, 'cancel'),
          this.key(runId, 'session'),
          this.key(runId, 'record'),
          this.ttl,
          read ?? '',
          record ? JSON.stringify(record) : '',
          ...ending.map((event) => JSON.stringify(event)),
        ),
      );
      if (ended === 0) return false;
      if (ended === 1) break;
    }
    // A session's messages and turn go with it (none is played after its end).
    await this.redis
      .pipeline()
      .del(this.key(runId, 'inbox'), this.key(runId, 'turn'), this.key(runId, 'holder'))
      .zrem(this.activeKey(), runId)
      .exec();
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
        // A stream that never was (an unknown run), or one expired: nothing to follow. A run queued, or
        // a session opened, has a record and no stream yet: followed.
        if (entries.length === 0 && (await this.redis.exists(key)) === 0 && !(await this.isAwaited(runId))) return;
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
    const record = await this.readRecord(runId);
    if (!record || (await this.isComplete(runId))) return;
    // A session's turn is interrupted: the session goes on.
    if (record.kind === 'session') return this.interrupt(runId);
    // The flag for a worker yet to take the run; the message for the one holding it.
    await this.redis.set(this.key(runId, 'cancel'), '1', 'EX', this.ttl);
    await this.publish(runId, { type: 'cancel' });
  }

  async approve(runId: string, approvalId: string, answer: ApprovalAnswer): Promise<void> {
    await this.publish(runId, { type: 'approve', approvalId, answer });
  }

  work(handle: (taken: TakenJob, signals: JobSignals) => Promise<void>, options: WorkOptions): { close(): Promise<void> } {
    const me = randomUUID();
    const lockMs = this.options.lockMs ?? 15_000;
    const subscriber = this.redis.duplicate();
    /** What reaches the jobs this worker holds, by run id: a session's stays between its turns, until it is closed. */
    const held = new Map<string, EventEmitter>();
    void subscriber.psubscribe(this.key('*', 'control'));
    subscriber.on('pmessage', (_pattern: string, name: string, text: string) => {
      const runId = name.slice(`${this.prefix}:run:`.length, -':control'.length);
      const emitter = held.get(runId);
      if (!emitter) return;
      try {
        const message = JSON.parse(text) as { type: string; approvalId?: string; answer?: ApprovalAnswer };
        if (message.type === 'cancel') emitter.emit('cancel');
        else if (message.type === 'approve') emitter.emit('approve', message.approvalId, message.answer);
        else if (message.type === 'close') {
          held.delete(runId);
          emitter.emit('close');
        }
      } catch {
        // Not ours to read: ignored.
      }
    });
    // Alive while this key lasts: turns of the sessions whose CLI it holds are routed to it meanwhile.
    const beat = () => this.redis.set(this.workerKey(me), '1', 'PX', lockMs);
    const registered = Promise.all([this.redis.sadd(this.workersKey(), me), beat()]);
    const heartbeat = setInterval(() => void beat().catch(() => undefined), Math.max(100, Math.floor(lockMs / 3)));
    const sweep = async () => {
      await this.sweepDeadWorkers(me);
      await this.closeLeftSessions();
    };
    const sweeper = setInterval(() => void sweep().catch(() => undefined), Math.max(250, Math.floor(lockMs / 2)));
    heartbeat.unref();
    sweeper.unref();

    const processor = async (job: any) => {
      const { runId, job: runJob, turn, lost } = job.data as JobData;
      const attempt = lost ? 2 : Number(job.attemptsStarted ?? 1) || 1;
      const emitter = new EventEmitter();
      held.set(runId, emitter);
      const signals: JobSignals = {
        onCancel: (listener) => emitter.on('cancel', listener),
        onApprove: (listener) => emitter.on('approve', listener),
        onClose: (listener) => emitter.on('close', listener),
        holdCli: () => {
          void this.redis.set(this.key(runId, 'holder'), me).catch(() => undefined);
          return () => void this.redis.cscDeleteIf(this.key(runId, 'holder'), me).catch(() => undefined);
        },
        cancelled: turn === undefined && (await this.redis.exists(this.key(runId, 'cancel'))) === 1,
      };
      try {
        // A turn of a session being closed is not played: its end completes the stream.
        if (turn !== undefined && (await this.redis.exists(this.key(runId, 'closing'))) === 1) return;
        await this.updateRecord(runId, noteTaken);
        await handle({ runId, job: runJob, attempt, turn }, signals);
      } finally {
        if (turn === undefined) held.delete(runId);
        else await this.finishTurn(runId, turn);
      }
    };
    const workerOptions = {
      connection: this.connectionOptions(),
      lockDuration: lockMs,
      stalledInterval: Math.max(500, Math.floor(lockMs / 2)),
      // A run whose worker died is taken again, so that the one taking it decides (fail it, or retry it).
      maxStalledCount: 10,
    };
    const workers = [
      new this.modules.bullmq.Worker(`${this.prefix}-runs`, processor, { ...workerOptions, concurrency: options.concurrency }),
      new this.modules.bullmq.Worker(this.workerQueueName(me), processor, { ...workerOptions, concurrency: HELD_TURNS_AT_ONCE }),
    ];
    // A hold that could not be renewed (a starved machine): the run may be taken for lost by another
    // worker; it is stopped here rather than run on unheard (its stream takes one ending either way).
    for (const worker of workers)
      worker.on('lockRenewalFailed', (jobIds: string[]) => {
        for (const jobId of jobIds) held.get(jobId.match(/^(.*)-t\d+$/)?.[1] ?? jobId)?.emit('cancel');
      });
    return {
      close: async () => {
        clearInterval(heartbeat);
        clearInterval(sweeper);
        await registered.catch(() => undefined);
        await Promise.all(workers.map((worker) => worker.close()));
        await options.stopped?.();
        // Its CLIs closed, the turns routed here meanwhile go to the shared queue, and no more come.
        await this.redis.del(this.workerKey(me));
        await this.moveJobsOf(me);
        await this.redis.srem(this.workersKey(), me);
        subscriber.disconnect();
      },
    };
  }

  async close(): Promise<void> {
    for (const reader of this.readers) reader.disconnect();
    for (const queue of this.workerQueues.values()) await queue.close();
    await this.queue.close();
    this.redis.disconnect();
  }

  /** The run's record, or null. */
  private async readRecord(runId: string): Promise<StoredRun | null> {
    const text: string | null = await this.redis.get(this.key(runId, 'record'));
    return text === null ? null : readStoredRun(runId, text);
  }

  /** Changes the run's record (a run unknown is left alone: no key is made for it), over what another process wrote meanwhile. */
  private async updateRecord(runId: string, change: (record: StoredRun) => void): Promise<void> {
    for (;;) {
      const read: string | null = await this.redis.get(this.key(runId, 'record'));
      const record = read === null ? null : readStoredRun(runId, read);
      if (!record) return;
      change(record);
      const written = await this.redis.cscUpdateRecord(
        this.key(runId, 'record'),
        this.key(runId, 'inbox'),
        read,
        JSON.stringify(record),
        '',
        0,
      );
      if (Number(written) === 1) return;
    }
  }

  /** Writes a new run's or session's record, listed for its owner. */
  private async saveNewRecord(record: StoredRun): Promise<void> {
    await this.redis
      .pipeline()
      .set(this.key(record.id, 'record'), JSON.stringify(record))
      .zadd(this.recordsKey(record.owner, record.kind), record.createdAt, record.id)
      .exec();
    if (record.owner !== null) await this.redis.sadd(this.ownerKey(record.owner), record.id);
  }

  /** Whether a run (or session) with no stream yet is one to wait for: known, not ended. */
  private async isAwaited(runId: string): Promise<boolean> {
    const record = await this.readRecord(runId);
    return record !== null && record.endedAt === null;
  }

  private async publish(runId: string, message: Record<string, unknown>): Promise<void> {
    await this.redis.publish(this.key(runId, 'control'), JSON.stringify(message));
  }

  /** Queues a job (its id given: a job is queued once); finished jobs are dropped (the stream is the record). */
  private async addJob(queue: any, data: JobData, jobId: string): Promise<void> {
    await queue.add(data.turn === undefined ? 'run' : 'turn', data, { jobId, removeOnComplete: true, removeOnFail: { age: this.ttl } });
  }

  /**
   * Makes the session's next message its turn in flight, when none is: on the queue of the worker
   * holding its CLI while that worker lives, else on the shared queue.
   */
  private async playNext(sessionId: string): Promise<void> {
    const keys = (['inbox', 'turn', 'ended', 'closing'] as const).map((what) => this.key(sessionId, what));
    const message: string | null = await this.redis.cscNextTurn(...keys);
    if (message === null) return;
    const { turn, text } = JSON.parse(message) as { turn: number; text: string };
    const record = await this.readRecord(sessionId);
    if (!record?.job) return;
    const holder: string | null = await this.redis.get(this.key(sessionId, 'holder'));
    const alive = holder !== null && (await this.redis.exists(this.workerKey(holder))) === 1;
    const queue = alive ? this.workerQueue(holder) : this.queue;
    await this.addJob(queue, { runId: sessionId, job: { ...record.job, prompt: text }, turn }, `${sessionId}-t${turn}`);
  }

  /** A turn is over (played, or failed): the next message is played, or a session being closed is completed. */
  private async finishTurn(sessionId: string, turn: number): Promise<void> {
    const inFlight: string | null = await this.redis.get(this.key(sessionId, 'turn'));
    if (inFlight !== null && (JSON.parse(inFlight) as { turn: number }).turn === turn)
      await this.redis.cscDeleteIf(this.key(sessionId, 'turn'), inFlight);
    if ((await this.redis.exists(this.key(sessionId, 'closing'))) === 1) await this.complete(sessionId);
    else {
      await this.noteActive(sessionId);
      await this.playNext(sessionId);
    }
  }

  /** The session was active now (opened, sent a message, a turn ended): it is closed once left `ttl` from now. */
  private async noteActive(sessionId: string): Promise<void> {
    await this.redis.zadd(this.activeKey(), Date.now(), sessionId);
  }

  /**
   * Closes the sessions left `ttl` with no message and no turn (a conversation left is not kept
   * forever: its events then go `ttl` after its end). A session with a turn in flight is left alone.
   */
  private async closeLeftSessions(): Promise<void> {
    const left: string[] = await this.redis.zrangebyscore(this.activeKey(), '-inf', Date.now() - this.ttl * 1000, 'LIMIT', 0, 100);
    for (const sessionId of left) {
      if ((await this.redis.exists(this.key(sessionId, 'turn'))) === 1) continue;
      await this.redis.zrem(this.activeKey(), sessionId);
      await this.closeSession(sessionId);
    }
  }

  /** Sessions not closed, by when each was last active. */
  private activeKey(): string {
    return `${this.prefix}:sessions:active`;
  }

  /**
   * Moves the jobs of workers that died (their key lapsed) to the shared queue, once each (whichever
   * live worker gets there first): the turn one was playing is marked lost (its taker fails it
   * `worker_lost`), the waiting ones are played by whoever takes them.
   */
  private async sweepDeadWorkers(me: string): Promise<void> {
    for (const worker of (await this.redis.smembers(this.workersKey())) as string[]) {
      if (worker === me || (await this.redis.exists(this.workerKey(worker))) === 1) continue;
      if ((await this.redis.set(`${this.workerKey(worker)}:swept`, me, 'PX', this.options.lockMs ?? 15_000, 'NX')) === null) continue;
      await this.moveJobsOf(worker);
      await this.redis.srem(this.workersKey(), worker);
    }
  }

  /** Moves what is on `worker`'s queue to the shared queue (an active job, lost), then removes its queue. */
  private async moveJobsOf(worker: string): Promise<void> {
    const queue = this.workerQueue(worker);
    for (const [states, lost] of [
      [['active'], true],
      [['waiting', 'delayed', 'prioritized', 'paused'], false],
    ] as const) {
      for (const job of await queue.getJobs([...states])) {
        if (job) await this.addJob(this.queue, { ...(job.data as JobData), lost: lost || undefined }, String(job.id));
      }
    }
    await queue.obliterate({ force: true });
    this.workerQueues.delete(worker);
    await queue.close();
  }

  private workerQueue(worker: string): any {
    let queue = this.workerQueues.get(worker);
    if (!queue)
      this.workerQueues.set(
        worker,
        (queue = new this.modules.bullmq.Queue(this.workerQueueName(worker), { connection: this.connectionOptions() })),
      );
    return queue;
  }

  private workerQueueName(worker: string): string {
    return `${this.prefix}-worker-${worker}`;
  }

  /** The set of the workers that registered (alive or not yet swept). */
  private workersKey(): string {
    return `${this.prefix}:workers`;
  }

  /** A worker's liveness: present while it renews it. */
  private workerKey(worker: string): string {
    return `${this.prefix}:worker:${worker}`;
  }

  private key(
    runId: string,
    what: 'events' | 'ended' | 'cancel' | 'control' | 'record' | 'diff' | 'session' | 'inbox' | 'turn' | 'holder' | 'closing',
  ): string {
    return `${this.prefix}:run:${runId}:${what}`;
  }

  /** The sorted set of an owner's runs or sessions (of those queued without one: ''), by the time each was queued. */
  private recordsKey(owner: string | null, kind: RecordKind): string {
    return `${this.prefix}:owner:${encodeURIComponent(owner ?? '')}:${kind === 'run' ? 'records' : 'sessions'}`;
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
