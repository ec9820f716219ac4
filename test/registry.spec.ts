import 'reflect-metadata';
import { Event, KINDS, OptionalTrimmedString, PAYLOAD_CLASSES, RawPayload, Registry, SchemaError, ToolUsePayload } from '../src';

/** A provider package's richer tool_use payload. */
class ClaudeToolUsePayload extends ToolUsePayload {
  @OptionalTrimmedString() server_name!: string | null;
}

describe('Registry', () => {
  it('maps every kind to its default class, in order', () => {
    expect(Registry.default.kinds()).toEqual(KINDS);
    for (const kind of KINDS) {
      expect(Registry.default.classFor(kind)).toBe(PAYLOAD_CLASSES[kind]);
      expect(PAYLOAD_CLASSES[kind].kind).toBe(kind);
    }
    expect(Registry.default.classFor('nope')).toBeUndefined();
  });

  it('derives a registry with a subclass and parses with it, leaving the default alone', () => {
    const registry = Registry.default.with('tool_use', ClaudeToolUsePayload);
    const line = '{"kind":"tool_use","payload":{"tool_name":"x","server_name":" mcp "}}';
    for (const mode of ['fast', 'reference'] as const) {
      const event = Event.fromJSON(line, { registry, mode });
      expect(event.payload).toBeInstanceOf(ClaudeToolUsePayload);
      if (event.kind === 'tool_use') expect(event.payload.server_name).toBe('mcp');
    }
    expect(Event.fromJSON(line).payload).not.toBeInstanceOf(ClaudeToolUsePayload);
    expect(Event.fromJSON(line).payload.extra).toEqual({ server_name: ' mcp ' });
    expect(registry.classFor('raw')).toBe(RawPayload);
  });

  it('refuses an instance of the base class where the registry wants the subclass', () => {
    const registry = Registry.default.with('tool_use', ClaudeToolUsePayload);
    const result = Event.safeParse({ kind: 'tool_use', payload: ToolUsePayload.create({}) }, { registry });
    expect(result).toMatchObject({
      success: false,
      error: { tag: 'invalid_event_payload', kind: 'tool_use', issues: [{ code: 'invalid_payload_class' }] },
    });
  });

  it('subclass fields come after the base fields, metadata last', () => {
    expect(Object.keys(ClaudeToolUsePayload.create({}).toMap())).toEqual(['tool_name', 'tool_call_id', 'input', 'server_name', 'metadata']);
  });

  it('refuses a class that is not a subclass of the default', () => {
    expect(() => Registry.default.with('tool_use', RawPayload as never)).toThrow(TypeError);
    expect(() => Registry.default.with('nope' as never, RawPayload as never)).toThrow(TypeError);
  });

  it('errors of a subclass keep the kind', () => {
    expect(() => ClaudeToolUsePayload.parse({ server_name: 5 })).toThrow(SchemaError);
    expect(ClaudeToolUsePayload.safeParse({ server_name: 5 })).toMatchObject({
      success: false,
      error: { kind: 'tool_use', issues: [{ path: ['server_name'] }] },
    });
  });
});
