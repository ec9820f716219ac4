import { execFile } from 'node:child_process';
import { lstat, mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { Event } from '../events/event';

const execFileAsync = promisify(execFile);

/**
 * Where a run's CLI works: `worktree` a git worktree of the base repository on a branch of its own,
 * `temp` a new empty directory, `shared` the base directory itself (runs may then edit the same files).
 */
export type WorkspaceMode = 'worktree' | 'temp' | 'shared';

/** Every {@link WorkspaceMode}, in the order they are offered. */
export const WORKSPACE_MODES: readonly WorkspaceMode[] = Object.freeze(['worktree', 'temp', 'shared'] as const);

/** How much a run changed: files touched, lines added and removed (a binary file counts as a file with no lines). */
export interface WorkspaceChanges {
  files: number;
  insertions: number;
  deletions: number;
}

/** The directory made for one run, and how to see and undo what was made. */
export interface Workspace {
  readonly mode: WorkspaceMode;
  /** Where the run's CLI runs. */
  readonly cwd: string;
  /** worktree: the branch made for the run; else null. */
  readonly branch: string | null;
  /**
   * worktree: what the run changed against the commit it started from, new untracked files included
   * (ignored ones not): the stats and the patch (`git diff --binary` text, applies with `git apply`
   * at that commit); null for temp and shared.
   */
  changes(): Promise<{ changes: WorkspaceChanges; patch: string } | null>;
  /**
   * Removes what was made for the run (worktree: the worktree and its branch; temp: the directory);
   * nothing for shared. Idempotent; never throws for something already gone.
   */
  remove(): Promise<void>;
}

/** Options of {@link openWorkspace}. */
export interface OpenWorkspaceOptions {
  /** The run's id (a UUID in practice): only `[A-Za-z0-9-]`, since it becomes a path and a branch name. */
  runId: string;
  mode: WorkspaceMode;
  /** The base directory: the repository (or a directory inside it) for worktree, the directory itself for shared. */
  cwd: string;
  /** Where worktree and temp directories are made; default `<os.tmpdir()>/cli-subprocess-core-worktrees` (worktree), `os.tmpdir()` (temp). */
  root?: string;
}

/** Prefix of the branch made for each run: `cli-subprocess-core/<runId>`. */
const BRANCH_PREFIX = 'cli-subprocess-core/';
const RUN_ID = /^[A-Za-z0-9-]+$/;
// A whole run's binary patch goes through stdout; the default 1 MiB would fail on a real change.
const GIT_MAX_BUFFER = 256 * 1024 * 1024;

/** The default mode for a base directory: 'worktree' when it is inside a git work tree with at least one commit, else 'temp'. */
export async function defaultWorkspaceMode(cwd: string): Promise<WorkspaceMode> {
  return (await findRepository(cwd)) ? 'worktree' : 'temp';
}

/**
 * Makes the workspace of run `runId` in `mode` over the base directory `cwd`, or opens it again when
 * it was made already: its path is the run's own (a session's later turn, a retried run, on another
 * worker of the same machine, continue in the files and the cwd of the earlier ones: Claude Code
 * finds a session to `--resume` only under the cwd it ran in). Throws a TypeError for an unknown mode
 * or a runId that is not `[A-Za-z0-9-]+`, an Error for worktree outside a git repository with a
 * commit.
 */
export async function openWorkspace(options: OpenWorkspaceOptions): Promise<Workspace> {
  checkOptions(options);
  switch (options.mode) {
    case 'worktree':
      return openWorktree(options);
    case 'temp':
      return openTemp(options);
    case 'shared':
      return sharedWorkspace(options.cwd);
  }
}

function checkOptions({ runId, mode }: OpenWorkspaceOptions): void {
  if (!WORKSPACE_MODES.includes(mode))
    throw new TypeError(`Unknown workspace mode ${JSON.stringify(mode)}: expected one of ${WORKSPACE_MODES.join(', ')}`);
  if (typeof runId !== 'string' || !RUN_ID.test(runId))
    throw new TypeError(`Invalid run id ${JSON.stringify(runId)}: only letters, digits and '-' are allowed`);
}

/** The repository holding `cwd`: its top level, `cwd`'s path inside it (`sub/dir/` or ''), its HEAD commit. */
interface Repository {
  toplevel: string;
  prefix: string;
  head: string;
}

/** The repository holding `cwd`, or null when there is none, or it has no commit yet. */
async function findRepository(cwd: string): Promise<Repository | null> {
  try {
    const out = await git(cwd, ['rev-parse', '--show-toplevel', '--show-prefix', '--verify', 'HEAD^{commit}']);
    const [toplevel, prefix, head] = out.split('\n');
    return head ? { toplevel, prefix, head } : null;
  } catch {
    return null;
  }
}

async function openWorktree({ runId, cwd, root }: OpenWorkspaceOptions): Promise<Workspace> {
  const repository = await findRepository(cwd);
  if (!repository) throw new Error(`--workspace worktree needs a git repository with at least one commit: ${cwd}`);
  const { toplevel, prefix } = repository;
  let { head } = repository;
  const parent = root ?? join(tmpdir(), 'cli-subprocess-core-worktrees');
  const dir = join(parent, runId);
  const branch = BRANCH_PREFIX + runId;
  await mkdir(parent, { recursive: true });
  const made = await git(dir, ['rev-parse', '--abbrev-ref', 'HEAD']).then(
    (name) => name.trim() === branch,
    () => false,
  );
  if (made) {
    // Opened again: its base is where its branch left the repository's line (the run may have committed since).
    head = (await git(toplevel, ['merge-base', branch, head]).catch(() => head)).trim();
  } else {
    // From the commit itself (not the branch name): the base stays fixed whatever the base repository does next.
    await git(toplevel, ['worktree', 'add', '--quiet', '-b', branch, dir, head]);
  }
  const workCwd = resolve(dir, prefix);
  // A subdirectory holding only untracked or ignored files is not checked out; the CLI still needs it.
  await mkdir(workCwd, { recursive: true });
  return {
    mode: 'worktree',
    cwd: workCwd,
    branch,
    changes: () => worktreeChanges(dir, head),
    remove: () => removeWorktree(toplevel, dir, branch),
  };
}

/** Stages everything in the worktree's own index, then diffs that index against `base`. */
async function worktreeChanges(dir: string, base: string): Promise<{ changes: WorkspaceChanges; patch: string }> {
  await git(dir, ['add', '-A']);
  // diff-index is the plumbing of `git diff --cached`: it ignores user diff config (noprefix, external
  // diff, textconv, renames), so the patch always applies with `git apply`.
  const patch = await git(dir, ['diff-index', '--cached', '-p', '--binary', base, '--']);
  const numstat = await git(dir, ['diff-index', '--cached', '--numstat', base, '--']);
  return { changes: parseNumstat(numstat), patch };
}

/** Sums `--numstat` lines (`<insertions>\t<deletions>\t<path>`; `-` for both on a binary file). */
function parseNumstat(numstat: string): WorkspaceChanges {
  const changes: WorkspaceChanges = { files: 0, insertions: 0, deletions: 0 };
  for (const line of numstat.split('\n')) {
    if (!line) continue;
    const [insertions, deletions] = line.split('\t');
    changes.files += 1;
    changes.insertions += Number(insertions) || 0;
    changes.deletions += Number(deletions) || 0;
  }
  return changes;
}

/**
 * Each step ignores its own failure (what it removes may be gone already, or the whole repository);
 * what matters is checked at the end: neither the directory nor the branch is left.
 */
async function removeWorktree(toplevel: string, dir: string, branch: string): Promise<void> {
  await git(toplevel, ['worktree', 'remove', '--force', dir]).catch(ignore);
  // When git could not remove it (its repository gone, say), the files still go.
  await rm(dir, { recursive: true, force: true });
  // Before `branch -D`: a worktree registered but gone still holds its branch until pruned.
  await git(toplevel, ['worktree', 'prune']).catch(ignore);
  await git(toplevel, ['branch', '-D', branch]).catch(ignore);
  if (
    await git(toplevel, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`]).then(
      () => true,
      () => false,
    )
  ) {
    throw new Error(`Could not delete the workspace branch ${branch} in ${toplevel}`);
  }
}

async function openTemp({ runId, root }: OpenWorkspaceOptions): Promise<Workspace> {
  const parent = root ?? tmpdir();
  await mkdir(parent, { recursive: true });
  const dir = join(parent, `cli-subprocess-core-${runId}`);
  // 0700: the run's files are no one else's to read. Opened again only when it is a directory of this
  // user's, never a link (the name is the run's id, which others may learn).
  await mkdir(dir, { mode: 0o700 }).catch(async (error: NodeJS.ErrnoException) => {
    const stat = error.code === 'EEXIST' ? await lstat(dir) : null;
    if (!stat?.isDirectory() || (process.getuid && stat.uid !== process.getuid()) || (stat.mode & 0o077) !== 0) throw error;
  });
  return { mode: 'temp', cwd: dir, branch: null, changes: async () => null, remove: () => rm(dir, { recursive: true, force: true }) };
}

function sharedWorkspace(cwd: string): Workspace {
  return { mode: 'shared', cwd, branch: null, changes: async () => null, remove: async () => undefined };
}

/** The workspace a queued job asks for: its mode over its `cwd` (default this process's), by default a worktree in a git repository, else a temp directory. */
export async function openJobWorkspace(
  runId: string,
  job: { readonly cwd?: string; readonly workspace?: WorkspaceMode },
): Promise<Workspace> {
  const base = job.cwd ?? process.cwd();
  return openWorkspace({ runId, mode: job.workspace ?? (await defaultWorkspaceMode(base)), cwd: base });
}

/**
 * Adds what the workspace changed so far to `result`'s `metadata.changes` and hands the patch to
 * `saveDiff` (kept as the run's or session's diff); nothing where the workspace says nothing (temp,
 * shared) or git fails.
 */
export async function noteChanges(
  workspace: Workspace,
  result: Event<'result'>,
  saveDiff: (patch: string) => Promise<void>,
): Promise<void> {
  const changed = await workspace.changes().catch(() => null);
  if (!changed) return;
  await saveDiff(changed.patch);
  result.payload.metadata = { ...result.payload.metadata, changes: { ...changed.changes } };
}

function ignore(): void {}

/** Runs git in `dir` without a shell, a prompt or hooks; resolves with its stdout. */
async function git(dir: string, args: string[]): Promise<string> {
  const { stdout } = await execFileAsync('git', ['-C', dir, '-c', 'core.hooksPath=/dev/null', ...args], {
    encoding: 'utf8',
    env: gitEnv(),
    maxBuffer: GIT_MAX_BUFFER,
    windowsHide: true,
  });
  return stdout;
}

/** The process's environment without what would make git ask for credentials or look at another repository than `-C`'s. */
function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_TERMINAL_PROMPT: '0' };
  // Set when running under a git hook, say: they would override `-C`.
  for (const name of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_COMMON_DIR']) delete env[name];
  return env;
}
