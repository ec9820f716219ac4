/*
 * Captures real Claude Code stdout transcripts against the scripted Anthropic endpoint.
 * Run from the project root: npx ts-node --transpile-only e2e/capture/claude.ts [scenario…]
 * Each scenario runs `claude -p … --output-format stream-json --verbose` once, in a fresh
 * temporary HOME and cwd (removed afterwards), with stdin closed and a timeout, and writes
 * test/fixtures/providers/claude/captured-<scenario>.jsonl (stdout verbatim) and
 * captured-<scenario>.exit.json ({"code","signal"}). Set CAPTURE_LOG=1 to print the
 * requests the endpoint received.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAnthropicEndpoint } from '../scripted/anthropic';
import type { ScriptedTurn } from '../scripted/script';
import { captureAll, runCli, writeCapture } from './run-cli';

const ROOT = join(__dirname, '..', '..');
const CLAUDE = join(ROOT, 'e2e', 'node_modules', '.bin', 'claude');
const OUT_DIR = join(ROOT, 'test', 'fixtures', 'providers', 'claude');
const TIMEOUT_MS = 120_000;

interface Scenario {
  name: string;
  prompt: string;
  script: ScriptedTurn[];
  extraArgs?: string[];
  env?: Record<string, string>;
}

const toolScript: ScriptedTurn[] = [{ shell: 'echo hello-from-tool' }, { text: 'The command printed hello-from-tool.' }];

const SCENARIOS: Scenario[] = [
  { name: 'plain', prompt: 'Say hello.', script: [{ text: 'Hello from the scripted model.' }] },
  { name: 'tool', prompt: 'Run echo hello-from-tool.', script: toolScript },
  {
    name: 'failing-command',
    prompt: 'List /nonexistent-dir.',
    script: [{ shell: 'ls /nonexistent-dir' }, { text: 'The directory /nonexistent-dir does not exist.' }],
  },
  {
    name: 'thinking',
    prompt: 'What is 6 times 7? Think first.',
    script: [{ thinking: 'Six times seven is forty-two.', text: 'The answer is 42.' }],
  },
  { name: 'api-error', prompt: 'Say hello.', script: [{ httpError: 400, message: 'scripted invalid request' }] },
  {
    // Claude retries a 5xx ten times with backoff (minutes); one retry shows the api_retry line.
    name: 'api-error-500-retry',
    prompt: 'Say hello.',
    script: [{ httpError: 500, message: 'scripted server error' }],
    env: { CLAUDE_CODE_MAX_RETRIES: '1' },
  },
  { name: 'tool-partial', prompt: 'Run echo hello-from-tool.', script: toolScript, extraArgs: ['--include-partial-messages'] },
  {
    name: 'thinking-partial',
    prompt: 'What is 6 times 7? Think first.',
    script: [{ thinking: 'Six times seven is forty-two.', text: 'The answer is 42.' }],
    extraArgs: ['--include-partial-messages'],
  },
];

/** Runs one scenario and writes its fixture files. */
async function capture(scenario: Scenario): Promise<void> {
  const server = await startAnthropicEndpoint(scenario.script);
  const home = mkdtempSync(join(tmpdir(), 'claude-home-'));
  const cwd = mkdtempSync(join(tmpdir(), 'claude-cwd-'));
  try {
    const args = ['-p', scenario.prompt, '--output-format', 'stream-json', '--verbose', '--allowedTools', 'Bash', ...(scenario.extraArgs ?? [])];
    const { stdout, stderr, exit } = await runCli(CLAUDE, args, {
      cwd,
      timeoutMs: TIMEOUT_MS,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: home,
        LANG: 'C.UTF-8',
        ANTHROPIC_BASE_URL: server.url,
        ANTHROPIC_API_KEY: 'sk-ant-scripted',
        DISABLE_AUTOUPDATER: '1',
        ...scenario.env,
      },
    });
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
    await server.close();
    rmSync(home, { recursive: true, force: true });
    rmSync(cwd, { recursive: true, force: true });
  }
}

captureAll(SCENARIOS, capture);
