// What a task's work changed, file by file, from git (whether or not its worker recorded the files): in its own
// checkout against where its branch left the project branch, else in the project checkout against the base branch.
import { isRealFolder, sowPath } from '../adapters/confine.js';
import { diffAgainst, mergeBaseOf, newFilePatch, untrackedFiles } from '../adapters/changes.js';
import { headCommit } from '../adapters/git.js';
import { requireGenuineCheckout } from '../adapters/worker-checkouts.js';
import { normalRelative } from '../domain/paths.js';
import type { ProjectState, TaskState } from '../domain/schemas.js';
import { checkRecorded } from './worker-checkout.js';
import { Reader } from './workspace.js';
import type { AppContext } from './context.js';

/** One file the work changed, with git's patch of it (its hunks; none for a binary file or a pure rename). */
export interface FileChange {
  path: string;
  old_path?: string;
  status: 'added' | 'modified' | 'deleted' | 'renamed' | 'copied' | 'type changed';
  /** Not yet known to git in that checkout (untracked): shown whole. */
  untracked?: true;
  binary?: true;
  /** git's patch for the file; cut at a line past MAX_FILE_PATCH (`truncated`), empty past MAX_PATCHES. */
  patch: string;
  truncated?: true;
}

/** The most of one file's patch kept, in characters; the most of all patches together. */
const MAX_FILE_PATCH = 256 * 1024;
const MAX_PATCHES = 4 * 1024 * 1024;
const MAX_UNTRACKED = 500;

const STATUS: Readonly<Record<string, FileChange['status']>> = {
  A: 'added',
  M: 'modified',
  D: 'deleted',
  R: 'renamed',
  C: 'copied',
  T: 'type changed',
};

export async function taskChanges(ctx: AppContext, rawId: string) {
  const { task, root, project } = await Reader.read(
    ctx,
    async (reader) => ({ task: await reader.task(rawId), root: reader.root, project: reader.project }),
    { otherBranch: 'quiet' },
  );
  // The files the task records as modified (its `modified` outputs).
  const recorded = task.outputs.filter((a) => a.type === 'modified').map((a) => a.path);
  const { files, truncated, ...where } = changesOfTask(root, task, project, recorded);
  return { task: task.id, ...where, recorded, files, ...(truncated ? { truncated: true as const } : {}) };
}

// Where the work is read (the task's own checkout, its branch, its recorded files, or all of the project checkout),
// which checkout (relative to the project's, '.' for itself), and the branch and commit it left (null: only
// uncommitted changes against HEAD); `truncated`: some patches were cut or left out, or more new files than listed.
function changesOfTask(root: string, task: TaskState, project: ProjectState, recorded: readonly string[]) {
  const own = task.worktree ? workerPlace(root, task) : undefined;
  if (own?.folder) {
    requireGenuineCheckout(root, own.folder);
    const commit = mergeBaseOf(own.folder, `refs/heads/${own.from}`, 'HEAD');
    const found = changesIn(own.folder, commit, [], true);
    const base = { branch: own.from, commit };
    return { source: 'worker-checkout', checkout: own.rel, branch: own.branch, base, ...found };
  }
  if (own) {
    // The checkout's folder went (removed by hand): its branch still holds what it committed.
    const commit = mergeBaseOf(root, `refs/heads/${own.from}`, `refs/heads/${own.branch}`);
    const found = changesIn(root, commit, [], false, `refs/heads/${own.branch}`);
    return { source: 'worker-branch', checkout: '.', branch: own.branch, base: { branch: own.from, commit }, ...found };
  }
  const baseBranch = project.base_branch && project.base_branch !== project.branch ? project.base_branch : undefined;
  const commit = baseBranch ? mergeBaseOf(root, `refs/heads/${baseBranch}`, 'HEAD') : headCommit(root);
  // Only plain paths inside the repository reach git (a state file may name anything).
  const files = recorded.map(normalRelative).filter((f): f is string => f !== undefined);
  const base = commit ? { branch: baseBranch ?? null, commit } : null;
  const source = files.length ? 'recorded' : 'project-checkout';
  return { source, checkout: '.', branch: project.branch, base, ...changesIn(root, commit ?? undefined, files, true) };
}

/** The task's checkout as recorded (checked as sow writes it before git hears of it); `folder` when it is there. */
function workerPlace(root: string, task: TaskState): { rel: string; branch: string; from: string; folder?: string } {
  const wt = task.worktree!;
  checkRecorded(root, task.id, wt);
  const folder = sowPath(root, wt.path);
  return { rel: wt.path, branch: wt.branch, from: wt.from, ...(isRealFolder(folder) ? { folder } : {}) };
}

// The changes at `cwd` against `base` (of the working tree, or `tip`), outside .sow/, of the files `only` names if any;
// with `untracked`, new files too, each whole.
function changesIn(cwd: string, base: string | undefined, only: readonly string[], untracked: boolean, tip?: string) {
  const files: FileChange[] = [];
  let more = false;
  for (const file of only.length ? only : [null]) {
    const { names, patch } = diffAgainst(cwd, base ?? null, tip ?? null, file);
    const list = names.split('\0');
    const patches = splitPatches(patch);
    for (let i = 0, n = 0; i < list.length && list[i]; n++) {
      const code = list[i]!;
      const two = code.startsWith('R') || code.startsWith('C');
      const change: FileChange = {
        path: list[two ? i + 2 : i + 1]!,
        status: STATUS[code[0]!] ?? 'modified',
        patch: patches[n] ?? '',
      };
      if (two) change.old_path = list[i + 1]!;
      files.push(change);
      i += two ? 3 : 2;
    }
    if (!untracked || tip) continue;
    const added = untrackedFiles(cwd, file);
    const room = Math.max(0, MAX_UNTRACKED - files.length);
    for (const path of added.slice(0, room))
      files.push({ path, status: 'added', untracked: true, patch: newFilePatch(cwd, path) });
    if (added.length > room) more = true;
  }
  return bounded(files, more);
}

/** git's patch, one piece per file (each begins with its `diff --git` line; lines inside a hunk never do). */
export function splitPatches(text: string): string[] {
  if (!text) return [];
  return text
    .split(/^(?=diff --git )/m)
    .filter((p) => p.startsWith('diff --git '))
    .map((p) => p.replace(/\n$/, ''));
}

/** Each patch cut to MAX_FILE_PATCH (at a line), and nothing more once MAX_PATCHES were kept; binary files marked. */
export function bounded(files: FileChange[], more: boolean): { files: FileChange[]; truncated: boolean } {
  let total = 0;
  let truncated = more;
  for (const f of files) {
    if (/^Binary files .* differ$/m.test(f.patch) || /^GIT binary patch$/m.test(f.patch)) f.binary = true;
    let patch = f.patch;
    if (patch.length > MAX_FILE_PATCH) {
      patch = patch.slice(0, patch.lastIndexOf('\n', MAX_FILE_PATCH));
      f.truncated = true;
    }
    if (total + patch.length > MAX_PATCHES) {
      patch = '';
      f.truncated = true;
    }
    total += patch.length;
    if (f.truncated) truncated = true;
    f.patch = patch;
  }
  return { files, truncated };
}
