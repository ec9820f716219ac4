import 'reflect-metadata';
import { ampProfile } from '../../src/providers/amp';
import { createDecoder } from '../../src/decode/decoder';
import { detectProvider } from '../../src/decode/detect';

/*
 * Amp prints Claude Code's stream JSON, so the Claude mapping applies (test/providers/claude.spec.ts);
 * these tests cover what is Amp's own: detection by thread id, per-message cost, Amp's error field.
 */

const THREAD = 'T-019e47a8-5090-7538-9035-f2fde26859b7';
const clock = () => new Date('2026-01-01T00:00:00.000Z');

type Plain = { kind: string; provider: string; payload: Record<string, unknown>; provider_session_id: string | null };

function decode(...lines: object[]): Plain[] {
  const decoder = createDecoder('amp', { clock, keepRaw: 'none' });
  return JSON.parse(JSON.stringify(lines.flatMap((line) => decoder.push(JSON.stringify(line))))) as Plain[];
}

const init = { type: 'system', subtype: 'init', cwd: '/Users/test/repo', session_id: THREAD, tools: ['Bash', 'Read'], mcp_servers: [] };
const assistant = {
  type: 'assistant',
  message: {
    type: 'message',
    role: 'assistant',
    content: [
      { type: 'text', text: 'Running it.' },
      { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { cmd: 'printf ok' } },
    ],
    stop_reason: 'tool_use',
    usage: {
      input_tokens: 7,
      cache_creation_input_tokens: 3,
      cache_read_input_tokens: 14009,
      output_tokens: 13,
      max_tokens: 300000,
      service_tier: 'standard',
    },
  },
  parent_tool_use_id: null,
  session_id: THREAD,
};

it('detects Amp lines by their T- thread id, and not Claude’s', () => {
  expect(detectProvider(JSON.stringify(init))).toBe('amp');
  expect(detectProvider(JSON.stringify(assistant))).toBe('amp');
  expect(detectProvider(JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: '4', session_id: THREAD }))).toBe(
    'amp',
  );
  expect(ampProfile.detect({ ...init, session_id: 'abe20eab-de99-4099-b040-83b0a42d5fcd' })).toBe(false);
  expect(ampProfile.detect({ type: 'thread.started', session_id: THREAD })).toBe(false);
});

it('decodes with the Claude mapping under the amp id, plus a cost_update per assistant line', () => {
  const events = decode(init, assistant);
  expect(events.map((event) => event.kind)).toEqual(['run_started', 'assistant_message', 'tool_use', 'cost_update']);
  expect(events.every((event) => event.provider === 'amp' && event.provider_session_id === THREAD)).toBe(true);
  expect(events[3].payload).toMatchObject({
    input_tokens: 7 + 14009 + 3,
    output_tokens: 13,
    total_tokens: 14032,
    cost_usd: 0,
    metadata: { aggregation: 'delta', cost_reported: false, cache_read_input_tokens: 14009 },
  });
});

it('gives no cost_update for a result without usage or cost, and fails on Amp’s error results with their error text', () => {
  expect(
    decode({ type: 'result', subtype: 'success', duration_ms: 2442, is_error: false, num_turns: 1, result: '4', session_id: THREAD }).map(
      (event) => event.kind,
    ),
  ).toEqual(['result']);
  const failed = decode({
    type: 'result',
    subtype: 'error_during_execution',
    duration_ms: 10,
    is_error: true,
    num_turns: 1,
    error: 'Out of credits',
    session_id: THREAD,
  });
  expect(failed.map((event) => event.kind)).toEqual(['error', 'result']);
  expect(failed[0].payload).toMatchObject({ message: 'Out of credits', code: 'execution' });
  expect(failed[1].payload).toMatchObject({ status: 'failed' });
});
