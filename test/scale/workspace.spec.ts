import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultWorkspaceMode, openWorkspace, WORKSPACE_MODES, Workspace } from '../../src/scale/workspace';

jest.setTimeout(30_000);

const made: string[] = [];
const opened: Workspace[] = [];

afterEach(async () => {
  for (const workspace of opened.splice(0)) await workspace.remove();
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'workspace-spec-'));
  made.push(dir);
  return dir;
}

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } });
}

/** A repository of its own with one commit: `tracked.txt` (3 lines), `gone.txt` (1 line), `sub/keep.txt`. */
function makeRepo(): string {
  const dir = tempDir();
  git(dir, 'init', '--quiet');
  git(dir, 'config', 'user.name', 'Workspace Spec');
  git(dir, 'config', 'user.email', 'spec@example.com');
  git(dir, 'config', 'commit.gpgsign', 'false');
  writeFileSync(join(dir, 'tracked.txt'), 'one\ntwo\nthree\n');
  writeFileSync(join(dir, 'gone.txt'), 'bye\n');
  mkdirSync(join(dir, 'sub'));
  writeFileSync(join(dir, 'sub', 'keep.txt'), 'kept\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '--quiet', '-m', 'initial');
  return dir;
}

async function open(options: Parameters<typeof openWorkspace>[0]): Promise<Workspace> {
  const workspace = await openWorkspace(options);
  opened.push(workspace);
  return workspace;
}

function branchExists(repo: string, branch: string): boolean {
  return git(repo, 'branch', '--list', branch).trim() !== '';
}

describe('worktree workspaces', () => {
  it('gives each run its own directory and branch, apart from each other and from the base repository', async () => {
    const repo = makeRepo();
    const root = tempDir();
    const [idA, idB] = [randomUUID(), randomUUID()];
    const a = await open({ runId: idA, mode: 'worktree', cwd: repo, root });
    const b = await open({ runId: idB, mode: 'worktree', cwd: repo, root });

    expect(a.mode).toBe('worktree');
    expect(a.cwd).toBe(join(root, idA));
    expect(b.cwd).toBe(join(root, idB));
    expect(a.branch).toBe(`cli-subprocess-core/${idA}`);
    expect(b.branch).toBe(`cli-subprocess-core/${idB}`);
    expect(branchExists(repo, a.branch!)).toBe(true);
    expect(readFileSync(join(a.cwd, 'tracked.txt'), 'utf8')).toBe('one\ntwo\nthree\n');

    writeFileSync(join(a.cwd, 'only-a.txt'), 'a\n');
    writeFileSync(join(a.cwd, 'tracked.txt'), 'changed by a\n');
    expect(existsSync(join(b.cwd, 'only-a.txt'))).toBe(false);
    expect(readFileSync(join(b.cwd, 'tracked.txt'), 'utf8')).toBe('one\ntwo\nthree\n');
    expect(existsSync(join(repo, 'only-a.txt'))).toBe(false);
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });

  it('defaults its root to <tmpdir>/cli-subprocess-core-worktrees', async () => {
    const runId = randomUUID();
    const workspace = await open({ runId, mode: 'worktree', cwd: makeRepo() });
    expect(workspace.cwd).toBe(join(tmpdir(), 'cli-subprocess-core-worktrees', runId));
  });

  it('reports modified, new and deleted files with a patch that applies at the base commit', async () => {
    const repo = makeRepo();
    const base = git(repo, 'rev-parse', 'HEAD').trim();
    const workspace = await open({ runId: randomUUID(), mode: 'worktree', cwd: repo, root: tempDir() });
    writeFileSync(join(workspace.cwd, 'tracked.txt'), 'one\nTWO\nthree\nfour\n'); // +2 -1
    writeFileSync(join(workspace.cwd, 'new.txt'), 'brand\nnew file\n'); // +2, untracked
    unlinkSync(join(workspace.cwd, 'gone.txt')); // -1

    const result = await workspace.changes();

    expect(result?.changes).toEqual({ files: 3, insertions: 4, deletions: 2 });
    expect(result?.patch).toContain('+brand\n+new file\n');
    const clone = join(tempDir(), 'clone');
    execFileSync('git', ['clone', '--quiet', repo, clone]);
    git(clone, 'checkout', '--quiet', base);
    const patchFile = join(tempDir(), 'run.patch');
    writeFileSync(patchFile, result!.patch);
    git(clone, 'apply', '--check', patchFile);
    git(clone, 'apply', patchFile);
    expect(readFileSync(join(clone, 'new.txt'), 'utf8')).toBe('brand\nnew file\n');
    expect(readFileSync(join(clone, 'tracked.txt'), 'utf8')).toBe('one\nTWO\nthree\nfour\n');
    expect(existsSync(join(clone, 'gone.txt'))).toBe(false);
    // Staging happened in the worktree's own index: the base repository is untouched.
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });

  it('counts a binary file as a file without lines, and its patch carries its bytes', async () => {
    const repo = makeRepo();
    const workspace = await open({ runId: randomUUID(), mode: 'worktree', cwd: repo, root: tempDir() });
    const bytes = Buffer.from([0, 1, 2, 255, 0, 42]);
    writeFileSync(join(workspace.cwd, 'blob.bin'), bytes);

    const result = await workspace.changes();

    expect(result?.changes).toEqual({ files: 1, insertions: 0, deletions: 0 });
    expect(result?.patch).toContain('GIT binary patch');
    const clone = join(tempDir(), 'clone');
    execFileSync('git', ['clone', '--quiet', repo, clone]);
    const patchFile = join(tempDir(), 'run.patch');
    writeFileSync(patchFile, result!.patch);
    git(clone, 'apply', patchFile);
    expect(readFileSync(join(clone, 'blob.bin'))).toEqual(bytes);
  });

  it('compares a run that committed on its branch against the commit it started from', async () => {
    const repo = makeRepo();
    const workspace = await open({ runId: randomUUID(), mode: 'worktree', cwd: repo, root: tempDir() });
    writeFileSync(join(workspace.cwd, 'committed.txt'), 'c\n');
    git(workspace.cwd, 'add', 'committed.txt');
    git(workspace.cwd, 'commit', '--quiet', '-m', 'by the run');
    writeFileSync(join(workspace.cwd, 'uncommitted.txt'), 'u\n');

    const result = await workspace.changes();

    expect(result?.changes).toEqual({ files: 2, insertions: 2, deletions: 0 });
    expect(result?.patch).toContain('+c\n');
    expect(result?.patch).toContain('+u\n');
  });

  it("is opened again for the same run (a session's later turn on another worker): same directory, its files, its base commit", async () => {
    const repo = makeRepo();
    const root = tempDir();
    const runId = randomUUID();
    const first = await open({ runId, mode: 'worktree', cwd: join(repo, 'sub'), root });
    writeFileSync(join(first.cwd, 'keep.txt'), 'kept\nadded by turn one\n');
    git(first.cwd, 'add', 'keep.txt');
    git(first.cwd, 'commit', '--quiet', '-m', 'turn one committed');

    const again = await openWorkspace({ runId, mode: 'worktree', cwd: join(repo, 'sub'), root });
    expect(again.cwd).toBe(first.cwd);
    expect(again.branch).toBe(first.branch);
    expect(readFileSync(join(again.cwd, 'keep.txt'), 'utf8')).toBe('kept\nadded by turn one\n');
    // Against the commit the run started from, not its own commit.
    expect((await again.changes())?.changes).toEqual({ files: 1, insertions: 1, deletions: 0 });
  });

  it('reports no change for an untouched worktree', async () => {
    const workspace = await open({ runId: randomUUID(), mode: 'worktree', cwd: makeRepo(), root: tempDir() });
    expect(await workspace.changes()).toEqual({ changes: { files: 0, insertions: 0, deletions: 0 }, patch: '' });
  });

  it('maps a subdirectory cwd to the same subdirectory in the worktree', async () => {
    const repo = makeRepo();
    const root = tempDir();
    const runId = randomUUID();
    const workspace = await open({ runId, mode: 'worktree', cwd: join(repo, 'sub'), root });
    expect(workspace.cwd).toBe(join(root, runId, 'sub'));
    expect(readFileSync(join(workspace.cwd, 'keep.txt'), 'utf8')).toBe('kept\n');
  });

  it('makes a subdirectory cwd that holds no tracked file', async () => {
    const repo = makeRepo();
    mkdirSync(join(repo, 'untracked-dir'));
    const root = tempDir();
    const runId = randomUUID();
    const workspace = await open({ runId, mode: 'worktree', cwd: join(repo, 'untracked-dir'), root });
    expect(workspace.cwd).toBe(join(root, runId, 'untracked-dir'));
    expect(statSync(workspace.cwd).isDirectory()).toBe(true);
  });

  it('remove() deletes the directory and the branch, and can be called again', async () => {
    const repo = makeRepo();
    const workspace = await openWorkspace({ runId: randomUUID(), mode: 'worktree', cwd: repo, root: tempDir() });
    writeFileSync(join(workspace.cwd, 'dirty.txt'), 'not committed\n');

    await workspace.remove();

    expect(existsSync(workspace.cwd)).toBe(false);
    expect(branchExists(repo, workspace.branch!)).toBe(false);
    expect(git(repo, 'worktree', 'list', '--porcelain')).not.toContain(workspace.cwd);
    await expect(workspace.remove()).resolves.toBeUndefined();
  });

  it('remove() still deletes the branch when the directory was deleted by hand', async () => {
    const repo = makeRepo();
    const workspace = await openWorkspace({ runId: randomUUID(), mode: 'worktree', cwd: repo, root: tempDir() });
    rmSync(workspace.cwd, { recursive: true, force: true });

    await workspace.remove();

    expect(branchExists(repo, workspace.branch!)).toBe(false);
  });

  it('refuses a directory outside any git repository', async () => {
    const dir = tempDir();
    await expect(openWorkspace({ runId: randomUUID(), mode: 'worktree', cwd: dir })).rejects.toThrow(
      new Error(`--workspace worktree needs a git repository with at least one commit: ${dir}`),
    );
  });

  it('refuses a repository without a commit', async () => {
    const dir = tempDir();
    git(dir, 'init', '--quiet');
    await expect(openWorkspace({ runId: randomUUID(), mode: 'worktree', cwd: dir })).rejects.toThrow(
      new Error(`--workspace worktree needs a git repository with at least one commit: ${dir}`),
    );
  });
});

describe('temp workspaces', () => {
  it('is a new empty 0700 directory that remove() deletes', async () => {
    const root = tempDir();
    const workspace = await openWorkspace({ runId: randomUUID(), mode: 'temp', cwd: makeRepo(), root });

    expect(workspace.mode).toBe('temp');
    expect(workspace.branch).toBeNull();
    expect(workspace.cwd.startsWith(root)).toBe(true);
    expect(readdirSync(workspace.cwd)).toEqual([]);
    if (process.platform !== 'win32') expect(statSync(workspace.cwd).mode & 0o777).toBe(0o700);
    expect(await workspace.changes()).toBeNull();

    writeFileSync(join(workspace.cwd, 'left.txt'), 'by the run\n');
    await workspace.remove();
    expect(existsSync(workspace.cwd)).toBe(false);
    await expect(workspace.remove()).resolves.toBeUndefined();
  });
  it('is opened again for the same run with its files, and never through a link put in its place', async () => {
    const root = tempDir();
    const runId = randomUUID();
    const first = await open({ runId, mode: 'temp', cwd: root, root });
    writeFileSync(join(first.cwd, 'turn-one.txt'), 'written\n');
    const again = await openWorkspace({ runId, mode: 'temp', cwd: root, root });
    expect(again.cwd).toBe(first.cwd);
    expect(readdirSync(again.cwd)).toEqual(['turn-one.txt']);

    const other = randomUUID();
    symlinkSync(tempDir(), join(root, `cli-subprocess-core-${other}`));
    await expect(openWorkspace({ runId: other, mode: 'temp', cwd: root, root })).rejects.toThrow(/EEXIST/);
  });
});

describe('shared workspaces', () => {
  it('is the base directory itself, left in place', async () => {
    const dir = tempDir();
    const workspace = await openWorkspace({ runId: randomUUID(), mode: 'shared', cwd: dir });

    expect(workspace).toMatchObject({ mode: 'shared', cwd: dir, branch: null });
    expect(await workspace.changes()).toBeNull();
    await workspace.remove();
    expect(existsSync(dir)).toBe(true);
  });
});

describe('defaultWorkspaceMode', () => {
  it('is worktree inside a git work tree with a commit, temp elsewhere', async () => {
    const repo = makeRepo();
    const empty = tempDir();
    git(empty, 'init', '--quiet');

    expect(await defaultWorkspaceMode(repo)).toBe('worktree');
    expect(await defaultWorkspaceMode(join(repo, 'sub'))).toBe('worktree');
    expect(await defaultWorkspaceMode(tempDir())).toBe('temp');
    expect(await defaultWorkspaceMode(empty)).toBe('temp');
  });
});

describe('openWorkspace options', () => {
  it.each(['../escape', 'a/b', '..', '', 'run id', 'run.1'])('refuses the run id %j', async (runId) => {
    await expect(openWorkspace({ runId, mode: 'temp', cwd: tempDir() })).rejects.toThrow(TypeError);
  });

  it('refuses an unknown mode, naming the known ones', async () => {
    const opening = openWorkspace({ runId: randomUUID(), mode: 'docker' as never, cwd: tempDir() });
    await expect(opening).rejects.toThrow(TypeError);
    await expect(opening).rejects.toThrow(WORKSPACE_MODES.join(', '));
  });
});
