import { FileRunJournal } from './file-journal';
import { MemoryRunStore } from './memory-store';
import { RedisRunStore, type RedisStoreOptions } from './redis-store';
import type { SessionStore } from './store';

/** Options of `openRunStore`. */
export interface RunStoreOptions extends Partial<Omit<RedisStoreOptions, 'url'>> {
  /** A Redis URL (`redis://127.0.0.1:6379`): runs shared by every process that opens it. Absent: in this process. */
  redis?: string;
  /**
   * In this process, keep runs on disk in this directory (made 0700), so that they outlive it: one
   * JSON-lines file of events per run and an index. A run that was queued or running when the
   * process died is ended `server_lost` when the store opens again. Not with `redis`.
   */
  dataDir?: string;
}

/**
 * The store of queued runs: on Redis when `redis` is given (BullMQ and ioredis must be installed:
 * they are optional peer dependencies), else in this process (kept on disk with `dataDir`). The same
 * API either way.
 *
 * @example
 * const store = openRunStore({ redis: process.env.REDIS_URL });
 * const runId = await store.enqueueRun({ provider: 'claude', prompt: 'Say hello.' });
 * for await (const { id, event } of store.readRunEvents(runId)) console.log(id, event.kind);
 */
export function openRunStore(options: RunStoreOptions = {}): SessionStore {
  if (options.redis && options.dataDir)
    throw new TypeError('dataDir keeps the in-process store on disk: with redis, runs are kept on Redis');
  if (!options.redis) {
    return new MemoryRunStore({
      ttlMs: options.ttlSeconds === undefined ? undefined : options.ttlSeconds * 1000,
      journal: options.dataDir ? new FileRunJournal(options.dataDir) : undefined,
    });
  }
  return new RedisRunStore({ bullmq: requireOptional('bullmq'), ioredis: requireOptional('ioredis') }, { ...options, url: options.redis });
}

function requireOptional(name: string): unknown {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- an optional peer, loaded only for Redis
    return require(name);
  } catch {
    throw new TypeError(`a Redis run store needs the package ${name}: npm install bullmq ioredis`);
  }
}
