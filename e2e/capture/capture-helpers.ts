/*
 * What the session captures (session-*.ts) share: waiting, the processes a CLI started (read from
 * /proc: the captures run on Linux), long texts cut for the summaries, and the frame that records
 * one scenario of session-claude.ts and session-gemini.ts and writes its files.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RecordedRequest } from '../scripted/server';
import type { ScriptedCli } from '../scripted/setup';
import type { WireLine, WireSession } from './wire';

export type Msg = Record<string, unknown>;

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Each process's parent pid, from /proc/<pid>/stat (fields counted after the last `)`: the command name may hold spaces). */
export function parentPids(): Map<number, number> {
  const parent = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parent.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  return parent;
}

/** Every pid below `root` (children, grandchildren, …, depth first) with its command line. */
export function descendants(root: number): { pid: number; cmdline: string }[] {
  const parent = parentPids();
  const out: { pid: number; cmdline: string }[] = [];
  const walk = (pid: number) => {
    for (const [child, ppid] of parent) {
      if (ppid !== pid) continue;
      let cmdline = '';
      try {
        cmdline = readFileSync(`/proc/${child}/cmdline`, 'utf8').split('\0').join(' ').trim();
      } catch {
        // gone
      }
      out.push({ pid: child, cmdline });
      walk(child);
    }
  };
  walk(root);
  return out;
}

/**
 * Polls until a `sleep 300` process is below the CLI (not the shell running it: `shell` matches
 * that one's cmdline), handing each new CLI message from `from` on to `onMessage` meanwhile (to
 * answer the approval the command waits for).
 */
export async function findSleeper(
  wire: WireSession,
  from: number,
  timeoutMs: number,
  shell: RegExp,
  onMessage: (m: Msg) => void,
): Promise<{ pid: number; cmdline: string }> {
  const pid = wire.pid!;
  let seen = from;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const lines = wire.fromCli();
    for (let i = seen; i < lines.length; i++) onMessage(lines[i] as Msg);
    seen = lines.length;
    const sleeper = descendants(pid).find((p) => /(^|\s)sleep 300(\s|$)/.test(p.cmdline) && !shell.test(p.cmdline));
    if (sleeper) return sleeper;
    await sleep(200);
  }
  throw new Error('no sleep 300 process appeared');
}

/** Alive and not a zombie. */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Polls `done` every `pollMs` until `withinMs` after `since`: the ms from `since` at which it held, or null. */
export async function msUntil(done: () => boolean, since: number, withinMs: number, pollMs = 100): Promise<number | null> {
  while (Date.now() - since < withinMs) {
    if (done()) return Date.now() - since;
    await sleep(pollMs);
  }
  return null;
}

/** `text` cut to `max` characters, saying how long it was. */
export const cut = (text: string, max = 400) => (text.length > max ? `${text.slice(0, max)}…[${text.length} chars]` : text);

/** How printed wire types show a line's side. */
export const arrow = (from: WireLine['from']) => (from === 'host' ? '>>' : from === 'cli' ? '<<' : '!!');

/** One scenario of a session capture, as recordSession takes it from the script. */
export interface Recording {
  cli: ScriptedCli;
  wire: WireSession;
  /** The CLI's arguments, for the requests file. */
  args: readonly string[];
  outDir: string;
  scenario: string;
  /** What the scenario observed: the exit, or the failure, is added to it. */
  observed: Record<string, unknown>;
  drive(): Promise<void>;
  /** Called when the scenario is over, before anything is written. */
  stop?(): void;
  /** The agent model calls for the requests file. */
  summarizeRequests(requests: readonly RecordedRequest[]): unknown[];
  /** One wire line as printed in the run's list of types. */
  describeLine(line: WireLine): string;
}

/**
 * Drives a scenario, then closes stdin and waits for the exit (`kill` has killed the CLI itself);
 * on failure kills the CLI. Writes wire-<scenario>.jsonl and, but for `kill` (whose endpoint saw
 * one interrupted call), wire-<scenario>.requests.json; prints what was observed and the wire's types.
 */
export async function recordSession(r: Recording): Promise<void> {
  let failure: unknown = null;
  try {
    await r.drive();
    if (r.scenario !== 'kill') r.observed.exit = await r.wire.close();
  } catch (error) {
    failure = error;
    r.observed.failure = String(error);
    r.wire.kill();
    await r.wire.exited;
  } finally {
    r.stop?.();
    r.wire.save(join(r.outDir, `wire-${r.scenario}.jsonl`));
    process.stdout.write(`${r.scenario}: ${JSON.stringify(r.observed).slice(0, 2000)}\n`);
    if (r.scenario !== 'kill') {
      const requests = {
        cli: r.cli.name,
        scenario: r.scenario,
        args: r.args,
        observed: r.observed,
        calls: r.summarizeRequests(r.cli.server.requests),
      };
      writeFileSync(join(r.outDir, `wire-${r.scenario}.requests.json`), JSON.stringify(requests, null, 2) + '\n');
    }
    await r.cli.close();
  }
  const types = r.wire.lines.map(r.describeLine);
  process.stdout.write(`${r.scenario}: ${failure ? `FAILED ${String(failure).slice(0, 600)}` : 'ok'}\n  ${types.join(', ')}\n`);
}
