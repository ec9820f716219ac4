import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  activeTurn,
  Event,
  MemoryRunStore,
  openRunStore,
  pipeSessionTurnToResponse,
  readTurnEvents,
  UI_MESSAGE_STREAM_HEADERS,
  type AnyEvent,
  type EventKind,
  type SessionJob,
  type SessionStore,
} from '../../src';
import { isResultEntry } from '../../src/scale/stream-entry';
import { startRedis } from '../../e2e/test/redis-server';
import { readAll } from './replay-jobs';

/*
 * Where a session's turn lies in its stream (src/scale/turn-stream.ts), and a turn as a UI message
 * stream (pipeSessionTurnToResponse), on the in-process store (and on Redis) with no worker: this test appends
 * each turn's events itself, as the worker holding the session's CLI would.
 */

const JOB: SessionJob = { provider: 'claude', cwd: '/tmp' };
const event = (kind: EventKind, payload: Record<string, unknown> = {}): AnyEvent => Event.parse({ kind, payload });
const text = (words: string) => event('assistant_message', { content: [{ type: 'text', text: words }] });
const result = () => event('result', { status: 'completed' });
const raw = () => event('raw', {});

const textsOf = (events: AnyEvent[]) =>
  events.map((each) => (each.kind === 'assistant_message' ? JSON.stringify(each.payload.content) : each.kind));

let store: MemoryRunStore;
beforeEach(() => {
  store = new MemoryRunStore();
});
afterEach(() => store.close());

/** A session with `turns` messages sent (none played). */
async function session(turns: number): Promise<string> {
  const sessionId = await store.openSession(JOB, { owner: 'ann' });
  for (let turn = 1; turn <= turns; turn++) expect(await store.sendMessage(sessionId, `message ${turn}`)).toEqual({ turn });
  return sessionId;
}

async function append(sessionId: string, ...events: AnyEvent[]): Promise<void> {
  for (const each of events) await store.append(sessionId, each);
}

describe('readTurnEvents', () => {
  it("answers one turn's entries, from the first after the previous result to its own result", async () => {
    const sessionId = await session(3);
    await append(sessionId, event('run_started'), text('one'), result(), raw(), text('two'), result(), text('three'), result());
    const turn = async (n: number) => textsOf((await readAll(readTurnEvents(store, sessionId, n))).map((entry) => entry.event));
    expect(await turn(1)).toEqual(['run_started', '[{"type":"text","text":"one"}]', 'result']);
    expect(await turn(2)).toEqual(['raw', '[{"type":"text","text":"two"}]', 'result']);
    expect(await turn(3)).toEqual(['[{"type":"text","text":"three"}]', 'result']);
  });

  it('waits for a turn not yet played, and ends at its result though the session goes on', async () => {
    const sessionId = await session(2);
    await append(sessionId, text('one'), result());
    const reading = readAll(readTurnEvents(store, sessionId, 2));
    await append(sessionId, text('two'));
    await append(sessionId, result());
    expect(textsOf((await reading).map((entry) => entry.event))).toEqual(['[{"type":"text","text":"two"}]', 'result']);
  });

  it('ends when the session is closed before the turn ends, or when the reader leaves', async () => {
    const sessionId = await session(1);
    const leaving = new AbortController();
    const left = readAll(readTurnEvents(store, sessionId, 1, { signal: leaving.signal }));
    const closed = readAll(readTurnEvents(store, sessionId, 1));
    await append(sessionId, text('one'));
    leaving.abort();
    expect(textsOf((await left).map((entry) => entry.event))).toEqual(['[{"type":"text","text":"one"}]']);
    await store.closeSession(sessionId);
    expect(textsOf((await closed).map((entry) => entry.event))).toEqual(['[{"type":"text","text":"one"}]']);
  });

  it('refuses a turn that is not a whole number from 1', async () => {
    const sessionId = await session(1);
    await expect(readAll(readTurnEvents(store, sessionId, 0))).rejects.toThrow(RangeError);
  });
});

describe('activeTurn', () => {
  it('is the latest turn while it has not ended, else null', async () => {
    const sessionId = await session(0);
    expect(await activeTurn(store, sessionId)).toBeNull();
    await store.sendMessage(sessionId, 'first');
    expect(await activeTurn(store, sessionId)).toBe(1);
    await append(sessionId, text('one'));
    expect(await activeTurn(store, sessionId)).toBe(1);
    await append(sessionId, result());
    expect(await activeTurn(store, sessionId)).toBeNull();
    await store.sendMessage(sessionId, 'second');
    await store.sendMessage(sessionId, 'third');
    expect(await activeTurn(store, sessionId)).toBe(3);
    await store.closeSession(sessionId);
    expect(await activeTurn(store, sessionId)).toBeNull();
  });

  it('is null for a run, or an id the store does not know', async () => {
    const runId = await store.enqueueRun({ ...JOB, prompt: 'Say hello.' });
    expect(await activeTurn(store, runId)).toBeNull();
    expect(await activeTurn(store, '6f1c1e0a-0000-4000-8000-000000000000')).toBeNull();
  });
});

describe('every turn ends with its result', () => {
  it('a store opened again ends the turn it was playing and each one waiting behind it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'turn-stream-'));
    try {
      const first = openRunStore({ dataDir: dir }) as SessionStore;
      const sessionId = await first.openSession(JOB);
      for (const message of ['one', 'two', 'three']) await first.sendMessage(sessionId, message);
      await first.append(sessionId, text('one'));
      await first.close();
      const second = openRunStore({ dataDir: dir });
      const entries = await readAll(second.readRunEvents(sessionId, { follow: false }));
      expect(entries.filter(isResultEntry)).toHaveLength(3);
      expect(await activeTurn(second, sessionId)).toBeNull();
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('isResultEntry reads the kind from the text, and parses an entry written otherwise', () => {
    const entry = (json: string) => ({ id: '1-0', json, event: Event.fromJSON(json) });
    expect(isResultEntry(entry(JSON.stringify(result())))).toBe(true);
    expect(isResultEntry(entry(JSON.stringify(text('result'))))).toBe(false);
    const reordered = JSON.stringify({ payload: { status: 'completed' }, kind: 'result' });
    expect(isResultEntry(entry(reordered))).toBe(true);
  });
});

describe('pipeSessionTurnToResponse', () => {
  let server: Server;
  let url: string;
  let sessionId: string;

  beforeEach(async () => {
    // GET /<turn>: the turn as a UI message stream (ai 6).
    server = createServer(
      (request, response) => void pipeSessionTurnToResponse(response, store, sessionId, Number(request.url?.slice(1)), { uiVersion: 6 }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("streams the turn's message from its start to its finish, its id the session's and the turn's", async () => {
    sessionId = await session(2);
    await append(sessionId, text('one'), result(), text('two'));
    const response = await fetch(`${url}/2`);
    expect(Object.fromEntries([...response.headers].filter(([name]) => name in UI_MESSAGE_STREAM_HEADERS))).toEqual(
      UI_MESSAGE_STREAM_HEADERS,
    );
    const body = response.text();
    await append(sessionId, result(), text('three'));
    const id = `${sessionId}-2`;
    expect(await body).toBe(
      [
        { type: 'start', messageId: id },
        { type: 'text-start', id: `${id}-text-0` },
        { type: 'text-delta', id: `${id}-text-0`, delta: 'two' },
        { type: 'text-end', id: `${id}-text-0` },
        { type: 'finish', finishReason: 'stop' },
      ]
        .map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`)
        .join('') + 'data: [DONE]\n\n',
    );
  });

  it('a client that leaves mid-turn stops the reading; the turn goes on, and is read again whole', async () => {
    sessionId = await session(1);
    await append(sessionId, text('one'));
    const leaving = new AbortController();
    const response = await fetch(`${url}/1`, { signal: leaving.signal });
    const reader = response.body!.getReader();
    let seen = '';
    while (!seen.includes('"one"')) seen += new TextDecoder().decode((await reader.read()).value);
    leaving.abort();
    await append(sessionId, text('two'), result());
    const again = await (await fetch(`${url}/1`)).text();
    expect(again.match(/"delta":"[^"]*"/g)).toEqual(['"delta":"one"', '"delta":"two"']);
    expect(again.endsWith('data: {"type":"finish","finishReason":"stop"}\n\ndata: [DONE]\n\n')).toBe(true);
  });
});

describe('on Redis (a real redis-server on 127.0.0.1)', () => {
  it('finds the turns as in process: each one from after the result before it, the latest while it runs', async () => {
    const redis = await startRedis();
    const shared = openRunStore({ redis: redis.url, prefix: `t${Math.random().toString(36).slice(2)}` });
    try {
      const sessionId = await shared.openSession(JOB, { owner: 'ann' });
      for (const message of ['one', 'two']) await shared.sendMessage(sessionId, message);
      expect(await activeTurn(shared, sessionId)).toBe(2);
      const second = readAll(readTurnEvents(shared, sessionId, 2));
      for (const each of [text('one'), result(), raw(), text('two')]) await shared.append(sessionId, each);
      expect(await activeTurn(shared, sessionId)).toBe(2);
      await shared.append(sessionId, result());
      expect(textsOf((await second).map((entry) => entry.event))).toEqual(['raw', '[{"type":"text","text":"two"}]', 'result']);
      expect(await activeTurn(shared, sessionId)).toBeNull();
    } finally {
      await shared.close();
      await redis.stop();
    }
  });
});
