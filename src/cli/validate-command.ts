import { Event } from '../index';
import { splitLines } from '../providers/lines';
import { CliIo, openInput, unreadable, write } from './io';
import { formatIssues } from './issue-lines';
import { Progress } from './progress';
import { Tally, formatSummary } from './summary';

const BLANK = /^\s*$/;

/**
 * `validate <file|->`: checks each line as an Event, streaming (one line in memory at a time).
 * Errors and the summary go to stdout, or to stderr with `--json`, where stdout carries the
 * normalized events as JSONL. Answers the exit code: 0 all valid, 1 some invalid, 2 unreadable input.
 */
export async function validateCommand(options: { file: string; json: boolean }, io: CliIo): Promise<number> {
  const { source, input } = openInput(options.file, io);
  const report = options.json ? io.stderr : io.stdout;
  const tally = new Tally();
  const progress = new Progress(io.progress, source, io.progressEveryMs);
  let lineNumber = 0;
  try {
    for await (const line of splitLines(input)) {
      lineNumber++;
      if (BLANK.test(line)) {
        tally.blank++;
        continue;
      }
      const result = Event.safeFromJSON(line);
      if (result.success) {
        tally.count(true, result.data.kind);
        if (options.json) await write(io.stdout, `${JSON.stringify(result.data)}\n`);
      } else {
        tally.count(false, result.error.kind);
        progress.clear();
        await write(report, formatIssues(source, lineNumber, result.error));
      }
      progress.tick(tally.lines, tally.invalid);
    }
  } catch (cause) {
    progress.clear();
    return unreadable(io, source, cause);
  }
  progress.clear();
  await write(report, formatSummary(source, tally));
  return tally.invalid > 0 ? 1 : 0;
}
