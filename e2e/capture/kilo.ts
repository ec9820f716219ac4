/*
 * Captures real `kilo run --format json` transcripts against the scripted Chat Completions endpoint.
 * Run from the project root: npx ts-node --transpile-only e2e/capture/kilo.ts [scenario…]
 * Each scenario runs `kilo run --format json --auto --thinking <prompt>` once, in a fresh
 * temporary HOME, XDG dirs and cwd (removed afterwards), with stdin closed and a timeout, and
 * writes test/fixtures/providers/kilo/captured-<scenario>.jsonl (stdout verbatim) and
 * captured-<scenario>.exit.json ({"code","signal"}). `--auto` approves the shell command (the
 * scripted config asks before `bash`); `--thinking` prints the reasoning parts. Set
 * CAPTURE_LOG=1 to print the requests the endpoint received and the CLI's stderr.
 * The two-minute timeout of captureOneShots covers the first run in a fresh home, which
 * migrates Kilo Code's database, as OpenCode's does.
 */
import { COMMON_SCENARIOS } from '../scripted/script';
import { captureOneShots, describeChatRequest } from './run-cli';

captureOneShots(COMMON_SCENARIOS, {
  name: 'kilo',
  args: (scenario) => ['run', '--format', 'json', '--auto', '--thinking', scenario.prompt],
  describeRequest: describeChatRequest,
});
