import { firstInvalidUtf8Byte, isValidUtf8 } from './utf8';

/** Default `--max-line-bytes`: 64 MB, far above any real event line and far below V8's string limit (~512 M characters). */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

/** What the splitter hands on, line by line, in input order. */
export interface LineSink {
  /** A line's text, without its `\n` or `\r\n` (and without a byte order mark on the first line). */
  text(line: string): void;
  /** A line longer than the limit: only its length was kept, never its bytes. */
  tooLong(bytes: number): void;
  /** A line that is not UTF-8: the offset of its first bad byte. */
  invalidUtf8(byteOffset: number): void;
}

export interface SplitterOptions {
  readonly maxLineBytes: number;
  /** Decode invalid UTF-8 with U+FFFD replacements instead of reporting the line. */
  readonly allowInvalidUtf8: boolean;
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * Splits a byte stream into lines, synchronously, chunk by chunk. A line is held only while it is
 * shorter than `maxLineBytes`: past that its bytes are counted and dropped (`validate /dev/zero`,
 * or a 600 MB line, used to end in readline's `RangeError: Invalid string length`). UTF-8 is
 * checked per line: a byte '\n' never occurs inside a multi-byte character, so lines split on
 * bytes are exactly the text's lines.
 */
export class LineSplitter {
  /** The unfinished line's pieces (views into the chunks that carried them). */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Bytes of an over-long line counted so far; -1 while not skipping one. */
  private skipped = -1;
  private first = true;

  constructor(
    private readonly sink: LineSink,
    private readonly options: SplitterOptions,
  ) {}

  /** Hands on every line that `chunk` completes (a string chunk, from a stream with an encoding set, is taken as UTF-8). */
  push(input: Buffer | string): void {
    const chunk = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
    const newline = chunk.indexOf(NEWLINE);
    if (newline === -1) return this.carry(chunk, 0, chunk.length);
    let start = 0;
    if (this.skipped !== -1 || this.pendingBytes > 0) {
      this.carry(chunk, 0, newline);
      this.finishPending();
      start = newline + 1;
    }
    const last = chunk.lastIndexOf(NEWLINE);
    if (last >= start) this.lines(chunk, start, last);
    this.carry(chunk, last + 1, chunk.length);
  }

  /** At the end of the input: the last line, when it has no newline. */
  end(): void {
    if (this.skipped !== -1 || this.pendingBytes > 0) this.finishPending();
  }

  /** Keeps (or, past the limit, only counts) the start of an unfinished line. */
  private carry(chunk: Buffer, from: number, to: number): void {
    if (to <= from) return;
    if (this.skipped !== -1) {
      this.skipped += to - from;
    } else if (this.pendingBytes + (to - from) > this.options.maxLineBytes) {
      this.skipped = this.pendingBytes + (to - from);
      this.pending = [];
      this.pendingBytes = 0;
    } else {
      this.pending.push(chunk.subarray(from, to));
      this.pendingBytes += to - from;
    }
  }

  private finishPending(): void {
    if (this.skipped !== -1) {
      // The byte count includes a final '\r': the line was never looked at, only counted.
      const bytes = this.skipped;
      this.skipped = -1;
      this.first = false;
      this.sink.tooLong(bytes);
      return;
    }
    const bytes = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    this.line(bytes, 0, bytes.length, false);
  }

  /** The complete lines in `chunk[from, to)`, separated by '\n' (`to` is the last newline). */
  private lines(chunk: Buffer, from: number, to: number): void {
    // One native check for the whole run of lines; only a run with a bad byte is checked line by line.
    const valid = this.options.allowInvalidUtf8 || isValidUtf8(chunk.subarray(from, to));
    for (let start = from; start <= to;) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 || newline > to ? to : newline;
      this.line(chunk, start, end, valid);
      start = end + 1;
    }
  }

  private line(bytes: Buffer, start: number, end: number, knownValid: boolean): void {
    if (this.first) {
      this.first = false;
      if (end - start >= 3 && bytes[start] === 0xef && bytes[start + 1] === 0xbb && bytes[start + 2] === 0xbf) start += 3;
    }
    if (end > start && bytes[end - 1] === CARRIAGE_RETURN) end--;
    if (end - start > this.options.maxLineBytes) return this.sink.tooLong(end - start);
    if (!knownValid && !this.options.allowInvalidUtf8) {
      const bad = firstInvalidUtf8Byte(bytes, start, end);
      if (bad !== -1) return this.sink.invalidUtf8(bad);
    }
    this.sink.text(bytes.toString('utf8', start, end));
  }
}
