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
export function turnAt(script: readonly ScriptedTurn[], index: number): ScriptedTurn {
  return script[index] ?? { text: 'done.' };
}
