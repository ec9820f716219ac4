import 'reflect-metadata';
import { wire } from '../wire';
import type { AnyEvent } from '../../src';
import { cursorProfile } from '../../src/providers/cursor';
import { createDecoder } from '../../src/decode/decoder';
import { detectProvider } from '../../src/decode/detect';
import type { JsonObject } from '../../src/schema/json';
import { fixtures, nativeLines } from './fixtures';

/* The Cursor CLI profile, rule by rule, on lines shaped as `cursor-agent -p --output-format stream-json` prints them. */

const CLOCK = (): Date => new Date('2030-01-01T00:00:00.000Z');
const SESSION = '882ad27e-1163-4e0e-90b1-b737106081ba';

const init = {
  type: 'system',
  subtype: 'init',
  apiKeySource: 'login',
  cwd: '/work',
  session_id: SESSION,
  model: 'Auto',
  permissionMode: 'default',
};
const assistant = (text: string, extra: object = {}) => ({
  type: 'assistant',
  message: { role: 'assistant', content: [{ type: 'text', text }] },
  session_id: SESSION,
  ...extra,
});
const token = (text: string, ms = 1790994290498) => assistant(text, { timestamp_ms: ms });
const thinking = (subtype: string, text?: string) => ({
  type: 'thinking',
  subtype,
  ...(text === undefined ? {} : { text }),
  session_id: SESSION,
  timestamp_ms: 1790994290493,
});
const toolCall = (subtype: string, callId: string, tool: object) => ({
  type: 'tool_call',
  subtype,
  call_id: callId,
  tool_call: tool,
  session_id: SESSION,
});
const shellStarted = toolCall('started', 'call-1', {
  shellToolCall: { args: { command: 'echo hi' } },
  toolCallId: 'call-1',
  startedAtMs: '1790994290546',
});
const shellDone = (result: object) => toolCall('completed', 'call-1', { shellToolCall: { args: { command: 'echo hi' }, result } });
const result = (extra: object = {}) => ({
  type: 'result',
  subtype: 'success',
  duration_ms: 1902,
  duration_api_ms: 1902,
  is_error: false,
  result: 'alpha',
  session_id: SESSION,
  request_id: 'r-1',
  ...extra,
});

/** Every event of `lines` pushed in order, then `end()` with a clean exit. */
function decodeAll(lines: readonly (object | string)[]): AnyEvent[] {
  const decoder = createDecoder('cursor', { clock: CLOCK });
  const events = lines.flatMap((line) => decoder.push(typeof line === 'string' ? line : JSON.stringify(line)));
  return [...events, ...decoder.end({ code: 0, signal: null })];
}

const kinds = (events: AnyEvent[]) => events.map((event) => event.kind);
const payload = (event: AnyEvent | undefined) => (wire(event!) as { payload: Record<string, unknown> }).payload;
const ofKind = (events: AnyEvent[], kind: string) => events.filter((event) => event.kind === kind).map(payload);

describe('detect', () => {
  it('recognises the init line and the lines only Cursor prints', () => {
    for (const line of [
      init,
      thinking('delta', 'x'),
      shellStarted,
      token('hi'),
      result(),
      { type: 'connection', subtype: 'reconnected', session_id: SESSION },
    ]) {
      expect(cursorProfile.detect(line as JsonObject)).toBe(true);
    }
  });

  it('does not claim Claude Code, Codex, Gemini or OpenCode lines', () => {
    const others = [
      // Claude Code: init lists tools and MCP servers; every line has a uuid; result has total_cost_usd.
      {
        type: 'system',
        subtype: 'init',
        cwd: '/w',
        session_id: SESSION,
        tools: ['Bash'],
        mcp_servers: [],
        model: 'claude-sonnet-4',
        permissionMode: 'default',
        apiKeySource: 'none',
        uuid: 'u-1',
      },
      { type: 'assistant', message: { role: 'assistant', content: [] }, parent_tool_use_id: null, session_id: SESSION, uuid: 'u-2' },
      {
        type: 'result',
        subtype: 'success',
        is_error: false,
        total_cost_usd: 0.01,
        num_turns: 1,
        result: 'ok',
        session_id: SESSION,
        usage: { input_tokens: 1 },
      },
      { type: 'thread.started', thread_id: 't-1' },
      { type: 'init', timestamp: '2026-12-03T11:36:07.916Z', session_id: SESSION, model: 'auto' },
      { type: 'step_start', timestamp: 1, sessionID: 'ses_1', part: { type: 'step-start' } },
      // Cursor's own user and whole-message lines look like any assistant/user line: not claimed alone.
      assistant('hi'),
    ];
    for (const line of others) expect(cursorProfile.detect(line as JsonObject)).toBe(false);
  });

  it('names every Cursor fixture cursor from its first line, with Claude asked first', () => {
    for (const fixture of fixtures('cursor')) expect(detectProvider(nativeLines(fixture)[0])).toBe('cursor');
  });
});

describe('run_started and user_message', () => {
  it('maps system/init to run_started and announces the session id', () => {
    const events = decodeAll([init]);
    expect(events[0].kind).toBe('run_started');
    expect(payload(events[0])).toMatchObject({
      provider_session_id: SESSION,
      cwd: '/work',
      metadata: { model: 'Auto', apiKeySource: 'login', permissionMode: 'default' },
    });
    expect(events.every((event) => event.provider_session_id === SESSION)).toBe(true);
  });

  it('maps the prompt echo to user_message', () => {
    const events = decodeAll([
      init,
      { type: 'user', message: { role: 'user', content: [{ type: 'text', text: 'Say hi' }] }, session_id: SESSION },
    ]);
    expect(ofKind(events, 'user_message')).toEqual([expect.objectContaining({ content: [{ type: 'text', text: 'Say hi' }] })]);
  });
});

describe('assistant text', () => {
  it('maps a whole message (no --stream-partial-output) to assistant_message with the init model', () => {
    const events = decodeAll([init, assistant('alpha')]);
    expect(ofKind(events, 'assistant_message')).toEqual([
      expect.objectContaining({ content: [{ type: 'text', text: 'alpha' }], model: 'Auto' }),
    ]);
  });

  it('maps token lines to assistant_delta byte for byte, and the closing whole message to assistant_message', () => {
    const events = decodeAll([init, token("I'll"), token(' run'), token(' it.\n'), assistant("I'll run it.\n")]);
    expect(kinds(events).slice(1, 5)).toEqual(['assistant_delta', 'assistant_delta', 'assistant_delta', 'assistant_message']);
    expect(ofKind(events, 'assistant_delta').map((p) => p.content)).toEqual(["I'll", ' run', ' it.\n']);
  });

  it('takes a closing line that carries model_call_id and a time as the whole message', () => {
    const events = decodeAll([init, token('a'), token('b'), assistant('ab', { model_call_id: 'm-1', timestamp_ms: 1790994290567 })]);
    expect(kinds(events).slice(1, 4)).toEqual(['assistant_delta', 'assistant_delta', 'assistant_message']);
  });

  it('starts a new message after a tool call', () => {
    const events = decodeAll([init, token('a'), shellStarted, token('a'), assistant('a')]);
    expect(kinds(events).slice(1, 5)).toEqual(['assistant_delta', 'tool_use', 'assistant_delta', 'assistant_message']);
  });
});

describe('thinking', () => {
  it('maps deltas to thinking with metadata.delta, and completed to the whole thinking text', () => {
    const events = decodeAll([init, thinking('delta', 'Running '), thinking('delta', 'it.'), thinking('completed')]);
    expect(ofKind(events, 'thinking')).toEqual([
      expect.objectContaining({ content: 'Running ', metadata: { delta: true } }),
      expect.objectContaining({ content: 'it.', metadata: { delta: true } }),
      expect.objectContaining({ content: 'Running it.', metadata: {} }),
    ]);
  });

  it('keeps a completed line with nothing before it as raw', () => {
    expect(kinds(decodeAll([init, thinking('completed')]))[1]).toBe('raw');
  });

  it('takes the time of a line from timestamp_ms', () => {
    const [, delta] = decodeAll([init, thinking('delta', 'x')]);
    expect(delta.timestamp.toISOString()).toBe(new Date(1790994290493).toISOString());
  });
});

describe('tool calls', () => {
  it('maps started to tool_use (tool name = the tool_call key) and completed to tool_result, with the same call id', () => {
    const events = decodeAll([
      init,
      shellStarted,
      shellDone({ success: { exitCode: 0, stdout: 'hi\n', stderr: '' }, isBackground: false }),
    ]);
    expect(ofKind(events, 'tool_use')).toEqual([
      expect.objectContaining({ tool_name: 'shellToolCall', tool_call_id: 'call-1', input: { command: 'echo hi' } }),
    ]);
    expect(ofKind(events, 'tool_result')).toEqual([
      expect.objectContaining({
        tool_call_id: 'call-1',
        content: { exitCode: 0, stdout: 'hi\n', stderr: '' },
        is_error: false,
        metadata: { outcome: 'success' },
      }),
    ]);
  });

  it('gives a completed call that was never started both its tool_use and its tool_result', () => {
    const events = decodeAll([init, shellDone({ success: { exitCode: 0 } })]);
    expect(kinds(events).slice(1, 3)).toEqual(['tool_use', 'tool_result']);
  });

  it('marks a rejected call, any failure outcome, and a non-zero exitCode as errors', () => {
    const outcomes = [
      { rejected: { command: 'echo hi', reason: '' } },
      { permissionDenied: { reason: 'denied' } },
      { success: { exitCode: 7, stderr: 'failed' } },
    ];
    for (const outcome of outcomes) {
      expect(ofKind(decodeAll([init, shellStarted, shellDone(outcome)]), 'tool_result')[0]).toMatchObject({ is_error: true });
    }
    expect(ofKind(decodeAll([init, shellStarted, shellDone({ startSuccess: {} })]), 'tool_result')[0]).toMatchObject({ is_error: false });
  });

  it('reads the generic function tool call: its name, and its arguments as JSON text', () => {
    const line = toolCall('started', 'call-9', { function: { name: 'mcp_search', arguments: '{"q":"x"}' } });
    expect(ofKind(decodeAll([init, line]), 'tool_use')[0]).toMatchObject({
      tool_name: 'mcp_search',
      tool_call_id: 'call-9',
      input: { q: 'x' },
    });
  });

  it('falls back to the nested toolCallId when call_id is empty', () => {
    const line = toolCall('started', '', { shellToolCall: { args: { command: 'ls', toolCallId: 'Shell_0' } } });
    expect(ofKind(decodeAll([init, line]), 'tool_use')[0]).toMatchObject({ tool_call_id: 'Shell_0' });
  });
});

describe('result', () => {
  it('emits cost_update from the camelCase usage, then a completed result with the text as output', () => {
    const events = decodeAll([
      init,
      result({ usage: { inputTokens: 10528, outputTokens: 28, cacheReadTokens: 5888, cacheWriteTokens: 0 } }),
    ]);
    expect(kinds(events)).toEqual(['run_started', 'cost_update', 'result']);
    expect(payload(events[1])).toMatchObject({
      input_tokens: 10528 + 5888,
      output_tokens: 28,
      total_tokens: 16444,
      cost_usd: 0,
      metadata: { aggregation: 'cumulative', cost_reported: false, cache_read_input_tokens: 5888 },
    });
    expect(payload(events[2])).toMatchObject({ status: 'completed', output: 'alpha', metadata: { request_id: 'r-1', duration_ms: 1902 } });
  });

  it('emits no cost_update for a result without usage (older CLIs, the docs example)', () => {
    expect(kinds(decodeAll([init, result()]))).toEqual(['run_started', 'result']);
  });

  it('treats is_error: true as a failure even when the subtype says success', () => {
    const events = decodeAll([init, result({ is_error: true, result: 'denied' })]);
    expect(kinds(events)).toEqual(['run_started', 'error', 'result']);
    expect(payload(events[1])).toMatchObject({ message: 'denied', severity: 'error' });
    expect(payload(events[2])).toMatchObject({ status: 'failed' });
  });

  it('treats a subtype other than success as a failure even with is_error: false', () => {
    expect(payload(decodeAll([init, result({ subtype: 'error', result: 'x' })]).at(-1))).toMatchObject({ status: 'failed' });
  });

  it('owes no end-of-stream result after its own result line', () => {
    expect(kinds(decodeAll([init, result()])).filter((kind) => kind === 'result')).toHaveLength(1);
  });
});

describe('other lines', () => {
  it('maps connection/reconnecting to a warning and keeps retry and reconnected lines as raw', () => {
    const lines = [
      {
        type: 'connection',
        subtype: 'reconnecting',
        session_id: SESSION,
        timestamp_ms: 1,
        attempt: 2,
        endpoint_url: 'https://example.invalid',
      },
      { type: 'retry', subtype: 'starting', session_id: SESSION, timestamp_ms: 2, attempt: 2, is_resume: false },
      { type: 'connection', subtype: 'reconnected', session_id: SESSION, timestamp_ms: 3 },
    ];
    const events = decodeAll([init, ...lines]);
    expect(kinds(events).slice(1, 4)).toEqual(['error', 'raw', 'raw']);
    expect(payload(events[1])).toMatchObject({ severity: 'warning', code: 'retry', message: 'reconnecting (attempt 2)' });
  });

  it('maps interaction_query request/response to approval_requested/approval_resolved', () => {
    const query = { id: 1, createPlanRequestQuery: { args: { plan: '# Plan' } } };
    const events = decodeAll([
      init,
      { type: 'interaction_query', subtype: 'request', query_type: 'createPlanRequestQuery', query },
      { type: 'interaction_query', subtype: 'response', query_type: 'createPlanRequestQuery', response: { id: 1 } },
    ]);
    expect(payload(events[1])).toMatchObject({ approval_id: '1', subject: 'createPlanRequestQuery', details: query });
    expect(events[2].kind).toBe('approval_resolved');
    expect(payload(events[2])).toMatchObject({ approval_id: '1', decision: { id: 1 } });
  });

  it('keeps unknown types and system notices as raw', () => {
    const events = decodeAll([init, { type: 'system', subtype: 'task_notification', session_id: SESSION }, { type: 'something_new' }]);
    expect(kinds(events).slice(1, 3)).toEqual(['raw', 'raw']);
  });

  it('never throws on lines with odd field types', () => {
    const odd = [
      { type: 'tool_call', subtype: 'completed', call_id: 5, tool_call: [] },
      { type: 'tool_call', subtype: 'completed', tool_call: { shellToolCall: { result: { success: 'yes' } } } },
      { type: 'assistant', message: 'text', timestamp_ms: 'soon' },
      { type: 'thinking', subtype: 'delta', text: 7 },
      { type: 'result', usage: [], is_error: 'yes' },
      { type: 'interaction_query', subtype: 'request', query: null },
    ];
    const events = decodeAll([init, ...odd]);
    expect(events.length).toBeGreaterThanOrEqual(odd.length + 1);
  });
});
