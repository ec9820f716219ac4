import 'reflect-metadata';
import { Event, createRunsHandler, openRunStore, type AnyEvent, type RunStore } from '../../src';
import { usageDraft } from '../../src/providers/usage';
import { listen } from './listen';

/*
 * The records over HTTP: `GET /runs` and `GET /runs/:id` answer the caller's own runs only (another
 * principal's is absent from the list and 404 alone, as an unknown one), paged; `DELETE /runs/:id`
 * is the owner's, for a run that has ended. The stores themselves: records.spec.ts.
 */

const ALICE = 'alice-token-0123456789';
const BOB = 'bob-token-0123456789ab';

let store: RunStore;
let server: { base: string; close(): Promise<void> };
let base: string;
beforeEach(async () => {
  store = openRunStore();
  server = await listen(createRunsHandler(store, { token: { alice: ALICE, bob: BOB } }));
  base = server.base;
});
afterEach(async () => {
  await server.close();
  await store.close();
});

const call = (method: string, path: string, token: string | null = ALICE) =>
  fetch(`${base}${path}`, { method, headers: token ? { authorization: `Bearer ${token}` } : {} });
const json = async (method: string, path: string, token: string | null = ALICE) => {
  const response = await call(method, path, token);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};
const cost = (input_tokens: number, output_tokens: number, cost_usd: number): AnyEvent =>
  Event.create('cost_update', {
    provider: 'claude',
    payload: usageDraft({ input_tokens, output_tokens, cost_usd }, 'delta', {}).payload,
  }) as AnyEvent;
const result = (): AnyEvent =>
  Event.create('result', {
    provider: 'claude',
    payload: { status: 'completed', stop_reason: null, output: 'ok', metadata: {} },
  }) as AnyEvent;

/** A run of `owner`'s, ended after two usage deltas. */
async function endedRun(owner: string, prompt = 'Say hello.'): Promise<string> {
  const id = await store.enqueueRun({ provider: 'claude', prompt, model: 'sonnet' }, { owner });
  await store.append(id, cost(100, 10, 0.01));
  await store.append(id, cost(50, 5, 0.02));
  await store.complete(id, [result()]);
  await new Promise((resolve) => setTimeout(resolve, 2));
  return id;
}

it("GET /runs lists the caller's runs alone, newest first, with their record; GET /runs/:id one of them; another's is 404", async () => {
  const first = await endedRun('alice', 'Fix the bug\nin x.ts');
  const second = await endedRun('alice');
  const bobs = await endedRun('bob');
  const { status, body } = await json('GET', '/runs');
  expect(status).toBe(200);
  expect((body.runs as { id: string }[]).map((run) => run.id)).toEqual([second, first]);
  expect(body.next).toBeNull();
  const one = await json('GET', `/runs/${first}`);
  expect(one.status).toBe(200);
  expect(one.body).toEqual((body.runs as unknown[])[1]);
  expect(one.body).toMatchObject({
    id: first,
    provider: 'claude',
    model: 'sonnet',
    status: 'completed',
    title: 'Fix the bug',
    turns: 1,
    usage: { input_tokens: 150, output_tokens: 15, total_tokens: 165 },
    changes: null,
    ttl_seconds: 86_400,
  });
  expect((one.body.usage as { cost_usd: number }).cost_usd).toBeCloseTo(0.03, 10);
  expect(one.body).not.toHaveProperty('owner');
  expect(((await json('GET', '/runs', BOB)).body.runs as { id: string }[]).map((run) => run.id)).toEqual([bobs]);
  expect((await json('GET', `/runs/${bobs}`)).status).toBe(404);
  expect((await json('GET', '/runs/00000000-0000-4000-8000-000000000000')).status).toBe(404);
  expect((await call('GET', '/runs', null)).status).toBe(401);
});

it('pages: limit, next, before (a cursor or a run id of the caller); bad ones are 400', async () => {
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push(await endedRun('alice', `run ${i}`));
  const seen: string[] = [];
  let path = '/runs?limit=2';
  for (;;) {
    const { body } = await json('GET', path);
    seen.push(...(body.runs as { id: string }[]).map((run) => run.id));
    if (body.next === null) break;
    path = `/runs?limit=2&before=${encodeURIComponent(body.next as string)}`;
  }
  expect(seen).toEqual([...ids].reverse());
  expect(((await json('GET', `/runs?before=${ids[2]}`)).body.runs as { id: string }[]).map((run) => run.id)).toEqual([ids[1], ids[0]]);
  const bobs = await endedRun('bob');
  for (const query of ['limit=0', 'limit=101', 'limit=x', 'before=nope', `before=${bobs}`])
    expect([query, (await call('GET', `/runs?${query}`)).status]).toEqual([query, 400]);
  expect(((await json('GET', '/runs?limit=100')).body.runs as unknown[]).length).toBe(5);
});

it('DELETE /runs/:id: 409 while the run is not over, 404 for another principal, 204 and gone for its owner', async () => {
  const open = await store.enqueueRun({ provider: 'claude', prompt: 'Wait.' }, { owner: 'alice' });
  expect((await json('DELETE', `/runs/${open}`)).status).toBe(409);
  const ended = await endedRun('alice');
  expect((await call('DELETE', `/runs/${ended}`, BOB)).status).toBe(404);
  expect((await call('GET', `/runs/${ended}`)).status).toBe(200);
  expect((await call('DELETE', `/runs/${ended}`)).status).toBe(204);
  expect((await call('GET', `/runs/${ended}`)).status).toBe(404);
  expect((await call('GET', `/runs/${ended}/events`)).status).toBe(404);
  expect(((await json('GET', '/runs')).body.runs as { id: string }[]).map((run) => run.id)).toEqual([open]);
  // Refused from another origin, as every other call.
  expect(
    (
      await fetch(`${base}/runs/${open}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${ALICE}`, origin: 'http://evil.example' },
      })
    ).status,
  ).toBe(403);
});
