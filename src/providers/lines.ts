import type { Readable } from 'node:stream';

/** What `splitLines` reads: a Node `Readable` (a file, a child's stdout) or any async iterable of text or bytes. */
export type LineSource = Readable | AsyncIterable<string | Uint8Array>;

const BYTE_ORDER_MARK = '\ufeff';

/**
 * The lines of a text stream, without their `\n` or `\r\n`. A line split across chunks and a
 * UTF-8 character split across chunks come out whole; a last line without a newline is kept;
 * a byte order mark at the start is dropped (it is never part of the first line's text).
 * Streaming: only the current unfinished line is held, never the whole input.
 */
export async function* splitLines(source: LineSource): AsyncGenerator<string, void, undefined> {
  // ignoreBOM: the mark is dropped once below, so that a flush between chunks cannot drop a later one.
  const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });
  let pending = '';
  let first = true;
  for await (const chunk of source as AsyncIterable<string | Uint8Array>) {
    // A string chunk after bytes: the bytes' unfinished character is flushed first (as U+FFFD).
    let text = typeof chunk === 'string' ? utf8.decode() + chunk : utf8.decode(chunk, { stream: true });
    if (first && text !== '') {
      first = false;
      if (text.startsWith(BYTE_ORDER_MARK)) text = text.slice(1);
    }
    // Only the new chunk is searched for newlines, so a long line arriving in many chunks costs linear time.
    let start = 0;
    for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', start)) {
      yield withoutCarriageReturn(pending + text.slice(start, newline));
      pending = '';
      start = newline + 1;
    }
    pending += text.slice(start);
  }
  pending += utf8.decode();
  if (pending !== '') yield withoutCarriageReturn(pending);
}

function withoutCarriageReturn(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}
