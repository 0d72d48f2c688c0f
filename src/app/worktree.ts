/** Many branches at once (`sow worktree …`, `sow status --all`): one project per branch, each beside the first in a git
 * worktree under `.sow/worktrees/<branch>`, with its own state, lock and workers. */
import { join, relative, sep } from 'node:path';
import { errorClass, InvalidNameError, InvalidValueError, SowError } from '../domain/errors.js';
import { isFinished } from '../domain/tasks.js';
import { gitSucceeds, isValidBranchName, val } from '../adapters/git.js';
import { branchExists, currentBranch, findRepoRoot, findWorkspaceRoot, head } from '../adapters/repo.js';
import { fileExists } from '../adapters/files.js';
import { isWorkerCheckoutPath, realPlace, requireGenuineCheckout } from '../adapters/worker-checkouts.js';
import {
  addWorktree,
  defaultBranch,
  listWorktrees,
  pruneWorktrees,
  removeEmptyFolders,
  removeWorktree,
  uncommittedIn,
  type Worktree,
} from '../adapters/worktrees.js';
import { initWorkspace } from './init.js';
import { liveOwner } from './ownership.js';
import { Reader } from './workspace.js';
import type { AppContext } from './context.js';

const WORKTREES_DIR = '.sow/worktrees';

export class WorktreeBusyError extends errorClass(
  'WORKTREE_BUSY',
  'failed',
  (branch: string, path: string, uncommitted: readonly string[], sessions: readonly { by: string; task: string }[]) => {
    const files = [...uncommitted.slice(0, 3).map((l) => l.slice(3)), ...(uncommitted.length > 3 ? ['…'] : [])];
    const who = sessions.map((s) => `${s.by} on task ${s.task}`);
    const why = [
      ...(uncommitted.length ? [`${uncommitted.length} uncommitted change(s) (${files.join(', ')})`] : []),
      ...(sessions.length ? [`a live agent session (${who.join(', ')})`] : []),
    ];
    return [
      `the worktree of '${branch}' has ${why.join(' and ')}`,
      `${uncommitted.length ? `commit them (cd ${path} && git commit …)` : 'wait for the worker to finish'}, or ` +
        `pass --force to remove it anyway`,
      { branch, path, uncommitted: [...uncommitted], sessions: [...sessions] },
    ];
  },
) {}

/** The main checkout of the repository `cwd` is in, with sow initialised there. */
function mainCheckout(cwd: string): { main: string; here: string; trees: Worktree[] } {
  const here = findRepoRoot(cwd);
  const trees = listWorktrees(here);
  const main = trees[0]?.path ?? here;
  findWorkspaceRoot(main);
  return { main, here, trees };
}

const relPath = (main: string, path: string) => relative(main, path) || '.';

/** `sow worktree add <branch> [--from <base>]`. */
export async function addWorktreeFor(ctx: AppContext, branch: string, from?: string) {
  const { main, here, trees } = mainCheckout(ctx.cwd);
  if (!isValidBranchName(main, branch))
    throw new InvalidNameError('branch name', branch, 'git does not accept it as a branch name', 'feat/add-auth');
  const taken = trees.find((t) => t.branch === branch);
  if (taken) {
    const at = relPath(main, taken.path);
    const [message, hint] = [
      `branch '${branch}' is already checked out at ${at}`,
      `work there (cd ${at}), or pick another branch`,
    ];
    throw new SowError('WORKTREE_EXISTS', 'failed', message, hint, { branch, path: at });
  }
  const exists = branchExists(main, branch);
  if (exists && from !== undefined)
    throw new SowError(
      'BRANCH_EXISTS',
      'failed',
      `branch '${branch}' exists already; --from applies only to a new branch`,
      `drop --from to check out '${branch}' as it is`,
      { branch },
    );
  // A new line of work starts from the repository's default branch, not from whatever is checked out (a second
  // project's branch would otherwise start on the first one's work).
  const fallback = from === undefined && !exists ? defaultBranch(main) : undefined;
  const current = currentBranch(here);
  const base = from ?? fallback?.name ?? current ?? head(here).commit;
  // Why that base: --from, the repository's default branch, else the branch (or commit) checked out.
  const baseKind =
    from !== undefined ? 'from' : fallback ? 'default' : current !== undefined ? 'checked-out' : 'commit';
  // A branch is named to git by its full ref: a clone may bring one named '-…', which as it is would be an option. What
  // --from names may be any commit, so it is refused then.
  const baseRef = fallback?.ref ?? (from === undefined && current !== undefined ? `refs/heads/${current}` : base);
  if (!exists) {
    if (!base || !baseRef)
      throw new SowError(
        'NO_COMMIT',
        'failed',
        'there is no commit to start the branch from',
        'commit something first, or pass --from <branch>',
      );
    const verify = () =>
      gitSucceeds(main, ['rev-parse', '--verify', '--quiet', val(`${baseRef}^{commit}`, 'the base', 'user')]);
    if (baseRef.startsWith('-') || !verify())
      throw new InvalidValueError(
        '--from',
        base,
        'a branch or commit of this repository',
        "run 'git branch' to see the branches",
      );
  }
  const path = worktreePlace(main, branch);
  if (fileExists(main, relative(main, path)))
    throw new SowError(
      'WORKTREE_PATH_TAKEN',
      'failed',
      `${relPath(main, path)} exists already, but git does not know it as a worktree`,
      `move it away, or run 'sow worktree prune'`,
      { path: relPath(main, path) },
    );
  // .sow/worktrees/ stays out of the main checkout's history (sow init repairs the line too).
  initWorkspace(main);
  addWorktree(main, path, branch, exists ? undefined : { base: baseRef! });
  // A branch without sow committed gets a workspace of its own, as 'sow init' would make it.
  const initialised = !fileExists(path, '.sow/.version');
  if (initialised) initWorkspace(path);
  return {
    branch,
    path,
    rel: relPath(main, path),
    ...(exists ? {} : ({ created_from: base!, base_kind: baseKind } as const)),
    initialised,
  };
}

/** Where the worktree of `branch` goes: `.sow/worktrees/<branch>` of the main checkout, never through a link. */
const worktreePlace = (main: string, branch: string) => realPlace(main, `${WORKTREES_DIR}/${branch}`);

// A worker's own checkout holds a copy of .sow/ from its branch's start: its project is the project checkout's.
export const holdsProject = (path: string): boolean =>
  !isWorkerCheckoutPath(path) && fileExists(path, '.sow/.version') && fileExists(path, '.sow/project/state.yaml');
const hasProjectIn = (tree: Worktree) => !tree.prunable && holdsProject(tree.path);

/** The main checkout and each worktree that holds a project: where they are, nothing read yet. */
export function checkoutsWithProject(cwd: string): { path: string; rel: string }[] {
  const { main, trees } = mainCheckout(cwd);
  return trees.filter(hasProjectIn).map((t) => ({ path: t.path, rel: relPath(main, t.path) }));
}

/** A checkout's project and who works on it (a worker's agent id, or a claim's owner); its branch differs from the
 * checkout's only after a rename. */
async function projectOf(reader: Reader) {
  const tasks = await reader.tasks();
  const sessions: { task: string; by: string; kind: 'worker' | 'claim' }[] = [];
  for (const t of tasks) {
    if (isFinished(t.status)) continue;
    const owner = liveOwner(await reader.task(t.id), reader.ctx.now());
    if (owner) sessions.push({ task: t.id, by: owner.by, kind: owner.kind });
  }
  const { name, branch } = reader.project;
  const done = tasks.filter((t) => isFinished(t.status)).length;
  return {
    name,
    state: reader.project.statechart.current_state,
    branch,
    tasks: { done, total: tasks.length },
    sessions,
  };
}

/** The worktree's project; null without sow or a project there, with the `problem` when it could not be read. */
async function projectIn(
  ctx: AppContext,
  tree: Worktree,
): Promise<{ project: Awaited<ReturnType<typeof projectOf>> | null; problem?: string }> {
  if (!hasProjectIn(tree)) return { project: null };
  try {
    return { project: await Reader.read({ ...ctx, cwd: tree.path }, projectOf, { otherBranch: 'quiet' }) };
  } catch (err) {
    return { project: null, problem: err instanceof Error ? err.message : String(err) };
  }
}

/** `sow worktree list` and `sow status --all`: the main checkout and every worktree, with their projects; `sow`: made
 * by sow (under .sow/worktrees/), `missing`: its folder is gone ('sow worktree prune' drops the record). */
export async function listWorktreesFor(ctx: AppContext) {
  const { main, trees } = mainCheckout(ctx.cwd);
  const sowDir = join(main, WORKTREES_DIR) + sep;
  const out = [];
  for (const tree of trees) {
    const { path, main: isMain, prunable: missing } = tree;
    const where = { branch: tree.branch ?? null, path, rel: relPath(main, path), main: isMain };
    out.push({ ...where, sow: path.startsWith(sowDir), missing, ...(await projectIn(ctx, tree)) });
  }
  return out;
}

export type WorktreeInfo = Awaited<ReturnType<typeof listWorktreesFor>>[number];

/** `sow worktree remove <branch> [--force]`: the checkout goes, the branch stays. */
export async function removeWorktreeFor(ctx: AppContext, branch: string, force: boolean) {
  const { main, trees } = mainCheckout(ctx.cwd);
  const others = trees.filter((t) => !t.main);
  const tree = others.find((t) => t.branch === branch);
  if (!tree) {
    const known = others.map((t) => t.branch ?? relPath(main, t.path));
    const [message, hint] =
      trees[0]?.branch === branch
        ? [
            `'${branch}' is checked out in the main checkout, which is not a worktree`,
            "'sow worktree list' shows the worktrees",
          ]
        : [
            `no worktree of branch '${branch}'`,
            known.length
              ? `the worktrees: ${known.join(', ')} ('sow worktree list')`
              : "there are none besides the main checkout; 'sow worktree add <branch>' makes one",
          ];
    throw new SowError('WORKTREE_NOT_FOUND', 'failed', message, hint, { branch, known });
  }
  const rel = relPath(main, tree.path);
  if (!force && !tree.prunable) {
    // git status runs there: only where its .git is what git wrote for it.
    requireGenuineCheckout(main, tree.path);
    const uncommitted = uncommittedIn(tree.path);
    const { project } = await projectIn(ctx, tree);
    const sessions = project?.sessions ?? [];
    if (uncommitted.length || sessions.length) throw new WorktreeBusyError(branch, rel, uncommitted, sessions);
  }
  // A worktree of sow's folder is removed only where it really is (a link on the way is refused).
  if (tree.path.startsWith(join(main, WORKTREES_DIR) + sep))
    worktreePlace(main, relative(join(main, WORKTREES_DIR), tree.path).split(sep).join('/'));
  removeWorktree(main, tree.path, force);
  removeEmptyFolders(tree.path, join(main, WORKTREES_DIR));
  return { branch, path: tree.path, rel };
}

/** `sow worktree prune`: forget the worktrees whose folders were deleted by hand. */
export async function pruneWorktreesFor(ctx: AppContext) {
  const { main, trees } = mainCheckout(ctx.cwd);
  pruneWorktrees(main);
  // Git names what it pruned by its own record's name; say which branch and folder instead.
  const left = new Set(listWorktrees(main).map((t) => t.path));
  const pruned = trees.filter((t) => !t.main && !left.has(t.path));
  for (const t of pruned) removeEmptyFolders(t.path, join(main, WORKTREES_DIR));
  return { pruned: pruned.map((t) => ({ branch: t.branch ?? null, path: t.path, rel: relPath(main, t.path) })) };
}
