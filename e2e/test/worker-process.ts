/*
 * A worker process for the scale-out tests: the `worker` command from source on a real Redis, holding
 * runs for 2 s without renewal (a death is noticed soon).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

export interface WorkerProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly exited: Promise<void>;
}

/** Starts `cli-subprocess-core worker --redis URL --concurrency 2 --lock 2 ...extra`; resolves once it says it is taking runs. */
export function startWorker(url: string, extra: readonly string[] = []): Promise<WorkerProcess> {
  const child = spawn(
    process.execPath,
    [
      '-r',
      require.resolve('ts-node/register/transpile-only'),
      join(ROOT, 'src', 'cli', 'main.ts'),
      'worker',
      '--redis',
      url,
      '--concurrency',
      '2',
      '--lock',
      '2',
      ...extra,
    ],
    {
      env: { ...process.env, TS_NODE_PROJECT: join(ROOT, 'tsconfig.json') },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    child.stdout?.once('data', () => resolve({ child, pid: child.pid as number, exited }));
    child.once('exit', (code) => reject(new Error(`the worker exited ${code}`)));
  });
}
