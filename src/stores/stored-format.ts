import type { ProviderProfile } from '../providers/profile';
import type { JsonObject } from '../schema/json';

/*
 * How one CLI stores a session on disk, for `listCliSessions` and `readCliSession` (src/history/):
 * a profile that reads the stored lines into events, and a fold that reads the lines into what a
 * list shows. Each CLI's registry file names its format and where the files are (`history`).
 */

/** What a stored session's lines say about it (null: the lines do not say). */
export interface StoredSummary {
  /** The CLI's session id (what its resume takes). */
  id: string | null;
  /** The folder the session ran in, from the lines (never from the store's folder names). */
  cwd: string | null;
  /** The CLI's title for it, else the first prompt. */
  title: string | null;
  /** ISO 8601 times of its first and last lines. */
  started_at: string | null;
  updated_at: string | null;
  /** The model it last used. */
  model: string | null;
  /** How it was started, where the CLI records that (Codex: `exec` for `codex exec`, else its `source`/`originator`). */
  origin: string | null;
}

/** One CLI's stored-session format. */
export interface StoredFormat {
  /** Reads stored lines into the vocabulary's events, as a live decoder's profile does (the decoder adds `raw` for the rest). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each profile has its own state type
  readonly profile: ProviderProfile<any>;
  /** Folds one parsed line into the summary (called for every JSON object line, in order; never throws on an odd line). */
  summarize(line: JsonObject, into: StoredSummary): void;
}

/** A summary that knows nothing yet. */
export function emptySummary(): StoredSummary {
  return { id: null, cwd: null, title: null, started_at: null, updated_at: null, model: null, origin: null };
}

/** Takes a line's time into the summary's first and last times (ISO text compares in time order when both are UTC `Z` times). */
export function noteTime(time: unknown, into: StoredSummary): void {
  if (typeof time !== 'string' || Number.isNaN(Date.parse(time))) return;
  if (into.started_at === null || time < into.started_at) into.started_at = time;
  if (into.updated_at === null || time > into.updated_at) into.updated_at = time;
}

/** A prompt's text cut to one line of at most 200 characters, for a list. */
export function titleOf(text: string): string | null {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line === '') return null;
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
