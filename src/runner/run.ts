import type { AnyEvent } from '../events/event';
import { describeExit, processDecoder, type Decoder } from '../decode/decoder';
import { profileFor } from '../decode/profiles';
import { CliProcess, DEFAULT_GRACE_MS, type Backpressure } from './cli-process';
import type { Termination } from './ending';
import { buildArgv, promptGoesOnStdin } from './flags';
import { checkDuration, prepareLaunch } from './launch';
import { OutcomeTally } from './outcome';
import { resumeBaseline } from './resume-baseline';
import type { Run, RunOptions, RunOutcome, RunProvider } from './types';

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
  /** The runner stopped a CLI that lingered after its completed result: only a cleanup, the run stays completed. */
  private cleanedUp = false;
  private finished = false;

  constructor(
    provider: RunProvider,
    executable: string,
    args: string[],
    cwd: string,
    env: NodeJS.ProcessEnv,
    private readonly options: RunOptions,
  ) {
    // Stdin carries only a long prompt: with an open stdin pipe Codex waits for more input ("Reading
    // additional input from stdin..."), and Claude and Gemini append piped stdin to the prompt.
    const stdin = promptGoesOnStdin(options.prompt) ? options.prompt : null;
    super(provider, 'run', { executable, args, cwd, env, stdin, graceMs: options.killGraceMs ?? DEFAULT_GRACE_MS });
    // A resumed session's CLI reports totals that include the earlier runs: the outcome leaves them out.
    this.tally = new OutcomeTally(options.resume ? resumeBaseline(provider, options.resume, env) : null);
    // Live: a line with no time of its own is stamped when it was read, not with an older line's time.
    // keepRaw 'none' by default: see `RunOptions.keepRaw`.
    this.decoder = processDecoder(profileFor(provider), options.keepRaw ?? 'none');
    this.startPumps();
    this.watchStops();
    this.done = this.finish();
  }

  abort(reason?: string): void {
    this.terminate({
      code: 'aborted',
      message: reason === undefined ? 'the run was aborted' : `the run was aborted: ${String(reason)}`,
      status: 'aborted',
    });
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

  protected override noted(event: AnyEvent): void {
    this.tally.note(event);
    if (event.kind === 'result' && this.tally.completed) this.awaitExit();
  }

  private watchStops(): void {
    this.heardFrom();
    this.cleanups.push(() => {
      if (this.idleTimer) clearTimeout(this.idleTimer);
      if (this.resultTimer) clearTimeout(this.resultTimer);
    });
    this.watchTimeout(this.options.timeoutMs);
    this.watchAbort(this.options.signal, (reason) => this.abort(reason));
  }

  /** The CLI printed something: the idle timeout starts again. */
  protected override heardFrom(): void {
    const idleMs = this.options.idleTimeoutMs;
    if (idleMs === undefined || this.stopping || this.exited) return;
    if (this.idleTimer) this.idleTimer.refresh();
    else
      this.idleTimer = setTimeout(
        () => this.terminate({ code: 'idle_timeout', message: `the CLI printed nothing for ${idleMs} ms`, status: 'timed_out' }),
        idleMs,
      );
  }

  /**
   * After a completed result every stop is only the cleanup of a CLI that lingers: the run did its
   * work, and an abort, a timeout, a consumer leaving or a read failure then does not make it fail.
   */
  protected override terminate(termination: Termination): void {
    if (this.finished || this.exited) return;
    if (!this.termination && this.tally.completed) this.cleanUp();
    else super.terminate(termination);
  }

  /** Stops a CLI that did its work (its completed result) but lingers: no termination, the run stays completed. */
  private cleanUp(): void {
    if (this.exited) return;
    this.cleanedUp = true;
    this.stopTree();
  }

  /**
   * The CLI's run is over once it printed a completed result, but a CLI may hang on after it (Claude
   * Code, claude-code #25629): it gets `resultGraceMs` to exit by itself, then it is stopped. The
   * run stays completed: the runner only cleaned up.
   */
  private awaitExit(): void {
    if (this.resultTimer || this.stopping || this.exited) return;
    const graceMs = this.options.resultGraceMs ?? DEFAULT_RESULT_GRACE_MS;
    this.resultTimer = setTimeout(() => this.cleanUp(), graceMs);
  }

  private async finish(): Promise<RunOutcome> {
    const { exit, spawnFailed } = await this.settle();
    const termination = this.termination;
    const exitMeta = { exit_code: exit.code, signal: exit.signal };
    if (termination) {
      // The runner ended the run (or it never started), and says so: the decoder's "no result" ending does not apply.
      this.emit(this.decoder.end(exit, 'held'));
      // A result the CLI printed itself is kept, and no second one added.
      this.emit(
        this.ending(
          { message: termination.message, code: termination.code, metadata: spawnFailed ? {} : exitMeta },
          this.tally.sawResult ? null : termination.status,
        ),
      );
    } else {
      this.emit(this.decoder.end({ ...exit, stderrTail: this.stderrTail.join('\n') }));
      // A CLI that fails after saying it completed (and that the runner did not stop itself) has failed.
      if (!this.cleanedUp && this.tally.completed && (exit.code !== 0 || exit.signal !== null)) {
        this.emit(
          this.ending(
            { message: `the CLI ${describeExit(exit)} after its result`, code: 'exit_code', severity: 'error', metadata: exitMeta },
            null,
          ),
        );
      }
    }
    this.finished = true;
    this.queue.close();
    return this.tally.outcome(exit, termination, this.cleanedUp);
  }
}
