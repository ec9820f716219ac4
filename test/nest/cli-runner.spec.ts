import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstValueFrom, toArray } from 'rxjs';
import { Event, ExecutableNotFoundError, type AnyEvent } from '../../src';
import { CliRunner, CliSubprocessCoreModule } from '../../src/nest';
import { SseAppModule } from '../../examples/nest-sse';
import { pidFrom, processGone } from '../process-gone';
import { startApp } from './start-app';

/*
 * CliRunner and the @Sse() example (examples/nest-sse.ts) against a REPLAY stand-in named
 * `claude` on PATH (test/fixtures/replay-cli.js, printing real captured Claude Code transcripts).
 * With the real Claude Code: e2e/test/nest-sse.spec.ts.
 */

const REPLAY_CLI = join(__dirname, '..', 'fixtures', 'replay-cli.js');
const CAPTURED_PLAIN = join(__dirname, '..', 'fixtures', 'providers', 'claude', 'captured-plain.jsonl');

let scratch: string;
const savedEnv = { ...process.env };
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'cli-runner-test-'));
  symlinkSync(REPLAY_CLI, join(scratch, 'claude'));
  // The runner starts the CLI with this process's environment: the stand-in, found on PATH.
  process.env.PATH = `${scratch}:${process.env.PATH ?? ''}`;
});
afterEach(() => {
  for (const key of Object.keys(process.env)) if (key.startsWith('REPLAY_')) delete process.env[key];
});
afterAll(() => {
  process.env.PATH = savedEnv.PATH;
  rmSync(scratch, { recursive: true, force: true });
});

/** A replay that prints the init line and then runs until stopped; answers where it writes its pid. */
function replayThatHolds(name: string): string {
  const pidFile = join(scratch, `${name}.pid`);
  Object.assign(process.env, { REPLAY_FILE: CAPTURED_PLAIN, REPLAY_LINES: '1', REPLAY_HOLD: '1', REPLAY_PID_FILE: pidFile });
  return pidFile;
}

describe('CliRunner', () => {
  let app: INestApplication;
  let runner: CliRunner;
  beforeAll(async () => {
    app = await startApp({ imports: [CliSubprocessCoreModule.forRoot()] });
    runner = app.get(CliRunner);
  });
  afterAll(() => app.close());

  it('is provided and exported by CliSubprocessCoreModule.forRoot()', () => {
    expect(runner).toBeInstanceOf(CliRunner);
  });

  it('start() is startRun: a Run to iterate, and its outcome', async () => {
    process.env.REPLAY_FILE = CAPTURED_PLAIN;
    const run = runner.start({ provider: 'claude', prompt: 'Say hello.' });
    const kinds: string[] = [];
    for await (const event of run) kinds.push(event.kind);
    expect(kinds).toEqual(['run_started', 'assistant_message', 'cost_update', 'result']);
    expect(await run.done).toMatchObject({ status: 'completed', exitCode: 0, sessionId: 'f81b5f86-8bc1-469f-9f87-54734a16826e' });
  });

  it('events$() emits one message per event, its data the event itself, and completes with the run', async () => {
    process.env.REPLAY_FILE = CAPTURED_PLAIN;
    const messages = await firstValueFrom(runner.events$({ provider: 'claude', prompt: 'Say hello.' }).pipe(toArray()));
    const events = messages.map((message) => message.data as AnyEvent);
    expect(events.every((event) => event instanceof Event)).toBe(true);
    expect(events.map((event) => event.kind)).toEqual(['run_started', 'assistant_message', 'cost_update', 'result']);
    expect(events.at(-1)?.payload).toMatchObject({ status: 'completed' });
  });

  it('events$(): unsubscribing stops the run and its CLI', async () => {
    const pidFile = replayThatHolds('unsubscribe');
    const events$ = runner.events$({ provider: 'claude', prompt: 'Say hello.' });
    const first = new Promise<AnyEvent>((resolve) => {
      const subscription = events$.subscribe((message) => {
        subscription.unsubscribe();
        resolve(message.data as AnyEvent);
      });
    });
    expect((await first).kind).toBe('run_started');
    await processGone(pidFrom(pidFile));
  });

  it('events$() of a missing CLI is an error notification (ExecutableNotFoundError)', async () => {
    const error = await firstValueFrom(
      runner.events$({ provider: 'claude', prompt: 'Say hello.', executable: '/nonexistent/claude' }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExecutableNotFoundError);
  });
});

describe('the @Sse() example (examples/nest-sse.ts): its refusals (its runs, with the real Claude Code: e2e/test/nest-sse.spec.ts)', () => {
  const TOKEN = 'cli-runner-spec-token-0123';
  let app: INestApplication;
  let url: string;
  beforeAll(async () => {
    app = await startApp({ imports: [SseAppModule.withAccess({ token: TOKEN })] });
    await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}/runs`;
  });
  afterAll(() => app.close());

  it('a GET never starts a run, nothing starts without the token, and a prompt without text or with a NUL byte is 400', async () => {
    const post = (body: unknown, token: string | null = TOKEN) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
    expect((await fetch(`${url}/stream?prompt=hi`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(404);
    expect((await post({ prompt: 'hi' }, null)).status).toBe(401);
    expect((await post({})).status).toBe(400);
    expect((await post({ prompt: 'a\u0000b' })).status).toBe(400);
    expect(
      (await fetch(`${url}/00000000-0000-4000-8000-000000000000/events`, { headers: { authorization: `Bearer ${TOKEN}` } })).status,
    ).toBe(404);
  });
});
