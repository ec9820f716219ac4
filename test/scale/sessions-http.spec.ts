import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRunsHandler, createWorker, openRunStore, type RunStore } from '../../src';
import { SseClient } from '../nest/sse-client';
import { startRedis, type RedisServer } from '../../e2e/test/redis-server';
import { eventually } from '../wait-for';
import { listen } from './listen';
import { REPLAY_AGENT } from './replay-jobs';

/*
 * Sessions over HTTP on either store (in process, on Redis): a conversation opened with POST /sessions, its
 * messages queued as turns, one SSE stream for all of it, ending when the session is closed; the
 * caller's own only, under the runs API's rules (token, same origin, policy). The CLI is the
 * stand-in replaying Claude Code's two-turn capture. The store itself: sessions.spec.ts.
 */

jest.setTimeout(30_000);

const ALICE = 'alice-token-0123456789';
const BOB = 'bob-token-0123456789ab';
const TWO_TURNS = join(__dirname, '..', 'fixtures', 'sessions', 'claude', 'wire-two-turns.jsonl');

/** Where the sessions live: in this process, or on a real redis-server (127.0.0.1, a free port, started here). */
type Home = 'in-process' | 'Redis';
let redis: RedisServer;
let home: Home = 'in-process';
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis.stop());

let dir: string;
let store: RunStore;
let worker: { close(): Promise<void> };
let server: { base: string; close(): Promise<void> };
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sessions-http-'));
  store =
    home === 'Redis' ? openRunStore({ redis: redis.url, lockMs: 2000, prefix: `t${Math.random().toString(36).slice(2)}` }) : openRunStore();
  worker = createWorker(store, { jobDefaults: { workspace: 'shared', cwd: dir } });
  const jobDefaults = { cwd: dir, workspace: 'shared' as const, executable: REPLAY_AGENT, env: { REPLAY_WIRE: TWO_TURNS } };
  server = await listen(createRunsHandler(store, { token: { alice: ALICE, bob: BOB }, jobDefaults }));
});
afterEach(async () => {
  await server.close();
  await worker.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function call(
  method: string,
  path: string,
  body?: unknown,
  token = ALICE,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${server.base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

describe.each<Home>(['in-process', 'Redis'])('sessions over HTTP (%s store)', (where) => {
  beforeEach(() => {
    home = where;
  });

  it('a conversation: two messages, one stream holding both turns, ending when the session is closed', async () => {
    const opened = await call('POST', '/sessions', { provider: 'claude' });
    expect(opened.status).toBe(201);
    const id = opened.body.id as string;
    expect((await call('POST', `/sessions/${id}/messages`, { text: 'Give the first answer.' })).body).toEqual({ turn: 1 });
    expect((await call('POST', `/sessions/${id}/messages`, { text: 'Give the second answer.' })).body).toEqual({ turn: 2 });
    const events = new SseClient(`${server.base}/sessions/${id}/events`, { authorization: `Bearer ${ALICE}` });
    await eventually('both results', () => events.messages.filter((data) => data.includes('"kind":"result"')).length === 2);
    const listed = await call('GET', '/sessions');
    expect((listed.body.runs as { id: string }[]).map((session) => session.id)).toEqual([id]);
    expect(listed.body.runs).toEqual([
      expect.objectContaining({ id, kind: 'session', turns: 2, title: 'Give the first answer.', resumable: true }),
    ]);
    expect(((await call('GET', '/runs')).body.runs as unknown[]).length).toBe(0);
    expect((await call('DELETE', `/sessions/${id}`)).status).toBe(204);
    // The stream ends with the session: `event: end`, and no reconnection.
    await events.ended;
    expect(events.frames.at(-1)?.event).toBe('end');
    expect((await call('GET', `/sessions/${id}`)).body).toMatchObject({ status: 'closed' });
    expect((await call('POST', `/sessions/${id}/messages`, { text: 'More?' })).status).toBe(409);
    // Closed, a DELETE removes it.
    expect((await call('DELETE', `/sessions/${id}`)).status).toBe(204);
    expect((await call('GET', `/sessions/${id}`)).status).toBe(404);
  });

  it("another principal's session is 404 on every route; a run's id is no session", async () => {
    const id = (await call('POST', '/sessions', { provider: 'claude' })).body.id as string;
    for (const [method, path, body] of [
      ['GET', `/sessions/${id}`],
      ['GET', `/sessions/${id}/events`],
      ['POST', `/sessions/${id}/messages`, { text: 'Hi' }],
      ['POST', `/sessions/${id}/interrupt`, {}],
      ['POST', `/sessions/${id}/approvals/x`, { decision: 'allow' }],
      ['DELETE', `/sessions/${id}`],
    ] as const) {
      expect([method, path, (await call(method, path, body, BOB)).status]).toEqual([method, path, 404]);
    }
    expect(((await call('GET', '/sessions', undefined, BOB)).body.runs as unknown[]).length).toBe(0);
    expect(await store.findRun(id)).toMatchObject({ status: 'idle', turns: 0 });
    const runId = await store.enqueueRun({ provider: 'claude', prompt: 'Hi' }, { owner: 'alice' });
    expect((await call('GET', `/sessions/${runId}`)).status).toBe(404);
    expect((await call('GET', `/runs/${id}`)).status).toBe(404);
  });

  it("a session asks what a run may: the operator's policy, a model that is no flag, a message with no NUL and not too long", async () => {
    expect((await call('POST', '/sessions', { provider: 'claude', approvals: 'allow' })).status).toBe(403);
    expect((await call('POST', '/sessions', { provider: 'claude', model: '--yolo' })).status).toBe(400);
    expect((await call('POST', '/sessions', { provider: 'nope' })).status).toBe(400);
    const id = (await call('POST', '/sessions', { provider: 'claude' })).body.id as string;
    expect((await call('POST', `/sessions/${id}/messages`, { text: 'a\0b' })).status).toBe(400);
    expect((await call('POST', `/sessions/${id}/messages`, { text: '' })).status).toBe(400);
    expect((await call('POST', `/sessions/${id}/messages`, { text: 'x'.repeat(1024 * 1024 + 1) })).status).toBe(413);
    expect(await store.findRun(id)).toMatchObject({ turns: 0 });
  });

  it('a store without sessions (a custom RunStore) answers 501 to /sessions', async () => {
    const runsOnly = Object.assign(Object.create(store) as RunStore, { openSession: undefined });
    const other = await listen(createRunsHandler(runsOnly, { token: { alice: ALICE } }));
    try {
      const response = await fetch(`${other.base}/sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ALICE}`, 'content-type': 'application/json' },
        body: '{"provider":"claude"}',
      });
      expect(response.status).toBe(501);
    } finally {
      await other.close();
    }
  });
});
