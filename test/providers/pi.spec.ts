import 'reflect-metadata';
import { wire } from '../wire';
import type { AnyEvent } from '../../src';
import { createDecoder, decoderFor } from '../../src/decode/decoder';
import { detectProvider } from '../../src/decode/detect';
import type { ProviderProfile } from '../../src/providers/profile';
import type { JsonObject } from '../../src/schema/json';
import { piRpcProfile } from '../../src/protocols/pi-rpc-events';
import { piRpc } from '../../src/protocols/pi-rpc';
import { JsonLinesPeer, PI_RPC, PeerError } from '../../src/wire/json-lines-peer';

/* The pi profile and its RPC session, rule by rule, on lines shaped as pi 0.73.1 prints them (see the captures). */

const CLOCK = (): Date => new Date('2030-01-01T00:00:00.000Z');
const header = {
  type: 'session',
  version: 3,
  id: '01a2464f-470d-7616-b0a1-3cb376f3acea',
  timestamp: '2026-12-05T13:05:30.382Z',
  cwd: '/tmp/x',
};
const usage = (input: number, output: number, cacheRead = 0) => ({
  input,
  output,
  cacheRead,
  cacheWrite: 0,
  totalTokens: input + output + cacheRead,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: input + output > 0 ? 0.002 : 0 },
});
const assistant = (stopReason: string, text: string | null, extra: object = {}) => ({
  type: 'message_end',
  message: {
    role: 'assistant',
    content: text === null ? [] : [{ type: 'text', text }],
    provider: 'scripted',
    model: 'fake-model',
    usage: text === null ? usage(0, 0) : usage(300, 25, 800),
    stopReason,
    timestamp: 1796475930516,
    ...extra,
  },
});
const agentEnd = { type: 'agent_end', messages: [] };

function decodeAll(profile: ProviderProfile | 'pi', lines: readonly object[]): AnyEvent[] {
  const decoder = profile === 'pi' ? createDecoder('pi', { clock: CLOCK }) : decoderFor(profile, { clock: CLOCK });
  return [...lines.flatMap((line) => decoder.push(JSON.stringify(line))), ...decoder.end({ code: 0, signal: null })];
}
const payload = (event: AnyEvent | undefined) => (wire(event!) as { payload: Record<string, unknown> }).payload;
const ofKind = (events: AnyEvent[], kind: string) => events.filter((event) => event.kind === kind).map(payload);

describe('the pi profile', () => {
  it('is detected by its header and its agent events, after every other CLI', () => {
    expect(detectProvider(header)).toBe('pi');
    expect(detectProvider({ type: 'agent_start' })).toBe('pi');
    expect(detectProvider({ type: 'session', id: 'x' })).toBeNull();
  });

  it("reads a model call's usage as a delta whose input counts the cache, and its price", () => {
    const events = decodeAll('pi', [header, assistant('stop', 'Hi.'), agentEnd]);
    expect(ofKind(events, 'cost_update')).toEqual([
      expect.objectContaining({
        input_tokens: 1100,
        output_tokens: 25,
        cost_usd: 0.002,
        metadata: expect.objectContaining({ aggregation: 'delta', cache_read_input_tokens: 800 }),
      }),
    ]);
    expect(ofKind(events, 'result')).toEqual([expect.objectContaining({ status: 'completed', output: 'Hi.' })]);
  });

  it('an aborted answer ends the prompt aborted, with no error and no usage made of zeros', () => {
    const events = decodeAll('pi', [header, assistant('aborted', null), agentEnd]);
    expect(ofKind(events, 'error')).toEqual([]);
    expect(ofKind(events, 'cost_update')).toEqual([]);
    expect(ofKind(events, 'result')).toEqual([expect.objectContaining({ status: 'aborted', stop_reason: 'aborted' })]);
  });

  it('an answer cut at its length limit fails the prompt (max_tokens); the next prompt starts afresh', () => {
    const events = decodeAll('pi', [header, assistant('length', 'Half an ans'), agentEnd, assistant('stop', 'Whole.'), agentEnd]);
    expect(ofKind(events, 'error')).toEqual([expect.objectContaining({ code: 'max_tokens' })]);
    expect(ofKind(events, 'result').map((result) => [result.status, result.output])).toEqual([
      ['failed', null],
      ['completed', 'Whole.'],
    ]);
  });

  it("a failed model call is read from the message's errorMessage (its HTTP status), though pi exits 0", () => {
    const events = decodeAll('pi', [header, assistant('error', null, { errorMessage: '429 rate limited' }), agentEnd]);
    expect(ofKind(events, 'error')).toEqual([expect.objectContaining({ message: '429 rate limited', code: 'rate_limit' })]);
    expect(ofKind(events, 'result')).toEqual([expect.objectContaining({ status: 'failed' })]);
  });
});

describe('the pi RPC session', () => {
  it("announces the session from get_state's answer, the one line that names it", () => {
    const events = decodeAll(piRpcProfile, [
      {
        id: 'host_1',
        type: 'response',
        command: 'get_state',
        success: true,
        data: { sessionId: 'abc', model: { id: 'm', provider: 'p' } },
      },
    ]);
    expect(events[0]).toMatchObject({ kind: 'run_started', provider_session_id: 'abc', payload: { provider_session_id: 'abc' } });
  });

  it('a prompt refused for want of a key (what 0.73.1 answers with no credentials) is an auth error', () => {
    const error =
      'No API key found for the selected model.\n\nUse /login to log into a provider via OAuth or API key. See:\n  docs/providers.md';
    const events = decodeAll(piRpcProfile, [{ id: 'host_2', type: 'response', command: 'prompt', success: false, error }]);
    expect(ofKind(events, 'result')).toEqual([expect.objectContaining({ status: 'failed' })]);
    expect(ofKind(events, 'error')[0]).toMatchObject({ message: error, code: 'auth' });
  });

  it("a refused prompt ends its turn failed; another confirm than the approval extension's is asked as it is", () => {
    const events = decodeAll(piRpcProfile, [
      { id: 'host_2', type: 'response', command: 'prompt', success: false, error: 'Agent is already streaming' },
      { type: 'extension_ui_request', id: 'u1', method: 'confirm', title: 'Clear session?', message: 'All messages will be lost.' },
    ]);
    expect(ofKind(events, 'result')).toEqual([expect.objectContaining({ status: 'failed' })]);
    expect(ofKind(events, 'error')[0]).toMatchObject({ message: 'Agent is already streaming', code: 'execution' });
    expect(ofKind(events, 'approval_requested')).toEqual([
      expect.objectContaining({
        approval_id: 'u1',
        subject: 'Clear session?',
        details: { title: 'Clear session?', message: 'All messages will be lost.' },
      }),
    ]);
  });

  it('answers a confirm with the decision (a withdrawn one cancelled), cancels a dialog it does not handle, and aborts without an id', () => {
    const written: JsonObject[] = [];
    const protocol = piRpc({ write: (message) => written.push(message), fail: () => undefined }, 'pi', { provider: 'pi' });
    protocol.open();
    protocol.peer.receive({ type: 'extension_ui_request', id: 'u2', method: 'select', title: 'Which?', options: ['a'] });
    protocol.peer.receive({ type: 'extension_ui_request', id: 'u3', method: 'notify', message: 'hello' });
    protocol.answer('u4', { decision: 'allow' });
    protocol.answer('u5', { decision: 'deny' });
    protocol.answer('u6', null);
    protocol.interrupt();
    expect(written).toEqual([
      { id: 'host_1', type: 'get_state' },
      { type: 'extension_ui_response', id: 'u2', cancelled: true },
      { type: 'extension_ui_response', id: 'u4', confirmed: true },
      { type: 'extension_ui_response', id: 'u5', confirmed: false },
      { type: 'extension_ui_response', id: 'u6', cancelled: true },
      { type: 'abort' },
    ]);
  });

  it('a command pi refuses rejects with its error; an answer without our id is not ours', async () => {
    const peer = new JsonLinesPeer(PI_RPC, () => undefined);
    const sent = peer.request('get_state');
    expect(peer.receive({ type: 'response', command: 'abort', success: true })).toEqual({ type: 'other' });
    peer.receive({ id: sent.id, type: 'response', command: 'get_state', success: false, error: 'no session' });
    await expect(sent).rejects.toEqual(new PeerError({ code: -32603, message: 'no session' }));
  });
});
