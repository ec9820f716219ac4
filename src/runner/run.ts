import { spawn, type ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';
import type { ErrorSeverity } from '../payloads/error.payload';
import type { ErrorCode } from '../providers/error-codes';
import { Event, type AnyEvent } from '../events/event';
import { createDecoder, laterOf, type Decoder, type ExitInfo } from '../providers/decoder';
import { splitLines } from '../providers/lines';
import { EventQueue } from './event-queue';
import { resolveExecutable } from './executable';
import { buildArgv, defaultExecutable, FLAGS, promptGoesOnStdin, refuseNul } from './flags';
import { trackLiveTree } from './host-exit';
import { OutcomeTally, STOP_ENDINGS, type StopReason } from './outcome';
import { ProcessTree, watchTree } from './process-tree';
import { resumeBaseline } from './resume-baseline';
import { StderrLines } from './stderr-lines';
import type { Run, RunOptions, RunOutcome, RunProvider } from './types';

const DEFAULT_GRACE_MS = 2000;
const DEFAULT_RESULT_GRACE_MS = 5000;
/** How much of the CLI's stderr the runner keeps for a "no result" error: the reason is usually there. */
const STDERR_TAIL_LINES = 20;
const STDERR_TAIL_CHARS = 4096;

/**
 * Starts a CLI run and returns it at once; iterate it for its normalized events.
 *
 * The CLI is spawned without a shell (the prompt is one argv element, or stdin for a prompt over
 * 64 KiB), in a process group of its own. Throws synchronously, before anything runs:
 * `ExecutableNotFoundError` when the executable is missing, and a `TypeError` for an invalid option
 * (an option the provider's CLI has no flag for, a missing `cwd`, a NUL byte in the prompt). A spawn
 * that fails anyway ends the stream with an `error` (code `spawn_failed`) and a failed `result`.
 *
 * @example
 * const run = startRun({ provider: 'claude', prompt: 'Say hello.', permission: 'accept-edits' });
 * for await (const event of run) console.log(event.kind);
 * const outcome = await run.done; // { status: 'completed', exitCode: 0, … }
 */
export function startRun(options: RunOptions): Run {
  const { provider } = options;
  const argv = buildArgv(provider, options);
  checkDuration('timeoutMs', options.timeoutMs);
  checkDuration('idleTimeoutMs', options.idleTimeoutMs);
  checkDuration('killGraceMs', options.killGraceMs);
  checkDuration('resultGraceMs', options.resultGraceMs);
  const cwd = options.cwd ?? process.cwd();
  refuseNul('cwd', cwd);
  // Checked here: a spawn in a missing directory fails with ENOENT, which reads like a missing executable.
  if (!statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) throw new TypeError(`cwd is not a directory: ${cwd}`);
  const env = mergeEnv(provider, options.env);
  const executable = resolveExecutable(options.executable ?? defaultExecutable(provider), provider, env.PATH, cwd);
  return new ChildRun(provider, executable, argv, cwd, env, options);
}

function checkDuration(name: string, value: number | undefined): void {
  if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value) && value >= 0)) {
    throw new TypeError(`${name} must be a non-negative number of milliseconds; got ${String(value)}`);
  }
}

/** The host's environment without what the provider's CLI must not inherit, then the caller's variables over it. */
function mergeEnv(provider: RunProvider, extra: RunOptions['env']): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of FLAGS[provider].dropEnv) delete env[key];
  for (const [key, value] of Object.entries(extra ?? {})) {
    if (value === undefined) delete env[key];
    else {
      refuseNul(`env ${key}`, `${key}${String(value)}`);
      env[key] = String(value);
    }
  }
  return env;
}

/** @internal The runner's view of its own backpressure, for tests: events held, their bound, and whether output is paused. */
export interface RunBackpressure {
  readonly queued: number;
  readonly limit: number;
  readonly paused: boolean;
  /** How many times reading the child's output had to wait for the consumer. */
  readonly waits: number;
  /** Bytes waiting in the child's stdout stream buffer (bounded by its high-water mark). */
  readonly stdoutBuffered: number;
}

class ChildRun implements Run {
  readonly pid: number | undefined;
  readonly argv: readonly string[];
  readonly done: Promise<RunOutcome>;

  /** Null when the spawn itself threw (E2BIG, an invalid argument). */
  private readonly child: ChildProcess | null;
  private readonly decoder: Decoder;
  private readonly queue = new EventQueue();
  private readonly tally: OutcomeTally;
  private readonly tree: ProcessTree | null;
  private readonly graceMs: number;
  /** The last lines of stderr, for the error of a CLI that ends without a result. */
  private readonly stderrTail: string[] = [];
  private idleTimer: NodeJS.Timeout | null = null;
  private resultTimer: NodeJS.Timeout | null = null;
  private sequence = 0;
  /** The latest timestamp emitted: stderr events (stamped now) and stdout events (their line's time) interleave in time order. */
  private lastTime: Date | null = null;
  private exited = false;
  private stopReason: StopReason | null = null;
  private stopMessage = '';
  private stopping: Promise<void> | null = null;
  private iterated = false;
  private finished = false;
  private readonly cleanups: (() => void)[] = [];

  constructor(
    readonly provider: RunProvider,
    executable: string,
    args: string[],
    cwd: string,
    env: NodeJS.ProcessEnv,
    private readonly options: RunOptions,
  ) {
    this.argv = [executable, ...args];
    this.graceMs = options.killGraceMs ?? DEFAULT_GRACE_MS;
    // A resumed session's CLI reports totals that include the earlier runs: the outcome leaves them out.
    this.tally = new OutcomeTally(options.resume ? resumeBaseline(provider, options.resume, env) : null);
    // Live: a line with no time of its own is stamped when it was read, not with an older line's time.
    // keepRaw 'none' by default: see `RunOptions.keepRaw`.
    this.decoder = createDecoder(provider, { keepRaw: options.keepRaw ?? 'none', live: true });
    // Stdin carries only a long prompt: with an open stdin pipe Codex waits for more input ("Reading
    // additional input from stdin..."), and Claude and Gemini append piped stdin to the prompt.
    // `detached`: a process group of its own, so that the stop can signal the whole group.
    const stdinPrompt = promptGoesOnStdin(options.prompt) ? options.prompt : null;
    let child: ChildProcess | null = null;
    let thrown: Error | null = null;
    try {
      child = spawn(executable, args, { cwd, env, stdio: [stdinPrompt === null ? 'ignore' : 'pipe', 'pipe', 'pipe'], detached: true, windowsHide: true });
    } catch (error) {
      // E2BIG (argv and environment over the system's limit) and invalid arguments throw here, not as an 'error' event.
      thrown = toError(error);
    }
    this.child = child;
    this.pid = child?.pid;
    this.tree = this.pid === undefined ? null : new ProcessTree(this.pid);
    const exit = new Promise<ExitInfo | { spawnError: Error }>((resolve) => {
      if (!child) return resolve({ spawnError: thrown ?? new Error('spawn failed') });
      // A spawn that failed (pid undefined) also emits 'exit', with an errno name as its code: its 'error' tells more.
      child.once('exit', (code, signal) => {
        if (this.pid !== undefined) resolve({ code, signal });
      });
      child.once('error', (spawnError) => resolve({ spawnError }));
    });
    if (child?.stdin && stdinPrompt !== null) {
      // A CLI that exits before reading it all closes the pipe (EPIPE): its exit tells the rest.
      child.stdin.on('error', () => undefined);
      child.stdin.end(stdinPrompt);
    }
    const pumps = this.pid === undefined ? [] : [this.pumpStdout(), this.pumpStderr()];
    if (this.tree) this.cleanups.push(watchTree(this.tree));
    if (this.tree) this.cleanups.push(trackLiveTree(this.tree, this.graceMs));
    this.watchStops();
    this.done = this.finish(exit, pumps);
  }

  /** @internal See `RunBackpressure`. */
  get backpressure(): RunBackpressure {
    return { queued: this.queue.length, limit: this.queue.limit, paused: this.queue.paused, waits: this.queue.waits, stdoutBuffered: this.child?.stdout?.readableLength ?? 0 };
  }

  abort(reason?: string): void {
    this.stop('aborted', reason === undefined ? 'the run was aborted' : `the run was aborted: ${String(reason)}`);
  }

  [Symbol.asyncIterator](): AsyncIterator<AnyEvent> {
    if (this.iterated) throw new TypeError('a Run can be iterated only once');
    this.iterated = true;
    const iterator: AsyncIterableIterator<AnyEvent> = {
      next: async () => {
        const event = await this.queue.next();
        return event ? { value: event, done: false } : { value: undefined, done: true };
      },
      // Leaving the `for await` early stops the run; the loop goes on only once every process is gone.
      // After a completed result there is nothing to abort: the CLI gets its grace to exit by itself
      // (it may still be writing its session to disk), then it is stopped (see `awaitExit`).
      return: async () => {
        if (!this.finished && !this.tally.completed) this.abort('the consumer stopped reading');
        this.queue.discard();
        await this.done;
        return { value: undefined, done: true };
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  private watchStops(): void {
    const { timeoutMs, signal } = this.options;
    this.heardFrom();
    this.cleanups.push(() => {
      if (this.idleTimer) clearTimeout(this.idleTimer);
      if (this.resultTimer) clearTimeout(this.resultTimer);
    });
    if (timeoutMs !== undefined) {
      const timer = setTimeout(() => this.stop('timeout', `the run timed out after ${timeoutMs} ms`), timeoutMs);
      this.cleanups.push(() => clearTimeout(timer));
    }
    if (signal) {
      const onAbort = (): void => this.abort(describeReason(signal.reason));
      if (signal.aborted) onAbort();
      else {
        signal.addEventListener('abort', onAbort, { once: true });
        this.cleanups.push(() => signal.removeEventListener('abort', onAbort));
      }
    }
  }

  /** The CLI printed something: the idle timeout starts again. */
  private heardFrom(): void {
    const idleMs = this.options.idleTimeoutMs;
    if (idleMs === undefined || this.stopReason || this.exited) return;
    if (this.idleTimer) this.idleTimer.refresh();
    else this.idleTimer = setTimeout(() => this.stop('idle_timeout', `the CLI printed nothing for ${idleMs} ms`), idleMs);
  }

  /**
   * The runner's own stop: the first one wins; after the CLI has exited there is nothing left to stop.
   * After a completed result every stop is only the cleanup of a CLI that lingers (`finished`): the
   * run did its work, and an abort, a timeout or a consumer leaving then does not make it fail.
   */
  private stop(reason: StopReason, message: string): void {
    if (this.stopReason || this.exited || this.finished) return;
    this.stopReason = this.tally.completed ? 'finished' : reason;
    this.stopMessage = message;
    // From now on the output is finite: it is read to the end whether or not anyone consumes it.
    this.queue.unbound();
    this.stopping = this.tree ? this.tree.stop(this.graceMs) : Promise.resolve(void this.child?.kill('SIGKILL'));
  }

  private async pumpStdout(): Promise<void> {
    const stdout = this.child?.stdout;
    if (!stdout) return;
    try {
      for await (const line of splitLines(stdout)) {
        this.heardFrom();
        // Waiting here stops reading the pipe: the child blocks on a full pipe until the consumer catches up.
        await this.queue.space();
        this.emit(this.decoder.push(line));
      }
    } catch (error) {
      this.failedReading(error);
    }
  }

  /**
   * Reading a pipe ended in an error (a broken pipe, or a bug of the library's own while turning a
   * line into events): the output is over, so the CLI is stopped rather than left blocked on a
   * full pipe with nobody reading it. No process may outlive the run.
   */
  private failedReading(error: unknown): void {
    this.stop('aborted', `the run was stopped: reading its output failed: ${describeReason(error) ?? 'unknown error'}`);
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
   * Every event passes here, in the order the consumer sees it: one sequence per run (stdout and
   * stderr interleaved), timestamps that never go backwards across the two, and the tally of the outcome.
   */
  private emit(events: readonly AnyEvent[]): void {
    for (const event of events) {
      event.sequence = this.sequence++;
      event.timestamp = this.lastTime = laterOf(event.timestamp, this.lastTime);
      this.tally.note(event);
      this.queue.push(event);
      if (event.kind === 'result' && this.tally.completed) this.awaitExit();
    }
  }

  /**
   * The CLI's run is over once it printed a completed result, but a CLI may hang on after it (Claude
   * Code, claude-code #25629): it gets `resultGraceMs` to exit by itself, then it is stopped. The
   * run stays completed: the runner only cleaned up.
   */
  private awaitExit(): void {
    if (this.resultTimer || this.stopReason || this.exited) return;
    const graceMs = this.options.resultGraceMs ?? DEFAULT_RESULT_GRACE_MS;
    this.resultTimer = setTimeout(() => this.stop('finished', `the CLI was still running ${graceMs} ms after its result`), graceMs);
  }

  /** A stderr line; its session id is the one of the stdout events queued so far (none before `run_started`). */
  private emitStderr(content: string): void {
    if (content === '') return;
    if (content.trim() !== '') {
      this.stderrTail.push(content.length > STDERR_TAIL_CHARS ? content.slice(-STDERR_TAIL_CHARS) : content);
      if (this.stderrTail.length > STDERR_TAIL_LINES) this.stderrTail.shift();
    }
    this.emit([Event.create('stderr', { provider: this.provider, provider_session_id: this.decoder.sessionId, payload: { content } })]);
  }

  /** The `error` and `result` the runner itself ends a run with (a stop, a failed spawn). */
  private ending(
    error: { message: string; code: ErrorCode; severity?: ErrorSeverity; metadata?: Record<string, number | string | null> },
    result: { status: string; stop_reason: string } | null,
  ): AnyEvent[] {
    const envelope = { provider: this.provider, provider_session_id: this.decoder.sessionId };
    const { metadata = {}, severity = 'fatal' } = error;
    const events: AnyEvent[] = [Event.create('error', { ...envelope, payload: { ...error, severity, metadata } })];
    if (result) events.push(Event.create('result', { ...envelope, payload: { ...result, metadata } }));
    return events;
  }

  private async finish(exited: Promise<ExitInfo | { spawnError: Error }>, pumps: Promise<void>[]): Promise<RunOutcome> {
    const result = await exited;
    this.exited = true;
    this.queue.unbound();
    // Not `instanceof Error`: Node's errors come from another realm when run inside a vm (jest).
    const spawnError = 'spawnError' in result ? result.spawnError : null;
    const exit: ExitInfo = 'spawnError' in result ? { code: null, signal: null } : result;
    // Whatever the CLI left behind (its group, commands that left the tree) ends with it.
    if (this.stopping) await this.stopping;
    else if (this.tree) {
      this.tree.refresh();
      if (this.tree.running().length > 0) await this.tree.stop(this.graceMs);
    }
    for (const cleanup of this.cleanups) cleanup();
    // A process outside the known tree may still hold the pipes open: after a grace period the
    // output is cut off, so that `done` always resolves.
    const drained = Promise.all(pumps);
    if ((await Promise.race([drained.then(() => true), delay(this.graceMs).then(() => false)])) === false) {
      this.child?.stdout?.destroy();
      this.child?.stderr?.destroy();
    }
    await drained;
    const stop = this.stopReason;
    if (spawnError) {
      this.emit(this.ending({ message: spawnFailure(this.argv[0] ?? '', this.options.cwd, spawnError), code: 'spawn_failed' }, { status: 'failed', stop_reason: 'spawn_failed' }));
    } else if (stop && stop !== 'finished') {
      // The decoder's "no result line" ending does not apply: the runner ended the run, and says so.
      const owed = this.decoder.end(exit).filter((event) => event.kind !== 'result' && !(event.kind === 'error' && event.payload.code === 'no_result'));
      const { code, status } = STOP_ENDINGS[stop];
      this.emit(owed);
      // A result the CLI printed itself is kept, and no second one added.
      this.emit(this.ending({ message: this.stopMessage, code, metadata: { exit_code: exit.code, signal: exit.signal } }, this.tally.sawResult ? null : { status, stop_reason: code }));
    } else {
      this.emit(this.decoder.end({ ...exit, stderrTail: this.stderrTail.join('\n') }));
      // A CLI that fails after saying it completed (and that the runner did not stop itself) has failed.
      if (!stop && this.tally.completed && (exit.code !== 0 || exit.signal !== null)) {
        const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${String(exit.code)}`;
        this.emit(this.ending({ message: `the CLI ${how} after its result`, code: 'exit_code', severity: 'error', metadata: { exit_code: exit.code, signal: exit.signal } }, null));
      }
    }
    this.finished = true;
    this.queue.close();
    return this.tally.outcome(exit, this.stopReason, spawnError !== null);
  }
}

/** What a failed spawn means: E2BIG and ENOENT say nothing clear on their own. */
function spawnFailure(executable: string, cwd: string | undefined, error: Error): string {
  const code = (error as { code?: unknown }).code;
  const why =
    code === 'E2BIG'
      ? ' (the arguments and environment are larger than the system allows)'
      : code === 'ENOENT'
        ? ` (the executable or the working directory ${cwd ?? process.cwd()} is gone)`
        : '';
  return `could not start ${executable}: ${error.message}${why}`;
}

function toError(error: unknown): Error {
  return typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string' ? (error as Error) : new Error(String(error));
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function describeReason(reason: unknown): string | undefined {
  if (reason === undefined) return undefined;
  // Duck-typed: an Error (or DOMException) made in another realm is not `instanceof Error` here.
  if (typeof reason === 'object' && reason !== null && typeof (reason as { message?: unknown }).message === 'string') return (reason as { message: string }).message;
  return String(reason);
}
