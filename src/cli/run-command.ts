import type { AnyEvent } from '../events/event';
import { ExecutableNotFoundError, startRun, type RunOptions, type RunOutcome, type RunStatus } from '../runner';
import { CliIo, watchOutput, write } from './io';
import { eventWriter, type FormatOptions } from './output-format';

/** What can stop a run or a session from outside: a signal to this process, or the reader of stdout going away. */
export type Stop = 'SIGINT' | 'SIGTERM' | 'closed-output';

/** The exit code of a run (or session) that ended on its own; an aborted one that nothing outside stopped failed. */
const STATUS_EXIT_CODES: Record<RunStatus, number> = { completed: 0, failed: 1, timed_out: 1, aborted: 1 };

/** The exit code of a run stopped from outside: 128 + the signal's number, as a shell reports a process that signal ended (SIGPIPE for a closed stdout). */
const STOP_EXIT_CODES: Record<Stop, number> = { SIGINT: 130, SIGTERM: 143, 'closed-output': 141 };

/** Exit code when the CLI's executable is missing, as a shell answers for a command not found. */
const NOT_FOUND_EXIT_CODE = 127;

/** Exit code of an option the provider's CLI has no flag for (`startRun` throws a TypeError): a usage error. */
const USAGE_EXIT_CODE = 2;

/** A started run or session, as the commands stream it. */
export interface Streamed {
  readonly events: AsyncIterable<AnyEvent>;
  /** Stops it from outside (it still writes its own ending). */
  stop(why: Stop): void;
  readonly done: Promise<RunOutcome>;
}

/** JSON lines unless stdout is a terminal: what `run` and `session` write when no option says. */
const BY_OUTPUT: FormatOptions = { verbose: false };

/**
 * `run --provider <p> [options] [--] <prompt>`: runs the agent CLI and writes its normalized
 * events to stdout, one `JSON.stringify(event)` per line (or a transcript: `output`), waiting for
 * the reader when its pipe is full. SIGINT or SIGTERM stops the CLI and everything it started; the run's own `aborted` result
 * is still written before exiting. A reader that closes stdout early stops the run too. Answers
 * the exit code (see `STATUS_EXIT_CODES`, `STOP_EXIT_CODES`).
 */
export function runCommand(
  options: RunOptions,
  io: CliIo,
  signals: NodeJS.EventEmitter = process,
  output: FormatOptions = BY_OUTPUT,
): Promise<number> {
  return streamCommand(
    () => {
      const run = startRun(options);
      return { events: run, stop: (why) => run.abort(why), done: run.done };
    },
    io,
    signals,
    output,
  );
}

/**
 * Starts a run or a session with `start` and writes its events to stdout as JSON lines (or a
 * transcript, by `format`); SIGINT,
 * SIGTERM and a closed stdout stop it. Answers the exit code: 127 for a missing executable, 2 for
 * an invalid option (a TypeError), 128 + the signal when stopped from outside, else by its status.
 */
export async function streamCommand(
  start: () => Streamed,
  io: CliIo,
  signals: NodeJS.EventEmitter,
  format: FormatOptions = BY_OUTPUT,
): Promise<number> {
  const writer = await eventWriter(format, io);
  let streamed: Streamed;
  try {
    streamed = start();
  } catch (error) {
    if (!(error instanceof ExecutableNotFoundError || error instanceof TypeError)) throw error;
    // One line, no stack: these are the user's to fix, not bugs.
    io.stderr.write(`cli-subprocess-core: ${error.message}\n`);
    return error instanceof TypeError ? USAGE_EXIT_CODE : NOT_FOUND_EXIT_CODE;
  }
  let stoppedBy: Stop | undefined;
  const stop = (why: Stop) => {
    stoppedBy ??= why;
    streamed.stop(why);
  };
  const onSigint = () => stop('SIGINT');
  const onSigterm = () => stop('SIGTERM');
  signals.on('SIGINT', onSigint);
  signals.on('SIGTERM', onSigterm);
  const output = watchOutput(io.stdout);
  void output.closed.then(() => stop('closed-output'));
  try {
    for await (const event of streamed.events) {
      // Once the reader is gone, keep draining (the stop finishes) but write nothing more.
      if (output.isClosed()) continue;
      const text = writer.event(event);
      if (text !== '') await Promise.race([write(io.stdout, text), output.closed]);
    }
    const rest = writer.end();
    if (rest !== '' && !output.isClosed()) await Promise.race([write(io.stdout, rest), output.closed]);
  } finally {
    signals.off('SIGINT', onSigint);
    signals.off('SIGTERM', onSigterm);
  }
  const { status } = await streamed.done;
  // A stop that came too late (the run had completed) changes nothing.
  return status === 'aborted' && stoppedBy ? STOP_EXIT_CODES[stoppedBy] : STATUS_EXIT_CODES[status];
}
