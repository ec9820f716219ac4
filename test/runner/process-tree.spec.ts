import { spawn } from 'node:child_process';
import { descendantsOf, isRunning, parseStat, ProcessTree, readStat, type ProcStat } from '../../src/runner/process-tree';

const stat = (pid: number, ppid: number, pgid = pid, startTime = 100): ProcStat => ({ pid, ppid, pgid, startTime, state: 'S' });

describe('parseStat', () => {
  it('reads pid, state, ppid, group and start time, counting fields after the last ")"', () => {
    const line = '4242 (node (worker) x) S 4200 4242 4242 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 987654 1000 100 18446744073709551615';
    expect(parseStat(line)).toEqual({ pid: 4242, ppid: 4200, pgid: 4242, state: 'S', startTime: 987654 });
  });

  it('answers null for what is not a stat line', () => {
    expect(parseStat('')).toBeNull();
    expect(parseStat('12 (x)')).toBeNull();
  });

  it('a pid whose start time differs is another process (pid reuse): not running', () => {
    const self = readStat(process.pid) as ProcStat;
    expect(isRunning(self)).toBe(true);
    expect(isRunning({ pid: self.pid, startTime: self.startTime + 1 })).toBe(false);
  });

  it('reads this process from /proc', () => {
    expect(readStat(process.pid)).toMatchObject({ pid: process.pid, ppid: process.ppid });
    expect(readStat(2 ** 30)).toBeNull();
  });
});

describe('descendantsOf', () => {
  it('follows parent ids through the tree and adds members of the root group that left it', () => {
    const root = stat(10, 1);
    const processes = [root, stat(11, 10, 10), stat(12, 11, 12), stat(13, 12, 13), stat(20, 1), stat(30, 1, 10, 150), stat(31, 1, 10, 50)];
    // 30: re-parented to pid 1 but still in the root's group; 31: in a group of that id, but older than the root (pid reuse).
    expect(descendantsOf(root, processes).map((p) => p.pid).sort()).toEqual([11, 12, 13, 30]);
  });
});

describe('ProcessTree with real processes', () => {
  it('stops a group leader, its child and a setsid grandchild that left the group', async () => {
    // sh (group leader) → sleep in the group, and a setsid'd sleep in a session of its own.
    const shell = spawn('sh', ['-c', 'sleep 300 & setsid sleep 301 & wait'], { detached: true, stdio: 'ignore' });
    const exited = new Promise((resolve) => shell.once('exit', resolve));
    const tree = new ProcessTree(shell.pid as number);
    let members: ReturnType<ProcessTree['members']> = [];
    for (let attempt = 0; attempt < 200 && members.length < 3; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      tree.refresh();
      members = tree.members();
    }
    expect(members).toHaveLength(3);
    const setsid = members.find((ref) => readStat(ref.pid)?.pgid === ref.pid);
    expect(setsid).toBeDefined();
    await tree.stop(1000);
    await exited;
    expect(members.filter(isRunning)).toEqual([]);
  });
});
