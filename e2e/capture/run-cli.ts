import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chatCallKind } from '../scripted/openai-chat';
import type { Scenario } from '../scripted/script';
import type { RecordedRequest } from '../scripted/server';
import { startScriptedCli, type CliName } from '../scripted/setup';

/** test/fixtures, where every capture writes. */
export const FIXTURES = join(__dirname, '..', '..', 'test', 'fixtures');

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

/** What a one-shot capture script says of its CLI; the rest of a capture is the same for all. */
export interface OneShotCli<S extends Scenario> {
  name: CliName;
  /** The CLI's arguments for one scenario (its prompt among them). */
  args(scenario: S): string[];
  /** Environment on top of the scripted one. */
  env?(scenario: S): Record<string, string> | undefined;
  /** What CAPTURE_LOG=1 prints of one request after its method and url. */
  describeRequest(request: RecordedRequest): string;
  /** Claude: its stderr in the summary line instead of after the logged requests. */
  stderrInSummary?: boolean;
}

/**
 * Captures the scenarios (see captureAll), each with one run of the CLI in a fresh HOME and cwd
 * against its scripted endpoint (startScriptedCli, removed afterwards), stdin closed and a
 * two-minute timeout, into test/fixtures/providers/<cli>/captured-<scenario>.jsonl and .exit.json.
 */
export function captureOneShots<S extends Scenario>(scenarios: readonly S[], cli: OneShotCli<S>): void {
  const outDir = join(FIXTURES, 'providers', cli.name);
  mkdirSync(outDir, { recursive: true });
  captureAll(scenarios, async (scenario) => {
    const scripted = await startScriptedCli(cli.name, scenario.script);
    const { requests } = scripted.server;
    try {
      const env = { ...scripted.env, ...cli.env?.(scenario) };
      const { stdout, stderr, exit } = await runCli(scripted.executable, cli.args(scenario), {
        cwd: scripted.cwd,
        timeoutMs: 120_000,
        env,
      });
      writeCapture(outDir, scenario.name, stdout, exit);
      const err = cli.stderrInSummary ? stderr.trim() : '';
      process.stdout.write(
        `${scenario.name}: exit ${JSON.stringify(exit)}, ${requests.length} requests${err ? `, stderr: ${err.slice(0, 300)}` : ''}\n`,
      );
      if (process.env.CAPTURE_LOG) {
        for (const request of requests) process.stdout.write(`  ${request.method} ${request.url} ${cli.describeRequest(request)}\n`);
        if (!cli.stderrInSummary) process.stdout.write(`  stderr: ${stderr.trim().slice(0, 2000)}\n`);
      }
    } finally {
      await scripted.close();
    }
  });
}

/** The CAPTURE_LOG line of a Chat Completions request (OpenCode, Qwen Code, Copilot): agent or side call, and how many messages. */
export function describeChatRequest(request: RecordedRequest): string {
  const body = request.body as Record<string, unknown> | null;
  const messages = body && Array.isArray(body.messages) ? body.messages.length : undefined;
  return `${chatCallKind(request) ?? ''} messages=${String(messages)}`;
}
