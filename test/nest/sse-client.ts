import { get, type ClientRequest } from 'node:http';

/** One SSE message: its `id:` and `event:` when it has them, and its `data`. */
export interface SseFrame {
  readonly id?: string;
  readonly event?: string;
  readonly data: string;
}

/**
 * A minimal server-sent-events client over node:http, for tests: it collects each message as it
 * arrives, and `disconnect()` drops the connection as a browser tab that closes does. `headers` are
 * sent with the request (`Last-Event-ID`, to resume); `onFrame` is called with each message as it
 * arrives (a load test's clock and triggers).
 */
export class SseClient {
  /** The `data` of every message so far (its `data:` lines joined with "\n"). */
  readonly messages: string[] = [];
  /** Every message so far, with its id and event name. */
  readonly frames: SseFrame[] = [];
  /** The HTTP status, once the answer's head has arrived. */
  readonly status: Promise<number>;
  /** Settles when the server has ended the stream (or the connection is gone). */
  readonly ended: Promise<void>;

  private readonly request: ClientRequest;
  private readonly listeners = new Set<() => void>();

  constructor(url: string, headers: Record<string, string> = {}, onFrame?: (frame: SseFrame) => void) {
    let onStatus!: (status: number) => void;
    let onEnd!: () => void;
    this.status = new Promise((resolve) => (onStatus = resolve));
    this.ended = new Promise((resolve) => (onEnd = resolve));
    this.request = get(url, { headers }, (response) => {
      onStatus(response.statusCode ?? 0);
      response.setEncoding('utf8');
      let pending = '';
      response.on('data', (chunk: string) => {
        pending += chunk;
        let end: number;
        while ((end = pending.indexOf('\n\n')) >= 0) {
          const frame = pending.slice(0, end);
          pending = pending.slice(end + 2);
          const lines = frame.split('\n');
          const data = lines.filter((line) => line.startsWith('data: ')).map((line) => line.slice('data: '.length));
          if (data.length > 0) {
            this.messages.push(data.join('\n'));
            const id = lines.find((line) => line.startsWith('id: '))?.slice('id: '.length);
            const event = lines.find((line) => line.startsWith('event: '))?.slice('event: '.length);
            const parsed: SseFrame = {
              ...(id === undefined ? {} : { id }),
              ...(event === undefined ? {} : { event }),
              data: data.join('\n'),
            };
            this.frames.push(parsed);
            onFrame?.(parsed);
          }
        }
        for (const listener of this.listeners) listener();
      });
      response.on('close', onEnd);
    });
    this.request.on('error', onEnd); // a dropped connection ends the stream too
  }

  /** Resolves once at least `count` messages have arrived; rejects if the stream ends first. */
  async received(count: number): Promise<void> {
    if (this.messages.length >= count) return;
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (this.messages.length < count) return;
        this.listeners.delete(check);
        resolve();
      };
      this.listeners.add(check);
      void this.ended.then(() =>
        this.messages.length >= count ? resolve() : reject(new Error(`the stream ended after ${this.messages.length} messages`)),
      );
    });
  }

  /** Drops the connection. */
  disconnect(): void {
    this.request.destroy();
  }
}
