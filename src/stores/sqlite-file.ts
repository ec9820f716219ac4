import { readFile } from 'node:fs/promises';

/*
 * Reading another program's SQLite database without writing a byte: OpenCode and Kilo keep their
 * sessions in one, in WAL mode. Node 20 has no `node:sqlite`, and SQLite itself, even opened
 * read-only, wants to create the `-shm` file of a WAL database whose writer has gone. So the file
 * and its write-ahead log are read into memory, the log's committed frames applied to the pages
 * (what SQLite's own recovery does), and the image opened by sql.js (SQLite compiled to
 * WebAssembly; loaded only here, when a history is read, so importing the library costs nothing
 * more). Measured with OpenCode 1.18.33: after a run its `opencode.db` is one 4 KiB page and every
 * session is still in `opencode.db-wal` (1.2 MB), so the log is not optional.
 */

/** The query side of a sql.js database that is used here. */
export interface SqliteRows {
  /** Every row of a query, as objects keyed by column name. */
  all(sql: string, params?: readonly (string | number | null)[]): Record<string, unknown>[];
}

interface SqlJsStatement {
  bind(values: readonly (string | number | null)[]): boolean;
  step(): boolean;
  getAsObject(): Record<string, unknown>;
  free(): boolean;
}
interface SqlJsDatabase {
  prepare(sql: string): SqlJsStatement;
  close(): void;
}
interface SqlJsStatic {
  Database: new (data: Uint8Array) => SqlJsDatabase;
}

let sqlJs: Promise<SqlJsStatic> | null = null;

/** sql.js, loaded once, on first use. */
function loadSqlJs(): Promise<SqlJsStatic> {
  sqlJs ??= import('sql.js').then((module) => {
    const init = (module as unknown as { default: () => Promise<SqlJsStatic> }).default;
    return init();
  });
  return sqlJs;
}

/**
 * Runs `read` over the database at `path` as it stands with its log's committed transactions,
 * opened in memory (the files are only read). Rejects when the file is not a SQLite database.
 */
export async function readSqlite<T>(path: string, read: (db: SqliteRows) => T): Promise<T> {
  const [image, SQL] = await Promise.all([sqliteImage(path), loadSqlJs()]);
  const db = new SQL.Database(image);
  try {
    return read({
      all(sql, params = []) {
        const statement = db.prepare(sql);
        try {
          statement.bind(params);
          const rows: Record<string, unknown>[] = [];
          while (statement.step()) rows.push(statement.getAsObject());
          return rows;
        } finally {
          statement.free();
        }
      },
    });
  } finally {
    db.close();
  }
}

const WAL_HEADER = 32;
const FRAME_HEADER = 24;

/**
 * The database file with its write-ahead log's committed frames applied (SQLite's WAL format: a
 * 32-byte header with the page size and two salts, then frames of a 24-byte header and a page,
 * each checksummed over all before it; a frame with a database size is a commit). Frames after the
 * last valid commit (a transaction being written, an old log's leftovers) are left out. The image
 * is marked as a rollback-journal database, so that sql.js looks for no log of its own.
 */
export async function sqliteImage(path: string): Promise<Uint8Array> {
  const file = await readFile(path);
  let wal: Buffer | null = null;
  try {
    wal = await readFile(`${path}-wal`);
  } catch {
    // no log: the file is the whole database
  }
  const pages = wal === null ? null : committedFrames(wal);
  if (pages === null || pages.frames.size === 0) return markJournalMode(new Uint8Array(file));
  const image = new Uint8Array(pages.databasePages * pages.pageSize);
  image.set(file.subarray(0, Math.min(file.length, image.length)));
  for (const [page, offset] of pages.frames) {
    if (page <= pages.databasePages) image.set(wal!.subarray(offset, offset + pages.pageSize), (page - 1) * pages.pageSize);
  }
  return markJournalMode(image);
}

/** Each page's last committed frame's offset in the log, the page size and the database's size in pages (null: not a log). */
function committedFrames(wal: Buffer): { frames: Map<number, number>; pageSize: number; databasePages: number } | null {
  if (wal.length < WAL_HEADER) return null;
  const magic = wal.readUInt32BE(0);
  if (magic !== 0x377f0682 && magic !== 0x377f0683) return null;
  const bigEndian = (magic & 1) === 1;
  const pageSize = wal.readUInt32BE(8) === 1 ? 65536 : wal.readUInt32BE(8);
  const salt1 = wal.readUInt32BE(16);
  const salt2 = wal.readUInt32BE(20);
  let sum = checksum(wal, 0, 24, [0, 0], bigEndian);
  if (sum[0] !== wal.readUInt32BE(24) || sum[1] !== wal.readUInt32BE(28)) return null;
  const frames = new Map<number, number>();
  let pending = new Map<number, number>();
  let databasePages = 0;
  for (let at = WAL_HEADER; at + FRAME_HEADER + pageSize <= wal.length; at += FRAME_HEADER + pageSize) {
    if (wal.readUInt32BE(at + 8) !== salt1 || wal.readUInt32BE(at + 12) !== salt2) break;
    sum = checksum(wal, at, 8, sum, bigEndian);
    sum = checksum(wal, at + FRAME_HEADER, pageSize, sum, bigEndian);
    if (sum[0] !== wal.readUInt32BE(at + 16) || sum[1] !== wal.readUInt32BE(at + 20)) break;
    pending.set(wal.readUInt32BE(at), at + FRAME_HEADER);
    const commitSize = wal.readUInt32BE(at + 4);
    if (commitSize !== 0) {
      for (const [page, offset] of pending) frames.set(page, offset);
      pending = new Map();
      databasePages = commitSize;
    }
  }
  return { frames, pageSize, databasePages };
}

/** SQLite's WAL checksum over `length` bytes (a multiple of 8) from `start`, continuing `from`. */
function checksum(data: Buffer, start: number, length: number, from: readonly [number, number], bigEndian: boolean): [number, number] {
  let [s0, s1] = from;
  for (let at = start; at < start + length; at += 8) {
    const x0 = bigEndian ? data.readUInt32BE(at) : data.readUInt32LE(at);
    const x1 = bigEndian ? data.readUInt32BE(at + 4) : data.readUInt32LE(at + 4);
    s0 = (s0 + x0 + s1) >>> 0;
    s1 = (s1 + x1 + s0) >>> 0;
  }
  return [s0, s1];
}

/** Sets the header's read and write versions (bytes 18 and 19) from 2 (WAL) to 1 (rollback journal). */
function markJournalMode(image: Uint8Array): Uint8Array {
  if (image.length >= 100 && image[18] === 2 && image[19] === 2) {
    image[18] = 1;
    image[19] = 1;
  }
  return image;
}
