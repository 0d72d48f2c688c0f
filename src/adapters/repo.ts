/** The repository and its branch read from the filesystem, as git does: every command asks, and a subprocess costs. */
import { existsSync, lstatSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import {
  errorClass,
  ExternalToolError,
  NotAGitRepositoryError,
  NotInitializedError,
  SowError,
} from '../domain/errors.js';
import { existingRealFolder, pathWithin } from './confine.js';
import { quietly } from './io-errors.js';
import { branchesWithFile } from './git.js';

const isDir = (p: string) => quietly(() => statSync(p).isDirectory()) === true;

const realOrSelf = (p: string) => quietly(() => realpathSync.native(p)) ?? resolve(p);

/** The nearest directory at or above `cwd` that holds `.git` (a folder, or a file for worktrees). */
export function findRepoRoot(cwd: string): string {
  // A folder that does not exist is reported below as not in a repository.
  let dir = realOrSelf(cwd);
  for (;;) {
    if (existsSync(join(dir, '.git'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new NotAGitRepositoryError(cwd);
    dir = parent;
  }
}

/** The repository root, from any subdirectory, if it holds an initialised `.sow/` (one with `.sow/.version`). */
export function findWorkspaceRoot(cwd: string): string {
  const root = findRepoRoot(cwd);
  // `.sow` must be a real folder of this repository: a link (which a clone can carry) is refused.
  if (existingRealFolder({ base: root, name: 'the repository' }, '.sow') === undefined) {
    // sow ran in this checkout before (its runtime folder is there): on another branch, so say which have a project.
    // A `.git` sow cannot use: it never ran here.
    const used = quietly(() => isDir(join(ownGitDir(root), 'sow'))) === true;
    throw new NotInitializedError(root, false, used ? branchesWithFile(root, '.sow/project/state.yaml') : []);
  }
  // Left behind by sow on another branch: say which branches have a project (looked up only now).
  if (!existsSync(join(root, '.sow', '.version')))
    throw new NotInitializedError(root, true, branchesWithFile(root, '.sow/project/state.yaml'));
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

/** A `.git` that does not lead to a git folder of this checkout: sow keeps nothing of its own through it. */
export class GitDirInvalidError extends errorClass('GIT_DIR_INVALID', 'state', (root: string, why: string) => [
  `${join(root, '.git')} ${why}; sow keeps this checkout's own files (its lock, journal and workers' records) ` +
    `in git's folder and will not use this one`,
  `look at it ('cat ${join(root, '.git')}'); if this checkout is a linked worktree, 'git worktree repair' ` +
    `restores it`,
  { path: join(root, '.git') },
]) {}

const resolvedGitDirs = new Map<string, string>();

/** The git folder of the checkout at `root`, checked to be git's own (`.git`, or a linked worktree's record naming it
 * back): no commit can put anything there. */
export function ownGitDir(root: string): string {
  const known = resolvedGitDirs.get(root);
  if (known !== undefined) return known;
  const dotGit = join(root, '.git');
  let real: string;
  try {
    real = realpathSync.native(gitDir(root));
  } catch (err) {
    if (err instanceof SowError) throw new GitDirInvalidError(root, 'does not say where its git folder is');
    throw new GitDirInvalidError(root, 'names a git folder that does not exist');
  }
  if (!isDir(real)) throw new GitDirInvalidError(root, 'does not lead to a folder');
  const realRoot = realOrSelf(root);
  // The checkout's own `.git` folder, as most are: nothing more to check.
  if (real === join(realRoot, '.git')) {
    resolvedGitDirs.set(root, real);
    return real;
  }
  const rel = pathWithin(realRoot, real);
  const inTree = rel !== undefined;
  if (inTree && rel !== '.git')
    throw new GitDirInvalidError(root, `leads to '${real}', a folder of the checkout itself rather than git's own`);
  if (!inTree) {
    // A linked worktree's record names the checkout it belongs to.
    const back = quietly(() => readFileSync(join(real, 'gitdir'), 'utf8').trim());
    if (back !== undefined && realOrSelf(isAbsolute(back) ? back : resolve(real, back)) !== realOrSelf(dotGit)) {
      throw new GitDirInvalidError(root, `leads to '${real}', whose record names another checkout`);
    }
    if (!existsSync(join(real, 'HEAD')))
      throw new GitDirInvalidError(root, `leads to '${real}', which is not a git folder`);
  }
  resolvedGitDirs.set(root, real);
  return real;
}

/** The checked-out branch, read from HEAD; undefined when HEAD is detached. */
export function currentBranch(root: string): string | undefined {
  return head(root).branch;
}

/** HEAD: the branch checked out, or the commit a detached HEAD points at. */
export function head(root: string): { branch?: string; commit?: string } {
  const text = readFileSync(join(gitDir(root), 'HEAD'), 'utf8').trim();
  const match = /^ref:\s*refs\/heads\/(.+)$/.exec(text);
  if (match) return { branch: match[1]! };
  return /^[0-9a-f]{40,64}$/.test(text) ? { commit: text } : {};
}

/** The folder that holds refs: for a linked worktree, the main repository's (its `commondir`). */
function commonDir(root: string): string {
  const dir = gitDir(root);
  const common = quietly(() => readFileSync(join(dir, 'commondir'), 'utf8').trim());
  return common === undefined ? dir : resolve(dir, common);
}

/** Whether `refs/heads/<branch>` exists, loose or packed, read without running git. */
export function branchExists(root: string, branch: string): boolean {
  const common = commonDir(root);
  if (existsSync(join(common, 'refs', 'heads', ...branch.split('/')))) return true;
  const packed = quietly(() => readFileSync(join(common, 'packed-refs'), 'utf8'));
  return packed?.split('\n').some((line) => line.endsWith(` refs/heads/${branch}`)) === true;
}

/** The branch `branch` was started from, as git's reflogs recorded it (its creation, else the first checkout). */
export function branchCreatedFrom(root: string, branch: string): string | undefined {
  const lines = (path: string) => quietly(() => readFileSync(path, 'utf8').split('\n')) ?? [];
  const own = lines(join(commonDir(root), 'logs', 'refs', 'heads', ...branch.split('/')))[0] ?? '';
  const created = /\tbranch: Created from (?:refs\/heads\/)?(\S+)$/.exec(own)?.[1];
  if (created && created !== 'HEAD') return created;
  for (const line of lines(join(gitDir(root), 'logs', 'HEAD'))) {
    const moved = /\tcheckout: moving from (\S+) to (\S+)$/.exec(line);
    if (moved && moved[2] === branch && moved[1] !== branch && !/^[0-9a-f]{40}$/.test(moved[1]!)) return moved[1];
  }
  return undefined;
}

/** The project checkout's folder that `cwd` stands for when `cwd` is in a linked worktree of `projectRoot`'s
 * repository (a sow workspace); undefined otherwise. */
export function projectFolderFor(cwd: string, projectRoot: string): string | undefined {
  try {
    const here = findRepoRoot(cwd);
    const project = realpathSync.native(projectRoot);
    if (here === project || !isDir(join(project, '.sow')) || !existsSync(join(project, '.sow', '.version')))
      return undefined;
    // Its `.git` names a record of <common>/worktrees/ whose gitdir names this checkout's `.git` back.
    if (linkedCheckoutProblem(project, here) !== undefined) return undefined;
    const rel = pathWithin(here, realOrSelf(cwd));
    return rel === undefined ? project : join(project, rel);
  } catch {
    return undefined;
  }
}

/** What is wrong with the linked worktree's `.git`, or undefined when it is what git writes: an edited one could point
 * git at a git dir whose configuration it obeys (core.fsmonitor runs commands), so git runs there only if it holds. */
export function linkedCheckoutProblem(root: string, checkout: string): string | undefined {
  const dotGit = join(checkout, '.git');
  const st = quietly(() => lstatSync(dotGit));
  if (!st) return 'is missing';
  if (st.isSymbolicLink()) return 'is a link';
  if (!st.isFile()) return 'is not a file';
  if (st.size > 4096) return 'is larger than the one line git writes there';
  let named: string;
  try {
    const line = /^gitdir: ([^\n]+)\n?$/.exec(readFileSync(dotGit, 'utf8'));
    if (!line) return "is not one line 'gitdir: <path>'";
    named = line[1]!;
  } catch {
    return 'cannot be read';
  }
  try {
    const common = realpathSync.native(commonDir(root));
    const own = realOrSelf(isAbsolute(named) ? named : resolve(checkout, named));
    if (dirname(own) !== join(common, 'worktrees') || !lstatSync(own).isDirectory())
      return (
        `names '${named}', which is not this repository's record of a worktree ` +
        `(${join(common, 'worktrees')}/<name>)`
      );
    const back = readFileSync(join(own, 'gitdir'), 'utf8').trim();
    if (realOrSelf(isAbsolute(back) ? back : resolve(own, back)) !== join(realpathSync.native(checkout), '.git'))
      return `names '${named}', whose record names another checkout`;
  } catch {
    return `names '${named}', which is not this repository's record of a worktree`;
  }
  return undefined;
}
