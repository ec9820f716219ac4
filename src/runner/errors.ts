import { CLIS } from '../clis';
import type { AgentCli } from './types';

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
    super(`${where}: ${CLIS[provider].install} or pass executable`);
  }
}
