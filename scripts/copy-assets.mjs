// Copies src/'s files that tsc does not emit (the runs page's HTML, CSS and JS, src/scale/page/) to
// the build beside the compiled modules that read them: `node scripts/copy-assets.mjs [outDir]`,
// dist/cjs unless told.
import { cpSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = join(dirname(new URL(import.meta.url).pathname), '..');
const src = join(root, 'src');
const outDir = resolve(root, process.argv[2] ?? 'dist/cjs');

for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || entry.name.endsWith('.ts')) continue;
  const file = join(entry.parentPath ?? entry.path, entry.name);
  cpSync(file, join(outDir, relative(src, file)));
}
