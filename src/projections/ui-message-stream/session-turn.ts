import type { ServerResponse } from 'node:http';
import type { AnyEvent } from '../../events/event';
import type { RunStore } from '../../scale/store';
import { isRawEntry } from '../../scale/stream-entry';
import { readTurnEvents } from '../../scale/turn-stream';
import { pipeUIMessageStreamToResponse } from './node-response';
import type { UIMessageStreamOptions } from './projector';

/**
 * Writes turn `turn` of a queued session (`store.sendMessage` answered it; turns run on workers) as a
 * UI message stream to a Node response, as `pipeUIMessageStreamToResponse` does: the turn's events
 * from its first one (however long ago it started: a chat reloaded mid-answer gets the whole message
 * again) to its `result`, then `finish` and `[DONE]`. A turn still queued is waited for. Resolves
 * when the stream is written or the client left: leaving stops only the reading, never the turn.
 * The assistant message's id is the session's and the turn's (`<sessionId>-<turn>`) unless
 * `options.messageId`: the same message however often it is read.
 *
 * ```ts
 * // POST /api/chat: the last user message as the chat's next turn, on a worker.
 * const sent = await store.sendMessage(sessionId, text);
 * if ('turn' in sent) await pipeSessionTurnToResponse(res, store, sessionId, sent.turn, { uiVersion: 6 });
 * // GET /api/chat/:id/stream (useChat's resume): the turn still running, or 204.
 * const turn = await activeTurn(store, sessionId);
 * ```
 */
export async function pipeSessionTurnToResponse(
  response: ServerResponse,
  store: RunStore,
  sessionId: string,
  turn: number,
  options: UIMessageStreamOptions = {},
): Promise<void> {
  const reading = new AbortController();
  // The reading stops when the client leaves, even while it waits for the turn's next event.
  const leave = (): void => reading.abort();
  response.once('close', leave);
  try {
    await pipeUIMessageStreamToResponse(response, turnEvents(store, sessionId, turn, reading.signal), {
      ...options,
      messageId: options.messageId ?? `${sessionId}-${turn}`,
    });
  } finally {
    response.off('close', leave);
    reading.abort();
  }
}

/** The turn's events, the CLI's raw lines left unparsed (the projection has nothing for them). */
async function* turnEvents(store: RunStore, sessionId: string, turn: number, signal: AbortSignal): AsyncIterable<AnyEvent> {
  for await (const entry of readTurnEvents(store, sessionId, turn, { signal })) if (!isRawEntry(entry)) yield entry.event;
}
