/**
 * Cuts a byte stream (a child's stderr) into lines of at most `maxBytes` bytes each, without
 * their `\n` or `\r\n`. A longer line comes out in pieces of at most `maxBytes`, cut between
 * UTF-8 characters, so one runaway line never holds more than `maxBytes` in memory.
 */
export class StderrLines {
  private pending: Buffer = Buffer.alloc(0);

  constructor(readonly maxBytes = 8192) {
    if (!(Number.isSafeInteger(maxBytes) && maxBytes >= 4))
      throw new TypeError(`maxBytes must be an integer of at least 4; got ${String(maxBytes)}`);
  }

  /** The complete lines (and full-size pieces) that `chunk` finishes. */
  push(chunk: Uint8Array): string[] {
    let buffer = this.pending.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.pending, chunk]);
    const lines: string[] = [];
    for (;;) {
      const newline = buffer.indexOf(0x0a);
      if (newline !== -1 && newline <= this.maxBytes) {
        lines.push(text(buffer.subarray(0, newline)));
        buffer = buffer.subarray(newline + 1);
      } else if (buffer.length > this.maxBytes) {
        const cut = characterBoundary(buffer, this.maxBytes);
        lines.push(buffer.subarray(0, cut).toString('utf8'));
        buffer = buffer.subarray(cut);
      } else {
        break;
      }
    }
    // A copy: the rest must not keep the whole chunk it was cut from alive.
    this.pending = Buffer.from(buffer);
    return lines;
  }

  /** The last, unfinished line (if any); the splitter is empty afterwards. */
  end(): string[] {
    const rest = this.pending;
    this.pending = Buffer.alloc(0);
    return rest.length === 0 ? [] : [text(rest)];
  }
}

function text(line: Buffer): string {
  const end = line.length > 0 && line[line.length - 1] === 0x0d ? line.length - 1 : line.length;
  return line.toString('utf8', 0, end);
}

/** The largest cut at or before `at` that does not split a UTF-8 character (continuation bytes are 10xxxxxx). */
function characterBoundary(buffer: Buffer, at: number): number {
  let cut = at;
  while (cut > 0 && at - cut < 4 && ((buffer[cut] ?? 0) & 0xc0) === 0x80) cut -= 1;
  return cut === 0 ? at : cut;
}
