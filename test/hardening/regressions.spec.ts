import 'reflect-metadata';
import { Event, SchemaError, ToolRequest, validateSerializable } from '../../src';
import { MODES, TEST_TIMEOUT_MS } from './arbitraries';

jest.setTimeout(TEST_TIMEOUT_MS);

/** Bugs found by the hardening suite, one test each, named after the bug. */

function nested(depth: number, kind: 'array' | 'object'): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = kind === 'array' ? [value] : { a: value };
  return value;
}

function errorOf(run: () => unknown): SchemaError {
  try {
    run();
  } catch (error) {
    if (error instanceof SchemaError) return error;
    throw error;
  }
  throw new Error('expected a SchemaError');
}

describe('hardening regressions', () => {
  describe.each(MODES)('%s path', (mode) => {
    it.each([
      ['metadata', '{"kind":"raw","metadata":{"a":1e400}}', ['metadata', 'a']],
      ['raw', '{"kind":"raw","raw":[1,-1e400]}', ['raw', 1]],
      ['an unknown envelope key', '{"kind":"raw","cost":1E+999}', ['cost']],
      ['payload content', '{"kind":"tool_result","payload":{"content":{"n":1e309}}}', ['payload', 'content', 'n']],
      ['tool input', `{"kind":"tool_use","payload":{"input":{"n":${'9'.repeat(400)}}}}`, ['payload', 'input', 'n']],
    ])('regression: 1e400 in %s is rejected, not written as null', (_where, line, path) => {
      // JSON.parse turns the literal into Infinity; trusting parsed JSON let it through, and JSON.stringify wrote null.
      const result = Event.safeFromJSON(line, { mode });
      expect(result.success).toBe(false);
      if (result.success) return;
      expect(result.error.issues).toEqual([
        { code: 'serializable', type: 'non_finite', path, message: 'not JSON-serializable: non-finite' },
      ]);
    });

    it('regression: exponents and long digit runs inside strings are not mistaken for 1e400', () => {
      const line = `{"kind":"stderr","payload":{"content":"sha 3e456 and ${'7'.repeat(400)}"},"metadata":{"n":1e300}}`;
      const event = Event.fromJSON(line, { mode });
      expect(event.payload).toMatchObject({ content: `sha 3e456 and ${'7'.repeat(400)}` });
      expect(event.metadata).toEqual({ n: 1e300 });
    });

    it.each(['raw', 'metadata', 'input'] as const)(
      'regression: a 10,000-deep value in %s is a SchemaError (too_deep), not a RangeError when written out',
      (field) => {
        for (const shape of ['array', 'object'] as const) {
          const deep = nested(10_000, shape);
          const wrap = (value: unknown) =>
            field === 'input'
              ? { kind: 'tool_use', payload: { input: { deep: value } } }
              : { kind: 'raw', [field]: field === 'metadata' ? { deep: value } : value };
          const expectTooDeep = (error: SchemaError) => {
            expect(error.issues).toHaveLength(1);
            expect(error.issues[0]).toMatchObject({
              code: 'serializable',
              type: 'too_deep',
              message: 'not JSON-serializable: nested deeper than 1000 levels',
            });
            expect(error.issues[0].path.slice(0, field === 'input' ? 2 : 1)).toEqual(field === 'input' ? ['payload', 'input'] : [field]);
            expect(error.message.length).toBeLessThan(300);
          };
          expectTooDeep(errorOf(() => Event.parse(wrap(deep), { mode })));
          // the JSON text of the same document: JSON.parse copes, the event must not be built
          const text = JSON.stringify(wrap('@')).replace(
            '"@"',
            `${shape === 'array' ? '['.repeat(10_000) : '{"a":'.repeat(10_000)}1${(shape === 'array' ? ']' : '}').repeat(10_000)}`,
          );
          expectTooDeep(errorOf(() => Event.fromJSON(text, { mode })));
        }
      },
    );

    it('regression: 1,000 levels are still accepted and written out', () => {
      const event = Event.parse({ kind: 'raw', raw: nested(1000, 'array'), metadata: { deep: nested(999, 'object') } }, { mode });
      const text = JSON.stringify(event);
      expect(JSON.stringify(Event.fromJSON(text, { mode }))).toBe(text);
    });

    it.each([
      ['a number', 123],
      ['a Buffer', Buffer.from('{"kind":"raw"}')],
      ['an object', { kind: 'raw' }],
      ['undefined', undefined],
      ['a symbol', Symbol('line')],
      [
        'an object whose toString throws',
        {
          toString: () => {
            throw new Error('no');
          },
        },
      ],
    ])('regression: fromJSON of %s is a json issue, not JSON.parse of its coercion', (_name, input) => {
      const result = Event.safeFromJSON(input as unknown as string, { mode });
      expect(result).toMatchObject({ success: false, error: { tag: 'invalid_event', issues: [{ code: 'json', path: [] }] } });
      expect(() => ToolRequest.fromJSON(input as unknown as string, { mode })).toThrow(SchemaError);
    });
  });

  it.each(MODES)(
    'regression: a Date or epoch ms outside the years 0000-9999 is refused, not written as unreadable "+010000-…" text (%s)',
    (mode) => {
      for (const timestamp of [253402300800000, -62167219200001, new Date(8.64e15), new Date(-8.64e15)]) {
        const result = Event.safeParse({ kind: 'raw', timestamp }, { mode });
        expect(result).toMatchObject({ success: false, error: { issues: [{ code: 'invalid_date', path: ['timestamp'] }] } });
      }
      for (const [timestamp, text] of [
        [253402300799999, '9999-12-31T23:59:59.999Z'],
        [new Date(-62167219200000), '0000-01-01T00:00:00.000Z'],
      ] as const) {
        const event = Event.parse({ kind: 'raw', timestamp }, { mode });
        expect(event.timestamp.toJSON()).toBe(text);
        expect(Event.fromJSON(JSON.stringify(event), { mode }).timestamp.toJSON()).toBe(text);
      }
    },
  );

  it.each([
    ['a text field', { kind: 'stderr', payload: { content: new String('x') } }, ['payload', 'content']],
    ['a trimmed field', { kind: 'raw', provider: new String(' claude ') }, ['provider']],
    ['a boolean field', { kind: 'tool_result', payload: { is_error: new Boolean(false) } }, ['payload', 'is_error']],
    ['a string list', { kind: 'run_started', payload: { args: ['-v', new String('x')] } }, ['payload', 'args', 1]],
  ])(
    'regression: a boxed new String()/new Boolean() in %s is refused by the reference path, as by the fast path',
    (_where, input, path) => {
      // class-validator's IsString and IsBoolean accept boxed primitives; the fast path never did
      for (const mode of MODES) {
        expect(Event.safeParse(input, { mode })).toMatchObject({
          success: false,
          error: { issues: [{ code: 'invalid_type', path, message: expect.stringMatching(/got object$/) }] },
        });
      }
    },
  );

  it('regression: a sparse string list ([, "a"]) is refused by the reference path, as by the fast path', () => {
    // class-validator's `each` skips holes; JSON.stringify would write the hole as null
    const args = [, 'a'];
    for (const mode of MODES) {
      expect(Event.safeParse({ kind: 'run_started', payload: { args } }, { mode })).toMatchObject({
        success: false,
        error: { issues: [{ code: 'invalid_type', path: ['payload', 'args', 0], message: 'expected string, got undefined' }] },
      });
    }
  });

  it("regression: the reference path copies JSON data (metadata, raw, input), so the event holds none of the caller's objects", () => {
    const metadata = { list: [1] };
    const input = { cmd: 'ls' };
    const raw = Object.freeze({ a: 'b' });
    const event = Event.parse({ kind: 'tool_use', metadata, raw, payload: { input } }, { mode: 'reference' });
    expect(event.metadata).not.toBe(metadata);
    expect(event.metadata.list).not.toBe(metadata.list);
    expect(event.raw).not.toBe(raw);
    expect(Object.isFrozen(event.raw)).toBe(false);
    expect((event.payload as { input: object }).input).not.toBe(input);
    metadata.list.push(2);
    input.cmd = 'rm';
    expect(JSON.stringify(event)).toContain('"input":{"cmd":"ls"}');
    expect(event.metadata).toEqual({ list: [1] });
  });

  it('regression: validateSerializable reports data nested deeper than 1000 levels', () => {
    expect(validateSerializable(nested(1000, 'array'))).toEqual([]);
    expect(validateSerializable(nested(1001, 'array'))).toEqual([
      {
        code: 'serializable',
        type: 'too_deep',
        path: Array(1000).fill(0),
        message: 'not JSON-serializable: nested deeper than 1000 levels',
      },
    ]);
  });

  it('regression: the error message cuts huge keys and long paths, and lists at most 10 issues', () => {
    const hugeKey = 'k'.repeat(100_000);
    const metadata: Record<string, unknown> = {};
    let node = metadata;
    for (let i = 0; i < 50; i++) node = (node[hugeKey] = {}) as Record<string, unknown>;
    node.bad = () => 1;
    const error = errorOf(() => Event.parse({ kind: 'raw', metadata }));
    expect(error.message.length).toBeLessThan(500);
    expect(error.message).toContain('metadata.kkkk');
    expect(error.issues[0].path).toHaveLength(52); // the issue keeps the exact, full path
    expect(error.issues[0].path[1]).toBe(hugeKey);

    const many: Record<string, unknown> = { kind: 'raw' };
    for (let i = 0; i < 1000; i++) many[`bad${i}`] = () => i;
    const manyError = errorOf(() => Event.parse(many));
    expect(manyError.issues).toHaveLength(101); // 100 kept, then one counting the rest (issue #12)
    expect(manyError.message).toContain('… 90 more; 900 more issues not listed');
    expect(manyError.message.length).toBeLessThan(1000);
  });

  it.each([
    ['a text field', 'stderr', 'content'],
    ['a string list', 'run_started', 'args'],
    ['a timestamp', 'raw', 'timestamp'],
  ])(
    'regression: a 10,000-deep value in %s is the same issue in both paths, not "unreadable" from a class-transformer stack overflow',
    (_where, kind, key) => {
      for (const shape of ['array', 'object'] as const) {
        const deep = nested(10_000, shape);
        const input = key === 'timestamp' ? { kind, timestamp: deep } : { kind, payload: { [key]: deep } };
        const [fast, reference] = MODES.map((mode) => errorOf(() => Event.parse(input, { mode })).issues);
        expect(reference).toEqual(fast);
        expect(fast[0].code).toBe(key === 'timestamp' ? 'invalid_date' : 'invalid_type');
      }
    },
  );
});
