/** The git side of a worker's own checkout (--worktree). Every name reaching git comes from a state file, so each is
 * checked and handed over as a value (`val`, full refs, after `--`). */
import { relative, sep } from 'node:path';
import { SowError } from '../domain/errors.js';
import { existingRealFolder, sowPath } from './confine.js';
import { git, gitRun, opt, val } from './git.js';
import { linkedCheckoutProblem } from './repo.js';

/** `rel` under `.sow/` of the checkout `root`, every folder on the way a real one: a link (a clone can carry one) is
 * refused, never followed. */
export function realPlace(root: string, rel: string): string {
  const path = sowPath(root, rel);
  existingRealFolder({ base: root, name: 'the repository' }, rel);
  return path;
}

/** Where the workers' checkouts go: no branch name has a part starting with '.', so no project worktree lands here. */
export const WORKER_CHECKOUTS_DIR = '.sow/worktrees/.workers';

export const isWorkerCheckoutPath = (path: string): boolean =>
  path.split(sep).join('/').includes(`/${WORKER_CHECKOUTS_DIR}/`);

/** `<project branch>--task-<id>`: beside the project branch, as `feat/x/task-010` cannot exist beside `feat/x`. */
export function workerBranch(projectBranch: string, taskId: string): string {
  if (!/^[0-9]{1,9}$/.test(taskId)) throw new Error(`not a task id: ${taskId}`);
  return `${projectBranch}--task-${taskId}`;
}

/** The worker's checkout, relative to the main checkout. */
export const workerCheckoutRel = (branch: string): string => `${WORKER_CHECKOUTS_DIR}/${branch}`;

/** Refuses (exit 4) a linked checkout whose `.git` is not what git wrote, before git runs there: an edited one could
 * point git at a config it obeys (core.fsmonitor, hooks). */
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

const names = (out: string) => out.split('\0').filter(Boolean);

/** Commits every change outside `.sow/` of the checkout at `path`; false when there was none. */
export function commitAllOutsideSow(path: string, message: string): boolean {
  git(path, ['add', '--all', '--', '.', ':(exclude).sow']);
  if (gitRun(path, ['diff', '--cached', '--quiet']).ok) return false;
  const commit = gitRun(path, ['commit', '--quiet', opt('--message', message)]);
  if (!commit.ok) throw new GitRefused((commit.err || commit.out).trim().split('\n').at(-1) ?? '');
  return true;
}

/** Since `branch` left HEAD's history: the files merging it changes (`touches`), and those outside `.sow/` HEAD changed
 * meanwhile (`beside`, what a merge combines its code with). */
export function filesOfMerge(root: string, branch: string): { touches: string[]; beside: string[] } {
  const ref = `refs/heads/${branch}`;
  const base = git(root, ['merge-base', 'HEAD', val(ref, "the worker's branch")]);
  const touches = git(root, [
    'diff',
    '--name-only',
    '-z',
    val(base, 'the merge base'),
    val(ref, "the worker's branch"),
  ]);
  const beside = git(root, [
    'diff',
    '--name-only',
    '--no-renames',
    '-z',
    val(base, 'the merge base'),
    'HEAD',
    '--',
    '.',
    ':(exclude).sow',
  ]);
  return { touches: names(touches), beside: names(beside) };
}

/** Whether HEAD already contains every commit of `branch` (nothing to merge). */
export function isMergedInto(root: string, branch: string): boolean {
  return gitRun(root, ['merge-base', '--is-ancestor', val(`refs/heads/${branch}`, "the worker's branch"), 'HEAD']).ok;
}

/** The paths changed against HEAD (staged or not) or untracked in the checkout at `root`: all, outside or in .sow/. */
export function uncommittedPaths(root: string, scope: 'all' | 'outside' | 'sow' = 'all'): string[] {
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
  return names(`${changed}\0${untracked}`);
}

export type MergeOutcome = { merged: true; commit: string } | { merged: false; conflicts: string[] };

/** Merges `branch` into `root` with a merge commit; a conflict is found by merge-tree without touching the checkout
 * (before git 2.38, by a merge run and aborted). */
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
  if (!probe.ok && /^[0-9a-f]{40,64}\n/.test(`${probe.out}\n`) && probe.out.includes('\n'))
    return { merged: false, conflicts: unique(probe.out.split('\n').slice(1)) };
  const merge = gitRun(root, [
    'merge',
    '--no-ff',
    '--no-edit',
    '--quiet',
    opt('--message', message),
    val(`refs/heads/${branch}`, "the worker's branch"),
  ]);
  if (merge.ok) return { merged: true, commit: git(root, ['rev-parse', 'HEAD']) };
  const conflicts = names(git(root, ['diff', '--name-only', '-z', '--diff-filter=U']));
  if (gitRun(root, ['rev-parse', '--verify', '--quiet', 'MERGE_HEAD']).ok) git(root, ['merge', '--abort']);
  if (conflicts.length) return { merged: false, conflicts: unique(conflicts) };
  // Not a conflict: git refused the merge for another reason (a hook, files it would overwrite).
  throw new GitRefused((merge.err || merge.out).trim().split('\n').at(-1) ?? '');
}

const unique = (xs: string[]) => [...new Set(xs.filter(Boolean))];

/** Git refused a commit or a merge for a reason of its own (no identity, a hook): its last word. */
export class GitRefused extends Error {
  constructor(readonly said: string) {
    super(said);
  }
}

/** Removes the worker's checkout (forced: what is left is `.sow/`, the project checkout's) and its merged branch. */
export function removeWorkerCheckout(root: string, path: string, branch: string): void {
  git(root, ['worktree', 'remove', '--force', '--', val(path, "the worker's checkout")]);
  git(root, ['branch', '--delete', '--force', '--', val(branch, "the worker's branch")]);
}
