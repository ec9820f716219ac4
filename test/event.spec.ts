import 'reflect-metadata';
import { wire } from './wire';
import { AssistantDeltaPayload, Event, KINDS, PAYLOAD_CLASSES, PreciseDate, RawPayload, SchemaError, ToolUsePayload } from '../src';

const MODES = ['fast', 'reference'] as const;

describe('Event', () => {
  it('lists the normalized runtime kinds in stable order (Elixir case)', () => {
    expect(Event.kinds()).toEqual([
      'run_started',
      'assistant_delta',
      'assistant_message',
      'user_message',
      'thinking',
      'tool_use',
      'tool_result',
      'approval_requested',
      'approval_resolved',
      'cost_update',
      'result',
      'error',
      'stderr',
      'raw',
    ]);
    expect(Event.kinds()).toBe(KINDS);
  });

  it('builds an event with defaults (Elixir case)', () => {
    const payload = AssistantDeltaPayload.create({ content: 'partial' });
    const before = Date.now();
    const event = Event.create('assistant_delta', {
      provider: 'codex',
      sequence: 7,
      payload,
      provider_session_id: 'session-1',
      metadata: { lane: 'core' },
    });
    expect(event).toMatchObject({
      kind: 'assistant_delta',
      provider: 'codex',
      sequence: 7,
      provider_session_id: 'session-1',
      metadata: { lane: 'core' },
      raw: null,
      extra: {},
    });
    expect(event.payload).toBe(payload);
    expect(Number.isSafeInteger(event.id) && event.id > 0).toBe(true);
    expect(event.timestamp).toBeInstanceOf(Date);
    expect(event.timestamp.getTime()).toBeGreaterThanOrEqual(before);
    expect(event.timestamp.getTime()).toBeLessThanOrEqual(Date.now());
  });

  it('gives process-local, increasing, unique ids', () => {
    const ids = Array.from({ length: 50 }, () => Event.create('raw').id);
    expect(new Set(ids).size).toBe(50);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
  });

  it('maps kinds to payload classes and builds the default payload (Elixir case)', () => {
    for (const kind of KINDS) {
      const event = Event.create(kind);
      expect(event.payload).toBeInstanceOf(PAYLOAD_CLASSES[kind]);
      expect(event.payload.toMap()).toEqual(PAYLOAD_CLASSES[kind].create({}).toMap());
    }
  });

  it('rejects unknown kinds (Elixir case)', () => {
    expect(() => Event.create('unknown_kind' as never, { provider: 'codex' })).toThrow(SchemaError);
    const result = Event.safeParse({ kind: 'unknown_kind' });
    expect(result).toMatchObject({ success: false, error: { tag: 'invalid_event', issues: [{ code: 'invalid_enum', path: ['kind'] }] } });
  });

  it('requires kind and trims it', () => {
    expect(Event.safeParse({})).toMatchObject({ success: false, error: { issues: [{ code: 'required', path: ['kind'] }] } });
    expect(Event.parse({ kind: ' tool_use ' }).kind).toBe('tool_use');
  });

  it('reads timestamps from ISO text, Date and epoch ms', () => {
    const ms = Date.UTC(2026, 2, 19);
    for (const input of ['2026-03-19T00:00:00Z', new Date(ms), ms]) {
      const event = Event.parse({ kind: 'raw', timestamp: input });
      expect(event.timestamp.getTime()).toBe(ms);
    }
    expect(wire(Event.parse({ kind: 'raw', timestamp: ms })).timestamp).toBe('2026-03-19T00:00:00.000Z');
  });

  it.each(MODES)('keeps microsecond timestamps digit for digit (%s)', (mode) => {
    const line = '{"kind":"raw","timestamp":"2026-03-19T00:00:00.123456Z"}';
    const event = Event.fromJSON(line, { mode });
    expect(event.timestamp).toBeInstanceOf(PreciseDate);
    expect(event.timestamp.toISOString()).toBe('2026-03-19T00:00:00.123Z');
    expect(wire(event).timestamp).toBe('2026-03-19T00:00:00.123456Z');
  });

  it.each([['yesterday'], ['2026-13-45T00:00:00Z'], [true], [{}], [NaN]])('rejects timestamp %p', (timestamp) => {
    expect(Event.safeParse({ kind: 'raw', timestamp })).toMatchObject({
      success: false,
      error: { tag: 'invalid_event', issues: [{ code: 'invalid_date', path: ['timestamp'] }] },
    });
  });

  it.each([
    [{ id: 0 }, 'too_small', ['id']],
    [{ id: 1.5 }, 'invalid_type', ['id']],
    [{ id: '1' }, 'invalid_type', ['id']],
    [{ id: 2 ** 53 }, 'too_big', ['id']],
    [{ sequence: -1 }, 'too_small', ['sequence']],
    [{ provider: 3 }, 'invalid_type', ['provider']],
    [{ metadata: 'x' }, 'invalid_type', ['metadata']],
    [{ raw: () => 1 }, 'serializable', ['raw']],
    [{ raw: { a: [1, Symbol('s')] } }, 'serializable', ['raw', 'a', 1]],
    [{ extra_key: 10n }, 'serializable', ['extra_key']],
  ])('rejects envelope %p with %s at %j in both modes', (fields, code, path) => {
    for (const mode of MODES) {
      const result = Event.safeParse({ kind: 'raw', ...fields }, { mode });
      expect(result).toMatchObject({ success: false, error: { tag: 'invalid_event', issues: [{ code, path }] } });
    }
  });

  it.each(MODES)('reports payload problems as invalid_event_payload with the kind and full path (%s)', (mode) => {
    const result = Event.safeParse({ kind: 'assistant_delta', payload: { index: -1 } }, { mode });
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(result.error.tag).toBe('invalid_event_payload');
    expect(result.error.kind).toBe('assistant_delta');
    expect(result.error.issues).toEqual([{ code: 'too_small', path: ['payload', 'index'], message: 'too small: must be at least 0' }]);
    expect(result.error.errors).toEqual({ payload: { index: ['too small: must be at least 0'] } });
  });

  it('mixes envelope and payload problems into one invalid_event', () => {
    const result = Event.safeParse({ kind: 'tool_use', sequence: -1, payload: { input: 1 } });
    expect(result).toMatchObject({ success: false, error: { tag: 'invalid_event' } });
    expect(result.success ? [] : result.error.issues.map((i) => i.path)).toEqual([['sequence'], ['payload', 'input']]);
  });

  it('passes a payload instance of the kind through and refuses one of another class', () => {
    const payload = ToolUsePayload.create({ tool_name: 'shell' });
    expect(Event.parse({ kind: 'tool_use', payload }).payload).toBe(payload);
    const wrong = Event.safeParse({ kind: 'tool_use', payload: RawPayload.create({}) });
    expect(wrong).toMatchObject({
      success: false,
      error: { tag: 'invalid_event_payload', issues: [{ code: 'invalid_payload_class', path: ['payload'] }] },
    });
    expect(Event.safeParse({ kind: 'tool_use', payload: new Date() })).toMatchObject({
      success: false,
      error: { issues: [{ code: 'invalid_payload_class' }] },
    });
    expect(Event.safeParse({ kind: 'tool_use', payload: 'x' })).toMatchObject({
      success: false,
      error: { issues: [{ code: 'invalid_type', path: ['payload'] }] },
    });
  });

  it('returns an event instance as is', () => {
    const event = Event.create('raw');
    expect(Event.parse(event)).toBe(event);
  });

  it.each(MODES)('keeps unknown keys at envelope and payload level and round-trips byte-identically (%s)', (mode) => {
    const line = JSON.stringify({
      id: 42,
      kind: 'tool_use',
      provider: ' claude ',
      timestamp: '2026-03-19T00:00:00.123456Z',
      payload: { tool_name: 'shell', input: { cmd: 'ls' }, server_hint: { a: 1 } },
      trace_id: 'abc',
    });
    const first = JSON.stringify(Event.fromJSON(line, { mode }));
    const parsed = JSON.parse(first);
    expect(parsed).toMatchObject({ id: 42, provider: 'claude', trace_id: 'abc', payload: { server_hint: { a: 1 }, metadata: {} } });
    const second = JSON.stringify(Event.fromJSON(first, { mode }));
    expect(second).toBe(first);
  });

  it.each(MODES)('keeps an incoming key named "extra" as data at both levels (%s)', (mode) => {
    const line = '{"kind":"raw","extra":{"a":1},"payload":{"extra":[2]}}';
    const event = Event.fromJSON(line, { mode });
    expect(event.extra).toEqual({ extra: { a: 1 } });
    expect(event.payload.extra).toEqual({ extra: [2] });
    const out = JSON.parse(JSON.stringify(event));
    expect(out.extra).toEqual({ a: 1 });
    expect(out.payload.extra).toEqual([2]);
  });

  it('toMap keeps the Date and maps the payload; toJSON is JSON-ready', () => {
    const event = Event.create('tool_use', { payload: { tool_name: 'x' }, extra_a: 1 });
    const map = event.toMap();
    expect(map.timestamp).toBe(event.timestamp);
    expect(map.payload).toEqual({ tool_name: 'x', tool_call_id: null, input: {}, metadata: {} });
    expect(map.extra_a).toBe(1);
    expect(Object.keys(map)).toEqual([
      'id',
      'kind',
      'provider',
      'sequence',
      'timestamp',
      'payload',
      'raw',
      'provider_session_id',
      'metadata',
      'extra_a',
    ]);
    expect(typeof wire(event).timestamp).toBe('string');
    expect(JSON.parse(JSON.stringify(event))).toEqual(wire(event));
  });

  it('fromJSON turns bad JSON into a SchemaError with a json issue', () => {
    let caught: unknown;
    try {
      Event.fromJSON('{"kind": "raw",');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SchemaError);
    expect(caught).toMatchObject({ tag: 'invalid_event', issues: [{ code: 'json', path: [] }] });
  });

  it('never echoes a large value whole in messages', () => {
    const huge = 'x'.repeat(100_000);
    const result = Event.safeParse({ kind: huge, timestamp: huge });
    expect(result.success).toBe(false);
    if (!result.success) {
      expect(result.error.message.length).toBeLessThan(1_000);
      for (const issue of result.error.issues) expect(issue.message.length).toBeLessThan(400);
    }
  });

  it('does not mutate its input', () => {
    const input = { kind: ' tool_use ', provider: ' p ', payload: { tool_name: ' t ', input: { a: [1] } }, x: { y: 1 } };
    const copy = structuredClone(input);
    Event.parse(input);
    Event.parse(input, { mode: 'reference' });
    expect(input).toEqual(copy);
  });

  it('copies nested data so later changes to the input do not reach the event', () => {
    const input = { kind: 'tool_use', payload: { input: { a: 1 } }, meta: { b: 2 } };
    const event = Event.parse(input);
    input.payload.input.a = 99;
    input.meta.b = 99;
    expect(event.kind === 'tool_use' && event.payload.input).toEqual({ a: 1 });
    expect(event.extra).toEqual({ meta: { b: 2 } });
  });
});
