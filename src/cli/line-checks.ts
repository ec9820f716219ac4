import { Event } from '../index';
import { formatIssues, formatLineProblem } from './issue-lines';
import type { LineSink } from './line-splitter';
import { OutputBuffer } from './output-buffer';
import { readableKind } from './readable-kind';
import { Tally } from './summary';

const BLANK = /^\s*$/;
const OPEN_BRACE = 0x7b;

/**
 * `validate`'s check of each line, synchronous: counts it, and appends its normalized event
 * (with `--json`) or its report lines to text that the command writes once per input chunk.
 * One write per chunk instead of one per line (and no await per line) is most of what keeps
 * `validate --json` near a plain parse + stringify loop.
 */
export class LineChecks implements LineSink {
  readonly tally = new Tally();
  lineNumber = 0;
  /** Normalized events not yet written (`--json` only). */
  readonly events = new OutputBuffer();
  /** Report lines not yet written. */
  problems = '';

  constructor(
    private readonly source: string,
    private readonly options: { readonly json: boolean; readonly maxLineBytes: number },
    /** Called after every counted line (the progress line). */
    private readonly afterLine: () => void,
  ) {}

  text(line: string): void {
    this.lineNumber++;
    // A JSON line starts with '{', which is never blank: the regex runs only on the rare others.
    if (line.charCodeAt(0) !== OPEN_BRACE && BLANK.test(line)) {
      this.tally.blank++;
      return;
    }
    const result = Event.safeFromJSON(line);
    if (result.success) {
      this.tally.count(true, result.data.kind);
      if (this.options.json) this.events.addLine(JSON.stringify(result.data));
    } else {
      this.tally.count(false, readableKind(line, result.error));
      this.problems += formatIssues(this.source, this.lineNumber, result.error.issues);
    }
    this.afterLine();
  }

  tooLong(bytes: number): void {
    this.invalid(
      formatLineProblem(
        this.source,
        ++this.lineNumber,
        'line_too_long',
        `line of ${bytes} bytes, longer than the limit of ${this.options.maxLineBytes} (--max-line-bytes); skipped unread`,
      ),
    );
  }

  invalidUtf8(byteOffset: number): void {
    this.invalid(
      formatLineProblem(
        this.source,
        ++this.lineNumber,
        'invalid_utf8',
        `not UTF-8: bad byte at offset ${byteOffset} (--allow-invalid-utf8 reads it with U+FFFD in its place)`,
      ),
    );
  }

  private invalid(report: string): void {
    this.tally.count(false, undefined);
    this.problems += report;
    this.afterLine();
  }
}
