/*
 * Captures real `qwen -p … -o stream-json` transcripts against the scripted Chat Completions endpoint.
 * Run from the project root: npx ts-node --transpile-only e2e/capture/qwen.ts [scenario…]
 * Each scenario runs `qwen -p <prompt> -o stream-json --auth-type openai -m fake-model
 * --approval-mode yolo` once, in a fresh temporary HOME and cwd (removed afterwards), with stdin
 * closed and a timeout, and writes test/fixtures/providers/qwen/captured-<scenario>.jsonl (stdout
 * verbatim) and captured-<scenario>.exit.json ({"code","signal"}). Yolo approves the shell command
 * (in `-p` the default approval mode leaves `run_shell_command` out of the tools). Set
 * CAPTURE_LOG=1 to print the requests the endpoint received and the CLI's stderr.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chatCallKind, SCRIPTED_CHAT_MODEL } from '../scripted/openai-chat';
import { COMMON_SCENARIOS, type Scenario } from '../scripted/script';
import { startScriptedCli } from '../scripted/setup';
import { captureAll, runCli, writeCapture } from './run-cli';

const OUT_DIR = join(__dirname, '..', '..', 'test', 'fixtures', 'providers', 'qwen');
const TIMEOUT_MS = 120_000;

/** Runs one scenario and writes its fixture files. */
async function capture(scenario: Scenario): Promise<void> {
  const cli = await startScriptedCli('qwen', scenario.script);
  const { server } = cli;
  try {
    const args = ['-p', scenario.prompt, '-o', 'stream-json', '--auth-type', 'openai', '-m', SCRIPTED_CHAT_MODEL, '--approval-mode', 'yolo'];
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
