/*
 * The @Sse() example (examples/nest-sse.ts) with the real Claude Code against the scripted
 * Anthropic endpoint: the app's environment points Claude at it, as a deployment's would.
 */
import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import type { AddressInfo } from 'node:net';
import { Event } from '../../src';
import { SseAppModule } from '../../examples/nest-sse';
import { SseClient } from '../../test/nest/sse-client';
import { startApp } from '../../test/nest/start-app';
import { scenario } from '../scripted/script';
import { ENDLESS_STREAM } from './endless-stream';
import { E2E_BIN, startScriptedCli, type ScriptedCli } from '../scripted/setup';
import { commandLine, snapshotTree, stillRunning, waitFor } from './harness';

const TOKEN = 'sse-test-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };

/** POST /runs with `prompt` (and the token): the run's events URL. */
async function startRun(prompt: string): Promise<string> {
  const created = await fetch(url, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt }),
  });
  expect(created.status).toBe(201);
  return `${url}/${((await created.json()) as { id: string }).id}/events`;
}

const savedEnv = { ...process.env };
const savedCwd = process.cwd();
let app: INestApplication;
let url: string;
let cli: ScriptedCli | undefined;

/** Points the app's environment (which the CLI inherits) at a scripted Anthropic endpoint playing `script`; `claude` on PATH is the pinned one. */
async function scriptClaude(script: Parameters<typeof startScriptedCli>[1]): Promise<ScriptedCli> {
  cli = await startScriptedCli('claude', script);
  Object.assign(process.env, cli.env, { PATH: `${E2E_BIN}:${cli.env.PATH}`, CLAUDE_CODE_MAX_RETRIES: '1' });
  process.chdir(cli.cwd); // the CLI's working directory: the run's default is the app's own
  return cli;
}

beforeAll(async () => {
  app = await startApp({ imports: [SseAppModule.withAccess({ token: TOKEN })] });
  await app.listen(0, '127.0.0.1');
  url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}/runs`;
});
afterEach(async () => {
  process.chdir(savedCwd);
  for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
  Object.assign(process.env, savedEnv);
  await cli?.close();
  cli = undefined;
});
afterAll(() => app.close());

describe('the @Sse() example with the real Claude Code', () => {
  it('streams the run as server-sent events: each message an Event, the last a completed result', async () => {
    const plain = scenario('plain');
    await scriptClaude(plain.script);
    // A GET never starts a run; without the token, nothing starts at all.
    expect((await fetch(`${url}?prompt=x`, { headers: auth })).status).toBe(404);
    expect(
      (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt: 'x' }) })).status,
    ).toBe(401);
    const client = new SseClient(await startRun(plain.prompt), auth);
    expect(await client.status).toBe(200);
    await client.ended;
    const events = client.messages.map((data) => Event.fromJSON(data));
    expect(events[0]).toMatchObject({ kind: 'run_started', provider: 'claude' });
    expect(events.at(-1)).toMatchObject({ kind: 'result', payload: { status: 'completed', output: 'Hello from the scripted model.' } });
  });

  it('a client that disconnects stops the run: Claude Code and everything it started are gone', async () => {
    const scripted = await scriptClaude([ENDLESS_STREAM]);
    const client = new SseClient(await startRun('Answer slowly.'), auth);
    await client.received(1); // run_started
    await waitFor('the streaming request', () => scripted.server.requests.some((request) => request.url.includes('/v1/messages')));
    // This worker's children: the run's CLI (and whatever it started).
    const tree = snapshotTree(process.pid).slice(1);
    expect(tree.map((ref) => commandLine(ref.pid)).some((line) => line.includes(E2E_BIN) || line.includes('claude'))).toBe(true);
    client.disconnect();
    await waitFor('every process of the run to be gone', () => stillRunning(tree).length === 0);
  });
});
