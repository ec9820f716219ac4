import type { Readable } from 'node:stream';
import { CliIo, openInput, unreadable, watchOutput, write, writeUnlessClosed } from './io';
import { LineChecks } from './line-checks';
import { LineSplitter } from './line-splitter';
import { Progress } from './progress';
import { formatSummary } from './summary';

export interface ValidateOptions {
  readonly file: string;
  readonly json: boolean;
  readonly maxLineBytes: number;
  readonly allowInvalidUtf8: boolean;
}

/** Exit code after SIGINT: 128 + 2, as a shell reports a process SIGINT ended. */
const INTERRUPTED_EXIT_CODE = 130;

/** What ended a run before the end of its input. */
type Stop = 'SIGINT' | 'closed-output';

/**
 * `validate <file|->`: checks each line as an Event, streaming (one line in memory at a time, and
 * none longer than `maxLineBytes`). Errors and the summary go to stdout, or to stderr with `--json`,
 * where stdout carries the normalized events as JSONL. Answers the exit code: 0 all valid, 1 some
 * invalid, 2 unreadable input. A reader that closes stdout early (`| head`) stops the run with the
 * code of the lines read so far; SIGINT prints the summary so far on stderr and answers 130.
 */
export async function validateCommand(options: ValidateOptions, io: CliIo, signals: NodeJS.EventEmitter = process): Promise<number> {
  const { source, input } = openInput(options.file, io);
  const report = options.json ? io.stderr : io.stdout;
  const output = watchOutput(io.stdout);
  const progress = new Progress(io.progress, source, io.progressEveryMs);
  const checks: LineChecks = new LineChecks(source, options, () => {
    if (!progress.due(checks.tally.lines)) return;
    // Report lines still buffered come before the progress line, which is then cleared before the next ones.
    writeProblemsNow();
    progress.draw(checks.tally.lines, checks.tally.invalid);
  });
  const splitter = new LineSplitter(checks, options);

  const takeProblems = (): string => {
    const text = checks.problems;
    checks.problems = '';
    if (text) progress.clear();
    return text;
  };
  const writeProblemsNow = () => {
    const text = takeProblems();
    if (text && !(report === io.stdout && output.isClosed())) report.write(text);
  };
  const send = async (stream: typeof report, text: string) => {
    if (text) await (stream === io.stdout ? writeUnlessClosed(stream, text, output) : write(stream, text));
  };
  const flush = async () => {
    await send(report, takeProblems());
    if (checks.events.isEmpty) return;
    const events = checks.events.take();
    await writeUnlessClosed(io.stdout, events, output, () => checks.events.recycle(events));
  };

  let stop: Stop | undefined;
  // Stopping destroys the input, which ends a read in progress: no promise races a read (a race
  // against a promise that never settles keeps every chunk it ever raced alive).
  const stopBy = (why: Stop) => {
    stop ??= why;
    (input as Readable).destroy();
  };
  const onSigint = () => stopBy('SIGINT');
  signals.on('SIGINT', onSigint);
  void output.closed.then(() => stopBy('closed-output'));
  const chunks = (input as AsyncIterable<Buffer | string>)[Symbol.asyncIterator]();
  try {
    while (stop === undefined) {
      let next: IteratorResult<Buffer | string>;
      try {
        next = await chunks.next();
      } catch (cause) {
        if (stop !== undefined) break; // the destroyed input's read
        progress.clear();
        return unreadable(io, source, cause);
      }
      if (stop !== undefined) break;
      if (next.done) splitter.end();
      else splitter.push(next.value);
      await flush();
      if (next.done) break;
    }
  } finally {
    signals.off('SIGINT', onSigint);
  }
  progress.clear();
  const summary = formatSummary(source, checks.tally);
  const code = checks.tally.invalid > 0 ? 1 : 0;
  if (stop === 'SIGINT') {
    await write(io.stderr, summary);
    return INTERRUPTED_EXIT_CODE;
  }
  await send(report, summary);
  return code;
}
