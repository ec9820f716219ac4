import 'reflect-metadata';
import { wire } from '../wire';
import type { AnyEvent } from '../../src';
import { createDecoder } from '../../src/decode/decoder';
import { detectProvider } from '../../src/decode/detect';
import { buildArgv } from '../../src/runner/flags';

/* The Cline profile, rule by rule, on lines shaped as `cline --json` 3.0.65 prints them (see the captures). */

const CLOCK = (): Date => new Date('2030-01-01T00:00:00.000Z');
const ts = '2026-12-06T02:40:43.655Z';
const start = { ts, type: 'hook_event', hookEventName: 'agent_start', agentId: 'agent_1', taskId: 'conv_1', parentAgentId: null };
const agent = (event: object) => ({ ts, type: 'agent_event', event });
const runResult = (finishReason: string, text: string) => ({
  ts,
  type: 'run_result',
  finishReason,
  iterations: 1,
  usage: {},
  aggregateUsage: {},
  text,
  model: { id: 'm' },
});

function decodeAll(lines: readonly object[], exit = { code: 0, signal: null }): AnyEvent[] {
  const decoder = createDecoder('cline', { clock: CLOCK });
  return [...lines.flatMap((line) => decoder.push(JSON.stringify(line))), ...decoder.end(exit)];
}
const payload = (event: AnyEvent | undefined) => (wire(event!) as { payload: Record<string, unknown> }).payload;
const ofKind = (events: AnyEvent[], kind: string) => events.filter((event) => event.kind === kind).map(payload);

describe('the cline profile', () => {
  it('is detected by its own line types', () => {
    expect(detectProvider(start)).toBe('cline');
    expect(detectProvider(runResult('completed', 'x'))).toBe('cline');
    expect(detectProvider({ type: 'agent_event' })).toBeNull();
  });

  it('the session id is the taskId; the result is held to the end of the stream and is the only one', () => {
    const events = decodeAll([start, agent({ type: 'content_end', contentType: 'text', text: 'Hi.' }), runResult('completed', 'Hi.')]);
    expect(events.map((event) => event.kind)).toEqual(['run_started', 'assistant_message', 'raw', 'result']);
    expect(events.every((event) => event.provider_session_id === 'conv_1')).toBe(true);
    expect(ofKind(events, 'result')).toEqual([expect.objectContaining({ status: 'completed', output: 'Hi.' })]);
  });

  it('a failed model call: one error (the agent event), a failed result, no "no result" error', () => {
    const error = agent({
      type: 'error',
      error: { name: 'Error', message: 'scripted invalid request' },
      errorClass: 'unknown',
      recoverable: false,
      iteration: 1,
    });
    const events = decodeAll([start, error, runResult('error', 'scripted invalid request')], { code: 1, signal: null });
    expect(ofKind(events, 'error')).toEqual([expect.objectContaining({ message: 'scripted invalid request', severity: 'error' })]);
    expect(ofKind(events, 'result')).toEqual([expect.objectContaining({ status: 'failed', stop_reason: 'error' })]);
  });

  it('run_aborted after run_result drops the held result: the stopper says how the run ended', () => {
    const decoder = createDecoder('cline', { clock: CLOCK });
    const events = [start, runResult('completed', 'Done.'), { ts, type: 'run_aborted', reason: 'local_abort', message: 'aborted' }].flatMap(
      (line) => decoder.push(JSON.stringify(line)),
    );
    expect([...events, ...decoder.end({ code: null, signal: 'SIGTERM' }, 'held')].map((event) => event.kind)).toEqual([
      'run_started',
      'raw',
      'raw',
    ]);
  });

  it('a tool call: tool_use, then a tool_result that fails when a command failed; usage without a price has none', () => {
    const events = decodeAll([
      start,
      agent({ type: 'content_start', contentType: 'tool', toolName: 'run_commands', toolCallId: 'c1', input: { commands: ['ls /x'] } }),
      agent({
        type: 'content_end',
        contentType: 'tool',
        toolName: 'run_commands',
        toolCallId: 'c1',
        output: [{ query: 'ls /x', result: 'No such file', error: 'exit 2', success: false }],
      }),
      agent({ type: 'usage', inputTokens: 1100, outputTokens: 25, cacheReadTokens: 800, totalCost: 0 }),
      runResult('completed', 'x'),
    ]);
    expect(ofKind(events, 'tool_use')).toEqual([expect.objectContaining({ tool_name: 'run_commands', tool_call_id: 'c1' })]);
    expect(ofKind(events, 'tool_result')).toEqual([
      expect.objectContaining({ tool_call_id: 'c1', content: 'No such file', is_error: true }),
    ]);
    expect(ofKind(events, 'cost_update')).toEqual([
      expect.objectContaining({
        input_tokens: 1100,
        output_tokens: 25,
        metadata: expect.objectContaining({ cost_reported: false, cache_read_input_tokens: 800 }),
      }),
    ]);
  });

  it('argv: the prompt after `--`; a prompt too long for argv, and resume, are refused with a TypeError', () => {
    expect(buildArgv('cline', { prompt: '-a prompt' })).toEqual(['--json', '--', '-a prompt']);
    expect(() => buildArgv('cline', { prompt: 'x'.repeat(70_000) })).toThrow(
      new TypeError('cline takes its prompt only as an argument: a prompt over 65536 bytes (UTF-8) cannot be passed to it'),
    );
    expect(() => buildArgv('cline', { prompt: 'Say hi.', resume: 'conv_1' })).toThrow(new TypeError('cline runs cannot be resumed'));
  });
});
