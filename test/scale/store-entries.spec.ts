import 'reflect-metadata';
import { Event, openRunStore, type AnyEvent, type RunStore } from '../../src';
import { startRedis, type RedisServer } from '../../e2e/test/redis-server';
import { readAll } from './replay-jobs';

/*
 * What both stores keep of an appended event: its JSON text, written once (an SSE writer sends it
 * as it is), the event itself for a reader that asks, and the CLI's session id it announced (a run
 * taken again resumes it). The in-process store, and the Redis one on a real redis-server
 * (127.0.0.1, a free port, started here).
 */

jest.setTimeout(30_000);

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis.stop());

const homes: [string, (ttlSeconds: number) => RunStore][] = [
  ['in process', (ttlSeconds) => openRunStore({ ttlSeconds })],
  ['on Redis', (ttlSeconds) => openRunStore({ redis: redis.url, ttlSeconds, prefix: `t${Math.random().toString(36).slice(2)}` })],
];

const job = { provider: 'gemini' as const, prompt: 'Say hello.' };
const stderr = (content: string, session: string | null = null): AnyEvent =>
  Event.create('stderr', { provider: 'gemini', provider_session_id: session, payload: { content } }) as AnyEvent;

describe.each(homes)('the store %s', (_name, open) => {
  let store: RunStore;
  afterEach(() => store.close());

  it("each entry carries its event's JSON as appended, and the event itself (the same on every read)", async () => {
    store = open(60);
    const runId = await store.enqueueRun(job);
    const appended = [stderr('one'), stderr('two "quoted" \u2028 and\nlines', 'session-1')];
    for (const event of appended) await store.append(runId, event);
    await store.complete(runId);
    const entries = await readAll(store.readRunEvents(runId));
    expect(entries.map((entry) => entry.json)).toEqual(appended.map((event) => JSON.stringify(event)));
    for (const entry of entries) {
      expect(entry.event).toBeInstanceOf(Event);
      expect(entry.event).toBe(entry.event);
      expect(JSON.stringify(entry.event)).toBe(entry.json);
    }
  });

  it("remembers the CLI's session id the run's events announced last; an event without one keeps it", async () => {
    store = open(60);
    const runId = await store.enqueueRun(job);
    expect(await store.lastSessionId(runId)).toBeNull();
    await store.append(runId, stderr('before the handshake'));
    expect(await store.lastSessionId(runId)).toBeNull();
    await store.append(runId, stderr('first', 'session-1'));
    await store.append(runId, stderr('again', 'session-1'));
    expect(await store.lastSessionId(runId)).toBe('session-1');
    await store.append(runId, stderr('resumed as another', 'session-2'));
    await store.append(runId, stderr('no id'));
    expect(await store.lastSessionId(runId)).toBe('session-2');
    expect(await store.lastSessionId('no-such-run')).toBeNull();
    // After the end nothing is appended, and nothing changes the id.
    await store.complete(runId);
    expect(await store.append(runId, stderr('late', 'session-3'))).toBeNull();
    expect(await store.lastSessionId(runId)).toBe('session-2');
  });

  it('the session id goes when the run expires, with its events', async () => {
    store = open(1);
    const runId = await store.enqueueRun(job);
    await store.append(runId, stderr('first', 'session-1'));
    await store.complete(runId);
    expect(await store.lastSessionId(runId)).toBe('session-1');
    for (let kept = 1; kept > 0; kept = (await readAll(store.readRunEvents(runId, { follow: false }))).length)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await store.lastSessionId(runId)).toBeNull();
  });
});
