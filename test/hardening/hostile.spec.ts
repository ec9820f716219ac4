import 'reflect-metadata';
import { types } from 'node:util';
import fc from 'fast-check';
import {
  Event,
  ErrorPayload,
  RawPayload,
  SchemaError,
  StderrPayload,
  ToolDescriptor,
  ToolUsePayload,
  validateSerializable,
} from '../../src';
import {
  MODES,
  Mode,
  outcome,
  anyEventInput,
  anyMutatedEventInput,
  firstDifference,
  numRuns,
  objectFrom,
  snapshot,
  TEST_TIMEOUT_MS,
} from './arbitraries';

jest.setTimeout(TEST_TIMEOUT_MS);

/*
 * Named hostile inputs. Each one must end in an event or a SchemaError: no other exception,
 * no prototype changed, no input mutated, nothing written out that does not read back.
 * Basic __proto__ cases are in test/prototype-keys.spec.ts; these extend them.
 */

const OBJECT_PROTOTYPE_KEYS = Object.getOwnPropertyNames(Object.prototype).sort();
const ARRAY_PROTOTYPE_KEYS = Object.getOwnPropertyNames(Array.prototype).sort();

afterEach(() => {
  // no test may leave anything on the shared prototypes
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(OBJECT_PROTOTYPE_KEYS);
  expect(Object.getOwnPropertyNames(Array.prototype).sort()).toEqual(ARRAY_PROTOTYPE_KEYS);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

function own(target: unknown, key: string): unknown {
  return Object.getOwnPropertyDescriptor(target, key)?.value;
}

function nested(depth: number, shape: 'array' | 'object', leaf: unknown = 1): unknown {
  let value: unknown = leaf;
  for (let i = 0; i < depth; i++) value = shape === 'array' ? [value] : { a: value };
  return value;
}

describe.each(MODES)('hostile inputs (%s path)', (mode: Mode) => {
  describe('__proto__, constructor and prototype keys', () => {
    const keys = ['__proto__', 'constructor', 'prototype'] as const;

    it.each(keys)('"%s" at the envelope, payload, extra, metadata and nested levels: kept as data, no prototype touched', (key) => {
      // every bag holds `key` → inner(), which holds the key again, nested in an array
      const inner = () =>
        objectFrom([
          ['polluted', true],
          [key, [objectFrom([[key, 'deep']])]],
        ]);
      const bag = () => objectFrom([[key, inner()]]);
      const input = objectFrom([
        ['kind', 'tool_use'],
        [key, inner()],
        ['metadata', bag()],
        ['raw', [bag()]],
        [
          'payload',
          objectFrom([
            [key, inner()],
            ['input', bag()],
            ['metadata', bag()],
          ]),
        ],
      ]);
      const text = JSON.stringify(input);
      const member = JSON.stringify(bag()).slice(1, -1);
      expect(text).toContain(member); // the JSON really carries the key

      for (const event of [Event.parse(input, { mode }), Event.fromJSON(text, { mode })]) {
        expect(Object.getPrototypeOf(event)).toBe(Event.prototype);
        expect(event.payload).toBeInstanceOf(ToolUsePayload);
        expect(Object.getPrototypeOf(event.payload)).toBe(ToolUsePayload.prototype);
        const payload = event.payload as ToolUsePayload;
        for (const held of [event.extra, event.metadata, (event.raw as unknown[])[0], payload.extra, payload.input, payload.metadata]) {
          expect(Object.getPrototypeOf(held)).toBe(Object.prototype);
          expect(Object.prototype.hasOwnProperty.call(held, key)).toBe(true);
          expect(firstDifference(own(held, key), inner())).toBeUndefined();
          expect((held as Record<string, unknown>).polluted).toBeUndefined();
        }
        const out = JSON.stringify(event);
        expect(out).toBe(JSON.stringify(Event.fromJSON(out, { mode })));
        expect(out.split(member).length - 1).toBe(6); // written back at all six places
      }
    });

    it('a __proto__ key holding null, a string or an array (values that could swap a prototype) stays data', () => {
      for (const value of [null, 'x', [1], 42]) {
        const event = Event.parse(
          objectFrom([
            ['kind', 'raw'],
            ['__proto__', value],
            ['metadata', objectFrom([['__proto__', value]])],
          ]),
          { mode },
        );
        expect(Object.getPrototypeOf(event)).toBe(Event.prototype);
        expect(own(event.extra, '__proto__')).toEqual(value);
        expect(Object.getPrototypeOf(event.metadata)).toBe(Object.prototype);
        expect(own(event.metadata, '__proto__')).toEqual(value);
      }
    });

    it('errors at a __proto__ path: the issue path and the error tree hold "__proto__" as an own key', () => {
      const input = objectFrom([
        ['kind', 'raw'],
        ['metadata', objectFrom([['__proto__', objectFrom([['constructor', () => 1]])]])],
      ]);
      const { error } = outcome(() => Event.parse(input, { mode }));
      expect(error?.issues).toEqual([
        {
          code: 'serializable',
          type: 'function',
          path: ['metadata', '__proto__', 'constructor'],
          message: 'not JSON-serializable: function',
        },
      ]);
      const tree = error!.errors.metadata as Record<string, unknown>;
      expect(Object.getPrototypeOf(tree)).toBe(Object.prototype);
      expect(own(tree, '__proto__')).toEqual({ constructor: ['not JSON-serializable: function'] });
    });

    it('kind "__proto__", "constructor" or "toString" is an unknown kind, not a lookup on a prototype', () => {
      for (const kind of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
        expect(Event.safeParse({ kind }, { mode })).toMatchObject({
          success: false,
          error: { issues: [{ code: 'invalid_enum', path: ['kind'] }] },
        });
      }
    });

    it('tool data: __proto__ and constructor keys in extra, input_schema and provider_metadata', () => {
      const line =
        '{"name":"t","__proto__":{"a":1},"constructor":{"b":2},"input_schema":{"__proto__":{"c":3}},"provider_metadata":{"prototype":{"d":4}}}';
      const tool = ToolDescriptor.fromJSON(line, { mode });
      expect(tool).toBeInstanceOf(ToolDescriptor);
      expect(own(tool.extra, '__proto__')).toEqual({ a: 1 });
      expect(own(tool.extra, 'constructor')).toEqual({ b: 2 });
      expect(JSON.stringify(tool)).toBe(
        '{"name":"t","description":null,"input_schema":{"__proto__":{"c":3}},"output_schema":null,"provider_metadata":{"prototype":{"d":4}},"__proto__":{"a":1},"constructor":{"b":2}}',
      );
    });
  });

  describe('10,000-deep nesting', () => {
    // (the too_deep rejection of raw, metadata and input is in regressions.spec.ts)
    it.each([
      ['an unknown envelope key', (deep: unknown) => ({ kind: 'raw', deep })],
      ['an unknown payload key', (deep: unknown) => ({ kind: 'raw', payload: { deep } })],
      ['payload content (any JSON)', (deep: unknown) => ({ kind: 'tool_result', payload: { content: deep } })],
      ['a text field (wrong type)', (deep: unknown) => ({ kind: 'stderr', payload: { content: deep } })],
      ['a string list (wrong item)', (deep: unknown) => ({ kind: 'run_started', payload: { args: deep } })],
    ])('in %s: a SchemaError from parse(object) and fromJSON(text), never a RangeError', (_where, wrap) => {
      for (const shape of ['array', 'object'] as const) {
        const input = wrap(nested(10_000, shape));
        expect(outcome(() => Event.parse(input, { mode })).error).toBeInstanceOf(SchemaError);
        const text = JSON.stringify(wrap('@')).replace(
          '"@"',
          shape === 'array' ? `${'['.repeat(10_000)}${']'.repeat(10_000)}` : `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`,
        );
        const { error } = outcome(() => Event.fromJSON(text, { mode }));
        expect(error).toBeInstanceOf(SchemaError);
        expect(error!.message.length).toBeLessThan(500);
      }
    });

    it('tool data and validateSerializable: a 10,000-deep input_schema is too_deep', () => {
      const { error } = outcome(() => ToolDescriptor.parse({ name: 't', input_schema: { deep: nested(10_000, 'object') } }, { mode }));
      expect(error?.issues[0]).toMatchObject({ code: 'serializable', type: 'too_deep' });
      expect(validateSerializable(nested(10_000, 'array'))[0]).toMatchObject({ code: 'serializable', type: 'too_deep' });
    });

    it('a 1,000-deep value that is accepted can be written out: toJSON and JSON.stringify work', () => {
      const event = Event.parse(
        { kind: 'tool_use', payload: { input: { deep: nested(999, 'object') } }, raw: nested(1000, 'array') },
        { mode },
      );
      const text = JSON.stringify(event);
      expect(JSON.stringify(Event.fromJSON(text, { mode }))).toBe(text);
    });
  });

  describe('10 MB strings', () => {
    // Linear time is measured in bench/ (npm run bench: ns per MB at 1 KB, 100 KB and 1 MB), not here:
    // a timed assertion fails on a loaded machine.
    it('a 10 MB content parses, writes and reads back whole', () => {
      const unit = ' ünïcødé 😀 \\ " line\n'; // escapes and surrogate pairs, not just ASCII
      const content = unit.repeat(Math.ceil(10_000_000 / unit.length));
      const event = Event.parse({ kind: 'stderr', payload: { content } }, { mode });
      const text = JSON.stringify(event);
      const back = Event.fromJSON(text, { mode });
      expect((back.payload as StderrPayload).content === content).toBe(true);
      expect(JSON.stringify(back)).toBe(text);
    });

    it('a 10 MB value in a field that rejects it: the message quotes at most 40 characters of it', () => {
      const huge = 'Ж'.repeat(10_000_000);
      const cases: unknown[] = [
        { kind: huge },
        { kind: 'raw', sequence: huge },
        { kind: 'raw', timestamp: huge },
        { kind: 'error', payload: { severity: huge } },
        { kind: 'raw', [huge]: () => 1 },
        { kind: 'raw', metadata: { [huge]: { [huge]: undefined } } },
      ];
      for (const input of cases) {
        const { error } = outcome(() => Event.parse(input, { mode }));
        expect(error).toBeInstanceOf(SchemaError);
        expect(error!.message.length).toBeLessThan(1000);
        expect(error!.message).not.toContain('Ж'.repeat(41));
        for (const issue of error!.issues) expect(issue.message).not.toContain('Ж'.repeat(41));
      }
      const { error } = outcome(() => Event.fromJSON(`{"kind":"raw","x":"${huge}`, { mode })); // unterminated string
      expect(error?.issues[0].code).toBe('json');
      expect(error!.message.length).toBeLessThan(200);
    });
  });

  describe('cycles and shared references', () => {
    it('cycles at the root, in metadata, raw, extra, payload and payload input are serializable/cycle issues', () => {
      const root: Record<string, unknown> = { kind: 'raw' };
      root.self = root;
      const inMeta: Record<string, unknown> = { a: [1] };
      (inMeta.a as unknown[]).push(inMeta);
      const payload: Record<string, unknown> = { input: {} };
      (payload.input as Record<string, unknown>).back = payload;
      const cases: [unknown, (string | number)[]][] = [
        [root, ['self']],
        [{ kind: 'raw', metadata: inMeta }, ['metadata', 'a', 1]],
        [{ kind: 'raw', raw: [inMeta] }, ['raw', 0, 'a', 1]],
        [{ kind: 'raw', extra_key: inMeta }, ['extra_key', 'a', 1]],
        [{ kind: 'tool_use', payload }, ['payload', 'input', 'back']],
      ];
      for (const [input, path] of cases) {
        const { error } = outcome(() => Event.parse(input, { mode }));
        expect(error?.issues).toContainEqual(
          expect.objectContaining({ code: 'serializable', type: 'cycle', path: expect.arrayContaining(path.slice(0, 1)) }),
        );
        expect(error!.issues.some((issue) => issue.type === 'cycle' && path.every((key, i) => issue.path[i] === key))).toBe(true);
      }
    });

    it('the same object reached twice (not a cycle) is accepted and copied twice', () => {
      const shared = { a: [1, 2] };
      const event = Event.parse({ kind: 'raw', metadata: { x: shared, y: shared }, raw: [shared, shared] }, { mode });
      expect(event.metadata).toEqual({ x: { a: [1, 2] }, y: { a: [1, 2] } });
      expect(event.metadata.x).not.toBe(shared);
      shared.a.push(3);
      expect(event.metadata).toEqual({ x: { a: [1, 2] }, y: { a: [1, 2] } });
    });
  });

  describe('getters and proxies', () => {
    const boom = () => {
      throw new Error('boom');
    };
    const withGetter = (key: string | number, target: object = {}) => Object.defineProperty(target, key, { get: boom, enumerable: true });

    it.each([
      ['an envelope field', () => withGetter('provider', { kind: 'raw' })],
      ['the kind', () => withGetter('kind')],
      ['an unknown envelope key', () => withGetter('x', { kind: 'raw' })],
      ['a payload field', () => ({ kind: 'stderr', payload: withGetter('content') })],
      ['nested metadata', () => ({ kind: 'raw', metadata: { a: withGetter('b') } })],
      ['an array item in raw', () => ({ kind: 'raw', raw: withGetter(0, [0]) })],
      ['tool input', () => ({ kind: 'tool_use', payload: { input: withGetter('cmd') } })],
    ])('a getter that throws in %s: SchemaError "unreadable", never the getter\'s error', (_where, build) => {
      const { error } = outcome(() => Event.parse(build(), { mode }));
      expect(error?.issues).toEqual([expect.objectContaining({ code: 'unreadable', message: 'could not read input: "Error: boom"' })]);
    });

    it('a getter that answers differently each time: the event holds one reading, written as read', () => {
      let calls = 0;
      const input = Object.defineProperty({ kind: 'raw' }, 'metadata', { get: () => ({ call: ++calls }), enumerable: true });
      const event = Event.parse(input, { mode });
      const text = JSON.stringify(event);
      expect(JSON.stringify(Event.fromJSON(text, { mode }))).toBe(text);
      expect(event.metadata).toEqual({ call: expect.any(Number) });
    });

    it('a transparent Proxy of a valid event is read like the object; the event holds no proxy', () => {
      const target = { kind: 'tool_use', metadata: { a: [1] }, payload: { input: { cmd: 'ls' } }, x: { y: 1 } };
      const wrap = <T extends object>(value: T): T => new Proxy(value, {});
      const input = wrap({ ...target, metadata: wrap({ a: wrap([1]) }), payload: wrap({ input: wrap({ cmd: 'ls' }) }), x: wrap({ y: 1 }) });
      const event = Event.parse(input, { mode });
      expect(JSON.stringify(event)).toBe(
        JSON.stringify(Event.parse(target, { mode: 'fast' }))
          .replace(/"id":\d+/, `"id":${event.id}`)
          .replace(/"timestamp":"[^"]+"/, `"timestamp":"${event.timestamp.toJSON()}"`),
      );
      for (const part of [event.metadata, event.metadata.a, (event.payload as ToolUsePayload).input, event.extra.x])
        expect(types.isProxy(part)).toBe(false);
    });

    it.each(['get', 'ownKeys', 'getPrototypeOf', 'getOwnPropertyDescriptor', 'has'] as const)(
      "a Proxy whose %s trap throws, at the root or nested: SchemaError or an event, never the trap's error",
      (trap) => {
        let called = false;
        const hostile = <T extends object>(value: T): T =>
          new Proxy(value, {
            [trap]: () => {
              called = true;
              throw new Error(`trap ${trap}`);
            },
          });
        for (const input of [
          hostile({ kind: 'raw' }),
          { kind: 'raw', metadata: hostile({ a: 1 }) },
          { kind: 'raw', raw: hostile([1, 2]) },
          { kind: 'tool_use', payload: hostile({ tool_name: 'x' }) },
          { kind: 'raw', x: hostile({}) },
        ]) {
          called = false;
          const result = outcome(() => Event.parse(input, { mode }));
          // A trap the parser calls makes the input unreadable; one it never calls changes nothing.
          if (called) expect(result.error?.issues.map((issue) => issue.code)).toEqual(['unreadable']);
          else expect(result.value).toBeInstanceOf(Event);
        }
      },
    );

    it('a revoked Proxy anywhere: SchemaError "unreadable"', () => {
      const revoked = () => {
        const { proxy, revoke } = Proxy.revocable({}, {});
        revoke();
        return proxy;
      };
      for (const input of [
        revoked(),
        { kind: 'raw', metadata: revoked() },
        { kind: 'raw', raw: [revoked()] },
        { kind: 'raw', payload: revoked() },
      ]) {
        const { error } = outcome(() => Event.parse(input, { mode }));
        expect(error?.issues[0].code).toBe('unreadable');
      }
    });
  });

  describe('frozen and shared inputs', () => {
    const deepFreeze = <T>(value: T): T => {
      if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
        Object.freeze(value);
        for (const key of Reflect.ownKeys(value)) deepFreeze((value as Record<PropertyKey, unknown>)[key]);
      }
      return value;
    };

    it("deep-frozen inputs parse; the event's data is a mutable copy", () => {
      const input = deepFreeze({
        kind: 'tool_use',
        metadata: { a: { b: [1] } },
        payload: { tool_name: ' t ', input: { cmd: ['ls'] }, metadata: {} },
        x: [{}],
      });
      const event = Event.parse(input, { mode });
      const payload = event.payload as ToolUsePayload;
      expect(payload.tool_name).toBe('t');
      expect(Object.isFrozen(event.metadata)).toBe(false);
      (event.metadata.a as Record<string, unknown>).c = 1;
      (payload.input.cmd as unknown[]).push('-la');
      expect(input.metadata.a).toEqual({ b: [1] });
      expect(input.payload.input.cmd).toEqual(['ls']);
    });

    it('a frozen payload instance passes through as is', () => {
      const payload = Object.freeze(RawPayload.create({ content: 'x' }));
      expect(Event.parse({ kind: 'raw', payload }, { mode }).payload).toBe(payload);
    });

    it('later changes to an input do not reach a parsed event', () => {
      const input = { kind: 'raw', metadata: { list: [1] }, raw: { a: 'b' }, extra_key: { n: 1 } };
      const event = Event.parse(input, { mode });
      const before = JSON.stringify(event);
      input.metadata.list.push(2);
      input.raw.a = 'changed';
      input.extra_key.n = 2;
      expect(JSON.stringify(event)).toBe(before);
    });
  });

  describe('input is never mutated', () => {
    it('valid and invalid generated inputs are deep-equal before and after parse', () => {
      fc.assert(
        fc.property(fc.oneof(anyEventInput, anyMutatedEventInput), ({ input }) => {
          const before = snapshot(input);
          Event.safeParse(input, { mode });
          expect(firstDifference(input, before)).toBeUndefined();
        }),
        { numRuns: numRuns(100) },
      );
    });
  });

  describe('JSON text quirks', () => {
    it('duplicate keys: the last one wins, as JSON.parse does (envelope, kind, payload, metadata, __proto__)', () => {
      const line =
        '{"kind":"stderr","payload":{"content":"first"},"kind":"raw","metadata":{"a":1,"a":2,"__proto__":1,"__proto__":2},"payload":{"content":"second","content":"third"}}';
      const event = Event.fromJSON(line, { mode });
      expect(event.kind).toBe('raw');
      expect(event.payload).toBeInstanceOf(RawPayload);
      expect((event.payload as RawPayload).content).toBe('third');
      expect(event.metadata.a).toBe(2);
      expect(own(event.metadata, '__proto__')).toBe(2);
      expect(JSON.stringify(event)).toContain('"metadata":{"a":2,"__proto__":2}');
    });

    it('lone surrogates are kept as they are; JSON.stringify escapes them and they read back the same', () => {
      const lone = '\ud800 a \udfff b \udc00\ud800';
      const line = JSON.stringify({
        kind: 'stderr',
        provider: ` ${lone} `,
        payload: { content: lone, [lone]: lone },
        metadata: { [lone]: [lone] },
      });
      expect(line).toContain('\\ud800'); // escaped, so the line is well-formed UTF-8 on any stream
      for (const event of [Event.fromJSON(line, { mode }), Event.parse(JSON.parse(line), { mode })]) {
        expect(event.provider).toBe(lone.trim());
        expect((event.payload as StderrPayload).content).toBe(lone);
        expect(event.payload.extra[lone]).toBe(lone);
        expect(event.metadata[lone]).toEqual([lone]);
        expect(JSON.stringify(Event.fromJSON(JSON.stringify(event), { mode }))).toBe(JSON.stringify(event));
      }
    });

    it('1e400 (Infinity after JSON.parse) is rejected in every kind of field, never written out as null', () => {
      const cases: [string, string, string][] = [
        ['{"kind":"raw","sequence":1e400}', 'sequence', 'invalid_type'],
        ['{"kind":"raw","id":1e400}', 'id', 'invalid_type'],
        ['{"kind":"raw","timestamp":1e400}', 'timestamp', 'invalid_date'],
        ['{"kind":"cost_update","payload":{"cost_usd":1e400}}', 'payload', 'invalid_type'],
        ['{"kind":"cost_update","payload":{"input_tokens":-1e400}}', 'payload', 'invalid_type'],
        ['{"kind":"raw","raw":{"x":[1e400]}}', 'raw', 'serializable'],
        ['{"kind":"raw","metadata":{"x":1e400}}', 'metadata', 'serializable'],
        ['{"kind":"raw","payload":{"unknown":1e400}}', 'payload', 'serializable'],
      ];
      for (const [line, field, code] of cases) {
        const { error } = outcome(() => Event.fromJSON(line, { mode }));
        expect(error?.issues).toEqual([expect.objectContaining({ code, path: expect.arrayContaining([field]) })]);
      }
    });

    it('-0: accepted in integer and number fields and in free JSON; written as 0 (JSON has no negative zero)', () => {
      const event = Event.fromJSON('{"kind":"cost_update","sequence":-0,"raw":-0,"payload":{"input_tokens":-0,"cost_usd":-0.0}}', { mode });
      expect(event.sequence === 0).toBe(true); // -0 or 0 in memory; the text is what counts
      const text = JSON.stringify(event);
      expect(text).toContain('"sequence":0,');
      expect(text).toContain('"raw":0,');
      expect(text).toContain('"input_tokens":0,');
      expect(text).toContain('"cost_usd":0,');
      expect(JSON.stringify(Event.fromJSON(text, { mode }))).toBe(text);
    });

    it('2^53+1: too big in an integer field; kept as the float JSON.parse makes of it in free JSON', () => {
      for (const line of [
        '{"kind":"raw","sequence":9007199254740993}',
        '{"kind":"raw","id":9007199254740992}',
        '{"kind":"cost_update","payload":{"total_tokens":1e20}}',
      ]) {
        const { error } = outcome(() => Event.fromJSON(line, { mode }));
        expect(error?.issues[0].code).toBe('too_big');
      }
      expect(outcome(() => Event.parse({ kind: 'raw', sequence: 2 ** 53 + 2 }, { mode })).error?.issues[0].code).toBe('too_big');
      const event = Event.fromJSON(
        '{"kind":"raw","sequence":9007199254740991,"raw":9007199254740993,"metadata":{"n":[9007199254740993]}}',
        { mode },
      );
      expect(event.sequence).toBe(Number.MAX_SAFE_INTEGER);
      expect(event.raw).toBe(9007199254740992);
      expect(JSON.stringify(event)).toContain('"raw":9007199254740992,');
      expect(JSON.stringify(event)).toContain('"metadata":{"n":[9007199254740992]}');
    });

    it('NaN and Infinity from an object are non_finite; MAX_VALUE and MIN_VALUE are kept exactly', () => {
      for (const value of [NaN, Infinity, -Infinity]) {
        expect(outcome(() => Event.parse({ kind: 'raw', raw: { v: value } }, { mode })).error?.issues[0]).toMatchObject({
          code: 'serializable',
          type: 'non_finite',
        });
      }
      const event = Event.parse(
        { kind: 'cost_update', raw: [Number.MAX_VALUE, Number.MIN_VALUE, -Number.MAX_VALUE], payload: { cost_usd: Number.MAX_VALUE } },
        { mode },
      );
      const back = Event.fromJSON(JSON.stringify(event), { mode });
      expect(back.raw).toEqual([Number.MAX_VALUE, Number.MIN_VALUE, -Number.MAX_VALUE]);
      expect(back.payload).toMatchObject({ cost_usd: Number.MAX_VALUE });
    });

    it('an error payload with a huge severity or a huge code key: errors stay payload-level and short', () => {
      const result = ErrorPayload.safeParse({ severity: 'x'.repeat(100_000), message: 1 }, { mode });
      expect(result.success).toBe(false);
      if (!result.success) {
        expect(result.error.tag).toBe('invalid_payload');
        expect(result.error.message.length).toBeLessThan(400);
      }
    });
  });
});
