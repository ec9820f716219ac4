/*
 * Captures real `pi --mode json -p` transcripts against the scripted Chat Completions endpoint.
 * Run from the project root: npx ts-node --transpile-only e2e/capture/pi.ts [scenario…]
 * Each scenario runs `pi --offline --mode json --provider scripted --model fake-model -p <prompt>`
 * once, in a fresh temporary HOME and cwd (removed afterwards), with stdin closed and a timeout,
 * and writes test/fixtures/providers/pi/captured-<scenario>.jsonl (stdout verbatim) and
 * captured-<scenario>.exit.json ({"code","signal"}). pi runs its tools without asking (it asks
 * only through an extension). Set CAPTURE_LOG=1 to print the requests the endpoint received and
 * the CLI's stderr.
 */
import { SCRIPTED_CHAT_MODEL } from '../scripted/openai-chat';
import { COMMON_SCENARIOS } from '../scripted/script';
import { PI_PROVIDER } from '../scripted/setup';
import { captureOneShots, describeChatRequest } from './run-cli';

captureOneShots(COMMON_SCENARIOS, {
  name: 'pi',
  args: (scenario) => ['--offline', '--mode', 'json', '--provider', PI_PROVIDER, '--model', SCRIPTED_CHAT_MODEL, '-p', scenario.prompt],
  describeRequest: describeChatRequest,
});
