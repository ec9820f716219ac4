import type { GivenOptions } from './args';
import { milliseconds, nonEmpty } from './run-args';
import type { ServeOptions } from './serve-command';
import { UsageError } from './usage-error';
import { statSync } from 'node:fs';

/** A whole number option within bounds. */
function whole(given: GivenOptions, option: string, fallback: number, min: number, max: number): number {
  const value = given.get(option);
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) throw new UsageError(`${option} must be a whole number from ${min} to ${max}; got ${JSON.stringify(value)}`);
  return Number(value);
}

/** The options of `serve` and `worker`, checked; `--redis` defaults to $REDIS_URL. */
export function serveOptions(command: 'serve' | 'worker', given: GivenOptions, positionals: readonly string[]): ServeOptions {
  if (positionals.length > 0) throw new UsageError(`${command} takes no arguments but options`);
  const redis = nonEmpty(given, '--redis') ?? (process.env.REDIS_URL || undefined);
  if (redis !== undefined && !/^rediss?:\/\//.test(redis)) throw new UsageError(`--redis must be a redis:// URL; got ${JSON.stringify(redis)}`);
  if (command === 'worker' && redis === undefined) throw new UsageError('worker needs --redis <url> (or REDIS_URL): without Redis, serve runs the runs itself');
  const cwd = nonEmpty(given, '--cwd');
  if (cwd !== undefined && !statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`--cwd ${cwd}: no such directory`);
  return {
    redis,
    host: nonEmpty(given, '--host') ?? '127.0.0.1',
    port: whole(given, '--port', 8787, 0, 65_535),
    concurrency: whole(given, '--concurrency', 2, 1, 1000),
    cwd,
    lockMs: milliseconds(given, '--lock'),
    ttlSeconds: given.has('--ttl') ? whole(given, '--ttl', 0, 1, 365 * 86_400) : undefined,
  };
}
