import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** Whether a process with this pid exists (Linux: its /proc entry; a zombie still has one). */
export function processExists(pid: number): boolean {
  return existsSync(`/proc/${pid}`);
}

/** The pid a process wrote to `file` (the replay CLI's REPLAY_PID_FILE). */
export function pidFrom(file: string): number {
  const text = readFileSync(file, 'utf8').trim();
  expect(text).toMatch(/^\d+$/);
  return Number(text);
}

/**
 * Resolves once the process is gone. It never gives up by itself: a process that stays makes the
 * test time out, which is the failure (no timing is asserted).
 */
export async function processGone(pid: number): Promise<void> {
  while (processExists(pid)) await sleep(20);
}
