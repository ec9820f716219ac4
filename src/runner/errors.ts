import type { AgentCli } from './types';

const INSTALL_HINT: Record<AgentCli, string> = {
  claude: 'install @anthropic-ai/claude-code',
  codex: 'install @openai/codex',
  gemini: 'install @google/gemini-cli',
  opencode: 'install opencode-ai',
  qwen: 'install @qwen-code/qwen-code',
  copilot: 'install @github/copilot',
};

/**
 * The CLI's executable was not found (on `PATH`, or at the path given). `startRun` throws it
 * synchronously (and `startSession` too), before anything runs; a command line tool maps it to exit code 127.
 */
export class ExecutableNotFoundError extends Error {
  override readonly name = 'ExecutableNotFoundError';
  readonly code = 'ENOENT';

  constructor(
    /** The executable as given or defaulted (`claude`, `/opt/bin/codex`…). */
    readonly executable: string,
    readonly provider: AgentCli,
  ) {
    const where = executable.includes('/') ? `${executable} not found or not executable` : `${executable} not found on PATH`;
    super(`${where}: ${INSTALL_HINT[provider]} or pass executable`);
  }
}
