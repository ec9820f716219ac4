import { Event, SchemaError, ToolUsePayload } from '../src';

// Build a tool_use event: strings are trimmed, defaults filled in, unknown keys kept.
const event = Event.create('tool_use', {
  provider: 'claude',
  sequence: 2,
  timestamp: '2026-03-19T00:00:00.123456Z',
  payload: { tool_name: ' shell ', tool_call_id: 'toolu_01', input: { cmd: 'ls -la' }, server: 'builtin' },
  trace_id: 'abc-123',
});
console.log(event.payload instanceof ToolUsePayload, event.payload.tool_name, event.payload.extra);
// → true shell { server: 'builtin' }

// One JSON line out, and back in again: byte-identical.
const line = JSON.stringify(event);
console.log(line);
console.log(JSON.stringify(Event.fromJSON(line)) === line); // → true

// Parsing narrows on kind.
const parsed = Event.fromJSON(line);
if (parsed.kind === 'tool_use') console.log(parsed.payload.input); // → { cmd: 'ls -la' }

// Bad input: one error type with issue paths from the root.
const result = Event.safeParse({ kind: 'assistant_delta', payload: { index: -1 } });
if (!result.success) {
  const error: SchemaError = result.error;
  console.log(error.tag, error.kind, error.issues, error.errors);
  // → invalid_event_payload assistant_delta
  //   [ { code: 'too_small', message: 'too small: must be at least 0', path: [ 'payload', 'index' ] } ]
  //   { payload: { index: [ 'too small: must be at least 0' ] } }
}
