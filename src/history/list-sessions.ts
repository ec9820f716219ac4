import { stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { HISTORY_CLI_IDS, historySetup, type HistoryCli, type HistorySetup } from '../clis';
import { obj } from '../providers/drafts';
import { emptySummary, type StoredSummary } from '../stores/stored-format';
import type { CliSessionRef, ListCliSessionsOptions } from './session-ref';
import { storedLines, storeFiles } from './store-files';

/**
 * The sessions the CLIs stored on disk themselves (Claude Code's transcripts, Codex's rollouts with
 * `codex exec` runs among them, Gemini CLI's and Qwen Code's chats, Copilot CLI's session events),
 * newest first: each CLI's store as its registry file places it
 * (honouring the CLI's override variable and `HOME` of `options.env`). Reads, never writes; a store
 * that is missing lists nothing, and a file that cannot be read, or whose lines say nothing, is left
 * out; an odd line is skipped. Never throws for what it finds on disk.
 */
export async function listCliSessions(options: ListCliSessionsOptions = {}): Promise<CliSessionRef[]> {
  const cwd = options.cwd === undefined ? null : resolve(options.cwd);
  const refs: CliSessionRef[] = [];
  for (const { provider, file } of await cliStoreFiles(options)) {
    for (const ref of await sessionsInFile(provider, file)) {
      if (cwd === null || (ref.cwd !== null && resolve(ref.cwd) === cwd)) refs.push(ref);
    }
  }
  return refs.sort((a, b) => (b.updated_at ?? '').localeCompare(a.updated_at ?? ''));
}

/** One file of a CLI's store: a session's file, or a database of many. */
export interface CliStoreFile {
  readonly provider: HistoryCli;
  readonly file: string;
}

/** The files of every CLI's store (or of `options.provider`'s), as `listCliSessions` finds them, unread. */
export async function cliStoreFiles(options: Pick<ListCliSessionsOptions, 'provider' | 'env'> = {}): Promise<CliStoreFile[]> {
  const env = options.env ?? process.env;
  const providers = options.provider === undefined ? HISTORY_CLI_IDS : HISTORY_CLI_IDS.filter((id) => id === options.provider);
  const files: CliStoreFile[] = [];
  for (const provider of providers) {
    const setup = historySetup(provider);
    for (const file of await storeFiles(setup.root(env), setup.depth, setup.file)) files.push({ provider, file });
  }
  return files;
}

/** The sessions one store file holds, as `listCliSessions` lists them (unsorted; none when it cannot be read). */
export async function sessionsInFile(provider: HistoryCli, file: string): Promise<CliSessionRef[]> {
  const setup = historySetup(provider);
  const refs: CliSessionRef[] = [];
  for (const path of setup.sessions ? await sessionsOf(setup.sessions, file) : [file]) {
    const ref = await sessionRef(provider, path, file);
    if (ref !== null) refs.push(ref);
  }
  return refs;
}

/** The sessions a store file holds (none when it cannot be read). */
async function sessionsOf(sessions: NonNullable<HistorySetup['sessions']>, file: string): Promise<readonly string[]> {
  try {
    return await sessions(file);
  } catch {
    return [];
  }
}

/** One stored session's ref, from all its lines (null: unreadable, or not a session of this CLI); `file` holds it. */
async function sessionRef(provider: HistoryCli, path: string, file: string): Promise<CliSessionRef | null> {
  let summary: StoredSummary;
  let modified: string;
  try {
    [summary, modified] = await Promise.all([summarizeFile(provider, path), stat(file).then((info) => info.mtime.toISOString())]);
  } catch {
    return null;
  }
  if (summary.id === null && summary.started_at === null) return null;
  return {
    provider,
    ...summary,
    id: summary.id ?? basename(path, '.jsonl'),
    started_at: summary.started_at ?? modified,
    updated_at: summary.updated_at ?? modified,
    path,
  };
}

/**
 * Folds every JSON object line of the session into the summary, read line by line as `readCliSession`
 * reads it (`storedLines`); a line that is not one (a truncated last line) is skipped.
 */
async function summarizeFile(provider: HistoryCli, path: string): Promise<StoredSummary> {
  const setup = historySetup(provider);
  const summary = emptySummary();
  for await (const line of storedLines(setup, path)) {
    if (line.trim() === '') continue;
    try {
      const value = obj(JSON.parse(line));
      if (value) setup.format.summarize(value, summary);
    } catch {
      // not JSON, or a line the fold could not read: the other lines still count
    }
  }
  return summary;
}
