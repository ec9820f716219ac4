import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Event } from '../src';

/*
 * The `serve` command, in process (no Redis): the runs API on 127.0.0.1 at a free port, its runs run
 * by the command itself. The CLI is `gemini` on PATH: the stand-in that replays a real Gemini ACP
 * capture. SIGTERM stops it (exit 0). The Redis side: e2e/test/scale.spec.ts.
 */

const ROOT = join(__dirname, '..');
jest.setTimeout(30_000);

it('serve: queues a run over HTTP, streams its events as SSE to the end, forgets them --ttl after, stops on SIGTERM', async () => {
  const bin = mkdtempSync(join(tmpdir(), 'serve-bin-'));
  symlinkSync(join(__dirname, 'sessions', 'replay-agent.js'), join(bin, 'gemini'));
  const child = spawn(process.execPath, ['-r', require.resolve('ts-node/register/transpile-only'), join(ROOT, 'src', 'cli', 'main.ts'), 'serve', '--port', '0', '--cwd', bin, '--ttl', '1'], {
    env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}`, REPLAY_WIRE: join(__dirname, 'fixtures', 'sessions', 'gemini', 'wire-plain.jsonl'), REDIS_URL: '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const banner = await new Promise<string>((resolve) => child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString())));
    expect(banner).toMatch(/^cli-subprocess-core serve: http:\/\/127\.0\.0\.1:\d+\/ \(runs in this process, 2 at a time\)/);
    const base = /http:\/\/[^/]+/.exec(banner)?.[0] as string;
    const created = await fetch(`${base}/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ provider: 'gemini', prompt: 'Say hello.' }) });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const text = await (await fetch(`${base}/runs/${id}/events`)).text();
    const events = text
      .split('\n')
      .filter((line) => line.startsWith('data: ') && line !== 'data: {}')
      .map((line) => Event.fromJSON(line.slice(6)));
    expect(events.at(-1)).toMatchObject({ kind: 'result', payload: { status: 'completed', output: 'Hello from the scripted model.' } });
    expect(text).toContain('event: end');
    // A second after its end, the run's stream is gone: its SSE ends at once, with no event.
    let replay = text;
    for (const deadline = Date.now() + 10_000; replay.includes('data: {"') && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      replay = await (await fetch(`${base}/runs/${id}/events`)).text();
    }
    expect(replay).not.toContain('data: {"');
    expect(replay).toContain('event: end');
    expect((await fetch(`${base}/nope`)).status).toBe(404);
    child.kill('SIGTERM');
    expect(await new Promise((resolve) => child.once('exit', resolve))).toBe(0);
  } finally {
    child.kill('SIGKILL');
    rmSync(bin, { recursive: true, force: true });
  }
});

it('usage errors: a worker without Redis, a --ttl that is not a whole number of seconds', async () => {
  const child = spawn(process.execPath, ['-r', require.resolve('ts-node/register/transpile-only'), join(ROOT, 'src', 'cli', 'main.ts'), 'worker'], { env: { ...process.env, REDIS_URL: '' }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  expect(await new Promise((resolve) => child.once('exit', resolve))).toBe(2);
  expect(stderr).toContain('worker needs --redis <url> (or REDIS_URL): without Redis, serve runs the runs itself');
  const ttl = spawn(process.execPath, ['-r', require.resolve('ts-node/register/transpile-only'), join(ROOT, 'src', 'cli', 'main.ts'), 'serve', '--ttl', '0'], { env: { ...process.env, REDIS_URL: '' }, stdio: ['ignore', 'ignore', 'pipe'] });
  let ttlError = '';
  ttl.stderr.on('data', (chunk: Buffer) => (ttlError += chunk.toString()));
  expect(await new Promise((resolve) => ttl.once('exit', resolve))).toBe(2);
  expect(ttlError).toContain('--ttl must be a whole number from 1 to 31536000; got "0"');
});
