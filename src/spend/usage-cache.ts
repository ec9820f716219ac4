import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { HistoryCli } from '../clis';
import type { SessionUsage } from './session-usage';

/** Bumped when what is cached changes shape or meaning: an older cache is then read as empty. */
const FORMAT = 3;

/** One store file's sessions, as read when the file had `stamp`. */
export interface CachedFile {
  readonly provider: HistoryCli;
  readonly stamp: string;
  readonly sessions: readonly SessionUsage[];
}

/** The cache of read store files, by path: the sessions of an unchanged file are not read again. */
export interface UsageCache {
  readonly files: Map<string, CachedFile>;
}

/** The cache's file by default: `$XDG_CACHE_HOME/cli-subprocess-core/usage.json`, or `~/.cache/…`. */
export function defaultCacheFile(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache'), 'cli-subprocess-core', 'usage.json');
}

/**
 * The cache kept in `file` for `prices` (computed prices are cached: another table starts afresh);
 * empty when there is none, or it cannot be read, or it was written by another version.
 */
export async function loadUsageCache(file: string, prices: string): Promise<UsageCache> {
  try {
    const saved = JSON.parse(await readFile(file, 'utf8')) as { format?: unknown; prices?: unknown; files?: Record<string, CachedFile> };
    if (saved.format === FORMAT && saved.prices === prices && saved.files && typeof saved.files === 'object')
      return { files: new Map(Object.entries(saved.files)) };
  } catch {
    // none yet, or unreadable: read the stores again
  }
  return { files: new Map() };
}

/** Writes the cache to `file` whole (a new file renamed over the old: a reader never sees half of one). */
export async function saveUsageCache(file: string, prices: string, cache: UsageCache): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, JSON.stringify({ format: FORMAT, prices, files: Object.fromEntries(cache.files) }), { mode: 0o600 });
  await rename(temporary, file);
}
