import { refuseFlagLike } from './argument-value';
import type { PermissionPreset, RunOptions, RunProvider } from './types';

/*
 * Each CLI's argv, as one table per provider. Only flags the tested versions accept
 * (Claude Code 2.1.328, Codex 0.169.0, Gemini CLI 0.61.0, checked against each `--help`):
 * flags drift between versions (`codex exec --full-auto` is gone in 0.169).
 */

/** The part of `RunOptions` that decides the argv. */
export type ArgvOptions = Pick<RunOptions, 'prompt' | 'model' | 'args' | 'permission' | 'allowedTools' | 'resume' | 'partial'>;

/** One provider's flags: each answers the argv elements for one option (none when unset). */
interface ProviderFlags {
  readonly executable: string;
  /** The fixed head: headless mode and JSON lines on stdout. */
  readonly base: readonly string[];
  readonly model: (model: string) => string[];
  readonly permission: Readonly<Record<PermissionPreset, readonly string[]>>;
  /** Null: the CLI has no such flag, and asking for it is an error rather than silently ignored. */
  readonly allowedTools: ((tools: readonly string[]) => string[]) | null;
  readonly resume: (sessionId: string) => string[];
  /** Only Claude needs a flag for text deltas (Gemini always streams them, Codex's `--json` has none). */
  readonly partial: readonly string[];
  /** The prompt's argv elements, always last; the prompt itself is one element. */
  readonly prompt: (prompt: string) => string[];
  /** What stands in for `prompt` when the prompt goes on stdin instead (each CLI reads it there; measured with the versions above). */
  readonly promptOnStdin: readonly string[];
  /** Variables of the host's environment the CLI must not inherit unless the caller sets them. */
  readonly dropEnv: readonly string[];
}

export const FLAGS: Readonly<Record<RunProvider, ProviderFlags>> = {
  claude: {
    executable: 'claude',
    base: ['--print', '--output-format', 'stream-json', '--verbose'],
    model: (model) => ['--model', model],
    permission: {
      default: [],
      'accept-edits': ['--permission-mode', 'acceptEdits'],
      // Refused by Claude Code when run as root.
      bypass: ['--dangerously-skip-permissions'],
      plan: ['--permission-mode', 'plan'],
    },
    allowedTools: (tools) => ['--allowedTools', ...tools],
    resume: (id) => ['--resume', id],
    partial: ['--include-partial-messages'],
    // `--allowedTools` is variadic: without `--` it would swallow the prompt as one more tool.
    prompt: (prompt) => ['--', prompt],
    // `--print` with no prompt argument reads it from stdin.
    promptOnStdin: [],
    // Set in every process Claude Code starts; a Claude Code that inherits it refuses to start
    // ("cannot be launched inside another Claude Code session"), so a host run from one could run none.
    dropEnv: ['CLAUDECODE'],
  },
  codex: {
    executable: 'codex',
    // Outside a git repository `codex exec` refuses to run without --skip-git-repo-check.
    base: ['exec', '--json', '--skip-git-repo-check'],
    model: (model) => ['--model', model],
    permission: {
      default: [],
      'accept-edits': ['--sandbox', 'workspace-write'],
      bypass: ['--dangerously-bypass-approvals-and-sandbox'],
      plan: ['--sandbox', 'read-only'],
    },
    allowedTools: null,
    // `codex exec resume <id> <prompt>`: a subcommand, so it goes right before the prompt.
    resume: (id) => ['resume', id],
    partial: [],
    prompt: (prompt) => ['--', prompt],
    // `codex exec -` reads the prompt from stdin.
    promptOnStdin: ['-'],
    dropEnv: [],
  },
  gemini: {
    executable: 'gemini',
    base: ['--output-format', 'stream-json'],
    model: (model) => ['--model', model],
    permission: {
      default: [],
      'accept-edits': ['--approval-mode', 'auto_edit'],
      bypass: ['--yolo'],
      plan: ['--approval-mode', 'plan'],
    },
    allowedTools: (tools) => ['--allowed-tools', ...tools],
    resume: (id) => ['--resume', id],
    partial: [],
    // `-p` takes the prompt as its value; a value starting with "-" would be read as a flag, `=` keeps it one value.
    prompt: (prompt) => [`--prompt=${prompt}`],
    // Without `--prompt`, with stdin not a terminal, Gemini CLI runs headless on what stdin holds.
    promptOnStdin: [],
    dropEnv: [],
  },
};

/** The default executable name of a provider's CLI. */
export function defaultExecutable(provider: RunProvider): string {
  return FLAGS[provider].executable;
}

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
 * The argv (after the executable) for one run: base flags, model, permission, allowed tools,
 * partial, the caller's extra `args`, resume, then the prompt (or what stands in for it when it
 * goes on stdin). Throws a TypeError for an option the provider's CLI cannot take, for a value
 * placed after a flag (model, resume id, allowed tool) that the CLI would read as a flag
 * (`refuseFlagLike`), and for a NUL byte in any element (no process argument can carry one).
 */
export function buildArgv(provider: RunProvider, options: ArgvOptions): string[] {
  const flags = Object.prototype.hasOwnProperty.call(FLAGS, provider) ? FLAGS[provider] : undefined;
  if (!flags) throw new TypeError(`provider must be one of ${Object.keys(FLAGS).join(', ')}; got ${JSON.stringify(provider)}`);
  if (typeof options.prompt !== 'string') throw new TypeError('prompt must be a string');
  refuseNul('prompt', options.prompt);
  const permission = options.permission ?? 'default';
  const permissionArgs = flags.permission[permission];
  if (!permissionArgs) throw new TypeError(`permission must be one of ${Object.keys(flags.permission).join(', ')}; got ${JSON.stringify(permission)}`);
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
  if (options.resume) argv.push(...flags.resume(options.resume));
  argv.push(...(promptGoesOnStdin(options.prompt) ? flags.promptOnStdin : flags.prompt(options.prompt)));
  for (const element of argv) refuseNul('an argument', element);
  return argv;
}

/** The options whose values follow a flag: none may read as a flag (the caller's own `args` are flags on purpose). */
function refuseFlagLikeValues(options: ArgvOptions): void {
  if (options.model) refuseFlagLike('model', options.model);
  if (options.resume) refuseFlagLike('resume', options.resume);
  for (const tool of options.allowedTools ?? []) refuseFlagLike('allowedTools entry', tool);
}

/** A NUL byte cannot be passed to a process (Node throws a bare TypeError at spawn): a clear error now instead. */
export function refuseNul(what: string, value: string): void {
  if (value.includes('\0')) throw new TypeError(`${what} must not contain a NUL byte (\\0): no process argument, environment variable or path can carry one`);
}
