/*
 * The sessions example (examples/nest-sessions.ts) with the real Claude Code against the scripted
 * Anthropic endpoint: a session opened over HTTP, its events as server-sent events, an approval
 * answered by a POST, and the session closed by a DELETE.
 */
import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import request from 'supertest';
import { Event, type AnyEvent } from '../../src';
import { SessionsAppModule } from '../../examples/nest-sessions';

const ALICE = 'alice-token-0123456789';
const BOB = 'bob-token-0123456789ab';
const AUTH = { authorization: `Bearer ${ALICE}` };
import { SseClient } from '../../test/nest/sse-client';
import { startApp } from '../../test/nest/start-app';
import { E2E_BIN, startScriptedCli, type ScriptedCli } from '../scripted/setup';
import { commandLine, snapshotTree, stillRunning, waitFor } from './harness';

const savedEnv = { ...process.env };
const savedCwd = process.cwd();
let app: INestApplication;
let base: string;
let cli: ScriptedCli;

beforeAll(async () => {
  cli = await startScriptedCli('claude', [
    { shell: 'touch made-by-tool.txt' },
    { text: 'I was not allowed to create the file.' },
    { text: 'The second answer.' },
  ]);
  // The app's environment points Claude at the endpoint, as a deployment's would; `claude` on PATH is the pinned one.
  Object.assign(process.env, cli.env, { PATH: `${E2E_BIN}:${cli.env.PATH}`, CLAUDE_CODE_MAX_RETRIES: '1' });
  process.chdir(cli.cwd);
  app = await startApp({ imports: [SessionsAppModule.withAccess({ token: { alice: ALICE, bob: BOB } })] });
  await app.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
});
afterAll(async () => {
  await app.close();
  process.chdir(savedCwd);
  for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
  Object.assign(process.env, savedEnv);
  await cli.close();
});

it('a session over HTTP: SSE events, an approval denied by POST, a second turn, DELETE ends every process', async () => {
  const { id } = (await request(app.getHttpServer()).post('/sessions').set(AUTH).send({}).expect(201)).body as { id: string };
  // Without the token nothing opens; another caller's token does not reach Alice's session.
  await request(app.getHttpServer()).post('/sessions').send({}).expect(401);
  await request(app.getHttpServer())
    .post(`/sessions/${id}/prompts`)
    .set({ authorization: `Bearer ${BOB}` })
    .send({ text: 'Hello from Bob.' })
    .expect(404);
  const client = new SseClient(`${base}/sessions/${id}/events`, AUTH);
  expect(await client.status).toBe(200);
  const events = (): AnyEvent[] => client.messages.map((data) => Event.fromJSON(data));
  await request(app.getHttpServer()).post(`/sessions/${id}/prompts`).set(AUTH).send({ text: 'Create made-by-tool.txt.' }).expect(202);
  const asked = await waitFor('an approval_requested event', () => events().find((event) => event.kind === 'approval_requested'));
  const approvalId = asked.kind === 'approval_requested' ? (asked.payload.approval_id ?? '') : '';
  await request(app.getHttpServer())
    .post(`/sessions/${id}/approvals/${encodeURIComponent(approvalId)}`)
    .set(AUTH)
    .send({ decision: 'deny', reason: 'Not from the web.' })
    .expect(204);
  // Answered once: the same answer again finds nothing pending.
  await request(app.getHttpServer())
    .post(`/sessions/${id}/approvals/${encodeURIComponent(approvalId)}`)
    .set(AUTH)
    .send({ decision: 'allow' })
    .expect(404);
  await waitFor('the first result', () => events().some((event) => event.kind === 'result'));
  expect(existsSync(join(cli.cwd, 'made-by-tool.txt'))).toBe(false);
  expect(events().find((event) => event.kind === 'approval_resolved')).toMatchObject({
    payload: { approval_id: approvalId, decision: 'deny', reason: 'Not from the web.' },
  });

  await request(app.getHttpServer()).post(`/sessions/${id}/prompts`).set(AUTH).send({ text: 'Say the second thing.' }).expect(202);
  await waitFor('the second result', () => events().filter((event) => event.kind === 'result').length === 2);
  expect(
    events()
      .filter((event) => event.kind === 'result')
      .at(-1),
  ).toMatchObject({ payload: { status: 'completed', output: 'The second answer.' } });

  // This worker's children but the library's watchdog (it lives on, idle, for the next run): the session's CLI and what it started.
  const tree = snapshotTree(process.pid)
    .slice(1)
    .filter((ref) => !commandLine(ref.pid).includes('watchdog'));
  expect(tree.map((ref) => commandLine(ref.pid)).some((line) => line.includes('claude'))).toBe(true);
  await request(app.getHttpServer()).delete(`/sessions/${id}`).set(AUTH).expect(204);
  await client.ended;
  expect(stillRunning(tree)).toEqual([]);
  await request(app.getHttpServer()).post(`/sessions/${id}/prompts`).set(AUTH).send({ text: 'Anyone?' }).expect(404);
});
