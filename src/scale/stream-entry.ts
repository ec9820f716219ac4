import { Event, type AnyEvent } from '../events/event';
import type { StreamEntry } from './store';

/*
 * A stream entry carries its event's JSON, stringified once when it was appended: an SSE writer
 * sends that text as it is. The event object is built only for a reader that asks for it (the
 * worker, a projection), once per entry.
 */

/** An entry read back as text (the Redis store's): its event is parsed on first access, then kept. */
class TextEntry implements StreamEntry {
  private parsed: AnyEvent | undefined;

  constructor(
    readonly id: string,
    readonly json: string,
  ) {}

  get event(): AnyEvent {
    return (this.parsed ??= Event.fromJSON(this.json));
  }
}

/** The entry `id` whose event's JSON text is `json` (the event is parsed when first read). */
export function entryOfJson(id: string, json: string): StreamEntry {
  return new TextEntry(id, json);
}

/** The entry `id` of an event held as an object (the in-process store's): its JSON is written now, once. */
export function entryOfEvent(id: string, event: AnyEvent): StreamEntry {
  return { id, json: JSON.stringify(event), event };
}

/**
 * Whether the entry is a `raw` event: a CLI line with no meaning in the vocabulary (Claude Code's
 * `system`/`status`/`stream_event` lines, ACP's session updates the decoders do not map). The
 * record keeps them; a stream client gets them only when it asks (`?raw=1`): 16 of the 33 messages
 * of an allowed Claude tool run were such lines, noise to a page or a chat. Read from the text, not
 * parsed: an event's JSON starts with its id, then its kind (the order `Event#toJSON` writes).
 */
export function isRawEntry(entry: { readonly json: string }): boolean {
  return kindAtStart(entry.json) === 'raw';
}

/** Whether the entry is a `result`: the end of a run, or of a session's turn (read from the text, as `isRawEntry`). */
export function isResultEntry(entry: StreamEntry): boolean {
  // An entry written otherwise (no id or kind first) is parsed: never miscounted.
  return (kindAtStart(entry.json) ?? entry.event.kind) === 'result';
}

/** The kind an event's JSON text names first (after its id), or null when it does not start so. */
function kindAtStart(json: string): string | null {
  return KIND_START.exec(json)?.[1] ?? null;
}

const KIND_START = /^\{(?:"id":[^,]*,)?"kind":"([a-z_]+)"/;

/** `entries` without the `raw` ones, unless `raw` (what a stream client asked for). */
export async function* clientEntries(entries: AsyncIterable<StreamEntry>, raw: boolean): AsyncIterable<StreamEntry> {
  for await (const entry of entries) if (raw || !isRawEntry(entry)) yield entry;
}
