/** Bytes of a fresh output buffer: a few input chunks' worth of events. */
const BUFFER_BYTES = 256 * 1024;

/**
 * Lines of text encoded straight into one UTF-8 buffer per write, instead of a string built with
 * `+=`: flattening such a rope (two-byte as soon as one event has a non-Latin-1 character) and
 * encoding it again cost `validate --json` more than the library's parse.
 */
export class OutputBuffer {
  private bytes: Buffer = Buffer.allocUnsafeSlow(BUFFER_BYTES);
  private used = 0;
  /** A buffer the stream has finished with, used again: a fresh 256 KB per write made V8 collect garbage for the external memory alone. */
  private spare: Buffer | undefined;

  get isEmpty(): boolean {
    return this.used === 0;
  }

  /** Appends `text` and a newline. */
  addLine(text: string): void {
    // A UTF-16 code unit never takes more than 3 bytes of UTF-8: this much room always suffices.
    const room = text.length * 3 + 1;
    if (this.used + room > this.bytes.length) this.grow(room);
    this.used += this.bytes.write(text, this.used);
    this.bytes[this.used++] = 0x0a;
  }

  /** The bytes added so far; the buffer then starts afresh (the stream keeps the old one until written: see `recycle`). */
  take(): Buffer {
    const taken = this.bytes.subarray(0, this.used);
    this.bytes = this.spare ?? Buffer.allocUnsafeSlow(BUFFER_BYTES);
    this.spare = undefined;
    this.used = 0;
    return taken;
  }

  /** Gives back what `take` answered once the stream is done with it (its write callback). */
  recycle(taken: Buffer): void {
    if (taken.buffer.byteLength === BUFFER_BYTES) this.spare = Buffer.from(taken.buffer as ArrayBuffer);
  }

  private grow(room: number): void {
    const bigger = Buffer.allocUnsafeSlow(Math.max(this.bytes.length * 2, this.used + room));
    this.bytes.copy(bigger, 0, 0, this.used);
    this.bytes = bigger;
  }
}
