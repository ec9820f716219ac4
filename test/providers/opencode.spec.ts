import 'reflect-metadata';
import { wire } from '../wire';
import type { AnyEvent } from '../../src';
import { createDecoder, type ExitInfo } from '../../src/decode/decoder';
import { detectProvider } from '../../src/decode/detect';
import { opencodeProfile } from '../../src/providers/opencode';
import type { JsonObject } from '../../src/schema/json';
import { fixtures, nativeLines } from './fixtures';

/* The OpenCode profile, rule by rule, on lines shaped as `opencode run --format json` prints them (run.ts). */

const CLOCK = (): Date => new Date('2030-01-01T00:00:00.000Z');
const SESSION = 'ses_17991b726ffezSLOoMYnmU961P';

const envelope = (type: string, body: object, timestamp = 1780371838546) => ({ type, timestamp, sessionID: SESSION, ...body });
const stepStart = (messageID = 'msg_1') =>
  envelope('step_start', { part: { id: 'prt_s', messageID, sessionID: SESSION, snapshot: 'abc', type: 'step-start' } });
const text = (value: string) =>
  envelope('text', {
    part: { id: 'prt_t', messageID: 'msg_1', sessionID: SESSION, type: 'text', text: value, time: { start: 1, end: 2 } },
  });
const tool = (state: object) =>
  envelope('tool_use', {
    part: { id: 'prt_u', messageID: 'msg_1', sessionID: SESSION, type: 'tool', tool: 'bash', callID: 'call_1', state },
  });
const stepFinish = (reason: string, extra: object = {}) =>
  envelope('step_finish', {
    part: {
      id: 'prt_f',
      reason,
      messageID: 'msg_1',
      sessionID: SESSION,
      type: 'step-finish',
      tokens: { total: 8591, input: 51, output: 21, reasoning: 3, cache: { write: 0, read: 8519 } },
      cost: 0.0125,
      ...extra,
    },
  });
const error = (message: string) => envelope('error', { error: { name: 'UnknownError', data: { message } } });

/** Every event of `lines` pushed in order, then `end(exit)`; `'file'` ends with no exit information. */
function decodeAll(lines: readonly (object | string)[], exit: ExitInfo | 'file' = { code: 0, signal: null }): AnyEvent[] {
  const decoder = createDecoder('opencode', { clock: CLOCK });
  const events = lines.flatMap((line) => decoder.push(typeof line === 'string' ? line : JSON.stringify(line)));
  return [...events, ...decoder.end(exit === 'file' ? undefined : exit)];
}

const kinds = (events: AnyEvent[]) => events.map((event) => event.kind);
const payload = (event: AnyEvent | undefined) => (wire(event!) as { payload: Record<string, unknown> }).payload;
const ofKind = (events: AnyEvent[], kind: string) => events.filter((event) => event.kind === kind).map(payload);

describe('detect', () => {
  it('recognises every line type run --format json prints, by its camelCase sessionID', () => {
    for (const line of [
      stepStart(),
      text('hi'),
      tool({ status: 'completed' }),
      stepFinish('stop'),
      error('x'),
      envelope('reasoning', { part: {} }),
      envelope('done', { reason: 'idle', rejected: [] }),
    ]) {
      expect(opencodeProfile.detect(line as JsonObject)).toBe(true);
    }
  });

  it('does not claim Claude Code, Codex, Gemini or Cursor lines', () => {
    const others: object[] = [
      { type: 'system', subtype: 'init', session_id: 'u', tools: [], mcp_servers: [], uuid: 'u-1' },
      { type: 'thread.started', thread_id: 't-1' },
      // Gemini also has tool_use and error lines, but with snake_case session ids and tool_id/severity.
      {
        type: 'tool_use',
        timestamp: '2026-12-03T11:36:15.281Z',
        tool_name: 'run_shell_command',
        tool_id: 'run_shell_command__1',
        parameters: {},
      },
      { type: 'error', timestamp: '2026-12-03T11:36:15.281Z', severity: 'error', message: 'boom' },
      { type: 'tool_call', subtype: 'started', call_id: 'c', tool_call: {}, session_id: 'u' },
      { type: 'text', part: { text: 'no session' } },
    ];
    for (const line of others) expect(opencodeProfile.detect(line as JsonObject)).toBe(false);
  });

  it('names every OpenCode fixture opencode from its first JSON line', () => {
    for (const fixture of fixtures('opencode')) {
      const first = nativeLines(fixture).find((line) => line.startsWith('{'));
      expect(detectProvider(first ?? '')).toBe('opencode');
    }
  });
});

describe('steps, text and thinking', () => {
  it('announces the run at the first step_start, with the sessionID, and keeps later step_starts as raw', () => {
    const events = decodeAll([stepStart(), stepFinish('tool-calls'), stepStart('msg_2'), stepFinish('stop')]);
    expect(kinds(events)).toEqual(['run_started', 'cost_update', 'raw', 'cost_update', 'result']);
    expect(payload(events[0])).toMatchObject({ provider_session_id: SESSION, metadata: { snapshot: 'abc' } });
    expect(events.every((event) => event.provider_session_id === SESSION)).toBe(true);
  });

  it('maps a text part to assistant_message, byte for byte', () => {
    expect(ofKind(decodeAll([stepStart(), text('\n\nHello')]), 'assistant_message')).toEqual([
      expect.objectContaining({ content: [{ type: 'text', text: '\n\nHello' }], metadata: { part_id: 'prt_t', message_id: 'msg_1' } }),
    ]);
  });

  it('maps a reasoning part (--thinking) to thinking', () => {
    const reasoning = envelope('reasoning', { part: { id: 'prt_r', messageID: 'msg_1', type: 'reasoning', text: 'Checking go.mod.' } });
    expect(ofKind(decodeAll([stepStart(), reasoning]), 'thinking')).toEqual([expect.objectContaining({ content: 'Checking go.mod.' })]);
  });

  it('takes the time of a line from its timestamp (epoch ms)', () => {
    const [started] = decodeAll([stepStart()]);
    expect(started.timestamp.toISOString()).toBe(new Date(1780371838546).toISOString());
  });
});

describe('tool_use lines', () => {
  it('gives one tool_use and its tool_result, with the same call id, for a completed tool part', () => {
    const events = decodeAll([
      stepStart(),
      tool({ status: 'completed', input: { command: 'go version' }, output: 'go1.26\n', metadata: { exit: 0 }, title: 'go version' }),
    ]);
    expect(kinds(events).slice(1, 3)).toEqual(['tool_use', 'tool_result']);
    expect(payload(events[1])).toMatchObject({ tool_name: 'bash', tool_call_id: 'call_1', input: { command: 'go version' } });
    expect(payload(events[2])).toMatchObject({
      tool_call_id: 'call_1',
      content: 'go1.26\n',
      is_error: false,
      metadata: { status: 'completed', title: 'go version' },
    });
  });

  it('marks a failed tool part (a rejected permission) and a non-zero bash exit as errors', () => {
    const rejected = tool({ status: 'error', input: {}, error: 'The user rejected permission to use this specific tool call.' });
    expect(ofKind(decodeAll([stepStart(), rejected]), 'tool_result')[0]).toMatchObject({
      is_error: true,
      content: 'The user rejected permission to use this specific tool call.',
    });
    const failed = tool({ status: 'completed', input: { command: 'false' }, output: '', metadata: { exit: 1 } });
    expect(ofKind(decodeAll([stepStart(), failed]), 'tool_result')[0]).toMatchObject({ is_error: true });
  });

  it('gives only the tool_use for a part that has not finished', () => {
    expect(kinds(decodeAll([stepStart(), tool({ status: 'running', input: {} })])).slice(1, 2)).toEqual(['tool_use']);
  });
});

describe('end of the run', () => {
  it('reports each step’s own tokens and cost, and does not end the run at tool-calls', () => {
    const events = decodeAll([stepStart(), stepFinish('tool-calls')], 'file');
    // OpenCode's own input leaves the cache out and its output the reasoning: the convention counts both in.
    expect(payload(events[1])).toMatchObject({
      input_tokens: 51 + 8519,
      output_tokens: 21 + 3,
      total_tokens: 8594,
      cost_usd: 0.0125,
      metadata: {
        aggregation: 'delta',
        cost_reported: true,
        reasoning_output_tokens: 3,
        cache_read_input_tokens: 8519,
        native_usage: { input: 51, output: 21 },
      },
    });
    // No terminal line: decoding a file, the decoder's own end of stream owes a warning.
    expect(ofKind(events, 'error')).toEqual([expect.objectContaining({ code: 'no_result', severity: 'warning' })]);
  });

  it('ends the run at step_finish reason stop (versions without done), with the final step’s text as output', () => {
    const events = decodeAll([
      stepStart(),
      text('Listing.'),
      stepFinish('tool-calls'),
      stepStart('msg_2'),
      text('Go '),
      text('1.26.3'),
      stepFinish('stop'),
    ]);
    expect(kinds(events).slice(-2)).toEqual(['cost_update', 'result']);
    expect(payload(events.at(-1))).toMatchObject({ status: 'completed', stop_reason: 'stop', output: 'Go 1.26.3' });
  });

  it('fails the run when the model stopped for length, an error or a content filter', () => {
    for (const reason of ['length', 'error', 'content-filter']) {
      const events = decodeAll([stepStart(), stepFinish(reason)]);
      expect(kinds(events).slice(-2)).toEqual(['error', 'result']);
      expect(payload(events.at(-1))).toMatchObject({ status: 'failed', stop_reason: reason });
    }
  });

  // A model call refused at once fails before any step: the error line alone announces the run, with its session.
  it('maps an error line before any step to run_started, an error and a failed result, even when the CLI exits 0', () => {
    const events = decodeAll([error('Model not found: nonexistent/nonexistent.')], { code: 0, signal: null });
    expect(kinds(events)).toEqual(['run_started', 'error', 'result']);
    expect(payload(events[0])).toMatchObject({ provider_session_id: SESSION });
    expect(events.map((event) => event.provider_session_id)).toEqual([SESSION, SESSION, SESSION]);
    expect(payload(events[1])).toMatchObject({
      message: 'Model not found: nonexistent/nonexistent.',
      code: 'api_error',
      severity: 'error',
      metadata: { native_code: 'UnknownError' },
    });
    expect(payload(events[2])).toMatchObject({ status: 'failed' });
  });

  it('an error after the first step announces nothing again', () => {
    expect(kinds(decodeAll([stepStart(), error('Model not found.')]))).toEqual(['run_started', 'error', 'result']);
  });

  it('keeps a second error (v1.14.50 prints two per failure) as a plain error, without a second result', () => {
    const events = decodeAll([error('Model not found.'), error('Unexpected server error. Check server logs for details.')]);
    expect(kinds(events)).toEqual(['run_started', 'error', 'result', 'error']);
  });

  it('reads the error text from error.data.message, error.message or a plain string', () => {
    const shapes = [{ error: { type: 'unknown', message: 'flat' } }, { error: 'plain' }];
    expect(
      decodeAll(shapes.map((body) => envelope('error', body)))
        .filter((event) => event.kind === 'error')
        .map((event) => payload(event).message),
    ).toEqual(['flat', 'plain']);
  });

  it('maps done to the result when no step ended the run, and keeps it as raw after one did', () => {
    const done = envelope('done', { reason: 'idle', rejected: ['external_directory'] });
    const alone = decodeAll([stepStart(), text('hi'), stepFinish('tool-calls'), done]);
    expect(payload(alone.at(-1))).toMatchObject({
      status: 'completed',
      stop_reason: 'idle',
      output: 'hi',
      metadata: { rejected: ['external_directory'] },
    });
    expect(kinds(decodeAll([stepStart(), stepFinish('stop'), done])).slice(-2)).toEqual(['result', 'raw']);
  });

  it('owes a fatal no_result when the process fails before any terminal line', () => {
    const events = decodeAll([stepStart(), stepFinish('tool-calls')], { code: 1, signal: null });
    expect(ofKind(events, 'error')).toEqual([expect.objectContaining({ code: 'no_result', severity: 'fatal' })]);
  });
});

describe('other lines', () => {
  it('keeps the plain-text permission warning and unknown types as raw', () => {
    const events = decodeAll(['! permission requested: bash; auto-rejecting', envelope('file_watched', { part: {} })]);
    expect(kinds(events).slice(0, 2)).toEqual(['raw', 'raw']);
  });

  it('never throws on lines with odd field types', () => {
    const odd = [
      envelope('tool_use', { part: 'x' }),
      envelope('step_finish', { part: { reason: 5, tokens: [], cost: 'free' } }),
      envelope('text', { part: { text: null } }),
      envelope('error', { error: 42 }),
      { type: 'step_start', sessionID: 7 },
    ];
    expect(decodeAll(odd).length).toBeGreaterThanOrEqual(odd.length);
  });
});
