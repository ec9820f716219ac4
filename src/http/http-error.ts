import type { ServerResponse } from 'node:http';

/**
 * A request the server refuses, with its HTTP status (400 bad input, 401 no principal, 403 not
 * allowed, 404 no such run, 413 too large, 415 not JSON, 429 too many): the handler answers it as
 * `{ error: message }` and goes on serving.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** Answers `body` as JSON with `status` (and `headers`). */
export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): void {
  response.writeHead(status, { ...headers, 'content-type': 'application/json', 'cache-control': 'no-store' });
  response.end(JSON.stringify(body));
}
