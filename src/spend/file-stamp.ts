import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * What says a store file changed: the size and modification time of the file and of its companions
 * in the same folder, the files named like it up to its first dot (a SQLite database's `-wal` log,
 * Cline's `<id>.messages.json` beside `<id>.json`), which its reader reads too. Null when the file
 * is gone. `folders` keeps each folder's listing for the run (a store folder holds many files).
 */
export async function fileStamp(file: string, folders: Map<string, Promise<string[]>>): Promise<string | null> {
  const folder = dirname(file);
  const name = basename(file);
  const stem = name.slice(0, name.indexOf('.') > 0 ? name.indexOf('.') : name.length);
  let names = folders.get(folder);
  if (names === undefined) {
    names = readdir(folder).catch(() => []);
    folders.set(folder, names);
  }
  const companions = (await names).filter((other) => other === name || other.startsWith(`${stem}.`)).sort();
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
