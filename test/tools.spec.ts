import 'reflect-metadata';
import { SchemaError, ToolDescriptor, ToolRequest, ToolResponse, validateSerializable } from '../src';

describe('tool data', () => {
  it('descriptor validates serializable metadata and preserves raw provider extras (Elixir case)', () => {
    const descriptor = ToolDescriptor.parse({
      name: ' shell ',
      description: 'Run a command',
      input_schema: { type: 'object', properties: { cmd: { type: 'string' } } },
      provider_metadata: { provider: 'codex' },
      raw_provider_payload: { tool: { name: 'shell' } },
    });
    expect(descriptor.name).toBe('shell');
    expect(descriptor.output_schema).toBeNull();
    expect(descriptor.provider_metadata).toEqual({ provider: 'codex' });
    expect(descriptor.extra).toEqual({ raw_provider_payload: { tool: { name: 'shell' } } });
    expect(descriptor.toMap().raw_provider_payload).toEqual({ tool: { name: 'shell' } });
    expect(Object.keys(descriptor.toMap())).toEqual([
      'name',
      'description',
      'input_schema',
      'output_schema',
      'provider_metadata',
      'raw_provider_payload',
    ]);
  });

  it('request and response validate neutral serializable tool exchange data (Elixir case)', () => {
    const request = ToolRequest.create({
      tool_name: 'read_file',
      tool_call_id: 'tool-1',
      input: { path: 'README.md' },
      provider_metadata: { provider: 'claude' },
    });
    expect(request.tool_name).toBe('read_file');
    expect(request.input).toEqual({ path: 'README.md' });
    const response = ToolResponse.create({ tool_call_id: 'tool-1', content: { ok: true, lines: ['alpha'] }, is_error: false });
    expect(response.content).toEqual({ ok: true, lines: ['alpha'] });
    expect(ToolResponse.create({ tool_call_id: 'x' }).toMap()).toEqual({
      tool_call_id: 'x',
      content: null,
      is_error: false,
      provider_metadata: {},
    });
  });

  class Handler {}
  it.each([
    [() => 'ok', 'function'],
    [Symbol('handler'), 'symbol'],
    [10n, 'bigint'],
    [undefined, 'undefined'],
    [NaN, 'non_finite'],
    [-Infinity, 'non_finite'],
    [new Date(), 'instance'],
    [new Map(), 'instance'],
    [new Set(), 'instance'],
    [Promise.resolve(1), 'instance'],
    [Buffer.from('x'), 'instance'],
    [new Handler(), 'instance'],
  ])('tool data rejects executable handlers and runtime handles: %p (Elixir case)', (handler, type) => {
    const result = ToolDescriptor.safeParse({ name: 'bad', provider_metadata: { handler } });
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(result.error.tag).toBe('invalid_tool');
    expect(result.error.issues).toEqual([
      { path: ['provider_metadata', 'handler'], code: 'serializable', type, message: expect.any(String) },
    ]);
  });

  it('rejects cycles with the path where the cycle closes', () => {
    const input: Record<string, unknown> = { a: [1] };
    (input.a as unknown[]).push(input);
    expect(ToolRequest.safeParse({ tool_name: 't', tool_call_id: 'c', input })).toMatchObject({
      success: false,
      error: { issues: [{ code: 'serializable', type: 'cycle', path: ['input', 'a', 1] }] },
    });
  });

  it('accepts shared (non-cyclic) references', () => {
    const shared = { x: 1 };
    expect(ToolRequest.parse({ tool_name: 't', tool_call_id: 'c', input: { a: shared, b: shared } }).input).toEqual({
      a: { x: 1 },
      b: { x: 1 },
    });
  });

  it('requires non-blank names and ids', () => {
    expect(ToolDescriptor.safeParse({})).toMatchObject({ success: false, error: { issues: [{ code: 'required', path: ['name'] }] } });
    expect(ToolDescriptor.safeParse({ name: '   ' })).toMatchObject({
      success: false,
      error: { issues: [{ code: 'required', path: ['name'], message: 'required: must not be blank' }] },
    });
    const result = ToolRequest.safeParse({ tool_name: 1 });
    expect(result.success ? [] : result.error.issues.map((i) => [i.code, i.path])).toEqual([
      ['invalid_type', ['tool_name']],
      ['required', ['tool_call_id']],
    ]);
  });

  it('rejects non-serializable extra keys at their own path', () => {
    expect(ToolResponse.safeParse({ tool_call_id: 'c', handler: () => 1 })).toMatchObject({
      success: false,
      error: { issues: [{ code: 'serializable', type: 'function', path: ['handler'] }] },
    });
  });

  it('parse throws a stable SchemaError (Elixir case)', () => {
    expect(() => ToolResponse.parse({ tool_call_id: 'tool-1', content: { pid: Symbol('pid') } })).toThrow(SchemaError);
    expect(() => ToolResponse.parse({ tool_call_id: 'tool-1', content: { pid: Symbol('pid') } })).toThrow(
      /invalid_tool: content.pid: not JSON-serializable: symbol/,
    );
  });

  it('shared serializable validator accepts JSON-like data (Elixir case)', () => {
    expect(validateSerializable({ nil: null, bool: true, number: 1.5, string: 'ok', array: [{ nested: false }] })).toEqual([]);
    expect(validateSerializable(Object.create(null))).toEqual([]);
    expect(validateSerializable({ a: [0, { b: () => 1 }] })).toEqual([
      { code: 'serializable', type: 'function', path: ['a', 1, 'b'], message: 'not JSON-serializable: function' },
    ]);
  });
});
