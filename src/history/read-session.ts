import { historySetup } from '../clis';
import { decoderFor, type DecoderOptions } from '../decode/decoder';
import type { AnyEvent } from '../events/event';
import { errorDraft } from '../providers/drafts';
import { parseLine } from '../wire/json-line';
import { summarizeLine } from './summarize-line';
import type { StoredSummary } from '../stores/stored-format';
import type { CliSessionRef } from './session-ref';
import { storedLines } from './store-files';

/** Options of `readCliSession`: the decoder's (`keepRaw`, `registry`, `startSequence`, `clock`). */
export type ReadCliSessionOptions = Omit<DecoderOptions, 'live' | 'lookAhead'>;

/**
 * A stored session's events, in the vocabulary the live decoders give (`run_started`,
 * `user_message`, `assistant_message`, `tool_use`, `tool_result`, `thinking`, `cost_update`…):
 * each line the CLI's format holds is read as its registry file's stored format says, and every
 * other line (bookkeeping, a line of a newer version, a truncated last line of a file still being
 * written) comes out as a `raw` event, never a throw; lines that are not JSON at all (cut short, or
 * garbled) are also counted in one last `error` event of severity `warning` (no code; metadata
 * `unreadable_lines`, `path`). The file is only read; a file that cannot be opened rejects the
 * iteration with the file system's error.
 */
export function readCliSession(
  ref: Pick<CliSessionRef, 'provider' | 'path'>,
  options: ReadCliSessionOptions = {},
): AsyncIterable<AnyEvent> {
  return readSession(ref, options, null);
}

/**
 * `readCliSession`, folding each JSON object line into `summary` as it goes (the fold
 * `listCliSessions` makes of the same lines): a session listed and read in one reading.
 */
export function readSession(
  ref: Pick<CliSessionRef, 'provider' | 'path'>,
  options: ReadCliSessionOptions,
  summary: StoredSummary | null,
): AsyncIterable<AnyEvent> {
  const setup = historySetup(ref.provider);
  const { format } = setup;
  const decoder = decoderFor(format.profile, { ...options, lookAhead: true });
  return (async function* () {
    let unreadable = 0;
    for await (const line of storedLines(setup, ref.path)) {
      const value = parseLine(line);
      if (value === undefined && line.trim() !== '') unreadable += 1;
      if (summary !== null) summarizeLine(format, value, summary);
      yield* decoder.pushParsed(value, line);
    }
    const notes =
      unreadable === 0
        ? []
        : [
            errorDraft(
              `${unreadable} line(s) of the stored session are not JSON (cut short or garbled): kept as raw events`,
              'warning',
              null,
              {
                unreadable_lines: unreadable,
                path: ref.path,
              },
            ),
          ];
    // A stored session owes nothing: only what the decoder still holds, and the warning.
    yield* decoder.end(undefined, 'held', notes);
  })();
}
