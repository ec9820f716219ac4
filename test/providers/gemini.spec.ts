import 'reflect-metadata';
import { wire } from '../wire';
import type { AnyEvent } from '../../src';
import { createDecoder, type Decoder } from '../../src/decode/decoder';
import { detectProvider } from '../../src/decode/detect';
import { geminiProfile } from '../../src/providers/gemini';
import type { JsonObject } from '../../src/schema/json';

/* The Gemini CLI profile, rule by rule, on lines shaped as `gemini -p … --output-format stream-json` prints them. */

const CLOCK = (): Date => new Date('2030-01-01T00:00:00.000Z');
const SESSION = '24d86213-2a61-4ec7-8e85-a97d179fcac9';

const init = { type: 'init', timestamp: '2026-12-03T11:36:07.916Z', session_id: SESSION, model: 'auto' };
const user = { type: 'message', timestamp: '2026-12-03T11:36:07.918Z', role: 'user', content: 'Say hello.' };
const delta = (content: string, timestamp = '2026-12-03T11:36:07.987Z') => ({
  type: 'message',
  timestamp,
  role: 'assistant',
  content,
  delta: true,
});
const toolUse = {
  type: 'tool_use',
  timestamp: '2026-12-03T11:36:15.281Z',
  tool_name: 'run_shell_command',
  tool_id: 'run_shell_command__1',
  parameters: { command: 'echo hi', description: 'Say hi' },
};
const stats = {
  total_tokens: 275,
  input_tokens: 240,
  output_tokens: 35,
  cached: 64,
  input: 176,
  duration_ms: 116,
  tool_calls: 0,
  models: { 'gemini-3.8-flash': { total_tokens: 129 } },
};
const success = { type: 'result', timestamp: '2026-12-03T11:36:08.032Z', status: 'success', stats };

function decoder(): Decoder {
  return createDecoder('gemini', { clock: CLOCK });
}

/** Every event of `lines` pushed in order, then `end()` (with a clean exit unless told). */
function decodeAll(
  lines: readonly (object | string)[],
  exit: { code: number | null; signal: string | null } | undefined = { code: 0, signal: null },
): AnyEvent[] {
  const d = decoder();
  const events = lines.flatMap((line) => d.push(typeof line === 'string' ? line : JSON.stringify(line)));
  return [...events, ...d.end(exit)];
}

const kinds = (events: AnyEvent[]) => events.map((event) => event.kind);
const payload = (event: AnyEvent | undefined) => (wire(event!) as { payload: Record<string, unknown> }).payload;

describe('assistant text', () => {
  it('emits each delta byte for byte and one assistant_message with their concatenation', () => {
    // Cut mid-word, mid-line, with trailing spaces, a newline and non-ASCII text, as the CLI cuts them.
    const pieces = ['Hel', 'lo  wor', 'ld,\n  ça ', 'va? 👋', ' '];
    const events = decodeAll([init, ...pieces.map((piece) => delta(piece)), success]);
    const deltas = events.filter((event) => event.kind === 'assistant_delta');
    expect(deltas.map((event) => payload(event).content)).toEqual(pieces);
    const messages = events.filter((event) => event.kind === 'assistant_message');
    expect(messages).toHaveLength(1);
    expect(payload(messages[0]).content).toEqual([{ type: 'text', text: pieces.join('') }]);
    expect(payload(messages[0]).model).toBe('auto');
  });

  it('releases the message before the events of the next line that is not a delta', () => {
    const events = decodeAll([init, user, delta('I will '), delta('run it.'), toolUse, success]);
    expect(kinds(events)).toEqual([
      'run_started',
      'user_message',
      'assistant_delta',
      'assistant_delta',
      'assistant_message',
      'tool_use',
      'cost_update',
      'result',
    ]);
    // It belongs to the deltas: their time and no native line of its own.
    const message = events[4];
    expect(message.timestamp.toISOString()).toBe('2026-12-03T11:36:07.987Z');
    expect(message.raw).toBeNull();
  });

  it('gives one message per run of deltas', () => {
    const events = decodeAll([init, delta('First.'), toolUse, delta('Sec'), delta('ond.'), success]);
    const texts = events.filter((event) => event.kind === 'assistant_message').map((event) => payload(event).content);
    expect(texts).toEqual([[{ type: 'text', text: 'First.' }], [{ type: 'text', text: 'Second.' }]]);
  });

  it('releases open text at end(), before what the run still owes', () => {
    const d = decoder();
    d.push(JSON.stringify(init));
    d.push(JSON.stringify(delta('unfinished')));
    const owed = d.end();
    expect(kinds(owed)).toEqual(['assistant_message', 'error', 'result']);
    expect(payload(owed[0]).content).toEqual([{ type: 'text', text: 'unfinished' }]);
    expect(d.end()).toEqual([]);
  });

  it('releases open text before a line that is not JSON, which stays a raw event', () => {
    const events = decodeAll([init, delta('Hi'), 'Ripgrep is not available.', success]);
    expect(kinds(events)).toEqual(['run_started', 'assistant_delta', 'assistant_message', 'raw', 'cost_update', 'result']);
    expect(payload(events[3]).content).toBe('Ripgrep is not available.');
  });

  it('maps an assistant message without delta to an assistant_message at once', () => {
    const events = decodeAll([init, { type: 'message', role: 'assistant', content: 'Whole answer.' }, success]);
    expect(kinds(events)).toEqual(['run_started', 'assistant_message', 'cost_update', 'result']);
    expect(payload(events[1]).content).toEqual([{ type: 'text', text: 'Whole answer.' }]);
  });
});

describe('lines', () => {
  it('init is run_started with the session id and the model; the session id and line times apply from there on', () => {
    const events = decodeAll([init, user]);
    expect(payload(events[0])).toMatchObject({ provider_session_id: SESSION, metadata: { model: 'auto' } });
    expect(events.every((event) => event.provider_session_id === SESSION)).toBe(true);
    expect(events.every((event) => event.provider === 'gemini')).toBe(true);
    expect(events[0].timestamp.toISOString()).toBe('2026-12-03T11:36:07.916Z');
    expect(events[1].timestamp.toISOString()).toBe('2026-12-03T11:36:07.918Z');
  });

  it('a user message is a user_message with one text block', () => {
    const [, event] = decodeAll([init, user]);
    expect(event.kind).toBe('user_message');
    expect(payload(event).content).toEqual([{ type: 'text', text: 'Say hello.' }]);
  });

  it('tool_use and a successful tool_result share the tool id', () => {
    const events = decodeAll([init, toolUse, { type: 'tool_result', tool_id: 'run_shell_command__1', status: 'success', output: 'hi' }]);
    expect(events[1].kind).toBe('tool_use');
    expect(payload(events[1])).toMatchObject({
      tool_name: 'run_shell_command',
      tool_call_id: 'run_shell_command__1',
      input: { command: 'echo hi', description: 'Say hi' },
    });
    expect(events[2].kind).toBe('tool_result');
    expect(payload(events[2])).toMatchObject({ tool_call_id: 'run_shell_command__1', content: 'hi', is_error: false });
  });

  it('a tool_result with status error is an error, its content the output or else the error message', () => {
    const error = { type: 'invalid_tool_params', message: 'Command cannot be empty.' };
    const events = decodeAll([
      { type: 'tool_result', tool_id: 't1', status: 'error', output: 'Shown output.', error },
      { type: 'tool_result', tool_id: 't2', status: 'error', error },
    ]);
    expect(payload(events[0])).toMatchObject({ tool_call_id: 't1', content: 'Shown output.', is_error: true, metadata: { error } });
    expect(payload(events[1])).toMatchObject({ tool_call_id: 't2', content: 'Command cannot be empty.', is_error: true });
  });

  it('an error line is an error event of its severity', () => {
    const events = decodeAll([
      { type: 'error', severity: 'warning', message: 'Loop detected, stopping execution' },
      { type: 'error', severity: 'error', message: 'Maximum session turns exceeded' },
    ]);
    expect(payload(events[0])).toMatchObject({ message: 'Loop detected, stopping execution', severity: 'warning' });
    expect(payload(events[1])).toMatchObject({ message: 'Maximum session turns exceeded', severity: 'error' });
  });

  it('a successful result is cost_update (input with the cache in it, stats kept) then a completed result', () => {
    const events = decodeAll([init, success]);
    expect(kinds(events)).toEqual(['run_started', 'cost_update', 'result']);
    expect(payload(events[1])).toMatchObject({
      input_tokens: 240,
      output_tokens: 35,
      total_tokens: 275,
      cost_usd: 0,
      metadata: {
        aggregation: 'cumulative',
        cost_reported: false,
        cache_read_input_tokens: 64,
        native_usage: { cached: 64, input: 176, duration_ms: 116, tool_calls: 0, models: { 'gemini-3.8-flash': { total_tokens: 129 } } },
      },
    });
    expect(payload(events[2]).status).toBe('completed');
  });

  // #18 "Gemini wraps JSON in [API Error: …]": the body is read, and the code is neutral (not Gemini's "unknown").
  it('a failed result carries the API error, body read, in one error event before the failed result', () => {
    const message = '[API Error: {"error":{"code":400,"message":"scripted invalid request","status":"INVALID_ARGUMENT"}}]';
    const events = decodeAll([init, { type: 'result', status: 'error', error: { type: 'unknown', message }, stats }], {
      code: 144,
      signal: null,
    });
    expect(kinds(events)).toEqual(['run_started', 'cost_update', 'error', 'result']);
    expect(payload(events[2])).toMatchObject({
      message: 'scripted invalid request',
      code: 'invalid_request',
      severity: 'error',
      metadata: { native_code: 'INVALID_ARGUMENT', http_status: 400 },
    });
    expect(payload(events[3]).status).toBe('failed');
  });

  it('an error line fails the run: one error event, and the result after it is failed', () => {
    // Gemini CLI prints an invalid stream as an error line, then a result with status error and no error object.
    const events = decodeAll([
      init,
      { type: 'error', severity: 'error', message: 'Model stream ended with empty response text.' },
      { type: 'result', status: 'error', stats },
    ]);
    expect(kinds(events)).toEqual(['run_started', 'error', 'cost_update', 'result']);
    expect(payload(events[1])).toMatchObject({ message: 'Model stream ended with empty response text.', code: 'execution' });
    expect(payload(events[3]).status).toBe('failed');
  });

  // #18 "Gemini Maximum session turns exceeded ends completed while Claude's error_max_turns ends failed".
  it('"Maximum session turns exceeded" fails the run (code max_turns) although the result says success', () => {
    const events = decodeAll([init, { type: 'error', severity: 'error', message: 'Maximum session turns exceeded' }, success]);
    expect(kinds(events)).toEqual(['run_started', 'error', 'cost_update', 'result']);
    expect(payload(events[1])).toMatchObject({ code: 'max_turns', severity: 'error' });
    expect(payload(events[3])).toMatchObject({ status: 'failed', output: null });
  });

  // #18 "Gemini's result.output is always null (Claude and Codex fill it)".
  it("the result's output is the last assistant message", () => {
    const delta = (content: string) => ({ type: 'message', role: 'assistant', content, delta: true });
    const events = decodeAll([
      init,
      delta('Let me look.'),
      { type: 'tool_use', tool_name: 'ls', tool_id: 't1', parameters: {} },
      { type: 'tool_result', tool_id: 't1', status: 'success', output: 'a' },
      delta('It is '),
      delta('a.'),
      success,
    ]);
    expect(payload(events[events.length - 1])).toMatchObject({ status: 'completed', output: 'It is a.' });
  });

  it('a result without stats has no cost_update', () => {
    expect(kinds(decodeAll([{ type: 'result', status: 'success' }]))).toEqual(['result']);
  });

  it('lines it cannot map stay raw events, and odd values never throw', () => {
    const odd = [
      { type: 'heartbeat' },
      { type: 'message', role: 'assistant', content: 42, delta: true },
      { type: 'message', role: 'system', content: 'x' },
      { type: 'error', severity: 'error' },
      { type: 'tool_use', tool_id: 7, parameters: ['not', 'an', 'object'] },
      { type: 'result', status: 'success', stats: { input_tokens: -5, output_tokens: 'many' } },
    ];
    const events = decodeAll(odd);
    expect(kinds(events).slice(0, 4)).toEqual(['raw', 'raw', 'raw', 'raw']);
    expect(payload(events[4])).toMatchObject({ tool_name: null, tool_call_id: null, input: {} });
    expect(payload(events[5])).toMatchObject({ input_tokens: 0, output_tokens: 0, total_tokens: 0 });
    expect(events.map((event) => event.sequence)).toEqual(events.map((_, index) => index));
  });
});

describe('detect', () => {
  it('recognises every Gemini line type', () => {
    const lines: JsonObject[] = [
      init,
      user,
      delta('x'),
      toolUse,
      { type: 'tool_result', tool_id: 't', status: 'success' },
      { type: 'error', severity: 'warning', message: 'm' },
      success,
    ];
    for (const line of lines) {
      expect(geminiProfile.detect(line)).toBe(true);
    }
    expect(detectProvider(JSON.stringify(init))).toBe('gemini');
  });

  it('does not claim other providers’ lines of the same type names', () => {
    const others: JsonObject[] = [
      { type: 'system', subtype: 'init', session_id: 's' }, // Claude's init
      { type: 'result', subtype: 'success', is_error: false, status: 'success' }, // a Claude-like result
      { type: 'tool_use', sessionID: 's', part: { callID: 'c', tool: 'bash' } }, // OpenCode
      { type: 'error', sessionID: 's', error: { name: 'APIError' } }, // OpenCode
      { type: 'thread.started', thread_id: 't' }, // Codex
      { type: 'message', role: 'user', content: [{ type: 'text', text: 'x' }] }, // content blocks, not Gemini's string
    ];
    for (const line of others) expect(geminiProfile.detect(line)).toBe(false);
  });

  it('auto decoding adopts Gemini from its init line', () => {
    const d = createDecoder('auto', { clock: CLOCK });
    const events = [init, delta('ok'), success].flatMap((line) => d.push(JSON.stringify(line)));
    expect(d.provider).toBe('gemini');
    expect(d.sessionId).toBe(SESSION);
    expect(kinds(events)).toEqual(['run_started', 'assistant_delta', 'assistant_message', 'cost_update', 'result']);
  });
});
