import 'reflect-metadata';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Event, MemoryRunStore, createRunsHandler, createWorker, openRunStore, type RunStore } from '../../src';
import { isRunning, readStat } from '../../src/runner/process-table';
import { SseClient } from '../nest/sse-client';
import { waitFor } from '../wait-for';
import { listen } from './listen';
import { follow, readAll, replayJob } from './replay-jobs';

/*
 * Queued runs in process (the default store): the worker runs each job as a session of the
 * stand-in that replays real Gemini ACP captures (test/sessions/replay-agent.js); the HTTP API over
 * it. The same on a real Redis with worker processes: e2e/test/scale.spec.ts.
 */

const AGENT = join(__dirname, '..', 'sessions', 'replay-agent.js');
const wire = (name: string) => join(__dirname, '..', 'fixtures', 'sessions', 'gemini', `wire-${name}.jsonl`);

jest.setTimeout(20_000);

let dir: string;
let store: RunStore;
let worker: { close(): Promise<void> } | null;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'scale-test-'));
  store = openRunStore();
  worker = null;
});
afterEach(async () => {
  await worker?.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the in-process store', () => {
  it('is the default: a queued run is taken by a worker, its stream ends with its result', async () => {
    expect(store).toBeInstanceOf(MemoryRunStore);
    worker = createWorker(store);
    const runId = await store.enqueueRun(replayJob(dir, 'plain'));
    const entries = await readAll(store.readRunEvents(runId));
    expect(entries.at(-1)?.event).toMatchObject({
      kind: 'result',
      payload: { status: 'completed', output: 'Hello from the scripted model.' },
    });
    expect(entries.filter((entry) => entry.event.kind === 'run_started')).toHaveLength(1);
    expect(await store.isComplete(runId)).toBe(true);
    // Entry ids are the stream's cursors: strictly increasing.
    const ids = entries.map((entry) => entry.id);
    expect([...ids].sort(compareIds)).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('reads from a cursor exactly the entries after it; without follow, only what is there', async () => {
    worker = createWorker(store);
    const runId = await store.enqueueRun(replayJob(dir, 'plain'));
    const entries = await readAll(store.readRunEvents(runId));
    const cut = Math.floor(entries.length / 2);
    expect((await readAll(store.readRunEvents(runId, { after: entries[cut].id }))).map((entry) => entry.id)).toEqual(
      entries.slice(cut + 1).map((entry) => entry.id),
    );
    expect((await readAll(store.readRunEvents(runId, { follow: false }))).length).toBe(entries.length);
    expect(await readAll(store.readRunEvents('no-such-run'))).toEqual([]);
  });

  it('a stream is completed once: the second complete answers false', async () => {
    const runId = await store.enqueueRun(replayJob(dir, 'plain'));
    await store.append(runId, Event.create('stderr', { payload: { content: 'x' } }));
    expect(await store.complete(runId)).toBe(true);
    expect(await store.complete(runId)).toBe(false);
  });

  it('a run cancelled before a worker takes it ends aborted, and no CLI starts', async () => {
    const runId = await store.enqueueRun(replayJob(dir, 'plain'));
    await store.cancel(runId);
    worker = createWorker(store);
    const entries = await readAll(store.readRunEvents(runId));
    expect(entries.map((entry) => [entry.event.kind, entry.event.kind === 'result' ? entry.event.payload.status : null])).toEqual([
      ['error', null],
      ['result', 'aborted'],
    ]);
    expect(existsSync(join(dir, 'pids'))).toBe(false);
  });

  it('a cancel reaches the running run: it ends aborted and its CLI is gone', async () => {
    worker = createWorker(store);
    const runId = await store.enqueueRun(replayJob(dir, 'interrupt-stream', { REPLAY_DELAY_MS: '200' }));
    const { seen, done: reading } = follow(store.readRunEvents(runId));
    await waitFor('streamed text', () => seen.some((entry) => entry.event.kind === 'assistant_delta'));
    const [pid] = readFileSync(join(dir, 'pids'), 'utf8').trim().split(' ').map(Number);
    const cli = readStat(pid);
    await store.cancel(runId);
    await reading;
    expect(seen.at(-1)?.event).toMatchObject({ kind: 'result', payload: { status: 'aborted' } });
    expect(cli && isRunning(cli)).toBe(false);
  });

  it("an approval answered through the store reaches the run's session", async () => {
    worker = createWorker(store);
    const log = join(dir, 'host.jsonl');
    const runId = await store.enqueueRun(replayJob(dir, 'allow', { REPLAY_LOG: log }, { prompt: 'Create made-by-tool.txt.' }));
    for await (const { event } of store.readRunEvents(runId)) {
      if (event.kind === 'approval_requested')
        await store.approve(runId, event.payload.approval_id ?? '', { decision: 'allow', reason: 'from the web' });
      if (event.kind === 'approval_resolved')
        expect(event.payload).toMatchObject({ decision: 'allow', reason: 'from the web', metadata: { answered_by: 'host' } });
    }
    expect(readFileSync(log, 'utf8')).toContain('"optionId":"proceed_once"');
  });

  it('closing the worker stops the runs it holds: they end aborted', async () => {
    worker = createWorker(store);
    const runId = await store.enqueueRun(replayJob(dir, 'interrupt-stream', { REPLAY_DELAY_MS: '200' }));
    const { seen, done: reading } = follow(store.readRunEvents(runId));
    await waitFor('streamed text', () => seen.some((entry) => entry.event.kind === 'assistant_delta'));
    await worker.close();
    worker = null;
    await reading;
    expect(seen.at(-1)?.event).toMatchObject({ kind: 'result', payload: { status: 'aborted' } });
  });

  it('a run taken again after its worker died is failed (worker_lost) unless it says retry; with retry the attempt is marked and it runs', async () => {
    // A store whose queue hands the job over as a second attempt: what a queue does once the first worker died.
    const again: RunStore = Object.assign(Object.create(store) as RunStore, {
      work: (handle: Parameters<RunStore['work']>[0], options: { concurrency: number }) =>
        store.work((taken, signals) => handle({ ...taken, attempt: 2 }, signals), options),
    });
    worker = createWorker(again);
    const lost = await store.enqueueRun(replayJob(dir, 'plain'));
    expect(
      (await readAll(store.readRunEvents(lost))).map((entry) =>
        entry.event.kind === 'error' ? entry.event.payload.code : entry.event.kind,
      ),
    ).toEqual(['worker_lost', 'result']);
    expect(existsSync(join(dir, 'pids'))).toBe(false);
    const retried = await store.enqueueRun(replayJob(dir, 'plain', {}, { retry: true }));
    const entries = await readAll(store.readRunEvents(retried));
    expect(entries[0].event).toMatchObject({
      kind: 'error',
      payload: { code: 'worker_lost', severity: 'warning', message: 'attempt 2: the worker running this run died; the run starts over' },
    });
    expect(entries.at(-1)?.event).toMatchObject({ kind: 'result', payload: { status: 'completed' } });
  });
});

describe('the runs API over HTTP (createRunsHandler)', () => {
  let server: { base: string; close(): Promise<void> };
  let base: string;
  beforeEach(async () => {
    server = await listen(
      createRunsHandler(store, { token: TOKEN, jobDefaults: { cwd: dir, executable: AGENT, env: { REPLAY_WIRE: wire('plain') } } }),
    );
    base = server.base;
  });
  afterEach(() => server.close());

  const TOKEN = 'memory-spec-token-0123456789';
  const auth = { authorization: `Bearer ${TOKEN}` };
  const post = (path: string, body: unknown) =>
    fetch(`${base}${path}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('refuses a bad request with a clear 400; a request never chooses where or what runs', async () => {
    expect([
      (await post('/runs', { provider: 'nope', prompt: 'x' })).status,
      await (await post('/runs', { provider: 'nope', prompt: 'x' })).json(),
    ]).toEqual([400, { error: 'provider must be one of claude, codex, gemini, opencode, qwen, copilot, pi, kilo, cline' }]);
    expect((await post('/runs', { provider: 'gemini', prompt: ' ' })).status).toBe(400);
    expect(
      (await fetch(`${base}/runs`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: 'not json' })).status,
    ).toBe(400);
    expect((await fetch(`${base}/runs/%E0%A4%A/events`, { headers: auth })).status).toBe(400);
    worker = createWorker(store);
    const created = await post('/runs', { provider: 'gemini', prompt: 'Say hello.', executable: '/bin/rm', cwd: '/', env: { X: '1' } });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const entries = await readAll(store.readRunEvents(id));
    // The server's executable (the stand-in) ran, in the server's cwd.
    expect(entries.at(-1)?.event).toMatchObject({ kind: 'result', payload: { status: 'completed' } });
    expect((await fetch(`${base}/`)).headers.get('content-type')).toContain('text/html');
  });

  it('SSE: each message carries its entry id; a reconnect with Last-Event-ID gets exactly the rest', async () => {
    worker = createWorker(store);
    const { id } = (await (await post('/runs', { provider: 'gemini', prompt: 'Say hello.' })).json()) as { id: string };
    // ?raw=1: every entry, the CLI's raw lines too (raw-lines.spec.ts: without it).
    const full = await sse(`${base}/runs/${id}/events?raw=1`, auth);
    expect(full.ended).toBe(true);
    const stream = await readAll(store.readRunEvents(id));
    expect(full.messages.map((message) => message.id)).toEqual(stream.map((entry) => entry.id));
    expect(full.messages.map((message) => (JSON.parse(message.data) as { kind: string }).kind)).toEqual(
      stream.map((entry) => entry.event.kind),
    );
    const cursor = full.messages[2].id;
    const rest = await sse(`${base}/runs/${id}/events?raw=1`, { ...auth, 'last-event-id': cursor });
    expect(rest.messages.map((message) => message.id)).toEqual(stream.slice(3).map((entry) => entry.id));
  });

  it("SSE's wire: the retry delay, then each entry's id and its JSON as the store holds it, then event: end", async () => {
    worker = createWorker(store);
    const { id } = (await (await post('/runs', { provider: 'gemini', prompt: 'Say hello.' })).json()) as { id: string };
    const response = await fetch(`${base}/runs/${id}/events?raw=1`, { headers: auth });
    // A keep-alive comment may come between messages on a slow machine: it is no message.
    const body = (await response.text()).replaceAll(': keep-alive\n\n', '');
    const stream = await readAll(store.readRunEvents(id));
    expect(stream.length).toBeGreaterThan(3);
    expect(body).toBe(
      `retry: 1000\n\n${stream.map((entry) => `id: ${entry.id}\ndata: ${entry.json}\n\n`).join('')}event: end\ndata: {}\n\n`,
    );
  });
});

/** The messages of an SSE stream read to its end (`event: end` left out), and whether it ended with `event: end`. */
async function sse(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ messages: { id: string; data: string }[]; ended: boolean }> {
  const client = new SseClient(url, headers);
  await client.ended;
  const messages = client.frames.flatMap((frame) =>
    frame.id !== undefined && frame.event !== 'end' ? [{ id: frame.id, data: frame.data }] : [],
  );
  return { messages, ended: client.frames.some((frame) => frame.event === 'end') };
}

function compareIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(Number);
  const [bm, bs] = b.split('-').map(Number);
  return am - bm || as - bs;
}
