import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { listProcesses, processSource } from './process-table';
import { type ProcessTree } from './process-tree';

/*
 * No CLI may outlive its host. The CLIs are spawned `detached` (a process group of their own, so
 * that a stop reaches the whole group), so nothing ends them with the host: a closed terminal
 * (SIGHUP), a Ctrl-C or a `kill` of a host that does not handle the signal, an uncaught
 * exception, or a SIGKILL would leave them, and every command they started, running. So every
 * live run's process tree is kept here, and stopped when the host goes away:
 * - on 'exit' (process.exit(), the end of the event loop, an uncaught exception): synchronously,
 *   since nothing asynchronous runs any more;
 * - on SIGHUP, SIGINT and SIGTERM with signal-exit's semantics: a listener is installed only while
 *   a run is live; when the signal comes and no other listener of the host handles it (the host
 *   would die of it), the trees are stopped and the signal raised again, so that the host still
 *   dies of it; a host with a listener of its own (the `run` command's SIGINT) decides itself;
 * - when the host dies unseen (SIGKILL, an OOM kill): a watchdog process (watchdog.ts) that holds a
 *   pipe from the host and stops the trees it was told of when the pipe reaches EOF.
 * Stopping here is SIGTERM at once; the SIGKILL to what is left after the run's grace period comes
 * from the watchdog (the host is gone by then), or at once when there is no watchdog.
 */

/** Set to `0` (or `off`, `false`) to start no watchdog process; the host's own hooks still stop the runs. */
export const WATCHDOG_ENV = 'CLI_SUBPROCESS_CORE_WATCHDOG';

/** An idle watchdog (no live run) is closed after this long; the next run starts a new one. */
const WATCHDOG_IDLE_MS = 30_000;

const SIGNALS = ['SIGHUP', 'SIGINT', 'SIGTERM'] as const;
type HostSignal = (typeof SIGNALS)[number];

/** The live runs' trees, with each run's SIGTERM-to-SIGKILL grace period. */
const live = new Map<ProcessTree, number>();

/**
 * @internal Keeps `tree` (a live run's CLI and every process it started) until the answered
 * function is called, and stops it if the host exits, is signalled to death or is killed
 * meanwhile. `graceMs` is the run's SIGTERM-to-SIGKILL grace period.
 */
export function trackLiveTree(tree: ProcessTree, graceMs: number): () => void {
  // A CLI gone before its tree could read it: nothing of it can be stopped (a pid alone may name another process by now).
  if (!tree.root && processSource()) return () => {};
  live.set(tree, graceMs);
  hook();
  if (current) {
    current.busy();
    tell(current, tree, graceMs);
  } else startWatchdog(); // which tells it of every live tree, this one too
  let tracked = true;
  return () => {
    if (!tracked) return;
    tracked = false;
    live.delete(tree);
    tree.onMember = null;
    current?.send(`remove ${tree.rootPid}`);
    if (live.size === 0) {
      unhook();
      current?.idle();
    }
  };
}

/** Tells the watchdog of one tree: its root, what it knows of it so far, and what it learns later. */
function tell(dog: WatchdogProcess, tree: ProcessTree, graceMs: number): void {
  dog.send(`add ${tree.rootPid} ${tree.root ? tree.root.startTime : '-'} ${Math.round(graceMs)}`);
  const member = (ref: { pid: number; startTime: number }): void => current?.send(`member ${tree.rootPid} ${ref.pid} ${ref.startTime}`);
  for (const ref of tree.members().slice(1)) member(ref);
  tree.onMember = member;
}

/**
 * The host is going away: SIGTERM to every live tree (from one fresh scan), then SIGKILL to what
 * still runs, at once when there is no watchdog, else from the watchdog after each run's grace period.
 */
function stopAll(): void {
  const processes = listProcesses();
  const dog = current;
  for (const tree of live.keys()) {
    tree.refresh(processes);
    tree.signal('SIGTERM');
    dog?.send(`term ${tree.rootPid}`);
  }
  if (!dog) for (const tree of live.keys()) tree.signal('SIGKILL');
}

const onExit = (): void => stopAll();

const onSignal: Record<HostSignal, () => void> = {
  SIGHUP: () => hostSignalled('SIGHUP'),
  SIGINT: () => hostSignalled('SIGINT'),
  SIGTERM: () => hostSignalled('SIGTERM'),
};

function hostSignalled(signal: HostSignal): void {
  const own = onSignal[signal];
  if (othersHandle(signal, own)) return;
  stopAll();
  // Without a listener the signal's default action ends the host, as it would have without this module.
  process.removeListener(signal, own);
  process.kill(process.pid, signal);
}

/**
 * Whether another listener of the host handles `signal`. signal-exit's listeners (v3 and v4, used
 * by many libraries) do not count: they raise the signal again themselves only when they are alone,
 * so counting them would leave the host alive with neither raising it; once this listener is gone
 * and the signal raised again, they find themselves alone and let the host die.
 */
function othersHandle(signal: HostSignal, own: () => void): boolean {
  const others = process.listeners(signal).filter((listener) => listener !== own).length;
  return others - signalExitListeners() > 0;
}

function signalExitListeners(): number {
  const count = (emitter: unknown): number => {
    const value = typeof emitter === 'object' && emitter !== null ? (emitter as { count?: unknown }).count : undefined;
    return typeof value === 'number' ? value : 0;
  };
  const v4 = (globalThis as Record<symbol, unknown>)[Symbol.for('signal-exit emitter')];
  const v3 = (process as unknown as { __signal_exit_emitter__?: unknown }).__signal_exit_emitter__;
  return count(v4) + count(v3);
}

function hook(): void {
  if (!process.listeners('exit').includes(onExit)) process.on('exit', onExit);
  for (const signal of SIGNALS) if (!process.listeners(signal).includes(onSignal[signal])) process.on(signal, onSignal[signal]);
}

function unhook(): void {
  process.removeListener('exit', onExit);
  for (const signal of SIGNALS) process.removeListener(signal, onSignal[signal]);
}

/** The watchdog process, while it runs. */
let current: WatchdogProcess | null = null;
let enabled: boolean | undefined;

/** Starts the watchdog and tells it of every live tree, unless it is off or cannot start. */
function startWatchdog(): void {
  enabled ??= !['0', 'off', 'false'].includes((process.env[WATCHDOG_ENV] ?? '').trim().toLowerCase());
  if (!enabled) return;
  const started = WatchdogProcess.start();
  if (!started) return;
  current = started;
  for (const [tree, graceMs] of live) tell(started, tree, graceMs);
}

/** @internal The pid of the running watchdog, if any (for tests). */
export function watchdogPid(): number | null {
  return current?.pid ?? null;
}

/**
 * How to run the watchdog: the compiled watchdog.js next to this file (the package's dist), or
 * from the sources (ts-node, jest) watchdog.ts through ts-node. Null when neither is there (a
 * bundle): then there is no watchdog.
 */
function watchdogArgs(): string[] | null {
  const js = join(__dirname, 'watchdog.js');
  if (existsSync(js)) return [js];
  const ts = join(__dirname, 'watchdog.ts');
  if (!existsSync(ts)) return null;
  try {
    return ['-r', require.resolve('ts-node/register/transpile-only'), ts];
  } catch {
    return null;
  }
}

class WatchdogProcess {
  private idleTimer: NodeJS.Timeout | null = null;

  private constructor(
    private readonly child: ChildProcess,
    readonly pid: number,
  ) {}

  static start(): WatchdogProcess | null {
    const args = watchdogArgs();
    if (!args) return null;
    const env = { ...process.env };
    // Nothing of the host's Node options is needed, and some would stop it (`--inspect-brk`).
    delete env.NODE_OPTIONS;
    let child: ChildProcess;
    try {
      // Detached: a session of its own, out of reach of the terminal's SIGINT and SIGHUP and of a kill of the host's group.
      child = spawn(process.execPath, [...args, processSource()?.name ?? 'none'], {
        cwd: __dirname,
        env,
        stdio: ['pipe', 'ignore', 'ignore'],
        detached: true,
        windowsHide: true,
      });
    } catch {
      return null;
    }
    const { stdin, pid } = child;
    if (!stdin || pid === undefined) {
      child.on('error', () => {});
      return null;
    }
    const dog = new WatchdogProcess(child, pid);
    const lost = (): void => {
      if (current === dog) current = null;
    };
    child.on('error', lost);
    child.on('exit', lost);
    stdin.on('error', lost);
    // Neither the watchdog nor its pipe may keep the host alive.
    child.unref();
    (stdin as unknown as { unref?(): void }).unref?.();
    return dog;
  }

  send(line: string): void {
    const { stdin } = this.child;
    if (!stdin || stdin.destroyed || stdin.writableEnded) return;
    // A small write to a pipe with room is done at once (libuv tries it synchronously), even in an 'exit' hook.
    stdin.write(`${line}\n`);
  }

  /** No run is live: closes the watchdog after a while (it then exits, having nothing to stop). */
  idle(): void {
    if (this.idleTimer) return;
    this.idleTimer = setTimeout(() => {
      if (current === this) current = null;
      this.child.stdin?.end();
    }, WATCHDOG_IDLE_MS);
    this.idleTimer.unref();
  }

  busy(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }
}
