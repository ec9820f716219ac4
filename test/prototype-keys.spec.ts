import 'reflect-metadata';
import { Event, ToolUsePayload, ToolDescriptor } from '../src';

const MODES = ['fast', 'reference'] as const;

describe('__proto__, constructor and prototype keys are data', () => {
  const line =
    '{"kind":"tool_use","__proto__":{"polluted":1},"constructor":{"prototype":{"x":1}},' +
    '"payload":{"__proto__":{"p":2},"prototype":3,"input":{"__proto__":{"q":4},"constructor":5},"metadata":{"__proto__":[6]}}}';

  it.each(MODES)('from JSON: kept as own properties, no prototype changes (%s)', (mode) => {
    const event = Event.fromJSON(line, { mode });
    expect(Object.getPrototypeOf(event)).toBe(Event.prototype);
    expect(event.payload).toBeInstanceOf(ToolUsePayload);
    expect(Object.getPrototypeOf(event.extra)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(event.extra, '__proto__')?.value).toEqual({ polluted: 1 });
    expect(event.extra.constructor).toEqual({ prototype: { x: 1 } });
    const payload = event.payload as ToolUsePayload;
    expect(Object.getOwnPropertyDescriptor(payload.extra, '__proto__')?.value).toEqual({ p: 2 });
    expect(Object.getOwnPropertyDescriptor(payload.input, '__proto__')?.value).toEqual({ q: 4 });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).q).toBeUndefined();
    expect(JSON.stringify(Event.fromJSON(JSON.stringify(event), { mode }))).toBe(JSON.stringify(event));
  });

  it.each(MODES)('from an object: own __proto__ keys survive the copy (%s)', (mode) => {
    const input = JSON.parse(line);
    const event = Event.parse(input, { mode });
    expect(Object.getOwnPropertyDescriptor(event.extra, '__proto__')?.value).toEqual({ polluted: 1 });
    expect(JSON.stringify(event)).toContain('"__proto__":{"polluted":1}');
    expect(JSON.stringify(event)).toContain('"input":{"__proto__":{"q":4},"constructor":5}');
  });

  it('tool data keeps them too', () => {
    const tool = ToolDescriptor.parse(JSON.parse('{"name":"t","__proto__":{"a":1},"input_schema":{"__proto__":{"b":2}}}'));
    expect(Object.getOwnPropertyDescriptor(tool.extra, '__proto__')?.value).toEqual({ a: 1 });
    expect(tool).toBeInstanceOf(ToolDescriptor);
    expect(JSON.stringify(tool)).toContain('"input_schema":{"__proto__":{"b":2}}');
  });
});
