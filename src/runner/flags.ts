import { isCliId, RUN_CLI_IDS, runFlags, type ArgvOptions, type RunFlags } from '../clis';
import { refuseFlagLike } from './argument-value';
import type { RunProvider } from './types';

export type { ArgvOptions } from '../clis';

/**
 * Prompts longer than this many UTF-8 bytes go on stdin: Linux caps one argv element at 128 KiB
 * (a 140,000-character prompt made `spawn` fail with E2BIG), and all of argv and the environment
 * together at a quarter of the stack limit.
 */
export const ARGV_PROMPT_LIMIT = 64 * 1024;

/** Whether `prompt` goes on the CLI's stdin rather than in its argv. */
export function promptGoesOnStdin(prompt: string): boolean {
  return Buffer.byteLength(prompt, 'utf8') > ARGV_PROMPT_LIMIT;
}

/**
 * The argv (after the executable) for one run, from the CLI's registry file: base flags, model, permission, allowed tools,
 * partial, the caller's extra `args`, resume, then the prompt (or what stands in for it when it
 * goes on stdin). Throws a TypeError for an option the provider's CLI cannot take, for a value
 * placed after a flag (model, resume id, allowed tool) that the CLI would read as a flag
 * (`refuseFlagLike`), and for a NUL byte in any element (no process argument can carry one).
 */
export function buildArgv(provider: RunProvider, options: ArgvOptions): string[] {
  if (!isCliId(provider, RUN_CLI_IDS))
    throw new TypeError(`provider must be one of ${RUN_CLI_IDS.join(', ')}; got ${JSON.stringify(provider)}`);
  const flags = runFlags(provider);
  if (typeof options.prompt !== 'string') throw new TypeError('prompt must be a string');
  refuseNul('prompt', options.prompt);
  const permission = options.permission ?? 'default';
  const permissionArgs = Object.prototype.hasOwnProperty.call(flags.permission, permission) ? flags.permission[permission] : undefined;
  if (!permissionArgs)
    throw new TypeError(`permission must be one of ${Object.keys(flags.permission).join(', ')}; got ${JSON.stringify(permission)}`);
  refuseFlagLikeValues(options);
  const argv = [...flags.base];
  if (options.model) argv.push(...flags.model(options.model));
  argv.push(...permissionArgs);
  if (options.allowedTools && options.allowedTools.length > 0) {
    if (!flags.allowedTools) throw new TypeError(`${provider} has no flag for allowedTools`);
    argv.push(...flags.allowedTools(options.allowedTools));
  }
  if (options.partial) argv.push(...flags.partial);
  if (options.args) argv.push(...options.args.map(String));
  if (options.resume) {
    if (!flags.resume) throw new TypeError(`${provider} runs cannot be resumed`);
    argv.push(...flags.resume(options.resume));
  }
  argv.push(...promptArgs(provider, flags, options.prompt));
  for (const element of argv) refuseNul('an argument', element);
  return argv;
}

/** The prompt's argv elements, or what stands in for them when it goes on stdin (refused for a CLI that cannot read it there). */
function promptArgs(provider: RunProvider, flags: RunFlags, prompt: string): readonly string[] {
  if (!promptGoesOnStdin(prompt)) return flags.prompt(prompt);
  if (flags.promptOnStdin === null) {
    throw new TypeError(
      `${provider} takes its prompt only as an argument: a prompt over ${ARGV_PROMPT_LIMIT} bytes (UTF-8) cannot be passed to it`,
    );
  }
  return flags.promptOnStdin;
}

/** The options whose values follow a flag: none may read as a flag (the caller's own `args` are flags on purpose). */
function refuseFlagLikeValues(options: ArgvOptions): void {
  if (options.model) refuseFlagLike('model', options.model);
  if (options.resume) refuseFlagLike('resume', options.resume);
  for (const tool of options.allowedTools ?? []) refuseFlagLike('allowedTools entry', tool);
}

/** A NUL byte cannot be passed to a process (Node throws a bare TypeError at spawn): a clear error now instead. */
export function refuseNul(what: string, value: string): void {
  if (value.includes('\0'))
    throw new TypeError(`${what} must not contain a NUL byte (\\0): no process argument, environment variable or path can carry one`);
}
