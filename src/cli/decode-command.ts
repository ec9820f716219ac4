import { createDecoder, type AnyEvent, type DecoderOptions, type ProviderId } from '../index';
import { CliIo, openInput, unreadable, write } from './io';
import { DEFAULT_MAX_LINE_BYTES, LineSplitter } from './line-splitter';
import { Progress } from './progress';
import { DecodeTally, formatDecodeSummary } from './summary';

/**
 * `decode --provider <id|auto> [--keep-raw all|unmapped|none] <file|->`: decodes an agent CLI's stdout, streaming, into
 * normalized events written as JSONL on stdout; the summary goes to stderr. A line no provider
 * understands is a `raw` event, never an error, so the answer is 0 whenever the input was read
 * (2 when it could not be). The input is a file, not a process: a missing result line is a warning.
 * A line over 64 MB is skipped with a warning, never held (it used to end in `RangeError: Invalid
 * string length`); invalid UTF-8 is read with U+FFFD in its place, as agent CLIs' output may hold it.
 */
export async function decodeCommand(
  options: { file: string; provider: ProviderId | 'auto'; keepRaw: DecoderOptions['keepRaw'] },
  io: CliIo,
): Promise<number> {
  const { source, input } = openInput(options.file, io);
  // A file has no "now": its first untimed lines take the first time a line has.
  const decoder = createDecoder(options.provider, { keepRaw: options.keepRaw, lookAhead: true });
  const tally = new DecodeTally();
  const progress = new Progress(io.progress, source, io.progressEveryMs, 'events');
  let events = '';
  let warnings = '';
  const add = (decoded: AnyEvent[]) => {
    for (const event of decoded) {
      tally.count(event.kind);
      events += `${JSON.stringify(event)}\n`;
    }
  };
  const splitter = new LineSplitter(
    {
      text: (line) => {
        tally.lines++;
        if (line.trim() === '') tally.blank++;
        add(decoder.push(line));
        progress.tick(tally.lines, tally.events);
      },
      tooLong: (bytes) => {
        tally.lines++;
        warnings += `cli-subprocess-core: ${source}:${tally.lines}: line of ${bytes} bytes, longer than ${DEFAULT_MAX_LINE_BYTES}; skipped unread\n`;
      },
      invalidUtf8: () => undefined, // never called: invalid UTF-8 is allowed
    },
    { maxLineBytes: DEFAULT_MAX_LINE_BYTES, allowInvalidUtf8: true },
  );
  const flush = async () => {
    if (warnings) await write(io.stderr, warnings);
    if (events) await write(io.stdout, events);
    warnings = '';
    events = '';
  };
  try {
    for await (const chunk of input as AsyncIterable<Buffer | string>) {
      splitter.push(chunk);
      await flush();
    }
  } catch (cause) {
    progress.clear();
    return unreadable(io, source, cause);
  }
  splitter.end();
  add(decoder.end());
  await flush();
  progress.clear();
  await write(io.stderr, formatDecodeSummary(source, tally, decoder.provider, decoder.sessionId));
  return 0;
}
