import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Event } from '../src';

/*
 * The `serve` command, in process (no Redis): the runs API on 127.0.0.1 at a free port, its runs run
 * by the command itself. The CLI is `gemini` on PATH: the stand-in that replays a real Gemini ACP
 * capture. SIGTERM stops it (exit 0). The Redis side: e2e/test/scale.spec.ts.
 */

const ROOT = join(__dirname, '..');
// Each serve is a ts-node process: 3 s to its banner on an idle machine, 16 s seen beside a CPU hog on both cores.
// The tests wait on its output, never on a clock; this only bounds a test that hangs.
jest.setTimeout(240_000);

const main = (...args: string[]) => [
  ...['-r', require.resolve('ts-node/register/transpile-only'), join(ROOT, 'src', 'cli', 'main.ts')],
  ...args,
];

// Where the serves of these tests keep their runs by default ($XDG_DATA_HOME/cli-subprocess-core), never the user's.
let dataHome: string;
/** The serves a test started: none outlives it, whatever it did (a failed test once left one holding jest open). */
const serves = new Set<ChildProcess>();
beforeEach(() => {
  dataHome = mkdtempSync(join(tmpdir(), 'serve-data-'));
});
afterEach(() => {
  for (const child of serves) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  serves.clear();
  rmSync(dataHome, { recursive: true, force: true });
});

/**
 * `serve` with `args`, its stdout and stderr collected; the first stdout line is its banner.
 * `until(what, holds)` resolves once its output makes `holds` true, and rejects if it exits first.
 */
function startServe(args: string[], env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, main('serve', ...args), {
    env: { ...process.env, REDIS_URL: '', CLI_SUBPROCESS_CORE_TOKEN: '', XDG_DATA_HOME: dataHome, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  serves.add(child);
  const output = { stdout: '', stderr: '' };
  // 'close': its output is whole by then.
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  const watchers = new Set<() => void>();
  const heard = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
    output[stream] += chunk.toString();
    for (const watcher of watchers) watcher();
  };
  child.stdout.on('data', heard('stdout'));
  child.stderr.on('data', heard('stderr'));
  const until = (what: string, holds: () => boolean) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!holds()) return;
        watchers.delete(check);
        resolve();
      };
      watchers.add(check);
      check();
      void exited.then((code) => {
        if (watchers.delete(check)) reject(new Error(`serve exited (${code}) before ${what}; stderr:\n${output.stderr}`));
      });
    });
  return { child, output, exited, until };
}

it('serve with no options needs a token: it makes one, prints the page address with it once on stderr, and refuses calls without it', async () => {
  const serve = startServe(['--port', '0']);
  try {
    await serve.until('the banner and the token', () => serve.output.stdout.includes('\n') && serve.output.stderr.includes('#token='));
    const base = /http:\/\/[^/]+/.exec(serve.output.stdout)?.[0] as string;
    const token = /#token=(\S+)/.exec(serve.output.stderr)?.[1] as string;
    expect(serve.output.stderr).toContain(`open ${base}/#token=${token}`);
    // Never in the banner (stdout is a log), and printed once.
    expect(serve.output.stdout).not.toContain(token);
    expect(serve.output.stderr.split(token).length - 1).toBe(1);
    const body = JSON.stringify({ provider: 'gemini', prompt: 'hi' });
    expect((await fetch(`${base}/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).status).toBe(401);
    // A request may not ask every call to be allowed: the default policy is ask and deny.
    const allow = await fetch(`${base}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ provider: 'gemini', prompt: 'hi', approvals: 'allow' }),
    });
    expect(allow.status).toBe(403);
    serve.child.kill('SIGTERM');
    expect(await serve.exited).toBe(0);
  } finally {
    serve.child.kill('SIGKILL');
  }
});

it('serve --no-auth warns, and is refused (exit 2, before binding) with a --host that is not loopback; --tokens reads principals', async () => {
  const open = startServe(['--port', '0', '--no-auth', '--host', '0.0.0.0']);
  expect(await open.exited).toBe(2);
  expect(open.output.stderr).toContain('--no-auth is refused with --host 0.0.0.0');
  const warned = startServe(['--port', '0', '--no-auth']);
  try {
    await warned.until('the warning', () => warned.output.stderr.includes('WARNING: --no-auth'));
    expect(warned.output.stderr).not.toContain('#token=');
  } finally {
    warned.child.kill('SIGKILL');
  }
  const dir = mkdtempSync(join(tmpdir(), 'serve-tokens-'));
  try {
    writeFileSync(join(dir, 'tokens'), '# who may call\nshort alice\n');
    const bad = startServe(['--port', '0', '--tokens', join(dir, 'tokens')]);
    expect(await bad.exited).toBe(2);
    expect(bad.output.stderr).toContain('line 2: the token must be at least 16 characters');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it('serve: queues a run over HTTP, streams its events as SSE to the end, forgets them --ttl after, stops on SIGTERM', async () => {
  const bin = mkdtempSync(join(tmpdir(), 'serve-bin-'));
  symlinkSync(join(__dirname, 'sessions', 'replay-agent.js'), join(bin, 'gemini'));
  writeFileSync(join(bin, 'tokens'), 'serve-test-token-0123456789 alice\n');
  // REPLAY_WIRE is the operator's to pass: a CLI gets the allow-list, not this process's environment.
  const serve = startServe(['--port', '0', '--cwd', bin, '--ttl', '1', '--tokens', join(bin, 'tokens'), '--pass-env', 'REPLAY_WIRE'], {
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    REPLAY_WIRE: join(__dirname, 'fixtures', 'sessions', 'gemini', 'wire-plain.jsonl'),
  });
  const { child } = serve;
  const auth = { authorization: 'Bearer serve-test-token-0123456789' };
  try {
    await serve.until('the banner', () => serve.output.stdout.includes('\n'));
    const banner = serve.output.stdout;
    expect(banner).toMatch(/^cli-subprocess-core serve: http:\/\/127\.0\.0\.1:\d+\/ \(runs in this process, 2 at a time, kept in (\S+)\)/);
    expect(banner).toContain(`kept in ${join(dataHome, 'cli-subprocess-core')})`);
    const base = /http:\/\/[^/]+/.exec(banner)?.[0] as string;
    const created = await fetch(`${base}/runs`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ provider: 'gemini', prompt: 'Say hello.' }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const text = await (await fetch(`${base}/runs/${id}/events`, { headers: auth })).text();
    const events = text
      .split('\n')
      .filter((line) => line.startsWith('data: ') && line !== 'data: {}')
      .map((line) => Event.fromJSON(line.slice(6)));
    expect(events.at(-1)).toMatchObject({ kind: 'result', payload: { status: 'completed', output: 'Hello from the scripted model.' } });
    expect(text).toContain('event: end');
    // A second after its end, the run's stream is gone: its SSE ends at once, with no event.
    let gone = 200;
    while (gone === 200) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      gone = (await fetch(`${base}/runs/${id}/events`, { headers: auth })).status;
    }
    expect(gone).toBe(404);
    // Its files went with it.
    expect(readdirSync(join(dataHome, 'cli-subprocess-core', 'runs'))).toEqual([]);
    expect((await fetch(`${base}/nope`)).status).toBe(404);
    child.kill('SIGTERM');
    expect(await serve.exited).toBe(0);
  } finally {
    child.kill('SIGKILL');
    rmSync(bin, { recursive: true, force: true });
  }
});

it('serve keeps its runs in --data-dir: after a restart GET /runs lists them and their events replay whole; files 0600 in a 0700 directory', async () => {
  const bin = mkdtempSync(join(tmpdir(), 'serve-bin-'));
  symlinkSync(join(__dirname, 'sessions', 'replay-agent.js'), join(bin, 'gemini'));
  const data = join(bin, 'data');
  const args = ['--port', '0', '--cwd', bin, '--token', 'serve-test-token-0123456789', '--data-dir', data, '--pass-env', 'REPLAY_WIRE'];
  const env = {
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    REPLAY_WIRE: join(__dirname, 'fixtures', 'sessions', 'gemini', 'wire-plain.jsonl'),
  };
  const auth = { authorization: 'Bearer serve-test-token-0123456789' };
  const started = async () => {
    const serve = startServe(args, env);
    await serve.until('the banner', () => serve.output.stdout.includes('\n'));
    return { serve, base: /http:\/\/[^/]+/.exec(serve.output.stdout)?.[0] as string };
  };
  let first = await started();
  try {
    expect(first.serve.output.stdout).toContain(`kept in ${data})`);
    const created = await fetch(`${first.base}/runs`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ provider: 'gemini', prompt: 'Say hello.\nAnd more.' }),
    });
    const { id } = (await created.json()) as { id: string };
    const before = await (await fetch(`${first.base}/runs/${id}/events`, { headers: auth })).text();
    first.serve.child.kill('SIGTERM');
    expect(await first.serve.exited).toBe(0);
    first = await started();
    expect(await (await fetch(`${first.base}/runs/${id}/events`, { headers: auth })).text()).toBe(before);
    const listed = (await (await fetch(`${first.base}/runs`, { headers: auth })).json()) as {
      runs: { id: string; status: string; title: string }[];
    };
    expect(listed.runs).toMatchObject([{ id, status: 'completed', title: 'Say hello.' }]);
    expect(statSync(data).mode & 0o777).toBe(0o700);
    expect(statSync(join(data, 'runs')).mode & 0o777).toBe(0o700);
    for (const file of [join(data, 'index.jsonl'), join(data, 'runs', `${id}.jsonl`)]) expect(statSync(file).mode & 0o777).toBe(0o600);
    // A second serve on the same directory is refused: it would fail the first one's runs as lost.
    const second = startServe(args, env);
    expect(await second.exited).toBe(1);
    expect(second.output.stderr).toContain(`the data directory ${data} is in use by process ${first.serve.child.pid}`);
    first.serve.child.kill('SIGTERM');
    expect(await first.serve.exited).toBe(0);
  } finally {
    first.serve.child.kill('SIGKILL');
    rmSync(bin, { recursive: true, force: true });
  }
});

it('serve holds a conversation across a restart: POST /sessions, a turn, serve restarted, the next turn resumes the CLI; one stream for both', async () => {
  const bin = mkdtempSync(join(tmpdir(), 'serve-bin-'));
  symlinkSync(join(__dirname, 'sessions', 'replay-agent.js'), join(bin, 'claude'));
  const args = [
    '--port',
    '0',
    '--cwd',
    bin,
    '--token',
    'serve-test-token-0123456789',
    '--data-dir',
    join(bin, 'data'),
    '--pass-env',
    'REPLAY_WIRE,REPLAY_SEEN',
  ];
  const env = {
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    REPLAY_WIRE: join(__dirname, 'fixtures', 'sessions', 'claude', 'wire-two-turns.jsonl'),
    REPLAY_SEEN: join(bin, 'seen'),
  };
  const headers = { authorization: 'Bearer serve-test-token-0123456789', 'content-type': 'application/json' };
  const started = async () => {
    const serve = startServe(args, env);
    await serve.until('the banner', () => serve.output.stdout.includes('\n'));
    return { serve, base: /http:\/\/[^/]+/.exec(serve.output.stdout)?.[0] as string };
  };
  const message = (base: string, id: string, text: string) =>
    fetch(`${base}/sessions/${id}/messages`, { method: 'POST', headers, body: JSON.stringify({ text }) });
  const idleAfter = async (base: string, id: string, turns: number) => {
    for (; ; await new Promise((resolve) => setTimeout(resolve, 100))) {
      const record = (await (await fetch(`${base}/sessions/${id}`, { headers })).json()) as { status: string; turns: number };
      if (record.status === 'idle' && record.turns === turns) return;
    }
  };
  let serving = await started();
  try {
    const { id } = (await (
      await fetch(`${serving.base}/sessions`, { method: 'POST', headers, body: JSON.stringify({ provider: 'claude' }) })
    ).json()) as { id: string };
    expect((await message(serving.base, id, 'Give the first answer.')).status).toBe(202);
    await idleAfter(serving.base, id, 1);
    serving.serve.child.kill('SIGTERM');
    expect(await serving.serve.exited).toBe(0);
    serving = await started();
    expect((await message(serving.base, id, 'Give the second answer.')).status).toBe(202);
    await idleAfter(serving.base, id, 2);
    // The second CLI continued the conversation the first announced.
    expect((JSON.parse(readFileSync(join(bin, 'seen'), 'utf8')) as { argv: string[] }).argv).toContain(
      '7f37fdad-95f4-4700-aae6-a0c4cbf147c2',
    );
    expect((await fetch(`${serving.base}/sessions/${id}`, { method: 'DELETE', headers })).status).toBe(204);
    const text = await (await fetch(`${serving.base}/sessions/${id}/events`, { headers })).text();
    const results = text
      .split('\n')
      .filter((line) => line.startsWith('data: ') && line !== 'data: {}')
      .map((line) => Event.fromJSON(line.slice(6)))
      .filter((event) => event.kind === 'result');
    expect(results.map((event) => event.payload.status)).toEqual(['completed', 'completed']);
    expect(text).toContain('event: end');
    serving.serve.child.kill('SIGTERM');
    expect(await serving.serve.exited).toBe(0);
  } finally {
    serving.serve.child.kill('SIGKILL');
    rmSync(bin, { recursive: true, force: true });
  }
});

it('usage errors: a worker without Redis, a --ttl that is not a whole number of seconds', async () => {
  const child = spawn(
    process.execPath,
    ['-r', require.resolve('ts-node/register/transpile-only'), join(ROOT, 'src', 'cli', 'main.ts'), 'worker'],
    { env: { ...process.env, REDIS_URL: '' }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  expect(await new Promise((resolve) => child.once('close', resolve))).toBe(2);
  expect(stderr).toContain('worker needs --redis <url> (or REDIS_URL): without Redis, serve runs the runs itself');
  const ttl = spawn(
    process.execPath,
    ['-r', require.resolve('ts-node/register/transpile-only'), join(ROOT, 'src', 'cli', 'main.ts'), 'serve', '--ttl', '0'],
    { env: { ...process.env, REDIS_URL: '' }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let ttlError = '';
  ttl.stderr.on('data', (chunk: Buffer) => (ttlError += chunk.toString()));
  expect(await new Promise((resolve) => ttl.once('close', resolve))).toBe(2);
  expect(ttlError).toContain('--ttl must be a whole number from 1 to 31536000; got "0"');
});

it('usage errors: --data-dir with Redis (Redis keeps the runs)', async () => {
  const dataDir = spawn(process.execPath, main('serve', '--redis', 'redis://127.0.0.1:1', '--data-dir', dataHome), {
    env: { ...process.env, REDIS_URL: '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let dataDirError = '';
  dataDir.stderr.on('data', (chunk: Buffer) => (dataDirError += chunk.toString()));
  expect(await new Promise((resolve) => dataDir.once('close', resolve))).toBe(2);
  expect(dataDirError).toContain('--data-dir is for serve without Redis: with --redis, runs are kept on Redis');
});
