/*
 * Captures real Claude Code stdout transcripts against the scripted Anthropic endpoint.
 * Run from the project root: npx ts-node --transpile-only e2e/capture/claude.ts [scenario…]
 * Each scenario runs `claude -p … --output-format stream-json --verbose` once, in a fresh
 * temporary HOME and cwd (removed afterwards), with stdin closed and a timeout, and writes
 * test/fixtures/providers/claude/captured-<scenario>.jsonl (stdout verbatim) and
 * captured-<scenario>.exit.json ({"code","signal"}). Set CAPTURE_LOG=1 to print the
 * requests the endpoint received.
 */
import { join } from 'node:path';
import { COMMON_SCENARIOS, scenario, type Scenario } from '../scripted/script';
import { startScriptedCli } from '../scripted/setup';
import { captureAll, runCli, writeCapture } from './run-cli';

const ROOT = join(__dirname, '..', '..');
const OUT_DIR = join(ROOT, 'test', 'fixtures', 'providers', 'claude');
const TIMEOUT_MS = 120_000;

/** A scenario with Claude-only extras: more arguments, more environment. */
interface ClaudeScenario extends Scenario {
  extraArgs?: string[];
  env?: Record<string, string>;
  /** Run without `--allowedTools Bash`: a command that writes is then denied by Claude itself (nobody to ask in `-p`). */
  noAllowedTools?: boolean;
}

const SCENARIOS: ClaudeScenario[] = [
  ...COMMON_SCENARIOS,
  {
    // Claude retries a 5xx ten times with backoff (minutes); one retry shows the api_retry line.
    name: 'api-error-500-retry',
    prompt: 'Say hello.',
    script: [{ httpError: 500, message: 'scripted server error' }],
    env: { CLAUDE_CODE_MAX_RETRIES: '1' },
  },
  { ...scenario('tool'), name: 'tool-partial', extraArgs: ['--include-partial-messages'] },
  { ...scenario('thinking'), name: 'thinking-partial', extraArgs: ['--include-partial-messages'] },
  {
    name: 'permission-denied',
    prompt: 'Create made-by-tool.txt.',
    script: [{ shell: 'touch made-by-tool.txt' }, { text: 'I was not allowed to create the file.' }],
    noAllowedTools: true,
  },
];

/** Runs one scenario and writes its fixture files. */
async function capture(scenario: ClaudeScenario): Promise<void> {
  const cli = await startScriptedCli('claude', scenario.script);
  const { server } = cli;
  try {
    const allowed = scenario.noAllowedTools ? [] : ['--allowedTools', 'Bash'];
    const args = ['-p', scenario.prompt, '--output-format', 'stream-json', '--verbose', ...allowed, ...(scenario.extraArgs ?? [])];
    const { stdout, stderr, exit } = await runCli(cli.executable, args, { cwd: cli.cwd, timeoutMs: TIMEOUT_MS, env: { ...cli.env, ...scenario.env } });
    writeCapture(OUT_DIR, scenario.name, stdout, exit);
    const err = stderr.trim();
    process.stdout.write(`${scenario.name}: exit ${JSON.stringify(exit)}, ${server.requests.length} requests${err ? `, stderr: ${err.slice(0, 300)}` : ''}\n`);
    if (process.env.CAPTURE_LOG) {
      for (const request of server.requests) {
        const body = request.body as Record<string, unknown> | null;
        const summary = body && typeof body === 'object' ? { model: body.model, stream: body.stream, tools: Array.isArray(body.tools) ? body.tools.length : undefined, max_tokens: body.max_tokens, thinking: body.thinking, keys: Object.keys(body) } : body;
        process.stdout.write(`  ${request.method} ${request.url} ${JSON.stringify(summary)}\n`);
      }
    }
  } finally {
    await cli.close();
  }
}

captureAll(SCENARIOS, capture);
