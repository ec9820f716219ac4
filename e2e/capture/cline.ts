/*
 * Captures real `cline --json` transcripts against the scripted Chat Completions endpoint.
 * Run from the project root: npx ts-node --transpile-only e2e/capture/cline.ts [scenario…]
 * Each scenario runs `cline --json -- <prompt>` once, in a fresh temporary HOME and cwd (removed
 * afterwards), with stdin closed and a timeout, and writes
 * test/fixtures/providers/cline/captured-<scenario>.jsonl (stdout verbatim) and
 * captured-<scenario>.exit.json ({"code","signal"}). Cline runs its tools unasked under `--json`.
 * Set CAPTURE_LOG=1 to print the requests the endpoint received and the CLI's stderr.
 */
import { COMMON_SCENARIOS } from '../scripted/script';
import { captureOneShots, describeChatRequest } from './run-cli';

captureOneShots(COMMON_SCENARIOS, {
  name: 'cline',
  args: (scenario) => ['--json', '--', scenario.prompt],
  describeRequest: describeChatRequest,
});
