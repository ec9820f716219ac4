import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/*
 * Stopping a CLI and every process it started. Killing one pid is not enough:
 * - Gemini CLI relaunches itself as a child `node` process and ignores a signal sent only to the parent;
 * - Gemini's run_shell_command starts each command with setsid, in a session and group of its own,
 *   so signalling the CLI's process group misses it, and once the CLI dies it is re-parented to
 *   pid 1 and no longer found by parent id. So the tree is snapshotted by parent id while the CLI
 *   is still alive (and kept up to date during the run), before any signal is sent.
 * A pid is only signalled while its start time still matches the snapshot (pids are reused).
 * The processes are read from /proc on Linux and from `ps` where there is no /proc (macOS): see
 * `ProcessSource`.
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
  if (!Number.isSafeInteger(pid) || !Number.isSafeInteger(ppid) || !Number.isSafeInteger(pgid) || !Number.isFinite(startTime) || state === '') return null;
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
  const result = spawnSync(PS, [...selection, '-o', PS_COLUMNS], { encoding: 'utf8', env: PS_ENV, stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: PS_BUFFER, windowsHide: true });
  return parsePs(result.stdout);
}

const psSource: ProcessSource = {
  name: 'ps',
  read: (pids) => (pids.length === 0 ? [] : psSync(['-p', pids.join(',')]).filter((stat) => pids.includes(stat.pid))),
  list: () => psSync(['-A']),
  listAsync: () =>
    new Promise((resolve) => {
      execFile(PS, ['-A', '-o', PS_COLUMNS], { encoding: 'utf8', env: PS_ENV, maxBuffer: PS_BUFFER, windowsHide: true }, (_error, stdout) => resolve(parsePs(stdout)));
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
  for (const stat of processes) if (stat.pgid === root.pid && stat.pid !== root.pid && stat.startTime >= root.startTime) found.set(stat.pid, stat);
  return [...found.values()];
}

/** Whether `ref` is still running: same pid, same start time, and not a zombie. */
export function isRunning(ref: ProcessRef): boolean {
  const stat = readStat(ref.pid);
  return stat !== null && isLive(stat, ref);
}

function isLive(stat: ProcStat, ref: ProcessRef): boolean {
  return stat.startTime === ref.startTime && stat.state !== 'Z' && stat.state !== 'X';
}

/**
 * The processes one run started: the CLI (`root`) and every descendant ever seen. `refresh()`
 * adds the descendants alive now; call it while the CLI runs so that commands which left the
 * tree (setsid, then re-parented to pid 1 when the CLI dies) are still known at the stop.
 */
export class ProcessTree {
  private readonly known = new Map<number, ProcessRef>();
  readonly root: ProcessRef | null;
  /** @internal Told of every process the tree learns of (host-exit passes them on to its watchdog). */
  onMember: ((ref: ProcessRef) => void) | null = null;

  /**
   * @param rootPid the CLI's pid; it leads a process group of its own.
   * @param startTime the root's start time when it is already known (the watchdog is told it by
   *   the host); otherwise it is read now.
   */
  constructor(
    readonly rootPid: number,
    startTime?: number,
  ) {
    const source = processSource();
    if (!source) this.root = null;
    else if (startTime !== undefined) this.root = { pid: rootPid, startTime };
    else {
      const stat = readStat(rootPid);
      this.root = stat ? { pid: stat.pid, startTime: stat.startTime } : null;
    }
  }

  /**
   * Adds the root's descendants alive in `processes` (a fresh snapshot by default). Once the root
   * is gone its children are orphans of pid 1, so only the members of its process group (which
   * outlives the leader) are found then.
   */
  refresh(processes: readonly ProcStat[] = listProcesses()): void {
    const root = this.root;
    if (!root) return;
    const rootRuns = processes.some((stat) => stat.pid === root.pid && isLive(stat, root));
    const found = rootRuns ? descendantsOf(root, processes) : processes.filter((stat) => stat.pgid === root.pid && stat.pid !== root.pid && stat.startTime >= root.startTime);
    for (const stat of found) this.adopt(stat);
  }

  /** @internal Adds one process known to belong to the tree (the watchdog learns them from the host). */
  adopt(ref: ProcessRef): void {
    if (ref.pid === this.rootPid) return;
    const known = this.known.get(ref.pid);
    if (known && known.startTime === ref.startTime) return;
    const member = { pid: ref.pid, startTime: ref.startTime };
    this.known.set(ref.pid, member);
    this.onMember?.(member);
  }

  /** Every process of the run seen so far (the root first), whether or not it still runs. */
  members(): ProcessRef[] {
    return this.root ? [this.root, ...this.known.values()] : [];
  }

  /** The members still running. */
  running(): ProcessRef[] {
    return [...this.live().values()];
  }

  /** The stats of the members still running, by pid, read in one go (one `ps` call, not one per member). */
  private live(): Map<number, ProcStat> {
    const members = this.members();
    const source = processSource();
    const live = new Map<number, ProcStat>();
    if (!source || members.length === 0) return live;
    const byPid = new Map(members.map((ref) => [ref.pid, ref]));
    for (const stat of source.read([...byPid.keys()])) {
      const ref = byPid.get(stat.pid);
      if (ref && isLive(stat, ref)) live.set(stat.pid, stat);
    }
    return live;
  }

  /** Sends `signal` to the root's process group and to every member still running (checked by start time). */
  signal(signal: NodeJS.Signals): void {
    // The group first: without a process source it is all there is.
    if (!processSource()) {
      trySignal(-this.rootPid, signal);
      return;
    }
    // Once the leader is gone the group id is only signalled while a member of it still runs
    // (a pid is not reused as long as its group lives).
    const live = this.live();
    if ([...live.values()].some((stat) => stat.pid === this.rootPid || stat.pgid === this.rootPid)) trySignal(-this.rootPid, signal);
    for (const pid of live.keys()) trySignal(pid, signal);
  }

  /**
   * Ends the whole tree: a fresh snapshot, SIGTERM to all, then SIGKILL to whatever still runs
   * after `graceMs`; resolves once no member runs any more (zombies count as ended).
   * @param termSent SIGTERM was sent already (by the host's exit hook): only the SIGKILL is left to do.
   */
  async stop(graceMs: number, termSent = false): Promise<void> {
    this.refresh();
    if (!termSent) this.signal('SIGTERM');
    if (!processSource()) {
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
let scanning = false;

/**
 * Refreshes `tree` every 250 ms until the answered function is called. One scan per tick serves
 * every watched tree: a scan reads every process's stat (several ms on a busy host), so twenty
 * concurrent runs must not scan twenty times. `ps` runs asynchronously, and a tick whose scan is
 * still under way is skipped.
 */
export function watchTree(tree: ProcessTree): () => void {
  watched.add(tree);
  if (!watchTimer) {
    watchTimer = setInterval(() => {
      const source = processSource();
      if (!source || scanning) return;
      scanning = true;
      source.listAsync().then(
        (processes) => {
          scanning = false;
          for (const each of watched) each.refresh(processes);
        },
        () => (scanning = false),
      );
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
