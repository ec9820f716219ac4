/*
 * Captures real Gemini CLI stdout transcripts against the scripted Gemini endpoint.
 * Run from the project root: npx ts-node --transpile-only e2e/capture/gemini.ts [scenario…]
 * Each scenario runs `gemini -p … --output-format stream-json --yolo` once, in a fresh
 * temporary HOME and cwd (removed afterwards), with stdin closed and a timeout, and writes
 * test/fixtures/providers/gemini/captured-<scenario>.jsonl (stdout verbatim) and
 * captured-<scenario>.exit.json ({"code","signal"}). Set CAPTURE_LOG=1 to print the
 * requests the endpoint received and the CLI's stderr.
 */
import { COMMON_SCENARIOS, type Scenario } from '../scripted/script';
import { captureOneShots } from './run-cli';

const SCENARIOS: Scenario[] = [
  ...COMMON_SCENARIOS,
  // An empty command fails the tool's own validation: the one way to see a tool_result with status "error".
  { name: 'tool-error', prompt: 'Run an empty command.', script: [{ shell: '' }, { text: 'The command was rejected.' }] },
];

captureOneShots(SCENARIOS, {
  name: 'gemini',
  args: (scenario) => ['-p', scenario.prompt, '--output-format', 'stream-json', '--yolo'],
  describeRequest: (request) => {
    const body = request.body as Record<string, unknown> | null;
    return `contents=${String(body && Array.isArray(body.contents) ? body.contents.length : undefined)}`;
  },
});
