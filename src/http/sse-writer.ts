import type { ServerResponse } from 'node:http';
import { drainedOrGone } from './drained-or-gone';
import { SSE_HEADERS } from './sse-headers';

/*
 * Server-sent events, written once for every face that sends them: the runs API's event streams,
 * the UI message stream, and (its messages only: Nest writes the wire) Nest's `runEvents$`.
 */

/** One server-sent event: its `data` is sent as it is (a JSON text, most often). */
export interface SseMessage {
  /** The id a reconnecting `EventSource` sends back as `Last-Event-ID`. */
  readonly id?: string;
  /** The event's name (`EventSource` dispatches it to this name's listeners); `message` when absent. */
  readonly event?: string;
  readonly data: string;
}

/**
 * The message that ends a stream that is over: a browser's `EventSource` reconnects to a stream
 * that merely closes (after its retry delay, and again each time), so its page closes it on this.
 */
export const END_MESSAGE: SseMessage = Object.freeze({ event: 'end', data: '{}' });

/**
 * `message` as SSE text: its fields, one `data:` line per line of its data (a JSON text has one),
 * and the blank line that ends it.
 */
export function sseText(message: SseMessage): string {
  const id = message.id === undefined ? '' : `id: ${message.id}\n`;
  const event = message.event === undefined ? '' : `event: ${message.event}\n`;
  const data = LINE_BREAK.test(message.data) ? message.data.split(LINE_BREAKS).join('\ndata: ') : message.data;
  return `${id}${event}data: ${data}\n\n`;
}

/** What ends a line in SSE: a data line holding one would be cut there. */
const LINE_BREAK = /[\r\n]/;
const LINE_BREAKS = /\r\n|\r|\n/;

/** Options of `SseWriter.open`. */
export interface SseOpenOptions {
  /** The headers (default `SSE_HEADERS`). */
  headers?: Readonly<Record<string, string>>;
  /** Sent first: how long a reconnecting `EventSource` waits, in milliseconds. */
  retryMs?: number;
  /** Milliseconds between comments that keep an idle connection open (proxies close silent ones); none when absent. */
  keepAliveMs?: number;
}

/**
 * A server-sent events response: `open`, then `send` messages (or `write` text already framed), then
 * `end`. A slow client is waited for rather than buffered for (`send` resolves when it can take more,
 * or left); a client that left is written nothing more.
 */
export class SseWriter {
  private keepAlive: NodeJS.Timeout | undefined;

  constructor(private readonly response: ServerResponse) {}

  /** Whether the client has gone (nothing more reaches it). */
  get gone(): boolean {
    return this.response.destroyed;
  }

  /** Answers 200 with the stream's headers, then its retry delay and keep-alive comments when asked. */
  open(options: SseOpenOptions = {}): void {
    this.response.writeHead(200, { ...(options.headers ?? SSE_HEADERS) });
    if (options.retryMs !== undefined) this.response.write(`retry: ${options.retryMs}\n\n`);
    if (options.keepAliveMs !== undefined) this.keepAlive = setInterval(() => this.comment('keep-alive'), options.keepAliveMs);
  }

  /** Sends `message`; resolves when the client can take more, or has gone. */
  send(message: SseMessage): Promise<void> {
    return this.write(sseText(message));
  }

  /** Sends SSE text already framed (`sseText`'s, one message or more); resolves as `send` does. */
  async write(text: string): Promise<void> {
    // A full buffer waits for the client, or for its leaving (then 'drain' never comes).
    if (!this.gone && !this.response.write(text)) await drainedOrGone(this.response);
  }

  /** A comment line, which clients ignore. */
  comment(text: string): void {
    if (!this.gone) this.response.write(`: ${text}\n\n`);
  }

  /** Stops the keep-alive comments and ends the response. */
  end(): void {
    clearInterval(this.keepAlive);
    this.response.end();
  }
}
