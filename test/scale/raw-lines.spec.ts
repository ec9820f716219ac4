import 'reflect-metadata';
import { firstValueFrom, toArray } from 'rxjs';
import { createRunsHandler, Event, openRunStore, type AnyEvent, type RunStore } from '../../src';
import { KINDS } from '../../src/registry/kinds';
import { runEvents$ } from '../../src/nest';
import { isRawEntry } from '../../src/scale/stream-entry';
import { listen } from './listen';

/*
 * What a stream client gets of the CLI's raw lines (`raw` events): left out unless it asks (`?raw=1`
 * over HTTP, `{ raw: true }` for Nest's `runEvents$`); the record keeps them, and the cursors of the
 * events around them are the same either way.
 */

const TOKEN = 'raw-lines-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };

let store: RunStore;
let server: { base: string; close(): Promise<void> };
let runId: string;
beforeEach(async () => {
  store = openRunStore();
  server = await listen(createRunsHandler(store, { token: { alice: TOKEN } }));
  runId = await store.enqueueRun({ provider: 'claude', prompt: 'Say hello.' }, { owner: 'alice' });
  const events: AnyEvent[] = [
    Event.create('raw', { provider: 'claude', payload: { stream: 'stdout', content: { type: 'system', subtype: 'status' } } }) as AnyEvent,
    Event.create('assistant_delta', { provider: 'claude', payload: { content: 'Hello' } }) as AnyEvent,
    Event.create('raw', { provider: 'claude', payload: { stream: 'stdout', content: { type: 'stream_event' } } }) as AnyEvent,
    Event.create('result', { provider: 'claude', payload: { status: 'completed', output: 'Hello' } }) as AnyEvent,
  ];
  for (const event of events) await store.append(runId, event);
  await store.complete(runId);
});
afterEach(async () => {
  await server.close();
  await store.close();
});

/** The SSE messages of `path`: each one's id and kind (`end` for the end message). */
async function messages(path: string, headers: Record<string, string> = {}): Promise<{ id?: string; kind: string }[]> {
  const text = await (await fetch(`${server.base}${path}`, { headers: { ...auth, ...headers } })).text();
  return text
    .split('\n\n')
    .filter((block) => block.includes('data: '))
    .map((block) => {
      const id = /^id: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1] ?? '';
      return { id, kind: /^event: end$/m.test(block) ? 'end' : (JSON.parse(data) as { kind: string }).kind };
    });
}

it('an event stream leaves out the raw lines unless ?raw=1; the record keeps them, the cursors are the same', async () => {
  const plain = await messages(`/runs/${runId}/events`);
  expect(plain.map((message) => message.kind)).toEqual(['assistant_delta', 'result', 'end']);
  const whole = await messages(`/runs/${runId}/events?raw=1`);
  expect(whole.map((message) => message.kind)).toEqual(['raw', 'assistant_delta', 'raw', 'result', 'end']);
  expect(plain[0].id).toBe(whole[1].id);
  expect(plain[1].id).toBe(whole[3].id);
  // Resumed after the delta: the result only (the raw line between them left out), or both with ?raw=1.
  expect((await messages(`/runs/${runId}/events`, { 'last-event-id': plain[0].id as string })).map((m) => m.kind)).toEqual([
    'result',
    'end',
  ]);
  expect((await messages(`/runs/${runId}/events?raw=true`, { 'last-event-id': plain[0].id as string })).map((m) => m.kind)).toEqual([
    'raw',
    'result',
    'end',
  ]);
});

it("Nest's runEvents$ does the same: raw lines only with { raw: true }", async () => {
  const kinds = async (raw: boolean) =>
    (await firstValueFrom(runEvents$(store, runId, undefined, { raw }).pipe(toArray()))).map((message) =>
      message.type === 'end' ? 'end' : (JSON.parse(message.data as string) as { kind: string }).kind,
    );
  expect(await kinds(false)).toEqual(['assistant_delta', 'result', 'end']);
  expect(await kinds(true)).toEqual(['raw', 'assistant_delta', 'raw', 'result', 'end']);
});

it('tells a raw entry from its JSON text alone, for every kind', () => {
  for (const kind of KINDS) {
    const event = Event.create(kind, { provider: 'claude', payload: {} as never });
    expect([kind, isRawEntry({ json: JSON.stringify(event) })]).toEqual([kind, kind === 'raw']);
  }
});
