import type { AnyEvent } from '../events/event';
import { Event } from '../events/event';
import { CLIS } from '../clis';
import { DEFAULT_MAX_RUN_BYTES, DEFAULT_MAX_RUN_SECONDS } from './limits';
import type { JobDefaults } from './request-policy';
import { endingEvents, executeJob } from './run-job';
import { SessionHost } from './session-host';
import { DEFAULT_TTL_SECONDS, timerMs, type RunStore, type TakenJob, type JobSignals } from './store';
import { noteChanges, openJobWorkspace, type Workspace } from './workspace';

/** Options of `createWorker`. */
export interface WorkerOptions {
  /** How many runs at once; default 2. */
  concurrency?: number;
  /**
   * What a job leaves unset, this worker's operator sets: where CLIs run (`cwd`, `workspace`), the
   * variables they may have (`passEnv`, `env`), and the limits. Over the safe defaults: an
   * allow-listed environment, a workspace per run, 3600 s and 64 MiB of events per run.
   */
  jobDefaults?: JobDefaults;
  /** How long after its end a run's worktree or temp directory is removed, in seconds: with its stream (default a day). */
  ttlSeconds?: number;
  /** Seconds a session's CLI is kept on this worker with no turn; past them it is closed, and the next message resumes it. Default 300. */
  idleSeconds?: number;
}

/** What every job gets unless its operator says otherwise. */
const SAFE_JOB_DEFAULTS: JobDefaults = { maxRunSeconds: DEFAULT_MAX_RUN_SECONDS, maxRunBytes: DEFAULT_MAX_RUN_BYTES };

/** A retried run is given up after this many attempts (each one lost its worker). */
const MAX_ATTEMPTS = 3;

/**
 * A worker: takes queued runs from `store` and runs each as a session of its CLI on this machine,
 * every event appended to the run's stream, and the stream completed at the end. A cancel or an
 * approval answer sent to a run reaches the session. No CLI outlives its worker: `close()` stops the
 * runs it holds (their streams end `aborted`), and a worker that dies takes its CLIs with it (the
 * runner's host-exit rules, and its watchdog when it is SIGKILLed).
 *
 * A session's turn (a store that holds sessions) is played by the worker's `SessionHost`: the
 * session's CLI is kept here between turns until it idles (`idleSeconds`), then closed.
 *
 * A run taken again because the worker running it died is not run again unless its job says
 * `retry`: an agent run is not idempotent. It ends with a fatal `worker_lost` error and a failed
 * result instead; with `retry`, the attempt is marked in the stream and the CLI's session resumed.
 *
 * @example
 * const store = await openRunStore({ redis: process.env.REDIS_URL });
 * const worker = createWorker(store, { concurrency: 4 });
 * process.on('SIGTERM', () => void worker.close().then(() => store.close()));
 */
export function createWorker(store: RunStore, options: WorkerOptions = {}): { close(): Promise<void> } {
  /** How to stop each run this worker holds: closing the worker stops them (their streams end `aborted`). */
  const stops = new Set<() => void>();
  const defaults: JobDefaults = { ...SAFE_JOB_DEFAULTS, ...options.jobDefaults };
  const ttlMs = (options.ttlSeconds ?? DEFAULT_TTL_SECONDS) * 1000;
  const sessions = new SessionHost(store, { idleSeconds: options.idleSeconds, ttlMs });
  const taking = store.work(
    async (taken, signals) => {
      const own: (() => void)[] = [];
      const held: JobSignals = {
        ...signals,
        onCancel: (listener) => {
          signals.onCancel(listener);
          own.push(listener);
          stops.add(listener);
        },
      };
      try {
        const job = { ...defaults, ...taken.job };
        if (taken.turn !== undefined) await sessions.playTurn({ ...taken, job }, held);
        else await runTaken(store, { ...taken, job }, held, ttlMs);
      } finally {
        for (const stop of own) stops.delete(stop);
      }
    },
    // The sessions' CLIs are closed once no turn runs, before their later turns go to other workers.
    { concurrency: options.concurrency ?? 2, stopped: () => sessions.close() },
  );
  return {
    close: async () => {
      for (const stop of stops) stop();
      await taking.close();
    },
  };
}

async function runTaken(store: RunStore, { runId, job, attempt }: TakenJob, signals: JobSignals, ttlMs: number): Promise<void> {
  const append = async (event: AnyEvent): Promise<boolean> => (await store.append(runId, event)) !== null;
  // Whoever completes the stream first writes the ending, at once: one per run.
  const end = async (events: AnyEvent[]): Promise<void> => void (await store.complete(runId, events));
  if (await store.isComplete(runId)) return;
  if (signals.cancelled) return end(endingEvents(job.provider, 'aborted', 'the run was cancelled before it started', 'aborted'));
  let resume: string | undefined;
  if (attempt > 1) {
    if (!job.retry || attempt > MAX_ATTEMPTS) {
      return end(
        endingEvents(
          job.provider,
          'worker_lost',
          `the worker running this run died (attempt ${attempt - 1}); it is not run again${job.retry ? ` after ${MAX_ATTEMPTS - 1} attempts` : ' (an agent run repeats its side effects; queue it with retry to allow that)'}`,
          'failed',
        ),
      );
    }
    resume = CLIS[job.provider].session.resume === null ? undefined : ((await store.lastSessionId(runId)) ?? undefined);
    const how = resume === undefined ? 'starts over' : `resumes the CLI's session ${resume}`;
    await append(
      Event.create('error', {
        provider: job.provider,
        payload: {
          message: `attempt ${attempt}: the worker running this run died; the run ${how}`,
          code: 'worker_lost',
          severity: 'warning',
          metadata: { attempt },
        },
      }),
    );
  }
  let workspace: Workspace;
  try {
    workspace = await openJobWorkspace(runId, job);
  } catch (error) {
    return end(endingEvents(job.provider, 'spawn_failed', `could not prepare the run's workspace: ${(error as Error).message}`, 'failed'));
  }
  const { result, ending } = await executeJob({ ...job, cwd: workspace.cwd }, append, signals, resume);
  if (result) {
    await noteChanges(workspace, result, (patch) => store.saveDiff(runId, patch));
    await append(result);
  }
  await store.complete(runId, ending);
  // The workspace goes with the run's stream: until then its diff and files can be looked at.
  if (!job.keepWorkspace) setTimeout(() => void workspace.remove().catch(() => undefined), timerMs(ttlMs)).unref();
}
