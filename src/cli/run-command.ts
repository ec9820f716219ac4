import { ExecutableNotFoundError, startRun, type Run, type RunOptions, type RunStatus } from '../runner';
import { CliIo, watchOutput, write } from './io';

/** What can stop a run from outside: a signal to this process, or the reader of stdout going away. */
type Stop = 'SIGINT' | 'SIGTERM' | 'closed-output';

/** The exit code of a run that ended on its own. */
const STATUS_EXIT_CODES: Record<Exclude<RunStatus, 'aborted'>, number> = { completed: 0, failed: 1, timed_out: 1 };

/** The exit code of a run stopped from outside: 128 + the signal's number, as a shell reports a process that signal ended (SIGPIPE for a closed stdout). */
const STOP_EXIT_CODES: Record<Stop, number> = { SIGINT: 130, SIGTERM: 143, 'closed-output': 141 };

/** Exit code when the CLI's executable is missing, as a shell answers for a command not found. */
const NOT_FOUND_EXIT_CODE = 127;

/** Exit code of an option the provider's CLI has no flag for (`startRun` throws a TypeError): a usage error. */
const USAGE_EXIT_CODE = 2;

/**
 * `run --provider <p> [options] [--] <prompt>`: runs the agent CLI and writes its normalized
 * events to stdout, one `JSON.stringify(event)` per line, waiting for the reader when its pipe is
 * full. SIGINT or SIGTERM stops the CLI and everything it started; the run's own `aborted` result
 * is still written before exiting. A reader that closes stdout early stops the run too. Answers
 * the exit code (see `STATUS_EXIT_CODES`, `STOP_EXIT_CODES`).
 */
export async function runCommand(options: RunOptions, io: CliIo, signals: NodeJS.EventEmitter = process): Promise<number> {
  let run: Run;
  try {
    run = startRun(options);
  } catch (error) {
    if (!(error instanceof ExecutableNotFoundError || error instanceof TypeError)) throw error;
    // One line, no stack: these are the user's to fix, not bugs.
    io.stderr.write(`cli-subprocess-core: ${error.message}\n`);
    return error instanceof TypeError ? USAGE_EXIT_CODE : NOT_FOUND_EXIT_CODE;
  }
  let stoppedBy: Stop | undefined;
  const stop = (why: Stop) => {
    stoppedBy ??= why;
    run.abort(why);
  };
  const onSigint = () => stop('SIGINT');
  const onSigterm = () => stop('SIGTERM');
  signals.on('SIGINT', onSigint);
  signals.on('SIGTERM', onSigterm);
  const output = watchOutput(io.stdout);
  void output.closed.then(() => stop('closed-output'));
  try {
    for await (const event of run) {
      // Once the reader is gone, keep draining (the run's stop finishes) but write nothing more.
      if (output.isClosed()) continue;
      await Promise.race([write(io.stdout, `${JSON.stringify(event)}\n`), output.closed]);
    }
  } finally {
    signals.off('SIGINT', onSigint);
    signals.off('SIGTERM', onSigterm);
  }
  const { status } = await run.done;
  // Only `stop` aborts this run, so an aborted one has a `stoppedBy`; a stop that came too late changes nothing.
  return status === 'aborted' ? STOP_EXIT_CODES[stoppedBy ?? 'SIGINT'] : STATUS_EXIT_CODES[status];
}
