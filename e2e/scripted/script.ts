/**
 * What a scripted model endpoint answers, one turn per model call, in order. Every
 * endpoint (Anthropic, OpenAI Responses, Gemini) speaks the same script, so a scenario
 * is written once and played to each CLI. When the script runs out, the endpoint
 * answers a plain "done." so a CLI that calls once more still finishes.
 */
export type ScriptedTurn =
  /** A plain answer. */
  | { readonly text: string }
  /** Reasoning (thinking) first, then the answer. */
  | { readonly thinking: string; readonly text: string }
  /** One call of the CLI's own shell tool with this command (Claude `Bash`, Codex `exec_command`, Gemini `run_shell_command`). */
  | { readonly shell: string }
  /** The API answers this HTTP status with an error body carrying `message`. */
  | { readonly httpError: number; readonly message: string }
  /** Text streamed in small pieces with `delayMs` between them (abort and timeout scenarios). */
  | { readonly slowText: string; readonly delayMs: number };

/** The turn for the `index`-th model call (0-based), or the closing "done." after the script. */
export function turnAt<T extends object = ScriptedTurn>(script: readonly T[], index: number): T | ScriptedTurn {
  return script[index] ?? { text: 'done.' };
}

/** One scripted run: a prompt for the CLI and the turns its model endpoint plays. */
export interface Scenario {
  readonly name: string;
  readonly prompt: string;
  readonly script: readonly ScriptedTurn[];
}

/**
 * The scenarios every CLI is run through (captures now, the real-CLI suite later): a plain
 * answer, a shell command the CLI really runs, a failing one, thinking, and an API error.
 */
export const COMMON_SCENARIOS: readonly Scenario[] = [
  { name: 'plain', prompt: 'Say hello.', script: [{ text: 'Hello from the scripted model.' }] },
  {
    name: 'tool',
    prompt: 'Run echo hello-from-tool.',
    script: [{ shell: 'echo hello-from-tool' }, { text: 'The command printed hello-from-tool.' }],
  },
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
];

/** A common scenario by name. */
export function scenario(name: string): Scenario {
  const found = COMMON_SCENARIOS.find((s) => s.name === name);
  if (!found) throw new Error(`no common scenario ${name}`);
  return found;
}
