import type { HistoryCli } from '../clis';
import type { CliSessionRef } from '../history';
import { cliStoreFiles, readStoreFile } from '../history/list-sessions';
import { mapInOrder } from './map-in-order';
import { fileStamp, type FolderListings } from './file-stamp';
import type { PriceTable } from './price-table';
import { sessionUsage, tallySession, type SessionTally, type SessionUsage } from './session-usage';
import { loadUsageCache, saveUsageCache, type CachedFile } from './usage-cache';

/** How many store files are read at the same time. */
const READS_AT_ONCE = 8;

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
  /** Reads a store file's sessions (default: the history reader's `readStoreFile`). Tests count the calls. */
  readonly readFile?: StoreFileReader;
}

/** Reads every session of one store file, its ref and tally from one reading. */
export type StoreFileReader = (provider: HistoryCli, file: string) => Promise<{ ref: CliSessionRef; read: SessionTally }[]>;

/** The history reader's: each session's events tallied as they are decoded. */
export const readStoreUsage: StoreFileReader = (provider, file) => readStoreFile(provider, file, tallySession);

/**
 * Every stored session of the CLIs (or of one), with its turns and usage: a store file whose size
 * and modification time (and its companions': `fileStamp`) are what the cache noted is not read
 * again; the others are read with the history reader (once each: listed and tallied in one reading),
 * and the cache is written back when one was.
 */
export async function collectSessions(options: CollectOptions): Promise<SessionUsage[]> {
  const { prices, cacheFile } = options;
  const readFile = options.readFile ?? readStoreUsage;
  const cache = cacheFile === null ? { files: new Map<string, CachedFile>() } : await loadUsageCache(cacheFile, prices.version);
  const folders: FolderListings = new Map();
  const seen = new Set<string>();
  let changed = false;
  const files = await cliStoreFiles({ provider: options.provider, env: options.env });
  // Each file's sessions, in the files' order; several files are read at once: one at a time, the
  // process waited on the disk a third of the time (measured over 100 MB of Claude Code and Codex history).
  const sessions = await mapInOrder(files, READS_AT_ONCE, async ({ provider, file }): Promise<readonly SessionUsage[]> => {
    seen.add(file);
    const stamp = await fileStamp(file, folders);
    if (stamp === null) return [];
    const cached = cache.files.get(file);
    if (cached !== undefined && cached.stamp === stamp && cached.provider === provider) return cached.sessions;
    const fresh = (await readFile(provider, file)).map(({ ref, read }) => sessionUsage(ref, read, prices));
    cache.files.set(file, { provider, stamp, sessions: fresh });
    changed = true;
    return fresh;
  });
  const found = sessions.flat();
  // A file of a CLI read this time that is gone leaves the cache; other CLIs' entries stay.
  for (const [file, cached] of cache.files)
    if (!seen.has(file) && (options.provider === undefined || cached.provider === options.provider)) {
      cache.files.delete(file);
      changed = true;
    }
  if (changed && cacheFile !== null) await saveUsageCache(cacheFile, prices.version, cache).catch(() => undefined);
  return found;
}
