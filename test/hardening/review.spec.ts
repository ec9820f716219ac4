import 'reflect-metadata';
import { Event, ResultPayload, ToolUsePayload, nextEventId, OptionalTrimmedString, Registry, validateSerializable } from '../../src';
import { MODES } from './arbitraries';

/** The defects found on the outside review of the core engine, one regression test each. */

describe.each(MODES)('core engine review (%s path)', (mode) => {
  it('regression: issue paths are never shared between errors', () => {
    const first = Event.safeParse({ kind: 'tool_use', payload: 5 }, { mode });
    expect(first.success).toBe(false);
    if (first.success) return;
    first.error.issues[0].path.push('oops');
    const second = Event.safeParse({ kind: 'tool_use', payload: 5 }, { mode });
    expect(second.success ? [] : second.error.issues.map((issue) => issue.path)).toEqual([['payload']]);
    const nested = Event.safeParse({ kind: 'tool_use', payload: { tool_name: 5 } }, { mode });
    if (!nested.success) nested.error.issues[0].path.push('oops');
    const again = Event.safeParse({ kind: 'tool_use', payload: { tool_name: 5 } }, { mode });
    expect(again.success ? [] : again.error.issues.map((issue) => issue.path)).toEqual([['payload', 'tool_name']]);
  });

  it('regression: an error inside the library is thrown as it is, not reported as unreadable input', () => {
    const broken = {
      classFor: () => {
        throw new RangeError('a bug in a registry');
      },
    } as unknown as Registry;
    expect(() => Event.safeParse({ kind: 'raw' }, { mode, registry: broken })).toThrow(RangeError);
    // A genuine failure to read the input still is an issue.
    const getter = Event.safeParse(
      {
        kind: 'raw',
        get raw() {
          throw new Error('boom');
        },
      },
      { mode },
    );
    expect(getter.success ? null : getter.error.issues.map((issue) => issue.code)).toEqual(['unreadable']);
  });

  it('regression: ResultPayload has the Elixir `object` field (any JSON, default null), not an extra key', () => {
    const result = ResultPayload.parse({ status: 'completed', object: { answer: 42 } }, { mode });
    expect(result.object).toEqual({ answer: 42 });
    expect(result.extra).toEqual({});
    expect(ResultPayload.parse({}, { mode }).object).toBeNull();
    expect(JSON.parse(JSON.stringify(result))).toEqual({
      status: 'completed',
      stop_reason: null,
      output: null,
      object: { answer: 42 },
      metadata: {},
    });
  });

  it('regression: both paths build the same instance; constructors and field initializers are not run by parse', () => {
    let constructed = 0;
    class Tagged extends ToolUsePayload {
      @OptionalTrimmedString() server!: string | null;
      note = 'from an initializer';
      constructor() {
        super();
        constructed += 1;
      }
    }
    const parsed = Tagged.parse({ tool_name: 'shell', server: ' mcp ' }, { mode });
    expect(constructed).toBe(0);
    expect(parsed).toBeInstanceOf(Tagged);
    expect(Object.keys(parsed)).toEqual(['tool_name', 'tool_call_id', 'input', 'server', 'metadata']);
    expect((parsed as Partial<Tagged>).note).toBeUndefined();
    expect(parsed.server).toBe('mcp');
    // `new` runs them, as NestJS and class-transformer construct.
    expect(new Tagged().note).toBe('from an initializer');
  });

  it('regression: an explicit id uses up no id', () => {
    const before = nextEventId();
    Event.parse({ kind: 'raw', id: 7 }, { mode });
    Event.fromJSON('{"kind":"raw","id":8}', { mode });
    expect(nextEventId()).toBe(before + 1);
  });

  it('regression: missing containers are the same shared frozen {} and [] in both paths', () => {
    const a = Event.create('tool_use', {}, { mode });
    const b = Event.create('tool_use', {}, { mode: 'fast' });
    expect(a.metadata).toBe(b.metadata);
    expect(a.payload.input).toBe(b.payload.input);
    expect(a.extra).toBe(b.extra);
    expect(Object.isFrozen(a.payload.input)).toBe(true);
    expect(a.toMap().metadata).not.toBe(a.metadata);
  });
});

it('regression: a failure to read input outside a parse (validateSerializable) is a well-formed Error carrying the original throw', () => {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  let thrown: unknown;
  try {
    validateSerializable({ a: proxy });
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(Error);
  expect((thrown as Error).cause).toBeInstanceOf(TypeError);
});
