import 'reflect-metadata';
import type { AnyEvent } from '../../src/events/event';
import { codexProfile } from '../../src/providers/codex';
import { createDecoder } from '../../src/decode/decoder';
import { detectProfile } from '../../src/decode/profiles';

const clock = (): Date => new Date('2026-01-01T00:00:00.000Z');

/** Decodes native lines (objects) with a fresh Codex decoder, without `end()`. */
function decode(...lines: unknown[]): AnyEvent[] {
  const decoder = createDecoder('codex', { clock });
  return lines.flatMap((line) => decoder.push(typeof line === 'string' ? line : JSON.stringify(line)));
}

/** kind and payload of each event, for compact expectations. */
function shapes(events: AnyEvent[]): { kind: string; payload: Record<string, unknown> }[] {
  return events.map((event) => {
    const { kind, payload } = JSON.parse(JSON.stringify(event)) as { kind: string; payload: Record<string, unknown> };
    return { kind, payload };
  });
}

const THREAD = { type: 'thread.started', thread_id: 'thread-1' };
const item = (phase: string, fields: Record<string, unknown>): unknown => ({ type: `item.${phase}`, item: fields });
const command = (status: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  id: 'item_0',
  type: 'command_execution',
  command: "/bin/bash -lc 'ls'",
  aggregated_output: '',
  exit_code: null,
  status,
  ...extra,
});
const usage = (input: number, cached: number, output: number, reasoning = 0): unknown => ({
  type: 'turn.completed',
  usage: {
    input_tokens: input,
    cached_input_tokens: cached,
    cache_write_input_tokens: 0,
    output_tokens: output,
    reasoning_output_tokens: reasoning,
  },
});

describe('Codex profile', () => {
  it('thread.started is run_started, and its thread id is every later event’s session id', () => {
    const events = decode(THREAD, { type: 'turn.started' }, item('completed', { id: 'item_1', type: 'agent_message', text: 'hi' }));
    expect(shapes(events)[0]).toEqual({ kind: 'run_started', payload: expect.objectContaining({ provider_session_id: 'thread-1' }) });
    expect(events.map((event) => event.provider_session_id)).toEqual(['thread-1', 'thread-1', 'thread-1']);
    // turn.started has no normalized meaning: a raw event keeps it.
    expect(shapes(events)[1]).toEqual({ kind: 'raw', payload: expect.objectContaining({ content: { type: 'turn.started' } }) });
  });

  it('a command’s start and completion are tool_use and tool_result with the item id as tool_call_id', () => {
    const events = shapes(
      decode(
        THREAD,
        item('started', command('in_progress')),
        item('completed', command('completed', { aggregated_output: 'a\n', exit_code: 0 })),
      ),
    );
    expect(events.slice(1)).toEqual([
      {
        kind: 'tool_use',
        payload: expect.objectContaining({
          tool_name: 'command_execution',
          tool_call_id: 'item_0',
          input: { command: "/bin/bash -lc 'ls'" },
        }),
      },
      {
        kind: 'tool_result',
        payload: expect.objectContaining({
          tool_call_id: 'item_0',
          content: 'a\n',
          is_error: false,
          metadata: { status: 'completed', exit_code: 0 },
        }),
      },
    ]);
  });

  it('an item that only completes yields both tool_use and tool_result', () => {
    const events = shapes(decode(THREAD, item('completed', command('completed', { id: 'item_7', aggregated_output: 'x', exit_code: 0 }))));
    expect(events.slice(1).map((event) => [event.kind, event.payload.tool_call_id])).toEqual([
      ['tool_use', 'item_7'],
      ['tool_result', 'item_7'],
    ]);
  });

  it.each([
    ['a non-zero exit code', { exit_code: 2, status: 'completed' }],
    ['status failed', { exit_code: -1, status: 'failed' }],
    ['status declined', { exit_code: null, status: 'declined' }],
  ])('%s makes the tool_result an error', (_label, fields) => {
    const events = shapes(decode(THREAD, item('completed', command('completed', fields))));
    expect(events[2]).toEqual({ kind: 'tool_result', payload: expect.objectContaining({ is_error: true }) });
  });

  it('a progress update of an open call is kept raw, not a second tool_use', () => {
    const events = shapes(
      decode(THREAD, item('started', command('in_progress')), item('updated', command('in_progress', { aggregated_output: 'partial' }))),
    );
    expect(events.map((event) => event.kind)).toEqual(['run_started', 'tool_use', 'raw']);
  });

  it('MCP calls are named server/tool, with the arguments as input and the MCP result as content', () => {
    const call = {
      id: 'item_1',
      type: 'mcp_tool_call',
      server: 'docs',
      tool: 'search',
      arguments: { q: 'x' },
      result: null,
      error: null,
      status: 'in_progress',
    };
    const result = { content: [{ type: 'text', text: 'found' }], structured_content: null };
    const events = shapes(decode(THREAD, item('started', call), item('completed', { ...call, result, status: 'completed' })));
    expect(events.slice(1)).toEqual([
      { kind: 'tool_use', payload: expect.objectContaining({ tool_name: 'docs/search', tool_call_id: 'item_1', input: { q: 'x' } }) },
      { kind: 'tool_result', payload: expect.objectContaining({ tool_call_id: 'item_1', content: result, is_error: false }) },
    ]);
  });

  it('an MCP error (cancelled call) is the tool_result content and an error; JSON-text arguments are parsed', () => {
    const call = {
      id: 'item_1',
      type: 'mcp_tool_call',
      server: 's',
      tool: 't',
      arguments: '{"who":"me"}',
      result: null,
      error: { message: 'user cancelled MCP tool call' },
      status: 'failed',
    };
    const events = shapes(decode(THREAD, item('completed', call)));
    expect(events[1].payload.input).toEqual({ who: 'me' });
    expect(events[2]).toEqual({
      kind: 'tool_result',
      payload: expect.objectContaining({ content: 'user cancelled MCP tool call', is_error: true }),
    });
  });

  it('an MCP result flagged is_error is an error even with status completed', () => {
    const call = {
      id: 'item_9',
      type: 'mcp_tool_call',
      server: 's',
      tool: 't',
      arguments: {},
      result: { content: [], is_error: true },
      status: 'completed',
    };
    expect(shapes(decode(THREAD, item('completed', call)))[2].payload.is_error).toBe(true);
  });

  it('file changes and web searches are tool calls named by their item type', () => {
    const change = { id: 'item_2', type: 'file_change', changes: [{ path: 'a.txt', kind: 'add' }], status: 'completed' };
    const search = { id: 'item_3', type: 'web_search', query: 'codex', action: { type: 'search', query: 'codex' } };
    const events = shapes(decode(THREAD, item('completed', change), item('completed', search)));
    expect(events.slice(1)).toEqual([
      { kind: 'tool_use', payload: expect.objectContaining({ tool_name: 'file_change', input: { changes: change.changes } }) },
      { kind: 'tool_result', payload: expect.objectContaining({ content: change.changes, is_error: false }) },
      { kind: 'tool_use', payload: expect.objectContaining({ tool_name: 'web_search', input: { query: 'codex' } }) },
      { kind: 'tool_result', payload: expect.objectContaining({ content: search.action }) },
    ]);
  });

  it('a failed file change is an error', () => {
    const change = { id: 'item_2', type: 'file_change', changes: [], status: 'failed' };
    expect(shapes(decode(THREAD, item('completed', change)))[2].payload.is_error).toBe(true);
  });

  it('agent_message is assistant_message, reasoning is thinking, an error item is a warning', () => {
    const events = shapes(
      decode(
        THREAD,
        item('completed', { id: 'item_0', type: 'reasoning', text: '**Planning**' }),
        item('completed', { id: 'item_1', type: 'agent_message', text: 'Done.' }),
        item('completed', { id: 'item_2', type: 'error', message: 'Model metadata for `x` not found.' }),
      ),
    );
    expect(events.slice(1)).toEqual([
      { kind: 'thinking', payload: expect.objectContaining({ content: '**Planning**', metadata: { item_id: 'item_0' } }) },
      { kind: 'assistant_message', payload: expect.objectContaining({ content: [{ type: 'text', text: 'Done.' }], role: 'assistant' }) },
      { kind: 'error', payload: expect.objectContaining({ message: 'Model metadata for `x` not found.', severity: 'warning' }) },
    ]);
  });

  // #18 "Left raw though they matter": the Elixir original mapped todo_list to a TodoWrite-like tool call.
  it('a todo_list is a tool call: a tool_use when it starts and at each update (the whole plan), a tool_result at the end', () => {
    const todo = (done: boolean) => ({ id: 'item_5', type: 'todo_list', items: [{ text: 'read', completed: done }] });
    const events = shapes(decode(THREAD, item('started', todo(false)), item('updated', todo(true)), item('completed', todo(true))));
    expect(events.slice(1).map((event) => [event.kind, event.payload.tool_call_id, event.payload.input ?? event.payload.content])).toEqual([
      ['tool_use', 'item_5', { items: [{ text: 'read', completed: false }] }],
      ['tool_use', 'item_5', { items: [{ text: 'read', completed: true }] }],
      ['tool_result', 'item_5', [{ text: 'read', completed: true }]],
    ]);
    expect(events[1].payload.tool_name).toBe('todo_list');
  });

  it('request_user_input asks the host: an approval_requested for the call', () => {
    const questions = [{ id: 'q1', header: 'Pick', question: 'Which one?', options: [{ label: 'A', description: '' }] }];
    const [event] = shapes(decode({ type: 'request_user_input', id: 'turn-1', call_id: 'call_3', questions }));
    expect(event).toEqual({
      kind: 'approval_requested',
      payload: expect.objectContaining({ approval_id: 'call_3', subject: 'request_user_input', details: { questions, turn_id: 'turn-1' } }),
    });
  });

  // #18 "Dropped identities": web_search took its query from the started item (""), agent_message.phase was dropped.
  it('a web search takes its query from the completed item, keeps results, and an agent message keeps its phase', () => {
    const started = { id: 'ws_1', type: 'web_search', query: '', action: { type: 'other' } };
    const done = {
      id: 'ws_1',
      type: 'web_search',
      query: 'openai codex cli',
      action: { type: 'search', query: 'openai codex cli' },
      results: [{ url: 'https://x' }],
    };
    const events = shapes(
      decode(
        THREAD,
        item('started', started),
        item('completed', done),
        item('completed', { id: 'item_1', type: 'agent_message', text: 'Hm.', phase: 'commentary' }),
      ),
    );
    expect(events.slice(1).map((event) => event.kind)).toEqual(['raw', 'tool_use', 'tool_result', 'assistant_message']);
    expect(events[2].payload.input).toEqual({ query: 'openai codex cli' });
    expect(events[3].payload.metadata).toEqual({ query: 'openai codex cli', results: [{ url: 'https://x' }] });
    expect(events[4].payload.metadata).toEqual({ item_id: 'item_1', phase: 'commentary' });
  });

  it('a top-level "Reconnecting…" error is a warning (code retry); any other top-level error is an error', () => {
    const events = shapes(
      decode(
        THREAD,
        { type: 'error', message: 'Reconnecting... 2/5 (stream disconnected)' },
        { type: 'error', message: 'Selected model is at capacity.' },
      ),
    );
    expect(events.slice(1)).toEqual([
      {
        kind: 'error',
        payload: expect.objectContaining({ message: 'Reconnecting... 2/5 (stream disconnected)', severity: 'warning', code: 'retry' }),
      },
      {
        kind: 'error',
        payload: expect.objectContaining({ message: 'Selected model is at capacity.', severity: 'error', code: 'api_error' }),
      },
    ]);
  });

  it('turn.completed is cost_update then a completed result whose output is the last agent message', () => {
    const events = shapes(
      decode(
        THREAD,
        item('completed', { id: 'item_0', type: 'agent_message', text: 'first' }),
        item('completed', { id: 'item_1', type: 'agent_message', text: 'last' }),
        usage(1200, 200, 345, 5),
      ),
    );
    expect(events.slice(3)).toEqual([
      {
        kind: 'cost_update',
        payload: expect.objectContaining({
          input_tokens: 1200,
          output_tokens: 345,
          total_tokens: 1545,
          cost_usd: 0,
          metadata: expect.objectContaining({
            aggregation: 'cumulative',
            cost_reported: false,
            cache_read_input_tokens: 200,
            reasoning_output_tokens: 5,
          }),
        }),
      },
      { kind: 'result', payload: expect.objectContaining({ status: 'completed', output: 'last' }) },
    ]);
  });

  it('turn.completed usage is the thread’s running total: a cumulative cost_update, the native figures kept', () => {
    // As `codex exec resume` prints it: the second process reports the thread's total so far.
    const events = shapes(decode(THREAD, usage(1000, 0, 20), THREAD, usage(2100, 800, 45, 3))).filter(
      (event) => event.kind === 'cost_update',
    );
    expect(events.map((event) => [event.payload.input_tokens, event.payload.output_tokens, event.payload.total_tokens])).toEqual([
      [1000, 20, 1020],
      [2100, 45, 2145],
    ]);
    expect(events[1].payload.metadata).toEqual({
      aggregation: 'cumulative',
      cost_reported: false,
      cache_read_input_tokens: 800,
      cache_write_input_tokens: 0,
      reasoning_output_tokens: 3,
      native_usage: {
        input_tokens: 2100,
        cached_input_tokens: 800,
        cache_write_input_tokens: 0,
        output_tokens: 45,
        reasoning_output_tokens: 3,
      },
    });
  });

  it('turn.failed is an error with its message (a neutral code from the status it names), then a failed result', () => {
    const events = shapes(decode(THREAD, { type: 'turn.failed', error: { message: 'unexpected status 401 Unauthorized' } }));
    expect(events.slice(1)).toEqual([
      {
        kind: 'error',
        payload: expect.objectContaining({
          message: 'unexpected status 401 Unauthorized',
          severity: 'error',
          code: 'auth',
          metadata: { http_status: 401 },
        }),
      },
      { kind: 'result', payload: expect.objectContaining({ status: 'failed' }) },
    ]);
  });

  // #18 "Codex puts the raw JSON body in message and emits the error twice".
  it('an API error is one error event with the body read (message, code, native code), then the failed result', () => {
    const body = JSON.stringify({
      error: { message: 'Invalid request: scripted bad request.', type: 'invalid_request_error', param: null, code: null },
    });
    const events = shapes(
      decode(THREAD, { type: 'turn.started' }, { type: 'error', message: body }, { type: 'turn.failed', error: { message: body } }),
    );
    expect(events.slice(1).map((event) => event.kind)).toEqual(['raw', 'error', 'result']);
    expect(events[2].payload).toMatchObject({
      message: 'Invalid request: scripted bad request.',
      code: 'invalid_request',
      metadata: { native_code: 'invalid_request_error' },
    });
    expect(events[3].payload).toMatchObject({ status: 'failed', output: null });
  });

  it('plan items and plan deltas are assistant text', () => {
    const events = shapes(
      decode(
        THREAD,
        { type: 'item.plan.delta', item_id: 'item_0', delta: '1. Read' },
        item('completed', { id: 'item_0', type: 'plan', text: '1. Read' }),
      ),
    );
    expect(events.slice(1).map((event) => event.kind)).toEqual(['assistant_delta', 'assistant_message']);
    expect(events[1].payload).toEqual(expect.objectContaining({ content: '1. Read' }));
  });

  it('never throws on odd lines, and every line gives at least one event', () => {
    const odd = [
      { type: 'item.completed' },
      { type: 'item.completed', item: 'text' },
      { type: 'item.started', item: { type: 7, id: ['x'] } },
      { type: 'item.completed', item: { type: 'command_execution', exit_code: 'one', status: null } },
      { type: 'item.completed', item: { type: 'mcp_tool_call', arguments: '{not json', server: 5 } },
      { type: 'turn.completed', usage: { input_tokens: '10', output_tokens: -4 } },
      { type: 'turn.completed' },
      { type: 'turn.failed', error: 'boom' },
      { type: 'thread.started', thread_id: 42 },
      { type: 'error' },
      { type: 'turn.throttled' },
      'Reading additional input from stdin...',
    ];
    const decoder = createDecoder('codex', { clock });
    for (const line of odd) {
      expect(decoder.push(typeof line === 'string' ? line : JSON.stringify(line)).length).toBeGreaterThan(0);
    }
  });

  it('detect() recognises Codex lines, not a bare error line or other CLIs’ lines', () => {
    for (const type of [
      'thread.started',
      'turn.started',
      'turn.completed',
      'turn.failed',
      'item.started',
      'item.updated',
      'item.completed',
    ]) {
      expect(codexProfile.detect({ type })).toBe(true);
    }
    // A top-level `error` is also Gemini's line type: it does not name the provider.
    expect(codexProfile.detect({ type: 'error', message: 'x' })).toBe(false);
    expect(codexProfile.detect({ type: 'system', subtype: 'init' })).toBe(false);
    expect(codexProfile.detect({ type: 'init', session_id: 's' })).toBe(false);
    expect(detectProfile(THREAD as never)?.id).toBe('codex');
  });

  it("provider 'auto' decodes a Codex transcript once its first line names it", () => {
    const decoder = createDecoder('auto', { clock });
    const events = [THREAD, item('completed', { id: 'item_0', type: 'agent_message', text: 'hi' })].flatMap((line) =>
      decoder.push(JSON.stringify(line)),
    );
    expect(decoder.provider).toBe('codex');
    expect(events.map((event) => event.kind)).toEqual(['run_started', 'assistant_message']);
  });
});
