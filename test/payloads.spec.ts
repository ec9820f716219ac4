import 'reflect-metadata';
import {
  ApprovalRequestedPayload,
  ApprovalResolvedPayload,
  AssistantDeltaPayload,
  AssistantMessagePayload,
  CostUpdatePayload,
  ErrorPayload,
  ParseResult,
  Payload,
  RawPayload,
  ResultPayload,
  RunStartedPayload,
  SchemaError,
  StderrPayload,
  ThinkingPayload,
  ToolResultPayload,
  ToolUsePayload,
  UserMessagePayload,
} from '../src';

/** The statics every payload class has, without its own field types. */
interface PayloadClass {
  new (): Payload;
  readonly kind: string;
  create(attrs?: object): Payload;
  parse(input: unknown): Payload;
  safeParse(input: unknown): ParseResult<Payload>;
  fromJSON(text: string): Payload;
}

/** Ported from the Elixir payload_test.exs cases: each class, attributes in, the fields expected out. */
const CASES: [PayloadClass, Record<string, unknown>, Record<string, unknown>][] = [
  [
    RunStartedPayload as never,
    { provider_session_id: ' provider-session ', command: 'codex', args: [' exec ', 'x'] },
    { provider_session_id: 'provider-session', command: 'codex', args: ['exec', 'x'], cwd: null },
  ],
  [AssistantDeltaPayload as never, { content: ' partial ' }, { content: ' partial ', index: null, format: 'text' }],
  [
    AssistantMessagePayload as never,
    { content: ['complete'], model: ' gpt-5.4 ' },
    { content: ['complete'], role: 'assistant', model: 'gpt-5.4' },
  ],
  [UserMessagePayload as never, { content: ['input'] }, { content: ['input'], role: 'user' }],
  [ThinkingPayload as never, { content: '  reasoning\n' }, { content: '  reasoning\n', signature: null }],
  [
    ToolUsePayload as never,
    { tool_name: 'shell', tool_call_id: 'tool-1', input: { cmd: 'pwd' } },
    { tool_name: 'shell', tool_call_id: 'tool-1', input: { cmd: 'pwd' } },
  ],
  [ToolResultPayload as never, { tool_call_id: 'tool-1', content: 'ok' }, { tool_call_id: 'tool-1', content: 'ok', is_error: false }],
  [
    ApprovalRequestedPayload as never,
    { approval_id: 'approval-1', subject: 'shell', details: { cmd: 'rm' } },
    { approval_id: 'approval-1', subject: 'shell', details: { cmd: 'rm' } },
  ],
  [
    ApprovalResolvedPayload as never,
    { approval_id: 'approval-1', decision: 'allow' },
    { approval_id: 'approval-1', decision: 'allow', reason: null },
  ],
  [
    CostUpdatePayload as never,
    { input_tokens: 1, output_tokens: 2, total_tokens: 3, cost_usd: 0.02 },
    { input_tokens: 1, output_tokens: 2, total_tokens: 3, cost_usd: 0.02 },
  ],
  [
    ResultPayload as never,
    { status: 'completed', stop_reason: 'completed', output: { text: 'done' }, object: { answer: 42 } },
    { status: 'completed', stop_reason: 'completed', output: { text: 'done' }, object: { answer: 42 } },
  ],
  [
    ErrorPayload as never,
    { message: ' boom ', code: 'runtime_error', severity: 'error' },
    { message: 'boom', code: 'runtime_error', severity: 'error' },
  ],
  [StderrPayload as never, { content: ' stderr chunk\n' }, { content: ' stderr chunk\n' }],
  [RawPayload as never, { stream: 'stdout', content: '{"raw":true}' }, { stream: 'stdout', content: '{"raw":true}' }],
];

/** Every payload's defaults, from the issue's field table. */
const DEFAULTS: Record<string, Record<string, unknown>> = {
  run_started: { provider_session_id: null, command: null, args: [], cwd: null },
  assistant_delta: { content: '', index: null, format: 'text' },
  assistant_message: { content: [], role: 'assistant', model: null },
  user_message: { content: [], role: 'user' },
  thinking: { content: '', signature: null },
  tool_use: { tool_name: null, tool_call_id: null, input: {} },
  tool_result: { tool_call_id: null, content: null, is_error: false },
  approval_requested: { approval_id: null, subject: null, details: {} },
  approval_resolved: { approval_id: null, decision: null, reason: null },
  cost_update: { input_tokens: 0, output_tokens: 0, total_tokens: 0, cost_usd: 0 },
  result: { status: null, stop_reason: null, output: null, object: null },
  error: { message: '', code: null, severity: 'error' },
  stderr: { content: '' },
  raw: { stream: 'stdout', content: null },
};

describe.each(CASES)('%p', (Cls, attrs, expected) => {
  const kind = Cls.kind;

  it('create builds the class with metadata {} and normalized fields', () => {
    const payload = Cls.create(attrs);
    expect(payload).toBeInstanceOf(Cls);
    expect(payload).toMatchObject({ ...expected, metadata: {}, extra: {} });
  });

  it('parse preserves unknown fields in extra and toMap writes them back', () => {
    const payload = Cls.parse({ ...attrs, wire_field: 'kept' });
    expect(payload.extra).toEqual({ wire_field: 'kept' });
    expect(payload.toMap()).toEqual({ ...expected, metadata: {}, wire_field: 'kept' });
  });

  it('JSON round trip is idempotent and byte-identical', () => {
    const text = JSON.stringify(Cls.parse({ ...attrs, metadata: { lane: 'core' }, zz: [1, { a: null }] }));
    const again = Cls.fromJSON(text);
    expect(JSON.stringify(again)).toBe(text);
    expect(again).toEqual(Cls.parse(JSON.parse(text)));
  });

  it('missing and null fields take the defaults', () => {
    expect(Cls.create({}).toMap()).toEqual({ ...DEFAULTS[kind], metadata: {} });
    const nulls = Object.fromEntries(Object.keys(DEFAULTS[kind]).map((key) => [key, null]));
    expect(Cls.parse({ ...nulls, metadata: null }).toMap()).toEqual({ ...DEFAULTS[kind], metadata: {} });
  });

  it('new() gives the same defaults (what NestJS and class-transformer construct)', () => {
    const made = new Cls();
    // Own properties are exactly the fields; unknown keys sit behind the `extra` accessor.
    expect(Object.keys(made)).toEqual(Object.keys(Cls.create({})));
    expect(JSON.parse(JSON.stringify(made))).toEqual({ ...DEFAULTS[kind], metadata: {} });
    expect(made.extra).toEqual({});
  });

  it('missing containers are one shared frozen {}; new() and toMap() give fresh ones', () => {
    const a = Cls.create({});
    expect(a.metadata).toBe(Cls.create({}).metadata);
    expect(Object.isFrozen(a.metadata)).toBe(true);
    expect(() => {
      'use strict';
      (a.metadata as Record<string, unknown>).x = 1;
    }).toThrow(TypeError);
    expect(new Cls().metadata).not.toBe(new Cls().metadata);
    expect(Object.isFrozen(new Cls().metadata)).toBe(false);
    const map = a.toMap();
    expect(map.metadata).not.toBe(a.metadata);
    expect(Object.isFrozen(map.metadata)).toBe(false);
  });

  it("containers present in the input are the caller's to change", () => {
    const payload = Cls.parse({ metadata: {} });
    expect(Object.isFrozen(payload.metadata)).toBe(false);
  });

  it('passing an instance returns it', () => {
    const payload = Cls.create(attrs);
    expect(Cls.parse(payload)).toBe(payload);
  });

  it('rejects a non-object with an invalid_payload error naming the kind', () => {
    const result = Cls.safeParse('nope');
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(result.error).toBeInstanceOf(SchemaError);
    expect(result.error.tag).toBe('invalid_payload');
    expect(result.error.kind).toBe(kind);
    expect(result.error.issues).toEqual([{ code: 'invalid_type', path: [], message: 'expected object, got string' }]);
  });

  it('rejects a non-object metadata with its path', () => {
    expect(() => Cls.parse({ metadata: 'x' })).toThrow(SchemaError);
    expect(Cls.safeParse({ metadata: [] })).toMatchObject({
      success: false,
      error: { issues: [{ code: 'invalid_type', path: ['metadata'] }] },
    });
  });
});

describe('payload fields', () => {
  it('ErrorPayload accepts fatal severity for transport-terminal failures (Elixir case)', () => {
    expect(ErrorPayload.create({ message: 'boom', code: 'auth_error', severity: 'fatal' }).severity).toBe('fatal');
    expect(ErrorPayload.parse({ message: 'boom', severity: ' fatal ' }).severity).toBe('fatal');
  });

  it('ErrorPayload rejects an unknown severity', () => {
    const result = ErrorPayload.safeParse({ severity: 'panic' });
    expect(result).toMatchObject({
      success: false,
      error: { tag: 'invalid_payload', kind: 'error', issues: [{ code: 'invalid_enum', path: ['severity'] }] },
    });
  });

  it('AssistantDelta preserves significant whitespace (Elixir case)', () => {
    expect(AssistantDeltaPayload.create({ content: 'hello ' }).content).toBe('hello ');
    expect(AssistantDeltaPayload.parse({ content: ' hello ' }).content).toBe(' hello ');
  });

  it('trimmed fields are trimmed; text fields are not', () => {
    const tool = ToolUsePayload.parse({ tool_name: '\t shell \n', tool_call_id: '  ' });
    expect(tool.tool_name).toBe('shell');
    expect(tool.tool_call_id).toBe('');
    expect(StderrPayload.parse({ content: '  x  ' }).content).toBe('  x  ');
    expect(ThinkingPayload.parse({ content: '\n' }).content).toBe('\n');
  });

  it.each([
    [AssistantDeltaPayload, { index: -1 }, 'too_small', ['index']],
    [AssistantDeltaPayload, { index: 1.5 }, 'invalid_type', ['index']],
    [AssistantDeltaPayload, { content: 5 }, 'invalid_type', ['content']],
    [CostUpdatePayload, { input_tokens: 2 ** 53 }, 'too_big', ['input_tokens']],
    [CostUpdatePayload, { cost_usd: -0.5 }, 'too_small', ['cost_usd']],
    [CostUpdatePayload, { cost_usd: Infinity }, 'invalid_type', ['cost_usd']],
    [CostUpdatePayload, { output_tokens: '3' }, 'invalid_type', ['output_tokens']],
    [ToolResultPayload, { is_error: 'yes' }, 'invalid_type', ['is_error']],
    [ToolUsePayload, { input: [] }, 'invalid_type', ['input']],
    [ToolUsePayload, { tool_name: 7 }, 'invalid_type', ['tool_name']],
    [RunStartedPayload, { args: 'exec' }, 'invalid_type', ['args']],
    [RunStartedPayload, { args: ['a', 2] }, 'invalid_type', ['args', 1]],
    [AssistantMessagePayload, { role: 'user' }, 'invalid_enum', ['role']],
    [AssistantMessagePayload, { content: {} }, 'invalid_type', ['content']],
    [ResultPayload, { output: { when: new Date() } }, 'serializable', ['output', 'when']],
  ] as const)('%p.parse(%j) fails with %s at %j', (Cls, input, code, path) => {
    const result = (Cls as unknown as PayloadClass).safeParse(input);
    expect(result.success).toBe(false);
    if (!result.success) expect(result.error.issues.map((i) => [i.code, i.path])).toEqual([[code, path]]);
  });

  it('reports every bad field at once', () => {
    const result = CostUpdatePayload.safeParse({ input_tokens: -1, output_tokens: 'x', cost_usd: -1 });
    expect(result.success ? [] : result.error.issues.map((i) => i.path[0])).toEqual(['input_tokens', 'output_tokens', 'cost_usd']);
  });

  it('the error tree nests messages by path', () => {
    const result = AssistantDeltaPayload.safeParse({ index: -1 });
    expect(result.success ? null : result.error.errors).toEqual({ index: ['too small: must be at least 0'] });
  });

  it('-0 and max safe integers are accepted', () => {
    expect(CostUpdatePayload.parse({ input_tokens: Number.MAX_SAFE_INTEGER, output_tokens: -0 }).input_tokens).toBe(
      Number.MAX_SAFE_INTEGER,
    );
  });
});
