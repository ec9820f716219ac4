/**
 * A deterministic (seeded) corpus of event lines with a realistic mix:
 * mostly assistant deltas, then tool traffic, thinking, costs, results, errors
 * and a few raw events with large content; unknown keys at both levels.
 */

/** mulberry32: a tiny seeded PRNG, so every run benchmarks the same lines. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ['the', 'file', 'src/index.ts', 'refactor', ' ', 'λ', 'tests', 'pass', '\n', 'done', 'ok', 'error', '🙂', 'const x = 1;'];

export function corpus(count: number, seed = 42): string[] {
  const random = rng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const text = (words: number): string => Array.from({ length: words }, () => pick(WORDS)).join(' ');
  const int = (max: number): number => Math.floor(random() * max);
  const base = Date.UTC(2026, 2, 19);
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const roll = random();
    let kind: string;
    let payload: Record<string, unknown>;
    if (roll < 0.6) {
      kind = 'assistant_delta';
      payload = { content: text(1 + int(6)), index: int(4) };
    } else if (roll < 0.7) {
      kind = 'tool_use';
      payload = { tool_name: ' shell ', tool_call_id: `toolu_${i}`, input: { cmd: text(3), timeout: 30, env: { CI: '1' } } };
    } else if (roll < 0.8) {
      kind = 'tool_result';
      payload = { tool_call_id: `toolu_${i - 1}`, content: text(20), is_error: random() < 0.1 };
    } else if (roll < 0.87) {
      kind = 'thinking';
      payload = { content: text(10), signature: random() < 0.2 ? 'sig' : null };
    } else if (roll < 0.93) {
      kind = 'cost_update';
      payload = { input_tokens: int(5000), output_tokens: int(800), total_tokens: int(6000), cost_usd: random() / 10 };
    } else if (roll < 0.96) {
      kind = 'result';
      payload = { status: 'completed', stop_reason: 'end_turn', output: { text: text(8) } };
    } else if (roll < 0.98) {
      kind = 'error';
      payload = { message: ` ${text(5)} `, code: 'runtime_error', severity: pick(['warning', 'error', 'fatal']) };
    } else {
      kind = 'raw';
      payload = { stream: 'stdout', content: text(200) };
    }
    if (random() < 0.2) payload.provider_field = { hint: text(2) };
    const event: Record<string, unknown> = {
      id: i + 1,
      kind,
      provider: 'claude',
      sequence: i,
      timestamp: new Date(base + i * 7).toISOString().replace('Z', `${String(i % 1000).padStart(3, '0')}Z`),
      payload,
      provider_session_id: 'sess-1',
    };
    if (random() < 0.2) event.trace_id = `trace-${int(1e6)}`;
    lines.push(JSON.stringify(event));
  }
  return lines;
}

/** One raw event whose content is `bytes` long, for the growth measurements. */
export function sizedLine(bytes: number, seed = 7): string {
  const random = rng(seed);
  let content = '';
  while (content.length < bytes) content += WORDS[Math.floor(random() * WORDS.length)] + ' ';
  return JSON.stringify({
    id: 1,
    kind: 'raw',
    provider: 'codex',
    timestamp: '2026-03-19T00:00:00.123456Z',
    payload: { stream: 'stdout', content: content.slice(0, bytes) },
  });
}
