import 'reflect-metadata';
import { expectTypeOf } from 'expect-type';
import { AnyEvent, Event, OptionalTrimmedString, PayloadFor, Registry, ToolResultPayload, ToolUsePayload, ErrorPayload } from '../src';

class RichToolUse extends ToolUsePayload {
  @OptionalTrimmedString() server_name!: string | null;
}

describe('types', () => {
  it('PayloadFor maps a kind to its payload class', () => {
    expectTypeOf<PayloadFor<'tool_use'>>().toEqualTypeOf<ToolUsePayload>();
    expectTypeOf<PayloadFor<'error'>>().toEqualTypeOf<ErrorPayload>();
  });

  it('create is typed to the kind and static parse to the subclass', () => {
    const event = Event.create('tool_use', { payload: { tool_name: 'x' } });
    expectTypeOf(event).toEqualTypeOf<Event<'tool_use'>>();
    expectTypeOf(event.payload).toEqualTypeOf<ToolUsePayload>();
    expectTypeOf(ToolUsePayload.parse({})).toEqualTypeOf<ToolUsePayload>();
    expectTypeOf(ToolResultPayload.create({ is_error: true })).toEqualTypeOf<ToolResultPayload>();
    expect(event.payload.tool_name).toBe('x');
  });

  it('parse returns a union that narrows on kind', () => {
    const event = Event.parse({ kind: 'tool_result', payload: { is_error: true } });
    expectTypeOf(event).toEqualTypeOf<AnyEvent>();
    if (event.kind === 'tool_result') {
      expectTypeOf(event.payload).toEqualTypeOf<ToolResultPayload>();
      expect(event.payload.is_error).toBe(true);
    } else {
      expectTypeOf(event.payload).not.toEqualTypeOf<ToolResultPayload>();
      throw new Error('expected tool_result');
    }
  });

  it('a derived registry types the overridden kind', () => {
    const registry = Registry.default.with('tool_use', RichToolUse);
    const event = Event.parse({ kind: 'tool_use' }, { registry });
    if (event.kind === 'tool_use') expectTypeOf(event.payload).toEqualTypeOf<RichToolUse>();
    expect(event.payload).toBeInstanceOf(RichToolUse);
  });

  it('create rejects wrongly typed fields at compile time', () => {
    // @ts-expect-error content must be a string
    expect(() => Event.create('assistant_delta', { payload: { content: 5 } })).toThrow();
    // @ts-expect-error not a kind
    expect(() => Event.create('nope')).toThrow();
  });
});
