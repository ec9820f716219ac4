import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/*
 * The process table: which processes run now, by pid and start time (pids are reused), read from
 * /proc on Linux and from `ps` where there is no /proc (macOS): see `ProcessSource`. The tree of
 * one run (process-tree.ts) and its watcher (tree-watch.ts) stand on it.
 */
/** One process: its pid and its start time (from /proc: clock ticks since boot; from `ps`: seconds), which together name it uniquely. */
export interface ProcessRef {
  readonly pid: number;
  readonly startTime: number;
}

/** What the runner knows of one process (the fields of /proc/<pid>/stat it reads, or their `ps` columns). */
export interface ProcStat extends ProcessRef {
  readonly ppid: number;
  /** The process group id. */
  readonly pgid: number;
  /** One letter: R, S, D, Z (zombie), X (dead), T… */
  readonly state: string;
}

/** Whether this system has a readable /proc (Linux). Where it has not, the processes are read from `ps` (see `ProcessSource`). */
export const HAS_PROC = (() => {
  try {
    readFileSync('/proc/self/stat');
    return true;
  } catch {
    return false;
  }
})();

/**
 * Parses one /proc/<pid>/stat line. The command name (field 2) sits in parentheses and may hold
 * spaces and parentheses itself, so fields are counted from the last `)`.
 */
export function parseStat(line: string): ProcStat | null {
  const open = line.indexOf('(');
  const close = line.lastIndexOf(')');
  if (open < 1 || close < open) return null;
  const pid = Number(line.slice(0, open).trim());
  // After ")": state(3) ppid(4) pgrp(5) session(6) … starttime(22).
  const fields = line.slice(close + 2).split(' ');
  const state = fields[0] ?? '';
  const ppid = Number(fields[1]);
  const pgid = Number(fields[2]);
  const startTime = Number(fields[19]);
  if (
    !Number.isSafeInteger(pid) ||
    !Number.isSafeInteger(ppid) ||
    !Number.isSafeInteger(pgid) ||
    !Number.isFinite(startTime) ||
    state === ''
  )
    return null;
  return { pid, ppid, pgid, state, startTime };
}

/** The columns asked of `ps`, without headers: the same on macOS and with Linux procps. */
const PS_COLUMNS = 'pid=,ppid=,pgid=,stat=,lstart=';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
// pid ppid pgid stat, then lstart in the C locale: "Mon Jan  1 12:00:00 2024".
const PS_LINE = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+[A-Za-z]{3}\s+([A-Za-z]{3})\s+(\d{1,2})\s+(\d{1,2}):(\d{2}):(\d{2})\s+(\d{4})\s*$/;

/**
 * Parses one line of `ps -o pid=,ppid=,pgid=,stat=,lstart=` (run with `LC_ALL=C TZ=UTC`). The start
 * time is `lstart` as seconds since the epoch: a second's resolution, enough to tell a reused pid
 * (compared for equality, as /proc's clock ticks are).
 */
export function parsePsLine(line: string): ProcStat | null {
  const match = PS_LINE.exec(line);
  if (!match) return null;
  const [, pid, ppid, pgid, stat, month, day, hours, minutes, seconds, year] = match as unknown as string[];
  const monthIndex = MONTHS.indexOf(month as string);
  if (monthIndex < 0) return null;
  const startTime = Date.UTC(Number(year), monthIndex, Number(day), Number(hours), Number(minutes), Number(seconds)) / 1000;
  return { pid: Number(pid), ppid: Number(ppid), pgid: Number(pgid), state: (stat as string).charAt(0), startTime };
}

/** @internal Which `ProcessSource` reads the processes. */
export type ProcessSourceName = 'proc' | 'ps';

/**
 * @internal Where the runner reads processes from: /proc (Linux) or `ps` (macOS, where there is no
 * /proc). Both give the same `ProcStat`s, only the unit of the start time differs, so one tree must
 * be read from one source.
 */
export interface ProcessSource {
  readonly name: ProcessSourceName;
  /** The stats of those of `pids` that exist now (zombies included). */
  read(pids: readonly number[]): ProcStat[];
  /** Every process now. */
  list(): ProcStat[];
  /** Every process now, without blocking the event loop where the source can (`ps` runs asynchronously). */
  listAsync(): Promise<ProcStat[]>;
}

function readProcStat(pid: number): ProcStat | null {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

function listProc(): ProcStat[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const stats: ProcStat[] = [];
  for (const name of names) {
    const first = name.charCodeAt(0);
    if (first < 48 || first > 57) continue;
    const stat = readProcStat(Number(name));
    if (stat) stats.push(stat);
  }
  return stats;
}

const procSource: ProcessSource = {
  name: 'proc',
  read: (pids) => pids.map(readProcStat).filter((stat): stat is ProcStat => stat !== null),
  list: listProc,
  listAsync: () => Promise.resolve(listProc()),
};

/** `ps` at its usual place (a host's PATH may lack it), else from PATH. */
const PS = ['/bin/ps', '/usr/bin/ps'].find((path) => existsSync(path)) ?? 'ps';
/** The C locale for English month names, UTC for a start time that does not move with the host's time zone. */
const PS_ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C', TZ: 'UTC' };
const PS_BUFFER = 64 * 1024 * 1024;

function parsePs(stdout: string | null | undefined): ProcStat[] {
  const stats: ProcStat[] = [];
  for (const line of (stdout ?? '').split('\n')) {
    const stat = parsePsLine(line);
    if (stat) stats.push(stat);
  }
  return stats;
}

function psSync(selection: readonly string[]): ProcStat[] {
  // ps exits 1 when no pid of `-p` exists: its (empty) stdout still says so.
  const result = spawnSync(PS, [...selection, '-o', PS_COLUMNS], {
    encoding: 'utf8',
    env: PS_ENV,
    stdio: ['ignore', 'pipe', 'ignore'],
    maxBuffer: PS_BUFFER,
    windowsHide: true,
  });
  return parsePs(result.stdout);
}

const psSource: ProcessSource = {
  name: 'ps',
  read: (pids) => (pids.length === 0 ? [] : psSync(['-p', pids.join(',')]).filter((stat) => pids.includes(stat.pid))),
  list: () => psSync(['-A']),
  listAsync: () =>
    new Promise((resolve) => {
      execFile(PS, ['-A', '-o', PS_COLUMNS], { encoding: 'utf8', env: PS_ENV, maxBuffer: PS_BUFFER, windowsHide: true }, (_error, stdout) =>
        resolve(parsePs(stdout)),
      );
    }),
};

/** @internal Forces the process source (`CLI_SUBPROCESS_CORE_PROCESS_SOURCE` does the same, read once at the first use). */
export const PROCESS_SOURCE_ENV = 'CLI_SUBPROCESS_CORE_PROCESS_SOURCE';

/** undefined: not chosen yet; null: none works here (only process groups are signalled). */
let chosen: ProcessSource | null | undefined;

function pick(name: string | undefined): ProcessSource | null {
  if (name === 'proc') return procSource;
  if (name === 'ps') return psSource;
  if (name === 'none') return null;
  if (HAS_PROC) return procSource;
  // No /proc: `ps` if it answers for this very process with the columns asked (BusyBox ps has no lstart).
  return psSource.read([process.pid]).length === 1 ? psSource : null;
}

/**
 * @internal The source the runner reads processes from: /proc where it is readable, else `ps`,
 * else none (then only the process group is signalled); `CLI_SUBPROCESS_CORE_PROCESS_SOURCE`
 * (`proc`, `ps` or `none`) forces one.
 */
export function processSource(): ProcessSource | null {
  if (chosen === undefined) chosen = pick(process.env[PROCESS_SOURCE_ENV]);
  return chosen;
}

/** @internal Forces the process source (tests run the ps path on Linux with it); `auto` chooses again as at the start. */
export function useProcessSource(name: ProcessSourceName | 'none' | 'auto'): void {
  chosen = pick(name === 'auto' ? undefined : name);
}

/** The stat of one pid, or null when it is gone (or no process source works here). */
export function readStat(pid: number): ProcStat | null {
  return processSource()?.read([pid])[0] ?? null;
}

/** Every process running now (none when no process source works here). */
export function listProcesses(): ProcStat[] {
  return processSource()?.list() ?? [];
}

/**
 * The live descendants of `root` (not `root` itself), found by parent id, plus the members of
 * `root`'s process group (the runner starts the CLI as a group leader).
 */
export function descendantsOf(root: ProcessRef, processes: readonly ProcStat[] = listProcesses()): ProcStat[] {
  const children = new Map<number, ProcStat[]>();
  for (const stat of processes) {
    const list = children.get(stat.ppid);
    if (list) list.push(stat);
    else children.set(stat.ppid, [stat]);
  }
  const found = new Map<number, ProcStat>();
  const queue = [root.pid];
  while (queue.length > 0) {
    const pid = queue.pop() as number;
    for (const child of children.get(pid) ?? []) {
      if (found.has(child.pid) || child.pid === root.pid) continue;
      found.set(child.pid, child);
      queue.push(child.pid);
    }
  }
  for (const stat of processes)
    if (stat.pgid === root.pid && stat.pid !== root.pid && stat.startTime >= root.startTime) found.set(stat.pid, stat);
  return [...found.values()];
}

/** Whether `ref` is still running: same pid, same start time, and not a zombie. */
export function isRunning(ref: ProcessRef): boolean {
  const stat = readStat(ref.pid);
  return stat !== null && isLive(stat, ref);
}

/** Whether `stat` is the process `ref` names, still running (not a zombie). */
export function isLive(stat: ProcStat, ref: ProcessRef): boolean {
  return stat.startTime === ref.startTime && stat.state !== 'Z' && stat.state !== 'X';
}
