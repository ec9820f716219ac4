import 'reflect-metadata';
import { Event, PreciseDate, RawPayload, RunStartedPayload, SchemaError } from '../../src';
import { MODES, TEST_TIMEOUT_MS, outcome } from './arbitraries';

jest.setTimeout(TEST_TIMEOUT_MS);

/*
 * Issue #12 ("Hostile input, part 2"), the library's reproducers: one test each, named after it.
 * No timing assertions: "costs CPU without bound" is checked by counting the reads a parse makes.
 */

function errorOf(run: () => unknown): SchemaError {
  const { error } = outcome(run);
  if (!error) throw new Error('expected a SchemaError');
  return error;
}

/** A sparse array of length 1e9 + 1 holding one string, counting every read of an index or of `length`. */
function countedSparseArray(): { array: string[]; reads: () => number } {
  const target: string[] = [];
  target[1e9] = 'x';
  let reads = 0;
  const array = new Proxy(target, {
    get(t, key, receiver) {
      reads++;
      return Reflect.get(t, key, receiver);
    },
  });
  return { array, reads: () => reads };
}

describe.each(MODES)('issue #12, library reproducers (%s path)', (mode) => {
  describe('bounded issues per parse', () => {
    it('a line with 200,000 keys of 1e400 holds at most 101 issues, the last saying how many more there were', () => {
      const keys = Array.from({ length: 200_000 }, (_, i) => `"k${i}":1e400`);
      const line = `{"kind":"raw",${keys.join(',')}}`;
      const error = errorOf(() => Event.fromJSON(line, { mode }));
      expect(error.issues.length).toBeLessThanOrEqual(101);
      expect(error.issues.slice(0, 100).every((issue) => issue.code === 'serializable')).toBe(true);
      expect(error.issues[100]).toEqual({ code: 'too_many_issues', message: '199900 more issues not listed', path: [] });
      expect(error.message.length).toBeLessThan(1000);
    });

    it('the same as objects: 200,000 bad keys give at most 101 issues', () => {
      const input: Record<string, unknown> = { kind: 'raw' };
      for (let i = 0; i < 200_000; i++) input[`k${i}`] = Infinity;
      const error = errorOf(() => Event.parse(input, { mode }));
      expect(error.issues).toHaveLength(101);
      expect(error.issues[100].code).toBe('too_many_issues');
    });

    it('a payload with too many issues is still an invalid_event_payload of its kind', () => {
      const payload: Record<string, unknown> = {};
      for (let i = 0; i < 150; i++) payload[`k${i}`] = Infinity;
      const error = errorOf(() => Event.parse({ kind: 'raw', payload }, { mode }));
      expect(error.tag).toBe('invalid_event_payload');
      expect(error.kind).toBe('raw');
      expect(error.issues[100]).toMatchObject({ code: 'too_many_issues', message: '50 more issues not listed' });
    });

    it('the errors tree is built on first access, once', () => {
      const error = errorOf(() => Event.parse({ kind: 'raw', sequence: -1 }, { mode }));
      expect(Object.getOwnPropertyDescriptor(error, 'errors')).toBeUndefined();
      const tree = error.errors;
      expect(tree).toEqual({ sequence: ['too small: must be at least 0'] });
      expect(error.errors).toBe(tree);
    });
  });

  describe('reference mode: sparse arrays', () => {
    it('a = []; a[1e9] = "x" as assistant_delta content is rejected without walking its length', () => {
      const { array, reads } = countedSparseArray();
      const error = errorOf(() => Event.parse({ kind: 'assistant_delta', payload: { content: array } }, { mode }));
      expect(error.issues).toEqual([{ code: 'invalid_type', message: 'expected string, got array', path: ['payload', 'content'] }]);
      expect(reads()).toBeLessThan(100);
    });

    it('a = []; a[1e9] = "x" as a string list is rejected at its first hole without walking its length', () => {
      const { array, reads } = countedSparseArray();
      const error = errorOf(() => Event.parse({ kind: 'run_started', payload: { args: array } }, { mode }));
      expect(error.issues).toEqual([{ code: 'invalid_type', message: 'expected string, got undefined', path: ['payload', 'args', 0] }]);
      expect(reads()).toBeLessThan(100);
    });

    it('a sparse array in JSON data (raw) is rejected without walking its length', () => {
      const { array, reads } = countedSparseArray();
      const error = errorOf(() => Event.parse({ kind: 'raw', raw: array }, { mode }));
      expect(error.issues).toEqual([
        { code: 'serializable', type: 'undefined', message: 'not JSON-serializable: undefined', path: ['raw', 0] },
      ]);
      expect(reads()).toBeLessThan(100);
    });
  });

  describe('safeParse never throws, parse throws only SchemaError', () => {
    const nullProto = (): object => Object.create(null) as object;
    const throwingToString = {
      toString: () => {
        throw new Error('toString');
      },
    };
    const throwingToPrimitive = {
      [Symbol.toPrimitive]: () => {
        throw nullProto();
      },
    };
    const thrown: [string, () => unknown][] = [
      ['Object.create(null)', nullProto],
      ['an object whose toString throws', () => throwingToString],
      ['an object whose Symbol.toPrimitive throws', () => throwingToPrimitive],
      [
        'an Error whose message getter throws',
        () =>
          Object.defineProperty(new Error(), 'message', {
            get: () => {
              throw nullProto();
            },
          }),
      ],
    ];

    it.each(thrown)('a getter that throws %s is an unreadable issue', (_what, value) => {
      const input = {
        kind: 'raw',
        get raw(): unknown {
          throw value();
        },
      };
      const result = Event.safeParse(input, { mode });
      expect(result.success).toBe(false);
      if (!result.success) expect(result.error.issues[0]).toMatchObject({ code: 'unreadable', path: [] });
      expect(errorOf(() => Event.parse(input, { mode })).issues[0].code).toBe('unreadable');
    });

    it.each(thrown)('a Proxy trap that throws %s is an unreadable issue', (_what, value) => {
      const input = new Proxy(
        { kind: 'raw' },
        {
          ownKeys: () => {
            throw value();
          },
        },
      );
      expect(Event.safeParse(input, { mode }).success).toBe(false);
      expect(errorOf(() => Event.parse(input, { mode })).issues[0].code).toBe('unreadable');
    });

    it('{kind: f} where f.toString throws is an invalid_enum issue', () => {
      const f = Object.assign(() => 1, {
        toString: () => {
          throw nullProto();
        },
      });
      const result = Event.safeParse({ kind: f }, { mode });
      expect(result.success).toBe(false);
      if (!result.success) expect(result.error.issues[0]).toMatchObject({ code: 'invalid_enum', path: ['kind'] });
    });

    it.each([
      ['a throwing toString', throwingToString],
      ['a throwing Symbol.toPrimitive', throwingToPrimitive],
      ['a null-prototype object', Object.create(null)],
    ])('a value with %s in a text field is an invalid_type issue', (_what, value) => {
      const result = Event.safeParse({ kind: 'stderr', provider: value, payload: { content: value } }, { mode });
      expect(result.success).toBe(false);
      if (!result.success) expect(result.error.issues.map((issue) => issue.code)).toEqual(['invalid_type', 'invalid_type']);
    });

    it.each([
      ['a symbol', () => Symbol('s')],
      ['a bigint', () => 10n],
      ['an object whose toString throws', () => throwingToString],
      [
        'a function whose toString throws',
        () =>
          Object.assign(() => 1, {
            toString: () => {
              throw nullProto();
            },
          }),
      ],
    ])('%s in a field of every type is an issue, never a throw', (_what, value) => {
      const inputs = [
        { kind: 'raw', provider: value(), sequence: value(), timestamp: value(), raw: value(), metadata: value() },
        { kind: 'error', payload: { severity: value(), message: value(), code: value() } },
        { kind: 'run_started', payload: { args: [value()], command: value() } },
        { kind: 'cost_update', payload: { cost_usd: value(), input_tokens: value() } },
        { kind: 'tool_result', payload: { is_error: value(), content: value() } },
        { kind: 'assistant_message', payload: { content: value(), role: value() } },
      ];
      for (const input of inputs) {
        const result = Event.safeParse(input, { mode });
        expect(result.success).toBe(false);
        if (!result.success) expect(result.error.issues.length).toBeGreaterThan(1);
      }
    });

    it('the errors tree of a frozen SchemaError is still answered', () => {
      const error = Object.freeze(errorOf(() => Event.parse({ kind: 'raw', sequence: -1 }, { mode })));
      expect(error.errors).toEqual({ sequence: ['too small: must be at least 0'] });
    });

    it("Event.create('raw', {get x(){ throw new Error('boom') }}) throws a SchemaError (unreadable)", () => {
      const attrs = {
        get x(): unknown {
          throw new Error('boom');
        },
      };
      const error = errorOf(() => Event.create('raw', attrs, { mode }));
      expect(error.issues[0]).toMatchObject({ code: 'unreadable', message: 'could not read input: "Error: boom"' });
    });

    it('Event.create with a Proxy whose ownKeys trap throws Object.create(null) throws a SchemaError', () => {
      const attrs = new Proxy(
        {},
        {
          ownKeys: () => {
            throw nullProto();
          },
        },
      );
      expect(errorOf(() => Event.create('raw', attrs, { mode })).issues[0].code).toBe('unreadable');
    });
  });

  describe('PreciseDate instances', () => {
    it('Event.parse({kind: "raw", timestamp: new PreciseDate(NaN)}) is refused', () => {
      const error = errorOf(() => Event.parse({ kind: 'raw', timestamp: new PreciseDate(NaN) }, { mode }));
      expect(error.issues[0]).toMatchObject({ code: 'invalid_date', path: ['timestamp'] });
    });

    it.each([
      ['new PreciseDate(0, "x")', () => new PreciseDate(0, 'x')],
      ['new PreciseDate(1e15)', () => new PreciseDate(1e15)],
      [
        'new PreciseDate(0, "1970-01-01T00:00:00.000001Z") (text naming another time)',
        () => new PreciseDate(5, '1970-01-01T00:00:00.000001Z'),
      ],
    ])('%s never gives an event whose JSON fromJSON refuses', (_what, make) => {
      const result = Event.safeParse({ kind: 'raw', timestamp: make() }, { mode });
      if (!result.success) return expect(result.error.issues[0]).toMatchObject({ code: 'invalid_date', path: ['timestamp'] });
      expect(Event.safeFromJSON(JSON.stringify(result.data), { mode }).success).toBe(true);
    });

    it('the event does not keep the caller’s Date: a later d.setTime() does not change it', () => {
      for (const d of [new Date(0), new PreciseDate(0), new PreciseDate(0, '1970-01-01T00:00:00.000Z')]) {
        const event = Event.parse({ kind: 'raw', timestamp: d }, { mode });
        expect(event.timestamp).not.toBe(d);
        d.setTime(86_400_000);
        expect(event.timestamp.getTime()).toBe(0);
        expect(JSON.stringify(event)).toContain('"timestamp":"1970-01-01T00:00:00.000Z"');
      }
    });

    it("a Date subclass whose getTime() returns '0' is read by its time slot, not as the year 2000", () => {
      class LyingDate extends Date {
        override getTime(): number {
          return '0' as unknown as number;
        }
      }
      const event = Event.parse({ kind: 'raw', timestamp: new LyingDate(86_400_000) }, { mode });
      expect(event.timestamp.toISOString()).toBe('1970-01-02T00:00:00.000Z');
      expect(event.timestamp).toBeInstanceOf(PreciseDate);
    });
  });

  describe('inputs are read once', () => {
    /** A getter answering `first`, then `later` on every further read. */
    function changing(first: unknown, later: unknown): { value: object; reads: () => number } {
      let reads = 0;
      const value = Object.defineProperty({}, 'x', { enumerable: true, get: () => (reads++ === 0 ? first : later) });
      return { value, reads: () => reads };
    }

    it('a getter that returns 1 and then a function is read once: an event holding 1, not an accepted event without raw', () => {
      const { value, reads } = changing(1, () => 1);
      const event = Event.parse({ kind: 'raw', raw: { nested: value } }, { mode });
      expect(event.raw).toEqual({ nested: { x: 1 } });
      expect(reads()).toBe(1);
    });

    it('a getter that returns a function and then 1 is read once: refused', () => {
      const { value, reads } = changing(() => 1, 1);
      const error = errorOf(() => Event.parse({ kind: 'raw', raw: { nested: value } }, { mode }));
      expect(error.issues[0]).toMatchObject({ code: 'serializable', type: 'function', path: ['raw', 'nested', 'x'] });
      expect(reads()).toBe(1);
    });

    it('string-list items are read once', () => {
      let reads = 0;
      const args = new Proxy([' a ', 'b'], {
        get(t, key, receiver) {
          if (key === '0') reads++;
          return Reflect.get(t, key, receiver);
        },
      });
      const payload = RunStartedPayload.parse({ args }, { mode });
      expect(payload.args).toEqual(['a', 'b']);
      expect(reads).toBe(1);
    });

    it('each envelope and payload field is read once', () => {
      const reads = new Map<string, number>();
      const count = <T extends object>(name: string, target: T): T =>
        new Proxy(target, {
          get(t, key, receiver) {
            const at = `${name}.${String(key)}`;
            reads.set(at, (reads.get(at) ?? 0) + 1);
            return Reflect.get(t, key, receiver);
          },
        });
      const input = {
        kind: 'raw',
        raw: count('raw', { a: [1] }),
        payload: count('payload', { content: 'c', stream: 'stdout' }),
        metadata: count('metadata', { m: 1 }),
      };
      Event.parse(count('event', input), { mode });
      expect(reads.size).toBeGreaterThan(5);
      for (const [key, n] of reads) expect([key, n]).toEqual([key, 1]);
    });
  });

  describe('forged instances', () => {
    it('new Proxy({kind: "raw"}, {getPrototypeOf: () => Event.prototype}) is not returned as a parsed event', () => {
      const forged = new Proxy({ kind: 'raw' }, { getPrototypeOf: () => Event.prototype });
      const result = Event.safeParse(forged, { mode });
      if (result.success) expect(result.data).not.toBe(forged);
    });

    it('Object.create(Event.prototype) is not accepted', () => {
      const forged = Object.create(Event.prototype) as object;
      expect(Event.safeParse(forged, { mode }).success).toBe(false);
      expect(RawPayload.safeParse(Object.create(RawPayload.prototype), { mode }).success).toBe(false);
      const payload = Object.create(RawPayload.prototype) as object;
      const error = errorOf(() => Event.parse({ kind: 'raw', payload }, { mode }));
      expect(error.issues).toEqual([
        {
          code: 'invalid_payload_class',
          message: 'expected a RawPayload for kind "raw", got RawPayload not built by the library',
          path: ['payload'],
        },
      ]);
    });

    it('real instances still pass through as they are: parsed, built with new, from JSON', () => {
      const parsed = Event.create('raw', { payload: { content: 1 } }, { mode });
      expect(Event.parse(parsed, { mode })).toBe(parsed);
      const fromJson = Event.fromJSON('{"kind":"raw"}', { mode });
      expect(Event.parse(fromJson, { mode })).toBe(fromJson);
      const payload = new RawPayload();
      expect(RawPayload.parse(payload, { mode })).toBe(payload);
      expect(Event.parse({ kind: 'raw', payload }, { mode }).payload).toBe(payload);
    });

    it('a Proxy over a real instance is parsed as input, not returned as is', () => {
      const real = Event.create('raw');
      const proxy = new Proxy(real, {});
      const result = Event.safeParse(proxy, { mode });
      if (result.success) expect(result.data).not.toBe(proxy);
    });
  });
});
