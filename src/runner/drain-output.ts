/** A writer outside the known tree that never stops writing is cut off after this long all the same: the stream always ends. */
export const DRAIN_LIMIT_MS = 30_000;

/** What `drainOutput` watches: the pumps' end, and how many bytes they have read so far. */
export interface OutputPumps {
  readonly drained: Promise<unknown>;
  bytesRead(): number;
  /** Ends the pipes (their pumps then end too). */
  cutOff(): void;
}

/**
 * Waits, once the CLI has exited and its tree is stopped, for its output to be read to the end. A
 * process outside the known tree may still hold the pipes open: output that nothing was read from
 * for `idleMs` is cut off, so that the stream always ends. Only idle output is cut: a plain timer
 * lost whole runs on a busy host (twenty runs on two cores, each reading `ps` synchronously as it
 * ended), because the timer fired before the poll phase that would have read what the CLI wrote
 * before it exited. So the check is made only after one more poll phase.
 */
export async function drainOutput(pumps: OutputPumps, idleMs: number, limitMs = DRAIN_LIMIT_MS): Promise<void> {
  let finished = false;
  const drained = pumps.drained.then(() => (finished = true));
  const deadline = Date.now() + Math.max(limitMs, idleMs);
  let read = pumps.bytesRead();
  while (!finished) {
    await Promise.race([drained, delay(idleMs)]);
    if (finished) return;
    // setImmediate runs after the poll phase: whatever was waiting in a pipe has been read by then.
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (finished) return;
    const now = pumps.bytesRead();
    if (now === read || Date.now() >= deadline) break;
    read = now;
  }
  if (!finished) pumps.cutOff();
  await drained;
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
