import 'reflect-metadata';
import { instanceToPlain, plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { Event, ToolDescriptor, ToolRequest, ToolResponse, ToolUsePayload } from '../src';
import { wire } from './wire';

/*
 * Issue #11: class-transformer, as NestJS's ClassSerializerInterceptor and ValidationPipe use it,
 * keeps the wire contract: instanceToPlain gives what JSON.stringify writes, and plainToInstance
 * reads unknown keys as parse does.
 */

const line =
  '{"kind":"tool_use","timestamp":"2026-03-19T00:00:00.123456Z","payload":{"tool_name":"shell","input":{"cmd":"ls"},"server":"builtin"},"trace_id":"abc"}';

describe('instanceToPlain (ClassSerializerInterceptor)', () => {
  const event = Event.fromJSON(line);
  const descriptor = ToolDescriptor.create({ name: 'shell', input_schema: { type: 'object' }, origin: 'builtin' });
  const request = ToolRequest.create({ tool_name: 'shell', tool_call_id: 'c1', input: { cmd: 'ls' }, hint: 1 });
  const response = ToolResponse.create({ tool_call_id: 'c1', content: 'ok', hint: [1] });

  it.each([
    ['an event', event],
    ['a payload', event.payload],
    ['a tool descriptor', descriptor],
    ['a tool request', request],
    ['a tool response', response],
    [
      'an event and a payload given a key named extra (#18)',
      Event.fromJSON('{"kind":"tool_use","extra":{"a":1},"payload":{"extra":5,"server":"b"},"z":0}'),
    ],
    ['a payload given a key named extra between other unknown keys', ToolUsePayload.parse({ before: 1, extra: [1], after: true })],
    ['tool data given a key named extra', ToolDescriptor.parse({ name: 't', extra: { server: 'b' } })],
    ['an array of them', [event, event.payload, descriptor]],
    ['an object wrapping them', { event, nested: { payload: event.payload, list: [request, response] } }],
  ])('%s: exactly JSON.parse(JSON.stringify(x))', (_name, value) => {
    expect(instanceToPlain(value)).toStrictEqual(wire(value as object));
  });

  it('keeps the timestamp digits as sent (µs) and merges unknown keys back, never a nested extra', () => {
    const plain = instanceToPlain(event);
    expect(plain.timestamp).toBe('2026-03-19T00:00:00.123456Z');
    expect(plain).toMatchObject({ trace_id: 'abc', payload: { server: 'builtin' } });
    expect(plain).not.toHaveProperty('extra');
    expect(plain.payload).not.toHaveProperty('extra');
  });

  it('a Date given to create writes as JSON.stringify writes it', () => {
    const made = Event.create('stderr', { timestamp: new Date(Date.UTC(2026, 2, 19, 1, 2, 3, 4)) });
    expect(instanceToPlain(made).timestamp).toBe('2026-03-19T01:02:03.004Z');
  });
});

describe('plainToInstance (ValidationPipe with transform)', () => {
  it('puts unknown keys of the event and of its payload into extra, in wire order', () => {
    const event = plainToInstance(Event, JSON.parse(line));
    expect(event).toBeInstanceOf(Event);
    expect(event.payload).toBeInstanceOf(ToolUsePayload);
    expect(event.extra).toEqual({ trace_id: 'abc' });
    expect(event.payload.extra).toEqual({ server: 'builtin' });
    expect(validateSync(event)).toEqual([]);
    expect(JSON.stringify(event)).toBe(JSON.stringify(Event.fromJSON(line)).replace(/"id":\d+/, `"id":${event.id}`));
  });

  it('a payload class: the same instance as parse', () => {
    const body = { tool_name: ' shell ', server: 'x', nested: { a: [1] } };
    const dto = plainToInstance(ToolUsePayload, body);
    expect(dto.extra).toEqual({ server: 'x', nested: { a: [1] } });
    expect(JSON.stringify(dto)).toBe(JSON.stringify(ToolUsePayload.parse(body)));
  });

  it('an incoming "extra" key is an ordinary unknown key, as parse keeps it (never the unknown keys themselves)', () => {
    for (const body of [{ tool_name: 'x', extra: { server: 'y' }, after: 1 }, { tool_name: 'x', extra: 5 }, { extra: null }]) {
      const dto = plainToInstance(ToolUsePayload, body);
      expect(dto.extra).toEqual(ToolUsePayload.parse(body).extra);
      expect(wire(dto)).toEqual(wire(ToolUsePayload.parse(body)));
      expect(validateSync(dto)).toEqual([]);
    }
  });

  it('an incoming "extra" key survives the round trip through both class-transformer directions, as through parse (#18)', () => {
    for (const body of [{ tool_name: 'x', extra: 5 }, { extra: { server: 'b' } }]) {
      const parsed = ToolUsePayload.parse(body);
      const dto = plainToInstance(ToolUsePayload, body);
      expect(instanceToPlain(dto)).toStrictEqual(wire(parsed));
      expect(instanceToPlain(parsed)).toStrictEqual(wire(parsed));
      expect(instanceToPlain(dto)).toHaveProperty('extra', body.extra);
      // The whitelist allows it: kept under forbidNonWhitelisted, as parse keeps it.
      expect(validateSync(dto, { whitelist: true, forbidNonWhitelisted: true })).toEqual([]);
      expect(JSON.stringify(dto)).toBe(JSON.stringify(parsed));
    }
    const line = { id: 1, kind: 'raw', timestamp: '2026-03-19T00:00:00.123456Z', payload: { extra: [2] }, extra: 5 };
    const event = plainToInstance(Event, line);
    expect(event.extra).toEqual({ extra: 5 });
    expect(event.payload.extra).toEqual({ extra: [2] });
    expect(instanceToPlain(event)).toStrictEqual(wire(Event.parse(line)));
  });

  it('an incoming "extra" key leaves the whitelist treatment of the other unknown keys as it is', () => {
    const body = { tool_name: 'x', server: 'y', extra: 5 };
    const forbidden = validateSync(plainToInstance(ToolUsePayload, body), { whitelist: true, forbidNonWhitelisted: true });
    expect(forbidden.map((e) => e.property)).toEqual(['server']);
    const stripped = plainToInstance(ToolUsePayload, body);
    expect(validateSync(stripped, { whitelist: true })).toEqual([]);
    expect(stripped.extra).toEqual({ extra: 5 });
    expect(wire(stripped)).toEqual({ tool_name: 'x', tool_call_id: null, input: {}, metadata: {}, extra: 5 });
    expect(instanceToPlain(stripped)).toStrictEqual(wire(stripped));
  });

  it('whatever the order of the keys: the same instance as parse, unknown keys in one place', () => {
    for (const body of [
      { a: 1, extra: 2, b: 3 },
      { extra: 2, a: 1 },
      { a: 1, toMap: 2 },
      { a: 1, b: 2 },
    ]) {
      const dto = plainToInstance(ToolUsePayload, { tool_name: 'x', ...body });
      const parsed = ToolUsePayload.parse({ tool_name: 'x', ...body });
      expect(JSON.stringify(dto)).toBe(JSON.stringify(parsed));
      expect(Object.keys(dto)).toEqual(Object.keys(parsed));
      expect(dto.extra).toEqual(parsed.extra);
    }
  });

  it('an unknown key that is not JSON data is a class-validator error on extra (a 400 under Nest), not a thrown TypeError', () => {
    const dto = plainToInstance(ToolUsePayload, { tool_name: 'x', bad: () => 1 });
    const errors = validateSync(dto);
    expect(errors.map((e) => e.property)).toEqual(['extra']);
    expect(Object.values(errors[0].constraints ?? {})[0]).toMatch(/unknown key "bad"/);
    // Assigning valid unknown keys afterwards clears it.
    dto.extra = { ok: true };
    expect(validateSync(dto)).toEqual([]);
  });

  it('assigning extra directly still refuses anything but a plain JSON object', () => {
    const payload = new ToolUsePayload();
    expect(() => {
      payload.extra = 5 as never;
    }).toThrow(TypeError);
    expect(() => {
      payload.extra = { tool_name: 'x' };
    }).toThrow(/declared field/);
  });
});
