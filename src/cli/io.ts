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
}

/** Writes `text`, waiting for the stream to drain when its buffer is full (so a slow reader never makes us buffer a whole file). */
export async function write(stream: Writable, text: string): Promise<void> {
  if (!stream.write(text)) await new Promise<void>((resolve) => stream.once('drain', resolve));
}
