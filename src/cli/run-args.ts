import { statSync } from 'node:fs';
import { refuseFlagLike } from '../runner/argument-value';
import { isCliId, RUN_CLI_IDS } from '../clis';
import type { PermissionPreset, RunOptions } from '../runner/types';
import type { GivenOptions } from './args';
import { keepRawOption } from './keep-raw';
import { UsageError } from './usage-error';

// Written as a record so that a preset added to the runner's types fails to compile here until listed.
const PERMISSIONS = Object.keys({ default: 0, 'accept-edits': 0, bypass: 0, plan: 0 } satisfies Record<
  PermissionPreset,
  0
>) as PermissionPreset[];

/** A positive, finite decimal number of seconds ("30", "0.5"); `Number()` alone would take "", "0x10" and "1e3". */
const SECONDS = /^(\d+(\.\d*)?|\.\d+)$/;

/**
 * The `startRun` options of `run [options] [--] <prompt>`, checked: every mistake is a
 * `UsageError` (exit 2) before any process starts. The environment is not an option: the CLI
 * inherits this process's (API keys, base URLs).
 */
export function runOptions(given: GivenOptions, positionals: readonly string[]): RunOptions {
  const provider = given.get('--provider');
  if (provider === undefined) throw new UsageError(`run needs --provider <${RUN_CLI_IDS.join('|')}>`);
  if (!isCliId(provider, RUN_CLI_IDS)) {
    throw new UsageError(`unknown provider ${JSON.stringify(provider)}: run takes one of ${RUN_CLI_IDS.join(', ')}`);
  }
  if (positionals.length === 0 || positionals[0].trim() === '') throw new UsageError('run needs a prompt');
  if (positionals.length > 1) throw new UsageError('run takes one prompt: quote it (and put -- before one that starts with a dash)');
  const options: RunOptions = { provider, prompt: positionals[0] };

  launchOptions(given, options);
  const permission = given.get('--permission');
  if (permission !== undefined) {
    if (!(PERMISSIONS as string[]).includes(permission)) {
      throw new UsageError(`--permission must be one of ${PERMISSIONS.join(', ')}; got ${JSON.stringify(permission)}`);
    }
    options.permission = permission as PermissionPreset;
  }
  const tools = given.get('--allowed-tools');
  if (tools !== undefined) {
    const allowedTools = tools
      .split(',')
      .map((tool) => tool.trim())
      .filter((tool) => tool !== '');
    if (allowedTools.length === 0) throw new UsageError('--allowed-tools needs at least one tool name');
    options.allowedTools = allowedTools;
  }
  if (given.has('--partial')) options.partial = true;
  if (given.has('--keep-raw')) options.keepRaw = keepRawOption(given.get('--keep-raw'));
  const timeoutMs = milliseconds(given, '--timeout');
  if (timeoutMs !== undefined) options.timeoutMs = timeoutMs;
  const idleTimeoutMs = milliseconds(given, '--idle-timeout');
  if (idleTimeoutMs !== undefined) options.idleTimeoutMs = idleTimeoutMs;
  return options;
}

/** The options `run` and `session` share: `--model`, `--bin` and `--cwd`, set on `options`. */
export function launchOptions(given: GivenOptions, options: { model?: string; executable?: string; cwd?: string }): void {
  const model = nonEmpty(given, '--model');
  if (model !== undefined) options.model = flagValue('--model', model);
  const executable = nonEmpty(given, '--bin');
  if (executable !== undefined) options.executable = executable;
  const cwd = nonEmpty(given, '--cwd');
  if (cwd !== undefined) {
    // Checked here: a spawn in a missing directory fails with ENOENT, which reads like a missing executable.
    if (!statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`--cwd ${cwd}: no such directory`);
    options.cwd = cwd;
  }
}

/**
 * `value`, refused as a usage error when the CLI would read it as a flag (`refuseFlagLike`): now,
 * rather than when the CLI starts (`acp` starts one per ACP session, long after its arguments).
 */
function flagValue(option: string, value: string): string {
  try {
    refuseFlagLike(option, value);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return value;
}

/** A positive number of seconds given to `option`, in milliseconds; undefined when the option is not given. */
export function milliseconds(given: GivenOptions, option: string): number | undefined {
  const value = given.get(option);
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (!SECONDS.test(value) || !(seconds > 0) || !Number.isFinite(seconds)) {
    throw new UsageError(`${option} must be a positive number of seconds; got ${JSON.stringify(value)}`);
  }
  return Math.ceil(seconds * 1000);
}

/** An option's value, refusing an empty one (`--model=`). */
export function nonEmpty(given: GivenOptions, option: string): string | undefined {
  const value = given.get(option);
  if (value === '') throw new UsageError(`${option} needs a value`);
  return value;
}
