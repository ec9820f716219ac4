import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { Event, type AnyEvent } from '../events/event';
import { laterOf, type ExitInfo } from '../decode/decoder';
import { splitLines } from '../providers/lines';
import { endingEvents, type EndingError, type Termination } from './ending';
import { EventQueue } from './event-queue';
import { drainOutput } from './drain-output';
import { trackLiveTree } from './host-exit';
import { ProcessTree } from './process-tree';
import { watchTree } from './tree-watch';
import { StderrLines } from './stderr-lines';

/** Milliseconds between SIGTERM and SIGKILL when stopping, unless `killGraceMs` says otherwise. */
export const DEFAULT_GRACE_MS = 2000;

/** How much of the CLI's stderr is kept for a "no result" error: the reason is usually there. */
const STDERR_TAIL_LINES = 20;
const STDERR_TAIL_CHARS = 4096;

/** What to spawn, and what goes on the CLI's stdin. */
export interface SpawnSpec {
  readonly executable: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** null: no stdin; a string: written, then the pipe is closed; `'open'`: a pipe the owner writes to (sessions). */
  readonly stdin: string | null | 'open';
  /** Milliseconds between SIGTERM and SIGKILL when stopping. */
  readonly graceMs: number;
}

/** How the CLI process ended: its exit (a spawn that failed is a `spawn_failed` termination). */
export interface Settled {
  readonly exit: ExitInfo;
  readonly spawnFailed: boolean;
}

/** @internal The runner's view of its own backpressure, for tests: events held, their bound, and whether output is paused. */
export interface Backpressure {
  readonly queued: number;
  readonly limit: number;
  readonly paused: boolean;
  /** How many times reading the child's output had to wait for the consumer. */
  readonly waits: number;
  /** Bytes waiting in the child's stdout stream buffer (bounded by its high-water mark). */
  readonly stdoutBuffered: number;
}

/**
 * One CLI process and every process it starts, as runs and sessions both need it: spawned without a
 * shell in a process group of its own (`detached`, so a stop can signal the whole group), its tree
 * tracked so that no process outlives it or the host, stdout read line by line into events and
 * stderr into `stderr` events, through one bounded queue (a slow consumer pauses the child's
 * stdout), with one sequence and timestamps that never go backwards (the one home of both for a
 * live stream: its decoder leaves them, see `processDecoder`). How the process ended is decided
 * here once (`terminate`: the first cause wins), and its ending events are built by `endingEvents`.
 * What a line means and what a run or a session owes at its end is the subclass's.
 */
export abstract class CliProcess {
  readonly pid: number | undefined;
  readonly argv: readonly string[];

  /** Null when the spawn itself threw (E2BIG, an invalid argument). */
  protected readonly child: ChildProcess | null;
  protected readonly queue = new EventQueue();
  protected readonly tree: ProcessTree | null;
  protected readonly graceMs: number;
  /** The last lines of stderr, for the error of a CLI that ends without a result. */
  protected readonly stderrTail: string[] = [];
  protected readonly cleanups: (() => void)[] = [];
  /** The CLI has exited (or never started). */
  protected exited = false;
  /** The stop of the process tree under way, once one was asked for. */
  protected stopping: Promise<void> | null = null;
  /** Why the library ended the process (or how it failed to start), once decided: the first cause wins. */
  protected termination: Termination | null = null;
  private readonly exit: Promise<ExitInfo | { spawnError: Error }>;
  private pumps: Promise<void>[] = [];
  private sequence = 0;
  /** The latest timestamp emitted: stderr events (stamped now) and stdout events (their line's time) interleave in time order. */
  private lastTime: Date | null = null;
  private iterated = false;

  constructor(
    readonly provider: string,
    /** What the owner is called in its messages: `run`, `session`. */
    private readonly noun: string,
    private readonly spec: SpawnSpec,
  ) {
    this.argv = [spec.executable, ...spec.args];
    this.graceMs = spec.graceMs;
    let child: ChildProcess | null = null;
    let thrown: Error | null = null;
    try {
      const stdin = spec.stdin === null ? 'ignore' : 'pipe';
      child = spawn(spec.executable, [...spec.args], {
        cwd: spec.cwd,
        env: spec.env,
        stdio: [stdin, 'pipe', 'pipe'],
        detached: true,
        windowsHide: true,
      });
    } catch (error) {
      // E2BIG (argv and environment over the system's limit) and invalid arguments throw here, not as an 'error' event.
      thrown = toError(error);
    }
    this.child = child;
    this.pid = child?.pid;
    this.tree = this.pid === undefined ? null : new ProcessTree(this.pid);
    this.exit = new Promise<ExitInfo | { spawnError: Error }>((resolve) => {
      if (!child) return resolve({ spawnError: thrown ?? new Error('spawn failed') });
      // A spawn that failed (pid undefined) also emits 'exit', with an errno name as its code: its 'error' tells more.
      child.once('exit', (code, signal) => {
        if (this.pid !== undefined) resolve({ code, signal });
      });
      child.once('error', (spawnError) => resolve({ spawnError }));
    });
    // A CLI that exits before reading all of its stdin closes the pipe (EPIPE): its exit tells the rest.
    child?.stdin?.on('error', () => undefined);
    if (typeof spec.stdin === 'string' && spec.stdin !== 'open') child?.stdin?.end(spec.stdin);
  }

  /** @internal See `Backpressure`. */
  get backpressure(): Backpressure {
    return {
      queued: this.queue.length,
      limit: this.queue.limit,
      paused: this.queue.paused,
      waits: this.queue.waits,
      stdoutBuffered: this.child?.stdout?.readableLength ?? 0,
    };
  }

  /** The events of one stdout line. */
  protected abstract lineEvents(line: string): readonly AnyEvent[];

  /** The session id stderr events carry: the one of the stdout events so far (none before it is announced). */
  protected abstract currentSessionId(): string | null;

  /** Every event, as it is queued (the owner's tally). */
  protected noted(_event: AnyEvent): void {}

  /** The CLI printed something (stdout or stderr). */
  protected heardFrom(): void {}

  /** Starts reading the CLI's output and tracking its tree; the owner calls it once its own state is ready. */
  protected startPumps(): void {
    if (this.pid === undefined) return;
    this.pumps = [this.pumpStdout(), this.pumpStderr()];
    if (this.tree) {
      this.cleanups.push(watchTree(this.tree));
      this.cleanups.push(trackLiveTree(this.tree, this.graceMs));
    }
  }

  /** The CLI's stdin, for an owner that keeps it open; null once it is gone. */
  protected get stdin(): Writable | null {
    const stdin = this.child?.stdin;
    return stdin && !stdin.destroyed && !stdin.writableEnded ? stdin : null;
  }

  /**
   * The library ends the process, for `termination`'s reason: the first cause is recorded (a later
   * one, or one after the CLI exited, changes nothing), and the tree is stopped.
   */
  protected terminate(termination: Termination): void {
    if (this.exited) return;
    this.termination ??= termination;
    this.stopTree();
  }

  /** Ends the process after `ms` (`timeoutMs`): timed out. */
  protected watchTimeout(ms: number | undefined): void {
    if (ms === undefined) return;
    const timer = setTimeout(
      () => this.terminate({ code: 'timeout', message: `the ${this.noun} timed out after ${ms} ms`, status: 'timed_out' }),
      ms,
    );
    this.cleanups.push(() => clearTimeout(timer));
  }

  /** Calls `onAbort` with the signal's reason once `signal` aborts (at once when it already has). */
  protected watchAbort(signal: AbortSignal | undefined, onAbort: (reason: string | undefined) => void): void {
    if (!signal) return;
    const aborted = (): void => onAbort(describeReason(signal.reason));
    if (signal.aborted) return aborted();
    signal.addEventListener('abort', aborted, { once: true });
    this.cleanups.push(() => signal.removeEventListener('abort', aborted));
  }

  /** SIGTERM to the CLI and every process it started, SIGKILL after the grace period; once. */
  protected stopTree(): void {
    if (this.stopping || this.exited) return;
    // From now on the output is finite: it is read to the end whether or not anyone consumes it.
    this.queue.unbound();
    this.stopping = this.tree ? this.tree.stop(this.graceMs) : Promise.resolve(void this.child?.kill('SIGKILL'));
  }

  /**
   * Waits for the CLI to exit, then for whatever it left behind (its group, commands that left the
   * tree) to be stopped and for its output to be read to the end.
   */
  protected async settle(): Promise<Settled> {
    const result = await this.exit;
    this.exited = true;
    this.queue.unbound();
    // Not `instanceof Error`: Node's errors come from another realm when run inside a vm (jest).
    const spawnError = 'spawnError' in result ? result.spawnError : null;
    const exit: ExitInfo = 'spawnError' in result ? { code: null, signal: null } : result;
    // A spawn that failed is how this process ended, whatever was asked of it before.
    if (spawnError) this.termination = { code: 'spawn_failed', message: this.spawnFailure(spawnError), status: 'failed' };
    if (this.stopping) await this.stopping;
    else if (this.tree) {
      this.tree.refresh();
      // A CLI killed with SIGKILL had no say in its end, and its leftovers get none either: Qwen Code 0.24.4's
      // launcher, SIGKILLed, leaves the CLI it started, which on a SIGTERM still ends the turn as cancelled on
      // the shared pipe, so a killed CLI read as a turn the user aborted.
      if (this.tree.running().length > 0) await (exit.signal === 'SIGKILL' ? this.tree.kill() : this.tree.stop(this.graceMs));
    }
    for (const cleanup of this.cleanups) cleanup();
    const { stdout, stderr } = this.child ?? {};
    await drainOutput(
      {
        drained: Promise.all(this.pumps),
        bytesRead: () => bytesRead(stdout) + bytesRead(stderr),
        cutOff: () => {
          stdout?.destroy();
          stderr?.destroy();
        },
      },
      this.graceMs,
    );
    return { exit, spawnFailed: spawnError !== null };
  }

  /**
   * Every event passes here, in the order the consumer sees it: one sequence (stdout and stderr
   * interleaved), timestamps that never go backwards across the two, and the owner's tally.
   */
  protected emit(events: readonly AnyEvent[]): void {
    for (const event of events) {
      event.sequence = this.sequence++;
      event.timestamp = this.lastTime = laterOf(event.timestamp, this.lastTime);
      this.queue.push(event);
      this.noted(event);
    }
  }

  /** The `error` the library itself ends a run or a turn with, and the `result` of `status` unless null (see `endingEvents`). */
  protected ending(error: EndingError, status: Termination['status'] | null): AnyEvent[] {
    return endingEvents({ provider: this.provider, provider_session_id: this.currentSessionId() }, error, status);
  }

  /** The message of a spawn that failed: E2BIG and ENOENT say nothing clear on their own. */
  private spawnFailure(error: Error): string {
    const code = (error as { code?: unknown }).code;
    const why =
      code === 'E2BIG'
        ? ' (the arguments and environment are larger than the system allows)'
        : code === 'ENOENT'
          ? ` (the executable or the working directory ${this.spec.cwd} is gone)`
          : '';
    return `could not start ${this.spec.executable}: ${error.message}${why}`;
  }

  /**
   * The events, once: `leave` runs when the consumer leaves the `for await` early (and the loop goes
   * on only once `done` has settled).
   */
  protected iterate(leave: () => void, done: () => Promise<unknown>, what: string): AsyncIterator<AnyEvent> {
    if (this.iterated) throw new TypeError(`a ${what} can be iterated only once`);
    this.iterated = true;
    const iterator: AsyncIterableIterator<AnyEvent> = {
      next: async () => {
        const event = await this.queue.next();
        return event ? { value: event, done: false } : { value: undefined, done: true };
      },
      return: async () => {
        leave();
        this.queue.discard();
        await done();
        return { value: undefined, done: true };
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  private async pumpStdout(): Promise<void> {
    const stdout = this.child?.stdout;
    if (!stdout) return;
    try {
      for await (const line of splitLines(stdout)) {
        this.heardFrom();
        // Waiting here stops reading the pipe: the child blocks on a full pipe until the consumer catches up.
        await this.queue.space();
        this.emit(this.lineEvents(line));
      }
    } catch (error) {
      this.failedReading(error);
    }
  }

  private async pumpStderr(): Promise<void> {
    const stderr = this.child?.stderr;
    if (!stderr) return;
    const lines = new StderrLines();
    try {
      for await (const chunk of stderr as AsyncIterable<Buffer>) {
        this.heardFrom();
        await this.queue.space();
        for (const line of lines.push(chunk)) this.emitStderr(line);
      }
    } catch (error) {
      this.failedReading(error);
    }
    for (const line of lines.end()) this.emitStderr(line);
  }

  /**
   * Reading a pipe ended in an error (a broken pipe, or a bug of the library's own while turning a
   * line into events): the output is over, so the CLI is stopped rather than left blocked on a
   * full pipe with nobody reading it. No process may outlive its owner.
   */
  private failedReading(error: unknown): void {
    this.terminate({
      code: 'aborted',
      message: `the ${this.noun} was stopped: reading its output failed: ${describeReason(error) ?? 'unknown error'}`,
      status: 'aborted',
    });
  }

  private emitStderr(content: string): void {
    if (content === '') return;
    if (content.trim() !== '') {
      this.stderrTail.push(content.length > STDERR_TAIL_CHARS ? content.slice(-STDERR_TAIL_CHARS) : content);
      if (this.stderrTail.length > STDERR_TAIL_LINES) this.stderrTail.shift();
    }
    this.emit([Event.create('stderr', { provider: this.provider, provider_session_id: this.currentSessionId(), payload: { content } })]);
  }
}

function toError(error: unknown): Error {
  return typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string'
    ? (error as Error)
    : new Error(String(error));
}

/** A reason's text; duck-typed: an Error (or DOMException) made in another realm is not `instanceof Error` here. */
export function describeReason(reason: unknown): string | undefined {
  if (reason === undefined) return undefined;
  if (typeof reason === 'object' && reason !== null && typeof (reason as { message?: unknown }).message === 'string')
    return (reason as { message: string }).message;
  return String(reason);
}

/** Bytes read so far from a child's pipe (a `net.Socket` in Node). */
function bytesRead(pipe: Readable | null | undefined): number {
  return (pipe as Socket | null | undefined)?.bytesRead ?? 0;
}
