/*
 * Captures real `codex app-server` sessions (JSON-RPC over stdio, one JSON object a line, no
 * "jsonrpc" field) against the scripted OpenAI Responses endpoint.
 * Usage (from the project root): npx ts-node --transpile-only e2e/capture/session-codex.ts [scenario…]
 * Each scenario runs the real pinned Codex once (`codex app-server`, cwd = a fresh temp dir, a
 * fresh CODEX_HOME) and writes, under test/fixtures/sessions/codex/:
 * - wire-<scenario>.jsonl: every line on the wire (WireSession format);
 * - wire-<scenario>.requests.json: what the endpoint received (each POST /v1/responses: its
 *   `input` items' types and texts, trimmed), which shows what the model was told;
 * - wire-<scenario>.notes.json: what the capture observed (files made, processes, exit).
 * Scenarios run one after another: only one Codex process at a time.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ResponsesTurn } from '../scripted/openai-responses';
import type { RecordedRequest } from '../scripted/server';
import { startScriptedCli, type ScriptedCli } from '../scripted/setup';
import { alive, msUntil, parentPids, sleep } from './capture-helpers';
import { FIXTURES } from './run-cli';
import { WireSession } from './wire';

const OUT_DIR = join(FIXTURES, 'sessions', 'codex');

/**
 * The thread settings every scenario uses: `untrusted` asks for every command (even `echo`);
 * with `on-request` or `never`, `touch` in the workspace runs without asking.
 */
const THREAD_SETTINGS = { approvalPolicy: 'untrusted', sandbox: 'workspace-write' } as const;

type Message = Record<string, unknown>;

/** A JSON-RPC client over one WireSession (ids counted from 0, no "jsonrpc" field). */
class AppServer {
  private nextId = 0;

  constructor(readonly wire: WireSession) {}

  /** Sends a request; resolves with its response message (`result` or `error`). */
  async request(method: string, params: unknown, timeoutMs = 60_000): Promise<Message> {
    const id = this.nextId++;
    const from = this.wire.fromCli().length;
    this.wire.send({ method, id, params });
    return this.wire.waitFor((m) => m.id === id && m.method === undefined && ('result' in m || 'error' in m), timeoutMs, from);
  }

  notify(method: string, params?: unknown): void {
    this.wire.send(params === undefined ? { method } : { method, params });
  }

  /** Answers a server request. */
  respond(id: unknown, result: unknown): void {
    this.wire.send({ id, result });
  }

  /** The first CLI message from index `after` with this method (and passing `test`). */
  waitMethod(method: string, after = 0, timeoutMs = 60_000, test: (m: Message) => boolean = () => true): Promise<Message> {
    return this.wire.waitFor((m) => m.method === method && test(m), timeoutMs, after);
  }

  mark(): number {
    return this.wire.fromCli().length;
  }
}

interface Context {
  cli: ScriptedCli;
  server: AppServer;
  notes: Record<string, unknown>;
  /** Run after the CLI has exited (stdin closed), before the endpoint closes. */
  afterClose: (() => void | Promise<void>)[];
}

interface Scenario {
  name: string;
  script: readonly ResponsesTurn[];
  run(ctx: Context): Promise<void>;
}

const params = (m: Message): Message => (m.params ?? {}) as Message;
const result = (m: Message): Message => (m.result ?? {}) as Message;

/** initialize → initialized → thread/start; answers the thread id. */
async function startThread(ctx: Context, capabilities: unknown = null): Promise<string> {
  const init = await ctx.server.request('initialize', {
    clientInfo: { name: 'cli-subprocess-core', title: 'cli-subprocess-core capture', version: '0.0.0' },
    capabilities,
  });
  if ('error' in init) throw new Error(`initialize failed: ${JSON.stringify(init.error)}`);
  ctx.server.notify('initialized');
  const started = await ctx.server.request('thread/start', { cwd: ctx.cli.cwd, ...THREAD_SETTINGS });
  if ('error' in started) throw new Error(`thread/start failed: ${JSON.stringify(started.error)}`);
  const thread = result(started).thread as Message;
  return thread.id as string;
}

function textInput(text: string): unknown[] {
  return [{ type: 'text', text, text_elements: [] }];
}

/** turn/start; answers the turn id (from the response) and the mark before it. */
async function startTurn(ctx: Context, threadId: string, text: string): Promise<{ turnId: string; mark: number }> {
  const mark = ctx.server.mark();
  const response = await ctx.server.request('turn/start', { threadId, input: textInput(text) });
  if ('error' in response) throw new Error(`turn/start failed: ${JSON.stringify(response.error)}`);
  const turn = result(response).turn as Message;
  return { turnId: turn.id as string, mark };
}

async function waitTurnCompleted(ctx: Context, turnId: string, mark: number, timeoutMs = 60_000): Promise<Message> {
  return ctx.server.waitMethod('turn/completed', mark, timeoutMs, (m) => (params(m).turn as Message | undefined)?.id === turnId);
}

function turnStatus(completed: Message): unknown {
  const turn = params(completed).turn as Message;
  return { status: turn.status, error: turn.error };
}

/** One plain turn that must complete. */
async function plainTurn(ctx: Context, threadId: string, text: string, key: string): Promise<void> {
  const { turnId, mark } = await startTurn(ctx, threadId, text);
  const done = await waitTurnCompleted(ctx, turnId, mark);
  ctx.notes[key] = turnStatus(done);
}

/**
 * The processes under `root` (by ppid in /proc), with their cmdlines. Not capture-helpers'
 * `descendants`: breadth first, long cmdlines cut, and a process whose cmdline is gone left out.
 */
function descendants(root: number): { pid: number; cmdline: string }[] {
  const children = new Map<number, number[]>();
  for (const [pid, ppid] of parentPids()) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  const found: { pid: number; cmdline: string }[] = [];
  const queue = [...(children.get(root) ?? [])];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    let cmdline = '';
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
    } catch {
      continue;
    }
    // The sandbox launcher's cmdline holds a whole shell script: its head is enough.
    found.push({ pid, cmdline: cmdline.length > 160 ? `${cmdline.slice(0, 160)}…` : cmdline });
    queue.push(...(children.get(pid) ?? []));
  }
  return found;
}

const SHELL_SCRIPT: readonly ResponsesTurn[] = [{ shell: 'touch made-by-tool.txt' }, { text: 'I created the file.' }];
const PATCH = '*** Begin Patch\n*** Add File: note.txt\n+a note written by apply_patch\n*** End Patch\n';
const PATCH_SCRIPT: readonly ResponsesTurn[] = [{ patch: PATCH }, { text: 'done' }];
const SLOW_TEXT = 'This answer streams very slowly. '.repeat(20);

/** A turn whose one tool call asks for approval, answered with `decision`. */
function approvalScenario(
  name: string,
  script: readonly ResponsesTurn[],
  method: string,
  decision: string,
  prompt: string,
  file: string,
): Scenario {
  return {
    name,
    script,
    async run(ctx) {
      const threadId = await startThread(ctx);
      const { turnId, mark } = await startTurn(ctx, threadId, prompt);
      const asked = await ctx.server.wire.waitFor(
        (m) => typeof m.method === 'string' && m.id !== undefined && (m.method as string).includes('requestApproval'),
        60_000,
        mark,
      );
      ctx.notes.approvalMethod = asked.method;
      if (asked.method !== method) ctx.notes.unexpectedApproval = asked;
      ctx.server.respond(asked.id, { decision });
      const done = await waitTurnCompleted(ctx, turnId, mark);
      ctx.notes.turn = turnStatus(done);
      ctx.notes[`${file}Exists`] = existsSync(join(ctx.cli.cwd, file));
      if (existsSync(join(ctx.cli.cwd, file))) ctx.notes[`${file}Content`] = readFileSync(join(ctx.cli.cwd, file), 'utf8');
    },
  };
}

const SCENARIOS: Scenario[] = [
  {
    name: 'plain',
    script: [{ text: 'Hello from the scripted model.' }],
    async run(ctx) {
      const threadId = await startThread(ctx);
      await plainTurn(ctx, threadId, 'Say hello.', 'turn');
    },
  },
  approvalScenario(
    'allow',
    SHELL_SCRIPT,
    'item/commandExecution/requestApproval',
    'accept',
    'Create made-by-tool.txt.',
    'made-by-tool.txt',
  ),
  approvalScenario(
    'deny',
    SHELL_SCRIPT,
    'item/commandExecution/requestApproval',
    'decline',
    'Create made-by-tool.txt.',
    'made-by-tool.txt',
  ),
  // `cancel`: what the third decision does (it also interrupts the turn).
  approvalScenario(
    'cancel',
    SHELL_SCRIPT,
    'item/commandExecution/requestApproval',
    'cancel',
    'Create made-by-tool.txt.',
    'made-by-tool.txt',
  ),
  approvalScenario('patch-allow', PATCH_SCRIPT, 'item/fileChange/requestApproval', 'accept', 'Write note.txt.', 'note.txt'),
  approvalScenario('patch-deny', PATCH_SCRIPT, 'item/fileChange/requestApproval', 'decline', 'Write note.txt.', 'note.txt'),
  {
    name: 'two-turns',
    script: [{ text: 'The first answer.' }, { text: 'The second answer.' }],
    async run(ctx) {
      const threadId = await startThread(ctx);
      await plainTurn(ctx, threadId, 'Give the first answer.', 'turn1');
      await plainTurn(ctx, threadId, 'Give the second answer.', 'turn2');
    },
  },
  {
    name: 'interrupt-stream',
    script: [{ slowText: SLOW_TEXT, delayMs: 300 }, { text: 'After the interrupt.' }],
    async run(ctx) {
      const threadId = await startThread(ctx);
      const { turnId, mark } = await startTurn(ctx, threadId, 'Write a long answer.');
      await ctx.server.waitMethod('item/agentMessage/delta', mark);
      const interrupted = await ctx.server.request('turn/interrupt', { threadId, turnId });
      ctx.notes.interruptResponse = interrupted;
      const done = await waitTurnCompleted(ctx, turnId, mark, 30_000);
      ctx.notes.interruptedTurn = turnStatus(done);
      await plainTurn(ctx, threadId, 'Say something after the interrupt.', 'nextTurn');
    },
  },
  {
    name: 'interrupt-tool',
    script: [{ shell: 'echo sleeping; sleep 300' }, { text: 'x' }, { text: 'After the interrupt.' }],
    run: (ctx) => interruptTool(ctx, false),
  },
  {
    // The same, with the experimental API on: `thread/backgroundTerminals/list` and `/clean` after the interrupt.
    name: 'interrupt-tool-clean',
    script: [{ shell: 'echo sleeping; sleep 300' }, { text: 'x' }, { text: 'After the interrupt.' }],
    run: (ctx) => interruptTool(ctx, true),
  },
  {
    name: 'interrupt-approval',
    script: [{ shell: 'touch made-by-tool.txt' }, { text: 'After the interrupt.' }],
    async run(ctx) {
      const threadId = await startThread(ctx);
      const { turnId, mark } = await startTurn(ctx, threadId, 'Create made-by-tool.txt.');
      const asked = await ctx.server.waitMethod('item/commandExecution/requestApproval', mark);
      ctx.notes.pendingRequestId = asked.id;
      const beforeInterrupt = ctx.server.mark();
      const interrupted = await ctx.server.request('turn/interrupt', { threadId, turnId });
      ctx.notes.interruptResponse = interrupted;
      const done = await waitTurnCompleted(ctx, turnId, mark, 30_000);
      ctx.notes.interruptedTurn = turnStatus(done);
      await sleep(1_000);
      const after = ctx.server.wire.fromCli().slice(beforeInterrupt) as Message[];
      ctx.notes.methodsAfterInterrupt = after.map((m) => m.method ?? `response#${String(m.id)}`);
      ctx.notes.serverRequestResolved = after.filter((m) => m.method === 'serverRequest/resolved');
      // The stale request, answered late: does Codex object?
      const beforeLate = ctx.server.mark();
      ctx.server.respond(asked.id, { decision: 'cancel' });
      await sleep(1_500);
      ctx.notes.afterLateAnswer = ctx.server.wire.fromCli().slice(beforeLate);
      ctx.notes.fileExistsAfterInterrupt = existsSync(join(ctx.cli.cwd, 'made-by-tool.txt'));
      await plainTurn(ctx, threadId, 'Say something after the interrupt.', 'nextTurn');
      ctx.notes.fileExistsAtEnd = existsSync(join(ctx.cli.cwd, 'made-by-tool.txt'));
    },
  },
  {
    // Reasoning summary deltas: a model answer with a reasoning item first.
    name: 'reasoning',
    script: [{ thinking: 'Six times seven is forty-two.', text: 'The answer is 42.' }],
    async run(ctx) {
      const threadId = await startThread(ctx);
      await plainTurn(ctx, threadId, 'What is 6 times 7? Think first.', 'turn');
    },
  },
  {
    // A read-only command with output: does `untrusted` ask for it, and how does its output stream?
    name: 'shell-output',
    script: [{ shell: 'echo hello-from-tool' }, { text: 'The command printed hello-from-tool.' }],
    async run(ctx) {
      const threadId = await startThread(ctx);
      const { turnId, mark } = await startTurn(ctx, threadId, 'Run echo hello-from-tool.');
      const asked: unknown[] = [];
      const done = await Promise.race([
        waitTurnCompleted(ctx, turnId, mark),
        ctx.server.waitMethod('item/commandExecution/requestApproval', mark).then((m) => {
          asked.push(m.params);
          ctx.server.respond(m.id, { decision: 'accept' });
          return waitTurnCompleted(ctx, turnId, mark);
        }),
      ]);
      ctx.notes.askedForApproval = asked.length > 0;
      ctx.notes.turn = turnStatus(done);
    },
  },
  {
    // The API answers 400: how a failed turn ends.
    name: 'api-error',
    script: [{ httpError: 400, message: 'Invalid request: scripted bad request.' }, { text: 'Hello after the error.' }],
    async run(ctx) {
      const threadId = await startThread(ctx);
      await plainTurn(ctx, threadId, 'Say hello.', 'failedTurn');
      await plainTurn(ctx, threadId, 'Say hello again.', 'nextTurn');
    },
  },
  {
    name: 'kill',
    script: [{ slowText: SLOW_TEXT, delayMs: 300 }],
    async run(ctx) {
      const threadId = await startThread(ctx);
      const { mark } = await startTurn(ctx, threadId, 'Write a long answer.');
      await ctx.server.waitMethod('item/agentMessage/delta', mark);
      const root = ctx.server.wire.pid as number;
      const tree = descendants(root);
      ctx.notes.processTree = [{ pid: root, cmdline: 'node …/@openai/codex/bin/codex.js app-server (the npm launcher)' }, ...tree];
      const native = tree.find((p) => / app-server$/.test(p.cmdline));
      // SIGKILL the native Codex process (the one speaking the protocol).
      const target = native?.pid ?? root;
      ctx.notes.killed = { pid: target, which: native ? 'native codex binary' : 'launcher' };
      process.kill(target, 'SIGKILL');
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve('launcher still running after 10 s'), 10_000);
      });
      const exit = await Promise.race([ctx.server.wire.exited, late]);
      clearTimeout(timer);
      ctx.notes.launcherExit = exit;
      await sleep(500);
    },
  },
];

/** Waits up to `ms` for `pid` to be gone; answers after how long (null: still alive). */
async function goneWithin(pid: number, ms: number): Promise<number | null> {
  const from = Date.now();
  // A last look after the deadline: gone in the last poll still counts.
  return (await msUntil(() => !alive(pid), from, ms, 50)) ?? (alive(pid) ? null : Date.now() - from);
}

/** Accepts `echo sleeping; sleep 300`, interrupts the turn once `sleep 300` runs, and watches that process. */
async function interruptTool(ctx: Context, clean: boolean): Promise<void> {
  const threadId = await startThread(ctx, clean ? { experimentalApi: true, requestAttestation: false } : null);
  const { turnId, mark } = await startTurn(ctx, threadId, 'Run a long command.');
  const asked = await ctx.server.waitMethod('item/commandExecution/requestApproval', mark);
  ctx.server.respond(asked.id, { decision: 'accept' });
  const root = ctx.server.wire.pid as number;
  let sleeper: { pid: number; cmdline: string } | undefined;
  for (let i = 0; i < 150 && sleeper === undefined; i++) {
    sleeper = descendants(root).find((p) => /(^|\/)sleep 300$/.test(p.cmdline));
    if (sleeper === undefined) await sleep(200);
  }
  if (sleeper === undefined) throw new Error('no sleep 300 process appeared under codex');
  const pid = sleeper.pid;
  ctx.notes.processTreeBeforeInterrupt = descendants(root);
  ctx.notes.sleepProcess = sleeper;
  ctx.afterClose.push(async () => {
    ctx.notes.sleepGoneAfterCliExitMs = await goneWithin(pid, 3_000);
    if (alive(pid)) {
      // Ours (started by our Codex): never left behind.
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  });
  const interrupted = await ctx.server.request('turn/interrupt', { threadId, turnId });
  ctx.notes.interruptResponse = interrupted;
  const done = await waitTurnCompleted(ctx, turnId, mark, 30_000);
  ctx.notes.interruptedTurn = turnStatus(done);
  ctx.notes.sleepGoneAfterInterruptMs = await goneWithin(pid, 5_000);
  ctx.notes.processTreeAfterInterrupt = descendants(root);
  if (clean) {
    ctx.notes.backgroundTerminalsList = await ctx.server.request('thread/backgroundTerminals/list', { threadId });
    ctx.notes.backgroundTerminalsClean = await ctx.server.request('thread/backgroundTerminals/clean', { threadId });
    ctx.notes.sleepGoneAfterCleanMs = await goneWithin(pid, 5_000);
  }
  await plainTurn(ctx, threadId, 'Say something after the interrupt.', 'nextTurn');
  ctx.notes.sleepAliveAfterNextTurn = alive(pid);
}

/** A request's `input` items, trimmed to what shows what the model was told. */
function summarizeRequests(requests: readonly RecordedRequest[]): unknown[] {
  return requests.map((request) => {
    const body = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Message;
    if (!(request.method === 'POST' && request.url.split('?')[0].endsWith('/responses')))
      return { method: request.method, url: request.url };
    const input = Array.isArray(body.input) ? (body.input as Message[]) : [];
    return {
      method: request.method,
      url: request.url,
      model: body.model,
      tools: Array.isArray(body.tools) ? (body.tools as Message[]).map((t) => t.name ?? t.type) : undefined,
      input: input.map(summarizeItem),
    };
  });
}

function trim(text: unknown, max = 240): unknown {
  if (typeof text !== 'string') return text;
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}

/** Developer instructions and the context blocks Codex adds (`<environment_context>`, …). */
function isInjected(text: unknown): boolean {
  return typeof text === 'string' && (text.startsWith('<') || text.length > 2_000 || text.startsWith('You are Codex'));
}

function summarizeItem(item: Message): unknown {
  const out: Message = { type: item.type };
  if (item.role !== undefined) out.role = item.role;
  if (Array.isArray(item.content)) {
    // The user turn's own text stays whole; injected context (instructions, environment) is trimmed.
    out.content = (item.content as Message[]).map((part) => ({
      type: part.type,
      text: trim(part.text, isInjected(part.text) ? 240 : 2_000),
    }));
  }
  for (const key of ['name', 'call_id', 'arguments', 'input', 'status']) if (item[key] !== undefined) out[key] = trim(item[key], 1_000);
  if (item.output !== undefined) out.output = typeof item.output === 'string' ? trim(item.output, 2_000) : item.output;
  if (Array.isArray(item.summary)) out.summary = item.summary;
  return out;
}

async function capture(scenario: Scenario): Promise<void> {
  const cli = await startScriptedCli('codex', scenario.script);
  const wire = new WireSession(cli.executable, ['app-server'], { cwd: cli.cwd, env: cli.env });
  const ctx: Context = { cli, server: new AppServer(wire), notes: {}, afterClose: [] };
  let failure: unknown;
  try {
    await scenario.run(ctx);
  } catch (error) {
    failure = error;
    ctx.notes.error = String(error);
  } finally {
    if (scenario.name !== 'kill') ctx.notes.exit = await wire.close(10_000);
    for (const hook of ctx.afterClose) await hook();
    wire.kill();
    await sleep(200);
    mkdirSync(OUT_DIR, { recursive: true });
    wire.save(join(OUT_DIR, `wire-${scenario.name}.jsonl`));
    writeFileSync(
      join(OUT_DIR, `wire-${scenario.name}.requests.json`),
      JSON.stringify(summarizeRequests(cli.server.requests), null, 2) + '\n',
    );
    writeFileSync(join(OUT_DIR, `wire-${scenario.name}.notes.json`), JSON.stringify(ctx.notes, null, 2) + '\n');
    await cli.close();
  }
  process.stdout.write(`wire-${scenario.name}: ${failure === undefined ? 'ok' : `FAILED ${String(failure)}`}\n`);
  if (failure !== undefined) process.exitCode = 1;
}

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((name) => !SCENARIOS.some((s) => s.name === name));
  if (unknown.length > 0) throw new Error(`unknown scenario(s): ${unknown.join(', ')}; known: ${SCENARIOS.map((s) => s.name).join(', ')}`);
  for (const scenario of SCENARIOS) {
    if (wanted.length === 0 || wanted.includes(scenario.name)) await capture(scenario);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exitCode = 1;
});
