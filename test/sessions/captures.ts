/*
 * The session captures (test/fixtures/sessions/<cli>/wire-*.jsonl, recorded from the real CLIs by
 * e2e/capture/session-*.ts) played through each CLI's protocol: its lines into the protocol's
 * decoder, and at each line the host wrote, the protocol asked to do the same (prompt, answer,
 * interrupt). Shared by the spec and scripts/write-goldens.ts.
 */
import 'reflect-metadata';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AnyEvent } from '../../src';
import { decoderFor } from '../../src/decode/decoder';
import type { JsonObject } from '../../src/schema/json';
import { CLIS, SESSION_CLI_IDS } from '../../src/clis';
import { readLine, type SessionProtocol } from '../../src/protocols/protocol';
import type { ApprovalAnswer, SessionProvider } from '../../src/sessions/types';

export const SESSION_FIXTURES = join(__dirname, '..', 'fixtures', 'sessions');

/** One capture. */
export interface Capture {
  readonly cli: SessionProvider;
  readonly name: string;
  readonly path: string;
  readonly goldenPath: string;
}

/** Every capture of every CLI (the `wire-*.jsonl` files). */
export function captures(): Capture[] {
  const found: Capture[] = [];
  for (const cli of SESSION_CLI_IDS) {
    const dir = join(SESSION_FIXTURES, cli);
    if (!existsSync(dir)) continue;
    for (const file of readdirSync(dir).sort()) {
      const match = /^wire-(.+)\.jsonl$/.exec(file);
      if (match && !file.endsWith('.events.jsonl'))
        found.push({ cli, name: match[1], path: join(dir, file), goldenPath: join(dir, `wire-${match[1]}.events.jsonl`) });
    }
  }
  return found;
}

/** What the protocol did with a capture: its events (as JSON, without the process-local `id`), and what it wrote to the CLI. */
export interface Played {
  readonly events: Record<string, unknown>[];
  readonly written: JsonObject[];
  readonly failures: string[];
  /** The messages the host wrote in the capture, in order. */
  readonly recorded: JsonObject[];
}

const CLOCK = () => new Date('2026-12-01T00:00:00.000Z');

/** What a protocol does once an answer it waited for settles (a promise's continuation) is done before the next line. */
const settled = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Plays `capture` through its CLI's protocol (see the header), as the session reads it (`readLine`). */
export async function play(capture: Capture): Promise<Played> {
  const written: JsonObject[] = [];
  const failures: string[] = [];
  const entries = readFileSync(capture.path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { from: string; line: unknown });
  // A capture that loads an earlier session is played as a session resuming it.
  const load = entries.find((entry) => entry.from === 'host' && (entry.line as JsonObject).method === 'session/load')?.line as
    JsonObject | undefined;
  const resume = load ? String((load.params as JsonObject).sessionId) : undefined;
  const protocol = CLIS[capture.cli].session.protocol(
    { write: (message) => written.push(message), fail: (message) => failures.push(message) },
    capture.cli,
    { provider: capture.cli, cwd: '/tmp/capture', resume },
  );
  const decoder = decoderFor(protocol.profile, { clock: CLOCK, keepRaw: 'none' });
  const events: AnyEvent[] = [];
  const recorded: JsonObject[] = [];
  protocol.open();
  for (const entry of entries) {
    if (entry.from === 'cli') {
      events.push(...readLine(protocol, decoder, typeof entry.line === 'string' ? entry.line : JSON.stringify(entry.line)));
      await settled();
    } else if (entry.from === 'host' && typeof entry.line === 'object' && entry.line !== null) {
      recorded.push(entry.line as JsonObject);
      act(entry.line as JsonObject, protocol);
    }
  }
  // The kill captures end where the CLI was SIGKILLed mid-turn; the others where it exited at the end of its input.
  events.push(...decoder.end(capture.name === 'kill' ? { code: null, signal: 'SIGKILL' } : { code: 0, signal: null }));
  const json = events.map((event) => {
    const { id: _id, ...rest } = JSON.parse(JSON.stringify(event)) as Record<string, unknown>;
    return rest;
  });
  return { events: json, written, failures, recorded };
}

/** What the host did at a recorded line, asked of the protocol (the handshake is the protocol's own). */
function act(message: JsonObject, protocol: SessionProtocol): void {
  const action = hostAction(message);
  if (!action) return;
  if (action.type === 'prompt') protocol.prompt([{ type: 'text', text: action.text }], [{ type: 'text', text: action.text }]);
  else if (action.type === 'interrupt') protocol.interrupt();
  else protocol.answer(action.id, action.answer);
}

type HostAction = { type: 'prompt'; text: string } | { type: 'interrupt' } | { type: 'answer'; id: string; answer: ApprovalAnswer | null };

/** A recorded host line as a session action, or null for the protocol's own lines (handshake, housekeeping). */
export function hostAction(message: JsonObject): HostAction | null {
  const params = (message.params ?? {}) as JsonObject;
  // Claude Code
  if (message.type === 'user') return { type: 'prompt', text: String((message.message as JsonObject).content) };
  if (message.type === 'control_request') return (message.request as JsonObject).subtype === 'interrupt' ? { type: 'interrupt' } : null;
  if (message.type === 'control_response') {
    const response = message.response as JsonObject;
    const body = response.response as JsonObject;
    return {
      type: 'answer',
      id: String(response.request_id),
      answer: {
        decision: body.behavior === 'allow' ? 'allow' : 'deny',
        reason: typeof body.message === 'string' ? body.message : undefined,
      },
    };
  }
  // pi RPC
  if (message.type === 'prompt') return { type: 'prompt', text: String(message.message) };
  if (message.type === 'abort') return { type: 'interrupt' };
  if (message.type === 'extension_ui_response')
    return {
      type: 'answer',
      id: String(message.id),
      answer: message.cancelled === true ? null : { decision: message.confirmed === true ? 'allow' : 'deny' },
    };
  // Codex app-server and ACP
  if (message.method === 'turn/start' || message.method === 'session/prompt') {
    const input = (message.method === 'turn/start' ? params.input : params.prompt) as JsonObject[];
    return { type: 'prompt', text: String(input[0].text) };
  }
  if (message.method === 'turn/interrupt' || message.method === 'session/cancel') return { type: 'interrupt' };
  if (message.method === undefined && message.result !== undefined) {
    const result = message.result as JsonObject;
    const outcome = result.outcome as JsonObject | undefined;
    if (outcome) {
      if (outcome.outcome === 'cancelled') return { type: 'answer', id: String(message.id), answer: null };
      const option = String(outcome.optionId);
      return {
        type: 'answer',
        id: String(message.id),
        answer: { decision: /cancel|reject/.test(option) ? 'deny' : 'allow', remember: /always/.test(option) },
      };
    }
    if (typeof result.decision === 'string') {
      return {
        type: 'answer',
        id: String(message.id),
        answer: result.decision === 'cancel' ? null : { decision: result.decision.startsWith('accept') ? 'allow' : 'deny' },
      };
    }
  }
  return null;
}
