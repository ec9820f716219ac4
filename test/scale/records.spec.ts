import 'reflect-metadata';
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Event, FileRunJournal, MemoryRunStore, openRunStore, type AnyEvent, type RunJob, type RunStore } from '../../src';
import { usageDraft, type UsageAggregation, type UsageInput } from '../../src/providers/usage';
import { OutcomeTally } from '../../src/runner/outcome';
import type { JsonObject } from '../../src/schema/json';
import { pageOf, titleOf, TITLE_MAX_CHARS, type StoredRun } from '../../src/scale/run-record';
import { startRedis, type RedisServer } from '../../e2e/test/redis-server';
import { readAll } from './replay-jobs';

/*
 * The record of every run (what `GET /runs` lists): kept by each store as events are appended, the
 * caller's own, newest first, paged; usage added up by the usage rules; deleted on request. In
 * process, on disk (the data directory of `serve`: a restart replays everything, a run in flight is
 * ended server_lost), and on a real redis-server (127.0.0.1, a free port, started here).
 */

jest.setTimeout(30_000);

let redis: RedisServer;
let dir: string;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis.stop());
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'records-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Each home of runs, and whether a run's record outlives its events there (Redis: until deleted). */
const homes: [string, (ttlSeconds: number) => RunStore, boolean][] = [
  ['in process', (ttlSeconds) => openRunStore({ ttlSeconds }), false],
  ['on disk', (ttlSeconds) => openRunStore({ ttlSeconds, dataDir: join(dir, 'data') }), false],
  ['on Redis', (ttlSeconds) => openRunStore({ redis: redis.url, ttlSeconds, prefix: `t${Math.random().toString(36).slice(2)}` }), true],
];

const job = (prompt = 'Say hello.', extra: Partial<RunJob> = {}): RunJob => ({ provider: 'claude', prompt, ...extra });
const usage = (input: UsageInput, aggregation: UsageAggregation): AnyEvent =>
  Event.create('cost_update', { provider: 'claude', payload: usageDraft(input, aggregation, {}).payload }) as AnyEvent;
const result = (status: string, metadata: JsonObject = {}): AnyEvent =>
  Event.create('result', { provider: 'claude', payload: { status, stop_reason: null, output: 'done', metadata } }) as AnyEvent;
const text = (content: string): AnyEvent =>
  Event.create('assistant_message', { provider: 'claude', payload: { content: [{ type: 'text', text: content }] } }) as AnyEvent;
/** A millisecond later: runs queued one after the other are ordered by their time. */
const tick = () => new Promise((resolve) => setTimeout(resolve, 2));

/** The usage the usage rules give for `runId`'s events, read back from its stream. */
async function usageOfEvents(store: RunStore, runId: string) {
  const tally = new OutcomeTally();
  for (const { event } of await readAll(store.readRunEvents(runId, { follow: false }))) tally.note(event);
  return tally.cost;
}

describe.each(homes)('the records %s', (_name, open, recordOutlivesEvents) => {
  let store: RunStore;
  afterEach(() => store.close());

  it("lists each owner's runs alone, newest first; a new run is queued, with its prompt's first line", async () => {
    store = open(60);
    const alice: string[] = [];
    for (const prompt of ['\n  First question  \nmore', 'Second', 'Third']) {
      alice.push(await store.enqueueRun(job(prompt, { model: 'sonnet' }), { owner: 'alice' }));
      await tick();
    }
    const bob = await store.enqueueRun(job('Bob asks'), { owner: 'bob' });
    expect((await store.listRuns('alice')).map((run) => run.id)).toEqual([...alice].reverse());
    expect((await store.listRuns('bob')).map((run) => run.id)).toEqual([bob]);
    expect(await store.listRuns('carol')).toEqual([]);
    const first = await store.findRun(alice[0]);
    expect(first).toMatchObject({
      id: alice[0],
      owner: 'alice',
      provider: 'claude',
      model: 'sonnet',
      status: 'queued',
      title: 'First question',
      turns: 1,
      usage: null,
      changes: null,
      ended_at: null,
      expires_at: null,
      ttl_seconds: 60,
    });
    expect(Date.parse(first?.created_at ?? '')).toBeLessThanOrEqual(Date.parse((await store.findRun(alice[1]))?.created_at ?? ''));
  });

  it('pages with limit and before: every run once, in order, none of another owner', async () => {
    store = open(60);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(await store.enqueueRun(job(`run ${i}`), { owner: 'alice' }));
      await store.enqueueRun(job(`bob ${i}`), { owner: 'bob' });
      await tick();
    }
    const seen: string[] = [];
    let page = await store.listRuns('alice', { limit: 2 });
    while (page.length > 0) {
      expect(page.length).toBeLessThanOrEqual(2);
      seen.push(...page.map((run) => run.id));
      const last = page[page.length - 1];
      page = await store.listRuns('alice', { limit: 2, before: { createdAt: Date.parse(last.created_at), id: last.id } });
    }
    expect(seen).toEqual([...ids].reverse());
  });

  it('pages one at a time through runs queued in the same milliseconds: each once, in the order of the whole list', async () => {
    store = open(60);
    for (let i = 0; i < 12; i++) await store.enqueueRun(job(`run ${i}`), { owner: 'alice' });
    const whole = (await store.listRuns('alice', { limit: 100 })).map((run) => run.id);
    expect(whole).toHaveLength(12);
    const seen: string[] = [];
    for (let page = await store.listRuns('alice', { limit: 1 }); page.length > 0;) {
      seen.push(page[0].id);
      page = await store.listRuns('alice', { limit: 1, before: { createdAt: Date.parse(page[0].created_at), id: page[0].id } });
    }
    expect(seen).toEqual(whole);
  });

  it('keeps status, usage (by the usage rules, as events come) and changes up to date; ended runs have an expiry', async () => {
    store = open(60);
    const runId = await store.enqueueRun(job(), { owner: 'alice' });
    const events = [
      text('one'),
      usage({ input_tokens: 1000, output_tokens: 10, cache_read_input_tokens: 800, cost_usd: 0.01 }, 'cumulative'),
      usage({ input_tokens: 1500, output_tokens: 40, cache_read_input_tokens: 1200, cost_usd: 0.025 }, 'cumulative'),
      usage({ input_tokens: 7, output_tokens: 3, reasoning_output_tokens: 2, cost_usd: 0.5 }, 'delta'),
      usage({ input_tokens: 5, output_tokens: 1 }, 'delta'),
    ];
    for (const event of events) await store.append(runId, event);
    const running = await store.findRun(runId);
    expect(running?.usage).toEqual(await usageOfEvents(store, runId));
    expect(running?.usage).toMatchObject({ input_tokens: 1512, output_tokens: 44, cost_usd: 0.525 });
    await store.append(runId, result('completed', { changes: { files: 2, insertions: 10, deletions: 3 } }));
    await store.complete(runId);
    const ended = await store.findRun(runId);
    expect(ended).toMatchObject({
      status: 'completed',
      changes: { files: 2, insertions: 10, deletions: 3 },
      usage: await usageOfEvents(store, runId),
    });
    expect(Date.parse(ended?.expires_at ?? '') - Date.parse(ended?.ended_at ?? '')).toBe(60_000);
    expect((await store.listRuns('alice'))[0]).toEqual(ended);
  });

  it('a run is running once a worker takes it; aborted is cancelled; an end without a result is failed', async () => {
    store = open(60);
    const [taken, aborted, cut] = [
      await store.enqueueRun(job(), { owner: 'alice' }),
      await store.enqueueRun(job(), { owner: 'alice' }),
      await store.enqueueRun(job(), { owner: 'alice' }),
    ];
    const statuses: (string | undefined)[] = [];
    const worker = store.work(
      async ({ runId }) => {
        if (runId !== taken) return;
        statuses.push((await store.findRun(runId))?.status);
        await store.complete(runId, [result('completed')]);
      },
      { concurrency: 1 },
    );
    for (let done = false; !done; done = await store.isComplete(taken)) await new Promise((resolve) => setTimeout(resolve, 20));
    await worker.close();
    expect(statuses).toEqual(['running']);
    await store.complete(aborted, [result('aborted')]);
    await store.append(cut, text('half'));
    await store.complete(cut);
    expect((await store.findRun(taken))?.status).toBe('completed');
    expect((await store.findRun(aborted))?.status).toBe('cancelled');
    expect((await store.findRun(cut))?.status).toBe('failed');
  });

  it('deleteRun removes an ended run (record, events, diff) and refuses one not ended', async () => {
    store = open(60);
    const runId = await store.enqueueRun(job(), { owner: 'alice' });
    const kept = await store.enqueueRun(job(), { owner: 'alice' });
    await store.append(runId, text('one'));
    await store.saveDiff(runId, 'diff --git a/x b/x\n');
    expect(await store.deleteRun(runId)).toBe(false);
    expect(await store.findRun(runId)).not.toBeNull();
    await store.complete(runId, [result('completed')]);
    expect(await store.deleteRun(runId)).toBe(true);
    expect(await store.findRun(runId)).toBeNull();
    expect(await store.readDiff(runId)).toBeNull();
    expect(await readAll(store.readRunEvents(runId))).toEqual([]);
    expect((await store.listRuns('alice')).map((run) => run.id)).toEqual([kept]);
    expect(await store.deleteRun(runId)).toBe(false);
    // Its job went too (it ended before a worker took it): only the other run waits.
    expect(await store.countRuns('alice')).toEqual({ waiting: 1, owned: 1 });
  });

  it(
    recordOutlivesEvents
      ? "the record outlives the run's events (ttl): it goes when deleted"
      : 'the record goes with its events past the ttl',
    async () => {
      store = open(1);
      const runId = await store.enqueueRun(job(), { owner: 'alice' });
      await store.append(runId, text('one'));
      await store.complete(runId, [result('completed')]);
      for (let kept = 1; kept > 0; kept = (await readAll(store.readRunEvents(runId, { follow: false }))).length)
        await new Promise((resolve) => setTimeout(resolve, 100));
      if (recordOutlivesEvents) {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        expect(await store.findRun(runId)).toMatchObject({ status: 'completed' });
        expect(await store.isComplete(runId)).toBe(true);
        expect((await store.countRuns('alice')).owned).toBe(0);
        expect(await store.deleteRun(runId)).toBe(true);
      }
      expect(await store.findRun(runId)).toBeNull();
      expect(await store.listRuns('alice')).toEqual([]);
    },
  );
});

describe('the data directory', () => {
  const data = () => join(dir, 'data');
  const stores: RunStore[] = [];
  const opened = (ttlMs = 60_000): RunStore => {
    const store = new MemoryRunStore({ ttlMs, journal: new FileRunJournal(data()) });
    stores.push(store);
    return store;
  };
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });

  it('a store opened again (its process died) replays every run whole; a run queued or running then is ended server_lost', async () => {
    const before = opened();
    const done = await before.enqueueRun(job('Done'), { owner: 'alice' });
    await before.append(done, text('hello "there"\n\u2028'));
    await before.append(done, usage({ input_tokens: 10, output_tokens: 2, cost_usd: 0.001 }, 'cumulative'));
    await before.saveDiff(done, 'diff --git a/x b/x\n');
    await before.complete(done, [result('completed')]);
    const running = await before.enqueueRun(job('Running'), { owner: 'alice' });
    // A worker takes it and is still at it when the process dies.
    before.work(async ({ runId }) => (runId === running ? new Promise<void>(() => undefined) : undefined), { concurrency: 1 });
    await before.append(running, text('half'));
    await before.append(running, usage({ input_tokens: 3, output_tokens: 1 }, 'delta'));
    const queued = await before.enqueueRun(job('Queued'), { owner: 'bob' });
    const statusBefore = new Map(await Promise.all([running, queued].map(async (id) => [id, (await before.findRun(id))?.status] as const)));
    expect([...statusBefore.values()]).toEqual(['running', 'queued']);
    const entriesBefore = new Map(
      await Promise.all(
        [done, running, queued].map(async (id) => [id, await readAll(before.readRunEvents(id, { follow: false }))] as const),
      ),
    );
    const recordsBefore = await before.listRuns('alice');

    // The process dies here: nothing more is written, the new store opens the same directory.
    const after = opened();
    const replayed = await readAll(after.readRunEvents(done));
    expect(replayed.map(({ id, json }) => ({ id, json }))).toEqual(entriesBefore.get(done)?.map(({ id, json }) => ({ id, json })));
    expect(replayed.map((entry) => entry.event.kind)).toEqual(['assistant_message', 'cost_update', 'result']);
    expect(await after.readDiff(done)).toBe('diff --git a/x b/x\n');
    expect(await after.findRun(done)).toEqual(recordsBefore.find((run) => run.id === done));
    for (const id of [running, queued]) {
      const status = statusBefore.get(id);
      const entries = await readAll(after.readRunEvents(id));
      expect(entries.slice(0, -2).map(({ id: entryId, json }) => ({ id: entryId, json }))).toEqual(
        entriesBefore.get(id)?.map(({ id: entryId, json }) => ({ id: entryId, json })),
      );
      expect(entries.slice(-2).map((entry) => entry.event)).toMatchObject([
        {
          kind: 'error',
          payload: {
            code: 'server_lost',
            severity: 'fatal',
            message: `the server stopped while this run was ${status}: it was not finished, and is not run again`,
          },
        },
        { kind: 'result', payload: { status: 'failed', stop_reason: 'server_lost' } },
      ]);
      expect(await after.findRun(id)).toMatchObject({ status: 'failed', usage: await usageOfEvents(after, id) });
      expect(await after.isComplete(id)).toBe(true);
    }
    expect((await after.listRuns('alice')).map((run) => run.id)).toEqual(recordsBefore.map((run) => run.id));
    expect((await after.listRuns('bob')).map((run) => run.id)).toEqual([queued]);
    expect((await after.countRuns('alice')).owned).toBe(0);
    // Appends after a restart follow the ones before it.
    const next = await after.enqueueRun(job(), { owner: 'alice' });
    expect(await after.append(next, text('new'))).not.toBeNull();
  });

  it('files are 0600 in 0700 directories; a deleted run leaves no file and is not read back', async () => {
    const store = opened();
    const runId = await store.enqueueRun(job(), { owner: 'alice' });
    await store.append(runId, text('one'));
    await store.saveDiff(runId, 'patch');
    await store.complete(runId, [result('completed')]);
    expect(statSync(data()).mode & 0o777).toBe(0o700);
    expect(statSync(join(data(), 'runs')).mode & 0o777).toBe(0o700);
    for (const name of ['index.jsonl', `runs/${runId}.jsonl`, `runs/${runId}.diff`])
      expect(statSync(join(data(), name)).mode & 0o777).toBe(0o600);
    expect(await store.deleteRun(runId)).toBe(true);
    expect(readdirSync(join(data(), 'runs'))).toEqual([]);
    expect(await opened().findRun(runId)).toBeNull();
  });

  it('runs past the ttl are removed when the store opens, files and index line', async () => {
    const store = opened();
    const old = await store.enqueueRun(job(), { owner: 'alice' });
    await store.complete(old, [result('completed')]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const after = opened(10);
    expect(await after.findRun(old)).toBeNull();
    expect(existsSync(join(data(), 'runs', `${old}.jsonl`))).toBe(false);
    expect(readFileSync(join(data(), 'index.jsonl'), 'utf8')).not.toContain(old);
  });

  // Linux's /dev/full: every write to it fails with ENOSPC, as on a full disk.
  (existsSync('/dev/full') ? it : it.skip)(
    'a write that fails (a full disk) fails the append, never the process; the run is ended server_lost on the next start',
    async () => {
      const store = opened();
      const runId = await store.enqueueRun(job(), { owner: 'alice' });
      const events = join(data(), 'runs', `${runId}.jsonl`);
      symlinkSync('/dev/full', events);
      const outcomes: string[] = [];
      const worker = store.work(
        async () => {
          await store.append(runId, text('one')).then(
            () => outcomes.push('appended'),
            (error: NodeJS.ErrnoException) => outcomes.push(error.code ?? 'no code'),
          );
          await store.append(runId, text('two'));
        },
        { concurrency: 1 },
      );
      await worker.close();
      expect(outcomes).toEqual(['ENOSPC']);
      expect(await readAll(store.readRunEvents(runId, { follow: false }))).toEqual([]);
      rmSync(events);
      expect((await readAll(opened().readRunEvents(runId))).map((entry) => entry.event.kind)).toEqual(['error', 'result']);
    },
  );

  it('a line cut short by a crash is left out', async () => {
    const store = opened();
    const torn = await store.enqueueRun(job(), { owner: 'alice' });
    await store.append(torn, text('whole'));
    appendFileSync(join(data(), 'runs', `${torn}.jsonl`), '{"id":"1-0","event":{"kind":"assis');
    const after = opened();
    expect((await readAll(after.readRunEvents(torn))).map((entry) => entry.event.kind)).toEqual(['assistant_message', 'error', 'result']);
  });
});

describe('record helpers', () => {
  it("a title is the prompt's first line with text, cut to its length", () => {
    expect(titleOf('\n\n  Fix the bug  \nin x.ts')).toBe('Fix the bug');
    const long = 'é'.repeat(TITLE_MAX_CHARS + 5);
    expect([...titleOf(long)]).toHaveLength(TITLE_MAX_CHARS);
    expect(titleOf(long).endsWith('…')).toBe(true);
    expect(titleOf('short')).toBe('short');
  });

  it('a page after a cursor leaves out the cursor and every run as new, also within its millisecond', () => {
    const record = (id: string, createdAt: number) => ({ id, kind: 'run', createdAt }) as StoredRun;
    const ids = ['00000000-0000-4000-8000-00000000000a', '00000000-0000-4000-8000-00000000000b', '00000000-0000-4000-8000-00000000000c'];
    const records = [record(ids[0], 5), record(ids[1], 5), record(ids[2], 5), record(ids[0].replace('a', 'd'), 4)];
    expect(pageOf(records, { limit: 10 }).map((run) => run.id)).toEqual([ids[2], ids[1], ids[0], ids[0].replace('a', 'd')]);
    expect(pageOf(records, { limit: 10, before: { createdAt: 5, id: ids[1] } }).map((run) => run.id)).toEqual([
      ids[0],
      ids[0].replace('a', 'd'),
    ]);
    expect(pageOf(records, { limit: 1, before: { createdAt: 5, id: ids[2] } }).map((run) => run.id)).toEqual([ids[1]]);
  });
});
