import type { AnyEvent } from '../events/event';
import { Event } from '../events/event';
import type { ErrorCode } from '../providers/error-codes';
import { startSession } from '../sessions/session';
import type { ApprovalAnswer, ApprovalPolicy, SessionOptions, SessionProvider } from '../sessions/types';

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
  /** Environment variables for the CLI, over the worker's own. */
  env?: Record<string, string>;
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

/** What reaches a running job from outside: a cancel, an approval's answer. */
export interface RunControl {
  onCancel(listener: () => void): void;
  onApprove(listener: (approvalId: string, answer: ApprovalAnswer) => void): void;
}

/** The `error` and `result` a run ends with when no CLI said so (a cancel before it started, a lost worker). */
export function endingEvents(provider: string, code: ErrorCode, message: string, status: 'failed' | 'aborted'): AnyEvent[] {
  const envelope = { provider, provider_session_id: null };
  return [
    Event.create('error', { ...envelope, payload: { message, code, severity: 'fatal', metadata: {} } }),
    Event.create('result', { ...envelope, payload: { status, stop_reason: code, metadata: {} } }),
  ];
}

/**
 * Runs `job` on this machine: a session of its CLI, its prompt as the one turn, every event handed
 * to `append` in order (awaited: a slow store slows the run rather than losing events; an append
 * refused, the run ended elsewhere, stops the CLI). `control` cancels it (the turn ends `aborted`)
 * and answers its approvals. Resolves with the result's status once the CLI and every process it
 * started are gone.
 */
export async function executeJob(job: RunJob, append: (event: AnyEvent) => Promise<boolean>, control: RunControl, resume?: string): Promise<string> {
  const options: SessionOptions = {
    provider: job.provider,
    cwd: job.cwd,
    model: job.model,
    executable: job.executable,
    args: job.args,
    env: job.env,
    approvals: job.approvals ?? 'ask',
    approvalTimeoutMs: job.approvalTimeoutMs,
    resume,
  };
  let session;
  try {
    session = startSession(options);
  } catch (error) {
    // A missing executable on this worker, an option the CLI cannot take: the run fails, said in its stream.
    for (const event of endingEvents(job.provider, 'spawn_failed', (error as Error).message, 'failed')) if (!(await append(event))) break;
    return 'failed';
  }
  control.onCancel(() => void session.close());
  control.onApprove((approvalId, answer) => session.approve(approvalId, answer));
  let status = 'failed';
  const turn = session.send(job.prompt).then(
    (result) => {
      status = String(result.payload.status);
      return session.close();
    },
    () => session.close(),
  );
  let open = true;
  for await (const event of session) {
    if (open && !(await append(event))) {
      open = false;
      void session.close();
    }
  }
  await turn;
  return status;
}
