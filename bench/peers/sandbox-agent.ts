/**
 * A session's warm turn and an interrupt over HTTP, beside a peer (#29): sandbox-agent 0.4.2 (Rivet's
 * server; Claude Code through its ACP adapter, `@zed-industries/claude-agent-acp` 0.20.0, the version
 * sandbox-agent 0.4.2 pins) and this library's `serve` (the in-process store, its data directory on
 * disk, as `serve` runs by default), both driving the same pinned Claude Code (e2e/node_modules), each
 * against a scripted Anthropic endpoint of its own on 127.0.0.1; and, for reference, `startSession`
 * in this process (what the `session` command runs).
 *   node -r ts-node/register/transpile-only bench/peers/sandbox-agent.ts [--json]
 *   npm run bench:peer            (the same)
 * Each contender opens one conversation and plays a first (cold) turn; then BENCH_PEER_ROUNDS rounds
 * (default 10), the contenders in a rotated order each round, so that a drift of the machine hits them
 * alike. In each round, on each contender's one conversation:
 * (a) a warm turn (the CLI already running): time from the message's POST to the first text delta on
 *     the event stream (sandbox-agent: a non-empty `agent_message_chunk` on `GET /v1/acp/:id`; here: an
 *     `assistant_delta` on `GET /sessions/:id/events`; the library: the first `assistant_delta`);
 * (b) a turn interrupted mid-answer (the endpoint streams 4 characters every 100 ms; the interrupt is
 *     sent 300 ms after the first text): the time for the interrupt request to answer (sandbox-agent's
 *     `session/cancel` POST, here `POST /sessions/:id/interrupt`; the library: `session.interrupt()`
 *     resolving, which waits for the turn's end), the time until the turn's end on the stream
 *     (sandbox-agent: the prompt's JSON-RPC answer, `stopReason: cancelled`; here: the turn's `result`);
 * (c) that the conversation then answers another turn (its first text timed as well).
 * Medians and the ratios ours/peer are reported; nothing is asserted (a shared machine's absolute
 * figures are noisy). The load average and the versions are printed with them.
 *
 * sandbox-agent is installed on first use with npm into a directory of its own
 * (BENCH_SANDBOX_AGENT_DIR, default `<tmpdir>/csc-bench-sandbox-agent-0.4.2`; about 130 MB: its 24 MB
 * binary and the ACP adapter, which bundles the Claude Agent SDK), not as a devDependency: only this
 * bench needs it, and `npm ci` should not fetch it for every install. The adapter is pointed at the
 * pinned Claude Code with CLAUDE_CODE_EXECUTABLE, and given Claude Code's environment in `session/new`'s
 * `_meta.claudeCode.options.env` (the Agent SDK replaces the environment with that option's: without it
 * Claude Code gets none and asks for a login).
 */
import 'reflect-metadata';
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSession, type AnyEvent, type Session } from '../../src';
import { startAnthropicEndpoint } from '../../e2e/scripted/anthropic';
import type { ScriptedTurn } from '../../e2e/scripted/script';
import { cliPath, E2E_BIN, pointCliAt } from '../../e2e/scripted/setup';
import { freePort } from '../../e2e/test/redis-server';
import type { ScriptedServer } from '../../e2e/scripted/server';
import { descendantsOf, isRunning, readStat } from '../../src/runner/process-table';
import { median } from '../measure';

const asJson = process.argv.includes('--json');
const ROUNDS = Number(process.env.BENCH_PEER_ROUNDS) || 10;
const PEER_VERSION = '0.4.2';
/** The ACP adapter sandbox-agent 0.4.2 installs for Claude Code (its adapters.json `pinnedVersion`). */
const ADAPTER = '@zed-industries/claude-agent-acp@0.20.0';
const PEER_DIR = process.env.BENCH_SANDBOX_AGENT_DIR || join(tmpdir(), `csc-bench-sandbox-agent-${PEER_VERSION}`);
const ROOT = join(__dirname, '..', '..');
/** A turn waits this long at most for what it waits for (a first text, its end): past it the bench fails. */
const WAIT_MS = 60_000;
/** After the interrupted turn's first text, the interrupt waits this long: the answer is mid-stream. */
const INTERRUPT_AFTER_MS = 300;
const log = (text: string) => process.stderr.write(`${text}\n`);

/** The prompts the bench sends, and what the endpoint answers each (by prompt: the peer's adapter makes model calls of its own, for titles). */
const PROMPTS = {
  cold: 'Say the first answer.',
  warm: 'Say the warm answer.',
  slow: 'Write a long answer.',
  after: 'Say the answer after the interrupt.',
} as const;

function answerTo(prompt: string): ScriptedTurn {
  switch (prompt) {
    case PROMPTS.cold:
      return { text: 'The first answer.' };
    case PROMPTS.warm:
      return { text: 'The warm answer.' };
    case PROMPTS.slow:
      // 4 characters every 100 ms: about 20 s, far longer than the interrupt waits.
      return { slowText: 'This answer streams slowly, piece by piece. '.repeat(20), delayMs: 100 };
    case PROMPTS.after:
      return { text: 'The answer after the interrupt.' };
    default:
      // The Agent SDK's own calls (a session's title).
      return { text: 'A title' };
  }
}

/** One round's figures of one contender, ms. */
interface RoundFigures {
  warmFirstText: number;
  /** Of the warm turn's first text: until the model call reached the endpoint (the host's way in: HTTP, queue, the CLI's stdin, the CLI's own work). */
  warmModelCall: number;
  /** Of the warm turn's first text, ours only: from serve reading Claude Code's line to the SSE client (ms resolution). */
  warmDelivery: number;
  interruptAnswered: number;
  interruptTurnEnded: number;
  afterFirstText: number;
}

/** A conversation the bench drives: each method resolves with the time it measured. */
interface Contender {
  readonly name: string;
  /** Sends `text`; resolves `{ firstText, ended }` ms from the send (at `sentAt`, performance.now()), once the turn ended. */
  turn(text: string): Promise<{ sentAt: number; firstText: number; ended: number; delivery?: number }>;
  /** Sends `text`, interrupts INTERRUPT_AFTER_MS after its first text; ms from the interrupt's sending. */
  interruptedTurn(text: string): Promise<{ answered: number; ended: number }>;
  close(): Promise<void>;
}

/** A waiter for the next stream message that `test` accepts. */
class Waiters<T> {
  private readonly waiting: { test: (message: T) => boolean; resolve: (at: number) => void }[] = [];

  /** Resolves with the time (performance.now()) of the first later message `test` accepts. */
  next(what: string, test: (message: T) => boolean): Promise<number> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${what} within ${WAIT_MS} ms`)), WAIT_MS);
      this.waiting.push({
        test,
        resolve: (at) => {
          clearTimeout(timer);
          resolve(at);
        },
      });
    });
  }

  offer(message: T): void {
    const at = performance.now();
    for (let index = 0; index < this.waiting.length; index++) {
      if (!this.waiting[index].test(message)) continue;
      this.waiting.splice(index--, 1)[0].resolve(at);
    }
  }
}

/** Reads the SSE stream at `url`, handing each message's data to `onData`, until `signal` aborts. */
async function followSse(url: string, headers: Record<string, string>, onData: (data: string) => void, signal: AbortSignal): Promise<void> {
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal });
  if (!response.ok || !response.body) throw new Error(`GET ${url}: ${response.status}`);
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = frame
            .split('\n')
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(5).trimStart())
            .join('\n');
          if (data !== '') onData(data);
        }
      }
    } catch {
      // Aborted at the end.
    }
  })();
}

async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function waitHealthy(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: the server exited (${child.exitCode})`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // Not listening yet.
    }
    await sleep(100);
  }
  throw new Error(`${url}: not healthy within ${WAIT_MS} ms`);
}

/**
 * Stops `child` and every process under it: a SIGTERMed sandbox-agent leaves its ACP adapters and their
 * Claude Codes running (orphans), and serve's CLIs are its own to stop, but a stray one would be counted.
 */
async function stopChild(child: ChildProcess): Promise<void> {
  const root = child.pid === undefined ? null : readStat(child.pid);
  const tree = root ? descendantsOf(root) : [];
  await stopProcess(child);
  for (const ref of tree) {
    try {
      if (isRunning(ref)) process.kill(ref.pid, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** The sandbox-agent binary and the ACP adapter's bin directory, installed with npm into PEER_DIR when missing. */
function installPeer(): { binary: string; adapterBin: string } {
  const binary = join(PEER_DIR, 'node_modules', '@sandbox-agent', `cli-${process.platform}-${process.arch}`, 'bin', 'sandbox-agent');
  const adapterBin = join(PEER_DIR, 'node_modules', '.bin');
  if (!existsSync(binary) || !existsSync(join(adapterBin, 'claude-agent-acp'))) {
    log(`installing sandbox-agent ${PEER_VERSION} and ${ADAPTER} into ${PEER_DIR}`);
    execFileSync(
      'npm',
      ['install', '--prefix', PEER_DIR, '--no-audit', '--no-fund', '--loglevel=error', `@sandbox-agent/cli@${PEER_VERSION}`, ADAPTER],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
  }
  return { binary, adapterBin };
}

/** Claude Code's environment against `server` (the e2e suite's), the same for every contender. */
function claudeEnv(home: string, server: ScriptedServer): Record<string, string> {
  return { ...pointCliAt('claude', home, server.url), CLAUDE_CODE_MAX_RETRIES: '1' };
}

/** A fresh home and cwd for one contender's Claude Code, removed at the end. */
function scratch(name: string): { home: string; cwd: string; remove(): void } {
  const home = mkdtempSync(join(tmpdir(), `csc-peer-${name}-home-`));
  const cwd = mkdtempSync(join(tmpdir(), `csc-peer-${name}-cwd-`));
  return { home, cwd, remove: () => [home, cwd].forEach((dir) => rmSync(dir, { recursive: true, force: true })) };
}

/** sandbox-agent: one ACP connection over its HTTP API (`POST`/`GET /v1/acp/:server`), one session. */
async function startPeer(server: ScriptedServer): Promise<Contender> {
  const { binary, adapterBin } = installPeer();
  const dirs = scratch('sandbox-agent');
  const port = await freePort();
  const child = spawn(binary, ['server', '--no-token', '--no-telemetry', '--host', '127.0.0.1', '--port', String(port)], {
    cwd: dirs.cwd,
    env: {
      // The adapter, then Claude Code: sandbox-agent finds both on PATH (nothing is downloaded).
      PATH: `${adapterBin}:${E2E_BIN}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      HOME: dirs.home,
      LANG: 'C.UTF-8',
      CLAUDE_CODE_EXECUTABLE: cliPath('claude'),
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr?.resume();
  const base = `http://127.0.0.1:${port}`;
  await waitHealthy(`${base}/v1/health`, child);
  const acp = `${base}/v1/acp/bench-${randomBytes(4).toString('hex')}`;
  const messages = new Waiters<Record<string, any>>();
  const reading = new AbortController();
  let id = 0;
  const request = async (method: string, params: unknown, query = ''): Promise<any> => {
    const answer = await postJson(`${acp}${query}`, { jsonrpc: '2.0', id: id++, method, params });
    const parsed = JSON.parse(answer.text);
    if (parsed.error) throw new Error(`${method}: ${JSON.stringify(parsed.error).slice(0, 500)}`);
    return parsed.result;
  };
  await request(
    'initialize',
    { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: 'csc-bench', version: '1' } },
    '?agent=claude',
  );
  await followSse(acp, {}, (data) => messages.offer(JSON.parse(data)), reading.signal);
  const claude = claudeEnv(dirs.home, server);
  const { sessionId } = await request('session/new', {
    cwd: dirs.cwd,
    mcpServers: [],
    _meta: { claudeCode: { options: { env: claude } } },
  });
  const isText = (message: Record<string, any>) =>
    message.method === 'session/update' &&
    message.params?.update?.sessionUpdate === 'agent_message_chunk' &&
    typeof message.params.update.content?.text === 'string' &&
    message.params.update.content.text !== '';
  const prompt = (text: string) => {
    const promptId = id++;
    const sent = performance.now();
    const ended = messages.next('prompt answer', (message) => message.id === promptId && ('result' in message || 'error' in message));
    void postJson(acp, { jsonrpc: '2.0', id: promptId, method: 'session/prompt', params: { sessionId, prompt: [{ type: 'text', text }] } });
    return { sent, ended };
  };
  return {
    name: 'sandbox-agent',
    async turn(text) {
      const firstText = messages.next('first text', isText);
      const { sent, ended } = prompt(text);
      return { sentAt: sent, firstText: (await firstText) - sent, ended: (await ended) - sent };
    },
    async interruptedTurn(text) {
      const firstText = messages.next('first text', isText);
      const { ended } = prompt(text);
      await firstText;
      await sleep(INTERRUPT_AFTER_MS);
      const sent = performance.now();
      const answer = await postJson(acp, { jsonrpc: '2.0', method: 'session/cancel', params: { sessionId } });
      const answered = performance.now() - sent;
      if (answer.status >= 300) throw new Error(`session/cancel: ${answer.status} ${answer.text}`);
      return { answered, ended: (await ended) - sent };
    },
    async close() {
      reading.abort();
      await stopChild(child);
      dirs.remove();
    },
  };
}

/** This library's `serve` (in-process store, a data directory), one session over its HTTP API. */
async function startOurs(server: ScriptedServer): Promise<Contender> {
  const dirs = scratch('serve');
  const dataDir = mkdtempSync(join(tmpdir(), 'csc-peer-serve-data-'));
  const token = randomBytes(24).toString('base64url');
  const port = await freePort();
  const args = ['-r', require.resolve('ts-node/register/transpile-only'), join(ROOT, 'src', 'cli', 'main.ts')];
  const options = ['serve', '--port', String(port), '--token', token, '--data-dir', dataDir, '--cwd', dirs.cwd, '--workspace', 'shared'];
  const child = spawn(process.execPath, [...args, ...options], {
    // Claude Code's environment is serve's: PATH (the pinned CLIs first), HOME and ANTHROPIC_* pass to its CLIs.
    env: {
      ...claudeEnv(dirs.home, server),
      PATH: `${E2E_BIN}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      TS_NODE_PROJECT: join(ROOT, 'tsconfig.json'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.resume();
  child.stderr?.resume();
  const base = `http://127.0.0.1:${port}`;
  const auth = { authorization: `Bearer ${token}` };
  await waitHealthy(`${base}/`, child);
  const opened = await postJson(`${base}/sessions`, { provider: 'claude' }, auth);
  if (opened.status !== 201) throw new Error(`POST /sessions: ${opened.status} ${opened.text}`);
  const session = `${base}/sessions/${JSON.parse(opened.text).id as string}`;
  const events = new Waiters<Record<string, any>>();
  const reading = new AbortController();
  const isText = (event: Record<string, any>) => event.kind === 'assistant_delta' && event.payload?.content !== '';
  /** Of the last text delta: ms from serve reading the CLI's line (the event's `timestamp`) to this client. */
  let delivery = NaN;
  await followSse(
    `${session}/events`,
    auth,
    (data) => {
      const event = JSON.parse(data);
      if (isText(event) && Number.isNaN(delivery)) delivery = Date.now() - Date.parse(event.timestamp);
      events.offer(event);
    },
    reading.signal,
  );
  const send = async (text: string) => {
    const sent = performance.now();
    const answer = await postJson(`${session}/messages`, { text }, auth);
    if (answer.status !== 202) throw new Error(`POST messages: ${answer.status} ${answer.text}`);
    return sent;
  };
  return {
    name: 'serve',
    async turn(text) {
      const firstText = events.next('first text', isText);
      const ended = events.next('result', (event) => event.kind === 'result');
      delivery = NaN;
      const sent = await send(text);
      const first = (await firstText) - sent;
      const firstDelivery = delivery;
      return { sentAt: sent, firstText: first, ended: (await ended) - sent, delivery: firstDelivery };
    },
    async interruptedTurn(text) {
      const firstText = events.next('first text', isText);
      const ended = events.next('result', (event) => event.kind === 'result');
      await send(text);
      await firstText;
      await sleep(INTERRUPT_AFTER_MS);
      const sent = performance.now();
      const answer = await postJson(`${session}/interrupt`, {}, auth);
      const answered = performance.now() - sent;
      if (answer.status !== 202) throw new Error(`POST interrupt: ${answer.status} ${answer.text}`);
      return { answered, ended: (await ended) - sent };
    },
    async close() {
      reading.abort();
      await stopChild(child);
      dirs.remove();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** `startSession` in this process: what the `session` command runs. */
async function startLibrary(server: ScriptedServer): Promise<Contender> {
  const dirs = scratch('session');
  const session: Session = startSession({
    provider: 'claude',
    executable: cliPath('claude'),
    cwd: dirs.cwd,
    env: claudeEnv(dirs.home, server),
    inheritEnv: false,
  });
  const events = new Waiters<AnyEvent>();
  void (async () => {
    for await (const event of session) events.offer(event);
  })();
  const isText = (event: AnyEvent) => event.kind === 'assistant_delta' && event.payload.content !== '';
  return {
    name: 'startSession',
    async turn(text) {
      const firstText = events.next('first text', isText);
      // The stream's `result`, not `send` resolving: the next turn's waiters must not take this one's.
      const ended = events.next('result', (event) => event.kind === 'result');
      const sent = performance.now();
      await session.send(text);
      return { sentAt: sent, firstText: (await firstText) - sent, ended: (await ended) - sent };
    },
    async interruptedTurn(text) {
      const firstText = events.next('first text', isText);
      const ended = events.next('result', (event) => event.kind === 'result');
      const turn = session.send(text).catch(() => undefined);
      await firstText;
      await sleep(INTERRUPT_AFTER_MS);
      const sent = performance.now();
      await session.interrupt();
      const answered = performance.now() - sent;
      const end = (await ended) - sent;
      await turn;
      return { answered, ended: end };
    },
    async close() {
      await session.close();
      dirs.remove();
    },
  };
}

function versionOf(file: string): string {
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

const round1 = (ms: number) => Math.round(ms * 10) / 10;

async function main(): Promise<void> {
  const servers: ScriptedServer[] = [];
  /** When each endpoint last received a model call, by prompt (performance.now()). */
  const callsOf = new Map<ScriptedServer, Map<string, number>>();
  const contenders: Contender[] = [];
  const load = loadavg();
  try {
    for (const start of [startPeer, startOurs, startLibrary]) {
      const calls = new Map<string, number>();
      const server = await startAnthropicEndpoint((prompt) => {
        calls.set(prompt, performance.now());
        return answerTo(prompt);
      });
      servers.push(server);
      callsOf.set(server, calls);
      const contender = await start(server);
      contenders.push(contender);
      const cold = await contender.turn(PROMPTS.cold);
      log(`${contender.name}: cold first turn, first text after ${round1(cold.firstText)} ms`);
    }
    const figures = new Map<string, RoundFigures[]>(contenders.map((contender) => [contender.name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      // Rotated: each contender goes first in turn.
      const order = contenders.map((_, index) => contenders[(index + round) % contenders.length]);
      for (const contender of order) {
        const warm = await contender.turn(PROMPTS.warm);
        const interrupted = await contender.interruptedTurn(PROMPTS.slow);
        const after = await contender.turn(PROMPTS.after);
        figures.get(contender.name)?.push({
          warmFirstText: warm.firstText,
          warmDelivery: warm.delivery ?? NaN,
          warmModelCall: (callsOf.get(servers[contenders.indexOf(contender)])?.get(PROMPTS.warm) ?? NaN) - warm.sentAt,
          interruptAnswered: interrupted.answered,
          interruptTurnEnded: interrupted.ended,
          afterFirstText: after.firstText,
        });
      }
      log(`round ${round + 1}/${ROUNDS} done`);
    }
    const medians = Object.fromEntries(
      [...figures].map(([name, rounds]) => [
        name,
        {
          warm_first_text_ms: round1(median(rounds.map((r) => r.warmFirstText))),
          warm_model_call_ms: round1(median(rounds.map((r) => r.warmModelCall))),
          ...(name === 'serve' ? { warm_line_to_client_ms: round1(median(rounds.map((r) => r.warmDelivery))) } : {}),
          interrupt_answered_ms: round1(median(rounds.map((r) => r.interruptAnswered))),
          interrupt_turn_ended_ms: round1(median(rounds.map((r) => r.interruptTurnEnded))),
          after_interrupt_first_text_ms: round1(median(rounds.map((r) => r.afterFirstText))),
          turns_after_interrupt_answered: rounds.length,
        },
      ]),
    );
    const ours = medians.serve;
    const peer = medians['sandbox-agent'];
    const ratio = (key: keyof typeof ours) => Math.round(((ours[key] as number) / (peer[key] as number)) * 100) / 100;
    const report = {
      date: new Date().toISOString(),
      machine: {
        cpus: cpus().length,
        cpu_model: cpus()[0]?.model ?? 'unknown',
        loadavg_at_start: load.map(round1),
        loadavg_at_end: loadavg().map(round1),
      },
      versions: {
        node: process.version,
        claude_code: versionOf(join(ROOT, 'e2e', 'node_modules', '@anthropic-ai', 'claude-code', 'package.json')),
        sandbox_agent: versionOf(join(PEER_DIR, 'node_modules', '@sandbox-agent', 'cli', 'package.json')),
        claude_agent_acp: versionOf(join(PEER_DIR, 'node_modules', '@zed-industries', 'claude-agent-acp', 'package.json')),
      },
      rounds: ROUNDS,
      medians,
      ours_over_peer: {
        warm_first_text: ratio('warm_first_text_ms'),
        warm_model_call: ratio('warm_model_call_ms'),
        interrupt_answered: ratio('interrupt_answered_ms'),
        interrupt_turn_ended: ratio('interrupt_turn_ended_ms'),
        after_interrupt_first_text: ratio('after_interrupt_first_text_ms'),
      },
      rounds_raw: Object.fromEntries(
        [...figures].map(([name, rounds]) => [
          name,
          rounds.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, round1(v)]))),
        ]),
      ),
    };
    if (asJson) {
      process.stdout.write(`${JSON.stringify(report)}\n`);
    } else {
      log(`\n${report.date}, ${report.machine.cpus} × ${report.machine.cpu_model}, load ${report.machine.loadavg_at_start.join(' ')}`);
      log(
        `Claude Code ${report.versions.claude_code}; sandbox-agent ${report.versions.sandbox_agent} (claude-agent-acp ${report.versions.claude_agent_acp}); ${ROUNDS} rounds, medians in ms:`,
      );
      log('contender        warm first text  (model call at)  interrupt answered  interrupted turn ended  after-interrupt first text');
      for (const [name, m] of Object.entries(medians))
        log(
          `${name.padEnd(16)} ${String(m.warm_first_text_ms).padStart(15)}  ${String(m.warm_model_call_ms).padStart(15)}  ${String(m.interrupt_answered_ms).padStart(18)}  ${String(m.interrupt_turn_ended_ms).padStart(22)}  ${String(m.after_interrupt_first_text_ms).padStart(26)}`,
        );
      log(`ours (serve) / sandbox-agent: ${JSON.stringify(report.ours_over_peer)}`);
    }
  } finally {
    for (const contender of contenders) await contender.close().catch(() => undefined);
    for (const server of servers) await server.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    log(`bench/peers/sandbox-agent.ts: ${(error as Error).stack ?? String(error)}`);
    process.exit(1);
  },
);
