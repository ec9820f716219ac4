import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { modelUsageFigures } from './claude';
import { codexUsageFigures } from './codex';
import { obj, num } from './drafts';
import type { UsageFigures } from './usage';

/*
 * A resumed session's usage before the run, from the CLI's own session store (each CLI's registry
 * file names its reader: `resumeBaseline`). Claude Code and Codex
 * carry a session's running total over into a resumed process (measured: the first result of
 * `claude --resume` and the first `turn.completed` of `codex exec resume` already count the earlier
 * runs), so a run's own usage is its last total minus this one. Gemini CLI counts each process
 * afresh. Best effort: a store that is missing or unreadable gives null, or throws (the runner
 * then takes no baseline).
 */

/** Claude Code's transcript `<projects>/<cwd slug>/<id>.jsonl` ends its turns with a `cost-state` line (`projects`: its registry file's `history.root`). */
export function claudeResumeBaseline(sessionId: string, projects: string): UsageFigures | null {
  for (const project of readdirSync(projects)) {
    const file = join(projects, project, `${sessionId}.jsonl`);
    if (!isFile(file)) continue;
    const line = lastLineWith(file, '"type":"cost-state"');
    const state = line === null ? null : obj(JSON.parse(line));
    if (!state) return null;
    const figures = modelUsageFigures(obj(state.modelUsage) ?? {});
    return { ...figures, cost_usd: num(state.totalCostUSD) };
  }
  return null;
}

/** Codex's rollout `<sessions>/YYYY/MM/DD/rollout-<time>-<id>.jsonl` records each `token_count` with the thread's total (`sessions`: its registry file's `history.root`). */
export function codexResumeBaseline(sessionId: string, sessions: string): UsageFigures | null {
  const file = findFile(sessions, `-${sessionId}.jsonl`, 3);
  if (file === null) return null;
  const line = lastLineWith(file, '"type":"token_count"');
  const total = line === null ? null : obj(obj(obj(obj(JSON.parse(line))?.payload)?.info)?.total_token_usage);
  return total ? codexUsageFigures(total) : null;
}

/** The first file under `dir` (at most `depth` folders down) whose name ends with `suffix`. */
function findFile(dir: string, suffix: string, depth: number): string | null {
  for (const name of readdirSync(dir).sort().reverse()) {
    const path = join(dir, name);
    if (name.endsWith(suffix) && isFile(path)) return path;
    if (depth > 0 && !name.includes('.') && statSync(path).isDirectory()) {
      const found = findFile(path, suffix, depth - 1);
      if (found !== null) return found;
    }
  }
  return null;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The last line of `file` that contains `needle`, read from the end in 1 MiB steps (transcripts grow large). */
function lastLineWith(file: string, needle: string): string | null {
  const fd = openSync(file, 'r');
  try {
    const size = statSync(file).size;
    const step = 1 << 20;
    let end = size;
    let tail = Buffer.alloc(0);
    while (end > 0) {
      const start = Math.max(0, end - step);
      const chunk = Buffer.alloc(end - start);
      readSync(fd, chunk, 0, chunk.length, start);
      // The bytes before the first newline may be the end of a line cut in two: they wait for the next step.
      const bytes = Buffer.concat([chunk, tail]);
      const newline = bytes.indexOf(0x0a);
      const cut = start === 0 ? 0 : newline === -1 ? bytes.length : newline + 1;
      const lines = bytes.subarray(cut).toString('utf8').split('\n');
      for (let i = lines.length - 1; i >= 0; i--) if (lines[i].includes(needle)) return lines[i];
      tail = bytes.subarray(0, cut);
      end = start;
    }
    return null;
  } finally {
    closeSync(fd);
  }
}
