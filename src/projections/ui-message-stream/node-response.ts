import type { ServerResponse } from 'node:http';
import { drainedOrGone } from '../../http/drained-or-gone';
import type { AnyEvent } from '../../events/event';
import type { UIMessageStreamOptions } from './projector';
import { UI_MESSAGE_STREAM_HEADERS, UIMessageFrames } from './sse';

/**
 * Writes one turn's events as a UI message stream (as `toUIMessageStreamResponse` answers it) to a
 * Node response: Express's and Nest's `@Res()`, Fastify's `reply.raw`, `node:http`'s. Resolves when
 * the stream is written (or the client left). A client that disconnects leaves the events: a run
 * is stopped at once; a session's turn goes on (interrupt it if it should not).
 *
 * ```ts
 * // Nest: POST /chat, the last user message as the session's next turn.
 * @Post('chat')
 * chat(@Body() body: { messages: ChatMessage[] }, @Res() res: ServerResponse): Promise<void> {
 *   return pipeUIMessageStreamToResponse(res, this.turns.send(lastUserText(body.messages)), { uiVersion: 6 });
 * }
 * ```
 */
export async function pipeUIMessageStreamToResponse(response: ServerResponse, events: AsyncIterable<AnyEvent>, options?: UIMessageStreamOptions): Promise<void> {
  const frames = new UIMessageFrames(events, options);
  const leave = (): void => void frames.stop();
  response.once('close', leave);
  response.writeHead(200, { ...UI_MESSAGE_STREAM_HEADERS });
  try {
    for (let text = await frames.next(); text !== null && !response.destroyed; text = await frames.next()) {
      // A slow client: wait for it (or for its leaving) rather than buffer the whole turn.
      if (!response.write(text)) await drainedOrGone(response);
    }
  } finally {
    response.off('close', leave);
    response.end();
  }
}
