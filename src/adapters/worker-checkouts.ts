/**
 * A checkout per parallel worker: the git side. A worker spawned with --worktree works in a
 * linked worktree of its own, on a branch made from the project branch; `sow task merge` commits
 * what it left, merges its branch into the project checkout and removes both. Every name that
 * reaches git comes from a state file, so each is checked here and handed over as a value
 * (`val`, full refs, after `--`).
 */
import { relative, sep } from 'node:path';
import { SowError } from '../domain/errors.js';
import { git, gitRun, isValidBranchName, opt, val } from './git.js';
import { branchExists, linkedCheckoutProblem } from './repo.js';

/**
 * Where the workers' checkouts go, under the main checkout: no branch name has a part that starts with '.', so `sow
 * worktree add <branch>` can never land here.
 */
export const WORKER_CHECKOUTS_DIR = '.sow/worktrees/.workers';

/** Whether `path` is a worker's checkout (no branch name has a part starting with '.', so no project worktree is). */
export const isWorkerCheckoutPath = (path: string): boolean =>
  path.split(sep).join('/').includes(`/${WORKER_CHECKOUTS_DIR}/`);

const TASK_ID = /^[0-9]{1,9}$/;

/**
 * The worker's branch for a task: `<project branch>--task-<id>`. Beside the project branch, not
 * under it: `feat/x/task-010` cannot exist while `feat/x` does (git keeps refs as files).
 */
export function workerBranch(projectBranch: string, taskId: string): string {
  if (!TASK_ID.test(taskId)) throw new Error(`not a task id: ${taskId}`);
  return `${projectBranch}--task-${taskId}`;
}

/** The worker's checkout, relative to the main checkout. */
export const workerCheckoutRel = (branch: string): string => `${WORKER_CHECKOUTS_DIR}/${branch}`;

/** Whether `branch` is a name git takes for a new branch and sow may hand to it. */
export function isUsableBranch(root: string, branch: string): boolean {
  return isValidBranchName(root, branch);
}

export { branchExists };

/**
 * Refuses (exit 4) a linked checkout of the repository at `root` whose `.git` is not what git
 * wrote for it (repo.ts linkedCheckoutProblem): called before sow runs git in one. Whatever may
 * edit that checkout's files could have pointed its `.git` at a git dir it made, and git obeys
 * that git dir's configuration (a command in `core.fsmonitor`, hooks).
 */
export function requireGenuineCheckout(root: string, path: string): void {
  const problem = linkedCheckoutProblem(root, path);
  if (problem === undefined) return;
  const shown = relative(root, path).split(sep).join('/') || '.';
  throw new SowError(
    'CHECKOUT_GIT_INVALID',
    'state',
    `${shown}/.git ${problem}; sow runs no git there, as git would obey the configuration of the git dir it names ` +
      `(a command in core.fsmonitor, a hook)`,
    `look at it ('cat ${shown}/.git'); if you did not change it, something in that checkout did: have git write it ` +
      `again ('git worktree repair ${shown}'), then retry`,
    { path: `${shown}/.git`, problem },
  );
}

/** The files of a checkout with changes git has not committed outside `.sow/` (untracked ones included). */
export const changesOutsideSow = (path: string): string[] => uncommittedPaths(path, 'outside');

/** The same under `.sow/` (files sow keeps in the project checkout instead). */
export const changesInSow = (path: string): string[] => uncommittedPaths(path, 'sow');

/**
 * Commits every change outside `.sow/` of the checkout at `path` (new files too) with `message`; false when there
 * was none.
 */
export function commitAllOutsideSow(path: string, message: string): boolean {
  git(path, ['add', '--all', '--', '.', ':(exclude).sow']);
  if (gitRun(path, ['diff', '--cached', '--quiet']).ok) return false;
  const commit = gitRun(path, ['commit', '--quiet', opt('--message', message)]);
  if (!commit.ok) throw new GitRefused((commit.err || commit.out).trim().split('\n').at(-1) ?? '');
  return true;
}

/** The files that differ between where `branch` started from HEAD's history and its tip: what merging it changes. */
export function filesMergeTouches(root: string, branch: string): string[] {
  const ref = `refs/heads/${branch}`;
  const base = git(root, ['merge-base', 'HEAD', val(ref, "the worker's branch")]);
  return git(root, ['diff', '--name-only', '-z', val(base, 'the merge base'), val(ref, "the worker's branch")])
    .split('\0')
    .filter(Boolean);
}

/**
 * The files outside `.sow/` HEAD changed since `branch` left its history: what a merge of `branch` combines with its
 * code.
 */
export function filesChangedBeside(root: string, branch: string): string[] {
  const base = git(root, ['merge-base', 'HEAD', val(`refs/heads/${branch}`, "the worker's branch")]);
  return git(root, [
    'diff',
    '--name-only',
    '--no-renames',
    '-z',
    val(base, 'the merge base'),
    'HEAD',
    '--',
    '.',
    ':(exclude).sow',
  ])
    .split('\0')
    .filter(Boolean);
}

/** Whether HEAD already contains every commit of `branch` (nothing to merge). */
export function isMergedInto(root: string, branch: string): boolean {
  return gitRun(root, ['merge-base', '--is-ancestor', val(`refs/heads/${branch}`, "the worker's branch"), 'HEAD']).ok;
}

/**
 * The paths with uncommitted changes in the checkout at `root` (all, all but `.sow/`, or `.sow/` alone): changed
 * against HEAD, staged or not, and untracked ones.
 */
export function uncommittedPaths(root: string, scope: 'all' | 'outside' | 'sow' = 'all'): string[] {
  const split = (out: string) => out.split('\0').filter(Boolean);
  const changed = git(root, [
    'diff',
    '--name-only',
    '--no-renames',
    '-z',
    'HEAD',
    ...(scope === 'sow' ? ['--', '.sow'] : scope === 'outside' ? ['--', '.', ':(exclude).sow'] : []),
  ]);
  const untracked = git(root, [
    'ls-files',
    '--others',
    '--exclude-standard',
    '-z',
    ...(scope === 'sow' ? ['--', '.sow'] : scope === 'outside' ? ['--', '.', ':(exclude).sow'] : []),
  ]);
  return [...split(changed), ...split(untracked)];
}

export type MergeOutcome = { merged: true; commit: string } | { merged: false; conflicts: string[] };

/**
 * Merges `branch` into the branch checked out at `root` with a merge commit. A conflict stops it:
 * git's merge-tree finds one without touching the checkout; where this git has no such merge-tree
 * (before 2.38), the merge is run and aborted. Either way nothing of it is left in the checkout.
 */
export function mergeBranch(root: string, branch: string, message: string): MergeOutcome {
  const probe = gitRun(root, [
    'merge-tree',
    '--write-tree',
    '--name-only',
    '--no-messages',
    'HEAD',
    val(`refs/heads/${branch}`, "the worker's branch"),
  ]);
  // Exit 1 with a tree on the first line: conflicts, the files on the lines after it.
  if (!probe.ok && /^[0-9a-f]{40,64}\n/.test(`${probe.out}\n`) && probe.out.includes('\n')) {
    return { merged: false, conflicts: unique(probe.out.split('\n').slice(1)) };
  }
  const merge = gitRun(root, [
    'merge',
    '--no-ff',
    '--no-edit',
    '--quiet',
    opt('--message', message),
    val(`refs/heads/${branch}`, "the worker's branch"),
  ]);
  if (merge.ok) return { merged: true, commit: git(root, ['rev-parse', 'HEAD']) };
  const conflicts = git(root, ['diff', '--name-only', '-z', '--diff-filter=U']).split('\0').filter(Boolean);
  if (gitRun(root, ['rev-parse', '--verify', '--quiet', 'MERGE_HEAD']).ok) git(root, ['merge', '--abort']);
  if (conflicts.length) return { merged: false, conflicts: unique(conflicts) };
  // Not a conflict: git refused the merge for another reason (a hook, files it would overwrite).
  throw new GitRefused((merge.err || merge.out).trim().split('\n').at(-1) ?? '');
}

const unique = (xs: string[]) => [...new Set(xs.filter(Boolean))];

/**
 * Git refused a commit or a merge for a reason of its own (no identity, a hook, files it would overwrite): its last
 * word.
 */
export class GitRefused extends Error {
  constructor(readonly said: string) {
    super(said);
  }
}

/**
 * Removes the worker's checkout (forced: what is left there is `.sow/`, whose truth is the project checkout's) and
 * its branch once merged.
 */
export function removeWorkerCheckout(root: string, path: string, branch: string, deleteBranch: boolean): void {
  git(root, ['worktree', 'remove', '--force', '--', val(path, "the worker's checkout")]);
  if (deleteBranch) git(root, ['branch', '--delete', '--force', '--', val(branch, "the worker's branch")]);
}
