import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createChatHandler } from '../../examples/queue-chat-node';
import { QueueChats } from '../../examples/queue-chat';
import { Event, MemoryRunStore, type AnyEvent } from '../../src';
import { eventually } from '../wait-for';

/*
 * examples/queue-chat-node.ts's routes on the in-process store with no worker: this test plays each
 * turn itself, appending its events as a worker would. The real clients and the real Claude Code
 * drive it in e2e/test/queue-chat.spec.ts.
 */

const TOKEN = 'queue-chat-token-0123456789';
const text = (words: string): AnyEvent => Event.parse({ kind: 'assistant_message', payload: { content: [{ type: 'text', text: words }] } });
const result = (): AnyEvent => Event.parse({ kind: 'result', payload: { status: 'completed' } });

let store: MemoryRunStore;
let server: Server;
let base: string;
beforeEach(async () => {
  store = new MemoryRunStore();
  const handler = createChatHandler(new QueueChats(store, { provider: 'claude' }), { access: { token: TOKEN }, uiVersion: 6 });
  server = createServer((request, response) => void handler(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await store.close();
});

const auth = { authorization: `Bearer ${TOKEN}` };
const post = (body: unknown, headers: Record<string, string> = auth) =>
  fetch(`${base}/api/chat`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
const chatBody = (id: string, words: string) => ({ id, messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: words }] }] });
const deltas = (body: string) => (body.match(/"delta":"[^"]*"/g) ?? []).join(' ');

/** The only session of the store (the chat's). */
async function sessionId(): Promise<string> {
  const [session] = await store.listRuns('default', { kind: 'session' });
  return session.id;
}

it('POST /api/chat streams the turn; GET …/stream replays a running turn from its start, then 204', async () => {
  const answer = post(chatBody('chat-1', 'Hello?')).then((response) => response.text());
  await eventually('the session', async () => (await store.listRuns('default', { kind: 'session' })).length === 1);
  const id = await sessionId();
  await store.append(id, text('Hi.'));
  // A reload mid-answer: the resume route gets the turn from its start.
  const resuming = await fetch(`${base}/api/chat/chat-1/stream`, { headers: auth });
  expect(resuming.status).toBe(200);
  const resumed = resuming.text();
  await store.append(id, text('Still here.'));
  await store.append(id, result());
  expect(deltas(await answer)).toBe('"delta":"Hi." "delta":"Still here."');
  expect(await resumed).toBe(await answer);
  const after = await fetch(`${base}/api/chat/chat-1/stream`, { headers: auth });
  expect(after.status).toBe(204);
  // The second message is the same session's second turn.
  const second = post(chatBody('chat-1', 'Again?')).then((response) => response.text());
  await eventually('the second turn', async () => (await store.findRun(id))?.turns === 2);
  await store.append(id, text('Again.'));
  await store.append(id, result());
  expect(deltas(await second)).toBe('"delta":"Again."');
  expect((await store.listRuns('default', { kind: 'session' })).map((session) => session.turns)).toEqual([2]);
});

it("keeps the runs API's rules: a token, JSON, a chat id and a text", async () => {
  expect((await post(chatBody('chat-1', 'Hello?'), {})).status).toBe(401);
  const form = await fetch(`${base}/api/chat`, { method: 'POST', headers: { ...auth, 'content-type': 'text/plain' }, body: '{}' });
  expect(form.status).toBe(415);
  expect((await post({ messages: [] })).status).toBe(400);
  expect((await post(chatBody('chat-1', ' '))).status).toBe(400);
  expect((await fetch(`${base}/api/chat/unknown/stream`, { headers: auth })).status).toBe(204);
  expect((await fetch(`${base}/elsewhere`, { headers: auth })).status).toBe(404);
});
