import 'reflect-metadata';
import { Event, ToolDescriptor, ToolUsePayload } from '../src';

/*
 * Unknown keys are own properties of the instance, after its fields: the instance's own keys
 * are its wire keys, so JSON.stringify writes it without a toJSON (see src/schema/extra.ts).
 */
const MODES = ['fast', 'reference'] as const;

describe.each(MODES)('unknown keys (%s)', (mode) => {
  const line = '{"kind":"tool_use","trace_id":"t-1","payload":{"tool_name":"shell","hint":{"a":[1]}},"zone":3}';

  it('are own properties after the fields, written back by JSON.stringify in place', () => {
    const event = Event.fromJSON(line, { mode });
    const fields = ['id', 'kind', 'provider', 'sequence', 'timestamp', 'payload', 'raw', 'provider_session_id', 'metadata'];
    expect(Object.keys(event)).toEqual([...fields, 'trace_id', 'zone']);
    expect(event.extra).toEqual({ trace_id: 't-1', zone: 3 });
    expect((event.payload as ToolUsePayload).extra).toEqual({ hint: { a: [1] } });
    const text = JSON.stringify(event);
    expect(text.endsWith('"metadata":{},"trace_id":"t-1","zone":3}')).toBe(true);
    expect(text).toContain('"metadata":{},"hint":{"a":[1]}}');
    expect(JSON.stringify(Event.fromJSON(text, { mode }))).toBe(text);
  });

  it('no model prototype has a toJSON: JSON.stringify writes the instance as it stands', () => {
    const event = Event.fromJSON(line, { mode });
    expect('toJSON' in event).toBe(false);
    expect('toJSON' in event.payload).toBe(false);
    expect(JSON.stringify(event)).toBe(
      JSON.stringify(event.toMap()).replace(/"timestamp":"[^"]*"/, `"timestamp":"${event.timestamp.toJSON()}"`),
    );
  });

  it('a key an inherited member names (toMap, constructor, extra, __proto__) shadows nothing and is still written back', () => {
    const text = '{"kind":"raw","toMap":1,"constructor":{"x":1},"extra":"e","__proto__":{"p":1},"plain":2}';
    const event = Event.fromJSON(text, { mode });
    expect(typeof event.toMap).toBe('function');
    expect(event.constructor).toBe(Event);
    expect(Object.keys(event)).not.toContain('toMap');
    expect(Object.keys(event).slice(-2)).toEqual(['extra', 'plain']); // the other unknown keys stay own properties
    expect(event.extra).toEqual(JSON.parse('{"toMap":1,"constructor":{"x":1},"extra":"e","__proto__":{"p":1},"plain":2}'));
    expect(event.toMap()).toMatchObject({ toMap: 1, plain: 2, extra: 'e' });
    const written = JSON.stringify(event);
    expect(JSON.parse(written)).toEqual(
      JSON.parse(JSON.stringify(event.toMap()).replace(/"timestamp":"[^"]*"/, `"timestamp":"${event.timestamp.toJSON()}"`)),
    );
    expect(JSON.stringify(Event.fromJSON(written, { mode }))).toBe(written);
  });

  it('an incoming key named extra is an own key where it came, reading as the unknown keys; the others stay own data', () => {
    const text = '{"kind":"raw","a":1,"extra":{"server":"b"},"z":2}';
    const event = Event.fromJSON(text, { mode });
    expect(Object.keys(event).slice(-3)).toEqual(['a', 'extra', 'z']);
    expect(event.extra).toEqual({ a: 1, extra: { server: 'b' }, z: 2 });
    expect(Object.isFrozen(event.extra)).toBe(true);
    expect(JSON.stringify(event).endsWith('"metadata":{},"a":1,"extra":{"server":"b"},"z":2}')).toBe(true);
    expect(JSON.stringify(Event.fromJSON(JSON.stringify(event), { mode }))).toBe(JSON.stringify(event));
    // An own key deleted or changed is written as it now is (a whitelist strips own keys).
    delete (event as unknown as Record<string, unknown>).a;
    (event as unknown as Record<string, unknown>).z = 3;
    expect(event.extra).toEqual({ extra: { server: 'b' }, z: 3 });
    expect(JSON.parse(JSON.stringify(event))).toMatchObject({ extra: { server: 'b' }, z: 3 });
    expect(JSON.parse(JSON.stringify(event))).not.toHaveProperty('a');
    // Assigning extra still replaces the unknown keys.
    event.extra = { fresh: 1 };
    expect(Object.keys(event).slice(-1)).toEqual(['fresh']);
    expect(JSON.parse(JSON.stringify(event))).not.toHaveProperty('extra');
  });

  it('extra reads as a frozen snapshot; assigning it replaces the unknown keys', () => {
    const event = Event.fromJSON(line, { mode });
    expect(Object.isFrozen(event.extra)).toBe(true);
    expect(() => {
      (event.extra as Record<string, unknown>).late = 1;
    }).toThrow(TypeError);
    const replacement = { fresh: { n: 1 } };
    event.extra = replacement;
    replacement.fresh.n = 2; // copied: a later change does not reach the event
    expect(event.extra).toEqual({ fresh: { n: 1 } });
    expect(JSON.parse(JSON.stringify(event))).toMatchObject({ fresh: { n: 1 } });
    expect(JSON.parse(JSON.stringify(event))).not.toHaveProperty('trace_id');
    event.extra = { toString: 'x' }; // a shadowing key goes to the slot instead
    expect(JSON.parse(JSON.stringify(event))).toMatchObject({ toString: 'x' });
    expect(Object.keys(event)).not.toContain('fresh');
    event.extra = {};
    expect(Object.keys(JSON.parse(JSON.stringify(event)))).not.toContain('toString');
  });
});

describe('the extra setter refuses what it cannot keep', () => {
  it.each([
    ['a non-object', 5, /plain object/],
    ['an array', [1], /plain object/],
    ['a class instance', new Date(0), /plain object/],
    ['non-JSON data', { f: () => 1 }, /JSON data/],
    ['a declared field', { kind: 'raw' }, /"kind" is a declared field of Event/],
  ])('%s: a TypeError naming the problem, and nothing changes', (_name, value, message) => {
    const event = Event.fromJSON('{"kind":"raw","keep":1}');
    expect(() => {
      event.extra = value as never;
    }).toThrow(message);
    expect(event.extra).toEqual({ keep: 1 });
  });
});

it('tool data and user-built instances follow the same rule', () => {
  const tool = ToolDescriptor.parse({ name: 't', vendor: 'v' });
  expect(Object.keys(tool).slice(-1)).toEqual(['vendor']);
  const built = new Event();
  (built as unknown as Record<string, unknown>).added = true; // an own key set by hand is an unknown key too
  expect(built.extra).toEqual({ added: true });
});
