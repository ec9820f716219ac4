import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { ExecutableNotFoundError } from './errors';
import type { AgentCli } from './types';

/**
 * The path of `executable`: as given when it contains a slash (relative to `cwd`), else the first
 * executable file of that name on `PATH`. Looked up before spawning, so that a missing CLI is one
 * clear error naming it rather than a child `error` event after the run has started.
 */
export function resolveExecutable(executable: string, provider: AgentCli, path: string | undefined, cwd: string): string {
  if (executable.includes('/')) {
    const full = isAbsolute(executable) ? executable : resolve(cwd, executable);
    if (isExecutableFile(full)) return full;
    throw new ExecutableNotFoundError(executable, provider);
  }
  for (const dir of (path ?? '').split(delimiter)) {
    if (dir === '') continue;
    const full = join(isAbsolute(dir) ? dir : resolve(cwd, dir), executable);
    if (isExecutableFile(full)) return full;
  }
  throw new ExecutableNotFoundError(executable, provider);
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
