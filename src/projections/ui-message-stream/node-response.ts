import type { ServerResponse } from 'node:http';
import { SseWriter } from '../../http/sse-writer';
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
export async function pipeUIMessageStreamToResponse(
  response: ServerResponse,
  events: AsyncIterable<AnyEvent>,
  options?: UIMessageStreamOptions,
): Promise<void> {
  const frames = new UIMessageFrames(events, options);
  const sse = new SseWriter(response);
  const leave = (): void => void frames.stop();
  response.once('close', leave);
  sse.open({ headers: UI_MESSAGE_STREAM_HEADERS });
  try {
    // A slow client is waited for (or its leaving) rather than the whole turn buffered.
    for (let text = await frames.next(); text !== null && !sse.gone; text = await frames.next()) await sse.write(text);
  } finally {
    response.off('close', leave);
    sse.end();
  }
}
