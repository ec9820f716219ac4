import type { AnyEvent } from '../events/event';
import type { ApprovalAnswer } from '../sessions/types';
import type { RunJob, SessionJob } from './run-job';
import type { ListRunsOptions, RunRecord } from './run-record';

export type { RunRecord } from './run-record';

/** How long a completed run's stream stays readable by default, in seconds: a day. */
export const DEFAULT_TTL_SECONDS = 86_400;

/** A delay `setTimeout` can hold: longer ones (past about 24.8 days) would fire at once, so they are cut to the longest. */
export function timerMs(ms: number): number {
  return Math.min(ms, 2 ** 31 - 1);
}

/** One event of a run's stream, and its entry id: the cursor a reader resumes after. */
export interface StreamEntry {
  /** The stream's entry id (Redis's `<ms>-<seq>`, the in-process store's likewise): ordered, unique in the run. */
  readonly id: string;
  /** The event's JSON text, written once when it was appended: what an SSE client is sent, as it is. */
  readonly json: string;
  /** The event (on Redis, parsed from `json` when first read). */
  readonly event: AnyEvent;
}

/** Options of `RunStore.read`. */
export interface ReadOptions {
  /** The entry id to read after (a client's Last-Event-ID); from the start when absent. */
  after?: string;
  /** Wait for entries appended later, until the stream is complete (default true). */
  follow?: boolean;
  signal?: AbortSignal;
}

/** Options of `RunStore.enqueueRun`. */
export interface EnqueueOptions {
  /** The principal the run belongs to: only it may read, cancel or answer the run over HTTP. */
  owner?: string;
}

/** How many runs wait, and how many of them and of the running ones are one principal's. */
export interface RunCounts {
  /** Runs queued and not yet taken by a worker, of every principal. */
  readonly waiting: number;
  /** Runs of the principal asked about that are waiting or running. */
  readonly owned: number;
}

/** A queued job as a worker receives it. */
export interface TakenJob {
  /** The run's id, or the session's for a turn. */
  readonly runId: string;
  /** A run's job; for a turn, the session's job with the message as its prompt. */
  readonly job: RunJob;
  /** 1 for the first attempt; more when a worker died running it and the job was taken again. */
  readonly attempt: number;
  /** A session's turn: its number (1 for the first message); absent for a run. */
  readonly turn?: number;
}

/** Options of `RunStore.work`. */
export interface WorkOptions {
  /** How many jobs at once. */
  concurrency: number;
  /** Called by `close()` once no job runs any more, before the worker leaves. */
  stopped?: () => Promise<void>;
}

/** What a store hands to the job a worker runs: the cancels and approval answers sent to that run. */
export interface JobSignals {
  /** A run's cancel; a turn's interrupt (the session goes on). */
  onCancel(listener: () => void): void;
  /** A turn: its session is closed (`closeSession`): its CLI is to be closed, and its stream completed by whoever holds the CLI. */
  onClose?(listener: () => void): void;
  onApprove(listener: (approvalId: string, answer: ApprovalAnswer) => void): void;
  /**
   * A turn whose worker keeps the session's CLI after it: the session's later turns are routed to
   * this worker until the function answered is called (the CLI closed or gone). Absent where every
   * turn is played in one process (the in-process store).
   */
  holdCli?(): () => void;
  /** Whether the run was cancelled before the worker took it. */
  readonly cancelled: boolean;
}

/**
 * Where queued runs live: their queue, their event streams, and the messages that reach the worker
 * holding a run (cancel, approval answers). One interface, two homes: in this process (`MemoryRunStore`,
 * the default) and on Redis (`RedisRunStore`: BullMQ for the queue, a Redis Stream per run, pub/sub
 * for the messages), so that web processes and workers can be different machines.
 */
export interface RunStore {
  /** Queues `job` and answers its run id (a UUID). */
  enqueueRun(job: RunJob, options?: EnqueueOptions): Promise<string>;
  /** The run's record, or null for a run the store does not know (never queued, deleted, or expired: on Redis its record outlives its events). */
  findRun(runId: string): Promise<RunRecord | null>;
  /**
   * `owner`'s runs (null: the runs queued without one), newest first, `options.limit` (default 20)
   * at most, older than `options.before` when given. Read from the records, never from the streams.
   */
  listRuns(owner: string | null, options?: ListRunsOptions): Promise<RunRecord[]>;
  /**
   * Removes a run that has ended: its record, events and diff. Answers false, removing nothing, for
   * a run the store does not know or that has not ended (cancel it first).
   */
  deleteRun(runId: string): Promise<boolean>;
  /** How many runs wait to start, and how many of `owner`'s wait or run (for the API's limits). */
  countRuns(owner?: string): Promise<RunCounts>;
  /** Keeps the patch of what the run changed in its workspace, for as long as its stream. */
  saveDiff(runId: string, patch: string): Promise<void>;
  /** The patch `saveDiff` kept, or null. */
  readDiff(runId: string): Promise<string | null>;
  /**
   * Appends an event to the run's stream; answers its entry id, or null when the stream is complete
   * (the run was ended elsewhere: its worker must stop it).
   */
  append(runId: string, event: AnyEvent): Promise<string | null>;
  /**
   * Appends `ending` (the events that end the run, when the run's own did not) and marks the stream
   * complete (readers end after its last entry), at once, and schedules its expiry. Answers false,
   * appending nothing, when it was complete already: exactly one ending per run (the worker running
   * it and a worker that took it for lost may both try).
   */
  complete(runId: string, ending?: readonly AnyEvent[]): Promise<boolean>;
  /** Whether the run's stream is complete. */
  isComplete(runId: string): Promise<boolean>;
  /**
   * The CLI's session id the run's events announced last (kept as they are appended), or null: a
   * run taken again after its worker died resumes that session.
   */
  lastSessionId(runId: string): Promise<string | null>;
  /**
   * The run's entries after `after` (all when absent), then (`follow`, the default) the ones
   * appended later, until the stream is complete; stops early when `signal` aborts. A run unknown
   * to the store yields nothing.
   */
  readRunEvents(runId: string, options?: ReadOptions): AsyncIterable<StreamEntry>;
  /** Asks the worker holding the run to cancel it (or the worker that takes it not to start it); a run the store does not know is left alone. */
  cancel(runId: string): Promise<void>;
  /** Sends an approval's answer to the worker holding the run. */
  approve(runId: string, approvalId: string, answer: ApprovalAnswer): Promise<void>;
  /**
   * Takes jobs, `concurrency` at a time, and runs `handle` for each; answers a function that stops
   * taking jobs, waits for the running ones, then `options.stopped` (what the worker still holds:
   * its sessions' CLIs, closed) before the jobs routed to it are handed to other workers.
   */
  work(handle: (taken: TakenJob, signals: JobSignals) => Promise<void>, options: WorkOptions): { close(): Promise<void> };
  /** Closes the store's connections. */
  close(): Promise<void>;
}

/** The most messages a session holds waiting behind its running turn; one more is refused (409 over HTTP). */
export const MAX_WAITING_MESSAGES = 10;

/** What `SessionStore.sendMessage` answers: the turn queued, or why none was. */
export type SentMessage = { readonly turn: number } | { readonly refused: 'no_session' | 'closed' | 'full' };

/**
 * A run store that also holds conversations: a session is a stream that stays open across turns,
 * each message a turn queued for a worker, played in order, one at a time. The worker that took a
 * session's turn keeps its CLI for the next one until it idles; a later turn on a worker without it
 * starts the CLI again on the same conversation (its resume). Implemented by the in-process store.
 */
export interface SessionStore extends RunStore {
  /** Opens a conversation (nothing runs yet) and answers its id (a UUID). */
  openSession(job: SessionJob, options?: EnqueueOptions): Promise<string>;
  /** Queues `text` as the session's next turn (behind the running one). */
  sendMessage(sessionId: string, text: string): Promise<SentMessage>;
  /** Ends the session's running turn (its `result` is `aborted`); the session goes on. Nothing for an idle or unknown one. */
  interrupt(sessionId: string): Promise<void>;
  /**
   * Closes the session: its waiting messages dropped, its CLI closed (a running turn ends
   * `aborted`), its stream completed. Answers false for a session unknown or closed already.
   */
  closeSession(sessionId: string): Promise<boolean>;
}

/** Whether `store` holds sessions too. */
export function holdsSessions(store: RunStore): store is SessionStore {
  return typeof (store as Partial<SessionStore>).openSession === 'function';
}
