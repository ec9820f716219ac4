import { createReadStream } from 'node:fs';
import type { Readable, Writable } from 'node:stream';

/** The streams a CLI run uses; `main` passes the process's, tests pass their own. */
export interface CliIo {
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: Writable;
  /** Where to draw the progress line of long inputs: standard error when it is a terminal, else nothing. */
  readonly progress?: Writable;
  /** Least time between two progress lines; default one second. */
  readonly progressEveryMs?: number;
  /** The environment that decides colour (NO_COLOR, FORCE_COLOR, TERM); default process.env. */
  readonly env?: NodeJS.ProcessEnv;
  /** The time of decoding for lines with no time of their own (`decode`, `show`); tests pass a fixed one. Default: now. */
  readonly clock?: () => Date;
}

/** Writes `text`, waiting for the stream to drain when its buffer is full (so a slow reader never makes us buffer a whole file). */
export async function write(stream: Writable, text: string | Uint8Array): Promise<void> {
  if (!stream.write(text)) await new Promise<void>((resolve) => stream.once('drain', resolve));
}

/** The input a command names ("-" is standard input), and how messages call it. */
export function openInput(file: string, io: CliIo): { source: string; input: Readable } {
  return file === '-' ? { source: '<stdin>', input: io.stdin } : { source: file, input: createReadStream(file) };
}

/** Reports an input that could not be read (missing file, read error) and answers exit code 2. */
export function unreadable(io: CliIo, source: string, cause: unknown): number {
  io.stderr.write(`cli-subprocess-core: cannot read ${source}: ${(cause as Error).message}\n`);
  return 2;
}

/** A stream whose reader may go away: `closed` settles on its first error (EPIPE when the reader closed the pipe). */
export interface WatchedOutput {
  readonly closed: Promise<void>;
  readonly isClosed: () => boolean;
}

/**
 * Watches `stream` for the error that ends it, so a writer waiting for 'drain' (which never comes
 * then) can stop waiting. It keeps listening: while it does, `main` leaves the stream's errors to
 * this writer instead of exiting at once.
 */
export function watchOutput(stream: Writable): WatchedOutput {
  let isClosed = false;
  const closed = new Promise<void>((resolve) =>
    stream.on('error', () => {
      isClosed = true;
      resolve();
    }),
  );
  return { closed, isClosed: () => isClosed };
}

/**
 * Writes `text` to a watched stream unless its reader is gone (`written` is called once the stream
 * is done with it); when the buffer is full, waits for
 * 'drain' or the stream's end, with listeners removed after (one wait per chunk must not leave one
 * reaction behind per chunk on a promise that lives as long as the run).
 */
export async function writeUnlessClosed(
  stream: Writable,
  text: string | Uint8Array,
  output: WatchedOutput,
  written?: () => void,
): Promise<void> {
  if (output.isClosed() || stream.write(text, written)) return;
  await new Promise<void>((resolve) => {
    const done = () => {
      for (const event of ['drain', 'error', 'close']) stream.off(event, done);
      resolve();
    };
    for (const event of ['drain', 'error', 'close']) stream.on(event, done);
  });
}
