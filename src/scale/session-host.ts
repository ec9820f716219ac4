import { Event, type AnyEvent } from '../events/event';
import { CLIS } from '../clis';
import { startSession } from '../sessions/session';
import type { Session } from '../sessions/types';
import { DEFAULT_IDLE_SECONDS } from './limits';
import { endingEvents, sessionOptionsOf, type RunJob } from './run-job';
import { timerMs, type JobSignals, type RunStore, type TakenJob } from './store';
import { noteChanges, openJobWorkspace, type Workspace } from './workspace';

/**
 * The `user_message` a turn starts with in its session's stream: the message's text, and the turn's
 * number in `metadata.turn` (which tells it from a CLI's own echo of a prompt, Codex's, that has none).
 */
export function turnMessage(provider: string, text: string, turn: number): AnyEvent {
  return Event.create('user_message', {
    provider,
    provider_session_id: null,
    payload: { role: 'user', content: [{ type: 'text', text }], metadata: { turn } },
  });
}

/** Options of `SessionHost`. */
export interface SessionHostOptions {
  /** Seconds a session's CLI is kept with no turn; default 300. */
  idleSeconds?: number;
  /** How long after a session's end its workspace is removed, in ms: with its stream. */
  ttlMs: number;
}

/** A session's CLI this worker holds, between turns and during one. */
interface Held {
  readonly session: Session;
  /** The job the CLI was started for (its stored-output limit). */
  readonly job: RunJob;
  /** Resolved, oldest first, as the CLI's `result`s are appended: a turn waits for its own. */
  readonly results: (() => void)[];
  idle: NodeJS.Timeout | null;
  /** Why this worker closes the CLI: the session was closed (its stream is completed after the CLI's last events), or it idled. */
  closing: 'session' | 'idle' | null;
  /** Bytes of events stored for this CLI (`maxRunBytes`). */
  stored: number;
  /** Tells the store this worker no longer holds the CLI (its later turns may go to any worker). */
  readonly release: () => void;
}

/**
 * The sessions a worker holds: each session's CLI started at its first turn (or at the first turn
 * after it was closed, resuming the CLI's own session: Claude `--resume`, Codex `thread/resume`,
 * ACP `session/load`), kept for the next turn, closed after `idleSeconds` without one. Every event
 * the CLI prints is appended to the session's stream in order, each turn closed by its `result`;
 * a session's workspace is made at its first turn and kept with it.
 */
export class SessionHost {
  private readonly held = new Map<string, Held>();
  /** Work no caller awaits (pumps, closes): `close()` waits for it, so that no CLI outlives the host. */
  private readonly background = new Set<Promise<void>>();
  /** Each session's workspace, made at its first turn, and whether its job keeps it after the session's end. */
  private readonly workspaces = new Map<string, { readonly workspace: Workspace; readonly keep: boolean }>();
  private readonly idleMs: number;

  constructor(
    private readonly store: RunStore,
    private readonly options: SessionHostOptions,
  ) {
    this.idleMs = (options.idleSeconds ?? DEFAULT_IDLE_SECONDS) * 1000;
  }

  /** Plays one turn of a session: resolves once its `result` is in the stream. */
  async playTurn({ runId: sessionId, job, attempt, turn }: TakenJob, signals: JobSignals): Promise<void> {
    if (await this.store.isComplete(sessionId)) return;
    if (attempt > 1) {
      // Taken again because the worker playing it died: a turn is not played twice (its tools ran);
      // it fails, and the session goes on from the next message (its CLI resumed).
      const message = 'the worker playing this turn died; the turn is not played again (send the message again); the session goes on';
      for (const event of endingEvents(job.provider, 'worker_lost', message, 'failed')) await this.store.append(sessionId, event);
      return;
    }
    // What was asked, before what the CLI answers: a conversation read back shows both (most CLIs do not echo it).
    if ((await this.store.append(sessionId, turnMessage(job.provider, job.prompt, turn ?? 0))) === null) return;
    const held = this.held.get(sessionId) ?? (await this.start(sessionId, job, signals));
    if (!held) return;
    if (held.idle) clearTimeout(held.idle);
    held.idle = null;
    signals.onCancel(() => void held.session.interrupt());
    signals.onApprove((approvalId, answer) => held.session.approve(approvalId, answer));
    signals.onClose?.(() => this.inBackground(this.closeCli(sessionId, 'session')));
    let release!: () => void;
    const appended = new Promise<void>((resolve) => held.results.push((release = resolve)));
    try {
      await held.session.send(job.prompt);
    } catch (error) {
      if (held.session.pid !== undefined && this.held.get(sessionId) === held && error instanceof TypeError) {
        // A message no CLI can be given (a NUL byte): this turn fails and says why; the session goes on.
        held.results.pop();
        for (const event of endingEvents(job.provider, 'invalid_request', error.message, 'failed'))
          await this.store.append(sessionId, event);
        return this.idleLater(sessionId, held);
      }
      // The CLI ended before the turn started (its stream says why): unless its result came, the turn
      // is owed one, as every turn is (a chat finds a turn by counting results: turn-stream.ts).
      const owed = held.results.indexOf(release);
      if (owed < 0) return;
      held.results.splice(owed, 1);
      const message = 'the CLI ended before this turn started; the turn was not played (send the message again); the session goes on';
      for (const event of endingEvents(job.provider, 'no_result', message, 'failed')) await this.store.append(sessionId, event);
      return;
    }
    await appended;
    if (this.held.get(sessionId) === held) this.idleLater(sessionId, held);
  }

  /** Closes every CLI this worker holds (a worker shutting down): a running turn ends `aborted`; the sessions go on elsewhere. */
  async close(): Promise<void> {
    const closing = [...this.held.entries()].map(([sessionId]) => this.closeCli(sessionId, 'idle'));
    await Promise.all(closing);
    // A CLI closed just before (its session closed, its idle time up) may still be exiting: its pump ends when it is gone.
    while (this.background.size > 0) await Promise.all(this.background);
  }

  /** Starts the session's CLI (resuming its conversation when it had one), or ends the turn with why it could not. */
  private async start(sessionId: string, job: RunJob, signals: JobSignals): Promise<Held | null> {
    const fail = async (code: 'spawn_failed', message: string): Promise<null> => {
      for (const event of endingEvents(job.provider, code, message, 'failed')) await this.store.append(sessionId, event);
      return null;
    };
    let workspace = this.workspaces.get(sessionId)?.workspace;
    if (!workspace) {
      try {
        workspace = await openJobWorkspace(sessionId, job);
      } catch (error) {
        return fail('spawn_failed', `could not prepare the session's workspace: ${(error as Error).message}`);
      }
      this.workspaces.set(sessionId, { workspace, keep: job.keepWorkspace === true });
    }
    const resume = CLIS[job.provider].session.resume === null ? undefined : ((await this.store.lastSessionId(sessionId)) ?? undefined);
    let session: Session;
    try {
      session = startSession(sessionOptionsOf({ ...job, cwd: workspace.cwd }, resume));
    } catch (error) {
      return fail('spawn_failed', (error as Error).message);
    }
    const held: Held = {
      session,
      job,
      results: [],
      idle: null,
      closing: null,
      stored: 0,
      release: signals.holdCli?.() ?? (() => undefined),
    };
    this.held.set(sessionId, held);
    this.inBackground(
      this.pump(sessionId, held, workspace).catch((error: unknown) => {
        // The store took no more (it could not write: a full disk): the CLI is stopped and its turn released.
        this.letGo(sessionId, held);
        for (const releaseTurn of held.results.splice(0)) releaseTurn();
        void session.close();
        throw error;
      }),
    );
    return held;
  }

  /** Appends every event of the CLI to the session's stream, in order, until the CLI is gone. */
  private async pump(sessionId: string, held: Held, workspace: Workspace): Promise<void> {
    const { session, job } = held;
    let open = true;
    for await (const event of session) {
      if (!open) continue;
      if (event.kind === 'result') await noteChanges(workspace, event, (patch) => this.store.saveDiff(sessionId, patch));
      open = await this.append(sessionId, held, event);
      if (event.kind === 'result') held.results.shift()?.();
      if (!open) void session.close();
    }
    await session.done;
    this.letGo(sessionId, held);
    if (held.idle) clearTimeout(held.idle);
    for (const release of held.results.splice(0)) release();
    // Closed by its session (its last events are in), stopped by a limit, or a CLI that cannot resume
    // (Gemini CLI 0.61.0), however it ended: the session is over. An idle CLI closed, or one that died
    // but can be resumed: the session goes on from its next message.
    const resumable = CLIS[job.provider].session.resume !== null;
    if (held.closing === 'session' || !open || !resumable) await this.end(sessionId, []);
  }

  /** Appends `event` under the job's stored-output limit; false when the stream takes no more (closed, or the limit passed). */
  private async append(sessionId: string, held: Held, event: AnyEvent): Promise<boolean> {
    const { job } = held;
    held.stored += Buffer.byteLength(JSON.stringify(event));
    if (job.maxRunBytes && held.stored > job.maxRunBytes) {
      // Nothing is dropped silently: the session stops here and its stream says why.
      await this.end(
        sessionId,
        endingEvents(job.provider, 'output_limit', `the session's events passed ${job.maxRunBytes} bytes: it was stopped`, 'failed'),
      );
      return false;
    }
    return (await this.store.append(sessionId, event)) !== null;
  }

  /** Completes the session's stream (once: the store refuses a second) and schedules its workspace's removal with it. */
  private async end(sessionId: string, ending: AnyEvent[]): Promise<void> {
    await this.store.complete(sessionId, ending);
    const made = this.workspaces.get(sessionId);
    this.workspaces.delete(sessionId);
    if (made && !made.keep) setTimeout(() => void made.workspace.remove().catch(() => undefined), timerMs(this.options.ttlMs)).unref();
  }

  private idleLater(sessionId: string, held: Held): void {
    held.idle = setTimeout(() => this.inBackground(this.closeCli(sessionId, 'idle')), timerMs(this.idleMs));
    held.idle.unref();
  }

  /**
   * Work no caller awaits (a CLI's pump, an idle or a close timer): a failure of the store there (its
   * journal could not write: a full disk) never takes the process down, as a run's job's does not.
   */
  private inBackground(work: Promise<void>): void {
    const settled = work.catch(() => undefined);
    this.background.add(settled);
    void settled.then(() => this.background.delete(settled));
  }

  private async closeCli(sessionId: string, why: 'session' | 'idle'): Promise<void> {
    const held = this.held.get(sessionId);
    if (!held) {
      if (why === 'session') await this.end(sessionId, []);
      return;
    }
    held.closing ??= why;
    this.letGo(sessionId, held);
    await held.session.close();
  }

  /** Forgets the CLI `held` (unless another took its place) and tells the store this worker no longer holds it. */
  private letGo(sessionId: string, held: Held): void {
    if (this.held.get(sessionId) !== held) return;
    this.held.delete(sessionId);
    held.release();
  }
}
