import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRun } from '../../src';
import { isRunning, readStat, type ProcessRef } from '../../src/runner/process-table';
import { repoRoot, usePrivateBuild } from '../build-copy';

/*
 * Issue #18, "CLIs outlive their host": the CLI is spawned detached, so nothing ended it (and the
 * `sleep` it started in a session of its own) when its host went away. Each test starts a host
 * process (host-fixture.ts) that runs the stand-in CLI through the library, does something to the
 * host, and checks by pid and start time that the CLI and its sleep are gone (polling: no timing is
 * asserted), and that the host's watchdog process is gone too.
 */

jest.setTimeout(60_000);

const FIXTURE = join(__dirname, 'host-fixture.ts');
const TS_NODE = require.resolve('ts-node/register/transpile-only');
const SRC = join(repoRoot, 'src');
/** signal-exit is installed here only as a dependency of the dev tools: its test is skipped without it. */
const HAS_SIGNAL_EXIT = (() => {
  try {
    require.resolve('signal-exit');
    return true;
  } catch {
    return false;
  }
})();

let dir: string;
const hosts: ChildProcess[] = [];
const refs: ProcessRef[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'host-exit-test-'));
});
// Whatever a failed test left running is ended, by pid (and start time for the CLI's processes).
afterEach(() => {
  for (const host of hosts.splice(0)) if (host.exitCode === null && host.signalCode === null) host.kill('SIGKILL');
  for (const ref of refs.splice(0)) if (isRunning(ref)) process.kill(ref.pid, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

interface HostOptions {
  /** The library's root: src/ (through ts-node) or a build. */
  lib: string;
  /** Forces the process source of the host (and so of its watchdog). */
  source?: 'ps';
  ignoreTerm?: boolean;
  sigint?: 'own';
  signalExit?: boolean;
  onUsr2?: 'throw' | 'abort';
  watchdog?: '0';
  /** The run's killGraceMs (default 500). */
  graceMs?: number;
}

interface Host {
  readonly child: ChildProcess;
  /** The first JSON line the host printed that has `key`. */
  line(key: string): Promise<Record<string, unknown>>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

function startHost(options: HostOptions): Host {
  const cliEnv: Record<string, string> = { FAKE_CHILD: 'setsid', FAKE_HANG: '1', FAKE_CHILD_PID_FILE: join(dir, 'sleep.pid') };
  if (options.ignoreTerm) cliEnv.FAKE_IGNORE_TERM = '1';
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOST_LIB: options.lib,
    HOST_CLI_ENV: JSON.stringify(cliEnv),
    HOST_GRACE_MS: String(options.graceMs ?? 500),
  };
  delete env.CLI_SUBPROCESS_CORE_PROCESS_SOURCE;
  delete env.CLI_SUBPROCESS_CORE_WATCHDOG;
  if (options.source) env.CLI_SUBPROCESS_CORE_PROCESS_SOURCE = options.source;
  if (options.watchdog) env.CLI_SUBPROCESS_CORE_WATCHDOG = options.watchdog;
  if (options.sigint) env.HOST_SIGINT = options.sigint;
  if (options.signalExit) env.HOST_SIGNAL_EXIT = '1';
  if (options.onUsr2) env.HOST_ON_USR2 = options.onUsr2;
  const child = spawn(process.execPath, ['-r', TS_NODE, FIXTURE], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  hosts.push(child);
  let stdout = '';
  let stderr = '';
  const watchers = new Set<() => void>();
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    for (const watcher of watchers) watcher();
  });
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stderr })),
  );
  const line = (key: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const check = () => {
        const found = stdout
          .split('\n')
          .slice(0, -1)
          .map((text) => JSON.parse(text) as Record<string, unknown>)
          .find((value) => key in value);
        if (!found) return;
        watchers.delete(check);
        resolve(found);
      };
      watchers.add(check);
      check();
      void exited.then(() => {
        if (watchers.delete(check)) reject(new Error(`the host exited without a "${key}" line; stdout:\n${stdout}\nstderr:\n${stderr}`));
      });
    });
  return { child, line, exited };
}

/** The process `pid` names now (it must be running), kept for the cleanup. */
function ref(pid: unknown, what: string): ProcessRef {
  const stat = typeof pid === 'number' ? readStat(pid) : null;
  if (!stat) throw new Error(`${what} (pid ${String(pid)}) is not running`);
  const found = { pid: stat.pid, startTime: stat.startTime };
  refs.push(found);
  return found;
}

/** The CLI, its setsid'd sleep and the watchdog (null when off), once the host says they run. */
async function started(host: Host): Promise<{ cli: ProcessRef; sleep: ProcessRef; watchdog: ProcessRef | null }> {
  const ready = await host.line('cli');
  return {
    cli: ref(ready.cli, 'the CLI'),
    sleep: ref(ready.sleep, 'its sleep'),
    watchdog: ready.watchdog === null ? null : ref(ready.watchdog, 'the watchdog'),
  };
}

/** Resolves once none of `processes` runs (by pid and start time); fails after 15 s with the ones left. */
async function allGone(processes: Record<string, ProcessRef | null>): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const left = Object.entries(processes).filter(([, each]) => each && isRunning(each));
    if (left.length === 0) return;
    if (Date.now() > deadline) throw new Error(`still running: ${left.map(([name]) => name).join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The scenarios of the issue, against one build of the library and one process source. */
function hostScenarios(lib: () => string, source?: 'ps'): void {
  it.each(['SIGHUP', 'SIGINT', 'SIGTERM'] as const)(
    'a host %s: the CLI and its setsid sleep are stopped, and the host still dies of the signal',
    async (signal) => {
      const host = startHost({ lib: lib(), source });
      const { cli, sleep, watchdog } = await started(host);
      expect(watchdog).not.toBeNull();
      host.child.kill(signal);
      expect(await host.exited).toMatchObject({ code: null, signal });
      await allGone({ cli, sleep, watchdog });
    },
  );

  it('an uncaught exception in the host: the exit hook stops the CLI and its sleep', async () => {
    const host = startHost({ lib: lib(), source, onUsr2: 'throw' });
    const { cli, sleep, watchdog } = await started(host);
    host.child.kill('SIGUSR2');
    const exit = await host.exited;
    expect(exit).toMatchObject({ code: 1, signal: null });
    expect(exit.stderr).toContain('an uncaught exception in the host');
    await allGone({ cli, sleep, watchdog });
  });

  it('a host killed with SIGKILL: its watchdog stops the CLI and its sleep, then exits', async () => {
    const host = startHost({ lib: lib(), source });
    const { cli, sleep, watchdog } = await started(host);
    // The watchdog reads the processes from the host's source.
    expect(readFileSync(`/proc/${watchdog?.pid}/cmdline`, 'utf8').split('\0').at(-2)).toBe(source ?? 'proc');
    host.child.kill('SIGKILL');
    expect(await host.exited).toMatchObject({ signal: 'SIGKILL' });
    await allGone({ cli, sleep, watchdog });
  });

  it('a host killed with SIGKILL, a CLI that ignores SIGTERM: the watchdog SIGKILLs it after the grace period', async () => {
    const host = startHost({ lib: lib(), source, ignoreTerm: true, graceMs: 300 });
    const { cli, sleep, watchdog } = await started(host);
    host.child.kill('SIGKILL');
    await host.exited;
    await allGone({ cli, sleep, watchdog });
  });

  it('a SIGHUP, a CLI that ignores SIGTERM: the host dies of the signal at once, the watchdog SIGKILLs the CLI after the grace period', async () => {
    const host = startHost({ lib: lib(), source, ignoreTerm: true, graceMs: 300 });
    const { cli, sleep, watchdog } = await started(host);
    host.child.kill('SIGHUP');
    expect(await host.exited).toMatchObject({ signal: 'SIGHUP' });
    await allGone({ cli, sleep, watchdog });
  });

  it('a host with a SIGINT listener of its own is not killed by the library: it decides, and the run goes on', async () => {
    const host = startHost({ lib: lib(), source, sigint: 'own' });
    const { cli, sleep, watchdog } = await started(host);
    host.child.kill('SIGINT');
    await host.line('alive');
    expect([host.child.exitCode, host.child.signalCode]).toEqual([null, null]);
    expect([isRunning(cli), isRunning(sleep)]).toEqual([true, true]);
    // The host's SIGTERM is the library's again: it ends the run, and the host dies of it.
    host.child.kill('SIGTERM');
    expect(await host.exited).toMatchObject({ signal: 'SIGTERM' });
    await allGone({ cli, sleep, watchdog });
  });

  it('the watchdog never keeps the host alive: a host whose run is over exits by itself, and so does its watchdog', async () => {
    const host = startHost({ lib: lib(), source, onUsr2: 'abort' });
    const { cli, sleep, watchdog } = await started(host);
    host.child.kill('SIGUSR2');
    expect(await host.line('done')).toEqual({ done: 'aborted' });
    expect(await host.exited).toMatchObject({ code: 0, signal: null });
    await allGone({ cli, sleep, watchdog });
  });

  it('with CLI_SUBPROCESS_CORE_WATCHDOG=0 there is no watchdog: the exit hook SIGKILLs a CLI that ignores SIGTERM at once', async () => {
    const host = startHost({ lib: lib(), source, watchdog: '0', ignoreTerm: true, onUsr2: 'throw', graceMs: 60_000 });
    const { cli, sleep, watchdog } = await started(host);
    expect(watchdog).toBeNull();
    host.child.kill('SIGUSR2');
    expect(await host.exited).toMatchObject({ code: 1 });
    await allGone({ cli, sleep });
  });
}

describe('CLIs outlive their host (issue #18)', () => {
  describe('the built package (the watchdog is dist/cjs/runner/watchdog.js)', () => {
    const build = usePrivateBuild('host-exit-test');
    const lib = (): string => build.dir;

    it('the build has the watchdog next to host-exit.js', () => {
      expect(existsSync(join(build.dir, 'runner/watchdog.js'))).toBe(true);
    });

    describe('processes read from /proc', () => hostScenarios(lib));
    describe('processes read from ps (the macOS path, forced)', () => hostScenarios(lib, 'ps'));

    it('the run command, sent SIGHUP (its terminal closed): the CLI and its sleep are stopped, the command dies of the SIGHUP', async () => {
      const pidFile = join(dir, 'sleep.pid');
      const env = { ...process.env, FAKE_CHILD: 'setsid', FAKE_HANG: '1', FAKE_CHILD_PID_FILE: pidFile };
      const command = spawn(
        process.execPath,
        [join(build.dir, 'cli/main.js'), 'run', '--provider', 'claude', '--bin', join(__dirname, 'fake-cli.js'), 'hi'],
        { cwd: dir, env, stdio: 'ignore' },
      );
      hosts.push(command);
      const exited = new Promise<NodeJS.Signals | null>((resolve) => command.on('exit', (_code, signal) => resolve(signal)));
      const deadline = Date.now() + 15_000;
      while (!(existsSync(pidFile) && Number(readFileSync(pidFile, 'utf8')) > 0) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      const sleep = ref(Number(readFileSync(pidFile, 'utf8')), 'the sleep');
      const cli = ref(readStat(sleep.pid)?.ppid, 'the CLI');
      command.kill('SIGHUP');
      expect(await exited).toBe('SIGHUP');
      await allGone({ cli, sleep });
    });

    (HAS_SIGNAL_EXIT ? it : it.skip)(
      'a host that loads signal-exit (as many libraries do) still dies of a SIGHUP, after both have done their part',
      async () => {
        const host = startHost({ lib: lib(), signalExit: true });
        const { cli, sleep, watchdog } = await started(host);
        host.child.kill('SIGHUP');
        expect(await host.line('signalExit')).toEqual({ signalExit: { code: null, signal: 'SIGHUP' } });
        expect(await host.exited).toMatchObject({ signal: 'SIGHUP' });
        await allGone({ cli, sleep, watchdog });
      },
    );
  });

  describe('the sources, through ts-node (the watchdog is watchdog.ts)', () => {
    const lib = (): string => SRC;

    it('a host SIGHUP: the CLI and its sleep are stopped, the host dies of the signal', async () => {
      const host = startHost({ lib: lib() });
      const { cli, sleep, watchdog } = await started(host);
      host.child.kill('SIGHUP');
      expect(await host.exited).toMatchObject({ signal: 'SIGHUP' });
      await allGone({ cli, sleep, watchdog });
    });

    it('a host killed with SIGKILL, a CLI that ignores SIGTERM: the watchdog stops both', async () => {
      const host = startHost({ lib: lib(), ignoreTerm: true, graceMs: 300 });
      const { cli, sleep, watchdog } = await started(host);
      host.child.kill('SIGKILL');
      await host.exited;
      await allGone({ cli, sleep, watchdog });
    });
  });

  describe('in this process', () => {
    it('listens for exit, SIGHUP, SIGINT and SIGTERM only while a run is live', async () => {
      const events = ['exit', 'SIGHUP', 'SIGINT', 'SIGTERM'] as const;
      const counts = () => events.map((event) => process.listenerCount(event));
      const before = counts();
      const run = startRun({
        provider: 'claude',
        prompt: 'hi',
        executable: join(__dirname, 'fake-cli.js'),
        cwd: dir,
        killGraceMs: 500,
        env: { FAKE_HANG: '1' },
      });
      expect(counts()).toEqual(before.map((count) => count + 1));
      run.abort('done');
      await run.done;
      expect(counts()).toEqual(before);
    });
  });
});
