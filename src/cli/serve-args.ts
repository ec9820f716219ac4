import { readFileSync, statSync } from 'node:fs';
import { isLoopbackHost } from '../http/access';
import { refuseFlagLike } from '../runner/argument-value';
import {
  DEFAULT_IDLE_SECONDS,
  DEFAULT_MAX_PROMPT_BYTES,
  DEFAULT_MAX_QUEUED,
  DEFAULT_MAX_RUN_BYTES,
  DEFAULT_MAX_RUN_SECONDS,
  DEFAULT_MAX_RUNS_PER_PRINCIPAL,
} from '../scale/limits';
import { defaultDataDir } from '../scale/file-journal';
import { DEFAULT_REQUEST_APPROVALS, type JobDefaults } from '../scale/request-policy';
import { WORKSPACE_MODES, type WorkspaceMode } from '../scale/workspace';
import { APPROVAL_POLICIES, type ApprovalPolicy } from '../sessions/types';
import type { GivenOptions } from './args';
import { milliseconds, nonEmpty } from './run-args';
import type { ServeOptions } from './serve-command';
import { UsageError } from './usage-error';

/** The variable `serve` reads its token from when `--token` is not given. */
export const TOKEN_VARIABLE = 'CLI_SUBPROCESS_CORE_TOKEN';

/** A whole number option within bounds. */
function whole(given: GivenOptions, option: string, fallback: number, min: number, max: number): number {
  const value = given.get(option);
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max)
    throw new UsageError(`${option} must be a whole number from ${min} to ${max}; got ${JSON.stringify(value)}`);
  return Number(value);
}

/** A comma-separated list option, its entries trimmed; undefined when not given. */
function list(given: GivenOptions, option: string): string[] | undefined {
  const value = given.get(option);
  if (value === undefined) return undefined;
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) throw new UsageError(`${option} needs at least one name`);
  return entries;
}

/** The options of `serve` and `worker`, checked; `--redis` defaults to $REDIS_URL, `--token` to $CLI_SUBPROCESS_CORE_TOKEN. */
export function serveOptions(
  command: 'serve' | 'worker',
  given: GivenOptions,
  positionals: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): ServeOptions {
  if (positionals.length > 0) throw new UsageError(`${command} takes no arguments but options`);
  const redis = nonEmpty(given, '--redis') ?? (env.REDIS_URL || undefined);
  if (redis !== undefined && !/^rediss?:\/\//.test(redis))
    throw new UsageError(`--redis must be a redis:// URL; got ${JSON.stringify(redis)}`);
  if (command === 'worker' && redis === undefined)
    throw new UsageError('worker needs --redis <url> (or REDIS_URL): without Redis, serve runs the runs itself');
  const host = nonEmpty(given, '--host') ?? '127.0.0.1';
  return {
    redis,
    dataDir: command === 'serve' ? dataDir(given, redis, env) : undefined,
    host,
    port: whole(given, '--port', 8787, 0, 65_535),
    concurrency: whole(given, '--concurrency', 2, 1, 1000),
    lockMs: milliseconds(given, '--lock'),
    ttlSeconds: given.has('--ttl') ? whole(given, '--ttl', 0, 1, 365 * 86_400) : undefined,
    idleSeconds: whole(given, '--idle-seconds', DEFAULT_IDLE_SECONDS, 1, 7 * 86_400),
    access: command === 'serve' ? accessOptions(given, host, env) : { allowedHosts: [] },
    allow: { approvals: approvalsOption(given), models: modelsOption(given) },
    maxPromptBytes: whole(given, '--max-prompt-bytes', DEFAULT_MAX_PROMPT_BYTES, 1, 64 * 1024 * 1024),
    maxQueued: whole(given, '--max-queued', DEFAULT_MAX_QUEUED, 1, 1_000_000),
    maxRunsPerPrincipal: whole(given, '--max-runs-per-principal', DEFAULT_MAX_RUNS_PER_PRINCIPAL, 1, 1_000_000),
    jobDefaults: jobDefaults(given),
  };
}

/** `--data-dir`: where serve without Redis keeps its runs (a path that exists must be a directory); refused with Redis, which keeps them. */
function dataDir(given: GivenOptions, redis: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  const dir = nonEmpty(given, '--data-dir');
  if (redis !== undefined) {
    if (dir !== undefined) throw new UsageError('--data-dir is for serve without Redis: with --redis, runs are kept on Redis');
    return undefined;
  }
  if (dir !== undefined && statSync(dir, { throwIfNoEntry: false })?.isDirectory() === false)
    throw new UsageError(`--data-dir ${dir}: not a directory`);
  return dir ?? defaultDataDir(env);
}

/**
 * Who may call `serve`: a token (`--token`, $CLI_SUBPROCESS_CORE_TOKEN, or one made at start),
 * principals (`--tokens FILE`), or nobody checked (`--no-auth`, refused off loopback).
 */
function accessOptions(given: GivenOptions, host: string, env: NodeJS.ProcessEnv): ServeOptions['access'] {
  const allowedHosts = list(given, '--allowed-host') ?? [];
  // The address bound is a name of this server's (0.0.0.0 and :: are not names: --allowed-host gives them).
  if (!['0.0.0.0', '::'].includes(host)) allowedHosts.push(host);
  const ways = ['--token', '--tokens', '--no-auth'].filter((option) => given.has(option));
  if (ways.length > 1) throw new UsageError(`${ways.join(' and ')} exclude each other`);
  if (given.has('--no-auth')) {
    if (!isLoopbackHost(host))
      throw new UsageError(
        `--no-auth is refused with --host ${host}: anyone who can reach it could run agents on this machine; give --token or --tokens`,
      );
    return { noAuth: true, allowedHosts };
  }
  if (given.has('--tokens')) return { token: tokensFile(given.get('--tokens') as string), allowedHosts };
  const token = nonEmpty(given, '--token') ?? (env[TOKEN_VARIABLE] || undefined);
  if (token !== undefined && token.length < 16) throw new UsageError('the token must be at least 16 characters');
  return { token, allowedHosts };
}

/** `--tokens FILE`: one `TOKEN NAME` per line, `#` comments and blank lines skipped; by principal name. */
function tokensFile(path: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`--tokens ${path}: ${(error as Error).message}`);
  }
  const tokens: Record<string, string> = {};
  const seen = new Set<string>();
  text.split('\n').forEach((raw, index) => {
    const line = raw.replace(/#.*/, '').trim();
    if (line === '') return;
    const [token, name, ...rest] = line.split(/\s+/);
    const where = `--tokens ${path}, line ${index + 1}`;
    if (name === undefined || rest.length > 0) throw new UsageError(`${where}: expected "TOKEN NAME"`);
    if (token.length < 16) throw new UsageError(`${where}: the token must be at least 16 characters`);
    if (seen.has(token)) throw new UsageError(`${where}: this token is given twice`);
    if (Object.prototype.hasOwnProperty.call(tokens, name)) throw new UsageError(`${where}: the principal ${name} is given twice`);
    seen.add(token);
    tokens[name] = token;
  });
  if (Object.keys(tokens).length === 0) throw new UsageError(`--tokens ${path}: no token in it`);
  return tokens;
}

/** `--approvals ask,deny`: the policies a request may ask for (default ask and deny: allow only when listed). */
function approvalsOption(given: GivenOptions): ApprovalPolicy[] {
  const names = list(given, '--approvals') ?? [...DEFAULT_REQUEST_APPROVALS];
  for (const name of names)
    if (!(APPROVAL_POLICIES as readonly string[]).includes(name))
      throw new UsageError(`--approvals takes ${APPROVAL_POLICIES.join(', ')}; got ${JSON.stringify(name)}`);
  return names as ApprovalPolicy[];
}

/** `--models a,b`: the models a request may name, each one a value a CLI takes (never a flag). */
function modelsOption(given: GivenOptions): string[] | undefined {
  const models = list(given, '--models');
  for (const model of models ?? []) {
    try {
      refuseFlagLike('model', model);
    } catch (error) {
      throw new UsageError(`--models: ${(error as Error).message}`);
    }
  }
  return models;
}

/** What every run gets from the operator: where it runs, its environment and its limits (never the request's). */
function jobDefaults(given: GivenOptions): JobDefaults {
  const cwd = nonEmpty(given, '--cwd');
  if (cwd !== undefined && !statSync(cwd, { throwIfNoEntry: false })?.isDirectory())
    throw new UsageError(`--cwd ${cwd}: no such directory`);
  const workspace = given.get('--workspace');
  if (workspace !== undefined && !(WORKSPACE_MODES as readonly string[]).includes(workspace))
    throw new UsageError(`--workspace takes ${WORKSPACE_MODES.join(', ')}; got ${JSON.stringify(workspace)}`);
  const defaults: JobDefaults = {
    maxRunSeconds: whole(given, '--max-run-seconds', DEFAULT_MAX_RUN_SECONDS, 0, 365 * 86_400),
    maxRunBytes: whole(given, '--max-run-bytes', DEFAULT_MAX_RUN_BYTES, 1024, 2 ** 40),
  };
  if (cwd !== undefined) defaults.cwd = cwd;
  if (workspace !== undefined) defaults.workspace = workspace as WorkspaceMode;
  if (given.has('--keep-worktrees')) defaults.keepWorkspace = true;
  const passEnv = list(given, '--pass-env');
  if (passEnv) defaults.passEnv = passEnv;
  if (given.has('--max-tokens')) defaults.maxTokens = whole(given, '--max-tokens', 0, 1, Number.MAX_SAFE_INTEGER);
  const cost = given.get('--max-cost-usd');
  if (cost !== undefined) {
    if (!/^(\d+(\.\d*)?|\.\d+)$/.test(cost) || Number(cost) <= 0)
      throw new UsageError(`--max-cost-usd must be a positive number of dollars; got ${JSON.stringify(cost)}`);
    defaults.maxCostUsd = Number(cost);
  }
  return defaults;
}
