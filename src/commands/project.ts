/** `sow project …` and `sow status`: create, inspect and remove the project on this branch. */
import { shown } from '../domain/display.js';
import { toJson } from '../domain/json.js';
import { WATCH_OPTION } from '../model/args.js';
import { command, type CommandContext, type CommandDef, type CommandResult } from '../model/def.js';
import { UsageError } from '../domain/errors.js';

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

const STATUS_DESCRIPTION = 'Show the project dashboard: state, phases, tasks and what advance needs';

/** `sow status`, the short spelling of `sow project status`. */
export const status = command({
  name: 'status',
  description: `${STATUS_DESCRIPTION} (same as 'sow project status')`,
  options: [{ flags: '--all', description: "every project: the main checkout's and each worktree's" }, WATCH_OPTION],
  writes: false,
  mcp: { tool: 'status', description: "The project's state, phases, tasks and what advancing needs.", omit: ['all'] },
  run: (ctx, { opts }) => showStatus(ctx, opts),
});

export const commands: readonly CommandDef[] = [
  command({
    name: 'project new',
    description:
      'Start a project on this branch (on main/master, on a new feat/<name> branch); --issue <n> starts it from a ' +
      'GitHub issue',
    examples: [
      "sow project new add-auth -d 'Add authentication'   # on main: creates feat/add-auth",
      'sow project new --type exploration db-choice',
      'sow project new --issue 42                           # from a GitHub issue, through gh',
    ],
    args: [
      {
        name: 'name',
        description: "project name: lower-case letters, digits and dashes (from the issue's title with --issue)",
        optional: true,
      },
    ],
    options: [
      { flags: '-d, --description <text>', description: 'what the project is for', default: '' },
      {
        flags: '-b, --branch <branch>',
        description: 'create or check out this branch for the project (with --issue, default feat/<n>-<title>)',
      },
      {
        flags: '--issue <n>',
        description:
          "start from GitHub issue <n> (through gh): name, branch, description and the issue's text as an input; " +
          'the branch is linked to the issue',
      },
      {
        flags: '-t, --type <type>',
        description:
          "the project type ('sow project types'); default: the one the branch's prefix names (explore/…), " +
          'else standard',
        complete: 'project-type',
      },
      { flags: '--no-planning', description: 'skip the planning phase and start at ImplementationPlanning' },
    ],
    async run(ctx, { args, opts }) {
      const name = args[0] as string | undefined;
      const how = { planning: opts.planning, branch: opts.branch, type: opts.type };
      if (opts.issue === undefined && name === undefined)
        throw new UsageError(
          'a project needs a name',
          "pass one ('sow project new add-auth'), or start from an issue with --issue <n>",
        );
      const gh = opts.issue === undefined ? undefined : await import('../app/github.js');
      const got = gh && (await gh.newProjectFromIssue(ctx.app, gh.parseIssueNumber(opts.issue!), { ...how, name }));
      const { newProject } = await import('../app/project.js');
      const r = got ?? (await newProject(ctx.app, { name: name!, description: opts.description, ...how }));
      const issueNote = !got
        ? ''
        : `\nFrom issue #${got.issue.number} (${got.repo}): '${got.issue.title}'; its text is the input ` +
          `context/issue-${got.issue.number}.md\n` +
          (got.linked
            ? `The branch is linked to the issue on GitHub`
            : `Warning: the branch is not linked to the issue on GitHub: ${got.link_problem}`);
      const moved = r.createdBranch
        ? `created and checked out branch '${r.branch}'`
        : r.switchedBranch
          ? `checked out branch '${r.branch}'`
          : `on branch '${r.branch}'`;
      const base = r.project.base_branch ? `, started from '${r.project.base_branch}'` : '';
      const initialised = r.initialised !== undefined ? `Initialised .sow/ in ${r.initialised} (there was none)\n` : '';
      return {
        data: {
          name: r.project.name,
          branch: r.branch,
          base_branch: r.project.base_branch ?? null,
          created_branch: r.createdBranch,
          initialised: r.initialised !== undefined,
          state: r.project.statechart.current_state,
          ...(got ? { issue: got.issue, linked: got.linked } : {}),
        },
        text: r.project.statechart.current_state,
        message:
          `${initialised}Created project '${shown(r.project.name)}' (${moved}${base})${issueNote}\nNext: sow ` +
          `project continue`,
      };
    },
  }),
  command({
    name: 'project continue',
    description:
      "Where the project stands and the next command (the state card); --full prints the state's whole " +
      'orchestrator prompt',
    options: [{ flags: '--full', description: "the state's whole prompt instead of the card" }],
    writes: false,
    mcp: { tool: 'continue', description: 'The state card: where the project stands and the next command.' },
    async run(ctx, { opts }) {
      const { continueProject } = await import('../app/status.js');
      const r = await continueProject(ctx.app, { card: opts.full !== true });
      return { data: r, text: r.prompt };
    },
  }),
  command({
    name: 'project types',
    description: 'The project types: name, branch prefix, what each is for',
    writes: false,
    async run() {
      const { allProjectTypes } = await import('../domain/project-types/index.js');
      const types = (await allProjectTypes()).map((t) => ({
        name: t.name,
        branch_prefix: t.branchPrefix,
        description: t.description,
      }));
      const { columns } = await import('../cli/render.js');
      return { data: types, text: columns(types.map((t) => [t.name, t.branch_prefix, t.description])) };
    },
  }),
  // `sow status` under its long name, not an MCP tool a second time.
  { ...status, name: 'project status', description: STATUS_DESCRIPTION, mcp: undefined },
  command({
    name: 'project history',
    description: 'List every transition of the lifecycle: when, which event, and who fired it',
    writes: false,
    async run(ctx) {
      const { projectHistory } = await import('../app/project.js');
      const { renderHistory } = await import('../cli/render.js');
      const entries = await projectHistory(ctx.app);
      return {
        data: entries,
        text: renderHistory(entries),
        message: entries.length ? undefined : 'No transitions recorded',
      };
    },
  }),
  command({
    name: 'project set',
    description:
      'Set a project field (name, description, base_branch; branch moves the project to the branch checked out) ' +
      'or metadata',
    args: [{ name: 'field' }, { name: 'value' }],
    async run(ctx, { args }) {
      const { setProjectField } = await import('../app/project.js');
      const r = await setProjectField(ctx.app, args[0] as string, args[1] as string);
      return { data: r, message: `Set project ${r.field} = ${toJson(r.value)}` };
    },
  }),
  command({
    name: 'project delete',
    description: 'Remove .sow/project/ (asks first; --yes without a terminal)',
    options: [
      { flags: '-y, --yes', description: 'do not ask' },
      { flags: '--force', description: 'delete it even though it belongs to another branch' },
    ],
    async run(ctx, { opts }) {
      const { deleteProject } = await import('../app/project.js');
      const { askYesNo, interactive } = await import('../cli/confirm.js');
      const r = await deleteProject(
        ctx.app,
        (name) => askYesNo(`Delete project '${shown(name)}' and everything in .sow/project/?`),
        interactive(),
        opts.yes === true,
        opts.force === true,
      );
      return { data: r, message: `Deleted project '${shown(r.name)}'` };
    },
  }),
];
