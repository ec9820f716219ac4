import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { isEntryId } from './entry-id';
import type { JournaledRun, RunJournal } from './memory-store';
import { isRunId } from './owned-run';
import { readStoredRun, type StoredRun } from './run-record';

/*
 * The data directory of `serve` without Redis: what the in-process store holds, on disk, so that a
 * restart loses nothing that was sent. Other users' prompts and agents' output: the directories are
 * 0700 and the files 0600. Writes are plain appends to open files (no fsync): a process that dies
 * loses nothing written (the kernel has it); a machine that loses power may lose the last ones.
 *
 *   index.jsonl        every record as written, one per line (the last line of an id wins);
 *                      rewritten with only the live ones when it opens, when a run is removed,
 *                      and when it grows past them
 *   runs/<id>.jsonl    the run's events, `{"id": <entry id>, "event": <the event's JSON as sent>}`
 *   runs/<id>.diff     the patch of what the run changed in its worktree
 *   lock               the pid of the process that has it open: one process at a time
 */

/**
 * Where `serve` keeps its runs by default: `$XDG_DATA_HOME/cli-subprocess-core`
 * (`~/.local/share/cli-subprocess-core` without it).
 */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'cli-subprocess-core');
}

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;
/** Past this many lines, and four times the live records, the index is rewritten. */
const COMPACT_AT_LINES = 1000;

/** A run store's journal in `dir` (made 0700 when missing; a directory that exists is made 0700 too). */
export class FileRunJournal implements RunJournal {
  private readonly runsDir: string;
  private readonly indexPath: string;
  private readonly lockPath: string;
  /** Each live record's last line, by id: what a rewritten index holds. */
  private readonly records = new Map<string, string>();
  /** The open events file of each run that has not ended. */
  private readonly open = new Map<string, number>();
  private index: number | null = null;
  private indexLines = 0;

  constructor(readonly dir: string) {
    this.runsDir = join(dir, 'runs');
    this.indexPath = join(dir, 'index.jsonl');
    this.lockPath = join(dir, 'lock');
    for (const path of [dir, this.runsDir]) {
      mkdirSync(path, { recursive: true, mode: DIR_MODE });
      chmodSync(path, DIR_MODE);
    }
    this.lock();
  }

  load(keep: (record: StoredRun) => boolean): JournaledRun[] {
    const records = new Map<string, StoredRun>();
    const text = existsSync(this.indexPath) ? readFileSync(this.indexPath, 'utf8') : '';
    for (const line of text.split('\n')) {
      const id = lineId(line);
      const record = id !== null && isRunId(id) ? readStoredRun(id, line) : null;
      if (record) records.set(record.id, record);
    }
    for (const record of records.values()) if (keep(record)) this.records.set(record.id, JSON.stringify(record));
    this.rewriteIndex();
    // The files of a run not kept (expired), or of no record (deleted as the process died), are removed.
    for (const name of readdirSync(this.runsDir)) {
      if (!this.records.has(name.replace(/\.(jsonl|diff)$/, ''))) rmSync(join(this.runsDir, name), { force: true });
    }
    return [...this.records.keys()].map((id) => ({
      record: records.get(id) as StoredRun,
      entries: this.readEntries(id),
      diff: this.readDiff(id),
    }));
  }

  saveRecord(record: StoredRun): void {
    const line = JSON.stringify(record);
    this.records.set(record.id, line);
    this.appendIndex(line);
    // An ended run is written to no more.
    if (record.endedAt !== null) this.closeEvents(record.id);
  }

  appendEntry(runId: string, id: string, json: string): void {
    let fd = this.open.get(runId);
    if (fd === undefined) {
      fd = openSync(this.eventsPath(runId), 'a', FILE_MODE);
      this.open.set(runId, fd);
    }
    writeSync(fd, `{"id":${JSON.stringify(id)},"event":${json}}\n`);
  }

  saveDiff(runId: string, patch: string): void {
    writeFileSync(this.diffPath(runId), patch, { mode: FILE_MODE });
  }

  remove(runId: string): void {
    this.closeEvents(runId);
    rmSync(this.eventsPath(runId), { force: true });
    rmSync(this.diffPath(runId), { force: true });
    // Its line goes from the index at once: nothing of a deleted or expired run stays on disk.
    if (this.records.delete(runId)) this.rewriteIndex();
  }

  close(): void {
    for (const runId of [...this.open.keys()]) this.closeEvents(runId);
    if (this.index !== null) closeSync(this.index);
    this.index = null;
    rmSync(this.lockPath, { force: true });
  }

  /** Takes the directory: refused while another live process has it (it would fail that one's runs as lost). */
  private lock(): void {
    const holder = Number(existsSync(this.lockPath) ? readFileSync(this.lockPath, 'utf8').trim() : NaN);
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder)) {
      throw new Error(`the data directory ${this.dir} is in use by process ${holder}: one server at a time`);
    }
    writeFileSync(this.lockPath, `${process.pid}\n`, { mode: FILE_MODE });
  }

  private appendIndex(line: string): void {
    this.index ??= openSync(this.indexPath, 'a', FILE_MODE);
    writeSync(this.index, `${line}\n`);
    if (++this.indexLines > COMPACT_AT_LINES && this.indexLines > 4 * this.records.size) this.rewriteIndex();
  }

  /** Writes the live records alone to a new index, which replaces the old one at once (rename). */
  private rewriteIndex(): void {
    if (this.index !== null) closeSync(this.index);
    const next = `${this.indexPath}.new`;
    writeFileSync(next, [...this.records.values()].map((line) => `${line}\n`).join(''), { mode: FILE_MODE });
    renameSync(next, this.indexPath);
    this.index = openSync(this.indexPath, 'a', FILE_MODE);
    this.indexLines = this.records.size;
  }

  /** The run's entries as written; a line cut short (the process died writing it) is left out. */
  private readEntries(runId: string): { id: string; json: string }[] {
    const path = this.eventsPath(runId);
    if (!existsSync(path)) return [];
    const entries: { id: string; json: string }[] = [];
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      const id = lineId(line);
      const prefix = `{"id":${JSON.stringify(id)},"event":`;
      // The event's JSON is the text between the prefix and the last brace, as it was sent.
      if (id !== null && isEntryId(id) && line.startsWith(prefix)) entries.push({ id, json: line.slice(prefix.length, -1) });
    }
    return entries;
  }

  private readDiff(runId: string): string | null {
    const path = this.diffPath(runId);
    return existsSync(path) ? readFileSync(path, 'utf8') : null;
  }

  private closeEvents(runId: string): void {
    const fd = this.open.get(runId);
    if (fd === undefined) return;
    closeSync(fd);
    this.open.delete(runId);
  }

  private eventsPath(runId: string): string {
    return join(this.runsDir, `${checkedId(runId)}.jsonl`);
  }

  private diffPath(runId: string): string {
    return join(this.runsDir, `${checkedId(runId)}.diff`);
  }
}

/** The `id` of a JSON line, or null for a line that is not a whole JSON object with a string id. */
function lineId(line: string): string | null {
  if (line === '') return null;
  try {
    const value: unknown = JSON.parse(line);
    const id = typeof value === 'object' && value !== null ? (value as { id?: unknown }).id : undefined;
    return typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}

/** A run id fit for a file name (the store's UUIDs): anything else is a bug, never a path. */
function checkedId(runId: string): string {
  if (!isRunId(runId)) throw new TypeError(`not a run id: ${JSON.stringify(runId)}`);
  return runId;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it lives, as another user's.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
