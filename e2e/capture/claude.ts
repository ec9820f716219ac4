/*
 * Captures real Claude Code stdout transcripts against the scripted Anthropic endpoint.
 * Run from the project root: npx ts-node --transpile-only e2e/capture/claude.ts [scenario…]
 * Each scenario runs `claude -p … --output-format stream-json --verbose` once, in a fresh
 * temporary HOME and cwd (removed afterwards), with stdin closed and a timeout, and writes
 * test/fixtures/providers/claude/captured-<scenario>.jsonl (stdout verbatim) and
 * captured-<scenario>.exit.json ({"code","signal"}). Set CAPTURE_LOG=1 to print the
 * requests the endpoint received.
 */
import { COMMON_SCENARIOS, scenario, type Scenario } from '../scripted/script';
import { captureOneShots } from './run-cli';

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

captureOneShots(SCENARIOS, {
  name: 'claude',
  args: (s) => [
    '-p',
    s.prompt,
    '--output-format',
    'stream-json',
    '--verbose',
    ...(s.noAllowedTools ? [] : ['--allowedTools', 'Bash']),
    ...(s.extraArgs ?? []),
  ],
  env: (s) => s.env,
  stderrInSummary: true,
  describeRequest: (request) => {
    const body = request.body as Record<string, unknown> | null;
    const summary =
      body && typeof body === 'object'
        ? {
            model: body.model,
            stream: body.stream,
            tools: Array.isArray(body.tools) ? body.tools.length : undefined,
            max_tokens: body.max_tokens,
            thinking: body.thinking,
            keys: Object.keys(body),
          }
        : body;
    return JSON.stringify(summary);
  },
});
