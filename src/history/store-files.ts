import { createReadStream } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { HistorySetup } from '../clis';
import { splitLines } from '../providers/lines';

/**
 * The files named like `file` exactly `depth` folders below `root`, found by reading folders only
 * (another program's store: nothing is created or changed). A folder that is missing or cannot be
 * read holds none.
 */
export async function storeFiles(root: string, depth: number, file: RegExp): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(root, { withFileTypes: true });
  } catch {
    return [];
  }
  if (depth === 0) return entries.filter((entry) => entry.isFile() && file.test(entry.name)).map((entry) => join(root, entry.name));
  const found: string[][] = [];
  for (const entry of entries) if (entry.isDirectory()) found.push(await storeFiles(join(root, entry.name), depth - 1, file));
  return found.flat();
}

/** A stored session's records as lines: the CLI's own reading where its store needs one (`lines`), else the file's lines. */
export function storedLines(setup: HistorySetup, path: string): AsyncIterable<string> {
  return setup.lines?.(path) ?? splitLines(createReadStream(path));
}
