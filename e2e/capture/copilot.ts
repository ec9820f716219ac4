/*
 * Captures real `copilot -p … --output-format json` transcripts against the scripted Chat Completions endpoint.
 * Run from the project root: npx ts-node --transpile-only e2e/capture/copilot.ts [scenario…]
 * Each scenario runs `copilot -p <prompt> --output-format json --allow-all-tools --no-auto-update
 * --disable-client-telemetry` (the native binary, see cliPath) once, in a fresh temporary HOME
 * (COPILOT_HOME and its unpacked package inside) and cwd (removed afterwards), with stdin closed
 * and a timeout, and writes test/fixtures/providers/copilot/captured-<scenario>.jsonl (stdout
 * verbatim) and captured-<scenario>.exit.json ({"code","signal"}). Set CAPTURE_LOG=1 to print the requests the endpoint received and the CLI's stderr.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chatCallKind } from '../scripted/openai-chat';
import { COMMON_SCENARIOS, type Scenario } from '../scripted/script';
import { startScriptedCli } from '../scripted/setup';
import { captureAll, runCli, writeCapture } from './run-cli';

const OUT_DIR = join(__dirname, '..', '..', 'test', 'fixtures', 'providers', 'copilot');
const TIMEOUT_MS = 120_000;

/** Runs one scenario and writes its fixture files. */
async function capture(scenario: Scenario): Promise<void> {
  const cli = await startScriptedCli('copilot', scenario.script);
  const { server } = cli;
  try {
    const args = ['-p', scenario.prompt, '--output-format', 'json', '--allow-all-tools', '--no-auto-update', '--disable-client-telemetry'];
    const { stdout, stderr, exit } = await runCli(cli.executable, args, { cwd: cli.cwd, timeoutMs: TIMEOUT_MS, env: cli.env });
    writeCapture(OUT_DIR, scenario.name, stdout, exit);
    process.stdout.write(`${scenario.name}: exit ${JSON.stringify(exit)}, ${server.requests.length} requests\n`);
    if (process.env.CAPTURE_LOG) {
      for (const request of server.requests) {
        const body = request.body as Record<string, unknown> | null;
        const kind = chatCallKind(request) ?? '';
        const messages = body && Array.isArray(body.messages) ? body.messages.length : undefined;
        process.stdout.write(`  ${request.method} ${request.url} ${kind} messages=${String(messages)}\n`);
      }
      process.stdout.write(`  stderr: ${stderr.trim().slice(0, 2000)}\n`);
    }
  } finally {
    await cli.close();
  }
}

mkdirSync(OUT_DIR, { recursive: true });
captureAll(COMMON_SCENARIOS, capture);
