/*
 * A worker process for the scale-out tests and the load rig: the `worker` command from the sources
 * on a real Redis, its stderr kept; and any other command of the CLI started the same way (`serve`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

export interface WorkerProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly exited: Promise<void>;
  readonly stderr: string[];
}

/** Options of `startWorker`. */
export interface WorkerProcessOptions {
  /** The `worker` command's options after `--redis URL`. */
  readonly args?: readonly string[];
  /** A module preloaded with `node -r` (a monitor of the bench's). */
  readonly preload?: string;
  readonly cwd?: string;
  /** Variables over this process's environment. */
  readonly env?: NodeJS.ProcessEnv;
}

/** Starts `cli-subprocess-core worker --redis URL …args`; resolves once it says it is taking runs. */
export async function startWorker(url: string, options: WorkerProcessOptions = {}): Promise<WorkerProcess> {
  return (await startCommand(['worker', '--redis', url, ...(options.args ?? [])], options)).started;
}

/**
 * Starts `cli-subprocess-core …command` from the sources (`worker`, `serve`); resolves once it has
 * printed its first line (serve: its address), with that line.
 */
export function startCommand(
  command: readonly string[],
  options: Omit<WorkerProcessOptions, 'args'> = {},
): Promise<{ started: WorkerProcess; said: string }> {
  const preload = options.preload ? ['-r', options.preload] : [];
  const args = [...preload, '-r', require.resolve('ts-node/register/transpile-only'), join(ROOT, 'src', 'cli', 'main.ts')];
  const child = spawn(process.execPath, [...args, ...command], {
    cwd: options.cwd,
    env: { ...process.env, TS_NODE_PROJECT: join(ROOT, 'tsconfig.json'), ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const started: WorkerProcess = {
    child,
    pid: child.pid as number,
    exited: new Promise<void>((resolve) => child.once('exit', () => resolve())),
    stderr: [],
  };
  child.stderr?.setEncoding('utf8').on('data', (text: string) => started.stderr.push(text));
  return new Promise((resolve, reject) => {
    child.stdout?.setEncoding('utf8').once('data', (said: string) => resolve({ started, said }));
    child.once('exit', (code, signal) =>
      reject(new Error(`${command[0]} exited before it started (${code ?? signal}): ${started.stderr.join('')}`)),
    );
  });
}
