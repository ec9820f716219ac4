/*
 * Captures real Gemini CLI stdout transcripts against the scripted Gemini endpoint.
 * Run from the project root: npx ts-node --transpile-only e2e/capture/gemini.ts [scenario…]
 * Each scenario runs `gemini -p … --output-format stream-json --yolo` once, in a fresh
 * temporary HOME and cwd (removed afterwards), with stdin closed and a timeout, and writes
 * test/fixtures/providers/gemini/captured-<scenario>.jsonl (stdout verbatim) and
 * captured-<scenario>.exit.json ({"code","signal"}). Set CAPTURE_LOG=1 to print the
 * requests the endpoint received and the CLI's stderr.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { COMMON_SCENARIOS, type Scenario } from '../scripted/script';
import { startScriptedCli } from '../scripted/setup';
import { captureAll, runCli, writeCapture } from './run-cli';

const ROOT = join(__dirname, '..', '..');
const OUT_DIR = join(ROOT, 'test', 'fixtures', 'providers', 'gemini');
const TIMEOUT_MS = 120_000;

const SCENARIOS: Scenario[] = [
  ...COMMON_SCENARIOS,
  // An empty command fails the tool's own validation: the one way to see a tool_result with status "error".
  { name: 'tool-error', prompt: 'Run an empty command.', script: [{ shell: '' }, { text: 'The command was rejected.' }] },
];

/** Runs one scenario and writes its fixture files. */
async function capture(scenario: Scenario): Promise<void> {
  const cli = await startScriptedCli('gemini', scenario.script);
  const { server } = cli;
  try {
    const args = ['-p', scenario.prompt, '--output-format', 'stream-json', '--yolo'];
    const { stdout, stderr, exit } = await runCli(cli.executable, args, { cwd: cli.cwd, timeoutMs: TIMEOUT_MS, env: cli.env });
    writeCapture(OUT_DIR, scenario.name, stdout, exit);
    process.stdout.write(`${scenario.name}: exit ${JSON.stringify(exit)}, ${server.requests.length} requests\n`);
    if (process.env.CAPTURE_LOG) {
      for (const request of server.requests) {
        const body = request.body as Record<string, unknown> | null;
        const contents = body && Array.isArray(body.contents) ? body.contents.length : undefined;
        process.stdout.write(`  ${request.method} ${request.url} contents=${String(contents)}\n`);
      }
      process.stdout.write(`  stderr: ${stderr.trim().slice(0, 2000)}\n`);
    }
  } finally {
    await cli.close();
  }
}

mkdirSync(OUT_DIR, { recursive: true });
captureAll(SCENARIOS, capture);
