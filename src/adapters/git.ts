/** The git CLI, for the few commands that change the repository or ask it about history. */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ExternalToolError } from '../domain/errors.js';

interface RunOptions {
  input?: string;
  env?: Readonly<Record<string, string>>;
}

function run(root: string, args: readonly string[], opts: RunOptions = {}) {
  const result = spawnSync('git', args, {
    cwd: root,
    encoding: 'utf8',
    ...(opts.input !== undefined ? { input: opts.input } : {}),
    ...(opts.env ? { env: { ...process.env, ...opts.env } } : {}),
    maxBuffer: 256 * 1024 * 1024,
  });
  if (result.error) {
    const code = (result.error as NodeJS.ErrnoException).code;
    throw new ExternalToolError('git', code === 'ENOENT' ? 'not found on PATH' : result.error.message, 'install git and make sure it is on PATH');
  }
  return result;
}

export function git(root: string, args: readonly string[], opts: RunOptions = {}): string {
  const result = run(root, args, opts);
  if (result.status !== 0) {
    throw new ExternalToolError('git', `'git ${args.join(' ')}' failed: ${(result.stderr || result.stdout).trim().split('\n').at(-1) ?? ''}`);
  }
  return result.stdout.trim();
}

/** Whether git runs `args` successfully (exit 0); for questions git answers with its exit code. */
export function gitSucceeds(root: string, args: readonly string[]): boolean {
  return run(root, args).status === 0;
}

export function branchHasFile(root: string, branch: string, path: string): boolean {
  return gitSucceeds(root, ['cat-file', '-e', `refs/heads/${branch}:${path}`]);
}

export function isValidBranchName(root: string, branch: string): boolean {
  return gitSucceeds(root, ['check-ref-format', '--branch', branch]);
}

/** Whether `path` (a folder or file) has changes git has not committed, untracked files included. */
export function hasUncommitted(root: string, path: string): boolean {
  return git(root, ['status', '--porcelain', '--untracked-files=all', '--', path]) !== '';
}

/** The commit HEAD points at, or null in a repository without commits. */
export function headCommit(root: string): string | null {
  const result = run(root, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  return result.status === 0 ? result.stdout.trim() : null;
}

/**
 * The tree hash of the working tree without the top-level folder `exclude` (`.sow`): what
 * `git add -A && git write-tree` would give — untracked files included, ignored ones left out —
 * computed in a temporary index, so the user's index is never written. The temporary index starts
 * as a copy of the real one, for its stat cache (only changed files are hashed again) and so that
 * tracked files a .gitignore matches stay in, as they would with `git add -A`. Its mtime is the
 * real index's, so git's check for files changed in the same second as the index still applies.
 * Writes the blobs of new content to the object store, as `git add` does (git gc prunes them).
 */
export function worktreeTree(root: string, exclude: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'sow-tree-'));
  const index = join(dir, 'index');
  const env = { GIT_INDEX_FILE: index };
  try {
    const real = resolve(root, git(root, ['rev-parse', '--git-path', 'index']));
    let seeded = false;
    try {
      const stat = statSync(real);
      copyFileSync(real, index);
      utimesSync(index, stat.atime, new Date(Math.floor(stat.mtimeMs / 1000) * 1000));
      seeded = true;
    } catch {
      // No index yet (a repository without commits): start from an empty one.
    }
    const build = () => {
      git(root, ['rm', '-r', '--cached', '--quiet', '--force', '--ignore-unmatch', '--', exclude], { env });
      git(root, ['add', '--all', '--', '.', `:(exclude)${exclude}`], { env });
      return git(root, ['write-tree'], { env });
    };
    try {
      return build();
    } catch (err) {
      if (!seeded) throw err;
      // An index this git cannot use from another file (e.g. a split index): build from nothing.
      rmSync(index, { force: true });
      return build();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** HEAD's tree without the top-level entry `exclude`; the empty tree in a repository without commits. */
export function headTreeWithout(root: string, exclude: string): string {
  const entries = headCommit(root) === null ? [] : git(root, ['ls-tree', '-z', 'HEAD']).split('\0').filter((e) => e !== '' && e.slice(e.indexOf('\t') + 1) !== exclude);
  return git(root, ['mktree', '-z'], { input: entries.map((e) => `${e}\0`).join('') });
}
