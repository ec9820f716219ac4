import { createDecoder, type AnyEvent, type DecoderOptions, type ProviderId } from '../index';
import { splitLines } from '../providers/lines';
import { CliIo, openInput, unreadable, write } from './io';
import { Progress } from './progress';
import { DecodeTally, formatDecodeSummary } from './summary';

/**
 * `decode --provider <id|auto> [--keep-raw all|unmapped|none] <file|->`: decodes an agent CLI's stdout, streaming, into
 * normalized events written as JSONL on stdout; the summary goes to stderr. A line no provider
 * understands is a `raw` event, never an error, so the answer is 0 whenever the input was read
 * (2 when it could not be). The input is a file, not a process: a missing result line is a warning.
 */
export async function decodeCommand(options: { file: string; provider: ProviderId | 'auto'; keepRaw: DecoderOptions['keepRaw'] }, io: CliIo): Promise<number> {
  const { source, input } = openInput(options.file, io);
  const decoder = createDecoder(options.provider, { keepRaw: options.keepRaw });
  const tally = new DecodeTally();
  const progress = new Progress(io.progress, source, io.progressEveryMs, 'events');
  const emit = async (events: AnyEvent[]) => {
    if (events.length === 0) return;
    let text = '';
    for (const event of events) {
      tally.count(event.kind);
      text += `${JSON.stringify(event)}\n`;
    }
    await write(io.stdout, text);
  };
  try {
    for await (const line of splitLines(input)) {
      tally.lines++;
      if (line.trim() === '') tally.blank++;
      await emit(decoder.push(line));
      progress.tick(tally.lines, tally.events);
    }
  } catch (cause) {
    progress.clear();
    return unreadable(io, source, cause);
  }
  await emit(decoder.end());
  progress.clear();
  await write(io.stderr, formatDecodeSummary(source, tally, decoder.provider, decoder.sessionId));
  return 0;
}
