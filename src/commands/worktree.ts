/** `sow worktree …`: another project beside this one, in a git worktree under .sow/worktrees/. */
import { command, type CommandDef } from '../model/def.js';

export const commands: readonly CommandDef[] = [
  command({
    name: 'worktree add',
    description:
      'Check out <branch> in .sow/worktrees/<branch> (created when it does not exist, from --from, else the ' +
      "repository's default branch: origin/HEAD, main or master)",
    args: [{ name: 'branch' }],
    options: [{ flags: '--from <base>', description: 'the branch or commit a new branch starts from' }],
    async run(ctx, { args, opts }) {
      const { addWorktreeFor } = await import('../app/worktree.js');
      const r = await addWorktreeFor(ctx.app, args[0] as string, opts.from);
      const why = {
        from: '',
        default: ", the repository's default branch; --from picks another",
        'checked-out': ', the branch checked out (no default branch found); --from picks another',
        commit: ', the commit checked out; --from picks another',
      };
      const how = r.created_from
        ? `a new branch from '${r.created_from}'${why[r.base_kind ?? 'from']}`
        : 'the existing branch';
      return {
        data: r,
        text: r.path,
        message:
          `Created the worktree of '${r.branch}' (${how}) ` +
          `at ${r.rel}${r.initialised ? '; sow was not committed on it, so .sow/ was initialised there' : ''}\nNext: ` +
          `cd ${r.rel} && sow project new <name> --description "…"`,
      };
    },
  }),
  command({
    name: 'worktree list',
    description: 'The main checkout and every worktree: branch, path, project, state, tasks done, live agent sessions',
    writes: false,
    async run(ctx) {
      const { listWorktreesFor } = await import('../app/worktree.js');
      const { renderWorktrees } = await import('../cli/render.js');
      const trees = await listWorktreesFor(ctx.app);
      return { data: trees, text: renderWorktrees(trees) };
    },
  }),
  command({
    name: 'worktree remove',
    description:
      'Remove the worktree of <branch> (the branch itself stays); refused with uncommitted work or a live ' +
      'agent session',
    args: [{ name: 'branch' }],
    options: [{ flags: '--force', description: 'remove it even with uncommitted work or a live agent session' }],
    async run(ctx, { args, opts }) {
      const { removeWorktreeFor } = await import('../app/worktree.js');
      const r = await removeWorktreeFor(ctx.app, args[0] as string, opts.force === true);
      return { data: r, message: `Removed the worktree of '${r.branch}' (${r.rel}); the branch '${r.branch}' is kept` };
    },
  }),
  command({
    name: 'worktree prune',
    description: 'Forget the worktrees whose folders were deleted by hand',
    async run(ctx) {
      const { pruneWorktreesFor } = await import('../app/worktree.js');
      const r = await pruneWorktreesFor(ctx.app);
      return {
        data: r,
        text: r.pruned.map((t) => `${t.branch ?? '(detached)'}  ${t.rel}`).join('\n'),
        message: r.pruned.length
          ? `Forgot ${r.pruned.length} worktree(s) whose folder was gone`
          : 'Nothing to prune: every worktree folder is there',
      };
    },
  }),
];
