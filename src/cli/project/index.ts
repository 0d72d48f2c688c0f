import { Command } from 'commander';
import { cwd, respond } from '../output.js';
import { askYesNo, interactive } from '../confirm.js';
import { toJson } from '../../domain/json.js';
import { shown } from '../../domain/display.js';

async function showStatus(opts: { all?: boolean }): Promise<void> {
  if (opts.all) {
    // Every project: the main checkout's and each worktree's.
    const { listWorktreesFor } = await import('../../app/worktree.js');
    const { renderWorktrees } = await import('../render.js');
    const trees = await listWorktreesFor(cwd());
    respond({ data: trees.filter((t) => t.project), text: renderWorktrees(trees, { projectsOnly: true }) });
    return;
  }
  const { projectStatus } = await import('../../app/status.js');
  const { renderStatus } = await import('../render.js');
  const { paintFor } = await import('../colour.js');
  // The lifecycle map is for a person at a terminal: piped output and --json stay as they were.
  const r = await projectStatus(cwd(), { map: process.stdout.isTTY === true && !process.argv.includes('--json') });
  respond({ data: r, text: renderStatus(r, paintFor()) });
}

const ALL_OPTION = ['--all', 'every project: the main checkout and each worktree (branch, state, tasks done, live agent sessions)'] as const;

const STATUS_DESCRIPTION = 'Show the project dashboard: state, phases, tasks and what advance needs';

/** `sow status`, the short spelling of `sow project status`. */
export function registerStatus(program: Command): void {
  program.command('status').description(`${STATUS_DESCRIPTION} (same as 'sow project status')`).option(...ALL_OPTION).action(showStatus);
}

export default function register(program: Command): void {
  const project = program.command('project').description('Create, inspect and remove the project on this branch');

  project
    .command('new')
    .description('Start a project on this branch (on main/master, on a new feat/<name> branch); --issue <n> starts it from a GitHub issue')
    .argument('[name]', 'project name: lower-case letters, digits and dashes (from the issue\'s title with --issue)')
    .option('-d, --description <text>', 'what the project is for', '')
    .option('-b, --branch <branch>', 'create or check out this branch for the project (with --issue, default feat/<n>-<title>)')
    .option('--issue <n>', 'start from GitHub issue <n> (through gh): name, branch, description and the issue\'s text as an input; the branch is linked to the issue')
    .option('-t, --type <type>', "the project type ('sow project types'); default: the one the branch's prefix names (explore/…), else standard")
    .option('--no-planning', 'skip the planning phase and start at ImplementationPlanning')
    .action(async (name: string | undefined, opts: { description: string; branch?: string; planning: boolean; issue?: string; type?: string }) => {
      const branchOpt = { ...(opts.branch !== undefined ? { branch: opts.branch } : {}), ...(opts.type !== undefined ? { type: opts.type } : {}) };
      let issueNote = '';
      let fromIssue: { issue: unknown; linked: boolean } | undefined;
      let r: import('../../app/project.js').NewProjectResult;
      if (opts.issue !== undefined) {
        const gh = await import('../../app/github.js');
        const got = await gh.newProjectFromIssue(cwd(), gh.parseIssueNumber(opts.issue), { planning: opts.planning, ...branchOpt, ...(name !== undefined ? { name } : {}) });
        r = got;
        fromIssue = { issue: got.issue, linked: got.linked };
        issueNote = `\nFrom issue #${got.issue.number} (${got.repo}): '${got.issue.title}'; its text is the input context/issue-${got.issue.number}.md` +
          `\n${got.linked ? `The branch is linked to the issue on GitHub` : `Warning: the branch is not linked to the issue on GitHub: ${got.link_problem}`}`;
      } else {
        if (name === undefined) {
          const { UsageError } = await import('../../domain/errors.js');
          throw new UsageError('a project needs a name', "pass one ('sow project new add-auth'), or start from an issue with --issue <n>");
        }
        const { newProject } = await import('../../app/project.js');
        r = await newProject(cwd(), { name, description: opts.description, planning: opts.planning, ...branchOpt });
      }
      const moved = r.createdBranch ? `created and checked out branch '${r.branch}'` : r.switchedBranch ? `checked out branch '${r.branch}'` : `on branch '${r.branch}'`;
      const base = r.project.base_branch ? `, started from '${r.project.base_branch}'` : '';
      const initialised = r.initialised !== undefined ? `Initialised .sow/ in ${r.initialised} (there was none)\n` : '';
      respond({
        data: { name: r.project.name, branch: r.branch, base_branch: r.project.base_branch ?? null, created_branch: r.createdBranch, initialised: r.initialised !== undefined, state: r.project.statechart.current_state, ...(fromIssue ?? {}) },
        text: r.project.statechart.current_state,
        message: `${initialised}Created project '${shown(r.project.name)}' (${moved}${base})${issueNote}\nNext: sow project continue`,
      });
    });

  project
    .command('continue')
    .description('Print the orchestrator prompt for the current state (how to start a project, when there is none)')
    .action(async () => {
      const { continueProject } = await import('../../app/status.js');
      const r = await continueProject(cwd());
      respond({ data: r, text: r.prompt });
    });

  project
    .command('types')
    .description('The project types: name, branch prefix, what each is for')
    .action(async () => {
      const { PROJECT_TYPES } = await import('../../domain/project-types/index.js');
      const types = Object.values(PROJECT_TYPES).map((t) => ({ name: t.name, branch_prefix: t.branchPrefix, description: t.description }));
      const { columns } = await import('../render.js');
      respond({ data: types, text: columns(types.map((t) => [t.name, t.branch_prefix, t.description])) });
    });

  project.command('status').description(STATUS_DESCRIPTION).option(...ALL_OPTION).action(showStatus);

  project
    .command('history')
    .description('List every transition of the lifecycle: when, which event, and who fired it')
    .action(async () => {
      const { projectHistory } = await import('../../app/project.js');
      const { renderHistory } = await import('../render.js');
      const entries = await projectHistory(cwd());
      respond({ data: entries, text: renderHistory(entries), ...(entries.length ? {} : { message: 'No transitions recorded' }) });
    });

  project
    .command('set')
    .description('Set a project field (name, description, base_branch; branch moves the project to the branch checked out) or metadata')
    .argument('<field>')
    .argument('<value>')
    .action(async (field: string, value: string) => {
      const { setProjectField } = await import('../../app/project.js');
      const r = await setProjectField(cwd(), field, value);
      respond({ data: r, message: `Set project ${r.field} = ${toJson(r.value)}` });
    });

  project
    .command('delete')
    .description('Remove .sow/project/ (asks first; --yes without a terminal)')
    .option('-y, --yes', 'do not ask')
    .option('--force', 'delete it even though it belongs to another branch')
    .action(async (opts: { yes?: boolean; force?: boolean }) => {
      const { deleteProject } = await import('../../app/project.js');
      const r = await deleteProject(cwd(), (name) => askYesNo(`Delete project '${shown(name)}' and everything in .sow/project/?`), interactive(), opts.yes === true, opts.force === true);
      respond({ data: r, message: `Deleted project '${shown(r.name)}'` });
    });
}
