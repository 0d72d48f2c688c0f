/** `sow project new|set|delete|history`: the project container and the branch it belongs to. */
import type { AppContext } from './context.js';
import {
  AbortedError,
  ConfirmationRequiredError,
  InvalidNameError,
  InvalidValueError,
  NotInitializedError,
  ProjectExistsError,
  SowError,
  StateFileError,
  WrongBranchError,
} from '../domain/errors.js';
import { coerceField, parseValue, resolveField, setAtPath } from '../domain/fields.js';
import { advance } from '../domain/lifecycle.js';
import {
  checkPlanning,
  checkProjectName,
  initialProject,
  isProjectName,
  PROJECT_FIELDS,
  PROJECT_NAME_RULE,
  type NewProjectSpec,
} from '../domain/project.js';
import { projectType, typeFor } from '../domain/project-types/index.js';
import { initWorkspace } from './init.js';
import type { HistoryEntry, ProjectState } from '../domain/schemas.js';
import { branchHasFile, git, hasUncommitted, isValidBranchName, val } from '../adapters/git.js';
import { branchCreatedFrom, branchExists, findRepoRoot, findWorkspaceRoot, head } from '../adapters/repo.js';
import { renderStateFile } from '../adapters/state-files.js';
import { Transaction } from '../adapters/transaction.js';
import { ProjectStateSchema } from '../domain/schemas.js';
import { actor } from './unit-of-work.js';
import {
  AGENT_OUTPUTS,
  branchProblem,
  hasProject,
  loadProject,
  noProjectHere,
  PROJECT_DIR,
  PROJECT_FILE,
  ProjectFileMissingError,
  projectLeftovers,
} from './project-files.js';
import { Reader, update, withWorkspaceLock } from './workspace.js';
import { quoted, shown } from '../domain/display.js';

const DEFAULT_BRANCHES = ['main', 'master'];

/** What `project new` is given: the project's spec, with the branch to hold it and its type if named. */
export type NewProjectOptions = Omit<NewProjectSpec, 'branch' | 'baseBranch'> & { branch?: string; type?: string };

export type NewProjectResult = Awaited<ReturnType<typeof newProject>>;

/** Says what `project new` found in .sow/project/, and the way out that works from here. */
async function existingProjectError(root: string, here: string | undefined): Promise<SowError> {
  let project: ProjectState;
  try {
    project = (await loadProject(root)).file.data;
  } catch (err) {
    if (!(err instanceof StateFileError)) throw err;
    return new ProjectExistsError(
      `.sow/project/ holds a project sow cannot read (${err.message})`,
      "fix the file, or remove the project with 'sow project delete --yes --force'",
      {},
    );
  }
  const name = quoted(project.name);
  const uncommitted = hasUncommitted(root, PROJECT_DIR);
  const details = {
    name: project.name,
    project_branch: project.branch,
    current_branch: here ?? null,
    state: project.statechart.current_state,
    uncommitted,
  };
  if (here !== undefined && project.branch === here)
    return new ProjectExistsError(
      `branch '${here}' already has project ${name} (in ${shown(project.statechart.current_state)}); a branch ` +
        `holds one project`,
      `carry it on with 'sow project continue', or remove it with 'sow project delete'; to start another ` +
        `project, ${uncommitted ? "commit this one first ('git add .sow && git commit'), then " : ''}check out the ` +
        `branch to start from ('git checkout ${project.base_branch ?? 'main'}') and run 'sow project new' there`,
      details,
    );
  const where = here === undefined ? 'HEAD is detached' : `'${here}' is checked out`;
  if (uncommitted)
    return new ProjectExistsError(
      `.sow/project/ holds project ${name} of branch ${quoted(project.branch)}, and ${where}: it came along ` +
        `uncommitted when the branch changed`,
      `run 'git checkout ${project.branch}' and commit it there ('git add .sow && git commit'); then check out the ` +
        `branch to start from and run 'sow project new' again`,
      details,
    );
  return new ProjectExistsError(
    `.sow/project/ holds project ${name} of branch ${quoted(project.branch)}, committed here too, and ${where}`,
    `if it does not belong here, remove it from this branch with 'sow project delete --yes --force' and commit ` +
      `that; then run 'sow project new' again`,
    details,
  );
}

/** The branch a project started on `branch` (without switching) is based on. */
function baseOf(root: string, branch: string): string | undefined {
  const recorded = branchCreatedFrom(root, branch);
  if (recorded && recorded !== branch) return recorded;
  return DEFAULT_BRANCHES.find((b) => b !== branch && branchExists(root, b));
}

const checkBranchName = (cwd: string, branch: string, project: string) => {
  if (!isValidBranchName(cwd, branch))
    throw new InvalidNameError('branch name', branch, 'git does not accept it as a branch name', `feat/${project}`);
};

/** What `project new` decides before it changes anything, and the refusals that need no .sow/. */
async function planNewProject(root: string, opts: NewProjectOptions) {
  const here = head(root).branch;
  const type = await typeFor(opts.type, opts.branch ?? here);
  // A type the branch's prefix implies (explore/…) is known only here, before any switch.
  checkPlanning(type, opts.planning);
  if (here === undefined && opts.branch === undefined)
    throw new SowError(
      'DETACHED_HEAD',
      'failed',
      'HEAD is detached, so there is no branch to hold the project',
      "check out a branch ('git checkout <branch>'), or pass --branch <name> to create one here",
    );
  const target =
    opts.branch ??
    (here !== undefined && DEFAULT_BRANCHES.includes(here) ? `${type.branchPrefix}${opts.name}` : undefined);
  if (target !== undefined && target !== here) {
    checkBranchName(root, target, opts.name);
    if (branchHasFile(root, target, PROJECT_FILE))
      throw new ProjectExistsError(
        `branch '${target}' already has a project, committed there`,
        `resume it with 'git checkout ${target}' and 'sow project continue', or pick another branch with ` +
          `--branch <name>`,
        { project_branch: target },
      );
  }
  return { type, here, target };
}

// Without .sow/, `project new` initialises it first, once every refusal that needs none has had its say: a refused
// `project new` leaves nothing behind. Returns the root it initialised, if it did.
async function initialiseFor(cwd: string, opts: NewProjectOptions): Promise<string | undefined> {
  try {
    findWorkspaceRoot(cwd);
    return undefined;
  } catch (err) {
    if (!(err instanceof NotInitializedError)) throw err;
  }
  await planNewProject(findRepoRoot(cwd), opts);
  return initWorkspace(cwd).root;
}

export async function newProject(ctx: AppContext, opts: NewProjectOptions) {
  // The command line first: its mistakes come before anything the repository could refuse.
  checkProjectName(opts.name);
  if (opts.type !== undefined) checkPlanning(await projectType(opts.type), opts.planning);
  if (opts.branch !== undefined) checkBranchName(ctx.cwd, opts.branch, opts.name);
  const initialised = await initialiseFor(ctx.cwd, opts);
  return withWorkspaceLock(ctx, async (root) => {
    if (hasProject(root)) throw await existingProjectError(root, head(root).branch);
    const leftovers = projectLeftovers(root);
    if (leftovers.length) throw new ProjectFileMissingError(leftovers);
    // Refuse before switching: a failed `project new` leaves the user where they were.
    const { type, here, target } = await planNewProject(root, opts);
    const switchedBranch = target !== undefined && target !== here;
    const createdBranch = switchedBranch && !branchExists(root, target);
    if (switchedBranch) {
      // `target` passed isValidBranchName, so it cannot begin with '-' (git takes no `--` before a branch).
      if (createdBranch) git(root, ['checkout', '--quiet', '-b', val(target, 'the branch', 'user')]);
      else git(root, ['checkout', '--quiet', val(target, 'the branch', 'user'), '--']);
    }
    const branch = switchedBranch ? target : here!;
    const base = switchedBranch ? here : baseOf(root, branch);
    const at = ctx.now();
    const initial = initialProject(type, { ...opts, branch, baseBranch: base }, at);
    const started = advance(type, { project: initial, tasks: [] }, at, actor(ctx.env), 'project_init').project;
    const { project, files } = type.scaffold?.(started, at) ?? { project: started, files: {} };
    const tx = new Transaction(root);
    tx.write(PROJECT_FILE, await renderStateFile(undefined, PROJECT_FILE, ProjectStateSchema, project));
    for (const [rel, text] of Object.entries(files)) tx.write(`${PROJECT_DIR}/${rel}`, text);
    tx.write(`${PROJECT_DIR}/log.md`, `# Project log: ${opts.name}\n\n`);
    tx.commit();
    return { project, branch, createdBranch, switchedBranch, ...(initialised !== undefined ? { initialised } : {}) };
  });
}

export async function setProjectField(ctx: AppContext, field: string, raw: string) {
  // Moving the project to the checked-out branch is the one write allowed from another branch.
  const moving = field === 'branch';
  return update(
    ctx,
    async (uow) => {
      const project = await uow.project();
      const resolved = resolveField(field, PROJECT_FIELDS, 'the project');
      if (resolved.where === 'field') {
        const value = coerceField(resolved.name, raw, resolved.spec);
        if (resolved.name === 'name' && !isProjectName(String(value)))
          throw new InvalidValueError(
            'name',
            String(value),
            PROJECT_NAME_RULE,
            "for example 'sow project set name add-auth'",
          );
        if (resolved.name === 'branch') {
          const here = head(uow.root).branch;
          if (value !== here)
            throw new InvalidValueError(
              'branch',
              String(value),
              here ? `'${here}', the branch that is checked out` : 'the branch that is checked out (HEAD is detached)',
              "a project moves only to the branch it is on: run 'git checkout <branch>' first",
            );
        }
        if (resolved.name === 'base_branch' && !isValidBranchName(uow.root, String(value)))
          throw new InvalidValueError(
            'base_branch',
            String(value),
            'a branch name git accepts',
            "name the branch the project started from, e.g. 'main'",
          );
        uow.setProject({ ...project, [resolved.name]: value });
        return { field: resolved.name, value };
      }
      const value = parseValue(raw);
      uow.setProject({ ...project, metadata: setAtPath({ ...project.metadata }, resolved.path, value) });
      return { field: `metadata.${resolved.path.join('.')}`, value };
    },
    { branchCheck: !moving },
  );
}

/** Removes .sow/project/. `confirm` asks on a terminal; `yes` answers for it; `force` overrides a refusal. */
export async function deleteProject(
  ctx: AppContext,
  confirm: (name: string) => Promise<boolean>,
  interactive: boolean,
  yes: boolean,
  force: boolean,
): Promise<{ name: string }> {
  return withWorkspaceLock(ctx, async (root) => {
    // Files without a project file (a deleted state.yaml, another branch's leftovers) can be removed too.
    if (!hasProject(root) && projectLeftovers(root).length === 0) throw noProjectHere(root);
    // An invalid project can still be deleted: read its name without trusting the file.
    let name = '(unreadable project)';
    try {
      const { file } = await loadProject(root);
      name = file.data.name;
      const problem = branchProblem(root, file.data);
      if (problem && !force)
        throw new WrongBranchError(
          problem.message,
          `${problem.hint}; or pass --force to delete it from here anyway`,
          problem.details,
        );
    } catch (err) {
      // Files without a project file only go with --force: they may be someone's uncommitted work.
      if (err instanceof ProjectFileMissingError) {
        if (!force) throw err;
        name = '(files without a project file)';
      } else if (!(err instanceof StateFileError)) throw err;
    }
    if (!yes) {
      if (!interactive) throw new ConfirmationRequiredError(`deleting project '${name}'`, '--yes');
      if (!(await confirm(name))) throw new AbortedError('project delete');
    }
    new Transaction(root).removeTree(PROJECT_DIR).removeRuntimeTree(AGENT_OUTPUTS).commit();
    return { name };
  });
}

export async function projectHistory(ctx: AppContext): Promise<HistoryEntry[]> {
  return Reader.read(ctx, (reader) => reader.project.statechart.history ?? []);
}
