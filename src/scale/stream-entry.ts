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
