/*
 * The finding "a request's model became a CLI flag", with the real Qwen Code (0.15.10, yargs).
 *
 * A session of Qwen runs `qwen --acp --model <model>`. A model such as
 * `--mcp-config={"mcpServers":{"p":{"command":"/bin/sh","args":["-c","…"]}}}` placed there was read
 * by Qwen as a flag of its own: it configured a stdio MCP server, which Qwen starts at `session/new`,
 * so the shell command ran although the request said `approvals: "deny"` (`--yolo` likewise turned
 * on Qwen's approve-everything mode). The control test shows that on the pinned Qwen itself, with
 * the old argv; the others show that `refuseFlagLike` (src/runner/argument-value.ts) now stops such a
 * model before anything is spawned: `startSession` throws a TypeError, and the runs API answers 400,
 * queues nothing and starts nothing, while an ordinary request still runs Qwen to a completed result.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRunsHandler, createWorker, openRunStore, startSession, type AnyEvent, type RunStore } from '../../src';
import { descendantsOf, readStat } from '../../src/runner/process-table';
import { startScriptedCli, type ScriptedCli } from '../scripted/setup';
import { commandLine, waitFor } from './harness';

/** The principal of the one token the served API has. */
const PRINCIPAL = 'default';
/**
 * How long a check that nothing happened waits before looking for the marker: longer than Qwen takes
 * to start and run the injected command (5-10 s from its spawn with the guard removed, on 2 loaded
 * cores). The process watch is what catches a spawn however slow Qwen is; the marker is the harm.
 */
const FAIR_WAIT_MS = 15_000;

/** The model of the finding: an MCP server whose command writes `marker`. */
function mcpConfigModel(marker: string): string {
  return `--mcp-config=${JSON.stringify({ mcpServers: { p: { command: '/bin/sh', args: ['-c', `id > ${marker}`] } } })}`;
}

/** The command lines of this process's descendants that are Qwen or the injected command. */
function qwenProcesses(cli: ScriptedCli): string[] {
  const self = readStat(process.pid);
  if (!self) return [];
  return descendantsOf(self)
    .map((ref) => commandLine(ref.pid))
    .filter((line) => line.includes(cli.executable) || line.includes('qwen-code') || line.includes('id > '));
}

/** Every Qwen (or injected) process this process had, polled every 50 ms until `stop()`. */
function watchProcesses(cli: ScriptedCli): { readonly seen: Set<string>; stop(): void } {
  const seen = new Set<string>();
  const poll = () => {
    for (const line of qwenProcesses(cli)) seen.add(line);
  };
  poll();
  const timer = setInterval(poll, 50);
  return { seen, stop: () => clearInterval(timer) };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A POST to the runs API from this process, as a client holding the token sends it. */
async function post(url: string, token: string, body: unknown): Promise<{ status: number; body: string }> {
  const answer = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  return { status: answer.status, body: await answer.text() };
}

/** A run's events as the API streams them (SSE), read to the stream's end. */
function readEvents(url: string, token: string): Promise<AnyEvent[]> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(url, { headers: { authorization: `Bearer ${token}` } }, (response) => {
      if (response.statusCode !== 200) return reject(new Error(`GET ${url} answered ${response.statusCode}`));
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => {
        const messages = text.split('\n\n').filter((message) => !/^event: /m.test(message));
        resolve(
          messages.flatMap((message) =>
            message
              .split('\n')
              .filter((line) => line.startsWith('data: '))
              .map((line) => JSON.parse(line.slice(6)) as AnyEvent),
          ),
        );
      });
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** The runs API over an in-process store, served on 127.0.0.1 at a free port, its runs on the scripted Qwen. */
interface Served {
  readonly base: string;
  readonly token: string;
  readonly store: RunStore;
  readonly errors: unknown[];
  close(): Promise<void>;
}

async function serveRuns(cli: ScriptedCli): Promise<Served> {
  const store = openRunStore();
  const worker = createWorker(store, { jobDefaults: { workspace: 'shared' } });
  const token = randomBytes(24).toString('hex');
  const errors: unknown[] = [];
  const handle = createRunsHandler(store, {
    token,
    jobDefaults: { cwd: cli.cwd, executable: cli.executable, env: cli.env },
    onError: (error) => errors.push(error),
  });
  const server: Server = createServer((request, response) => {
    handle(request, response).then(
      (handled) => {
        if (handled) return;
        response.writeHead(404);
        response.end();
      },
      (error: Error) => response.destroy(error),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    token,
    store,
    errors,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await worker.close();
      await store.close();
    },
  };
}

describe('with the real Qwen Code, a `--mcp-config=` model starts nothing and runs nothing', () => {
  /** Cleanups of the running test, run last first. */
  const cleanups: (() => Promise<void> | void)[] = [];
  let dir: string;
  let marker: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'qwen-security-'));
    marker = join(dir, 'pwned');
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function scriptedQwen(script: Parameters<typeof startScriptedCli>[1]): Promise<ScriptedCli> {
    const cli = await startScriptedCli('qwen', script);
    cleanups.push(() => cli.close());
    return cli;
  }

  it('control: the old argv `qwen --acp --model --mcp-config=…` makes Qwen run the shell command at session/new', async () => {
    const cli = await scriptedQwen([{ text: 'Never asked for.' }]);
    // What the library used to spawn for `startSession({ provider: 'qwen', model })`.
    const child: ChildProcess = spawn(cli.executable, ['--acp', '--model', mcpConfigModel(marker)], {
      cwd: cli.cwd,
      env: cli.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    cleanups.push(async () => {
      // Qwen and anything it started (its group, by the pid of the one we spawned).
      if (child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(-(child.pid as number), 'SIGKILL');
        } catch {
          // already gone
        }
        await exited;
      }
    });
    const answers = new Map<number, Record<string, unknown>>();
    let buffered = '';
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        try {
          const message = JSON.parse(line) as Record<string, unknown>;
          if (typeof message.id === 'number' && message.method === undefined) answers.set(message.id, message);
        } catch {
          // not JSON-RPC
        }
      }
    });
    child.stderr?.resume();
    const send = (message: Record<string, unknown>) => child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);

    // The handshake src/protocols/acp.ts sends.
    send({
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        clientInfo: { name: 'cli-subprocess-core', version: '0' },
      },
    });
    expect(await waitFor('the answer to initialize', () => answers.get(0))).toHaveProperty('result');
    send({ id: 1, method: 'session/new', params: { cwd: cli.cwd, mcpServers: [] } });
    expect(await waitFor('the answer to session/new', () => answers.get(1))).toHaveProperty('result.sessionId');

    // Qwen took the model for a flag: it started the configured MCP server, which ran the command.
    await waitFor('the marker written by the injected command', () => existsSync(marker), 30_000);
    expect(readFileSync(marker, 'utf8')).toMatch(/^uid=\d+/);
    // No prompt was sent: the model endpoint was never called.
    expect(cli.server.requests.filter((request) => request.url.includes('/chat/completions'))).toEqual([]);
  });

  it('startSession refuses the model with a TypeError naming it, before any process starts', async () => {
    const cli = await scriptedQwen([{ text: 'Never asked for.' }]);
    const watch = watchProcesses(cli);
    cleanups.push(() => watch.stop());
    for (const model of [mcpConfigModel(marker), '--yolo']) {
      let thrown: unknown;
      try {
        const session = startSession({
          provider: 'qwen',
          cwd: cli.cwd,
          executable: cli.executable,
          env: cli.env,
          approvals: 'deny',
          model,
        });
        cleanups.push(() => session.close().then(() => undefined));
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(TypeError);
      expect((thrown as TypeError).message).toContain('model must not start with "-"');
      expect((thrown as TypeError).message).toContain(JSON.stringify(model));
    }
    await sleep(FAIR_WAIT_MS);
    watch.stop();
    expect(existsSync(marker)).toBe(false);
    expect([...watch.seen]).toEqual([]);
    expect(cli.server.requests).toEqual([]);
  });

  it('the runs API answers 400 to that model and to `--yolo`, queues nothing and starts nothing', async () => {
    const cli = await scriptedQwen([{ text: 'Never asked for.' }]);
    const served = await serveRuns(cli);
    cleanups.push(() => served.close());
    const watch = watchProcesses(cli);
    cleanups.push(() => watch.stop());

    for (const model of [mcpConfigModel(marker), '--yolo']) {
      const answer = await post(`${served.base}/runs`, served.token, { provider: 'qwen', prompt: 'hi', approvals: 'deny', model });
      expect(answer.status).toBe(400);
      expect((JSON.parse(answer.body) as { error: string }).error).toContain('model must not start with "-"');
    }
    expect(await served.store.countRuns(PRINCIPAL)).toEqual({ waiting: 0, owned: 0 });
    await sleep(FAIR_WAIT_MS);
    watch.stop();
    expect(existsSync(marker)).toBe(false);
    expect([...watch.seen]).toEqual([]);
    expect(cli.server.requests).toEqual([]);
    expect(await served.store.countRuns(PRINCIPAL)).toEqual({ waiting: 0, owned: 0 });
    expect(served.errors).toEqual([]);
  });

  it('the same API still runs an ordinary request (no model) on the real Qwen to a completed result', async () => {
    const cli = await scriptedQwen([{ text: 'Hello from the scripted model.' }]);
    const served = await serveRuns(cli);
    cleanups.push(() => served.close());
    const watch = watchProcesses(cli);
    cleanups.push(() => watch.stop());

    const answer = await post(`${served.base}/runs`, served.token, { provider: 'qwen', prompt: 'Say hello.', approvals: 'deny' });
    expect(answer.status).toBe(201);
    const { id } = JSON.parse(answer.body) as { id: string };
    const events = await readEvents(`${served.base}/runs/${encodeURIComponent(id)}/events`, served.token);
    watch.stop();

    const result = events.find((event) => event.kind === 'result');
    expect(result?.payload).toMatchObject({ status: 'completed', output: 'Hello from the scripted model.' });
    expect(events.filter((event) => event.kind === 'run_started')).toHaveLength(1);
    // The real Qwen answered (the process watch that saw nothing above does see it here).
    expect([...watch.seen].some((line) => line.includes('qwen'))).toBe(true);
    expect(cli.server.requests.some((request) => request.url.includes('/chat/completions'))).toBe(true);
    expect(await served.store.countRuns(PRINCIPAL)).toEqual({ waiting: 0, owned: 0 });
    expect(served.errors).toEqual([]);
  });
});
