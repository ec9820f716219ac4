/*
 * Captures real `codex exec --json` transcripts against the scripted OpenAI Responses endpoint.
 * Usage (from the project root): npx ts-node --transpile-only e2e/capture/codex.ts [scenario…]
 * Each scenario runs the real Codex CLI once in a fresh temp CODEX_HOME and cwd, with stdin
 * closed and a timeout, and writes its stdout verbatim to
 * test/fixtures/providers/codex/captured-<scenario>.jsonl plus captured-<scenario>.exit.json.
 * CAPTURE_DEBUG=1 also prints Codex's stderr and every request the endpoint received.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResponsesTurn } from '../scripted/openai-responses';
import { cliPath, pointCliAt, startEndpoint } from '../scripted/setup';
import { captureAll, FIXTURES, runCli, writeCapture, type CliRun, type Exit } from './run-cli';

const OUT_DIR = join(FIXTURES, 'providers', 'codex');
const TIMEOUT_MS = 60_000;

/** One Codex run: the prompt, what the model answers, and (for a second run) a resume of the first. */
interface Run {
  prompt: string;
  script: readonly ResponsesTurn[];
}

interface Scenario {
  name: string;
  /** Runs in order in the same CODEX_HOME; the second and later ones resume the first thread. */
  runs: Run[];
  /** Configure the stdio MCP server `echo` (mcp-echo-server.js). */
  mcpEcho?: boolean;
}

const SCENARIOS: Scenario[] = [
  { name: 'plain', runs: [{ prompt: 'Say hello.', script: [{ text: 'Hello from the scripted model.' }] }] },
  {
    name: 'shell',
    runs: [
      {
        prompt: 'Run echo hello-from-tool.',
        script: [{ shell: 'echo hello-from-tool' }, { text: 'The command printed hello-from-tool.' }],
      },
    ],
  },
  {
    name: 'failing-command',
    runs: [{ prompt: 'List /nonexistent-dir.', script: [{ shell: 'ls /nonexistent-dir' }, { text: 'That directory does not exist.' }] }],
  },
  {
    name: 'reasoning',
    runs: [{ prompt: 'What is 6 times 7?', script: [{ thinking: 'Six sevens are forty-two.', text: '42' }] }],
  },
  {
    name: 'mcp',
    mcpEcho: true,
    runs: [
      {
        prompt: 'Ask the echo tool to echo ping, then ask it to fail.',
        script: [
          { toolSearch: 'echo' },
          { call: 'echo', namespace: 'mcp__echo', args: { text: 'ping' } },
          { call: 'echo', namespace: 'mcp__echo', args: { text: 'boom', fail: true } },
          { text: 'The echo tool answered.' },
        ],
      },
    ],
  },
  {
    name: 'file-change',
    runs: [
      {
        prompt: 'Create hello.txt.',
        script: [{ patch: '*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch\n' }, { text: 'Created hello.txt.' }],
      },
    ],
  },
  {
    name: 'web-search',
    runs: [{ prompt: 'Search the web for codex.', script: [{ webSearch: 'openai codex cli', text: 'Codex is a coding agent.' }] }],
  },
  {
    // A 500 answer: Codex retries the stream once ("Reconnecting… 1/1") before the next answer.
    name: 'reconnect',
    runs: [{ prompt: 'Say hello.', script: [{ httpError: 500, message: 'scripted server error' }, { text: 'Hello after a retry.' }] }],
  },
  {
    name: 'api-error-400',
    runs: [{ prompt: 'Say hello.', script: [{ httpError: 400, message: 'Invalid request: scripted bad request.' }] }],
  },
  {
    // `codex exec resume`: the second turn's turn.completed shows that usage is a running total.
    name: 'resume-two-turns',
    runs: [
      { prompt: 'Say one.', script: [{ text: 'one' }] },
      { prompt: 'Say two.', script: [{ text: 'two' }] },
    ],
  },
];

async function capture(scenario: Scenario): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), 'codex-home-'));
  const cwd = mkdtempSync(join(tmpdir(), 'codex-cwd-'));
  const stdout: string[] = [];
  let exit: Exit = { code: null, signal: null };
  let threadId: string | null = null;
  try {
    for (const run of scenario.runs) {
      const server = await startEndpoint('codex', run.script);
      try {
        const env = pointCliAt('codex', home, server.url, { mcpEcho: scenario.mcpEcho === true });
        const resume = threadId ? ['resume', threadId] : [];
        const result = await runCodex([...resume, run.prompt], env, cwd);
        stdout.push(result.stdout);
        exit = result.exit;
        threadId ??= /"thread_id":"([^"]+)"/.exec(result.stdout)?.[1] ?? null;
        if (process.env.CAPTURE_DEBUG) {
          process.stderr.write(result.stderr);
          for (const request of server.requests) process.stderr.write(`${request.method} ${request.url} ${JSON.stringify(request.body)}\n`);
        }
      } finally {
        await server.close();
      }
    }
    writeCapture(OUT_DIR, scenario.name, stdout.join(''), exit);
    process.stdout.write(`captured-${scenario.name}: exit ${JSON.stringify(exit)}\n`);
  } finally {
    rmSync(home, { recursive: true, force: true });
    rmSync(cwd, { recursive: true, force: true });
  }
}

/** Runs `codex exec --json …` (stdin closed: Codex waits forever on an open stdin pipe). */
function runCodex(args: string[], env: Record<string, string>, cwd: string): Promise<CliRun> {
  const argv = ['exec', '--json', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', ...args];
  return runCli(cliPath('codex'), argv, { cwd, timeoutMs: TIMEOUT_MS, env });
}

captureAll(SCENARIOS, capture);
