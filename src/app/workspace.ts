/** How use cases read and write state: under the lock, one transaction per write; remote pushes after the lock. */
import type { ProjectType } from '../domain/project-type.js';
import { taskPhase } from '../domain/phases.js';
import type { ProjectState, TaskState, TaskSummary } from '../domain/schemas.js';
import { normalizeTaskId } from '../domain/tasks.js';
import { fileExists, readFileIfExists } from '../adapters/files.js';
import { acquireLock } from '../adapters/lock.js';
import { warn } from '../adapters/notices.js';
import { findWorkspaceRoot } from '../adapters/repo.js';
import { ensureRuntimeDir } from '../adapters/runtime.js';
import type { StateFile } from '../adapters/state-files.js';
import { clearLeftovers } from '../adapters/transaction.js';
import { hasJournal } from '../adapters/journal.js';
import { hasDeferredRuns, removeDeferredRun } from '../adapters/deferred-runs.js';
import type { AppContext } from './context.js';
import type { Recorded } from './deferred-runs.js';
import {
  branchProblem,
  checkLayout,
  loadProject,
  loadSummaries,
  loadTaskFile,
  type LoadedProject,
} from './project-files.js';
import { lockPath, ProjectReads, replay, underLock, UnitOfWork, withRootLock } from './unit-of-work.js';

/** Finds the workspace, checks its layout, and finishes a write a crashed command left half done. */
export async function openRoot(ctx: Pick<AppContext, 'cwd'>): Promise<string> {
  const root = findWorkspaceRoot(ctx.cwd);
  checkLayout(root);
  if (hasJournal(root)) await withRootLock(root, () => replay(root));
  return root;
}

/** The workspace, its layout checked. */
function layoutRoot(ctx: Pick<AppContext, 'cwd'>): string {
  const root = findWorkspaceRoot(ctx.cwd);
  checkLayout(root);
  return root;
}

/** The lock cannot be made here (no permission, read-only, full disk): no writer can either, so a read goes on. */
const CANNOT_LOCK = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT']);

/** Under the lock, records the deferred runs without ever failing the read; returns what to do after the lock. */
async function recordDeferred(root: string, ctx: AppContext): Promise<Recorded | undefined> {
  if (!hasDeferredRuns(root)) return undefined;
  try {
    const uow = new UnitOfWork(root, ctx);
    const done = await (await import('./deferred-runs.js')).recordDeferredRuns(uow);
    if (done.files.length === 0) return undefined;
    await uow.commit();
    done.files.forEach(removeDeferredRun);
    return done;
  } catch {
    // an invalid state file, a full disk: the read says what it finds, and the records wait
    return undefined;
  }
}

/** Once the lock is let go: the claims of the tasks the recorded runs let go are given back in turn. */
async function afterDeferred(done: Recorded | undefined): Promise<void> {
  for (const giveBack of done?.giveBack ?? []) await giveBack();
}

/** The project, read without the lock for `commitChange` (deferred runs recorded first); another branch's refused. */
export async function openProject(ctx: AppContext): Promise<{ root: string } & LoadedProject> {
  const root = await openRoot(ctx);
  if (hasDeferredRuns(root)) await afterDeferred(await withRootLock(root, () => recordDeferred(root, ctx)));
  const loaded = await loadProject(root);
  const problem = branchProblem(root, loaded.file.data);
  if (problem) throw problem;
  return { root, ...loaded };
}

/** Read-only access, files validated as they load; only inside `read`, which holds the lock: one consistent state. */
export class Reader extends ProjectReads {
  private summaries?: TaskSummary[];

  private constructor(
    readonly root: string,
    readonly projectFile: StateFile<ProjectState>,
    readonly type: ProjectType,
    readonly ctx: AppContext,
  ) {
    super();
  }

  // Runs `fn` with a reader of the project, holding the lock so it never sees half of a multi-file write (without it
  // where it cannot be made); a project of another branch is read with a warning (default), refused, or read quietly.
  static async read<T>(
    ctx: AppContext,
    fn: (reader: Reader) => Promise<T> | T,
    opts: { otherBranch?: 'warn' | 'refuse' | 'quiet' } = {},
  ): Promise<T> {
    const root = layoutRoot(ctx);
    let release: (() => void) | undefined;
    let deferred: Recorded | undefined;
    try {
      ensureRuntimeDir(root);
      release = await acquireLock(lockPath(root));
    } catch (err) {
      if (!CANNOT_LOCK.has((err as NodeJS.ErrnoException).code ?? '')) throw err;
    }
    try {
      // A read finishes what a killed writer committed (without the lock that fails, saying why), clears its leftovers.
      if (hasJournal(root)) await replay(root);
      if (release) {
        clearLeftovers(root);
        deferred = await recordDeferred(root, ctx);
      }
      const { file, type } = await loadProject(root);
      const problem = branchProblem(root, file.data);
      if (problem && opts.otherBranch === 'refuse') throw problem;
      if (problem && opts.otherBranch !== 'quiet')
        warn(`${problem.message}; changes are refused until then (${problem.hint})`);
      return await fn(new Reader(root, file, type, ctx));
    } finally {
      release?.();
      await afterDeferred(deferred);
    }
  }

  get project(): ProjectState {
    return this.projectFile.data;
  }

  get taskPhase(): string {
    return taskPhase(this.type);
  }

  async task(raw: string): Promise<TaskState> {
    return (await loadTaskFile(this.root, this.type, normalizeTaskId(raw), raw)).data;
  }

  async tasks(): Promise<TaskSummary[]> {
    return (this.summaries ??= await loadSummaries(this.root, this.type, new Map()));
  }

  protected async basis() {
    return { project: this.project, type: this.type };
  }

  /** A document of the repository (relative to its root), or undefined when it does not exist. */
  readDoc(rel: string): string | undefined {
    return readFileIfExists(this.root, rel);
  }

  docExists(rel: string): boolean {
    return fileExists(this.root, rel);
  }
}

// A write: under the lock, refuse a project of another branch (unless `branchCheck` is false), run `fn`, commit what it
// changed. `owner`: the name this command claims tasks under (`--owner`), else SOW_OWNER.
export async function update<R>(
  ctx: AppContext,
  fn: (uow: UnitOfWork) => Promise<R>,
  opts: { branchCheck?: boolean; owner?: string } = {},
) {
  const root = layoutRoot(ctx);
  const { result, due, now, deferred } = await underLock(root, async () => {
    // Runs that ended while another branch was checked out, recorded first.
    const deferred = await recordDeferred(root, ctx);
    const uow = new UnitOfWork(root, ctx, opts.owner);
    if (opts.branchCheck !== false) {
      const problem = branchProblem(root, await uow.project());
      if (problem) throw problem;
    }
    const result = await fn(uow);
    const due = await uow.claimsDue();
    await uow.commit();
    return { result, due, now: uow.now, deferred };
  });
  await afterDeferred(deferred);
  if (due.length) await (await import('./claim-renewal.js')).renewClaims(root, ctx, due, now);
  return result;
}

/** Under the lock, for the commands that create or remove the project itself. */
export async function withWorkspaceLock<R>(ctx: AppContext, fn: (root: string) => Promise<R>): Promise<R> {
  const root = layoutRoot(ctx);
  return underLock(root, () => fn(root));
}
