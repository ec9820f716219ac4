/*
 * Captures real `opencode run --format json` transcripts against the scripted Chat Completions endpoint.
 * Run from the project root: npx ts-node --transpile-only e2e/capture/opencode.ts [scenario…]
 * Each scenario runs `opencode run --format json --auto --thinking <prompt>` once, in a fresh
 * temporary HOME, XDG dirs and cwd (removed afterwards), with stdin closed and a timeout, and
 * writes test/fixtures/providers/opencode/captured-<scenario>.jsonl (stdout verbatim) and
 * captured-<scenario>.exit.json ({"code","signal"}). `--auto` approves the shell command (the
 * scripted config asks before `bash`); `--thinking` prints the reasoning parts. Set
 * CAPTURE_LOG=1 to print the requests the endpoint received and the CLI's stderr.
 * The two-minute timeout of captureOneShots covers the first run in a fresh home, which
 * migrates OpenCode's database (up to ~20 s).
 */
import { COMMON_SCENARIOS } from '../scripted/script';
import { captureOneShots, describeChatRequest } from './run-cli';

captureOneShots(COMMON_SCENARIOS, {
  name: 'opencode',
  args: (scenario) => ['run', '--format', 'json', '--auto', '--thinking', scenario.prompt],
  describeRequest: describeChatRequest,
});
