import 'reflect-metadata';
import Ajv2020, { ValidateFunction } from 'ajv/dist/2020';
import fc from 'fast-check';
import { Event, EventKind, KINDS, Model, PAYLOAD_CLASSES, ToolDescriptor, ToolRequest, ToolResponse, fieldsOf } from '../src';
import { TIMESTAMP_PATTERN } from '../src/schema/json-schema';
import { toPreciseDate } from '../src/schema/precise-date';

// Strict mode catches unknown keywords and type-less type-specific keywords; union types
// (`["string", "null"]`) are how nullable input is written, so they are allowed.
const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
const TOOL_CLASSES = { ToolDescriptor, ToolRequest, ToolResponse };
const validateEvent = ajv.compile(Event.schema());
const payloadValidators = Object.fromEntries(KINDS.map((kind) => [kind, ajv.compile(PAYLOAD_CLASSES[kind].schema())])) as Record<
  EventKind,
  ValidateFunction
>;

/** A JSON round trip: what arrives on the wire. */
const wire = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

const errorsOf = (validate: ValidateFunction) => (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);

/** A payload with every field set to a non-default value, plus an unknown key, for each kind. */
const FULL_PAYLOADS: Record<EventKind, Record<string, unknown>> = {
  run_started: { provider_session_id: 's-1', command: 'claude', args: ['-p', ' x '], cwd: '/work' },
  assistant_delta: { content: '  Hello ', index: 3, format: { type: 'markdown' } },
  assistant_message: { content: [{ type: 'text', text: 'hi' }], role: 'assistant', model: 'opus' },
  user_message: { content: ['hello'], role: 'user' },
  thinking: { content: ' hmm ', signature: 'sig' },
  tool_use: { tool_name: 'shell', tool_call_id: 'toolu_01', input: { cmd: 'ls' } },
  tool_result: { tool_call_id: 'toolu_01', content: [1, 'two', { three: 3 }], is_error: true },
  approval_requested: { approval_id: 'a-1', subject: 'shell', details: { cmd: 'rm -rf /tmp/x' } },
  approval_resolved: { approval_id: 'a-1', decision: 'allow', reason: 'ok' },
  cost_update: { input_tokens: 1200, output_tokens: 80, total_tokens: 1280, cost_usd: 0.0042 },
  result: { status: 'completed', stop_reason: 'end_turn', output: { text: 'done' }, object: { answer: 42 } },
  error: { message: 'boom', code: 'E1', severity: 'fatal' },
  stderr: { content: 'warning: x\n' },
  raw: { stream: 'stderr', content: { any: ['thing'] } },
};

/** Events of every kind: defaults only, everything set with unknown keys, and timestamps in each input form. */
function corpus(): Event[] {
  const events: Event[] = [];
  for (const kind of KINDS) {
    events.push(Event.create(kind));
    events.push(
      Event.create(kind, {
        provider: 'claude',
        sequence: 0,
        timestamp: '2026-03-19T00:00:00.123456789+05:30',
        payload: { ...FULL_PAYLOADS[kind], metadata: { lane: 'a' }, future_field: { nested: [null] } },
        raw: { original: 'line' },
        provider_session_id: 'sess',
        metadata: { a: 1 },
        trace_id: 'abc-123',
      }),
    );
    events.push(Event.create(kind, { id: Number.MAX_SAFE_INTEGER, timestamp: Date.UTC(2026, 2, 19), payload: null }));
  }
  return events;
}

describe('JSON Schema', () => {
  it('is a draft 2020-12 document for Event, every payload and every tool class, compiling in ajv strict mode', () => {
    const classes: Array<{ name: string; schema(): Record<string, unknown> }> = [
      Event,
      ...Object.values(PAYLOAD_CLASSES),
      ...Object.values(TOOL_CLASSES),
    ];
    for (const cls of classes) {
      const schema = cls.schema();
      expect(schema).toMatchObject({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        title: cls.name,
        type: 'object',
        additionalProperties: true,
      });
      expect(() => new Ajv2020({ strict: true, allowUnionTypes: true }).compile(schema)).not.toThrow();
    }
  });

  it('describes every declared field, generated from the same field specs', () => {
    for (const cls of [Event, ...Object.values(PAYLOAD_CLASSES), ...Object.values(TOOL_CLASSES)]) {
      const properties = (cls.schema() as { properties: object }).properties;
      expect(Object.keys(properties)).toEqual(fieldsOf(cls).map((spec) => spec.key));
    }
    expect(ToolRequest.schema().required).toEqual(['tool_name', 'tool_call_id']);
    expect(Event.schema().required).toEqual(['kind']);
  });

  it('names the same defaults a fresh instance has', () => {
    let named = 0;
    for (const cls of [...Object.values(PAYLOAD_CLASSES), ...Object.values(TOOL_CLASSES)] as Array<
      (new () => Model) & { schema(): object }
    >) {
      const instance = new cls() as unknown as Record<string, unknown>;
      const properties = (cls.schema() as { properties: Record<string, { default?: unknown }> }).properties;
      for (const [key, property] of Object.entries(properties)) {
        if ('default' in property) {
          expect([cls.name, key, property.default]).toEqual([cls.name, key, instance[key]]);
          named += 1;
        }
      }
    }
    // Every payload has at least its metadata default: the loop above must have checked many.
    expect(named).toBeGreaterThanOrEqual(Object.keys(PAYLOAD_CLASSES).length);
  });

  it('has no side effects: generating it does not use up an event id', () => {
    const before = Event.create('raw').id;
    Event.schema();
    expect(Event.create('raw').id).toBe(before + 1);
  });

  it('ties each kind to its payload schema in $defs', () => {
    const schema = Event.schema() as { $defs: Record<string, unknown>; allOf: Array<{ if: unknown; then: unknown }> };
    expect(Object.keys(schema.$defs)).toEqual(KINDS.map((kind) => PAYLOAD_CLASSES[kind].name));
    expect(schema.allOf).toHaveLength(KINDS.length);
    expect(schema.allOf[5]).toEqual({
      if: { properties: { kind: { const: 'tool_use' } }, required: ['kind'] },
      then: { properties: { payload: { anyOf: [{ $ref: '#/$defs/ToolUsePayload' }, { type: 'null' }] } } },
    });
  });

  it('accepts every toJSON() output of a corpus covering all fourteen kinds, with unknown keys', () => {
    const events = corpus();
    expect(new Set(events.map((e) => e.kind))).toEqual(new Set(KINDS));
    for (const event of events) {
      const json = wire(event);
      expect([event.kind, validateEvent(json), errorsOf(validateEvent)]).toEqual([event.kind, true, []]);
      const payload = payloadValidators[event.kind];
      expect([event.kind, payload(wire(event.payload)), errorsOf(payload)]).toEqual([event.kind, true, []]);
    }
  });

  it('accepts tool toJSON() outputs', () => {
    const tools: Model[] = [
      ToolDescriptor.create({ name: 'shell', description: 'run', input_schema: { type: 'object' }, output_schema: { type: 'string' } }),
      ToolDescriptor.create({ name: 'ls' }),
      ToolRequest.create({ tool_name: 'shell', tool_call_id: 't1', input: { cmd: 'ls' }, provider_metadata: { a: 1 }, extra_key: true }),
      ToolResponse.create({ tool_call_id: 't1', content: 'ok' }),
    ];
    for (const tool of tools) {
      const validate = ajv.compile((tool.constructor as typeof ToolDescriptor).schema());
      expect([validate(wire(tool)), errorsOf(validate)]).toEqual([true, []]);
    }
  });

  it('accepts input that parse accepts: nulls for defaults, missing fields, epoch-ms timestamps, payload null', () => {
    const inputs = [
      { kind: 'raw' },
      { kind: 'tool_use', payload: null, id: null, timestamp: null, provider: null, metadata: null, raw: null },
      { kind: 'cost_update', timestamp: 0, payload: { input_tokens: null, cost_usd: 1e-9 } },
      { kind: 'error', timestamp: '2026-03-19 00:00z', payload: { severity: null, message: null } },
      { kind: 'assistant_message', payload: { content: null, role: null, model: null } },
    ];
    for (const input of inputs) {
      expect(Event.safeParse(input).success).toBe(true);
      expect([input, validateEvent(input), errorsOf(validateEvent)]).toEqual([input, true, []]);
    }
  });

  const INVALID: Array<[string, unknown]> = [
    ['not an object', []],
    ['missing kind', { payload: {} }],
    ['null kind', { kind: null }],
    ['unknown kind', { kind: 'tool_call' }],
    ['kind of wrong type', { kind: 5 }],
    ['id 0', { kind: 'raw', id: 0 }],
    ['id not an integer', { kind: 'raw', id: 1.5 }],
    ['id beyond safe integers', { kind: 'raw', id: 2 ** 53 }],
    ['negative sequence', { kind: 'raw', sequence: -1 }],
    ['provider of wrong type', { kind: 'raw', provider: 5 }],
    ['metadata not an object', { kind: 'raw', metadata: [] }],
    ['timestamp not a date', { kind: 'raw', timestamp: 'yesterday' }],
    ['timestamp month 13', { kind: 'raw', timestamp: '2026-13-01T00:00:00Z' }],
    ['timestamp without offset', { kind: 'raw', timestamp: '2026-03-19T00:00:00' }],
    ['timestamp out of range', { kind: 'raw', timestamp: 9e15 }],
    ['timestamp boolean', { kind: 'raw', timestamp: true }],
    ['payload an array', { kind: 'raw', payload: [] }],
    ['payload a string', { kind: 'raw', payload: 'x' }],
    ['negative token count', { kind: 'cost_update', payload: { input_tokens: -1 } }],
    ['fractional token count', { kind: 'cost_update', payload: { output_tokens: 1.5 } }],
    ['negative cost', { kind: 'cost_update', payload: { cost_usd: -0.01 } }],
    ['negative delta index', { kind: 'assistant_delta', payload: { index: -1 } }],
    ['bad severity', { kind: 'error', payload: { severity: 'panic' } }],
    ['bad role', { kind: 'assistant_message', payload: { role: 'user' } }],
    ['tool_use input a string', { kind: 'tool_use', payload: { input: 'ls' } }],
    ['run_started args with a number', { kind: 'run_started', payload: { args: ['-p', 1] } }],
    ['tool_result is_error a string', { kind: 'tool_result', payload: { is_error: 'yes' } }],
    ['delta content a number', { kind: 'assistant_delta', payload: { content: 5 } }],
    ['payload metadata an array', { kind: 'stderr', payload: { metadata: [1] } }],
  ];

  it.each(INVALID)('rejects %s (and so does Event.parse)', (_name, doc) => {
    expect(validateEvent(doc)).toBe(false);
    expect(Event.safeFromJSON(JSON.stringify(doc)).success).toBe(false);
  });

  it('checks a payload field against its own kind only', () => {
    // `input` must be an object for tool_use; for raw it is an unknown key, kept in `extra`.
    expect(validateEvent({ kind: 'tool_use', payload: { input: 'x' } })).toBe(false);
    expect(validateEvent({ kind: 'raw', payload: { input: 'x' } })).toBe(true);
    expect(Event.safeParse({ kind: 'raw', payload: { input: 'x' } }).success).toBe(true);
  });

  it('rejects blank required tool strings', () => {
    const validate = ajv.compile(ToolRequest.schema());
    for (const doc of [{ tool_name: ' \t', tool_call_id: 't' }, { tool_call_id: 't' }, { tool_name: null, tool_call_id: 't' }]) {
      expect(validate(doc)).toBe(false);
      expect(ToolRequest.safeParse(doc).success).toBe(false);
    }
    expect(validate({ tool_name: ' x ', tool_call_id: 't' })).toBe(true);
  });

  it('agrees with Event.safeFromJSON on a handful of documents', () => {
    const docs = [
      { kind: 'tool_use', payload: { tool_name: 'shell', input: {} }, extra_key: 1 },
      { kind: 'tool_use', payload: { tool_name: 5 } },
      { kind: 'cost_update', payload: { total_tokens: 0, cost_usd: 0 } },
      { kind: 'cost_update', payload: { total_tokens: '0' } },
      { kind: 'thinking', sequence: 0, timestamp: '2026-03-19T23:59:59.999999999-23:59' },
      { kind: 'thinking', timestamp: '2026-03-19T24:00:00.1Z' },
      { kind: 'thinking', timestamp: '2024-02-29T00:00:00Z' },
      { kind: 'thinking', timestamp: '2026-02-29T00:00:00Z' },
      { kind: 'result', payload: { status: null, output: [1, { a: null }] } },
      { kind: 'stderr', payload: { content: null, metadata: {} } },
    ];
    for (const doc of docs) {
      expect([doc, validateEvent(doc)]).toEqual([doc, Event.safeFromJSON(JSON.stringify(doc)).success]);
    }
  });

  it('agrees with Event.safeFromJSON on generated documents (schema-valid ⇔ parse succeeds)', () => {
    const payloadKeys = [...new Set(KINDS.flatMap((kind) => fieldsOf(PAYLOAD_CLASSES[kind]).map((spec) => spec.key)))];
    const value = fc.constantFrom<unknown>(
      null,
      0,
      -1,
      1,
      1.5,
      2 ** 53,
      1.7e12,
      'x',
      '',
      ' ',
      'error',
      'fatal',
      'assistant',
      'user',
      'text',
      true,
      false,
      [],
      ['a', ' b '],
      [1],
      {},
      { a: 1 },
      '2026-03-19T00:00:00Z',
      '2026-02-31T25:00:00Z',
    );
    const payload = fc.dictionary(fc.constantFrom(...payloadKeys), value, { maxKeys: 4 });
    const doc = fc.record(
      {
        kind: fc.constantFrom<unknown>(...KINDS, 'unknown', 5, null),
        id: value,
        sequence: value,
        provider: value,
        timestamp: value,
        payload: fc.oneof(payload, value),
        metadata: value,
        future: value,
      },
      { requiredKeys: ['kind'] },
    );
    fc.assert(
      fc.property(doc, (input) => validateEvent(input) === Event.safeFromJSON(JSON.stringify(input)).success),
      { numRuns: 3000 },
    );
  });

  it('intentional gap: parse trims enum values and kinds, the schema lists only the exact values', () => {
    for (const doc of [{ kind: ' tool_use ' }, { kind: 'error', payload: { severity: ' fatal ' } }]) {
      expect(Event.safeParse(doc).success).toBe(true);
      expect(validateEvent(doc)).toBe(false);
    }
  });

  it('known gap: limits a schema cannot say (a number overflowing to Infinity, nesting deeper than 1000 levels)', () => {
    const lines = ['{"kind":"raw","payload":{"content":1e400}}', `{"kind":"raw","raw":${'['.repeat(1200)}${']'.repeat(1200)}}`];
    for (const line of lines) {
      expect(Event.safeFromJSON(line).success).toBe(false);
      expect(validateEvent(JSON.parse(line))).toBe(true);
    }
    // Where the field has a number type, ajv (strictNumbers) refuses Infinity too.
    expect(validateEvent(JSON.parse('{"kind":"cost_update","payload":{"cost_usd":1e400}}'))).toBe(false);
  });

  it('its timestamp pattern accepts exactly the ISO 8601 text the parser reads', () => {
    const pattern = new RegExp(TIMESTAMP_PATTERN, 'u');
    const digits = (n: number) => fc.stringMatching(new RegExp(`^\\d{${n}}$`));
    // Random digits, and often the values at the edges of each range.
    const two = (...edges: string[]) => fc.oneof(digits(2), fc.constantFrom(...edges));
    const year = fc.oneof(digits(4), fc.constantFrom('0000', '1900', '2000', '2024', '2026', '2100', '9999'));
    const text = fc
      .tuple(
        year,
        two('00', '01', '02', '04', '12', '13'),
        two('00', '01', '28', '29', '30', '31', '32'),
        fc.constantFrom('T', 't', ' ', 'x'),
        two('00', '23', '24'),
        two('00', '59', '60'),
        fc.option(fc.tuple(two('00', '59', '60'), fc.option(fc.stringMatching(/^\.\d{0,10}$/)))),
        fc.constantFrom('Z', 'z', '', '+', '-'),
        fc.option(fc.tuple(two('00', '23', '24', '59', '60'), fc.constantFrom(':', ''), two('00', '59', '60'))),
      )
      .map(
        ([y, mo, d, sep, h, mi, sec, zone, offset]) =>
          `${y}-${mo}-${d}${sep}${h}:${mi}${sec ? `:${sec[0]}${sec[1] ?? ''}` : ''}${zone}${zone === '+' || zone === '-' ? (offset ?? ['00', '', '']).join('') : ''}`,
      );
    fc.assert(
      fc.property(text, (s) => pattern.test(s) === (toPreciseDate(s) !== undefined)),
      { numRuns: 20000 },
    );
    for (const s of ['2024-02-29T00:00Z', '2000-02-29 12:00+01:00', '0000-02-29T00:00Z']) expect([s, pattern.test(s)]).toEqual([s, true]);
    for (const s of ['2026-02-29T00:00Z', '1900-02-29T00:00Z', '2026-04-31T00:00Z', '2026-01-01T24:00Z'])
      expect([s, pattern.test(s)]).toEqual([s, false]);
  });
});
