import type { AnyEvent } from '../events/event';
import { Event } from '../events/event';
import type { ErrorCode } from '../providers/error-codes';
import { endingEvents as runnerEnding } from '../runner/ending';
import { startSession } from '../sessions/session';
import type { ApprovalAnswer, ApprovalPolicy, SessionOptions, SessionProvider } from '../sessions/types';
import type { WorkspaceMode } from './workspace';

/**
 * A run to queue: one prompt to one CLI, run by a worker as a session of one turn (`startSession`),
 * so that its approvals can be answered and it can be cancelled from another process. JSON only: it
 * crosses the queue.
 */
export interface RunJob {
  provider: SessionProvider;
  prompt: string;
  cwd?: string;
  model?: string;
  /** The CLI's executable on the worker's machine; default its usual name on PATH. */
  executable?: string;
  args?: string[];
  /** Environment variables for the CLI, set over the allow-list (values the operator chose). */
  env?: Record<string, string>;
  /**
   * Names of the worker's own environment variables the CLI may have beyond the allow-list (the
   * basics, and the credentials and endpoints its CLI documents); `NAME_*` is a prefix.
   */
  passEnv?: string[];
  /** Give the CLI the worker's whole environment, secrets and all (default false: the allow-list). */
  inheritEnv?: boolean;
  /**
   * Where the CLI runs: `worktree` (a git worktree of `cwd` on a branch of its own, so concurrent
   * runs never edit the same files; its changes are reported), `temp` (an empty directory) or
   * `shared` (`cwd` itself). Default: `worktree` when `cwd` is a git repository, else `temp`.
   */
  workspace?: WorkspaceMode;
  /** Keep the run's worktree or directory after its stream expires (default: removed with it). */
  keepWorkspace?: boolean;
  /** The run's whole life in seconds; past it the CLI is stopped and the run ends `timed_out`. 0: none. Default 3600. */
  maxRunSeconds?: number;
  /** Its stored events in bytes of JSON; past it the CLI is stopped and the run fails `output_limit`. Default 64 MiB. */
  maxRunBytes?: number;
  /** Its price in USD, added up by the usage rules; past it the run fails `budget_exceeded`. A CLI that reports no price is limited by `maxTokens` only. */
  maxCostUsd?: number;
  /** Its tokens (input and output), added up by the usage rules; past them the run fails `budget_exceeded`. */
  maxTokens?: number;
  /** Who answers the CLI's permission requests: `ask` (default: the host, through `answerApproval`), `allow`, `deny`. */
  approvals?: ApprovalPolicy;
  /** An unanswered request is denied after this long; default 5 minutes. */
  approvalTimeoutMs?: number;
  /**
   * When the worker running it dies: false (default) fails the run (an agent run is not idempotent:
   * running it again would repeat its side effects); true runs it again on another worker, resuming
   * the CLI's session where the CLI can (see `SessionOptions.resume`) and marking the attempt in the stream.
   */
  retry?: boolean;
}

/**
 * A conversation to hold (`POST /sessions`, `store.openSession`): a `RunJob` without its prompt,
 * each message a turn of the same CLI session. `retry` does not apply: a turn whose worker died
 * fails (`worker_lost`), and the session goes on from the next message, its CLI resumed.
 */
export type SessionJob = Omit<RunJob, 'prompt' | 'retry'>;

/** What reaches a running job from outside: a cancel, an approval's answer. */
export interface RunControl {
  onCancel(listener: () => void): void;
  onApprove(listener: (approvalId: string, answer: ApprovalAnswer) => void): void;
}

/** The `error` and `result` a run ends with when no CLI said so (a cancel before it started, a lost worker): the runner's `endingEvents`. */
export function endingEvents(provider: string, code: ErrorCode, message: string, status: 'failed' | 'aborted'): AnyEvent[] {
  return runnerEnding({ provider, provider_session_id: null }, { message, code }, status);
}

/**
 * The `startSession` options of a queued job (a run, a session's turn), on the worker's machine:
 * the allow-listed environment unless the job says otherwise, and its limits.
 */
export function sessionOptionsOf(job: SessionJob, resume?: string): SessionOptions {
  return {
    provider: job.provider,
    cwd: job.cwd,
    model: job.model,
    executable: job.executable,
    args: job.args,
    env: job.env,
    inheritEnv: job.inheritEnv ?? false,
    passEnv: job.passEnv,
    approvals: job.approvals ?? 'ask',
    approvalTimeoutMs: job.approvalTimeoutMs,
    timeoutMs: job.maxRunSeconds ? job.maxRunSeconds * 1000 : undefined,
    maxCostUsd: job.maxCostUsd,
    maxTokens: job.maxTokens,
    resume,
  };
}

/** What `executeJob` leaves to its caller: the run's `result` (held back, for the caller to complete), and the ending it owes when it has none. */
export interface ExecutedJob {
  /** The session's `result`, not yet appended: the worker adds what the run changed to it first. */
  readonly result: Event<'result'> | null;
  /** The events that end the run when the session's own cannot (its stored output passed its limit). */
  readonly ending: AnyEvent[];
}

/**
 * Runs `job` on this machine: a session of its CLI, its prompt as the one turn, every event but the
 * `result` handed to `append` in order (awaited: a slow store slows the run rather than losing
 * events; an append refused, the run ended elsewhere, stops the CLI). `control` cancels it (the turn
 * ends `aborted`) and answers its approvals. Its time, budget and stored output are limited as the
 * job says. Resolves once the CLI and every process it started are gone.
 */
export async function executeJob(
  job: RunJob,
  append: (event: AnyEvent) => Promise<boolean>,
  control: RunControl,
  resume?: string,
): Promise<ExecutedJob> {
  const options = sessionOptionsOf(job, resume);
  let session;
  try {
    session = startSession(options);
  } catch (error) {
    // A missing executable on this worker, an option the CLI cannot take: the run fails, said in its stream.
    return { result: null, ending: endingEvents(job.provider, 'spawn_failed', (error as Error).message, 'failed') };
  }
  control.onCancel(() => void session.close());
  control.onApprove((approvalId, answer) => session.approve(approvalId, answer));
  let ending: AnyEvent[] = [];
  const turn = session.send(job.prompt).then(
    () => session.close(),
    (error: Error) => {
      // A prompt the CLI cannot be given (a NUL byte): the run fails and says why.
      ending = endingEvents(job.provider, 'invalid_request', error.message, 'failed');
      return session.close();
    },
  );
  let result: Event<'result'> | null = null;
  let stored = 0;
  let open = true;
  for await (const event of session) {
    if (!open) continue;
    if (event.kind === 'result') {
      result = event;
      continue;
    }
    stored += Buffer.byteLength(JSON.stringify(event));
    if (job.maxRunBytes && stored > job.maxRunBytes) {
      // Nothing is dropped silently: the run stops here and its stream says why.
      open = false;
      ending = endingEvents(job.provider, 'output_limit', `the run's events passed ${job.maxRunBytes} bytes: it was stopped`, 'failed');
    } else if (!(await append(event))) open = false;
    if (!open) void session.close();
  }
  await turn;
  return { result: open ? result : null, ending: result && open ? [] : ending };
}
