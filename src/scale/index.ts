/* Scaling out: queued runs, their event streams, workers (in process, or on Redis). */
export { createWorker, type WorkerOptions } from './worker';
export { openRunStore, type RunStoreOptions } from './open-store';
export { MemoryRunStore } from './memory-store';
export { RedisRunStore, type RedisStoreOptions } from './redis-store';
export type { JobSignals, ReadOptions, RunStore, StreamEntry, TakenJob } from './store';
export type { RunJob } from './run-job';
export { createRunsHandler, type RunsHandlerOptions } from './http';
