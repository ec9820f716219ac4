import { createDecoder, Event, type AnyEvent, type DecoderOptions, type ProviderId } from '../index';
import { CliIo, openInput, unreadable, write } from './io';
import { eventWriter, type FormatOptions } from './output-format';
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
  options: {
    file: string;
    provider: ProviderId | 'auto';
    keepRaw: DecoderOptions['keepRaw'];
    output?: FormatOptions;
    /** `show`: the input may be a file of events (told by its first line); no summary. */
    show?: boolean;
  },
  io: CliIo,
): Promise<number> {
  const writer = await eventWriter(options.output ?? { verbose: false }, io);
  const { source, input } = openInput(options.file, io);
  // A file has no "now": its first untimed lines take the first time a line has.
  const decoder = createDecoder(options.provider, { keepRaw: options.keepRaw, lookAhead: true, clock: io.clock });
  const tally = new DecodeTally();
  const progress = new Progress(io.progress, source, io.progressEveryMs, 'events');
  let events = '';
  let warnings = '';
  const add = (decoded: AnyEvent[]) => {
    for (const event of decoded) {
      tally.count(event.kind);
      events += writer.event(event);
    }
  };
  /** `show`: whether the input is a file of events, once its first non-blank line told (null before). */
  let ofEvents: boolean | null = options.show ? null : false;
  const splitter = new LineSplitter(
    {
      text: (line) => {
        tally.lines++;
        if (line.trim() === '') tally.blank++;
        else if (ofEvents === null) ofEvents = Event.safeFromJSON(line).success;
        if (ofEvents) {
          if (line.trim() !== '') add(readEvent(line, source, tally.lines, (warning) => (warnings += warning)));
        } else add(decoder.push(line));
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
  if (!ofEvents) add(decoder.end());
  events += writer.end();
  await flush();
  progress.clear();
  // The summary is for a pipeline's log; a person reading a transcript has its closing line.
  if (!options.show && !writer.pretty) await write(io.stderr, formatDecodeSummary(source, tally, decoder.provider, decoder.sessionId));
  return 0;
}

/**
 * One line of a file of events (`show`): the event, or none with a warning for a line that is not
 * one (a reader never throws on a line).
 */
function readEvent(line: string, source: string, lineNumber: number, warn: (warning: string) => void): AnyEvent[] {
  const parsed = Event.safeFromJSON(line);
  if (parsed.success) return [parsed.data];
  warn(`cli-subprocess-core: ${source}:${lineNumber}: not an event (${parsed.error.message.split('\n')[0]}); skipped\n`);
  return [];
}
