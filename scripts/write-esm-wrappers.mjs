// Writes the ESM entry points: thin wrappers that re-export the CommonJS build.
// One copy of each class (and of its decorator metadata) whether a consumer uses
// `import` or `require`: no dual-package hazard, and no second compile of src/.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const ENTRIES = ['index', 'nest/index'];
const root = join(dirname(new URL(import.meta.url).pathname), '..');

for (const entry of ENTRIES) {
  const file = join(root, 'dist/esm', `${entry}.mjs`);
  const target = relative(dirname(file), join(root, 'dist/cjs', `${entry}.js`));
  const line = `export * from './${target}';\n`.replace('./../', '../');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, line);
  writeFileSync(file.replace(/\.mjs$/, '.d.mts'), line);
}
