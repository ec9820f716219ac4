import { spawn, type ChildProcess } from 'node:child_process';
import {
  descendantsOf,
  isRunning,
  listProcesses,
  parsePsLine,
  parseStat,
  processSource,
  readStat,
  useProcessSource,
  type ProcStat,
} from '../../src/runner/process-table';
import { ProcessTree } from '../../src/runner/process-tree';

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
});

describe('parsePsLine', () => {
  it('reads pid, ppid, group, the state letter and lstart (as seconds since the epoch, the fields taken as UTC)', () => {
    expect(parsePsLine(' 4242     1  4242 Ss   Mon Jan  1 12:00:00 2024')).toEqual({
      pid: 4242,
      ppid: 1,
      pgid: 4242,
      state: 'S',
      startTime: Date.UTC(2024, 0, 1, 12, 0, 0) / 1000,
    });
    expect(parsePsLine('17 4242 4242 Z+ Fri Dec 13 09:05:07 2024')).toMatchObject({
      state: 'Z',
      startTime: Date.UTC(2024, 11, 13, 9, 5, 7) / 1000,
    });
  });

  it('answers null for what is not such a line', () => {
    expect(parsePsLine('')).toBeNull();
    expect(parsePsLine('  PID  PPID  PGID STAT STARTED')).toBeNull();
    expect(parsePsLine(' 4242 1 4242 S Mon Foo  1 12:00:00 2024')).toBeNull();
  });
});

describe('descendantsOf', () => {
  it('follows parent ids through the tree and adds members of the root group that left it', () => {
    const root = stat(10, 1);
    const processes = [root, stat(11, 10, 10), stat(12, 11, 12), stat(13, 12, 13), stat(20, 1), stat(30, 1, 10, 150), stat(31, 1, 10, 50)];
    // 30: re-parented to pid 1 but still in the root's group; 31: in a group of that id, but older than the root (pid reuse).
    expect(
      descendantsOf(root, processes)
        .map((p) => p.pid)
        .sort(),
    ).toEqual([11, 12, 13, 30]);
  });
});

describe.each(['proc', 'ps'] as const)('processes read from %s', (source) => {
  beforeAll(() => useProcessSource(source));
  afterAll(() => useProcessSource('auto'));
  const others: ChildProcess[] = [];
  afterEach(() => {
    for (const child of others.splice(0)) child.kill('SIGKILL');
  });

  it('is the source in use', () => {
    expect(processSource()?.name).toBe(source);
  });

  it('a pid whose start time differs is another process (pid reuse): not running', () => {
    const self = readStat(process.pid) as ProcStat;
    expect(isRunning(self)).toBe(true);
    expect(isRunning({ pid: self.pid, startTime: self.startTime + 1 })).toBe(false);
  });

  it('reads this process', () => {
    expect(readStat(process.pid)).toMatchObject({ pid: process.pid, ppid: process.ppid, state: expect.stringMatching(/^[A-Z]$/) });
    expect(readStat(2 ** 30)).toBeNull();
    const { ppid, pgid, startTime } = readStat(process.pid) as ProcStat;
    expect(listProcesses().find((stat) => stat.pid === process.pid)).toMatchObject({ ppid, pgid, startTime });
  });

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

  it('never signals a known pid whose start time no longer matches (the pid was reused)', async () => {
    const shell = spawn('sh', ['-c', 'sleep 300'], { detached: true, stdio: 'ignore' });
    const exited = new Promise((resolve) => shell.once('exit', resolve));
    // A process of someone else's that holds a pid the tree once knew, with another start time.
    const stranger = spawn('sleep', ['300'], { stdio: 'ignore' });
    others.push(stranger);
    const tree = new ProcessTree(shell.pid as number);
    const now = readStat(stranger.pid as number) as ProcStat;
    tree.adopt({ pid: now.pid, startTime: now.startTime - 1 });
    expect(tree.running().map((ref) => ref.pid)).toEqual([shell.pid]);
    await tree.stop(1000);
    await exited;
    expect(isRunning(now)).toBe(true);
  });
});
