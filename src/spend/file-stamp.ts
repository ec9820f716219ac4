import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** A folder's file names by stem (the name up to its first dot), listed once per run. */
export type FolderListings = Map<string, Promise<Map<string, string[]>>>;

/**
 * What says a store file changed: the size and modification time of the file and of its companions
 * in the same folder, the files named like it up to its first dot (a SQLite database's `-wal` log,
 * Cline's `<id>.messages.json` beside `<id>.json`), which its reader reads too. Null when the file
 * is gone. `folders` keeps each folder's listing for the run (a store folder holds many files).
 */
export async function fileStamp(file: string, folders: FolderListings): Promise<string | null> {
  const folder = dirname(file);
  const name = basename(file);
  let listing = folders.get(folder);
  if (listing === undefined) {
    listing = readdir(folder).then(byStem, () => new Map<string, string[]>());
    folders.set(folder, listing);
  }
  const companions = (await listing).get(stemOf(name)) ?? [];
  const parts: string[] = [];
  for (const other of companions) {
    try {
      const info = await stat(join(folder, other));
      if (info.isFile()) parts.push(`${other}:${info.size}:${info.mtimeMs}`);
    } catch {
      if (other === name) return null;
    }
  }
  return parts.some((part) => part.startsWith(`${name}:`)) ? parts.join('|') : null;
}

const stemOf = (name: string) => (name.indexOf('.') > 0 ? name.slice(0, name.indexOf('.')) : name);

function byStem(names: string[]): Map<string, string[]> {
  const stems = new Map<string, string[]>();
  for (const name of names.sort()) {
    const stem = stemOf(name);
    const same = stems.get(stem);
    if (same) same.push(name);
    else stems.set(stem, [name]);
  }
  return stems;
}
