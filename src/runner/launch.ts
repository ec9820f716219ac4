import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { cliEnvironment, type EnvironmentOptions } from './environment';
import { resolveExecutable } from './executable';
import { CLIS } from '../clis';
import { refuseNul } from './flags';
import type { AgentCli } from './types';

/** Where and how a CLI process starts: checked before anything runs. */
export interface Launch {
  readonly cwd: string;
  /** The resolved executable's path. */
  readonly executable: string;
  readonly env: NodeJS.ProcessEnv;
}

/** What a caller gives for a launch (`RunOptions` and `SessionOptions` share these; the environment's part is `EnvironmentOptions`). */
export interface LaunchOptions extends EnvironmentOptions {
  cwd?: string;
  executable?: string;
}

/**
 * The checked launch of `cli`: a `cwd` that is a directory, the environment `cliEnvironment` picks
 * (the host's, whole or allow-listed, without what the CLI's registry file drops, with the caller's
 * variables over it, and `PWD` the cwd's absolute path), and the executable found (the registry's
 * name unless the caller gives one) (`ExecutableNotFoundError` when it is not). Throws before any process
 * starts; a NUL byte anywhere is a clear TypeError (no process argument can carry one).
 */
export function prepareLaunch(cli: AgentCli, options: LaunchOptions): Launch {
  const cwd = options.cwd ?? process.cwd();
  refuseNul('cwd', cwd);
  // Checked here: a spawn in a missing directory fails with ENOENT, which reads like a missing executable.
  if (!statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) throw new TypeError(`cwd is not a directory: ${cwd}`);
  // A shell sets PWD to the directory it starts a program in; spawn does not, so the CLI would see the host's.
  // Kilo Code 7.7.7 resolves its project from PWD: without this a run in another cwd worked in the host's directory.
  const env: NodeJS.ProcessEnv = { ...cliEnvironment(cli, options), PWD: resolve(cwd) };
  const executable = resolveExecutable(options.executable ?? CLIS[cli].executable, cli, env.PATH, cwd);
  return { cwd, executable, env };
}

/** A duration option: a non-negative number of milliseconds, or absent. */
export function checkDuration(name: string, value: number | undefined): void {
  if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value) && value >= 0)) {
    throw new TypeError(`${name} must be a non-negative number of milliseconds; got ${String(value)}`);
  }
}
