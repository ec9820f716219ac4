import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import {
  accessCheck,
  createWorker,
  HttpError,
  openRunStore,
  pipeSessionTurnToResponse,
  readJsonBody,
  sendJson,
  type AccessOptions,
  type UIVersion,
} from '../src';
import { QueueChats } from './queue-chat';

/**
 * A `useChat` back end over the queue with plain `node:http` (an example): each chat is a session on
 * the store, each message a turn a worker plays, streamed back as the AI SDK's UI message stream.
 * - `POST /api/chat` (`DefaultChatTransport`'s request): the last user message as the chat's next
 *   turn, its UI message stream from the turn's start to its result.
 * - `GET /api/chat/:id/stream` (`useChat({ resume: true })` on a page (re)loaded): the chat's turn
 *   still running, replayed from its start and followed to its result; 204 when none runs.
 * Every call needs the caller's bearer token, a Host of this server's, no foreign Origin, and a
 * POST sent as JSON (the runs API's rules). Leaving a stream never stops the turn.
 */
export function createChatHandler(
  chats: QueueChats,
  options: { access: AccessOptions; uiVersion: UIVersion },
): (request: IncomingMessage, response: ServerResponse) => Promise<void> {
  const check = accessCheck(options.access);
  const stream = (response: ServerResponse, turn: { sessionId: string; turn: number }) =>
    pipeSessionTurnToResponse(response, chats.store, turn.sessionId, turn.turn, { uiVersion: options.uiVersion });
  return async (request, response) => {
    try {
      const path = new URL(request.url ?? '/', 'http://localhost').pathname;
      const principal = await check(request);
      if (request.method === 'POST' && path === '/api/chat') {
        return await stream(response, await chats.send(principal, await readJsonBody(request, 4 * 1024 * 1024)));
      }
      const resume = /^\/api\/chat\/([^/]+)\/stream$/.exec(path);
      if (request.method === 'GET' && resume) {
        const active = await chats.active(principal, decodeURIComponent(resume[1]));
        if (active) return await stream(response, active);
        response.writeHead(204, { 'cache-control': 'no-store' }).end();
        return;
      }
      throw new HttpError(404, 'not found');
    } catch (error) {
      if (response.headersSent) response.end();
      else if (error instanceof HttpError) sendJson(response, error.status, { error: error.message }, error.headers);
      else sendJson(response, 500, { error: 'internal error' });
    }
  };
}

/**
 * `CHAT_TOKEN=<16+ characters> npx ts-node examples/queue-chat-node.ts`: Claude Code on
 * 127.0.0.1:8788 (`PORT`), its turns played by a worker in this process; with `REDIS_URL`, by the
 * `cli-subprocess-core worker --redis $REDIS_URL` processes.
 */
export async function main(): Promise<Server> {
  const store = openRunStore({ redis: process.env.REDIS_URL });
  if (!process.env.REDIS_URL) createWorker(store);
  const chats = new QueueChats(store, { provider: 'claude', approvals: 'deny' });
  const handler = createChatHandler(chats, { access: { token: process.env.CHAT_TOKEN }, uiVersion: 6 });
  const server = createServer((request, response) => void handler(request, response));
  await new Promise<void>((resolve) => server.listen(Number(process.env.PORT ?? 8788), '127.0.0.1', resolve));
  return server;
}

if (require.main === module) void main();
