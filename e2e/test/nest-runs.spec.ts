/*
 * The queued-runs example (examples/nest-runs.ts) with the real Claude Code against the scripted
 * Anthropic endpoint, on the in-process store with a worker: a run queued over HTTP, its events as
 * SSE whose ids are entry ids, a client that leaves and resumes with Last-Event-ID, an approval
 * answered over HTTP.
 */
import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import request from 'supertest';
import { createWorker, openRunStore, type RunStore, type StreamEntry } from '../../src';
import { RunsAppModule } from '../../examples/nest-runs';
import { startApp } from '../../test/nest/start-app';
import { SseClient } from '../../test/nest/sse-client';
import { E2E_BIN, startScriptedCli, type ScriptedCli } from '../scripted/setup';
import { waitFor } from './harness';

const ALICE = 'alice-token-0123456789';
const BOB = 'bob-token-0123456789ab';
const auth = (token: string) => ({ authorization: `Bearer ${token}` });
const savedEnv = { ...process.env };
const savedCwd = process.cwd();
let app: INestApplication;
let base: string;
let cli: ScriptedCli;
let store: RunStore;
let worker: { close(): Promise<void> };
/** Whether the last stream read to its end closed with `event: end` (so EventSource does not reconnect). */
let endedWithEnd = false;

beforeAll(async () => {
  cli = await startScriptedCli('claude', [{ shell: 'touch made-by-tool.txt' }, { text: 'I created the file.' }]);
  // The worker's environment points Claude at the endpoint, as a deployment's would; `claude` on PATH is the pinned one.
  Object.assign(process.env, cli.env, { PATH: `${E2E_BIN}:${cli.env.PATH}`, CLAUDE_CODE_MAX_RETRIES: '1' });
  process.chdir(cli.cwd);
  store = openRunStore();
  // The runs work in the endpoint's directory itself (the operator's choice), where the test looks for the file.
  worker = createWorker(store, { jobDefaults: { workspace: 'shared' } });
  app = await startApp({ imports: [RunsAppModule.forStore(store, { token: { alice: ALICE, bob: BOB } })] });
  await app.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
});
afterAll(async () => {
  await app.close();
  await worker.close();
  await store.close();
  process.chdir(savedCwd);
  for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
  Object.assign(process.env, savedEnv);
  await cli.close();
});

/** SSE frames (id, kind, data) from `path`: until `until` holds (then the client leaves), or to the end. */
async function sse(path: string, headers: Record<string, string>, until?: (frames: Frame[]) => boolean): Promise<Frame[]> {
  const client = new SseClient(`${base}${path}`, headers);
  const frames = () =>
    client.frames.flatMap((frame) =>
      frame.id === undefined || frame.event === 'end'
        ? []
        : [
            {
              id: frame.id,
              kind: String((JSON.parse(frame.data) as { kind: unknown }).kind),
              data: JSON.parse(frame.data) as Record<string, unknown>,
            },
          ],
    );
  if (until === undefined) {
    await client.ended;
    endedWithEnd = client.frames.at(-1)?.event === 'end';
    return frames();
  }
  await waitFor('the frames the client waits for', () => until(frames()));
  client.disconnect();
  return frames();
}

interface Frame {
  id: string;
  kind: string;
  data: Record<string, unknown>;
}

it('a queued run over HTTP: SSE with entry ids, a resume from Last-Event-ID, an approval answered over HTTP', async () => {
  // Without a token, nothing is queued; a request may not ask every call to be allowed.
  await request(app.getHttpServer()).post('/runs').send({ prompt: 'Create made-by-tool.txt.' }).expect(401);
  await request(app.getHttpServer())
    .post('/runs')
    .set(auth(ALICE))
    .send({ prompt: 'Create made-by-tool.txt.', approvals: 'allow' })
    .expect(403);
  const { id } = (
    await request(app.getHttpServer()).post('/runs').set(auth(ALICE)).send({ prompt: 'Create made-by-tool.txt.' }).expect(201)
  ).body as { id: string };
  // Another principal cannot read it, cancel it or answer it: the run does not exist for them.
  await request(app.getHttpServer()).post(`/runs/${id}/cancel`).set(auth(BOB)).set('content-type', 'application/json').send({}).expect(404);
  // The client reads until the approval is asked, answers it, and leaves.
  const first = await sse(`/runs/${id}/events`, auth(ALICE), (frames) => frames.some((frame) => frame.kind === 'approval_requested'));
  const asked = first.find((frame) => frame.kind === 'approval_requested')?.data.payload as { approval_id: string };
  await request(app.getHttpServer())
    .post(`/runs/${id}/approvals/${encodeURIComponent(asked.approval_id)}`)
    .set(auth(BOB))
    .send({ decision: 'allow' })
    .expect(404);
  await request(app.getHttpServer())
    .post(`/runs/${id}/approvals/${encodeURIComponent(asked.approval_id)}`)
    .set(auth(ALICE))
    .send({ decision: 'allow' })
    .expect(202);
  // It comes back with the last id it saw, and gets exactly the rest, then the end.
  const rest = await sse(`/runs/${id}/events`, { ...auth(ALICE), 'last-event-id': first.at(-1)?.id ?? '' });
  const stream: StreamEntry[] = [];
  for await (const entry of store.readRunEvents(id)) stream.push(entry);
  // Every event but the CLI's raw lines (runEvents$ leaves them out unless asked: the store keeps them).
  expect(stream.some((entry) => entry.event.kind === 'raw')).toBe(true);
  expect([...first, ...rest].map((frame) => frame.id)).toEqual(
    stream.filter((entry) => entry.event.kind !== 'raw').map((entry) => entry.id),
  );
  expect(rest.at(-1)).toMatchObject({ kind: 'result', data: { payload: { status: 'completed' } } });
  expect(endedWithEnd).toBe(true);
  expect(existsSync(join(cli.cwd, 'made-by-tool.txt'))).toBe(true);
});
