/*
 * Captures Agent Client Protocol sessions of the real OpenCode, Qwen Code and Copilot CLIs on
 * the wire, against the scripted OpenAI Chat Completions endpoint.
 * Run from the project root: npx ts-node --transpile-only e2e/capture/session-acp.ts <opencode|qwen|copilot|kilo|cline> [scenario…]
 *
 * Scenarios: plain, allow, deny, thinking, two-turns, load, interrupt-stream, interrupt-tool,
 * interrupt-approval (see SCENARIOS). Each starts the CLI's ACP server (`opencode acp`,
 * `qwen --acp`, `copilot --acp`, see acpArgs) in a fresh temporary HOME and cwd (removed
 * afterwards), plays the host side of ACP (JSON-RPC 2.0, one message a line) and writes
 * - test/fixtures/sessions/<cli>/wire-<scenario>.jsonl: every line in order (WireSession.save);
 * - test/fixtures/sessions/<cli>/wire-<scenario>.requests.json: what the endpoint received per
 *   agent model call (message roles, texts, tool calls and results), the side calls it answered
 *   without playing a turn, and what the scenario observed (stop reasons, files, processes, the
 *   non-standard requests the CLI sent).
 * The host answers session/request_permission by the option's `kind` (option ids differ per
 * agent), and any request outside ACP with JSON-RPC error -32601. Set CAPTURE_LOG=1 to print the
 * wire of each scenario afterwards.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { descendantsOf, listProcesses, readStat } from '../../src/runner/process-table';
import { chatCallKind } from '../scripted/openai-chat';
import type { ScriptedTurn } from '../scripted/script';
import type { RecordedRequest } from '../scripted/server';
import { acpArgs, startScriptedCli, type AcpCliName, type ScriptedCli } from '../scripted/setup';
import { msUntil, sleep } from './capture-helpers';
import { FIXTURES } from './run-cli';
import { WireSession } from './wire';

const STEP_TIMEOUT_MS = 120_000;

type Json = Record<string, unknown>;

/** How the host answers a permission request: by option kind, or not at all (left pending). */
type PermissionPolicy = 'allow_once' | 'reject_once' | 'leave';

/** One ACP session: the wire, the host's request ids, and what it answered. */
class AcpHost {
  private nextId = 0;
  private seen = 0;
  private stopped = false;
  readonly notes: string[] = [];
  readonly pendingPermissions: Json[] = [];
  policy: PermissionPolicy = 'allow_once';

  constructor(readonly wire: WireSession) {
    void this.pump();
  }

  /** Sends a request; resolves with its response message (result or error). */
  async request(method: string, params: Json, timeoutMs = STEP_TIMEOUT_MS): Promise<Json> {
    const id = this.nextId++;
    const after = this.wire.fromCli().length;
    this.wire.send({ jsonrpc: '2.0', id, method, params });
    return this.wire.waitFor((message) => message.id === id && !('method' in message), timeoutMs, after);
  }

  /** Sends a request without waiting; `response` resolves later. */
  start(method: string, params: Json): { id: number; response: Promise<Json> } {
    const id = this.nextId++;
    const after = this.wire.fromCli().length;
    this.wire.send({ jsonrpc: '2.0', id, method, params });
    return { id, response: this.wire.waitFor((message) => message.id === id && !('method' in message), STEP_TIMEOUT_MS * 3, after) };
  }

  notify(method: string, params: Json): void {
    this.wire.send({ jsonrpc: '2.0', method, params });
  }

  /** Answers a request of the CLI. */
  respond(id: unknown, result: Json): void {
    this.wire.send({ jsonrpc: '2.0', id, result });
  }

  stop(): void {
    this.stopped = true;
  }

  /** Answers the CLI's requests as they arrive. */
  private async pump(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.wire.waitFor(() => true, 500, this.seen);
      } catch {
        continue;
      }
      const messages = this.wire.fromCli();
      for (; this.seen < messages.length; this.seen++) {
        const message = messages[this.seen] as Json;
        if (typeof message !== 'object' || message === null || typeof message.method !== 'string' || !('id' in message)) continue;
        this.onRequest(message);
      }
    }
  }

  private onRequest(message: Json): void {
    if (message.method === 'session/request_permission') {
      const params = message.params as { options: { optionId: string; kind: string }[] };
      if (this.policy === 'leave') {
        this.pendingPermissions.push(message);
        return;
      }
      const option = params.options.find((candidate) => candidate.kind === this.policy);
      if (!option) throw new Error(`no ${this.policy} option in ${JSON.stringify(params.options)}`);
      this.respond(message.id, { outcome: { outcome: 'selected', optionId: option.optionId } });
      return;
    }
    // Not ACP (Qwen's craft/drainMidTurnQueue, say): a client that knows nothing of it says so.
    this.notes.push(`answered non-standard request ${String(message.method)} with -32601`);
    this.wire.send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: `Method not found: ${String(message.method)}` } });
  }
}

/** A scenario: its script and the host's part, which returns what it observed. */
interface AcpScenario {
  name: string;
  script: readonly ScriptedTurn[];
  /** An earlier process of the CLI, in the same home and cwd, before the captured one (not saved); what it answers goes to `run`. */
  before?(name: AcpCliName, cli: ScriptedCli): Promise<string>;
  run(host: AcpHost, cli: ScriptedCli, earlier: string | null): Promise<Json>;
}

const INITIALIZE = { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false } };

/** initialize and session/new; the session id. */
async function openSession(host: AcpHost, cli: ScriptedCli): Promise<string> {
  const init = await host.request('initialize', INITIALIZE);
  if (!init.result) throw new Error(`initialize failed: ${JSON.stringify(init)}`);
  const created = await host.request('session/new', { cwd: cli.cwd, mcpServers: [] });
  const result = created.result as { sessionId?: string } | undefined;
  if (!result?.sessionId) throw new Error(`session/new failed: ${JSON.stringify(created)}`);
  return result.sessionId;
}

function prompt(sessionId: string, text: string): Json {
  return { sessionId, prompt: [{ type: 'text', text }] };
}

function stopReason(response: Json): unknown {
  return (response.result as Json | undefined)?.stopReason ?? response.error;
}

/** The first session/update of this kind among the CLI's messages from index `after` on. */
async function waitForUpdate(host: AcpHost, kind: string, after: number, timeoutMs = STEP_TIMEOUT_MS): Promise<Json> {
  return host.wire.waitFor(
    (message) => message.method === 'session/update' && ((message.params as Json)?.update as Json)?.sessionUpdate === kind,
    timeoutMs,
    after,
  );
}

/** The pids of `sleep 300` processes below `pid` now. */
function sleepsBelow(pid: number): number[] {
  const root = readStat(pid);
  if (!root) return [];
  return descendantsOf(root, listProcesses())
    .filter((proc) => {
      try {
        return readFileSync(`/proc/${proc.pid}/cmdline`, 'utf8').split('\0').join(' ').trim() === 'sleep 300';
      } catch {
        return false;
      }
    })
    .map((proc) => proc.pid);
}

const alive = (pid: number) => existsSync(`/proc/${pid}`) && readStat(pid)?.state !== 'Z';

const SLOW_TEXT = { slowText: 'This answer streams very slowly, piece by piece. '.repeat(6), delayMs: 300 };

const SCENARIOS: AcpScenario[] = [
  {
    name: 'plain',
    script: [{ text: 'Hello from the scripted model.' }],
    async run(host, cli) {
      const sessionId = await openSession(host, cli);
      const response = await host.request('session/prompt', prompt(sessionId, 'Say hello.'));
      return { stopReason: stopReason(response) };
    },
  },
  {
    name: 'allow',
    script: [{ shell: 'touch made-by-tool.txt' }, { text: 'I created the file.' }],
    async run(host, cli) {
      host.policy = 'allow_once';
      const sessionId = await openSession(host, cli);
      const response = await host.request('session/prompt', prompt(sessionId, 'Create made-by-tool.txt.'));
      return { stopReason: stopReason(response), fileExists: existsSync(join(cli.cwd, 'made-by-tool.txt')) };
    },
  },
  {
    name: 'deny',
    // A follow-up prompt: a CLI that ends the turn at a rejection (OpenCode) tells the model only in the next call.
    script: [{ shell: 'touch made-by-tool.txt' }, { text: 'I was not allowed to create the file.' }, { text: 'The file was not created.' }],
    async run(host, cli) {
      host.policy = 'reject_once';
      const sessionId = await openSession(host, cli);
      const response = await host.request('session/prompt', prompt(sessionId, 'Create made-by-tool.txt.'));
      const fileExists = existsSync(join(cli.cwd, 'made-by-tool.txt'));
      const next = await host.request('session/prompt', prompt(sessionId, 'Did that work?'));
      return { stopReason: stopReason(response), fileExists, nextStopReason: stopReason(next) };
    },
  },
  {
    // Not in the brief's list: shows how thinking arrives (agent_thought_chunk).
    name: 'thinking',
    script: [{ thinking: 'Six times seven is forty-two.', text: 'The answer is 42.' }],
    async run(host, cli) {
      const sessionId = await openSession(host, cli);
      const response = await host.request('session/prompt', prompt(sessionId, 'What is 6 times 7? Think first.'));
      return { stopReason: stopReason(response) };
    },
  },
  {
    name: 'two-turns',
    script: [{ text: 'First answer.' }, { text: 'Second answer.' }],
    async run(host, cli) {
      const sessionId = await openSession(host, cli);
      const first = await host.request('session/prompt', prompt(sessionId, 'Say something.'));
      const second = await host.request('session/prompt', prompt(sessionId, 'Say something else.'));
      return { stopReasons: [stopReason(first), stopReason(second)] };
    },
  },
  {
    // A session of an earlier process loaded (`session/load`, how a session resumes): the CLI
    // replays its history as updates before it answers, then the next prompt continues it.
    name: 'load',
    script: [{ text: 'The first answer.' }, { text: 'The second answer.' }],
    async before(name, cli) {
      const earlier = new AcpHost(new WireSession(cli.executable, acpArgs(name), { cwd: cli.cwd, env: cli.env }));
      const sessionId = await openSession(earlier, cli);
      await earlier.request('session/prompt', prompt(sessionId, 'Give the first answer.'));
      // Qwen Code saves the turn after answering it (see clis.ts): give it time before the input ends.
      await sleep(1_000);
      earlier.stop();
      await earlier.wire.close(10_000);
      return sessionId;
    },
    async run(host, cli, earlier) {
      const init = await host.request('initialize', INITIALIZE);
      if (!init.result) throw new Error(`initialize failed: ${JSON.stringify(init)}`);
      const after = host.wire.fromCli().length;
      const loaded = await host.request('session/load', { sessionId: earlier, cwd: cli.cwd, mcpServers: [] });
      if (!loaded.result) throw new Error(`session/load failed: ${JSON.stringify(loaded)}`);
      const replayed = host.wire
        .fromCli()
        .slice(after)
        .filter((message) => (message as Json).method === 'session/update').length;
      const next = await host.request('session/prompt', prompt(String(earlier), 'Give the second answer.'));
      return { updatesBeforeLoadAnswer: replayed, stopReason: stopReason(next) };
    },
  },
  {
    name: 'interrupt-stream',
    script: [SLOW_TEXT, { text: 'Answer after the interruption.' }],
    async run(host, cli) {
      const sessionId = await openSession(host, cli);
      const after = host.wire.fromCli().length;
      const started = Date.now();
      const turn = host.start('session/prompt', prompt(sessionId, 'Tell me a long story.'));
      await waitForUpdate(host, 'agent_message_chunk', after);
      host.notify('session/cancel', { sessionId });
      const cancelledAt = Date.now();
      const response = await turn.response;
      const endedAt = Date.now();
      const next = await host.request('session/prompt', prompt(sessionId, 'Say hello again.'));
      return {
        stopReason: stopReason(response),
        promptAnsweredMsAfterCancel: endedAt - cancelledAt,
        firstChunkMsAfterPrompt: cancelledAt - started,
        nextStopReason: stopReason(next),
      };
    },
  },
  {
    name: 'interrupt-tool',
    script: [{ shell: 'echo sleeping; sleep 300' }, { text: 'Answer after the interruption.' }],
    async run(host, cli) {
      host.policy = 'allow_once';
      const sessionId = await openSession(host, cli);
      const turn = host.start('session/prompt', prompt(sessionId, 'Run the sleeper.'));
      const pid = host.wire.pid ?? 0;
      let sleeps: number[] = [];
      const deadline = Date.now() + STEP_TIMEOUT_MS;
      while ((sleeps = sleepsBelow(pid)).length === 0) {
        if (Date.now() > deadline) throw new Error('no sleep 300 process appeared');
        await sleep(100);
      }
      host.notify('session/cancel', { sessionId });
      const cancelledAt = Date.now();
      const response = await turn.response;
      const answeredAfterMs = Date.now() - cancelledAt;
      const goneAfterMs = await msUntil(() => sleeps.every((sleepPid) => !alive(sleepPid)), cancelledAt, 5_000);
      const next = await host.request('session/prompt', prompt(sessionId, 'Say hello again.'));
      const stillAlive = sleeps.filter(alive);
      return {
        stopReason: stopReason(response),
        promptAnsweredMsAfterCancel: answeredAfterMs,
        sleepPids: sleeps,
        sleepGoneMsAfterCancel: goneAfterMs,
        sleepAliveAfterNextPrompt: stillAlive.length > 0,
        nextStopReason: stopReason(next),
      };
    },
  },
  {
    name: 'interrupt-approval',
    script: [{ shell: 'touch made-by-tool.txt' }, { text: 'Answer after the interruption.' }],
    async run(host, cli) {
      host.policy = 'leave';
      const sessionId = await openSession(host, cli);
      const turn = host.start('session/prompt', prompt(sessionId, 'Create made-by-tool.txt.'));
      const deadline = Date.now() + STEP_TIMEOUT_MS;
      while (host.pendingPermissions.length === 0) {
        if (Date.now() > deadline) throw new Error('no permission request');
        await sleep(50);
      }
      const pending = host.pendingPermissions[0] as Json;
      host.notify('session/cancel', { sessionId });
      const cancelledAt = Date.now();
      // Does the turn end while the permission request is still unanswered?
      const early = await Promise.race([turn.response.then((response) => response), sleep(5_000).then(() => null)]);
      const observed: Json = { promptAnsweredWithPermissionPending: early !== null };
      if (early === null) {
        // ACP: after session/cancel the client answers every pending permission request with "cancelled".
        host.respond(pending.id, { outcome: { outcome: 'cancelled' } });
        observed.answeredPendingWith = 'cancelled';
        const answeredAt = Date.now();
        await turn.response;
        observed.promptAnsweredMsAfterPermissionAnswer = Date.now() - answeredAt;
      } else {
        observed.promptAnsweredMsAfterCancel = Date.now() - cancelledAt;
      }
      const response = await turn.response;
      if (early !== null) {
        // Answered late, as the spec wants, to see whether the CLI minds.
        host.respond(pending.id, { outcome: { outcome: 'cancelled' } });
        observed.answeredPendingWith = 'cancelled, after the prompt response';
        await sleep(1_000);
      }
      const next = await host.request('session/prompt', prompt(sessionId, 'Say hello again.'));
      return {
        ...observed,
        stopReason: stopReason(response),
        fileExists: existsSync(join(cli.cwd, 'made-by-tool.txt')),
        nextStopReason: stopReason(next),
      };
    },
  },
];

/** Text of a Chat Completions message content (a string or a list of parts), trimmed. */
function textOf(content: unknown, max = 400): string | null {
  if (content === null || content === undefined) return null;
  const text =
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content.map((part) => (part as Json)?.text ?? JSON.stringify(part)).join('')
        : JSON.stringify(content);
  return text.length > max ? `${text.slice(0, max)}…(${text.length} chars)` : text;
}

/** What one model call carried, for the requests summary. */
function summarize(request: RecordedRequest, index: number): Json {
  const body = (request.body ?? {}) as Json;
  const messages = Array.isArray(body.messages) ? (body.messages as Json[]) : [];
  return {
    call: index,
    kind: chatCallKind(request),
    tools: Array.isArray(body.tools) ? (body.tools as Json[]).map((tool) => (tool.function as Json)?.name) : [],
    messages: messages.map((message) => {
      const summary: Json = { role: message.role };
      summary.text = textOf(message.content, message.role === 'system' ? 120 : 400);
      if (Array.isArray(message.tool_calls))
        summary.tool_calls = (message.tool_calls as Json[]).map((call) => ({
          id: call.id,
          name: (call.function as Json)?.name,
          arguments: (call.function as Json)?.arguments,
        }));
      if (message.tool_call_id) summary.tool_call_id = message.tool_call_id;
      return summary;
    }),
  };
}

async function capture(name: AcpCliName, scenario: AcpScenario): Promise<void> {
  const outDir = join(FIXTURES, 'sessions', name);
  mkdirSync(outDir, { recursive: true });
  const cli = await startScriptedCli(name, scenario.script);
  const earlier = scenario.before ? await scenario.before(name, cli) : null;
  const wire = new WireSession(cli.executable, acpArgs(name), { cwd: cli.cwd, env: cli.env });
  const host = new AcpHost(wire);
  let observed: Json = {};
  let failure: unknown = null;
  try {
    observed = await scenario.run(host, cli, earlier);
  } catch (error) {
    failure = error;
  } finally {
    host.stop();
    const exit = await wire.close(10_000);
    wire.save(join(outDir, `wire-${scenario.name}.jsonl`));
    const calls = cli.server.requests.filter((request) => request.method === 'POST').map(summarize);
    const other = cli.server.requests.filter((request) => request.method !== 'POST').map((request) => `${request.method} ${request.url}`);
    const summary = {
      cli: name,
      scenario: scenario.name,
      script: scenario.script,
      observed,
      notes: host.notes,
      exitAfterStdinClosed: exit,
      otherRequests: other,
      agentCalls: calls.filter((call) => call.kind === 'agent'),
      sideCalls: calls.filter((call) => call.kind !== 'agent'),
    };
    if (process.env.CAPTURE_LOG) for (const line of wire.lines) process.stdout.write(`${JSON.stringify(line).slice(0, 1500)}\n`);
    writeFileSync(join(outDir, `wire-${scenario.name}.requests.json`), JSON.stringify(summary, null, 2) + '\n');
    process.stdout.write(
      `${name} ${scenario.name}: ${failure ? `FAILED ${String(failure)}` : JSON.stringify(observed)}; ${calls.length} model calls; notes ${JSON.stringify(host.notes)}; exit ${JSON.stringify(exit)}\n`,
    );
    await cli.close();
  }
  if (failure) throw failure;
}

async function main(): Promise<void> {
  const [name, ...only] = process.argv.slice(2);
  if (name !== 'opencode' && name !== 'qwen' && name !== 'copilot' && name !== 'kilo' && name !== 'cline')
    throw new Error('usage: session-acp.ts <opencode|qwen|copilot|kilo|cline> [scenario…]');
  for (const scenario of SCENARIOS) if (only.length === 0 || only.includes(scenario.name)) await capture(name, scenario);
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exitCode = 1;
});
