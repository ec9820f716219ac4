import { descendantsOf, isLive, listProcesses, processSource, readStat, type ProcStat, type ProcessRef } from './process-table';

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
    const found = rootRuns
      ? descendantsOf(root, processes)
      : processes.filter((stat) => stat.pgid === root.pid && stat.pid !== root.pid && stat.startTime >= root.startTime);
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
    await this.kill();
  }

  /** SIGKILL to the whole tree, no SIGTERM first; resolves once no member runs any more. */
  async kill(): Promise<void> {
    this.refresh();
    if (!processSource()) {
      trySignal(-this.rootPid, 'SIGKILL');
      return;
    }
    // SIGKILL until all are gone; a process that outlives ~10 s of it (stuck in the kernel, or not
    // ours to kill) is given up on rather than holding the run open for ever.
    for (let attempt = 0; attempt < 60 && this.running().length > 0; attempt += 1) {
      this.signal('SIGKILL');
      await sleep(attempt < 20 ? 25 : 250);
    }
  }
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
