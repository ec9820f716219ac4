import { stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { HISTORY_CLI_IDS, historySetup, type HistoryCli, type HistorySetup } from '../clis';
import type { AnyEvent } from '../events/event';
import { emptySummary, type StoredSummary } from '../stores/stored-format';
import { parseLine } from '../wire/json-line';
import { readSession } from './read-session';
import type { CliSessionRef, ListCliSessionsOptions } from './session-ref';
import { storedLines, storeFiles } from './store-files';
import { summarizeLine } from './summarize-line';

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
  let modified: Date;
  try {
    [summary, modified] = await Promise.all([summarizeFile(provider, path), stat(file).then((info) => info.mtime)]);
  } catch {
    return null;
  }
  return refOf(provider, path, summary, modified);
}

/** A session's ref from its summary (null: its lines say nothing of a session); `modified`: its file's time, for what they do not say. */
function refOf(provider: HistoryCli, path: string, summary: StoredSummary, modified: Date): CliSessionRef | null {
  if (summary.id === null && summary.started_at === null) return null;
  return {
    provider,
    ...summary,
    id: summary.id ?? basename(path, '.jsonl'),
    started_at: summary.started_at ?? modified.toISOString(),
    updated_at: summary.updated_at ?? modified.toISOString(),
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
  for await (const line of storedLines(setup, path)) summarizeLine(setup.format, parseLine(line), summary);
  return summary;
}

/**
 * Every session a store file holds, each read once: its events go to `read` as they are decoded,
 * and its ref comes from the same lines (`listCliSessions` and `readCliSession` would read a file
 * twice). A session that cannot be read, or whose lines say nothing of one, is left out, as the list
 * leaves it out.
 */
export async function readStoreFile<T>(
  provider: HistoryCli,
  file: string,
  read: (events: AsyncIterable<AnyEvent>) => Promise<T>,
): Promise<{ ref: CliSessionRef; read: T }[]> {
  const setup = historySetup(provider);
  const found: { ref: CliSessionRef; read: T }[] = [];
  let modified: Date;
  try {
    modified = (await stat(file)).mtime;
  } catch {
    return found;
  }
  for (const path of setup.sessions ? await sessionsOf(setup.sessions, file) : [file]) {
    try {
      const summary = emptySummary();
      const value = await read(readSession({ provider, path }, {}, summary));
      const ref = refOf(provider, path, summary, modified);
      if (ref !== null) found.push({ ref, read: value });
    } catch {
      // gone or unreadable since it was found: nothing to count
    }
  }
  return found;
}
