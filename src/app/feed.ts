/**
 * The change feed of a workspace, for views that follow it (`--watch`, later the browser view):
 * one callback after each burst of changes to what sow shows — its state, the tasks' documents,
 * the workers' events — in this checkout, or with `all` in every checkout with a project.
 */
import { findWorkspaceRoot } from '../adapters/repo.js';
import { ensureRuntimeDir } from '../adapters/runtime.js';
import { watchSow, type Feed } from '../adapters/watch.js';
import { contextOf, type Where } from './context.js';
import { checkoutsWithProject } from './worktree.js';

export function followWorkspace(where: Where, onChange: () => void, opts: { all?: boolean; settleMs?: number } = {}): Feed {
  const ctx = contextOf(where);
  const roots = opts.all ? checkoutsWithProject(ctx.cwd).map((c) => c.path) : [findWorkspaceRoot(ctx.cwd)];
  // The runtime folder (in git's folder) is made first: a fresh clone has none, and a folder that is not there cannot be watched.
  const feeds = roots.map((root) => watchSow(root, onChange, { runtime: ensureRuntimeDir(root), ...(opts.settleMs !== undefined ? { settleMs: opts.settleMs } : {}) }));
  return { close: () => feeds.forEach((f) => f.close()) };
}
