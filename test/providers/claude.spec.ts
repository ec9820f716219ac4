import 'reflect-metadata';
import { createDecoder } from '../../src/decode/decoder';
import { detectProvider } from '../../src/decode/detect';
import { claudeProfile } from '../../src/providers/claude';

/*
 * One rule of the Claude Code mapping per test, on small inline lines shaped like the real
 * ones (test/fixtures/providers/claude holds whole transcripts and their goldens).
 */

const SESSION = 'a41df4af-ce78-4977-8d24-1a66035a082a';
const clock = () => new Date('2026-01-01T00:00:00.000Z');

type Plain = { kind: string; payload: Record<string, unknown>; provider_session_id: string | null; timestamp: string; sequence: number };

/** Decodes lines (objects are stringified) and returns the events as plain JSON. */
function decode(...lines: (string | object)[]): Plain[] {
  const decoder = createDecoder('claude', { clock, keepRaw: 'none' });
  const events = lines.flatMap((line) => decoder.push(typeof line === 'string' ? line : JSON.stringify(line)));
  return JSON.parse(JSON.stringify(events)) as Plain[];
}

const kinds = (events: Plain[]) => events.map((event) => event.kind);

const init = {
  type: 'system',
  subtype: 'init',
  cwd: '/tmp/work',
  session_id: SESSION,
  tools: ['Bash', 'Read'],
  mcp_servers: [],
  model: 'claude-opus-5-5',
  permissionMode: 'acceptEdits',
  apiKeySource: 'ANTHROPIC_API_KEY',
  claude_code_version: '2.1.328',
  uuid: 'de23e275-945a-4279-a3a4-3771ce32b2f5',
};

const assistantLine = (content: unknown, extra: object = {}) => ({
  type: 'assistant',
  message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-opus-5-5', content, stop_reason: null },
  parent_tool_use_id: null,
  session_id: SESSION,
  uuid: 'cb44d651-9fb5-4aaa-bbcc-834b059334af',
  ...extra,
});

const userLine = (content: unknown, extra: object = {}) => ({
  type: 'user',
  message: { role: 'user', content },
  parent_tool_use_id: null,
  session_id: SESSION,
  uuid: '8e0b6f0d-a174-4f0e-b373-7437ea03439e',
  ...extra,
});

const streamLine = (event: object) => ({
  type: 'stream_event',
  event,
  session_id: SESSION,
  parent_tool_use_id: null,
  uuid: 'c1ece1f9-4dcc-47f9-b43a-39e03b816a83',
});

describe('system/init', () => {
  it('is run_started with cwd, and model, tools, permissionMode and version in the metadata', () => {
    const [event] = decode(init);
    expect(event.kind).toBe('run_started');
    expect(event.provider_session_id).toBe(SESSION);
    expect(event.payload).toMatchObject({
      provider_session_id: SESSION,
      cwd: '/tmp/work',
      metadata: { model: 'claude-opus-5-5', tools: ['Bash', 'Read'], permissionMode: 'acceptEdits', version: '2.1.328' },
    });
  });

  it('sets provider_session_id on every later event', () => {
    const events = decode(init, assistantLine([{ type: 'text', text: 'hi' }]));
    expect(events.map((event) => event.provider_session_id)).toEqual([SESSION, SESSION]);
  });
});

describe('assistant lines', () => {
  it('give one event per content block, in order: thinking, text, tool_use', () => {
    const events = decode(
      assistantLine([
        { type: 'thinking', thinking: 'Let me list the files.', signature: 'EqQBCkYIBxgCKkB' },
        { type: 'text', text: 'Listing them now.' },
        { type: 'tool_use', id: 'toolu_01', name: 'Bash', input: { command: 'ls' } },
      ]),
    );
    expect(kinds(events)).toEqual(['thinking', 'assistant_message', 'tool_use']);
    expect(events[0].payload).toMatchObject({ content: 'Let me list the files.', signature: 'EqQBCkYIBxgCKkB' });
    expect(events[1].payload).toMatchObject({
      content: [{ type: 'text', text: 'Listing them now.' }],
      model: 'claude-opus-5-5',
      metadata: { message_id: 'msg_1' },
    });
    expect(events[2].payload).toMatchObject({ tool_name: 'Bash', tool_call_id: 'toolu_01', input: { command: 'ls' } });
  });

  it('keeps a subagent parent and the API error a synthetic message stands for in the metadata', () => {
    const [event] = decode(
      assistantLine([{ type: 'text', text: 'API Error: 400 bad request' }], {
        parent_tool_use_id: 'toolu_task',
        error: 'invalid_request',
        api_error_status: 400,
      }),
    );
    expect(event.kind).toBe('assistant_message');
    expect(event.payload.metadata).toMatchObject({ parent_tool_use_id: 'toolu_task', error: 'invalid_request', api_error_status: 400 });
  });

  it('uses the line timestamp when it has one', () => {
    const [event] = decode(assistantLine([{ type: 'text', text: 'hi' }], { timestamp: '2026-12-03T11:34:13.769Z' }));
    expect(event.timestamp).toBe('2026-12-03T11:34:13.769Z');
  });

  it('turns an unknown block into an assistant_message holding it, and an empty content into raw', () => {
    expect(decode(assistantLine([{ type: 'image', source: { type: 'base64', data: 'AA==' } }]))[0]).toMatchObject({
      kind: 'assistant_message',
      payload: { content: [{ type: 'image', source: { type: 'base64', data: 'AA==' } }] },
    });
    expect(kinds(decode(assistantLine([])))).toEqual(['raw']);
  });
});

describe('user lines', () => {
  it('give a tool_result per tool_result block, with Claude’s structured output in the metadata', () => {
    const [event] = decode(
      userLine([{ type: 'tool_result', tool_use_id: 'toolu_01', content: 'Exit code 2\nls: cannot access', is_error: true }], {
        tool_use_result: 'Error: Exit code 2',
      }),
    );
    expect(event).toMatchObject({
      kind: 'tool_result',
      payload: {
        tool_call_id: 'toolu_01',
        content: 'Exit code 2\nls: cannot access',
        is_error: true,
        metadata: { tool_use_result: 'Error: Exit code 2' },
      },
    });
  });

  it('give a user_message for string content and for text blocks', () => {
    expect(decode(userLine('Say hello.'))[0]).toMatchObject({
      kind: 'user_message',
      payload: { content: [{ type: 'text', text: 'Say hello.' }] },
    });
    const events = decode(
      userLine([
        { type: 'tool_result', tool_use_id: 'toolu_01', content: [{ type: 'text', text: 'ok' }] },
        { type: 'text', text: '[Request interrupted by user]' },
      ]),
    );
    expect(kinds(events)).toEqual(['tool_result', 'user_message']);
    expect(events[0].payload.is_error).toBe(false);
  });
});

describe('stream_event lines (--include-partial-messages)', () => {
  it('maps text_delta to assistant_delta with the block index', () => {
    const [event] = decode(streamLine({ type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'The ans' } }));
    expect(event).toMatchObject({ kind: 'assistant_delta', payload: { content: 'The ans', index: 1 } });
  });

  it('maps thinking_delta to thinking with metadata.delta', () => {
    const [event] = decode(streamLine({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Six times' } }));
    expect(event).toMatchObject({
      kind: 'thinking',
      payload: { content: 'Six times', signature: null, metadata: { delta: true, index: 0 } },
    });
  });

  it('keeps the rest of the stream bookkeeping as raw', () => {
    const events = decode(
      streamLine({ type: 'message_start', message: { id: 'msg_1', content: [] } }),
      streamLine({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"comm' } }),
      streamLine({ type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'Eq' } }),
      streamLine({ type: 'message_stop' }),
    );
    expect(kinds(events)).toEqual(['raw', 'raw', 'raw', 'raw']);
  });
});

describe('control protocol', () => {
  const canUseTool = {
    type: 'control_request',
    request_id: '7036d017-a860-42d1-b7a6-0951dcae5f6a',
    request: { subtype: 'can_use_tool', tool_name: 'Bash', input: { command: 'curl -sI https://example.com' }, tool_use_id: 'toolu_01' },
  };

  it('maps can_use_tool to approval_requested', () => {
    const [event] = decode(canUseTool);
    expect(event).toMatchObject({
      kind: 'approval_requested',
      payload: {
        approval_id: canUseTool.request_id,
        subject: 'Bash',
        details: { input: { command: 'curl -sI https://example.com' }, tool_use_id: 'toolu_01' },
      },
    });
  });

  it('resolves a pending approval the CLI cancels, and keeps other control lines raw', () => {
    const events = decode(
      canUseTool,
      { type: 'control_cancel_request', request_id: canUseTool.request_id },
      { type: 'control_cancel_request', request_id: 'never-asked' },
      { type: 'control_request', request_id: 'r2', request: { subtype: 'hook_callback', callback_id: 'hook_4' } },
    );
    expect(kinds(events)).toEqual(['approval_requested', 'approval_resolved', 'raw', 'raw']);
    expect(events[1].payload).toMatchObject({ approval_id: canUseTool.request_id, decision: 'cancelled' });
  });
});

describe('other system lines', () => {
  it('maps api_retry to a warning that the run goes on (code retry; the native code and HTTP status in metadata)', () => {
    const [event] = decode({
      type: 'system',
      subtype: 'api_retry',
      attempt: 2,
      max_retries: 10,
      retry_delay_ms: 1200,
      error_status: 529,
      error: 'server_error',
      uuid: 'u',
      session_id: SESSION,
    });
    expect(event).toMatchObject({
      kind: 'error',
      payload: {
        severity: 'warning',
        code: 'retry',
        message: 'API request failed (HTTP 529); retrying (attempt 2 of 10)',
        metadata: { native_code: 'server_error', http_status: 529, attempt: 2, uuid: 'u' },
      },
    });
  });

  it('keeps status, hooks, compaction and an allowed rate limit as raw', () => {
    const events = decode(
      { type: 'system', subtype: 'status', status: 'requesting', session_id: SESSION, uuid: 'u1' },
      {
        type: 'system',
        subtype: 'compact_boundary',
        compact_metadata: { trigger: 'auto', pre_tokens: 1 },
        session_id: SESSION,
        uuid: 'u2',
      },
      { type: 'rate_limit_event', rate_limit_info: { status: 'allowed' }, session_id: SESSION, uuid: 'u3' },
      {
        type: 'system',
        subtype: 'task_progress',
        task_id: 't1',
        description: 'x',
        usage: { total_tokens: 1, tool_uses: 0, duration_ms: 1 },
        session_id: SESSION,
        uuid: 'u4',
      },
    );
    expect(kinds(events)).toEqual(['raw', 'raw', 'raw', 'raw']);
  });

  // #18 "Left raw though they matter to a user" (line shapes from the Agent SDK's sdk.d.ts, 0.3.335).
  it('a rejected rate limit is an error, a warning one a warning (code rate_limit, the info in metadata)', () => {
    const info = { status: 'rejected', resetsAt: 1787288400, rateLimitType: 'five_hour' };
    const events = decode(
      { type: 'rate_limit_event', rate_limit_info: info, session_id: SESSION, uuid: 'u1' },
      {
        type: 'rate_limit_event',
        rate_limit_info: { ...info, status: 'allowed_warning', utilization: 0.9 },
        session_id: SESSION,
        uuid: 'u2',
      },
    );
    expect(events.map((e) => [e.kind, e.payload.severity, e.payload.code, e.payload.message])).toEqual([
      ['error', 'error', 'rate_limit', 'rate limit reached (five_hour); resets at 2026-08-21T05:00:00.000Z'],
      ['error', 'warning', 'rate_limit', 'nearing the rate limit (five_hour); resets at 2026-08-21T05:00:00.000Z'],
    ]);
    expect(events[0].payload.metadata).toEqual({ uuid: 'u1', rate_limit_info: info });
  });

  it('system/permission_denied (an automatic deny) is an approval_resolved with decision deny', () => {
    const [event] = decode({
      type: 'system',
      subtype: 'permission_denied',
      tool_name: 'Bash',
      tool_use_id: 'toolu_9',
      decision_reason_type: 'mode',
      decision_reason: 'no approval surface in this session',
      message: 'Permission to use Bash has been denied.',
      session_id: SESSION,
      uuid: 'u',
    });
    expect(event).toMatchObject({
      kind: 'approval_resolved',
      payload: {
        approval_id: 'toolu_9',
        decision: 'deny',
        reason: 'no approval surface in this session',
        metadata: { automatic: true, tool_name: 'Bash', decision_reason_type: 'mode', uuid: 'u' },
      },
    });
  });

  it('system/informational is a notice (a warning at level warning), refusals and a failed compaction are errors', () => {
    const events = decode(
      {
        type: 'system',
        subtype: 'informational',
        content: 'Stop hook prevented continuation',
        level: 'warning',
        prevent_continuation: true,
        session_id: SESSION,
        uuid: 'u1',
      },
      { type: 'system', subtype: 'informational', content: 'Context left: 10%', level: 'info', session_id: SESSION, uuid: 'u2' },
      {
        type: 'system',
        subtype: 'model_refusal_fallback',
        trigger: 'refusal',
        direction: 'retry',
        original_model: 'a',
        fallback_model: 'b',
        request_id: null,
        content: 'Retrying with b',
        session_id: SESSION,
        uuid: 'u3',
      },
      {
        type: 'system',
        subtype: 'model_refusal_no_fallback',
        original_model: 'a',
        request_id: 'r',
        content: 'The model declined.',
        session_id: SESSION,
        uuid: 'u4',
      },
      {
        type: 'system',
        subtype: 'status',
        status: null,
        compact_result: 'failed',
        compact_error: 'Not enough messages to compact.',
        session_id: SESSION,
        uuid: 'u5',
      },
    );
    expect(events.map((e) => [e.kind, e.payload.severity, e.payload.code, e.payload.message])).toEqual([
      ['error', 'warning', 'notice', 'Stop hook prevented continuation'],
      ['error', 'info', 'notice', 'Context left: 10%'],
      ['error', 'warning', 'refusal', 'Retrying with b'],
      ['error', 'error', 'refusal', 'The model declined.'],
      ['error', 'warning', 'compaction_failed', 'Not enough messages to compact.'],
    ]);
    expect(events[2].payload.metadata).toMatchObject({ original_model: 'a', fallback_model: 'b' });
  });

  it('an auth_status error is an error (code auth); logging-in progress stays raw', () => {
    const events = decode(
      { type: 'auth_status', isAuthenticating: true, output: ['Opening browser'], session_id: SESSION, uuid: 'u1' },
      { type: 'auth_status', isAuthenticating: false, output: [], error: 'OAuth token expired', session_id: SESSION, uuid: 'u2' },
    );
    expect(events.map((e) => [e.kind, e.payload.code ?? null])).toEqual([
      ['raw', null],
      ['error', 'auth'],
    ]);
  });

  it('a subagent task is a tool call: task_started its tool_use, task_notification its tool_result', () => {
    const events = decode(
      {
        type: 'system',
        subtype: 'task_started',
        task_id: 'task_1',
        tool_use_id: 'toolu_1',
        description: 'Find the bug',
        subagent_type: 'general-purpose',
        task_type: 'local_agent',
        session_id: SESSION,
        uuid: 'u1',
      },
      {
        type: 'system',
        subtype: 'task_notification',
        task_id: 'task_1',
        tool_use_id: 'toolu_1',
        status: 'failed',
        output_file: '/tmp/o',
        summary: 'It crashed',
        session_id: SESSION,
        uuid: 'u2',
      },
      {
        type: 'system',
        subtype: 'task_notification',
        task_id: 'task_2',
        status: 'completed',
        output_file: '/tmp/p',
        summary: 'Done',
        session_id: SESSION,
        uuid: 'u3',
      },
    );
    expect(
      events.map((e) => [e.kind, e.payload.tool_call_id, e.payload.tool_name ?? e.payload.content, e.payload.is_error ?? null]),
    ).toEqual([
      ['tool_use', 'task_1', 'task', null],
      ['tool_result', 'task_1', 'It crashed', true],
      ['tool_use', 'task_2', 'task', null],
      ['tool_result', 'task_2', 'Done', false],
    ]);
    expect(events[0].payload).toMatchObject({
      input: { description: 'Find the bug', subagent_type: 'general-purpose', task_type: 'local_agent' },
      metadata: { parent_tool_call_id: 'toolu_1' },
    });
    expect(events[1].payload.metadata).toMatchObject({ status: 'failed', output_file: '/tmp/o', parent_tool_call_id: 'toolu_1' });
  });
});

describe('result lines', () => {
  const success = {
    type: 'result',
    subtype: 'success',
    is_error: false,
    num_turns: 2,
    result: 'The command printed hello-from-tool.',
    stop_reason: 'end_turn',
    session_id: SESSION,
    total_cost_usd: 0.0018656,
    usage: { input_tokens: 240, cache_creation_input_tokens: 64, cache_read_input_tokens: 128, output_tokens: 28 },
    terminal_reason: 'completed',
    uuid: 'fd72775b-9c7d-4f48-8035-128fd96d2052',
  };

  it('without modelUsage, give cost_update from usage (input with the cache in it) then a completed result', () => {
    const events = decode(success);
    expect(kinds(events)).toEqual(['cost_update', 'result']);
    expect(events[0].payload).toMatchObject({
      input_tokens: 432,
      output_tokens: 28,
      total_tokens: 460,
      cost_usd: 0.0018656,
      metadata: {
        aggregation: 'cumulative',
        cost_reported: true,
        cache_write_input_tokens: 64,
        cache_read_input_tokens: 128,
        main_loop_usage: success.usage,
      },
    });
    expect(events[1].payload).toMatchObject({
      status: 'completed',
      stop_reason: 'end_turn',
      output: 'The command printed hello-from-tool.',
      object: null,
    });
  });

  // #18 "Claude tokens are taken from the wrong field": modelUsage covers every model and turn, usage the main loop only.
  it('takes tokens from modelUsage summed over the models, and keeps usage as the main-loop figure', () => {
    const modelUsage = {
      'claude-opus-5-5': {
        inputTokens: 6,
        outputTokens: 400,
        cacheReadInputTokens: 40000,
        cacheCreationInputTokens: 2000,
        thinkingTokens: 100,
        costUSD: 0.2,
      },
      'claude-haiku-4-5': { inputTokens: 6144, outputTokens: 50, cacheReadInputTokens: 0, cacheCreationInputTokens: 0, costUSD: 0.01 },
    };
    const [cost] = decode({ ...success, usage: { input_tokens: 6, output_tokens: 10 }, modelUsage, total_cost_usd: 0.21 });
    expect(cost.payload).toMatchObject({
      input_tokens: 6 + 40000 + 2000 + 6144,
      output_tokens: 450,
      total_tokens: 48150 + 450,
      cost_usd: 0.21,
      metadata: {
        cache_read_input_tokens: 40000,
        cache_write_input_tokens: 2000,
        reasoning_output_tokens: 100,
        main_loop_usage: { input_tokens: 6, output_tokens: 10 },
        model_usage: modelUsage,
      },
    });
  });

  it('fail on is_error true even when the subtype says success (Claude’s API errors), with a neutral code and no output', () => {
    const events = decode({
      ...success,
      is_error: true,
      result: 'API Error: 400 scripted invalid request',
      api_error_status: 400,
      api_error_type: 'invalid_request_error',
      terminal_reason: 'api_error',
    });
    expect(kinds(events)).toEqual(['cost_update', 'error', 'result']);
    expect(events[1].payload).toMatchObject({
      message: 'API Error: 400 scripted invalid request',
      code: 'invalid_request',
      severity: 'error',
      metadata: { native_code: 'invalid_request_error', http_status: 400 },
    });
    expect(events[2].payload).toMatchObject({ status: 'failed', output: null });
  });

  // #18 "Claude's synthetic API Error / Not logged in assistant frame becomes an assistant_message".
  it('a synthetic API-error assistant message is the error (once), and the failed result has no output', () => {
    const synthetic = assistantLine([{ type: 'text', text: 'Not logged in · Please run /login' }], {
      error: 'authentication_failed',
      is_api_error_message: true,
    });
    synthetic.message.model = '<synthetic>';
    const events = decode(synthetic, {
      ...success,
      is_error: true,
      result: 'Not logged in · Please run /login',
      terminal_reason: 'api_error',
      total_cost_usd: 0,
      usage: {},
      modelUsage: {},
    });
    expect(kinds(events)).toEqual(['error', 'cost_update', 'result']);
    expect(events[0].payload).toMatchObject({
      message: 'Not logged in · Please run /login',
      code: 'auth',
      severity: 'error',
      metadata: { native_code: 'authentication_failed' },
    });
    expect(events[2].payload).toMatchObject({ status: 'failed', output: null });
  });

  it('fail on an error_* subtype even with is_error false, with the errors as the message', () => {
    const { result: _result, ...rest } = success;
    const events = decode({
      ...rest,
      subtype: 'error_max_turns',
      is_error: false,
      terminal_reason: undefined,
      errors: ['Reached maximum number of turns (1)'],
    });
    expect(kinds(events)).toEqual(['cost_update', 'error', 'result']);
    expect(events[1].payload).toMatchObject({ message: 'Reached maximum number of turns (1)', code: 'max_turns' });
    expect(events[2].payload).toMatchObject({ status: 'failed' });
  });

  // #18 "Any Claude terminal_reason other than completed fails the run, including tool_deferred".
  it('terminal_reason tool_deferred is a deliberate pause: completed, stop_reason tool_deferred, deferred_tool_use kept', () => {
    const deferred = { id: 'toolu_7', name: 'Bash', input: { command: 'rm -rf build' } };
    const events = decode({ ...success, terminal_reason: 'tool_deferred', stop_reason: 'tool_use', deferred_tool_use: deferred });
    expect(kinds(events)).toEqual(['cost_update', 'result']);
    expect(events[1].payload).toMatchObject({
      status: 'completed',
      stop_reason: 'tool_deferred',
      metadata: { terminal_reason: 'tool_deferred', deferred_tool_use: deferred },
    });
    const failing = decode({ ...success, terminal_reason: 'prompt_too_long' });
    expect(failing.map((e) => [e.kind, e.payload.code ?? e.payload.status])).toEqual([
      ['cost_update', undefined],
      ['error', 'context_length'],
      ['result', 'failed'],
    ]);
  });

  it('read fields wherever they sit, and the last of duplicate keys (as JSON.parse does)', () => {
    // Recent Claude result lines do not start with `type`; this one also repeats keys.
    const text =
      '{"duration_api_ms":114,"is_error":true,"session_id":"' +
      SESSION +
      '","total_cost_usd":0.5,"usage":{"input_tokens":1,"output_tokens":2},"result":"first","result":"done","is_error":false,"subtype":"success","type":"result"}';
    const events = decode(text);
    expect(kinds(events)).toEqual(['cost_update', 'result']);
    expect(events[1].payload).toMatchObject({ status: 'completed', output: 'done' });
    expect(detectProvider(text)).toBe('claude');
  });

  it('return a requested structured output as result.object', () => {
    const events = decode({ ...success, structured_output: { answer: 42 } });
    expect(events[1].payload.object).toEqual({ answer: 42 });
  });
});

// #18 "Dropped identities".
describe('identities', () => {
  it('every event of a line carries its uuid; an assistant line keeps aborted, supersedes and its subagent', () => {
    const events = decode(
      init,
      assistantLine([{ type: 'text', text: 'Hel' }], {
        aborted: true,
        supersedes: ['u-old'],
        agent_id: 'a1',
        subagent_type: 'Explore',
        task_description: 'Look around',
      }),
    );
    expect(events[0].payload.metadata).toMatchObject({});
    expect(events[1].payload.metadata).toEqual({
      uuid: 'cb44d651-9fb5-4aaa-bbcc-834b059334af',
      message_id: 'msg_1',
      aborted: true,
      supersedes: ['u-old'],
      agent_id: 'a1',
      subagent_type: 'Explore',
      task_description: 'Look around',
    });
  });

  it('a stream delta names its message (api_message_id, or message_start before it): block indexes restart per message', () => {
    const delta = (index: number, text: string, extra: object = {}) => ({
      ...streamLine({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } }),
      ...extra,
    });
    const events = decode(
      streamLine({ type: 'message_start', message: { id: 'msg_a' } }),
      delta(0, 'one'),
      delta(0, 'two', { api_message_id: 'msg_b' }),
    );
    expect(events.filter((e) => e.kind === 'assistant_delta').map((e) => [e.payload.index, e.payload.metadata])).toEqual([
      [0, { uuid: 'c1ece1f9-4dcc-47f9-b43a-39e03b816a83', message_id: 'msg_a' }],
      [0, { uuid: 'c1ece1f9-4dcc-47f9-b43a-39e03b816a83', message_id: 'msg_b' }],
    ]);
  });
});

describe('lines with no meaning and odd lines', () => {
  it('keep an unknown type as raw', () => {
    const events = decode({ type: 'prompt_suggestion', suggestion: 'run the tests', session_id: SESSION, uuid: 'u' });
    expect(events).toMatchObject([{ kind: 'raw', payload: { content: { type: 'prompt_suggestion' } } }]);
  });

  it('never throw, and give each line at least one event', () => {
    const odd = [
      { type: 'assistant', message: 5 },
      { type: 'assistant', message: { content: [1, null, 'x', { type: 'tool_use', input: 'not an object' }] } },
      { type: 'user', message: { content: [{ type: 'tool_result' }] } },
      { type: 'stream_event', event: { type: 'content_block_delta', index: -3, delta: { type: 'text_delta', text: 7 } } },
      { type: 'result', usage: 'none', total_cost_usd: -1, is_error: 'yes' },
      { type: 'control_request', request: { subtype: 'can_use_tool' } },
      { type: 'constructor' },
      { type: 'system', subtype: 'api_retry' },
    ];
    const decoder = createDecoder('claude', { clock });
    for (const line of odd) expect(decoder.push(JSON.stringify(line)).length).toBeGreaterThan(0);
  });
});

describe('detect', () => {
  const detect = (line: object) => detectProvider(JSON.stringify(line));

  it('recognises Claude’s lines', () => {
    expect(detect(init)).toBe('claude');
    expect(detect(assistantLine([]))).toBe('claude');
    expect(detect(streamLine({ type: 'message_stop' }))).toBe('claude');
    expect(detect({ type: 'control_request', request_id: 'r1', request: { subtype: 'can_use_tool' } })).toBe('claude');
  });

  it('leaves Amp’s T- threads to Amp and Cursor’s look-alike lines alone', () => {
    expect(claudeProfile.detect({ ...init, session_id: 'T-2775dc92-90ed-4f85-8b73-8f9766029e83' })).toBe(false);
    const cursorInit = {
      type: 'system',
      subtype: 'init',
      apiKeySource: 'login',
      cwd: '/p',
      session_id: 'c6b62c6f-7ead-4fd6-9922-e952131177ff',
      model: 'Claude 4 Sonnet',
      permissionMode: 'default',
    };
    expect(claudeProfile.detect(cursorInit)).toBe(false);
    expect(
      claudeProfile.detect({
        type: 'assistant',
        message: { role: 'assistant', content: [] },
        session_id: 'c6b62c6f-7ead-4fd6-9922-e952131177ff',
      }),
    ).toBe(false);
    expect(
      claudeProfile.detect({ type: 'result', subtype: 'success', duration_ms: 12, is_error: false, result: 'done', session_id: 's' }),
    ).toBe(false);
    expect(claudeProfile.detect({ type: 'something', session_id: SESSION })).toBe(false);
  });
});
