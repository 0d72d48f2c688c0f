// The change feed a watching view follows: one callback per burst of changes in this checkout, or with `all` in every
// checkout with a project, those that come later included.
import { join } from 'node:path';
import { findRepoRoot, findWorkspaceRoot, ownGitDir } from '../adapters/repo.js';
import { ensureRuntimeDir } from '../adapters/runtime.js';
import { watchFolders, watchSow, type Feed } from '../adapters/watch.js';
import { isWorkerCheckoutPath } from '../adapters/worker-checkouts.js';
import { listWorktrees } from '../adapters/worktrees.js';
import type { AppContext } from './context.js';
import { checkoutsWithProject } from './worktree.js';

export function followWorkspace(ctx: AppContext, onChange: () => void, opts: { all?: boolean } = {}): Feed {
  // A fresh clone has no runtime folder yet, and a folder that is not there cannot be watched.
  const follow = (root: string) => watchSow(root, onChange, { runtime: ensureRuntimeDir(root) });
  if (!opts.all) return follow(findWorkspaceRoot(ctx.cwd));
  const feeds = new Map<string, Feed>();
  let shape: Feed | undefined;
  let closed = false;
  /** Follows the checkouts with a project now (and only them); true when that changed. */
  const sync = (): boolean => {
    let moved = false;
    let roots: Set<string>;
    let trees: { path: string; prunable: boolean }[];
    try {
      roots = new Set(checkoutsWithProject(ctx.cwd).map((c) => c.path));
      trees = listWorktrees(findRepoRoot(ctx.cwd));
    } catch {
      return false; // git could not say (a checkout being made): the next change asks again
    }
    for (const [root, f] of feeds)
      if (!roots.has(root)) {
        f.close();
        feeds.delete(root);
        moved = true;
      }
    for (const root of roots)
      if (!feeds.has(root)) {
        feeds.set(root, follow(root));
        moved = true;
      }
    // A checkout or a project coming shows in git's list of worktrees, or in a checkout without a project.
    const common = trees[0] ? ownGitDir(trees[0].path) : undefined;
    const bare = trees.filter((t) => !t.prunable && !roots.has(t.path) && !isWorkerCheckoutPath(t.path));
    shape?.close();
    shape = watchFolders(
      [...(common ? [common, join(common, 'worktrees')] : []), ...bare.flatMap((t) => [t.path, join(t.path, '.sow')])],
      () => {
        if (!closed && sync()) onChange();
      },
    );
    return moved;
  };
  sync();
  return {
    close() {
      closed = true;
      shape?.close();
      for (const f of feeds.values()) f.close();
    },
  };
}
