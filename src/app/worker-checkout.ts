/** A checkout per parallel worker (`--worktree`): a linked worktree under `.sow/worktrees/.workers/` on a branch made
 * from the project branch; task state stays in the project checkout. `sow task merge` brings it back. */
import { join, relative, resolve } from 'node:path';
import { errorClass, ExternalToolError, InvalidValueError, SowError } from '../domain/errors.js';
import type { CheckState } from '../domain/project-type.js';
import { checkStatuses, describeCheckStatus, newestEvidence } from '../domain/project-types/evidence.js';
import type { TaskState } from '../domain/schemas.js';
import { fileExists } from '../adapters/files.js';
import { headCommit, headTreeWithout, isValidBranchName, worktreeTree } from '../adapters/git.js';
import { branchExists } from '../adapters/repo.js';
import { readRepoConfig } from '../adapters/repo-config.js';
import { addWorktree, listWorktrees, pruneWorktrees, removeEmptyFolders } from '../adapters/worktrees.js';
import {
  commitAllOutsideSow,
  filesOfMerge,
  isMergedInto,
  realPlace,
  mergeBranch,
  GitRefused,
  removeWorkerCheckout,
  requireGenuineCheckout,
  uncommittedPaths,
  WORKER_CHECKOUTS_DIR,
  workerBranch,
  workerCheckoutRel,
} from '../adapters/worker-checkouts.js';
import { writeLogEntry } from './log-entry.js';
import { liveOwner } from './ownership.js';
import { update } from './workspace.js';
import type { AppContext } from './context.js';

export type WorkerCheckout = NonNullable<TaskState['worktree']>;

/** A recorded checkout that is not what sow made: refused before git is asked anything (exit 4). */
function recordedProblem(taskId: string, problem: string): SowError {
  return new SowError(
    'WORKER_CHECKOUT_INVALID',
    'state',
    `task ${taskId}'s worktree record ${problem}`,
    `sow records it as '${WORKER_CHECKOUTS_DIR}/<project branch>--task-${taskId}'; restore the task's state.yaml ` +
      `from git, or remove its 'worktree' entry if the checkout is gone`,
    { task: taskId },
  );
}

/** The checkout of task `taskId`'s worker, made if missing: `.sow/worktrees/.workers/<project branch>--task-<id>`, on
 * the branch of that name (a resume carries on in an earlier one). */
export function openWorkerCheckout(
  root: string,
  projectBranch: string,
  taskId: string,
  recorded: WorkerCheckout | undefined,
  now: string,
): { checkout: WorkerCheckout; path: string; created: boolean } {
  const branch = recorded?.branch ?? workerBranch(projectBranch, taskId);
  if (recorded) checkRecorded(root, taskId, recorded);
  else if (!isValidBranchName(root, branch))
    throw new InvalidValueError(
      'branch',
      branch,
      'a name git takes for a branch',
      'rename the project branch to a plain name (letters, digits, /, -)',
    );
  const rel = recorded?.path ?? workerCheckoutRel(branch);
  const path = realPlace(root, rel);
  let trees = listWorktrees(root);
  // A checkout whose folder went (deleted by hand): git's record of it is dropped before it is made again.
  if (trees.some((t) => t.prunable && (t.path === path || t.branch === branch))) {
    pruneWorktrees(root);
    trees = listWorktrees(root);
  }
  const checkout = recorded ?? { branch, path: rel, from: projectBranch, created_at: now };
  const there = trees.find((t) => t.path === path && !t.prunable);
  if (there) {
    if (there.branch !== branch)
      throw recordedProblem(
        taskId,
        `names ${rel}, which git has checked out on another branch (${there.branch ?? 'detached'})`,
      );
    // A worker (and the git its agent runs) starts there: never in a checkout whose .git leads elsewhere.
    requireGenuineCheckout(root, path);
    return { checkout, path, created: false };
  }
  const elsewhere = trees.find((t) => t.branch === branch);
  if (elsewhere)
    throw new SowError(
      'WORKER_BRANCH_TAKEN',
      'failed',
      `branch '${branch}' is checked out at ${elsewhere.path}, so task ${taskId}'s worker cannot have it`,
      `remove that worktree ('git worktree remove ${elsewhere.path}'), or rename the branch`,
      { branch, path: elsewhere.path },
    );
  if (fileExists(root, rel))
    throw new SowError(
      'WORKTREE_PATH_TAKEN',
      'failed',
      `${rel} exists already, but git does not know it as a worktree`,
      `move it away, or run 'git worktree prune'`,
      { path: rel },
    );
  const exists = branchExists(root, branch);
  if (exists && !recorded)
    throw new SowError(
      'WORKER_BRANCH_EXISTS',
      'failed',
      `branch '${branch}' exists already, and task ${taskId} records no checkout of it`,
      `delete it if it is left over ('git branch -D ${branch}'), or rename it`,
      { branch },
    );
  addWorktree(root, path, branch, exists ? undefined : { base: `refs/heads/${projectBranch}` });
  return { checkout, path, created: true };
}

/** What the task's state says of its checkout must be what sow writes: a file's value never reaches git unchecked. */
export function checkRecorded(root: string, taskId: string, recorded: WorkerCheckout): void {
  if (!recorded.branch.endsWith(`--task-${taskId}`) || !isValidBranchName(root, recorded.branch))
    throw recordedProblem(taskId, `has the branch '${recorded.branch}'`);
  if (recorded.path !== workerCheckoutRel(recorded.branch))
    throw recordedProblem(taskId, `has the path '${recorded.path}'`);
  if (!isValidBranchName(root, recorded.from))
    throw recordedProblem(taskId, `has the project branch '${recorded.from}'`);
}

/** Where a task's worker works: its checkout's folder, when it has one (remade if it is gone). */
export function workerCheckoutOf(root: string, task: TaskState, now: string): string | undefined {
  if (!task.worktree) return undefined;
  return openWorkerCheckout(root, task.worktree.from, task.id, task.worktree, now).path;
}

// sow task merge

/** A task_complete check as the merge judged it, on the code it merges. */
export interface MergeCheck {
  name: string;
  state: CheckState;
  /** Its newest run in the task's checkout: the log (relative to .sow/project/), its commit, and whether dirty. */
  evidence?: string;
  commit?: string | null;
  dirty?: boolean;
  /** What the state says, in words (`unit: stale (the code changed since it passed)`). */
  said: string;
}

/** What a merge required of the task's checks, and what it found. */
export interface MergeChecks {
  /** The code merged: the checkout's HEAD, and whether the worker left changes it commits first. */
  commit: string | null;
  dirty: boolean;
  /** Each check declared for task_complete, judged on that code; empty when none is declared. */
  checks: MergeCheck[];
  /** Merged with --force although a check had no fresh pass for that code. */
  forced: boolean;
  /** Files outside .sow/ the project branch changed since the checkout was made (the merge result is unchecked). */
  beside: string[];
}

export class TaskMergeUncheckedError extends errorClass(
  'TASK_MERGE_UNCHECKED',
  'blocked',
  (
    taskId: string,
    branch: string,
    checkout: string,
    code: Pick<MergeChecks, 'commit' | 'dirty'>,
    open: readonly MergeCheck[],
  ) => [
    `task ${taskId}'s branch '${branch}' was not merged: the code it would merge ` +
      `(${code.commit?.slice(0, 12) ?? 'no commit'} ` +
      `in ${checkout}${code.dirty ? ', with uncommitted changes' : ''}) has no fresh passing evidence ` +
      `of ${open.length === 1 ? 'a check' : `${open.length} checks`} declared for ` +
      `task_complete: ${open.map((c) => c.said).join('; ')}`,
    `run 'sow check run ${open.map((c) => c.name).join(' ')} --task ${taskId}' (it runs there), then 'sow task ` +
      `merge ${taskId}' again; --force merges without it, noted in the task's log`,
    { task: taskId, branch, checkout, commit: code.commit, dirty: code.dirty, checks: open.map((c) => ({ ...c })) },
  ],
) {}

export class TaskMergeConflictError extends errorClass(
  'TASK_MERGE_CONFLICT',
  'failed',
  (taskId: string, branch: string, into: string, checkout: string, files: readonly string[]) => {
    const shown = files.slice(0, 8).join(', ') + (files.length > 8 ? `, … (${files.length} files)` : '');
    return [
      `task ${taskId}'s branch '${branch}' conflicts with '${into}' in ${shown}; nothing was merged`,
      `resolve it in the worker's checkout: cd ${checkout} && git merge ${into}, fix those files and commit; then ` +
        `run 'sow task merge --id ${taskId}' again`,
      { task: taskId, branch, into, checkout, files: [...files] },
    ];
  },
) {}

export class TaskMergeDirtyError extends errorClass(
  'TASK_MERGE_DIRTY',
  'failed',
  (taskId: string, files: readonly string[]) => [
    `the project checkout has uncommitted changes to files task ${taskId}'s merge ` +
      `changes: ${files.slice(0, 8).join(', ')}${files.length > 8 ? ', …' : ''}`,
    `commit or stash them ('git stash'), then run 'sow task merge --id ${taskId}' again`,
    { task: taskId, files: [...files] },
  ],
) {}

/** Judges the code a merge would bring in (HEAD plus what the worker left outside .sow/) against the task's newest
 * evidence of each task_complete check; the checks are the project checkout's, never the worker's copy. */
async function judgeForMerge(
  root: string,
  task: TaskState,
  checkout: WorkerCheckout,
  path: string,
): Promise<Omit<MergeChecks, 'forced' | 'beside'> & { open: MergeCheck[] }> {
  const { config } = await readRepoConfig(root);
  const declared = (config.checks ?? []).filter((c) => c.when?.includes('task_complete'));
  const tree = worktreeTree(path, '.sow');
  const code = { commit: headCommit(path), dirty: tree !== headTreeWithout(path, '.sow') };
  if (declared.length === 0) return { ...code, checks: [], open: [] };
  const newest = newestEvidence(task.outputs, checkout.path);
  const checks = checkStatuses(declared, task.outputs, tree, checkout.path).map((s): MergeCheck => {
    const found = newest.get(s.name);
    const meta = found?.metadata ?? {};
    return {
      name: s.name,
      state: s.state,
      ...(s.evidence !== undefined ? { evidence: s.evidence } : {}),
      ...(found
        ? { commit: typeof meta['commit'] === 'string' ? meta['commit'] : null, dirty: meta['dirty'] === true }
        : {}),
      said:
        s.state === 'missing'
          ? `${s.name}: never run in its checkout`
          : meta['skipped'] === true
            ? `${s.name}: skipped (the task was completed with --force)`
            : describeCheckStatus(s),
    };
  });
  return { ...code, checks, open: checks.filter((c) => c.state !== 'fresh-pass') };
}

/** `sow task merge`: the worker's changes outside `.sow/` committed on its branch and merged into the project branch,
 * then its checkout and branch go; a conflict or clashing local changes stop it before the project checkout changes. */
export async function mergeTask(ctx: AppContext, taskId: string, opts: { force?: boolean } = {}) {
  return update(ctx, async (uow) => {
    const task = await uow.task(taskId);
    const checkout = task.worktree;
    if (!checkout)
      throw new SowError(
        'TASK_NO_WORKTREE',
        'failed',
        `task ${task.id} has no checkout of its own to merge; its worker worked in the project checkout`,
        "nothing to merge: its changes are there already ('git status')",
        { task: task.id },
      );
    if (task.status !== 'completed')
      throw new SowError(
        'TASK_NOT_COMPLETED',
        'failed',
        `task ${task.id} is ${task.status}; only a completed task's branch is merged`,
        `complete it first ('sow task set --id ${task.id} status completed'), or merge its branch ` +
          `'${checkout.branch}' yourself with git`,
        { task: task.id, status: task.status },
      );
    const owner = liveOwner(task, uow.now);
    if (owner)
      throw new SowError(
        'TASK_OWNED',
        'failed',
        `task ${task.id} is still worked on by ${owner.by}; its branch is merged once its worker has stopped`,
        "wait for it ('sow agent wait'), then merge",
        { task: task.id, owner: owner.by },
      );
    const root = uow.root;
    const project = await uow.project();
    checkRecorded(root, task.id, checkout);
    if (checkout.from !== project.branch)
      throw recordedProblem(
        task.id,
        `was made from '${checkout.from}', but the project's branch is '${project.branch}'`,
      );
    const path = realPlace(root, checkout.path);
    const tree = listWorktrees(root).find((t) => t.path === resolve(path) && !t.prunable);
    if (!tree || tree.branch !== checkout.branch)
      throw recordedProblem(
        task.id,
        `names ${checkout.path}, but git has no checkout of '${checkout.branch}' there ('git worktree list')`,
      );

    // git runs in the worker's checkout next: only where its .git is what git wrote for it.
    requireGenuineCheckout(root, path);
    // Checked, not trusted: only code whose checks passed on it moves the project branch.
    const { open, ...judged } = await judgeForMerge(root, task, checkout, path);
    if (open.length && !opts.force)
      throw new TaskMergeUncheckedError(task.id, checkout.branch, checkout.path, judged, open);
    const checked: MergeChecks = { ...judged, forced: open.length > 0, beside: [] };
    // What the worker left: committed on its branch, honestly labelled, before anything is compared.
    const left = uncommittedPaths(path, 'outside');
    const commitMessage =
      `Task ${task.id}: ${task.name}\n\nWhat ${task.session?.agent_id ?? 'its worker'} left uncommitted in its ` +
      `checkout when the task was completed, committed by 'sow task merge'.`;
    const committed =
      left.length > 0 &&
      gitSaid(
        () => commitAllOutsideSow(path, commitMessage),
        `did not commit what task ${task.id}'s worker left in ${checkout.path}`,
        `commit it there yourself (cd ${checkout.path} && git commit), then run 'sow task merge --id ${task.id}' again`,
      );
    const dropped = uncommittedPaths(path, 'sow');

    let merge: string | null = null;
    let files: string[] = [];
    if (!isMergedInto(root, checkout.branch)) {
      ({ touches: files, beside: checked.beside } = filesOfMerge(root, checkout.branch));
      const dirty = new Set(uncommittedPaths(root));
      const clash = files.filter((f) => dirty.has(f));
      if (clash.length) throw new TaskMergeDirtyError(task.id, clash);
      const mergeMessage =
        `Merge task ${task.id}: ${task.name}\n\nThe work of task ${task.id}, done in its own checkout on ` +
        `'${checkout.branch}'.`;
      const outcome = gitSaid(
        () => mergeBranch(root, checkout.branch, mergeMessage),
        `did not merge '${checkout.branch}'`,
        `see 'git status' in ${root}`,
      );
      if (!outcome.merged)
        throw new TaskMergeConflictError(
          task.id,
          checkout.branch,
          project.branch,
          relative(ctx.cwd, path) || '.',
          outcome.conflicts,
        );
      merge = outcome.commit;
    }
    requireGenuineCheckout(root, path);
    removeWorkerCheckout(root, path, checkout.branch);
    removeEmptyFolders(path, join(root, WORKER_CHECKOUTS_DIR));
    const next = { ...task };
    delete next.worktree;
    uow.setTask(next);
    const done = merge
      ? `Merged its branch '${checkout.branch}' into '${project.branch}' (${merge.slice(0, 12)})`
      : `Its branch '${checkout.branch}' had nothing '${project.branch}' lacked`;
    await writeLogEntry(
      uow,
      task.id,
      { agent: uow.actor.by, action: 'note', result: 'success', files },
      `${done}; its checkout and branch were removed. ${mergeChecksSentence(checked)}`,
    );
    return { task: task.id, branch: checkout.branch, into: project.branch, checked, committed, merge, files, dropped };
  });
}

/** `work`, with git's refusal of it (no identity, a hook) said as what git did not do, and the hint. */
function gitSaid<T>(work: () => T, what: string, hint: string): T {
  try {
    return work();
  } catch (err) {
    if (err instanceof GitRefused) throw new ExternalToolError('git', `${what}: ${err.said}`, hint);
    throw err;
  }
}

/** What a merge relied on, in a sentence (its log entry and the command's message). */
export function mergeChecksSentence(checked: MergeChecks): string {
  const left = checked.dirty ? ' with what the worker left uncommitted' : '';
  const code = `${checked.commit?.slice(0, 12) ?? 'no commit'}${left}`;
  const beside = checked.beside.length
    ? ` The project branch changed ${checked.beside.length} file${checked.beside.length === 1 ? '' : 's'} since the ` +
      `checkout was made; the merge result combines both and was not checked as a whole ('sow check run' ` +
      `checks it).`
    : '';
  if (checked.checks.length === 0)
    return `No check is declared for task_complete, so none was required of ${code}.${beside}`;
  if (checked.forced)
    return `Merged with --force although ${code} had no fresh passing evidence: ${checked.checks
      .filter((c) => c.state !== 'fresh-pass')
      .map((c) => c.said)
      .join('; ')}.${beside}`;
  const passed = checked.checks.map((c) => `${c.name} passed on ${code} in its checkout (${c.evidence})`);
  return `Checked: ${passed.join('; ')}.${beside}`;
}
