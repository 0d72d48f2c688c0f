/** Git worktrees through the git CLI: listed from `git worktree list --porcelain`, added, removed and pruned. */
import { rmdirSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import { git, gitRun, gitSucceeds, val } from './git.js';
import { branchExists } from './repo.js';

export interface Worktree {
  /** Absolute path, as git records it. */
  path: string;
  /** The branch checked out (without refs/heads/); undefined when detached or bare. */
  branch?: string;
  /** The main checkout: the first worktree git lists. */
  main: boolean;
  /** Its folder is gone: `git worktree prune` would remove the record. */
  prunable: boolean;
}

/** Every worktree of the repository that `root` belongs to, the main checkout first. */
export function listWorktrees(root: string): Worktree[] {
  const out = git(root, ['worktree', 'list', '--porcelain']);
  const trees: Worktree[] = [];
  for (const block of out.split(/\n\n+/)) {
    const lines = block.split('\n').filter(Boolean);
    const path = lines.find((l) => l.startsWith('worktree '))?.slice('worktree '.length);
    if (!path) continue;
    const branchRef = lines.find((l) => l.startsWith('branch '))?.slice('branch '.length);
    trees.push({
      path,
      ...(branchRef ? { branch: branchRef.replace(/^refs\/heads\//, '') } : {}),
      main: trees.length === 0,
      prunable: lines.some((l) => l === 'prunable' || l.startsWith('prunable ')),
    });
  }
  return trees;
}

/** The default branch: `origin/HEAD`'s target (here, else the remote's), else `main` or `master`; `ref` is the full
 * ref, so a name from the repository never reaches git as a bare word. */
export function defaultBranch(root: string): { name: string; ref: string } | undefined {
  const origin = gitRun(root, ['symbolic-ref', '--quiet', 'refs/remotes/origin/HEAD']);
  const prefix = 'refs/remotes/origin/';
  if (origin.ok && origin.out.startsWith(prefix) && origin.out.length > prefix.length) {
    const name = origin.out.slice(prefix.length);
    if (branchExists(root, name)) return { name, ref: `refs/heads/${name}` };
    if (gitSucceeds(root, ['rev-parse', '--verify', '--quiet', val(`${origin.out}^{commit}`, 'the default branch')]))
      return { name: `origin/${name}`, ref: origin.out };
  }
  const local = ['main', 'master'].find((b) => branchExists(root, b));
  return local ? { name: local, ref: `refs/heads/${local}` } : undefined;
}

/** `git worktree add`: a new checkout of `branch` at `path`, the branch created from `create.base` if asked. */
export function addWorktree(root: string, path: string, branch: string, create: { base: string } | undefined): void {
  // Values after `--`, but the new branch's name follows -b (no `--` for it): refused when it begins with '-'.
  git(root, [
    'worktree',
    'add',
    ...(create ? ['-b', val(branch, 'the branch', 'user')] : []),
    '--',
    val(path, 'the folder'),
    create ? val(create.base, 'the base', 'user') : val(branch, 'the branch', 'user'),
  ]);
}

/** `git worktree remove [--force --force] <path>` (twice forced: also a locked one). */
export function removeWorktree(root: string, path: string, force: boolean): void {
  git(root, ['worktree', 'remove', ...(force ? ['--force', '--force'] : []), '--', val(path, 'the folder')]);
}

/** `git worktree prune`: drops the records of worktrees whose folders are gone. */
export function pruneWorktrees(root: string): void {
  git(root, ['worktree', 'prune']);
}

/** The changes git has not committed in a worktree (porcelain lines; untracked files included, ignored not). */
export function uncommittedIn(path: string): string[] {
  return git(path, ['status', '--porcelain', '--untracked-files=all']).split('\n').filter(Boolean);
}

/** Removes `path` and its parents while they are empty folders, up to (not including) `stop`. */
export function removeEmptyFolders(path: string, stop: string): void {
  const end = resolve(stop);
  for (let dir = resolve(path); dir.startsWith(end + sep); dir = dirname(dir)) {
    try {
      rmdirSync(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return; // not empty (or not ours to remove)
    }
  }
}
