import type { HistoryCli } from '../clis';
import type { AnyEvent } from '../events/event';
import { readCliSession, type CliSessionRef } from '../history';
import { cliStoreFiles, sessionsInFile } from '../history/list-sessions';
import { fileStamp } from './file-stamp';
import type { PriceTable } from './price-table';
import { sessionUsage, type SessionUsage } from './session-usage';
import { loadUsageCache, saveUsageCache, type CachedFile } from './usage-cache';

/** Options of `collectSessions`. */
export interface CollectOptions {
  /** Where the stores are (`HOME`, each CLI's override variable); default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
  /** Only this CLI's sessions. */
  readonly provider?: HistoryCli;
  /** Prices for the usage no CLI priced. */
  readonly prices: PriceTable;
  /** The cache's file; null: no cache (every file read, nothing written). */
  readonly cacheFile: string | null;
  /** The sessions of a store file (default: the history reader's). Tests count the calls. */
  readonly sessions?: (provider: HistoryCli, file: string) => Promise<CliSessionRef[]>;
  /** A session's events (default: `readCliSession`). Tests count the calls. */
  readonly read?: (ref: CliSessionRef) => AsyncIterable<AnyEvent>;
}

/**
 * Every stored session of the CLIs (or of one), with its turns and usage: a store file whose size
 * and modification time (and its companions': `fileStamp`) are what the cache noted is not read
 * again; the others are read with the history reader, and the cache is written back when one was.
 */
export async function collectSessions(options: CollectOptions): Promise<SessionUsage[]> {
  const { prices, cacheFile } = options;
  const sessions = options.sessions ?? sessionsInFile;
  const read = options.read ?? ((ref: CliSessionRef) => readCliSession(ref));
  const cache = cacheFile === null ? { files: new Map<string, CachedFile>() } : await loadUsageCache(cacheFile, prices.version);
  const folders = new Map<string, Promise<string[]>>();
  const found: SessionUsage[] = [];
  const seen = new Set<string>();
  let changed = false;
  for (const { provider, file } of await cliStoreFiles({ provider: options.provider, env: options.env })) {
    seen.add(file);
    const stamp = await fileStamp(file, folders);
    if (stamp === null) continue;
    const cached = cache.files.get(file);
    if (cached !== undefined && cached.stamp === stamp && cached.provider === provider) {
      found.push(...cached.sessions);
      continue;
    }
    const fresh: SessionUsage[] = [];
    for (const ref of await sessions(provider, file)) {
      try {
        fresh.push(await sessionUsage(ref, read(ref), prices));
      } catch {
        // a session that cannot be read (gone since it was listed) counts nothing
      }
    }
    cache.files.set(file, { provider, stamp, sessions: fresh });
    changed = true;
    found.push(...fresh);
  }
  // A file of a CLI read this time that is gone leaves the cache; other CLIs' entries stay.
  for (const [file, cached] of cache.files)
    if (!seen.has(file) && (options.provider === undefined || cached.provider === options.provider)) {
      cache.files.delete(file);
      changed = true;
    }
  if (changed && cacheFile !== null) await saveUsageCache(cacheFile, prices.version, cache).catch(() => undefined);
  return found;
}
