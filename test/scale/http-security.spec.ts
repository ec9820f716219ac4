import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Event, createRunsHandler, createWorker, openRunStore, type RunsHandlerOptions, type RunStore, type StreamEntry } from '../../src';
import { SseClient } from '../nest/sse-client';
import { readAll, REPLAY_AGENT, replayJob } from './replay-jobs';

/*
 * "Safe to serve": one regression test per finding of the security issue, over the runs API in
 * process (the stand-in CLI replays a real Gemini ACP capture). Each was reproduced against the
 * handler as it was: no token asked, Host and Origin unchecked, any Content-Type read as JSON, the
 * request's model and policy taken as given, a NUL prompt fatal, no limits. The browser's side (a page
 * of another origin in the real Chromium) is e2e/test/runs-page.spec.ts; the real Qwen Code's
 * `--mcp-config=` model is e2e/test/qwen.security.spec.ts.
 */

jest.setTimeout(30_000);

const ALICE = 'alice-token-0123456789';
const BOB = 'bob-token-0123456789ab';
const wire = (name: string) => join(__dirname, '..', 'fixtures', 'sessions', 'gemini', `wire-${name}.jsonl`);

let dir: string;
let store: RunStore;
let server: Server | null;
let base: string;
let worker: { close(): Promise<void> } | null;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'http-security-'));
  store = openRunStore();
  server = null;
  worker = null;
});
afterEach(async () => {
  if (server) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
  }
  await worker?.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Serves the runs API over `store` on 127.0.0.1 at a free port. */
async function serve(options: Partial<RunsHandlerOptions> = {}): Promise<void> {
  const handle = createRunsHandler(store, {
    token: { alice: ALICE, bob: BOB },
    jobDefaults: { cwd: dir, executable: REPLAY_AGENT, env: { REPLAY_WIRE: wire('plain') } },
    ...options,
  } as RunsHandlerOptions);
  server = createServer((request, response) => {
    void handle(request, response).then((handled) => {
      if (!handled) response.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const json = (token: string | null, extra: Record<string, string> = {}) => ({
  'content-type': 'application/json',
  ...(token ? { authorization: `Bearer ${token}` } : {}),
  ...extra,
});
const post = (path: string, body: unknown, token: string | null = ALICE, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, { method: 'POST', headers: json(token, headers), body: JSON.stringify(body) });
const get = (path: string, token: string | null = ALICE, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, { headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers } });
const hello = { provider: 'gemini', prompt: 'Say hello.' };

/** A raw request with any Host header (fetch will not send a forged one): its status. */
function rawStatus(method: string, path: string, headers: Record<string, string>, body = ''): Promise<number> {
  return new Promise((resolve, reject) => {
    const url = new URL(base);
    const request = httpRequest(
      { host: url.hostname, port: url.port, method, path, headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

async function queuedRuns(owner: string): Promise<number> {
  return (await store.countRuns(owner)).owned;
}

describe('who may call', () => {
  it('no token: every API route is 401 with WWW-Authenticate: Bearer, and nothing is queued', async () => {
    await serve();
    const created = await post('/runs', hello, null);
    expect(created.status).toBe(401);
    expect(created.headers.get('www-authenticate')).toBe('Bearer');
    expect((await post('/runs', hello, 'a-wrong-token-0123456789')).status).toBe(401);
    const { id } = (await (await post('/runs', hello)).json()) as { id: string };
    for (const response of [
      await get(`/runs/${id}/events`, null),
      await get(`/runs/${id}/diff`, null),
      await post(`/runs/${id}/cancel`, {}, null),
      await post(`/runs/${id}/approvals/x`, { decision: 'allow' }, null),
    ]) {
      expect(response.status).toBe(401);
    }
    expect(await queuedRuns('alice')).toBe(1);
    // The page itself holds no secret: it is served without the token, which it reads from its URL's fragment.
    expect((await get('/', null)).status).toBe(200);
  });

  it('a handler without a token, an authenticate or noAuth is refused when it is made, not at the first request', () => {
    expect(() => createRunsHandler(store, {} as RunsHandlerOptions)).toThrow(
      'a server of runs needs exactly one of token, authenticate or noAuth: true',
    );
    expect(() => createRunsHandler(store, { token: 'short' })).toThrow('at least 16 characters');
  });

  it("principals: another principal's run answers 404 for its events, diff, cancel and approvals, exactly as a run that does not exist", async () => {
    await serve();
    const { id } = (await (await post('/runs', hello)).json()) as { id: string };
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const runId of [id, unknown]) {
      const answers = [
        await get(`/runs/${runId}/events`, BOB),
        await get(`/runs/${runId}/diff`, BOB),
        await post(`/runs/${runId}/cancel`, {}, BOB),
        await post(`/runs/${runId}/approvals/x`, { decision: 'allow' }, BOB),
      ];
      expect(await Promise.all(answers.map(async (answer) => [answer.status, await answer.json()]))).toEqual(
        Array(4).fill([404, { error: 'no such run' }]),
      );
    }
    // Bob's cancel did not reach Alice's run.
    worker = createWorker(store);
    const entries = await readAll(store.readRunEvents(id));
    expect(entries.at(-1)?.event).toMatchObject({ kind: 'result', payload: { status: 'completed' } });
  });

  it("a host's own check (authenticate) names the principal", async () => {
    await serve({ token: undefined, authenticate: (request) => (request.headers['x-user'] === 'carol' ? 'carol' : null) });
    expect(
      (
        await fetch(`${base}/runs`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-user': 'carol' },
          body: JSON.stringify(hello),
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await fetch(`${base}/runs`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-user': 'mallory' },
          body: JSON.stringify(hello),
        })
      ).status,
    ).toBe(401);
    expect(await queuedRuns('carol')).toBe(1);
  });
});

describe('same origin only', () => {
  it('any web page can start a run: a text/plain POST, a form POST and a no-cors fetch (no Content-Type: application/json) are 415, and queue nothing', async () => {
    await serve();
    const body = JSON.stringify({ ...hello, approvals: 'allow' });
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', '']) {
      const headers: Record<string, string> = { authorization: `Bearer ${ALICE}` };
      if (type !== '') headers['content-type'] = type;
      expect((await fetch(`${base}/runs`, { method: 'POST', headers, body })).status).toBe(415);
    }
    expect(await queuedRuns('alice')).toBe(0);
  });

  it('a page of another origin is 403, with or without the token; the same origin is served', async () => {
    await serve();
    for (const origin of ['http://evil.example', 'http://127.0.0.2:8787', `${base.replace('127.0.0.1', 'localhost')}`, 'null']) {
      expect((await post('/runs', hello, ALICE, { origin })).status).toBe(403);
      expect((await get('/', null, { origin })).status).toBe(403);
    }
    expect(await queuedRuns('alice')).toBe(0);
    expect((await post('/runs', hello, ALICE, { origin: base })).status).toBe(201);
  });

  it("DNS rebinding: a Host that is not one of this server's names is 403, even with the token", async () => {
    await serve();
    const port = new URL(base).port;
    expect(await rawStatus('POST', '/runs', { host: `rebind.example:${port}`, ...json(ALICE) }, JSON.stringify(hello))).toBe(403);
    expect(await rawStatus('GET', '/', { host: `rebind.example:${port}` })).toBe(403);
    expect(await queuedRuns('alice')).toBe(0);
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`])
      expect(await rawStatus('POST', '/runs', { host, ...json(ALICE) }, JSON.stringify(hello))).toBe(201);
    // A name the operator lists is one of the server's.
    server?.closeAllConnections();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    await serve({ allowedHosts: ['runs.example.com'] });
    expect(await rawStatus('POST', '/runs', { host: 'runs.example.com', ...json(ALICE) }, JSON.stringify(hello))).toBe(201);
  });

  it('the page can be framed by another site: it is sent with a CSP of frame-ancestors none, nosniff and no-referrer', async () => {
    await serve();
    const page = await get('/', null);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
  });
});

describe('what a request may ask', () => {
  it("a request's model becomes a CLI flag: a model that starts with '-' or holds a control character is 400, and nothing is queued", async () => {
    await serve();
    for (const model of [
      '--mcp-config={"mcpServers":{"p":{"command":"/bin/sh","args":["-c","id > /tmp/pwned"]}}}',
      '--yolo',
      '-m',
      'gpt\n--yolo',
      'a\u0000b',
    ]) {
      const answer = await post('/runs', { provider: 'qwen', prompt: 'hi', approvals: 'deny', model });
      expect(answer.status).toBe(400);
      expect(((await answer.json()) as { error: string }).error).toContain('model must not start with "-"');
    }
    expect(await queuedRuns('alice')).toBe(0);
    expect((await post('/runs', { ...hello, model: 'gemini-2.5-pro' })).status).toBe(201);
  });

  it("the request chooses its policy: approvals allow is 403 unless the operator lists it; --models lists the models; the operator's model is not the request's to change", async () => {
    await serve();
    const allow = await post('/runs', { ...hello, approvals: 'allow' });
    expect([allow.status, await allow.json()]).toEqual([403, { error: 'approvals "allow" is not allowed here: ask, deny' }]);
    expect((await post('/runs', { ...hello, approvals: 'deny' })).status).toBe(201);
    await store.close();
    server?.closeAllConnections();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    store = openRunStore();
    await serve({ allow: { approvals: ['ask', 'allow'], models: ['gemini-2.5-pro'] } });
    expect((await post('/runs', { ...hello, approvals: 'allow', model: 'gemini-2.5-pro' })).status).toBe(201);
    expect([
      (await post('/runs', { ...hello, model: 'gemini-2.5-flash' })).status,
      (await post('/runs', { ...hello, approvals: 'deny' })).status,
    ]).toEqual([403, 403]);
    await store.close();
    server?.closeAllConnections();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    store = openRunStore();
    await serve({ jobDefaults: { cwd: dir, model: 'operator-model' } });
    expect((await post('/runs', { ...hello, model: 'another-model' })).status).toBe(403);
    expect((await post('/runs', hello)).status).toBe(201);
  });

  it('one request kills the server: a NUL prompt is 400, nothing is queued, and the server goes on', async () => {
    await serve();
    worker = createWorker(store);
    const answer = await post('/runs', { provider: 'gemini', prompt: 'a\u0000b' });
    expect([answer.status, await answer.json()]).toEqual([
      400,
      { error: 'prompt must not contain a NUL byte (\\0): no CLI can be given one' },
    ]);
    expect(await queuedRuns('alice')).toBe(0);
    const { id } = (await (await post('/runs', hello)).json()) as { id: string };
    expect((await readAll(store.readRunEvents(id))).at(-1)?.event).toMatchObject({ kind: 'result', payload: { status: 'completed' } });
  });

  it('a run id that the store did not make (a BullMQ key name, a path) is 404 and never reaches the store', async () => {
    await serve();
    const seen: string[] = [];
    const find = store.findRun.bind(store);
    store.findRun = (runId) => (seen.push(runId), find(runId));
    for (const path of ['/runs/events/events', '/runs/meta/events', '/runs/..%2F..%2Fetc/events', '/runs/id/diff'])
      expect((await get(path)).status).toBe(404);
    expect(seen).toEqual([]);
  });

  it('no limit: a prompt over maxPromptBytes is 413, and so is a body over the limit', async () => {
    await serve({ maxPromptBytes: 1000 });
    expect((await post('/runs', { provider: 'gemini', prompt: 'x'.repeat(1001) })).status).toBe(413);
    expect((await post('/runs', { provider: 'gemini', prompt: 'hi', padding: 'x'.repeat(70 * 1024) })).status).toBe(413);
    expect((await post('/runs', { provider: 'gemini', prompt: 'x'.repeat(1000) })).status).toBe(201);
  });

  it('no limit: past maxQueued runs waiting, and past maxRunsPerPrincipal, POST /runs is 429 with Retry-After', async () => {
    await serve({ maxQueued: 3, maxRunsPerPrincipal: 2 });
    expect([(await post('/runs', hello)).status, (await post('/runs', hello)).status]).toEqual([201, 201]);
    const perPrincipal = await post('/runs', hello);
    expect(perPrincipal.status).toBe(429);
    expect(perPrincipal.headers.get('retry-after')).toBe('10');
    expect((await post('/runs', hello, BOB)).status).toBe(201);
    expect((await post('/runs', hello, BOB)).status).toBe(429);
    // A run that ended no longer counts: Alice may queue again once a worker has run hers.
    worker = createWorker(store, { concurrency: 3 });
    for (let i = 0; i < 50 && (await store.countRuns('alice')).owned > 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await post('/runs', hello)).status).toBe(201);
  });

  it('a cancel or an approval for a run that does not exist leaves nothing behind', async () => {
    await serve();
    for (let i = 0; i < 20; i++) expect((await post(`/runs/${crypto.randomUUID()}/cancel`, {})).status).toBe(404);
    expect(await store.countRuns('alice')).toEqual({ waiting: 0, owned: 0 });
  });

  it('an idle event stream (a run still waiting for a worker) is kept open by keep-alive comments: a proxy closes a silent one', async () => {
    await serve({ keepAliveMs: 20 });
    const { id } = (await (await post('/runs', hello)).json()) as { id: string };
    const seen = await new Promise<string>((resolve, reject) => {
      const request = httpRequest(`${base}/runs/${id}/events`, { headers: { authorization: `Bearer ${ALICE}` } }, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
          if (text.includes(': keep-alive\n\n')) {
            request.destroy();
            resolve(text);
          }
        });
      });
      request.on('error', reject);
      request.end();
    });
    expect(seen).toMatch(/^retry: 1000\n\n(: keep-alive\n\n)+$/);
  });

  it('no error escapes a handler after its response has begun: a store that fails mid-stream ends the stream, and the server goes on', async () => {
    await serve({ keepAliveMs: 60_000 });
    const { id } = (await (await post('/runs', hello)).json()) as { id: string };
    store.readRunEvents = async function* (): AsyncGenerator<StreamEntry> {
      const event = Event.create('raw', { provider: 'gemini', payload: { line: 'x' } }) as StreamEntry['event'];
      yield { id: '1-0', json: JSON.stringify(event), event };
      throw new Error('the store broke');
    };
    const client = new SseClient(`${base}/runs/${id}/events`, { authorization: `Bearer ${ALICE}` });
    await client.ended;
    expect(await client.status).toBe(200);
    expect((await get('/', null)).status).toBe(200);
  });
});

describe('what a run can reach', () => {
  it("every CLI inherits the server's whole environment: a worker's CLI gets the allow-list, its CLI's own variables and what the operator names", async () => {
    const secrets = {
      AWS_SECRET_ACCESS_KEY: 'aws',
      GITHUB_TOKEN: 'gh',
      DATABASE_URL: 'postgres://x',
      STRIPE_SECRET_KEY: 'sk',
      GEMINI_API_KEY: 'gemini-key',
      MYCORP_SETTING: 'named',
    };
    const saved = { ...process.env };
    Object.assign(process.env, secrets);
    try {
      worker = createWorker(store, { jobDefaults: { passEnv: ['MYCORP_*'] } });
      const seenFile = join(dir, 'seen.json');
      const id = await store.enqueueRun(replayJob(dir, 'plain', { REPLAY_SEEN: seenFile }));
      await readAll(store.readRunEvents(id));
      const { env } = JSON.parse(readFileSync(seenFile, 'utf8')) as { env: Record<string, string> };
      expect(env).toMatchObject({ GEMINI_API_KEY: 'gemini-key', MYCORP_SETTING: 'named', PATH: process.env.PATH });
      for (const name of ['AWS_SECRET_ACCESS_KEY', 'GITHUB_TOKEN', 'DATABASE_URL', 'STRIPE_SECRET_KEY']) expect(env[name]).toBeUndefined();
    } finally {
      for (const name of Object.keys(secrets)) delete process.env[name];
      Object.assign(process.env, saved);
    }
  });

  it('every run shares one working directory: with a git repository each run gets its own worktree, its result says what changed, and GET /runs/:id/diff gives the patch', async () => {
    const repo = join(dir, 'repo');
    mkdirSync(repo);
    const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' });
    git('init', '-q');
    git('config', 'user.email', 'test@example.com');
    git('config', 'user.name', 'test');
    writeFileSync(join(repo, 'README.md'), 'hello\n');
    git('add', '.');
    git('commit', '-qm', 'first');
    await serve({
      jobDefaults: {
        cwd: repo,
        executable: REPLAY_AGENT,
        env: { REPLAY_WIRE: wire('plain'), REPLAY_EDIT: 'made-by-run.txt=one\ntwo\n', REPLAY_SEEN: join(dir, 'seen.json') },
      },
    });
    worker = createWorker(store, { ttlSeconds: 1 });
    const { id } = (await (await post('/runs', hello)).json()) as { id: string };
    const entries = await readAll(store.readRunEvents(id));
    const { cwd } = JSON.parse(readFileSync(join(dir, 'seen.json'), 'utf8')) as { cwd: string };
    expect(cwd).not.toBe(repo);
    expect(entries.at(-1)?.event).toMatchObject({
      kind: 'result',
      payload: { status: 'completed', metadata: { changes: { files: 1, insertions: 2, deletions: 0 } } },
    });
    // The repository itself is untouched; the run's work is on its own branch.
    expect(git('status', '--porcelain')).toBe('');
    expect(git('branch', '--list', `cli-subprocess-core/${id}`)).toContain(id);
    const diff = await get(`/runs/${id}/diff`);
    expect(diff.headers.get('content-type')).toContain('text/x-diff');
    expect(await diff.text()).toContain('+++ b/made-by-run.txt');
    // The worktree goes with the run's stream (ttl 1 s here).
    // Its branch goes last: until then git is still writing in the repository (which afterEach removes).
    for (let i = 0; i < 100 && (existsSync(cwd) || git('branch', '--list', `cli-subprocess-core/${id}`) !== ''); i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(existsSync(cwd)).toBe(false);
    expect(git('branch', '--list', `cli-subprocess-core/${id}`)).toBe('');
  });

  it('a run may run forever: past maxRunSeconds its CLI is stopped and its result is timed_out', async () => {
    worker = createWorker(store, { jobDefaults: { maxRunSeconds: 1 } });
    const id = await store.enqueueRun(replayJob(dir, 'thinking', { REPLAY_DELAY_MS: '400' }));
    const entries = await readAll(store.readRunEvents(id));
    expect(entries.find((entry) => entry.event.kind === 'error')?.event).toMatchObject({ payload: { code: 'timeout' } });
    expect(entries.at(-1)?.event).toMatchObject({ kind: 'result', payload: { status: 'timed_out' } });
  });

  it('one 30 MB run kept 78 MB for a day: past maxRunBytes the run is stopped with an output_limit error and a failed result', async () => {
    worker = createWorker(store, { jobDefaults: { maxRunBytes: 1500 } });
    const id = await store.enqueueRun(replayJob(dir, 'thinking'));
    const entries = await readAll(store.readRunEvents(id));
    const [error, result] = entries.slice(-2).map((entry) => entry.event);
    expect(error).toMatchObject({ kind: 'error', payload: { code: 'output_limit', severity: 'fatal' } });
    expect(result).toMatchObject({ kind: 'result', payload: { status: 'failed', stop_reason: 'output_limit' } });
    const stored = entries.slice(0, -2).reduce((bytes, entry) => bytes + Buffer.byteLength(JSON.stringify(entry.event)), 0);
    expect(stored).toBeLessThanOrEqual(1500);
  });
});
