/*
 * Captures a real pi session (`pi --mode rpc`: commands and events as JSON lines on stdin/stdout)
 * against the scripted Chat Completions endpoint.
 * Run from the project root: npx ts-node --transpile-only e2e/capture/session-pi.ts [scenario…]
 *
 * Each scenario starts `pi` with the session's own arguments (the registry's: `--offline --mode rpc
 * --extension <the approval extension>`) and `--model fake-model`, in a fresh HOME and cwd
 * (startScriptedCli), drives it with WireSession and writes test/fixtures/sessions/pi/wire-<scenario>.jsonl
 * (every line both ways, in order, timed) and wire-<scenario>.requests.json (what the endpoint
 * received for each model call, and what the capture observed: files, exit).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CLIS } from '../../src/clis';
import { SCRIPTED_CHAT_MODEL } from '../scripted/openai-chat';
import type { ScriptedTurn } from '../scripted/script';
import type { RecordedRequest } from '../scripted/server';
import { startScriptedCli } from '../scripted/setup';
import { arrow, recordSession, type Msg } from './capture-helpers';
import { captureAll, FIXTURES } from './run-cli';
import { WireSession, type WireLine } from './wire';

const OUT_DIR = join(FIXTURES, 'sessions', 'pi');
const ARGS = [...CLIS.pi.session.args, '--model', SCRIPTED_CHAT_MODEL];
const TURN_MS = 60_000;

interface Scenario {
  name: string;
  script: ScriptedTurn[];
  drive(wire: WireSession, observed: Record<string, unknown>, cwd: string): Promise<void>;
}

let nextId = 0;

/** Sends a prompt; resolves at its `agent_end`, answering each approval with the next of `answers` (true: allow). */
async function turn(wire: WireSession, message: string, answers: boolean[] = []): Promise<void> {
  const id = `host_${++nextId}`;
  let from = wire.fromCli().length;
  wire.send({ id, type: 'prompt', message });
  for (;;) {
    const line = await wire.waitFor(
      (m) => m.type === 'agent_end' || (m.type === 'extension_ui_request' && m.method === 'confirm'),
      TURN_MS,
      from,
    );
    from = wire.fromCli().indexOf(line as unknown) + 1;
    if (line.type === 'agent_end') return;
    wire.send({ type: 'extension_ui_response', id: line.id, confirmed: answers.shift() ?? false });
  }
}

const SCENARIOS: Scenario[] = [
  {
    // What the e2e session spec does, on one wire: a deny, an allow, a second turn, an interrupt mid-answer, a turn after it.
    name: 'approvals-interrupt',
    script: [
      { shell: 'touch denied.txt' },
      { text: 'I was not allowed to create the file.' },
      { shell: 'touch allowed.txt' },
      { text: 'I created the file.' },
      { slowText: 'A slow answer that the host interrupts before it is done.', delayMs: 300 },
      { text: 'After the interrupt.' },
    ],
    async drive(wire, observed, cwd) {
      wire.send({ id: `host_${++nextId}`, type: 'get_state' });
      await turn(wire, 'Create denied.txt.', [false]);
      await turn(wire, 'Create allowed.txt.', [true]);
      observed.files = { 'denied.txt': existsSync(join(cwd, 'denied.txt')), 'allowed.txt': existsSync(join(cwd, 'allowed.txt')) };
      const from = wire.fromCli().length;
      wire.send({ id: `host_${++nextId}`, type: 'prompt', message: 'Answer slowly.' });
      await wire.waitFor(
        (m) => m.type === 'message_update' && (m.assistantMessageEvent as Msg | undefined)?.type === 'text_delta',
        TURN_MS,
        from,
      );
      wire.send({ type: 'abort' });
      const end = (await wire.waitFor((m) => m.type === 'agent_end', TURN_MS, from)) as Msg;
      observed.abortedStopReason = ((end.messages as Msg[]).at(-1) as Msg).stopReason;
      await turn(wire, 'Say something after the interrupt.');
    },
  },
];

function summarizeRequests(requests: readonly RecordedRequest[]): unknown[] {
  return requests.map((request) => {
    const body = request.body as { messages?: { role: string; content: unknown }[] } | null;
    const last = body?.messages?.at(-1);
    return {
      method: request.method,
      url: request.url,
      messages: body?.messages?.length ?? null,
      last: last ? { role: last.role, content: JSON.stringify(last.content).slice(0, 200) } : null,
    };
  });
}

function describeLine(l: WireLine): string {
  const m = l.line as Msg;
  if (typeof m !== 'object' || m === null) return `${l.from}:text`;
  const sub = (m.command ?? m.method ?? (m.assistantMessageEvent as Msg | undefined)?.type) as string | undefined;
  return `${arrow(l.from)} ${String(m.type)}${sub ? `/${sub}` : ''}`;
}

async function capture(scenario: Scenario): Promise<void> {
  const cli = await startScriptedCli('pi', scenario.script);
  const wire = new WireSession(cli.executable, ARGS, { cwd: cli.cwd, env: cli.env });
  const observed: Record<string, unknown> = {};
  await recordSession({
    cli,
    wire,
    args: ARGS,
    outDir: OUT_DIR,
    scenario: scenario.name,
    observed,
    drive: () => scenario.drive(wire, observed, cli.cwd),
    summarizeRequests,
    describeLine,
  });
}

mkdirSync(OUT_DIR, { recursive: true });
captureAll(SCENARIOS, capture);
