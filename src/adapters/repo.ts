/**
 * Finding the repository and its branch by reading the filesystem, like git does, without a
 * subprocess: every command needs this, and node:child_process alone costs milliseconds to load.
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { ExternalToolError, NotAGitRepositoryError, NotInitializedError } from '../domain/errors.js';

const isDir = (p: string) => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};
const exists = (p: string) => {
  try {
    statSync(p);
    return true;
  } catch {
    return false;
  }
};

/** The nearest directory at or above `cwd` that holds `.git` (a folder, or a file for worktrees). */
export function findRepoRoot(cwd: string): string {
  let dir = resolve(cwd);
  for (;;) {
    if (exists(join(dir, '.git'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new NotAGitRepositoryError(cwd);
    dir = parent;
  }
}

/** Like git: works from any subdirectory. The root must already hold `.sow/`. */
export function findWorkspaceRoot(cwd: string): string {
  const root = findRepoRoot(cwd);
  if (!isDir(join(root, '.sow'))) throw new NotInitializedError(root);
  return root;
}

function gitDir(root: string): string {
  const dotGit = join(root, '.git');
  if (isDir(dotGit)) return dotGit;
  const text = readFileSync(dotGit, 'utf8');
  const match = /^gitdir:\s*(.+)$/m.exec(text);
  if (!match) throw new ExternalToolError('git', `cannot read ${dotGit}`);
  const dir = match[1]!.trim();
  return isAbsolute(dir) ? dir : resolve(root, dir);
}

/** The checked-out branch, read from HEAD; undefined when HEAD is detached. */
export function currentBranch(root: string): string | undefined {
  const head = readFileSync(join(gitDir(root), 'HEAD'), 'utf8').trim();
  const match = /^ref:\s*refs\/heads\/(.+)$/.exec(head);
  return match?.[1];
}

