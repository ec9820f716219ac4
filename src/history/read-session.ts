import { historySetup } from '../clis';
import { decoderFor, type DecoderOptions } from '../decode/decoder';
import type { AnyEvent } from '../events/event';
import type { CliSessionRef } from './session-ref';
import { storedLines } from './store-files';

/** Options of `readCliSession`: the decoder's (`keepRaw`, `registry`, `startSequence`, `clock`). */
export type ReadCliSessionOptions = Omit<DecoderOptions, 'live' | 'lookAhead'>;

/**
 * A stored session's events, in the vocabulary the live decoders give (`run_started`,
 * `user_message`, `assistant_message`, `tool_use`, `tool_result`, `thinking`, `cost_update`…):
 * each line the CLI's format holds is read as its registry file's stored format says, and every
 * other line (bookkeeping, a line of a newer version, a truncated last line of a file still being
 * written) comes out as a `raw` event, never a throw. The file is only read; a file that cannot be
 * opened rejects the iteration with the file system's error.
 */
export function readCliSession(
  ref: Pick<CliSessionRef, 'provider' | 'path'>,
  options: ReadCliSessionOptions = {},
): AsyncIterable<AnyEvent> {
  const setup = historySetup(ref.provider);
  const { format } = setup;
  const decoder = decoderFor(format.profile, { ...options, lookAhead: true });
  return (async function* () {
    for await (const line of storedLines(setup, ref.path)) yield* decoder.push(line);
    // A stored session owes nothing: only what the decoder still holds.
    yield* decoder.end(undefined, 'held');
  })();
}
