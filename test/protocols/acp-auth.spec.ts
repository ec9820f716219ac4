import 'reflect-metadata';
import type { AnyEvent } from '../../src';
import { CLIS } from '../../src/clis';
import { decoderFor } from '../../src/decode/decoder';
import type { ErrorCode } from '../../src/providers/error-codes';
import { readLine } from '../../src/protocols/protocol';
import type { JsonObject } from '../../src/schema/json';
import type { SessionProvider } from '../../src/sessions/types';

/*
 * ACP's "authentication required" (-32000) from an ACP CLI is an `auth` failure, whichever request
 * it answers: Qwen Code, Copilot CLI and Cline refuse `session/new` without credentials, OpenCode and
 * Kilo the prompt (the answers below are theirs, as the pinned versions gave them with no key; the
 * real-CLI e2e drives them: e2e/test/*.acp.spec.ts, acp-auth.spec.ts).
 */

const settled = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The protocol of `cli` answered with `answers` (by request method), as its session runs it. */
async function play(cli: SessionProvider, answers: Record<string, JsonObject>) {
  const failures: { message: string; code: ErrorCode | undefined }[] = [];
  const written: JsonObject[] = [];
  const protocol = CLIS[cli].session.protocol(
    { write: (message) => written.push(message), fail: (message, code) => failures.push({ message, code }) },
    cli,
    { provider: cli, cwd: '/tmp/x' },
  );
  const decoder = decoderFor(protocol.profile, { clock: () => new Date('2026-12-01T00:00:00.000Z'), keepRaw: 'none' });
  const events: AnyEvent[] = [];
  protocol.open();
  protocol.prompt([{ type: 'text', text: 'Say hello.' }], [{ type: 'text', text: 'Say hello.' }]);
  // Each request the protocol wrote is answered in turn (the next may only be written once it is).
  for (let answered = 0; answered < written.length; answered++) {
    const request = written[answered];
    const answer = answers[String(request.method)];
    if (answer === undefined || request.id === undefined) continue;
    events.push(...readLine(protocol, decoder, JSON.stringify({ jsonrpc: '2.0', id: request.id, ...answer })));
    await settled();
  }
  events.push(...decoder.end({ code: 0, signal: null }));
  return { failures, events };
}

const initialized = { result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } };

describe("an ACP CLI's auth-required answer", () => {
  it.each([
    [
      'qwen',
      "Authentication required: Authentication failed: Missing API key for openai auth. Current model: 'fake-model', baseUrl: 'http://127.0.0.1:9/v1'. Provide an API key via settings (security.auth.apiKey), or set the environment variable 'OPENAI_API_KEY'.",
    ],
    ['copilot', 'Authentication required'],
    ['cline', 'Authentication required: Call authenticate before starting a session'],
  ] as const)('%s refuses session/new: the session fails with an auth error', async (cli, message) => {
    const { failures } = await play(cli, { initialize: initialized, 'session/new': { error: { code: -32000, message } } });
    expect(failures).toEqual([{ message: `${cli} refused a new session: ${message}`, code: 'auth' }]);
  });

  it('another refusal of session/new stays an execution failure', async () => {
    const { failures } = await play('qwen', {
      initialize: initialized,
      'session/new': { error: { code: -32603, message: 'Internal error' } },
    });
    expect(failures).toEqual([{ message: 'qwen refused a new session: Internal error', code: 'execution' }]);
  });

  it.each(['opencode', 'kilo'] as const)('%s answers the prompt -32000: the turn fails with an auth error', async (cli) => {
    const { events, failures } = await play(cli, {
      initialize: initialized,
      'session/new': { result: { sessionId: 'ses_1' } },
      'session/prompt': {
        error: { code: -32000, message: 'Authentication required: provider authentication required', data: { providerId: 'fake' } },
      },
    });
    expect(failures).toEqual([]);
    expect(events.filter((event) => event.kind === 'error')).toEqual([
      expect.objectContaining({
        payload: expect.objectContaining({ code: 'auth', message: 'Authentication required: provider authentication required' }),
      }),
    ]);
    expect(events.filter((event) => event.kind === 'result')).toEqual([
      expect.objectContaining({ payload: expect.objectContaining({ status: 'failed' }) }),
    ]);
  });
});
