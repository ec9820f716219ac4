import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** How a captured process ended. */
export interface Exit {
  code: number | null;
  signal: string | null;
}

/** What one real CLI run printed. */
export interface CliRun {
  stdout: string;
  stderr: string;
  exit: Exit;
}

/**
 * Runs a real CLI once with stdin closed (Codex waits forever on an open stdin pipe) and only
 * the environment given (no keys or settings of the capturing machine leak in); on timeout it
 * kills only the child it started.
 */
export function runCli(bin: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<CliRun> {
  const child = spawn(bin, args, { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'], env: options.env });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), exit: { code, signal } });
    });
  });
}

/** Writes a fixture's `captured-<name>.jsonl` (stdout verbatim) and `.exit.json`. */
export function writeCapture(dir: string, name: string, stdout: string, exit: Exit): void {
  writeFileSync(join(dir, `captured-${name}.jsonl`), stdout);
  writeFileSync(join(dir, `captured-${name}.exit.json`), JSON.stringify(exit) + '\n');
}

/** Captures the scenarios named on the command line (all when none are), one after another. */
export function captureAll<S extends { name: string }>(scenarios: readonly S[], capture: (scenario: S) => Promise<void>): void {
  const only = process.argv.slice(2);
  (async () => {
    for (const scenario of scenarios) if (only.length === 0 || only.includes(scenario.name)) await capture(scenario);
  })().catch((error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exitCode = 1;
  });
}
