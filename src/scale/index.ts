/* Scaling out: queued runs, their event streams, workers (in process, or on Redis). */
export { createWorker, type WorkerOptions } from './worker';
export { openRunStore, type RunStoreOptions } from './open-store';
export { MemoryRunStore, type JournaledRun, type MemoryStoreOptions, type RunJournal } from './memory-store';
export { FileRunJournal, defaultDataDir } from './file-journal';
export { RedisRunStore, type RedisStoreOptions } from './redis-store';
export type { JobSignals, ReadOptions, RunStore, SentMessage, SessionStore, StreamEntry, TakenJob, WorkOptions } from './store';
export { holdsSessions, MAX_WAITING_MESSAGES } from './store';
export { activeTurn, readTurnEvents, type ReadTurnOptions } from './turn-stream';
export type { RunJob, SessionJob } from './run-job';
export { createRunsHandler, type RunsHandlerOptions } from './http';
export type { EnqueueOptions, RunCounts, RunRecord } from './store';
export {
  TITLE_MAX_CHARS,
  type ListRunsOptions,
  type RunCursor,
  type RecordKind,
  type RunRecordStatus,
  type RunSummary,
  type StoredRun,
} from './run-record';
export { isOwnedRun, isRunId } from './owned-run';
export {
  jobFromRequest,
  queueRequestedRun,
  DEFAULT_REQUEST_APPROVALS,
  type JobDefaults,
  type RequestAllowance,
  type RunPolicy,
} from './request-policy';
export {
  openWorkspace,
  defaultWorkspaceMode,
  WORKSPACE_MODES,
  type Workspace,
  type WorkspaceChanges,
  type WorkspaceMode,
} from './workspace';
export * from './limits';
