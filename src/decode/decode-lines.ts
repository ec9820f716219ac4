import type { AnyEvent } from '../events/event';
import { createDecoder, type Decoder, type DecoderOptions } from './decoder';
import { splitLines, type LineSource } from '../providers/lines';
import type { ProviderId } from './provider-id';

/**
 * The events of a whole recorded or piped run: splits `source` (a Node `Readable`, or an async
 * iterable of text or bytes) into lines, decodes each, and ends with what the run still owes
 * (`decoder.end()` without exit information: a missing result is a warning, as the run may go on).
 * A file has no "now": its first lines with no time of their own take the first time a line has
 * (`lookAhead`, unless `options` says otherwise or `live`).
 * An unknown provider id throws a TypeError at once, before anything is read.
 */
export function decodeLines(provider: ProviderId | 'auto', source: LineSource, options: DecoderOptions = {}): AsyncIterable<AnyEvent> {
  return decodeAll(createDecoder(provider, { lookAhead: !options.live, ...options }), source);
}

async function* decodeAll(decoder: Decoder, source: LineSource): AsyncGenerator<AnyEvent, void, undefined> {
  for await (const line of splitLines(source)) yield* decoder.push(line);
  yield* decoder.end();
}
