/*
 * Captures real `copilot -p … --output-format json` transcripts against the scripted Chat Completions endpoint.
 * Run from the project root: npx ts-node --transpile-only e2e/capture/copilot.ts [scenario…]
 * Each scenario runs `copilot -p <prompt> --output-format json --allow-all-tools --no-auto-update
 * --disable-client-telemetry` (the native binary, see cliPath) once, in a fresh temporary HOME
 * (COPILOT_HOME and its unpacked package inside) and cwd (removed afterwards), with stdin closed
 * and a timeout, and writes test/fixtures/providers/copilot/captured-<scenario>.jsonl (stdout
 * verbatim) and captured-<scenario>.exit.json ({"code","signal"}). Set CAPTURE_LOG=1 to print the requests the endpoint received and the CLI's stderr.
 */
import { COMMON_SCENARIOS } from '../scripted/script';
import { captureOneShots, describeChatRequest } from './run-cli';

captureOneShots(COMMON_SCENARIOS, {
  name: 'copilot',
  args: (scenario) => [
    '-p',
    scenario.prompt,
    '--output-format',
    'json',
    '--allow-all-tools',
    '--no-auto-update',
    '--disable-client-telemetry',
  ],
  describeRequest: describeChatRequest,
});
