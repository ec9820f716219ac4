import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Event, MemoryRunStore, type AnyEvent, type StreamEntry } from '../../src';
import { RunsAppModule } from '../../examples/nest-runs';
import { readAll } from '../scale/replay-jobs';
import { startApp } from './start-app';

/*
 * runEvents$ (a queued run's events for an @Sse() route), through the queued-runs example
 * (examples/nest-runs.ts), over the in-process store filled here: what goes on the wire.
 */

const TOKEN = 'run-events-token-0123456789';
let app: INestApplication;
let store: MemoryRunStore;
let base: string;

beforeAll(async () => {
  store = new MemoryRunStore();
  app = await startApp({ imports: [RunsAppModule.forStore(store, { token: TOKEN })] });
  await app.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
});
afterAll(async () => {
  await app.close();
  await store.close();
});

/** The whole body of GET `path` (with the token and `headers`), read to its end. */
function body(path: string, headers: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    get(`${base}${path}`, { headers: { authorization: `Bearer ${TOKEN}`, ...headers } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve(text));
    }).on('error', reject);
  });
}

/** A run of the token's principal (`default`) with `count` events, over. */
async function finishedRun(count: number): Promise<{ id: string; entries: StreamEntry[] }> {
  const id = await store.enqueueRun({ provider: 'claude', prompt: 'Say hello.' }, { owner: 'default' });
  for (let i = 0; i < count; i++)
    await store.append(id, Event.create('stderr', { provider: 'claude', payload: { content: `line ${i}` } }) as AnyEvent);
  await store.complete(id);
  return { id, entries: await readAll(store.readRunEvents(id)) };
}

it("sends each entry's id and its JSON as the store holds it, and ends with event: end, whose id is the last entry's", async () => {
  const { id, entries } = await finishedRun(3);
  const last = entries.at(-1)?.id as string;
  // Nest writes a blank line when the stream opens.
  expect(await body(`/runs/${id}/events`)).toBe(
    `\n${entries.map((entry) => `id: ${entry.id}\ndata: ${entry.json}\n\n`).join('')}event: end\nid: ${last}\ndata: {}\n\n`,
  );
});

it('an EventSource that reconnects after the run with the last id gets the end again, and no event twice', async () => {
  const { id, entries } = await finishedRun(2);
  const last = entries.at(-1)?.id as string;
  expect(await body(`/runs/${id}/events`, { 'last-event-id': last })).toBe(`\nevent: end\nid: ${last}\ndata: {}\n\n`);
  expect(await body(`/runs/${id}/events`, { 'last-event-id': entries[0].id })).toBe(
    `\nid: ${entries[1].id}\ndata: ${entries[1].json}\n\nevent: end\nid: ${last}\ndata: {}\n\n`,
  );
});
