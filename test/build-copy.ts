import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
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

/**
 * Compiles src/ with tsc into a fresh folder inside node_modules/.cache (so that the compiled
 * code resolves this repository's dependencies) and answers it, with a cleanup: tests that run
 * the CLI as a child never race other tests over the package's own dist/.
 */
export function privateBuild(prefix: string): { dir: string; remove(): void } {
  mkdirSync(join(repoRoot, 'node_modules/.cache'), { recursive: true });
  const dir = mkdtempSync(join(repoRoot, `node_modules/.cache/${prefix}-`));
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', dir], {
    cwd: repoRoot,
    stdio: 'pipe',
  });
  execFileSync(process.execPath, ['scripts/copy-assets.mjs', dir], { cwd: repoRoot, stdio: 'pipe' });
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Registers a private build for the spec file's tests (built before them, removed after); `dir` is set once built. */
export function usePrivateBuild(prefix: string): { readonly dir: string } {
  const state = { dir: '' };
  let build: ReturnType<typeof privateBuild> | undefined;
  beforeAll(() => {
    build = privateBuild(prefix);
    state.dir = build.dir;
  }, 120_000);
  afterAll(() => build?.remove());
  return state;
}
