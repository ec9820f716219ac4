import { CLIS, SESSION_CLI_IDS } from '../clis';
import { ExecutableNotFoundError } from '../runner/errors';
import { resolveExecutable } from '../runner/executable';
import type { SessionProvider } from './types';

/**
 * The session CLIs of the registry whose executable is on `path`, in the registry's order: what a
 * provider-less ACP agent offers as its `cli` option (its first is the default CLI), and what
 * `chat` offers when no provider is given.
 */
export function installedClis(path: string | undefined = process.env.PATH, cwd: string = process.cwd()): SessionProvider[] {
  return SESSION_CLI_IDS.filter((id) => {
    try {
      resolveExecutable(CLIS[id].executable, id, path, cwd);
      return true;
    } catch (error) {
      if (error instanceof ExecutableNotFoundError) return false;
      throw error;
    }
  });
}
