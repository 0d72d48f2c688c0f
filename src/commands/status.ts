/** `sow status` and `sow project status`: the project dashboard, apart from the project's writes so that the
 * executable can run them from a pack without the writes' code (scripts/build.mjs). */
import { WATCH_OPTION } from '../model/args.js';
import { command, type CommandContext, type CommandDef, type CommandResult } from '../model/def.js';

async function showStatus(
  ctx: CommandContext,
  opts: { all?: boolean; watch?: boolean },
): Promise<CommandResult | undefined> {
  if (opts.watch) {
    const { watchView } = await import('../cli/watch.js');
    return watchView(
      ctx,
      opts.all ? 'sow status --all' : 'sow status',
      async () => (await showStatus(ctx, { ...opts, watch: false }))!,
      opts.all ? { all: true } : {},
    );
  }
  if (opts.all) {
    const { listWorktreesFor } = await import('../app/worktree.js');
    const { renderWorktrees } = await import('../cli/render.js');
    const trees = await listWorktreesFor(ctx.app);
    return { data: trees.filter((t) => t.project), text: renderWorktrees(trees, { projectsOnly: true }) };
  }
  const { projectStatus } = await import('../app/status.js');
  const { renderStatus } = await import('../cli/render.js');
  const { paintFor } = await import('../cli/colour.js');
  // The lifecycle map is for a person at a terminal: piped output and --json stay as they were.
  const r = await projectStatus(ctx.app, { map: (await import('../cli/stdio.js')).stdout.isTTY && !ctx.json });
  // A state whose guard does not hold is said on stderr, one line, with --json too (the data has it as state_problem).
  const warnings = r.state_problem ? [`${r.state_problem.message}; ${r.state_problem.hint}`] : [];
  return { data: r, text: renderStatus(r, paintFor()), ...(warnings.length ? { warnings } : {}) };
}

const ALL_OPTION = { flags: '--all', description: "every project: the main checkout's and each worktree's" } as const;

const STATUS_DESCRIPTION = 'Show the project dashboard: state, phases, tasks and what advance needs';

/** `sow status`, the short spelling of `sow project status`. */
export const status = command({
  name: 'status',
  description: `${STATUS_DESCRIPTION} (same as 'sow project status')`,
  options: [ALL_OPTION, WATCH_OPTION],
  writes: false,
  mcp: { tool: 'status', description: "The project's state, phases, tasks and what advancing needs.", omit: ['all'] },
  run: (ctx, { opts }) => showStatus(ctx, opts),
});

export const projectStatus: CommandDef = {
  ...status,
  name: 'project status',
  description: STATUS_DESCRIPTION,
  mcp: undefined,
};

/** The project group as the status pack holds it. */
export const commands: readonly CommandDef[] = [projectStatus];
