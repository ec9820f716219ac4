import type { ReadOptions, RunStore, StreamEntry } from './store';
import { isResultEntry } from './stream-entry';

/*
 * The one home of where a session's turn lies in its stream. A session's stream holds its turns one
 * after the other, each ended by exactly one `result` (the CLI's, or the ending the store or a worker
 * writes for a turn that could not be played: `worker_lost`, `server_lost`…), in the order the
 * messages were sent: turn n is every entry after the (n-1)-th `result`, up to and including the
 * n-th. Nothing else marks a turn: no event kind says "turn n starts", so the results are counted.
 */

/** Options of `readTurnEvents`. */
export type ReadTurnOptions = Pick<ReadOptions, 'signal'>;

/**
 * The entries of turn `turn` (1 for the first message; what `sendMessage` answered) of session
 * `sessionId`: from its first entry (read from the start of the session's stream) to its `result`,
 * included, waiting for them as they are appended (a turn still queued is waited for). Ends after
 * that `result`; earlier when the session's stream is completed first (closed), or `signal` aborts.
 * Reads the whole stream before the turn: a turn of a long conversation is found by counting.
 */
export async function* readTurnEvents(
  store: RunStore,
  sessionId: string,
  turn: number,
  options: ReadTurnOptions = {},
): AsyncIterable<StreamEntry> {
  if (!Number.isSafeInteger(turn) || turn < 1) throw new RangeError(`a turn is a whole number from 1; got ${turn}`);
  let ended = 0;
  for await (const entry of store.readRunEvents(sessionId, { signal: options.signal })) {
    const result = isResultEntry(entry);
    if (ended === turn - 1) yield entry;
    if (result && ++ended === turn) return;
  }
}

/**
 * The session's active turn: its latest message's turn when that turn has not ended (it is queued
 * or running), or null when it has (or the session is closed, unknown, or not a session). What a
 * chat reloaded mid-answer resumes (`readTurnEvents` from the turn's start): a chat sends its next
 * message once the answer before it ended, so the latest turn is the one its page waits for.
 */
export async function activeTurn(store: RunStore, sessionId: string): Promise<number | null> {
  const record = await store.findRun(sessionId);
  if (record?.kind !== 'session' || record.ended_at !== null || record.turns === 0) return null;
  let ended = 0;
  for await (const entry of store.readRunEvents(sessionId, { follow: false })) if (isResultEntry(entry)) ended++;
  return ended < record.turns ? record.turns : null;
}
