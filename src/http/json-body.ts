import type { IncomingMessage } from 'node:http';
import { HttpError } from './http-error';

/** The request's body as a JSON object; 413 past `maxBytes`, 400 when it is not an object. */
export async function readJsonBody(request: IncomingMessage, maxBytes: number): Promise<Record<string, unknown>> {
  const tooLarge = () => new HttpError(413, `the body is larger than ${maxBytes} bytes`);
  if (Number(request.headers['content-length'] ?? 0) > maxBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw tooLarge();
    chunks.push(chunk);
  }
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw new HttpError(400, 'the body must be a JSON object');
}
