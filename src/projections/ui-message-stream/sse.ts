import type { AnyEvent } from '../../events/event';
import { SSE_HEADERS } from '../../http/sse-headers';
import { sseText } from '../../http/sse-writer';
import type { UIMessageChunk } from './chunks';
import { UIMessageStreamProjector, type UIMessageStreamOptions } from './projector';

/**
 * The headers of a UI message stream response, as the `ai` packages' own
 * `createUIMessageStreamResponse` writes them (5, 6 and 7 alike): SSE's, and the stream's version.
 */
export const UI_MESSAGE_STREAM_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  ...SSE_HEADERS,
  'x-vercel-ai-ui-message-stream': 'v1',
});

/** One chunk as a server-sent event: `data: <json>` and a blank line. */
export function sseFrame(chunk: UIMessageChunk): string {
  return sseText({ data: JSON.stringify(chunk) });
}

/** What ends the stream, after the last chunk (the AI SDK's end, where the runs API sends `event: end`). */
export const SSE_DONE = sseText({ data: '[DONE]' });

/**
 * One turn's events as SSE text, read on demand: `next()` answers the frames of the next event that
 * has chunks (the `start` chunk first, without waiting for an event), then the last chunks and
 * `[DONE]`, then null. `stop()` leaves the events early (a client that went away): a run stops.
 */
export class UIMessageFrames {
  private readonly projector: UIMessageStreamProjector;
  private readonly events: AsyncIterator<AnyEvent>;
  private state: 'start' | 'events' | 'over' = 'start';

  constructor(events: AsyncIterable<AnyEvent>, options?: UIMessageStreamOptions) {
    this.projector = new UIMessageStreamProjector(options);
    this.events = events[Symbol.asyncIterator]();
  }

  async next(): Promise<string | null> {
    if (this.state === 'start') {
      this.state = 'events';
      return this.projector.start().map(sseFrame).join('');
    }
    while (this.state === 'events') {
      const { done, value } = await this.events.next();
      if (done) {
        this.state = 'over';
        return this.projector.end().map(sseFrame).join('') + SSE_DONE;
      }
      const chunks = this.projector.push(value);
      if (chunks.length > 0) return chunks.map(sseFrame).join('');
    }
    return null;
  }

  async stop(): Promise<void> {
    if (this.state === 'over') return;
    this.state = 'over';
    // Called directly, not by leaving a `for await`: a run stops at once, even while its next event is awaited.
    await this.events.return?.();
  }
}

/**
 * One turn's events (a `Run`, or `SessionTurns.send(prompt)`) as a UI message stream `Response`
 * for the AI SDK's `useChat` (`DefaultChatTransport`): status 200, `UI_MESSAGE_STREAM_HEADERS`, one
 * `data: <chunk JSON>` event per chunk, then `data: [DONE]`. The body ends when the events do
 * (a run's process exits shortly after its `result`); a client that cancels it leaves the events
 * (a run is stopped).
 *
 * @example
 * // POST /api/chat (Next.js, Hono…): the last user message is the next turn of the session.
 * return toUIMessageStreamResponse(turns.send(lastUserText), { uiVersion: 6 });
 */
export function toUIMessageStreamResponse(events: AsyncIterable<AnyEvent>, options?: UIMessageStreamOptions): Response {
  const frames = new UIMessageFrames(events, options);
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const text = await frames.next();
      if (text === null) controller.close();
      else controller.enqueue(encoder.encode(text));
    },
    cancel: () => frames.stop(),
  });
  return new Response(body, { status: 200, headers: { ...UI_MESSAGE_STREAM_HEADERS } });
}
