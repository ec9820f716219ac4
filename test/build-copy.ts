import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const repoRoot = join(__dirname, '..');

/** Generated or installed: never copied. */
const SKIP = new Set(['node_modules', 'dist', 'docs', 'coverage', '.git']);

/**
 * Copies the project to a temp folder (node_modules linked, not copied) and runs
 * `npm run build` there: package tests never race other tests over the repo's dist/.
 */
export function buildCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cli-subprocess-core-pkg-'));
  for (const name of readdirSync(repoRoot)) {
    if (SKIP.has(name) || name.endsWith('.tgz')) continue;
    cpSync(join(repoRoot, name), join(dir, name), { recursive: true });
  }
  symlinkSync(join(repoRoot, 'node_modules'), join(dir, 'node_modules'), 'dir');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: dir, stdio: 'pipe' });
  return dir;
}

/** Runs `node` with a script in `cwd` and returns what it printed, parsed as JSON. */
export function runNode(cwd: string, script: string, esm = false): unknown {
  const args = esm ? ['--input-type=module', '-e', script] : ['-e', script];
  return JSON.parse(execFileSync(process.execPath, args, { cwd, encoding: 'utf8' }));
}
