/*
 * Helpers of the real-CLI suite: run a pinned CLI through `startRun` against a scripted endpoint,
 * and look at the processes a run started from /proc.
 */
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { startRun, type AnyEvent, type Run, type RunOptions, type RunOutcome, type RunProvider } from '../../src';
import { descendantsOf, isRunning, listProcesses, readStat, type ProcessRef, type ProcStat } from '../../src/runner/process-table';
import type { ResponsesTurn } from '../scripted/openai-responses';
import { startScriptedCli, type ScriptedCli } from '../scripted/setup';
import { waitFor as waitUntil } from '../../test/wait-for';

/** What each CLI needs from the runner to run a scripted shell command without asking. */
export const TOOL_OPTIONS: Record<RunProvider, Partial<RunOptions>> = {
  // As root Claude Code refuses --dangerously-skip-permissions; allowing Bash is enough.
  claude: { allowedTools: ['Bash'] },
  codex: { permission: 'bypass' },
  gemini: { permission: 'bypass' },
  // pi asks before no tool in a run (only an extension could).
  pi: {},
  // `kilo run --auto`: the scripted config asks before bash, and without it the run rejects the call.
  kilo: { permission: 'bypass' },
  // `cline --json` runs its tools unasked.
  cline: {},
};

/** A started run against a scripted CLI; `close()` (always call it) removes the endpoint and directories. */
export interface ScriptedRun {
  readonly cli: ScriptedCli;
  readonly run: Run;
}

/** Starts `name` with `prompt` against an endpoint playing `script`. */
export async function startScripted(
  name: RunProvider,
  prompt: string,
  script: readonly ResponsesTurn[],
  options: Partial<RunOptions> = {},
): Promise<ScriptedRun> {
  const cli = await startScriptedCli(name, script);
  // Claude retries API errors for minutes by default.
  const env = { ...cli.env, CLAUDE_CODE_MAX_RETRIES: '1', ...options.env };
  const run = startRun({ provider: name, prompt, cwd: cli.cwd, executable: cli.executable, ...TOOL_OPTIONS[name], ...options, env });
  return { cli, run };
}

/**
 * `startScripted` for one spec file: after each test, every run it started is aborted (a no-op
 * for a finished one) and its endpoint and directories are removed, so a failed test leaves nothing.
 */
export function scriptedRuns(): typeof startScripted {
  const open: ScriptedRun[] = [];
  afterEach(async () => {
    for (const { run, cli } of open.splice(0)) {
      run.abort('test cleanup');
      await run.done;
      await cli.close();
    }
  });
  return async (...args) => {
    const started = await startScripted(...args);
    open.push(started);
    return started;
  };
}

/** A text streamed 4 characters every 300 ms: about half a minute, far longer than any test waits. */
export const SLOW_TEXT = { slowText: 'This answer streams very slowly, piece by piece. '.repeat(10), delayMs: 300 };

/** Every event of a run, and its outcome. */
export async function collect(run: Run, onEvent?: (event: AnyEvent) => void): Promise<{ events: AnyEvent[]; outcome: RunOutcome }> {
  const events: AnyEvent[] = [];
  for await (const event of run) {
    events.push(event);
    onEvent?.(event);
  }
  return { events, outcome: await run.done };
}

/**
 * `waitFor` with the real CLIs' patience: 150 s by default (a first OpenCode or Kilo start migrates its
 * database, and under CI load a minute did not always do).
 */
export function waitFor<T>(what: string, condition: () => T | null | undefined | false, timeoutMs = 150_000): Promise<T> {
  return waitUntil(what, condition, timeoutMs);
}

/** The run's CLI and its descendants alive now, as /proc shows them (pid and start time). */
export function snapshotTree(pid: number): ProcessRef[] {
  const root = readStat(pid);
  if (!root) return [];
  return [root, ...descendantsOf(root)].map(({ pid: p, startTime }) => ({ pid: p, startTime }));
}

/** The command line of a process ('' when it is gone). */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

/** The processes of `cli` (its executable in their command line) that run now as children of `parents` (a worker, this process). */
export function cliProcesses(cli: ScriptedCli, parents: readonly number[]): ProcStat[] {
  return listProcesses().filter((stat) => parents.includes(stat.ppid) && commandLine(stat.pid).includes(cli.executable));
}

/** The processes of `refs` still running (same pid and start time, not a zombie). */
export function stillRunning(refs: readonly ProcessRef[]): string[] {
  return refs.filter(isRunning).map((ref) => `${ref.pid} ${commandLine(ref.pid)}`);
}

/** The kinds of `events`, in order. */
export function kinds(events: readonly AnyEvent[]): string[] {
  return events.map((event) => event.kind);
}

/** The first event of `kind`, typed. */
export function first<K extends AnyEvent['kind']>(events: readonly AnyEvent[], kind: K): Extract<AnyEvent, { kind: K }> | undefined {
  return events.find((event) => event.kind === kind) as Extract<AnyEvent, { kind: K }> | undefined;
}

/** The pids of every Cline hub daemon on the machine (`cline --cline-hub-daemon`, started detached). */
export function clineHubDaemons(): number[] {
  return listProcesses()
    .map((stat) => stat.pid)
    .filter((pid) => commandLine(pid).includes('--cline-hub-daemon'));
}

/** Whether something accepts connections on 127.0.0.1:`port`. */
export function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
