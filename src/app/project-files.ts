// The project's state files as the workspace reads them (paths, layout version, validated project and task files,
// summaries through the stat-checked index, doctor's problems); a task's fields live only in its own file.
import { PROJECT_DIR } from '../domain/artifacts.js';
import {
  errorClass,
  NoProjectError,
  MigrationNeededError,
  SowError,
  StateFileError,
  TaskNotFoundError,
  WrongBranchError,
} from '../domain/errors.js';
import { sowTooOld } from '../adapters/installation.js';
import { loadProjectType, PROJECT_TYPE_NAMES } from '../domain/project-types/index.js';
import type { ProjectType } from '../domain/project-type.js';
import { projectProblem } from '../domain/project.js';
import { taskPhase } from '../domain/phases.js';
import {
  LAYOUT_VERSION,
  ProjectStateSchema,
  TASK_ID_PATTERN,
  TaskStateSchema,
  type ProjectState,
  type TaskState,
  type TaskSummary,
} from '../domain/schemas.js';
import { byId, compareIds, findCycle, sortIds, summaryOf, TASK_ID_LIST } from '../domain/tasks.js';
import { listFiles, readFileIfExists } from '../adapters/files.js';
import { branchExists, head } from '../adapters/repo.js';
import { branchesWithFile } from '../adapters/git.js';
import {
  parseStateText,
  readStateFile,
  readText,
  rememberedStateFile,
  stateFileExists,
  validateState,
  type StateFile,
} from '../adapters/state-files.js';
import { isFolder, listFolder, listNames, TaskIndex } from '../adapters/task-index.js';
import { quoted } from '../domain/display.js';

export { PROJECT_DIR };
export const PROJECT_FILE = `${PROJECT_DIR}/state.yaml`;
export const VERSION_FILE = '.sow/.version';
/** The workers' events, a folder of the runtime folder (adapters/runtime.ts). */
export const AGENT_OUTPUTS = 'agent-outputs';
export const tasksDir = (phase: string) => `${PROJECT_DIR}/phases/${phase}/tasks`;
export const taskDir = (phase: string, id: string) => `${tasksDir(phase)}/${id}`;
export const taskFile = (phase: string, id: string) => `${taskDir(phase, id)}/state.yaml`;

/** The layout version `.sow/.version` records. */
export function layoutVersion(root: string): number {
  const text = readFileIfExists(root, VERSION_FILE)?.trim() ?? '';
  if (!/^\d{1,4}$/.test(text))
    throw new StateFileError(
      VERSION_FILE,
      `'${text.slice(0, 20)}' is not a layout version (a whole number such as ${LAYOUT_VERSION})`,
    );
  return Number(text);
}

export function checkLayout(root: string): void {
  const version = layoutVersion(root);
  if (version < LAYOUT_VERSION) throw new MigrationNeededError(version, LAYOUT_VERSION);
  if (version > LAYOUT_VERSION) throw sowTooOld(version, LAYOUT_VERSION);
}

const TASK_STATE = /^\.sow\/project\/phases\/([^/]+)\/tasks\/([^/]+)\/state\.yaml$/;

/** What a journal may write: a state file this sow would write, a number in `.sow/.version`; throws to refuse. */
export async function checkJournalText(rel: string, text: string): Promise<void> {
  if (rel === PROJECT_FILE) {
    await projectTypeOf(rel, validateState(rel, ProjectStateSchema, (await parseStateText(rel, text)).data));
    return;
  }
  const task = TASK_STATE.exec(rel);
  if (task) {
    await parseTask(rel, text, task[2]!, task[1]!);
    return;
  }
  if (rel === VERSION_FILE && !/^\d{1,4}\n?$/.test(text)) throw new StateFileError(rel, 'is not a layout version');
}

export const hasProject = (root: string): boolean => stateFileExists(root, PROJECT_FILE);

/** The files in `.sow/project/` when it has no `state.yaml` (deleted, or left by another branch). */
export function projectLeftovers(root: string): string[] {
  return hasProject(root) ? [] : listFiles(root, PROJECT_DIR);
}

/** `.sow/project/` holds files but no project file: never read as "no project", never adopted by a new one. */
export class ProjectFileMissingError extends errorClass('PROJECT_FILE_MISSING', 'state', (files: readonly string[]) => {
  const shown = files.slice(0, 3).join(', ') + (files.length > 3 ? `, … (${files.length} files)` : '');
  return [
    `${PROJECT_FILE} is missing, but ${PROJECT_DIR}/ still holds ${shown}`,
    `if the project file was deleted, restore it ('git checkout -- ${PROJECT_FILE}'); if these files belong to a ` +
      `project of another branch, commit them there or move them away; 'sow project delete --yes --force' ` +
      `removes them`,
    { file: PROJECT_FILE, files: files.slice(0, 20) },
  ];
}) {}

/** NoProjectError naming the other local branches that have a project (looked up only now, on the way out). */
export function noProjectHere(root: string): NoProjectError {
  const here = head(root).branch;
  return new NoProjectError(branchesWithFile(root, PROJECT_FILE).filter((b) => b !== here));
}

export type LoadedProject = { file: StateFile<ProjectState>; type: ProjectType };

/** Reads and validates the project file, against the schema and against its project type. */
export async function loadProject(root: string): Promise<LoadedProject> {
  if (!hasProject(root)) {
    const left = projectLeftovers(root);
    throw left.length ? new ProjectFileMissingError(left) : noProjectHere(root);
  }
  const file = await readStateFile(root, PROJECT_FILE, ProjectStateSchema);
  return { file, type: await projectTypeOf(PROJECT_FILE, file.data) };
}

/** The project's type, once the project is checked against it. */
async function projectTypeOf(rel: string, data: ProjectState): Promise<ProjectType> {
  const type = await loadProjectType(data.type);
  const types = PROJECT_TYPE_NAMES.join(', ');
  if (!type) throw new StateFileError(rel, `unknown project type ${quoted(data.type)} (types: ${types})`, 'type');
  const problem = projectProblem(type, data);
  if (problem) throw new StateFileError(rel, problem.message, problem.path);
  return type;
}

/** A task file's text, parsed and validated: the schema, and that it is the task its folder says it is. */
async function parseTask(rel: string, text: string, id: string, phase: string): Promise<TaskState> {
  return checkTaskIdentity(rel, validateState(rel, TaskStateSchema, (await parseStateText(rel, text)).data), id, phase);
}

/** That a task file the schema passed is the task its folder says it is. */
function checkTaskIdentity(rel: string, task: TaskState, id: string, phase: string): TaskState {
  if (task.id !== id)
    throw new StateFileError(rel, `says id ${quoted(task.id)}, but it is the file of task ${id} (its folder)`, 'id');
  if (task.phase !== phase)
    throw new StateFileError(rel, `says phase ${quoted(task.phase)}, but tasks live in the ${phase} phase`, 'phase');
  return task;
}

export async function loadTaskFile(root: string, type: ProjectType, id: string, raw = id) {
  const phase = taskPhase(type);
  const rel = taskFile(phase, id);
  // A long-lived process (sow mcp) may still have the file as it last read it.
  let file = rememberedStateFile(root, rel, TaskStateSchema);
  if (!file && !stateFileExists(root, rel)) throw new TaskNotFoundError(raw);
  file ??= await readStateFile(root, rel, TaskStateSchema);
  return { ...file, data: checkTaskIdentity(rel, file.data, id, phase) };
}

/** The ids of the task folders, in id order (from the index while the folder is unchanged); a folder that is not
 * named by an id is an error. */
function taskIds(root: string, phase: string, index: TaskIndex): readonly string[] {
  const dir = tasksDir(phase);
  return index.ids(dir, () => {
    const { names, folders } = listFolder(root, dir);
    // One test for the whole folder: a test per name cost a whole-set read ~1 M instructions at 1,000 tasks.
    if (names.length === 0 || TASK_ID_LIST.test(names.join('/'))) return { ids: sortIds(names), folders };
    return { ids: idsBesideOthers(root, dir, names), folders: false };
  });
}

/** The ids among names that are not all ids: a file beside them is left alone, any other folder refused. */
function idsBesideOthers(root: string, dir: string, names: readonly string[]): string[] {
  const ids: string[] = [];
  for (const name of names) {
    if (TASK_ID_PATTERN.test(name)) ids.push(name);
    // A file beside the task folders (a README) is left alone; a folder is a task folder or a mistake.
    else if (isFolder(root, `${dir}/${name}`)) throw notTaskFolder(dir, name);
  }
  return sortIds(ids);
}

const notTaskFolder = (dir: string, name: string) =>
  new StateFileError(`${dir}/${name}`, 'is not a task folder: task folders are named by task id (010, 020, …, 1000)');

/** Every task's summary (through the stat-checked index), this command's unsaved changes on top. */
export async function loadSummaries(root: string, type: ProjectType, pending: ReadonlyMap<string, TaskState>) {
  const phase = taskPhase(type);
  const index = TaskIndex.open(root);
  const ids = taskIds(root, phase, index);
  const summaries = await index.summaries(tasksDir(phase), ids, async (id, rel, text) =>
    summaryOf(await parseTask(rel, text ?? readText(root, rel), id, phase)),
  );
  index.save();
  let all = summaries;
  if (pending.size > 0) {
    const byKey = new Map(summaries.map((s) => [s.id, s]));
    for (const [id, task] of pending) byKey.set(id, summaryOf(task));
    all = [...byKey.values()].sort(byId);
  }
  // A long-lived process gets the very list it had when no task file changed (adapters/task-index.ts): checked then.
  if (!checked.has(all)) checkDependencies(phase, all);
  checked.add(all);
  return all;
}

/** The lists whose dependencies were found sound (a list handed out again is not checked again). */
const checked = new WeakSet<readonly TaskSummary[]>();

/** A dependency with no folder: deleted (git restores it) or never there (the dependent's file is wrong). */
export class TaskFolderMissingError extends errorClass(
  'TASK_FOLDER_MISSING',
  'state',
  (phase: string, missing: string, dependent: string, index: number) => {
    const folder = taskDir(phase, missing);
    const file = taskFile(phase, dependent);
    return [
      `task ${missing} is missing: its folder ${folder} does not exist, and task ${dependent} depends on it`,
      `if the folder was deleted, restore it with 'git checkout -- ${folder}'; if there never was a ` +
        `task ${missing}, remove ${missing} from the dependencies in ${file}`,
      { folder, task: missing, needed_by: dependent, file, field: `dependencies.${index}` },
    ];
  },
) {}

/** Dependencies name existing tasks (TaskFolderMissingError) and form no cycle (StateFileError). */
function checkDependencies(phase: string, all: readonly TaskSummary[]): void {
  // Plain loops: at 10,000 tasks this runs once per task in cold code.
  const known = new Set<string>();
  for (let i = 0; i < all.length; i++) known.add(all[i]!.id);
  // A cycle needs a dependency on a larger id: without one, no search.
  let upward = false;
  for (let j = 0; j < all.length; j++) {
    const t = all[j]!;
    const deps = t.dependencies;
    for (let i = 0; i < deps.length; i++) {
      const dep = deps[i]!;
      if (!known.has(dep)) throw new TaskFolderMissingError(phase, dep, t.id, i);
      if (compareIds(dep, t.id) >= 0) upward = true;
    }
  }
  if (!upward) return;
  const graph = new Map<string, readonly string[]>();
  // Only tasks with dependencies can lie on a cycle.
  for (const t of all) if (t.dependencies.length > 0) graph.set(t.id, t.dependencies);
  const cycle = findCycle(graph);
  if (cycle)
    throw new StateFileError(
      taskFile(phase, cycle[0]!),
      `the dependencies form a cycle: ${cycle.join(' → ')}`,
      'dependencies',
    );
}

// For `sow doctor`: every problem of the task files, read without the lock, journal or index write; `read` receives
// each task read, in id order.
export async function taskFileProblems(root: string, type: ProjectType, read?: (task: TaskState) => void) {
  const phase = taskPhase(type);
  const dir = tasksDir(phase);
  const problems: SowError[] = [];
  const summaries: TaskSummary[] = [];
  for (const name of listNames(root, dir).sort(compareIds)) {
    if (!TASK_ID_PATTERN.test(name)) {
      if (isFolder(root, `${dir}/${name}`)) problems.push(notTaskFolder(dir, name));
      continue;
    }
    try {
      const task = (await loadTaskFile(root, type, name)).data;
      summaries.push(summaryOf(task));
      read?.(task);
    } catch (err) {
      if (err instanceof TaskNotFoundError)
        problems.push(new StateFileError(taskFile(phase, name), 'is missing: the task folder has no state file'));
      else if (err instanceof SowError) problems.push(err);
      else throw err;
    }
  }
  // Other phases hold no tasks: a tasks folder there is not read by sow.
  for (const other of type.phases.filter((p) => p.name !== phase)) {
    const at = tasksDir(other.name);
    const stray = listNames(root, at).filter((n) => isFolder(root, `${at}/${n}`));
    const why = `holds ${stray.length} folder(s) (${stray.slice(0, 3).join(', ')}), but the tasks of a ${type.name} `;
    if (stray.length) problems.push(new StateFileError(at, `${why}project live in ${dir}`));
  }
  if (problems.length === 0) {
    try {
      checkDependencies(phase, summaries);
    } catch (err) {
      if (!(err instanceof SowError)) throw err;
      problems.push(err);
    }
  }
  return problems;
}

/** The summaries of a task's dependencies; one without a task is an error: left out, it would stop blocking. */
export async function dependenciesOf(task: TaskState, phase: string, load: (id: string) => Promise<TaskState>) {
  const out: TaskSummary[] = [];
  for (const [i, id] of task.dependencies.entries()) {
    try {
      out.push(summaryOf(await load(id)));
    } catch (err) {
      if (err instanceof TaskNotFoundError) throw new TaskFolderMissingError(phase, id, task.id, i);
      throw err;
    }
  }
  return out;
}

/** Why the checked-out branch may not change this project (WRONG_BRANCH), or undefined when it may. */
export function branchProblem(root: string, project: ProjectState): WrongBranchError | undefined {
  const here = head(root);
  if (here.branch === project.branch) return undefined;
  const details = { project_branch: project.branch, current_branch: here.branch ?? null };
  if (here.branch === undefined)
    return new WrongBranchError(
      `HEAD is detached${here.commit ? ` at ${here.commit.slice(0, 7)}` : ''}, and this project belongs to ` +
        `'${project.branch}'`,
      `run 'git checkout ${project.branch}'`,
      details,
    );
  if (!branchExists(root, project.branch))
    return new WrongBranchError(
      `this project belongs to '${project.branch}', which no longer exists, and '${here.branch}' is checked out`,
      `if you renamed '${project.branch}' to '${here.branch}', run 'sow project set branch ${here.branch}' to ` +
        `move the project with it; otherwise run 'git checkout' with the project's branch`,
      details,
    );
  return new WrongBranchError(
    `this project belongs to '${project.branch}', but '${here.branch}' is checked out`,
    `run 'git checkout ${project.branch}'; or, to carry the project on in '${here.branch}', run 'sow project ` +
      `set branch ${here.branch}'`,
    details,
  );
}
