/*
 * Captures real Claude Code sessions in stream-json control mode (the interactive protocol:
 * JSON lines both ways on stdin/stdout) against the scripted Anthropic endpoint.
 * Run from the project root: npx ts-node --transpile-only e2e/capture/session-claude.ts [scenario…]
 *
 * Each scenario starts `claude -p --input-format stream-json --output-format stream-json --verbose
 * --permission-prompt-tool stdio --include-partial-messages` (plain-no-partial: without the last)
 * in a fresh HOME and cwd (startScriptedCli), drives it with WireSession and writes
 * test/fixtures/sessions/claude/wire-<scenario>.jsonl (every line both ways, in order, timed) and
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

const OUT_DIR = join(FIXTURES, 'sessions', 'claude');
const BASE_ARGS = [
  '-p',
  '--input-format',
  'stream-json',
  '--output-format',
  'stream-json',
  '--verbose',
  '--permission-prompt-tool',
  'stdio',
];
const TURN_MS = 90_000;

/** One scenario: its script, and how to drive the session. */
interface Scenario {
  name: string;
  script: ScriptedTurn[];
  partial?: boolean;
  /** Leave out `--permission-prompt-tool stdio`. */
  noPromptTool?: boolean;
  drive(s: Session): Promise<void>;
}

/** A running capture: the CLI, its wire, and what was observed along the way. */
class Session {
  private nextReq = 1;
  readonly observed: Record<string, unknown> = {};
  constructor(
    readonly cli: ScriptedCli,
    readonly wire: WireSession,
  ) {}

  /** Index of the next CLI line (to wait for what comes after now). */
  mark(): number {
    return this.wire.fromCli().length;
  }

  /** Sends a control_request; resolves with its control_response. */
  async control(request: Msg, timeoutMs = 30_000): Promise<Msg> {
    const requestId = `req_${this.nextReq++}`;
    const from = this.mark();
    this.wire.send({ type: 'control_request', request_id: requestId, request });
    return this.wire.waitFor(
      (m) => m.type === 'control_response' && (m.response as Msg | undefined)?.request_id === requestId,
      timeoutMs,
      from,
    );
  }

  /** Sends a control_request without waiting. */
  controlNoWait(request: Msg): string {
    const requestId = `req_${this.nextReq++}`;
    this.wire.send({ type: 'control_request', request_id: requestId, request });
    return requestId;
  }

  async initialize(): Promise<Msg> {
    return this.control({ subtype: 'initialize', hooks: null });
  }

  /** Sends a user line; returns the wire mark from before it. */
  user(text: string): number {
    const from = this.mark();
    this.wire.send({ type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null, session_id: '' });
    return from;
  }

  async result(from: number, timeoutMs = TURN_MS): Promise<Msg> {
    return this.wire.waitFor((m) => m.type === 'result', timeoutMs, from);
  }

  /** A prompt, then its `result`. */
  async turn(text: string): Promise<Msg> {
    return this.result(this.user(text));
  }

  async permissionRequest(from: number, timeoutMs = TURN_MS): Promise<Msg> {
    return this.wire.waitFor(
      (m) => m.type === 'control_request' && (m.request as Msg | undefined)?.subtype === 'can_use_tool',
      timeoutMs,
      from,
    );
  }

  answer(request: Msg, response: Msg): void {
    this.wire.send({ type: 'control_response', response: { subtype: 'success', request_id: request.request_id, response } });
  }

  allow(request: Msg): void {
    this.answer(request, { behavior: 'allow', updatedInput: (request.request as Msg).input });
  }

  deny(request: Msg): void {
    this.answer(request, { behavior: 'deny', message: 'The host denied this tool call.' });
  }

  /** Asks for the slow answer and lets it stream for a second (to interrupt it, or kill the CLI). */
  async slowAnswerUnderway(): Promise<void> {
    const from = this.user('Answer slowly.');
    await this.wire.waitFor(
      (m) => m.type === 'stream_event' && ((m.event as Msg).delta as Msg | undefined)?.type === 'text_delta',
      TURN_MS,
      from,
    );
    await sleep(1000);
  }

  /** Resolves with lines the CLI prints in the next `ms` milliseconds after `from`. */
  async quietFor(ms: number, from: number): Promise<unknown[]> {
    await sleep(ms);
    return this.wire.fromCli().slice(from);
  }
}

/** One content block of a Messages API request, summarized. */
function block(b: unknown): unknown {
  if (typeof b === 'string') return { type: 'text', text: cut(b) };
  const x = b as Msg;
  switch (x.type) {
    case 'text':
      return { type: 'text', text: cut(String(x.text)) };
    case 'thinking':
      return { type: 'thinking', thinking: cut(String(x.thinking)) };
    case 'tool_use':
      return { type: 'tool_use', id: x.id, name: x.name, input: x.input };
    case 'tool_result':
      return {
        type: 'tool_result',
        tool_use_id: x.tool_use_id,
        is_error: x.is_error,
        content: typeof x.content === 'string' ? cut(x.content) : Array.isArray(x.content) ? x.content.map(block) : x.content,
      };
    default:
      return { type: x.type };
  }
}

/** The agent model calls (streaming, with tools) the endpoint received, summarized. */
function summarizeRequests(requests: readonly RecordedRequest[]): unknown[] {
  const out: unknown[] = [];
  requests.forEach((request, index) => {
    const body = request.body as Msg | null;
    if (request.method !== 'POST' || !body || typeof body !== 'object') return;
    if (body.stream !== true || !Array.isArray(body.tools)) {
      out.push({ index, url: request.url, side_call: true, stream: body.stream === true, tools: Array.isArray(body.tools) });
      return;
    }
    const messages = (body.messages as Msg[]).map((m) => ({
      role: m.role,
      content: typeof m.content === 'string' ? [block(m.content)] : (m.content as unknown[]).map(block),
    }));
    out.push({ index, url: request.url, model: body.model, tools: (body.tools as Msg[]).length, messages });
  });
  return out;
}

/** A file-writing tool call: its can_use_tool request answered with `answer`. */
function approvalScenario(answer: 'allow' | 'deny', finalText: string): Scenario {
  return {
    name: answer,
    script: [{ shell: 'touch made-by-tool.txt' }, { text: finalText }],
    drive: async (s) => {
      await s.initialize();
      const from = s.user('Create made-by-tool.txt.');
      const request = await s.permissionRequest(from);
      s[answer](request);
      await s.result(from);
      s.observed.fileExists = existsSync(join(s.cli.cwd, 'made-by-tool.txt'));
    },
  };
}

const SCENARIOS: Scenario[] = [
  {
    name: 'plain',
    script: [{ text: 'Hello from the scripted model.' }],
    drive: async (s) => {
      await s.initialize();
      await s.turn('Say hello.');
    },
  },
  {
    name: 'plain-no-partial',
    partial: false,
    script: [{ text: 'Hello from the scripted model.' }],
    drive: async (s) => {
      await s.initialize();
      await s.turn('Say hello.');
    },
  },
  approvalScenario('allow', 'I created the file.'),
  approvalScenario('deny', 'I was not allowed to create the file.'),
  {
    // Without --permission-prompt-tool stdio: does a write still ask over the wire?
    name: 'no-prompt-tool',
    noPromptTool: true,
    script: [{ shell: 'touch made-by-tool.txt' }, { text: 'I was not allowed to create the file.' }],
    drive: async (s) => {
      await s.initialize();
      const from = s.user('Create made-by-tool.txt.');
      const first = await s.wire.waitFor(
        (m) => m.type === 'result' || (m.type === 'control_request' && (m.request as Msg).subtype === 'can_use_tool'),
        TURN_MS,
        from,
      );
      s.observed.firstOf = first.type;
      if (first.type === 'control_request') {
        s.deny(first);
        await s.result(from);
      }
      s.observed.fileExists = existsSync(join(s.cli.cwd, 'made-by-tool.txt'));
    },
  },
  {
    name: 'two-turns',
    script: [{ text: 'The first answer.' }, { text: 'The second answer.' }],
    drive: async (s) => {
      await s.initialize();
      const first = await s.turn('Give the first answer.');
      const from = s.mark();
      const second = await s.turn('Give the second answer.');
      const after = s.wire.fromCli().slice(from) as Msg[];
      s.observed.systemInitAgainAtSecondTurn = after.some((m) => m.type === 'system' && m.subtype === 'init');
      s.observed.sessionIds = [first.session_id, second.session_id];
    },
  },
  {
    name: 'interrupt-stream',
    script: [{ slowText: 'This answer streams very slowly. '.repeat(20), delayMs: 300 }, { text: 'After the interrupt.' }],
    drive: async (s) => {
      await s.initialize();
      await s.slowAnswerUnderway();
      const interruptFrom = s.mark();
      const response = await s.control({ subtype: 'interrupt' });
      s.observed.interruptResponse = response;
      const result = await s.result(interruptFrom);
      s.observed.interruptedResult = {
        subtype: result.subtype,
        is_error: result.is_error,
        terminal_reason: result.terminal_reason,
        stop_reason: result.stop_reason,
      };
      await s.quietFor(2000, s.mark());
      const second = await s.turn('Say something after the interrupt.');
      s.observed.secondResult = { subtype: second.subtype, is_error: second.is_error, result: second.result };
    },
  },
  {
    name: 'interrupt-tool',
    script: [{ shell: 'echo sleeping; sleep 300' }, { text: 'x' }, { text: 'After the interrupt.' }],
    drive: async (s) => {
      await s.initialize();
      const from = s.user('Run the sleeper.');
      const pid = s.wire.pid!;
      s.observed.approvalAsked = false;
      const sleeper = await findSleeper(s.wire, from, TURN_MS, /bash/, (m) => {
        if (m.type === 'control_request' && (m.request as Msg).subtype === 'can_use_tool') {
          s.observed.approvalAsked = true;
          s.allow(m);
        }
      });
      s.observed.sleepProcess = sleeper;
      s.observed.treeBeforeInterrupt = descendants(pid);
      await sleep(500);
      const interruptFrom = s.mark();
      const interruptAt = Date.now();
      s.observed.interruptResponse = await s.control({ subtype: 'interrupt' });
      const result = await s.result(interruptFrom);
      s.observed.interruptedResult = {
        subtype: result.subtype,
        is_error: result.is_error,
        terminal_reason: result.terminal_reason,
        stop_reason: result.stop_reason,
      };
      s.observed.sleepGoneAfterMs = await msUntil(() => !alive(sleeper.pid), interruptAt, 10_000);
      s.observed.treeAfterInterrupt = descendants(pid);
      const second = await s.turn('Say something after the interrupt.');
      s.observed.secondResult = { subtype: second.subtype, is_error: second.is_error, result: second.result };
      s.observed.sleepAliveAtEnd = alive(sleeper.pid);
    },
  },
  {
    name: 'interrupt-approval',
    script: [{ shell: 'touch made-by-tool.txt' }, { text: 'After the interrupt.' }],
    drive: async (s) => {
      await s.initialize();
      const from = s.user('Create made-by-tool.txt.');
      const request = await s.permissionRequest(from);
      await sleep(500);
      const interruptFrom = s.mark();
      const interruptId = s.controlNoWait({ subtype: 'interrupt' });
      // What comes without answering the pending can_use_tool: a cancel, a result, nothing?
      const after = (await s.quietFor(5000, interruptFrom)) as Msg[];
      s.observed.interruptAnswered = after.some((m) => m.type === 'control_response' && (m.response as Msg).request_id === interruptId);
      s.observed.cancelRequest = after.find((m) => m.type === 'control_cancel_request') ?? null;
      s.observed.resultWithoutAnswer = after.find((m) => m.type === 'result') ?? null;
      if (!s.observed.resultWithoutAnswer) {
        // The CLI is still waiting: answer the pending request with a deny.
        s.observed.answeredPendingWith = 'deny';
        s.deny(request);
        await s.result(interruptFrom);
      }
      s.observed.fileExists = existsSync(join(s.cli.cwd, 'made-by-tool.txt'));
      // A late answer to the withdrawn request: tolerated?
      if (!s.observed.answeredPendingWith) {
        const lateFrom = s.mark();
        s.deny(request);
        s.observed.afterLateAnswer = await s.quietFor(1500, lateFrom);
      }
      const second = await s.turn('Say something after the interrupt.');
      s.observed.secondResult = { subtype: second.subtype, is_error: second.is_error, result: second.result };
      s.observed.fileExistsAtEnd = existsSync(join(s.cli.cwd, 'made-by-tool.txt'));
    },
  },
  {
    name: 'kill',
    script: [{ slowText: 'This answer streams very slowly. '.repeat(20), delayMs: 300 }],
    drive: async (s) => {
      await s.initialize();
      await s.slowAnswerUnderway();
      s.wire.kill();
      s.observed.exit = await s.wire.exited;
    },
  },
  {
    // Thinking blocks, with partial messages.
    name: 'thinking',
    script: [{ thinking: 'Six times seven is forty-two.', text: 'The answer is 42.' }],
    drive: async (s) => {
      await s.initialize();
      await s.turn('What is 6 times 7? Think first.');
    },
  },
  {
    name: 'extra-messages',
    script: [{ text: 'Hello from the scripted model.' }],
    drive: async (s) => {
      await s.initialize();
      // An unknown control subtype, an unknown line type, and an answer to a request never made.
      let from = s.mark();
      const unknownId = s.controlNoWait({ subtype: 'no_such_subtype' });
      s.observed.unknownSubtypeAnswer = await s.wire
        .waitFor((m) => m.type === 'control_response' && (m.response as Msg).request_id === unknownId, 5000, from)
        .catch(() => null);
      from = s.mark();
      s.wire.send({ type: 'no_such_type', hello: 1 });
      s.wire.send({
        type: 'control_response',
        response: { subtype: 'success', request_id: 'never-asked', response: { behavior: 'allow', updatedInput: {} } },
      });
      s.wire.send({ type: 'control_cancel_request', request_id: 'never-asked-either' });
      s.observed.afterUnknownLines = await s.quietFor(2000, from);
      s.observed.exitedEarly = s.wire.pid !== undefined && !alive(s.wire.pid);
      // A known subtype outside a turn, for its answer's shape.
      s.observed.setPermissionModeAnswer = await s.control({ subtype: 'set_permission_mode', mode: 'default' }, 5000).catch(() => null);
      const result = await s.turn('Say hello.');
      s.observed.result = { subtype: result.subtype, is_error: result.is_error };
    },
  },
];

async function capture(scenario: Scenario): Promise<void> {
  const cli = await startScriptedCli('claude', scenario.script);
  const base = scenario.noPromptTool ? BASE_ARGS.filter((a) => a !== '--permission-prompt-tool' && a !== 'stdio') : BASE_ARGS;
  const args = [...base, ...(scenario.partial === false ? [] : ['--include-partial-messages'])];
  const wire = new WireSession(cli.executable, args, { cwd: cli.cwd, env: { ...cli.env, CLAUDE_CODE_MAX_RETRIES: '1' } });
  const session = new Session(cli, wire);
  await recordSession({
    cli,
    wire,
    args,
    outDir: OUT_DIR,
    scenario: scenario.name,
    observed: session.observed,
    drive: () => scenario.drive(session),
    summarizeRequests,
    describeLine,
  });
}

/** `<< type/subtype` (stream events by their event type). */
function describeLine(l: WireLine): string {
  const m = l.line as Msg;
  if (typeof m !== 'object' || m === null) return `${l.from}:text`;
  const sub = (m.subtype ?? (m.request as Msg | undefined)?.subtype ?? (m.event as Msg | undefined)?.type) as string | undefined;
  return `${arrow(l.from)} ${String(m.type)}${sub ? `/${sub}` : ''}`;
}

mkdirSync(OUT_DIR, { recursive: true });
captureAll(SCENARIOS, capture);
