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
import { QWEN_ONE_SHOT_ARGS } from '../scripted/setup';
import { COMMON_SCENARIOS } from '../scripted/script';
import { captureOneShots, describeChatRequest } from './run-cli';

captureOneShots(COMMON_SCENARIOS, {
  name: 'qwen',
  args: (scenario) => [...QWEN_ONE_SHOT_ARGS, '-p', scenario.prompt],
  describeRequest: describeChatRequest,
});
