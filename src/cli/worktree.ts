import type { Command } from 'commander';
import { cwd, respond } from './output.js';

export default function register(program: Command): void {
  const worktree = program.command('worktree').description('Run another project beside this one: a git worktree of its branch under .sow/worktrees/');

  worktree
    .command('add')
    .description("Check out <branch> in .sow/worktrees/<branch> (created when it does not exist, from --from, else the repository's default branch: origin/HEAD, main or master)")
    .argument('<branch>')
    .option('--from <base>', 'the branch or commit a new branch starts from')
    .action(async (branch: string, opts: { from?: string }) => {
      const { addWorktreeFor } = await import('../app/worktree.js');
      const r = await addWorktreeFor(cwd(), branch, opts.from);
      const why = { from: '', default: ", the repository's default branch; --from picks another", 'checked-out': ', the branch checked out (no default branch found); --from picks another', commit: ', the commit checked out; --from picks another' };
      const how = r.created_from ? `a new branch from '${r.created_from}'${why[r.base_kind ?? 'from']}` : 'the existing branch';
      respond({
        data: r,
        text: r.path,
        message: `Created the worktree of '${r.branch}' (${how}) at ${r.rel}${r.initialised ? '; sow was not committed on it, so .sow/ was initialised there' : ''}\nNext: cd ${r.rel} && sow project new <name> --description "…"`,
      });
    });

  worktree
    .command('list')
    .description('The main checkout and every worktree: branch, path, project, state, tasks done, live agent sessions')
    .action(async () => {
      const { listWorktreesFor } = await import('../app/worktree.js');
      const { renderWorktrees } = await import('./render.js');
      const trees = await listWorktreesFor(cwd());
      respond({ data: trees, text: renderWorktrees(trees) });
    });

  worktree
    .command('remove')
    .description('Remove the worktree of <branch> (the branch itself stays); refused with uncommitted work or a live agent session')
    .argument('<branch>')
    .option('--force', 'remove it even with uncommitted work or a live agent session')
    .action(async (branch: string, opts: { force?: boolean }) => {
      const { removeWorktreeFor } = await import('../app/worktree.js');
      const r = await removeWorktreeFor(cwd(), branch, opts.force === true);
      respond({ data: r, message: `Removed the worktree of '${r.branch}' (${r.rel}); the branch '${r.branch}' is kept` });
    });

  worktree
    .command('prune')
    .description('Forget the worktrees whose folders were deleted by hand')
    .action(async () => {
      const { pruneWorktreesFor } = await import('../app/worktree.js');
      const r = await pruneWorktreesFor(cwd());
      respond({
        data: r,
        text: r.pruned.map((t) => `${t.branch ?? '(detached)'}  ${t.rel}`).join('\n'),
        message: r.pruned.length ? `Forgot ${r.pruned.length} worktree(s) whose folder was gone` : 'Nothing to prune: every worktree folder is there',
      });
    });
}
