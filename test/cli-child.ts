import { spawn, type ChildProcess } from 'node:child_process';

/** How a CLI child ended, and everything it wrote. */
export interface CliExit {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A running command-line child whose stdout is watched line by line. */
export interface CliChild {
  readonly child: ChildProcess;
  /** Resolves with the first stdout line that `matches` (any line when none is given); rejects if the child exits first. */
  line(matches?: (line: string) => boolean): Promise<string>;
  readonly exited: Promise<CliExit>;
}

/**
 * Starts `node <script> …args` with exactly `env`, stdin closed (as the run command's tests need it
 * to wait and signal it), or a pipe (`child.stdin`) with `stdin: 'pipe'` (the session command's).
 */
export function spawnNodeCli(
  script: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; stdin?: 'ignore' | 'pipe' },
): CliChild {
  const child = spawn(process.execPath, [script, ...args], {
    cwd: options.cwd,
    env: options.env,
    stdio: [options.stdin ?? 'ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const watchers = new Set<() => void>();
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    for (const watcher of watchers) watcher();
  });
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<CliExit>((resolve) => child.on('close', (status, signal) => resolve({ status, signal, stdout, stderr })));
  const line = (matches: (line: string) => boolean = () => true) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const found = stdout.split('\n').slice(0, -1).find(matches); // only complete lines
        if (found === undefined) return;
        watchers.delete(check);
        resolve(found);
      };
      watchers.add(check);
      check();
      void exited.then(() => {
        if (watchers.delete(check)) reject(new Error(`the CLI exited without such a line; stdout:\n${stdout}\nstderr:\n${stderr}`));
      });
    });
  return { child, line, exited };
}
