import { readdirSync, readFileSync } from 'node:fs';

/*
 * Stopping a CLI and every process it started, on Linux from /proc. Killing one pid is not enough:
 * - Gemini CLI relaunches itself as a child `node` process and ignores a signal sent only to the parent;
 * - Gemini's run_shell_command starts each command with setsid, in a session and group of its own,
 *   so signalling the CLI's process group misses it, and once the CLI dies it is re-parented to
 *   pid 1 and no longer found by parent id. So the tree is snapshotted by parent id while the CLI
 *   is still alive (and kept up to date during the run), before any signal is sent.
 * A pid is only signalled while its start time still matches the snapshot (pids are reused).
 */

/** One process as /proc showed it: its pid and its start time (clock ticks since boot), which together name it uniquely. */
export interface ProcessRef {
  readonly pid: number;
  readonly startTime: number;
}

/** The fields of /proc/<pid>/stat the runner reads. */
export interface ProcStat extends ProcessRef {
  readonly ppid: number;
  /** The process group id. */
  readonly pgid: number;
  /** One letter: R, S, D, Z (zombie), X (dead), T… */
  readonly state: string;
}

/** Whether this system has a readable /proc (Linux); elsewhere only the process group is signalled. */
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
  if (!Number.isSafeInteger(pid) || !Number.isSafeInteger(ppid) || !Number.isSafeInteger(pgid) || !Number.isFinite(startTime) || state === '') return null;
  return { pid, ppid, pgid, state, startTime };
}

/** The stat of one pid, or null when it is gone (or /proc is unreadable). */
export function readStat(pid: number): ProcStat | null {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

/** Every process /proc lists now. */
export function listProcesses(): ProcStat[] {
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
    const stat = readStat(Number(name));
    if (stat) stats.push(stat);
  }
  return stats;
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
  for (const stat of processes) if (stat.pgid === root.pid && stat.pid !== root.pid && stat.startTime >= root.startTime) found.set(stat.pid, stat);
  return [...found.values()];
}

/** Whether `ref` is still running: same pid, same start time, and not a zombie. */
export function isRunning(ref: ProcessRef): boolean {
  const stat = readStat(ref.pid);
  return stat !== null && stat.startTime === ref.startTime && stat.state !== 'Z' && stat.state !== 'X';
}

/**
 * The processes one run started: the CLI (`root`) and every descendant ever seen. `refresh()`
 * adds the descendants alive now; call it while the CLI runs so that commands which left the
 * tree (setsid, then re-parented to pid 1 when the CLI dies) are still known at the stop.
 */
export class ProcessTree {
  private readonly known = new Map<number, ProcessRef>();
  readonly root: ProcessRef | null;

  constructor(readonly rootPid: number) {
    const stat = HAS_PROC ? readStat(rootPid) : null;
    this.root = stat ? { pid: stat.pid, startTime: stat.startTime } : null;
  }

  /**
   * Adds the root's descendants alive now. Once the root is gone its children are orphans of pid 1,
   * so only the members of its process group (which outlives the leader) are found then.
   */
  refresh(processes: readonly ProcStat[] = listProcesses()): void {
    const root = this.root;
    if (!root) return;
    const found = isRunning(root) ? descendantsOf(root, processes) : processes.filter((stat) => stat.pgid === root.pid && stat.pid !== root.pid && stat.startTime >= root.startTime);
    for (const stat of found) {
      const known = this.known.get(stat.pid);
      if (!known || known.startTime !== stat.startTime) this.known.set(stat.pid, { pid: stat.pid, startTime: stat.startTime });
    }
  }

  /** Every process of the run seen so far (the root first), whether or not it still runs. */
  members(): ProcessRef[] {
    return this.root ? [this.root, ...this.known.values()] : [];
  }

  /** The members still running. */
  running(): ProcessRef[] {
    return this.members().filter(isRunning);
  }

  /** Sends `signal` to the root's process group and to every member still running (checked by start time). */
  signal(signal: NodeJS.Signals): void {
    // The group first: on systems without /proc it is all there is. Once the leader is gone the
    // group id is only signalled while a member of it still runs (a pid is not reused as long as its group lives).
    if (!HAS_PROC || (this.root && isRunning(this.root)) || this.members().some((ref) => readStat(ref.pid)?.pgid === this.rootPid && isRunning(ref))) {
      trySignal(-this.rootPid, signal);
    }
    for (const ref of this.members()) if (isRunning(ref)) trySignal(ref.pid, signal);
  }

  /**
   * Ends the whole tree: a fresh snapshot, SIGTERM to all, then SIGKILL to whatever still runs
   * after `graceMs`; resolves once no member runs any more (zombies count as ended).
   */
  async stop(graceMs: number): Promise<void> {
    this.refresh();
    this.signal('SIGTERM');
    if (!HAS_PROC) {
      // Nothing can be checked: the group gets its SIGKILL after the grace period.
      await sleep(graceMs);
      trySignal(-this.rootPid, 'SIGKILL');
      return;
    }
    const deadline = Date.now() + graceMs;
    while (this.running().length > 0 && Date.now() < deadline) {
      // Children the CLI starts while shutting down join the tree, so the SIGKILL below reaches them.
      this.refresh();
      await sleep(50);
    }
    // SIGKILL until all are gone; a process that outlives ~10 s of it (stuck in the kernel, or not
    // ours to kill) is given up on rather than holding the run open for ever.
    for (let attempt = 0; attempt < 60 && this.running().length > 0; attempt += 1) {
      this.signal('SIGKILL');
      await sleep(attempt < 20 ? 25 : 250);
    }
  }
}

/** How often watched trees are refreshed. */
const WATCH_MS = 250;
const watched = new Set<ProcessTree>();
let watchTimer: NodeJS.Timeout | null = null;

/**
 * Refreshes `tree` every 250 ms until the answered function is called. One /proc scan per tick
 * serves every watched tree: a scan reads every process's stat (several ms on a busy host),
 * so twenty concurrent runs must not scan twenty times.
 */
export function watchTree(tree: ProcessTree): () => void {
  watched.add(tree);
  if (!watchTimer) {
    watchTimer = setInterval(() => {
      const processes = listProcesses();
      for (const each of watched) each.refresh(processes);
    }, WATCH_MS);
    // The runs' child processes keep the event loop alive; this timer alone must not.
    watchTimer.unref();
  }
  return () => {
    watched.delete(tree);
    if (watched.size === 0 && watchTimer) {
      clearInterval(watchTimer);
      watchTimer = null;
    }
  };
}

function trySignal(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone (ESRCH), or not ours to signal (EPERM).
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
