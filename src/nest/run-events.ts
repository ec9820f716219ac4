import type { MessageEvent } from '@nestjs/common';
import { Observable } from 'rxjs';
import { END_MESSAGE } from '../http/sse-writer';
import { isEntryId } from '../scale/entry-id';
import type { RunStore } from '../scale/store';
import { clientEntries } from '../scale/stream-entry';

/**
 * A queued run's events as server-sent events for an `@Sse()` route: each message's `id` is the
 * run's stream entry id and its `data` the event's JSON text (as the stream holds it: read it back
 * with `Event.fromJSON`), so a browser's `EventSource` that reconnects
 * sends `Last-Event-ID` and gets exactly the events after it (pass the header here). Ends with an
 * `end` message and completes when the run is over; unsubscribing (the client leaves) stops only the
 * reading, never the run. Check the caller may read the run first (`isOwnedRun`). A session's
 * stream likewise (its id), ending when the session is closed. The CLI's `raw` lines are left out
 * unless `options.raw` (as the runs API's `?raw=1`): the store keeps them.
 *
 * ```ts
 * @Sse(':id/events')
 * events(@Param('id') id: string, @Headers('last-event-id') lastEventId?: string): Observable<MessageEvent> {
 *   return runEvents$(this.store, id, lastEventId);
 * }
 * ```
 */
export function runEvents$(
  store: RunStore,
  runId: string,
  lastEventId?: string,
  options: { raw?: boolean } = {},
): Observable<MessageEvent> {
  return new Observable<MessageEvent>((subscriber) => {
    const reading = new AbortController();
    const after = lastEventId !== undefined && isEntryId(lastEventId) ? lastEventId : undefined;
    void (async () => {
      try {
        let last = after;
        // Each entry's JSON text as it was appended: Nest writes a string `data` as it is.
        const entries = store.readRunEvents(runId, { after, signal: reading.signal });
        for await (const { id, json } of clientEntries(entries, options.raw === true)) {
          last = id;
          subscriber.next({ id, data: json });
        }
        // The run is over: the client is told, so that EventSource does not reconnect for more. Nest
        // numbers a message without an id: this one keeps the last entry's, a cursor that still resumes.
        if (!reading.signal.aborted) subscriber.next({ id: last, type: END_MESSAGE.event, data: END_MESSAGE.data });
        subscriber.complete();
      } catch (error) {
        subscriber.error(error);
      }
    })();
    return () => reading.abort();
  });
}
