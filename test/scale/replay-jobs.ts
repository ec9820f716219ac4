import { join } from 'node:path';
import type { RunJob, StreamEntry } from '../../src';

/*
 * Queued jobs whose CLI is the stand-in replaying a real Gemini ACP capture
 * (test/sessions/replay-agent.js), for the scale tests in process and on Redis.
 */

const ROOT = join(__dirname, '..', '..');
export const REPLAY_AGENT = join(ROOT, 'test', 'sessions', 'replay-agent.js');

/** A job replaying `capture` in `dir`; the stand-ins it starts write their pids to `<dir>/pids`. */
export function replayJob(dir: string, capture: string, env: Record<string, string> = {}, extra: Partial<RunJob> = {}): RunJob {
  const wire = join(ROOT, 'test', 'fixtures', 'sessions', 'gemini', `wire-${capture}.jsonl`);
  return {
    provider: 'gemini',
    prompt: 'Say hello.',
    cwd: dir,
    executable: REPLAY_AGENT,
    env: { REPLAY_WIRE: wire, REPLAY_PIDS: join(dir, 'pids'), ...env },
    ...extra,
  };
}

/** Every entry of a stream read to its end. */
export async function readAll(entries: AsyncIterable<StreamEntry>): Promise<StreamEntry[]> {
  const out: StreamEntry[] = [];
  for await (const entry of entries) out.push(entry);
  return out;
}

/** A stream followed in the background: what has come so far, and the end of the reading. */
export function follow(entries: AsyncIterable<StreamEntry>): { seen: StreamEntry[]; done: Promise<void> } {
  const seen: StreamEntry[] = [];
  const done = (async () => {
    for await (const entry of entries) seen.push(entry);
  })();
  return { seen, done };
}
