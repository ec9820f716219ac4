/*
 * Captures real Gemini CLI sessions in Agent Client Protocol mode (`gemini --acp`: JSON-RPC 2.0,
 * one message a line on stdin/stdout) against the scripted Gemini endpoint.
 * Run from the project root: npx ts-node --transpile-only e2e/capture/session-gemini.ts [scenario…]
 *
 * Each scenario starts `gemini --acp` in a fresh HOME and cwd (startScriptedCli), drives it with
 * WireSession as an ACP client without file-system or terminal capabilities, and writes
 * test/fixtures/sessions/gemini/wire-<scenario>.jsonl (every line both ways, in order, timed) and
 * wire-<scenario>.requests.json (what the endpoint received for each agent model call, and what the
 * capture observed: files, processes, exits).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ScriptedTurn } from '../scripted/script';
import type { RecordedRequest } from '../scripted/server';
import { startScriptedCli, type ScriptedCli } from '../scripted/setup';
import { alive, arrow, cut, descendants, findSleeper, msUntil, recordSession, sleep, type Msg } from './capture-helpers';
import { captureAll, FIXTURES } from './run-cli';
import { WireSession, type WireLine } from './wire';

const OUT_DIR = join(FIXTURES, 'sessions', 'gemini');
const ARGS = ['--acp'];
const TURN_MS = 120_000;

/** One scenario: its script, and how to drive the session. */
interface Scenario {
  name: string;
  script: ScriptedTurn[];
  drive(s: Session): Promise<void>;
}

const isResponse = (id: number) => (m: Msg) => m.id === id && m.method === undefined;
const isPermission = (m: Msg) => m.method === 'session/request_permission';
const updateKind = (m: Msg) => (m.method === 'session/update' ? ((m.params as Msg).update as Msg).sessionUpdate : undefined);

/** A running capture: the CLI, its wire, and what was observed along the way. */
class Session {
  private nextId = 0;
  sessionId = '';
  readonly observed: Record<string, unknown> = {};
  private seen = 0;
  private readonly pump: NodeJS.Timeout;
  constructor(
    readonly cli: ScriptedCli,
    readonly wire: WireSession,
  ) {
    // Agent → client requests other than session/request_permission get "method not found".
    this.pump = setInterval(() => this.answerUnexpected(), 50);
  }

  stop(): void {
    clearInterval(this.pump);
  }

  private answerUnexpected(): void {
    const lines = this.wire.fromCli();
    for (; this.seen < lines.length; this.seen++) {
      const m = lines[this.seen] as Msg;
      if (typeof m !== 'object' || m === null || typeof m.method !== 'string' || m.id === undefined || isPermission(m)) continue;
      ((this.observed.unexpectedRequests ??= []) as unknown[]).push(m);
      this.wire.send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: `Method not found: ${m.method}` } });
    }
  }

  mark(): number {
    return this.wire.fromCli().length;
  }

  /** Sends a request; returns its id (the response comes later). */
  request(method: string, params: unknown): number {
    const id = this.nextId++;
    this.wire.send({ jsonrpc: '2.0', id, method, params });
    return id;
  }

  async call(method: string, params: unknown, timeoutMs = 60_000): Promise<Msg> {
    const from = this.mark();
    const id = this.request(method, params);
    return this.wire.waitFor(isResponse(id), timeoutMs, from);
  }

  notify(method: string, params: unknown): void {
    this.wire.send({ jsonrpc: '2.0', method, params });
  }

  /** initialize, then session/new. */
  async handshake(): Promise<void> {
    const init = await this.call('initialize', {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      clientInfo: { name: 'cli-subprocess-core-capture', version: '0.1.0' },
    });
    if (init.error) throw new Error(`initialize failed: ${JSON.stringify(init.error)}`);
    const created = await this.call('session/new', { cwd: this.cli.cwd, mcpServers: [] });
    if (created.error) throw new Error(`session/new failed: ${JSON.stringify(created.error)}`);
    this.sessionId = String((created.result as Msg).sessionId);
  }

  /** Sends session/prompt; returns its id and the wire mark from before it. */
  prompt(text: string): { id: number; from: number } {
    const from = this.mark();
    const id = this.request('session/prompt', { sessionId: this.sessionId, prompt: [{ type: 'text', text }] });
    return { id, from };
  }

  async promptResponse(p: { id: number; from: number }, timeoutMs = TURN_MS): Promise<Msg> {
    return this.wire.waitFor(isResponse(p.id), timeoutMs, p.from);
  }

  async turn(text: string): Promise<Msg> {
    return this.promptResponse(this.prompt(text));
  }

  cancel(): void {
    this.notify('session/cancel', { sessionId: this.sessionId });
  }

  async permissionRequest(from: number, timeoutMs = TURN_MS): Promise<Msg> {
    return this.wire.waitFor(isPermission, timeoutMs, from);
  }

  /** Answers a request_permission with the option of `kind`. */
  select(request: Msg, kind: string): void {
    const options = (request.params as Msg).options as Msg[];
    const option = options.find((o) => o.kind === kind);
    if (!option) throw new Error(`no option of kind ${kind}: ${JSON.stringify(options)}`);
    this.wire.send({ jsonrpc: '2.0', id: request.id, result: { outcome: { outcome: 'selected', optionId: option.optionId } } });
  }

  /** Asks for the slow answer and lets it stream for a second (to cancel it, or kill the CLI). */
  async slowAnswerUnderway(): Promise<{ id: number; from: number }> {
    const p = this.prompt('Answer slowly.');
    await this.wire.waitFor((m) => updateKind(m) === 'agent_message_chunk', TURN_MS, p.from);
    await sleep(1000);
    return p;
  }

  async quietFor(ms: number, from: number): Promise<Msg[]> {
    await sleep(ms);
    return this.wire.fromCli().slice(from) as Msg[];
  }
}

/** One part of a Gemini `contents` entry, summarized. */
function part(p: Msg): unknown {
  if (typeof p.text === 'string') return p.thought ? { thought: cut(p.text) } : { text: cut(p.text) };
  if (p.functionCall) return { functionCall: p.functionCall };
  if (p.functionResponse) {
    const fr = p.functionResponse as Msg;
    const response = JSON.stringify(fr.response ?? null);
    return { functionResponse: { id: fr.id, name: fr.name, response: response.length <= 2000 ? fr.response : cut(response, 2000) } };
  }
  return { keys: Object.keys(p) };
}

/** The agent model calls (streamGenerateContent) the endpoint received, summarized; side calls listed by route. */
function summarizeRequests(requests: readonly RecordedRequest[]): unknown[] {
  return requests.map((request, index) => {
    const body = request.body as Msg | null;
    if (!request.url.includes(':streamGenerateContent') || !body) return { index, url: request.url, side_call: true };
    const contents = ((body.contents as Msg[]) ?? []).map((c) => ({ role: c.role, parts: ((c.parts as Msg[]) ?? []).map(part) }));
    const tools = Array.isArray(body.tools)
      ? (body.tools as Msg[]).flatMap((t) => ((t.functionDeclarations as Msg[]) ?? []).map((f) => f.name))
      : [];
    return { index, url: request.url, tools, contents };
  });
}

const slowScript = (): ScriptedTurn[] => [
  { slowText: 'This answer streams very slowly. '.repeat(20), delayMs: 300 },
  { text: 'After the interrupt.' },
];

/** A file-writing tool call: its request_permission answered with the option of `kind`. */
function approvalScenario(name: string, kind: string, finalText: string): Scenario {
  return {
    name,
    script: [{ shell: 'touch made-by-tool.txt' }, { text: finalText }],
    drive: async (s) => {
      await s.handshake();
      const p = s.prompt('Create made-by-tool.txt.');
      const request = await s.permissionRequest(p.from);
      s.select(request, kind);
      s.observed.promptResponse = await s.promptResponse(p);
      s.observed.fileExists = existsSync(join(s.cli.cwd, 'made-by-tool.txt'));
    },
  };
}

const SCENARIOS: Scenario[] = [
  {
    name: 'plain',
    script: [{ text: 'Hello from the scripted model.' }],
    drive: async (s) => {
      await s.handshake();
      const response = await s.turn('Say hello.');
      s.observed.promptResponse = response;
    },
  },
  approvalScenario('allow', 'allow_once', 'I created the file.'),
  approvalScenario('deny', 'reject_once', 'I was not allowed to create the file.'),
  {
    name: 'two-turns',
    script: [{ text: 'The first answer.' }, { text: 'The second answer.' }],
    drive: async (s) => {
      await s.handshake();
      s.observed.firstResponse = await s.turn('Give the first answer.');
      s.observed.secondResponse = await s.turn('Give the second answer.');
    },
  },
  {
    name: 'interrupt-stream',
    script: slowScript(),
    drive: async (s) => {
      await s.handshake();
      const p = await s.slowAnswerUnderway();
      const cancelFrom = s.mark();
      const cancelAt = Date.now();
      s.cancel();
      s.observed.cancelledResponse = await s.promptResponse(p);
      s.observed.cancelledResponseAfterMs = Date.now() - cancelAt;
      s.observed.linesAfterCancel = (await s.quietFor(2000, cancelFrom)).length;
      s.observed.secondResponse = await s.turn('Say something after the interrupt.');
    },
  },
  {
    name: 'interrupt-tool',
    script: [{ shell: 'echo sleeping; sleep 300' }, { text: 'x' }, { text: 'After the interrupt.' }],
    drive: async (s) => {
      await s.handshake();
      const p = s.prompt('Run the sleeper.');
      s.observed.approvalAsked = false;
      const sleeper = await findSleeper(s.wire, p.from, TURN_MS, /bash|sh -c/, (m) => {
        if (isPermission(m)) {
          s.observed.approvalAsked = true;
          s.select(m, 'allow_once');
        }
      });
      s.observed.sleepProcess = sleeper;
      s.observed.treeBeforeInterrupt = descendants(s.wire.pid!);
      await sleep(500);
      const cancelAt = Date.now();
      s.cancel();
      s.observed.cancelledResponse = await s.promptResponse(p);
      s.observed.cancelledResponseAfterMs = Date.now() - cancelAt;
      s.observed.sleepGoneAfterMs = await msUntil(() => !alive(sleeper.pid), cancelAt, 10_000);
      s.observed.treeAfterInterrupt = descendants(s.wire.pid!);
      s.observed.secondResponse = await s.turn('Say something after the interrupt.');
      s.observed.sleepAliveAtEnd = alive(sleeper.pid);
    },
  },
  {
    name: 'interrupt-approval',
    script: [{ shell: 'touch made-by-tool.txt' }, { text: 'After the interrupt.' }],
    drive: async (s) => {
      await s.handshake();
      const p = s.prompt('Create made-by-tool.txt.');
      const request = await s.permissionRequest(p.from);
      await sleep(500);
      const cancelFrom = s.mark();
      s.cancel();
      // Without answering the pending request_permission: does the prompt end, is the request withdrawn?
      const after = await s.quietFor(5000, cancelFrom);
      const ended = after.find(isResponse(p.id));
      s.observed.promptEndedWithoutAnswer = ended ?? null;
      s.observed.linesAfterCancelWithoutAnswer = after.map((m) => m.method ?? (m.id !== undefined ? `response#${String(m.id)}` : '?'));
      // The ACP rule: the client answers every pending request_permission with outcome "cancelled".
      s.wire.send({ jsonrpc: '2.0', id: request.id, result: { outcome: { outcome: 'cancelled' } } });
      s.observed.cancelledResponse = ended ?? (await s.promptResponse(p));
      s.observed.fileExists = existsSync(join(s.cli.cwd, 'made-by-tool.txt'));
      s.observed.secondResponse = await s.turn('Say something after the interrupt.');
      s.observed.fileExistsAtEnd = existsSync(join(s.cli.cwd, 'made-by-tool.txt'));
    },
  },
  {
    name: 'kill',
    script: slowScript(),
    drive: async (s) => {
      await s.handshake();
      await s.slowAnswerUnderway();
      s.wire.kill();
      s.observed.exit = await s.wire.exited;
    },
  },
  {
    // Thought parts from the model: does ACP show them (agent_thought_chunk)?
    name: 'thinking',
    script: [{ thinking: 'Six times seven is forty-two.', text: 'The answer is 42.' }],
    drive: async (s) => {
      await s.handshake();
      s.observed.promptResponse = await s.turn('What is 6 times 7? Think first.');
    },
  },
  {
    // A shell command with no approval to ask (mode yolo): the tool_call / tool_call_update pair.
    name: 'tool-yolo',
    script: [{ shell: 'echo hello-from-tool' }, { text: 'The command printed hello-from-tool.' }],
    drive: async (s) => {
      await s.handshake();
      s.observed.setModeAnswer = await s.call('session/set_mode', { sessionId: s.sessionId, modeId: 'yolo' });
      s.observed.promptResponse = await s.turn('Run echo hello-from-tool.');
    },
  },
  {
    name: 'extra-messages',
    script: [{ text: 'Hello from the scripted model.' }],
    drive: async (s) => {
      await s.handshake();
      // An unknown method, an unknown notification, and a response to a request never made.
      s.observed.unknownMethodAnswer = await s.call('no_such/method', { sessionId: s.sessionId }, 5000).catch(() => null);
      const from = s.mark();
      s.notify('no_such/notification', { hello: 1 });
      s.wire.send({ jsonrpc: '2.0', id: 9999, result: { outcome: { outcome: 'cancelled' } } });
      s.observed.afterUnknownLines = await s.quietFor(2000, from);
      s.observed.setModeAnswer = await s.call('session/set_mode', { sessionId: s.sessionId, modeId: 'default' }, 5000).catch(() => null);
      s.observed.promptResponse = await s.turn('Say hello.');
    },
  },
];

async function capture(scenario: Scenario): Promise<void> {
  const cli = await startScriptedCli('gemini', scenario.script);
  const wire = new WireSession(cli.executable, ARGS, { cwd: cli.cwd, env: cli.env });
  const session = new Session(cli, wire);
  await recordSession({
    cli,
    wire,
    args: ARGS,
    outDir: OUT_DIR,
    scenario: scenario.name,
    observed: session.observed,
    drive: () => scenario.drive(session),
    stop: () => session.stop(),
    summarizeRequests,
    describeLine,
  });
}

/** `<< method/update kind#id`, or `<< result#id` / `<< error#id`. */
function describeLine(l: WireLine): string {
  const m = l.line as Msg;
  if (typeof m !== 'object' || m === null) return `${arrow(l.from)} text`;
  const kind = updateKind(m);
  if (m.method)
    return `${arrow(l.from)} ${String(m.method)}${kind ? `/${String(kind)}` : ''}${m.id !== undefined ? `#${String(m.id)}` : ''}`;
  return `${arrow(l.from)} ${m.error ? 'error' : 'result'}#${String(m.id)}`;
}

mkdirSync(OUT_DIR, { recursive: true });
captureAll(SCENARIOS, capture);
