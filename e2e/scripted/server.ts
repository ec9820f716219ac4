import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the scripted endpoint received, for assertions. */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

/** Answers one request; `body` is the parsed JSON body (or the text, or null). */
export type Handler = (request: RecordedRequest, response: ServerResponse) => void | Promise<void>;

/** A scripted model endpoint listening on 127.0.0.1 at a free port. */
export interface ScriptedServer {
  readonly url: string;
  readonly port: number;
  /** Every request received so far, in order. */
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

/**
 * Starts an HTTP server on 127.0.0.1, port 0 (a free one), that records each request and
 * hands it to `handler`. Only loopback: the CLIs under test are pointed here, nowhere else.
 */
export async function startScriptedServer(handler: Handler): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text === '' ? null : text;
      try {
        body = text === '' ? null : JSON.parse(text);
      } catch {
        // Not JSON: keep the text.
      }
      const request: RecordedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      requests.push(request);
      Promise.resolve(handler(request, res)).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(String(error));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Starts a server-sent-events answer. */
export function startSse(response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
}

/** Writes one SSE frame: `event:` (when named) and one `data:` line of JSON. */
export function sendSse(response: ServerResponse, data: unknown, event?: string): void {
  response.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
}

/** Answers with a JSON body and a status. */
export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

/** A request's JSON body as an object ({} when it has none or it is not an object). */
export function jsonBody(request: RecordedRequest): Record<string, unknown> {
  return typeof request.body === 'object' && request.body !== null && !Array.isArray(request.body)
    ? (request.body as Record<string, unknown>)
    : {};
}
