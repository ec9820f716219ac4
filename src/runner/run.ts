import type { AnyEvent } from '../events/event';
import { createDecoder, type Decoder } from '../providers/decoder';
import { CliProcess, describeReason, type Backpressure } from './cli-process';
import { buildArgv, promptGoesOnStdin } from './flags';
import { checkDuration, prepareLaunch } from './launch';
import { OutcomeTally, STOP_ENDINGS, type StopReason } from './outcome';
import { resumeBaseline } from './resume-baseline';
import type { Run, RunOptions, RunOutcome, RunProvider } from './types';

const DEFAULT_GRACE_MS = 2000;
const DEFAULT_RESULT_GRACE_MS = 5000;

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
  const { cwd, executable, env } = prepareLaunch(provider, options);
  return new ChildRun(provider, executable, argv, cwd, env, options);
}

/** @internal The runner's view of its own backpressure, for tests (see `Backpressure`). */
export type RunBackpressure = Backpressure;

class ChildRun extends CliProcess implements Run {
  declare readonly provider: RunProvider;
  readonly done: Promise<RunOutcome>;

  private readonly decoder: Decoder;
  private readonly tally: OutcomeTally;
  private idleTimer: NodeJS.Timeout | null = null;
  private resultTimer: NodeJS.Timeout | null = null;
  private stopReason: StopReason | null = null;
  private stopMessage = '';
  private finished = false;

  constructor(provider: RunProvider, executable: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, private readonly options: RunOptions) {
    // Stdin carries only a long prompt: with an open stdin pipe Codex waits for more input ("Reading
    // additional input from stdin..."), and Claude and Gemini append piped stdin to the prompt.
    const stdin = promptGoesOnStdin(options.prompt) ? options.prompt : null;
    super(provider, { executable, args, cwd, env, stdin, graceMs: options.killGraceMs ?? DEFAULT_GRACE_MS });
    // A resumed session's CLI reports totals that include the earlier runs: the outcome leaves them out.
    this.tally = new OutcomeTally(options.resume ? resumeBaseline(provider, options.resume, env) : null);
    // Live: a line with no time of its own is stamped when it was read, not with an older line's time.
    // keepRaw 'none' by default: see `RunOptions.keepRaw`.
    this.decoder = createDecoder(provider, { keepRaw: options.keepRaw ?? 'none', live: true });
    this.startPumps();
    this.watchStops();
    this.done = this.finish();
  }

  abort(reason?: string): void {
    this.stop('aborted', reason === undefined ? 'the run was aborted' : `the run was aborted: ${String(reason)}`);
  }

  [Symbol.asyncIterator](): AsyncIterator<AnyEvent> {
    // Leaving the `for await` early stops the run; the loop goes on only once every process is gone.
    // After a completed result there is nothing to abort: the CLI gets its grace to exit by itself
    // (it may still be writing its session to disk), then it is stopped (see `awaitExit`).
    const leave = () => {
      if (!this.finished && !this.tally.completed) this.abort('the consumer stopped reading');
    };
    return this.iterate(leave, () => this.done, 'Run');
  }

  protected lineEvents(line: string): AnyEvent[] {
    return this.decoder.push(line);
  }

  protected currentSessionId(): string | null {
    return this.decoder.sessionId;
  }

  protected readFailed(message: string): void {
    this.stop('aborted', `the run was stopped: ${message}`);
  }

  protected override noted(event: AnyEvent): void {
    this.tally.note(event);
    if (event.kind === 'result' && this.tally.completed) this.awaitExit();
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
  protected override heardFrom(): void {
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
    this.stopTree();
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

  private async finish(): Promise<RunOutcome> {
    const { exit, spawnError } = await this.settle();
    const stop = this.stopReason;
    if (spawnError) {
      this.emit(this.ending({ message: this.spawnFailure(spawnError), code: 'spawn_failed' }, { status: 'failed', stop_reason: 'spawn_failed' }));
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

