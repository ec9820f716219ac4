/*
 * The host-exit watchdog: a small process of its own that ends the runs' process trees when their
 * host dies in a way no hook of the host sees (SIGKILL, an OOM kill, a crash of Node itself).
 * host-exit.ts starts it (`node watchdog.js <process source>`), detached, with a pipe from the host
 * as its stdin, and writes one line per change:
 *
 *   add <root pid> <root start time, or -> <grace ms>   a run's CLI (the leader of its process group)
 *   member <root pid> <pid> <start time>                a process that run started
 *   term <root pid>                                     the host has just sent that tree SIGTERM
 *   remove <root pid>                                   the run is over
 *
 * When its stdin reaches EOF (the host is gone, however it went, or the host closed an idle
 * watchdog) it stops every tree it still knows as the runner does (SIGTERM to the group and every
 * process still running by pid and start time, descendants found afresh, SIGKILL to what is left
 * after the grace period), and exits.
 */
import { processSource, useProcessSource, type ProcessSourceName } from './process-table';
import { ProcessTree } from './process-tree';

interface Watched {
  readonly tree: ProcessTree;
  readonly graceMs: number;
  termSent: boolean;
}

/** @internal The watchdog's state: the trees the host told it of. */
export class Watchdog {
  private readonly trees = new Map<number, Watched>();
  private pending = '';

  /** Takes a chunk of the host's lines. */
  push(chunk: string): void {
    const lines = (this.pending + chunk).split('\n');
    this.pending = lines.pop() ?? '';
    for (const line of lines) this.handle(line);
  }

  /** One line of the host's. Malformed lines are ignored: the host is this library. */
  handle(line: string): void {
    const [command, ...rest] = line.trim().split(' ');
    const numbers = rest.map(Number);
    const [first, second, third] = numbers;
    if (first === undefined || !Number.isSafeInteger(first)) return;
    if (command === 'add' && third !== undefined) {
      // No start time: the host has no process source either, and only the group is signalled; a pid alone is never read (it may name another process by now).
      const startTime = rest[1] === '-' ? undefined : second;
      if (startTime === undefined && processSource()) return;
      this.trees.set(first, { tree: new ProcessTree(first, startTime), graceMs: third, termSent: false });
    } else if (command === 'member' && second !== undefined && third !== undefined) {
      this.trees.get(first)?.tree.adopt({ pid: second, startTime: third });
    } else if (command === 'term') {
      const watched = this.trees.get(first);
      if (watched) watched.termSent = true;
    } else if (command === 'remove') {
      this.trees.delete(first);
    }
  }

  /** How many trees it would stop now. */
  get size(): number {
    return this.trees.size;
  }

  /** The host is gone: stops every tree it still knows. */
  async stopAll(): Promise<void> {
    await Promise.all([...this.trees.values()].map(({ tree, graceMs, termSent }) => tree.stop(graceMs, termSent)));
    this.trees.clear();
  }
}

function main(): void {
  const source = process.argv[2] as ProcessSourceName | 'none' | undefined;
  useProcessSource(source ?? 'auto');
  const watchdog = new Watchdog();
  let gone = false;
  const hostGone = (): void => {
    if (gone) return;
    gone = true;
    void watchdog.stopAll().finally(() => process.exit(0));
  };
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => watchdog.push(chunk));
  process.stdin.on('end', hostGone);
  process.stdin.on('close', hostGone);
  process.stdin.on('error', hostGone);
}

if (require.main === module) main();
