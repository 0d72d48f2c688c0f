/**
 * The one way use cases touch state: find the workspace, check its layout, finish any interrupted
 * transaction, load and validate state, let a use case change it, then validate and write the
 * changed files in one transaction — all under the lock for writers. A use case that throws
 * writes nothing.
 *
 * One truth per fact: a task's fields live only in its own file. What lists and guards need of
 * every task is read from those files (through the stat-checked task index), never from a copy.
 */
import { PROJECT_DIR } from '../domain/artifacts.js';
import {
  NoProjectError,
  MigrationNeededError,
  SowError,
  StateFileError,
  TaskNotFoundError,
  WrongBranchError,
} from '../domain/errors.js';
import { sowTooOld } from '../adapters/installation.js';
import { readsTaskStates, type Actor } from '../domain/lifecycle.js';
import { loadProjectType, PROJECT_TYPE_NAMES } from '../domain/project-types/index.js';
import type { ProjectType, ProjectView } from '../domain/project-type.js';
import { projectProblem } from '../domain/project.js';
import { isOwnedBy, NotOwnerError, renewLease, retiredIdentity } from '../domain/ownership.js';
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
import { byId, compareIds, findCycle, normalizeTaskId, sortIds, summaryOf } from '../domain/tasks.js';
import { fileExists, fileTail, listFiles, readFileIfExists } from '../adapters/files.js';
import { acquireLock, withLock } from '../adapters/lock.js';
import { warn } from '../adapters/notices.js';
import { branchExists, findWorkspaceRoot, head } from '../adapters/repo.js';
import { branchesWithFile } from '../adapters/git.js';
import { ensureRuntimeDir, runtimePath } from '../adapters/runtime.js';
import {
  parseStateText,
  readStateFile,
  readText,
  rememberedStateFile,
  renderStateFile,
  stateFileExists,
  validateState,
  type StateFile,
} from '../adapters/state-files.js';
import { isFolder, listNames, TaskIndex } from '../adapters/task-index.js';
import { atTerminal, personName } from '../adapters/person.js';
import { clearLeftovers, hasJournal, replayJournal, Transaction } from '../adapters/transaction.js';
import { hasDeferredRuns } from '../adapters/deferred-runs.js';
import { quoted } from '../domain/display.js';
import { contextOf, type AppContext, type Where } from './context.js';

export { PROJECT_DIR };
export const PROJECT_FILE = `${PROJECT_DIR}/state.yaml`;
export const VERSION_FILE = '.sow/.version';
/** The workers' events, a folder of the runtime folder (adapters/runtime.ts). */
export const AGENT_OUTPUTS = 'agent-outputs';
export const tasksDir = (phase: string) => `${PROJECT_DIR}/phases/${phase}/tasks`;
export const taskDir = (phase: string, id: string) => `${tasksDir(phase)}/${id}`;
export const taskFile = (phase: string, id: string) => `${taskDir(phase, id)}/state.yaml`;
export const lockPath = (root: string) => runtimePath(root, 'lock');

/**
 * Runs `fn` holding the workspace lock. The runtime folder is made first: git never carries it,
 * so a fresh clone has none.
 */
export function withRootLock<T>(root: string, fn: () => Promise<T> | T): Promise<T> {
  ensureRuntimeDir(root);
  return withLock(lockPath(root), fn);
}

/**
 * Who is acting: a spawned worker (its agent id, from its environment), else the user; the
 * session it runs in (SOW_SESSION_ID, an identity of its own, with or without an agent id); and
 * the name it claims tasks under (`--owner`, else SOW_OWNER), if any. The person at a terminal is
 * added by the unit of work when a claim needs the name (UnitOfWork.knowPerson).
 */
export function actor(env: AppContext['env'], owner?: string): Actor {
  const agent = env['SOW_AGENT_ID'];
  const session = env['SOW_SESSION_ID'];
  const name = owner ?? (env['SOW_OWNER'] || undefined);
  return { by: agent || 'user', ...(session ? { session } : {}), ...(name ? { owner: name } : {}) };
}

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

function checkLayout(root: string): void {
  const version = layoutVersion(root);
  if (version < LAYOUT_VERSION) throw new MigrationNeededError(version, LAYOUT_VERSION);
  if (version > LAYOUT_VERSION) throw sowTooOld(version, LAYOUT_VERSION);
}

const TASK_STATE = /^\.sow\/project\/phases\/([^/]+)\/tasks\/([^/]+)\/state\.yaml$/;

/**
 * What a journal may write: a state file must be one this sow would write (it parses and
 * validates, and a task is the task of its folder); `.sow/.version` is a number. Anything else in
 * `.sow/` (documents, logs) is text. Throws to refuse the journal.
 */
export async function checkJournalText(rel: string, text: string): Promise<void> {
  if (rel === PROJECT_FILE) {
    const data = validateState(rel, ProjectStateSchema, (await parseStateText(rel, text)).data);
    const type = await loadProjectType(data.type);
    if (!type) throw new StateFileError(rel, `unknown project type ${quoted(data.type)}`, 'type');
    const problem = projectProblem(type, data);
    if (problem) throw new StateFileError(rel, problem.message, problem.path);
    return;
  }
  const task = TASK_STATE.exec(rel);
  if (task) {
    validateTask(rel, (await parseStateText(rel, text)).data, task[2]!, task[1]!);
    return;
  }
  if (rel === VERSION_FILE && !/^\d{1,4}\n?$/.test(text)) throw new StateFileError(rel, 'is not a layout version');
}

const replay = (root: string) => replayJournal(root, checkJournalText);

/** Finds the workspace, checks its layout, and finishes a write a crashed command left half done. */
export async function openRoot(where: Where, opts: { anyLayout?: boolean } = {}): Promise<string> {
  const root = findWorkspaceRoot(contextOf(where).cwd);
  if (!opts.anyLayout) checkLayout(root);
  if (hasJournal(root)) await withRootLock(root, () => replay(root));
  return root;
}

export const hasProject = (root: string): boolean => stateFileExists(root, PROJECT_FILE);

/** The files in `.sow/project/` when it has no `state.yaml`: a deleted project file, or files another branch left behind. */
export function projectLeftovers(root: string): string[] {
  return hasProject(root) ? [] : listFiles(root, PROJECT_DIR);
}

/** `.sow/project/` holds files but no project file: never read as "no project", never adopted by a new one. */
export class ProjectFileMissingError extends SowError {
  constructor(files: readonly string[]) {
    const shown = files.slice(0, 3).join(', ') + (files.length > 3 ? `, … (${files.length} files)` : '');
    super(
      'PROJECT_FILE_MISSING',
      'state',
      `${PROJECT_FILE} is missing, but ${PROJECT_DIR}/ still holds ${shown}`,
      `if the project file was deleted, restore it ('git checkout -- ${PROJECT_FILE}'); if these files belong to a project of another branch, commit them there or move them away; 'sow project delete --yes --force' removes them`,
      { file: PROJECT_FILE, files: files.slice(0, 20) },
    );
  }
}

/** NoProjectError naming the other local branches that have a project (looked up only now, on the way out). */
export function noProjectHere(root: string): NoProjectError {
  const here = head(root).branch;
  return new NoProjectError(branchesWithFile(root, PROJECT_FILE).filter((b) => b !== here));
}

/** NoProjectError, or ProjectFileMissingError when `.sow/project/` holds files without a project file. */
function noProject(root: string): SowError {
  const left = projectLeftovers(root);
  return left.length ? new ProjectFileMissingError(left) : noProjectHere(root);
}

export interface LoadedProject {
  file: StateFile<ProjectState>;
  type: ProjectType;
}

/** Reads and validates the project file, against the schema and against its project type. */
export async function loadProject(root: string): Promise<LoadedProject> {
  if (!hasProject(root)) throw noProject(root);
  const file = await readStateFile(root, PROJECT_FILE, ProjectStateSchema);
  const type = await loadProjectType(file.data.type);
  if (!type)
    throw new StateFileError(
      PROJECT_FILE,
      `unknown project type ${quoted(file.data.type)} (types: ${PROJECT_TYPE_NAMES.join(', ')})`,
      'type',
    );
  const problem = projectProblem(type, file.data);
  if (problem) throw new StateFileError(PROJECT_FILE, problem.message, problem.path);
  return { file, type };
}

/** Validates a task file's data: the schema, and that it is the task its folder says it is. */
function validateTask(rel: string, data: unknown, id: string, phase: string): TaskState {
  return checkTaskIdentity(rel, validateState(rel, TaskStateSchema, data), id, phase);
}

/** That a task file the schema passed is the task its folder says it is. */
function checkTaskIdentity(rel: string, task: TaskState, id: string, phase: string): TaskState {
  if (task.id !== id)
    throw new StateFileError(rel, `says id ${quoted(task.id)}, but it is the file of task ${id} (its folder)`, 'id');
  if (task.phase !== phase)
    throw new StateFileError(rel, `says phase ${quoted(task.phase)}, but tasks live in the ${phase} phase`, 'phase');
  return task;
}

async function loadTaskFile(root: string, type: ProjectType, id: string, raw = id): Promise<StateFile<TaskState>> {
  const phase = taskPhase(type);
  const rel = taskFile(phase, id);
  // A long-lived process (sow mcp) may still have the file as it last read it.
  const known = rememberedStateFile(root, rel, TaskStateSchema);
  if (known) return { ...known, data: checkTaskIdentity(rel, known.data, id, phase) };
  if (!stateFileExists(root, rel)) throw new TaskNotFoundError(raw);
  const file = await readStateFile(root, rel, TaskStateSchema);
  return { ...file, data: checkTaskIdentity(rel, file.data, id, phase) };
}

/** Every name a task id, joined by '/' (which no file name holds): one test for a folder of them. */
const ALL_IDS = new RegExp(
  `^(?:${TASK_ID_PATTERN.source.slice(1, -1)})(?:/(?:${TASK_ID_PATTERN.source.slice(1, -1)}))*$`,
);

/** The ids of the task folders, in id order; a folder that is not named by an id is an error. */
function taskIds(root: string, phase: string): string[] {
  const dir = tasksDir(phase);
  const names = listNames(root, dir);
  // One test for the whole folder: a test per name cost a whole-set read ~1 M instructions at 1,000 tasks.
  if (names.length === 0 || ALL_IDS.test(names.join('/'))) return sortIds(names);
  const ids: string[] = [];
  for (const name of names) {
    if (TASK_ID_PATTERN.test(name)) ids.push(name);
    // A file beside the task folders (a README) is left alone; a folder is a task folder or a mistake.
    else if (isFolder(root, `${dir}/${name}`))
      throw new StateFileError(
        `${dir}/${name}`,
        'is not a task folder: task folders are named by task id (010, 020, …, 1000)',
      );
  }
  return sortIds(ids);
}

/**
 * Every task's summary, read from the task files (through the stat-checked index), with the
 * unsaved changes of this command on top. Dependencies must name existing tasks and form no cycle.
 */
async function loadSummaries(
  root: string,
  type: ProjectType,
  pending: ReadonlyMap<string, TaskState>,
): Promise<TaskSummary[]> {
  const phase = taskPhase(type);
  const ids = taskIds(root, phase);
  const index = TaskIndex.open(root);
  const summaries = await index.summaries(tasksDir(phase), ids, async (id, rel, text) =>
    summaryOf(validateTask(rel, (await parseStateText(rel, text ?? readText(root, rel))).data, id, phase)),
  );
  index.save();
  let all = summaries;
  if (pending.size > 0) {
    const byKey = new Map(summaries.map((s) => [s.id, s]));
    for (const [id, task] of pending) byKey.set(id, summaryOf(task));
    all = [...byKey.values()].sort(byId);
  }
  checkDependencies(phase, all);
  return all;
}

/**
 * A task that another one depends on has no folder. Its folder was deleted (git can restore it),
 * or the dependency names a task there never was (the dependent's file is wrong): the error names
 * the missing folder first, and both ways out.
 */
export class TaskFolderMissingError extends SowError {
  constructor(phase: string, missing: string, dependent: string, index: number) {
    const folder = taskDir(phase, missing);
    const file = taskFile(phase, dependent);
    super(
      'TASK_FOLDER_MISSING',
      'state',
      `task ${missing} is missing: its folder ${folder} does not exist, and task ${dependent} depends on it`,
      `if the folder was deleted, restore it with 'git checkout -- ${folder}'; if there never was a task ${missing}, remove ${missing} from the dependencies in ${file}`,
      { folder, task: missing, needed_by: dependent, file, field: `dependencies.${index}` },
    );
  }
}

/** Dependencies must name existing tasks (TaskFolderMissingError) and form no cycle (StateFileError naming a task file). */
function checkDependencies(phase: string, all: readonly TaskSummary[]): void {
  // Plain loops: at 10,000 tasks this runs once per task in cold code.
  const known = new Set<string>();
  for (const t of all) known.add(t.id);
  // Ids strictly fall along every path of dependencies that only point to smaller ids, so no such
  // path comes back to where it began: the search for a cycle is needed only when one points up.
  let upward = false;
  for (const t of all) {
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

/**
 * For `sow doctor`: every problem of the task files — a folder that is not a task folder, a task
 * folder without a valid state file of its own task, a dependency that does not exist or a cycle —
 * read without the lock, without finishing a journal and without writing the task index. `read`
 * receives each task read (in id order), for a check that goes on to judge them.
 */
export async function taskFileProblems(
  root: string,
  type: ProjectType,
  read?: (task: TaskState) => void,
): Promise<SowError[]> {
  const phase = taskPhase(type);
  const dir = tasksDir(phase);
  const problems: SowError[] = [];
  const summaries: TaskSummary[] = [];
  for (const name of listNames(root, dir).sort(compareIds)) {
    if (!TASK_ID_PATTERN.test(name)) {
      if (isFolder(root, `${dir}/${name}`))
        problems.push(
          new StateFileError(
            `${dir}/${name}`,
            'is not a task folder: task folders are named by task id (010, 020, …, 1000)',
          ),
        );
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
    const stray = listNames(root, tasksDir(other.name)).filter((n) => isFolder(root, `${tasksDir(other.name)}/${n}`));
    if (stray.length)
      problems.push(
        new StateFileError(
          tasksDir(other.name),
          `holds ${stray.length} folder(s) (${stray.slice(0, 3).join(', ')}), but the tasks of a ${type.name} project live in ${dir}`,
        ),
      );
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

/**
 * The summaries of a task's dependencies, read from their own files. A dependency without a task
 * is an error (TaskFolderMissingError): left out, it would stop blocking the task.
 */
async function dependenciesOf(
  task: TaskState,
  phase: string,
  load: (id: string) => Promise<TaskState>,
): Promise<TaskSummary[]> {
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

/** Why the checked-out branch may not change this project, or undefined when it may. */
export function branchProblem(
  root: string,
  project: ProjectState,
): { message: string; hint: string; details: Record<string, unknown> } | undefined {
  const here = head(root);
  if (here.branch === project.branch) return undefined;
  const details = { project_branch: project.branch, current_branch: here.branch ?? null };
  if (here.branch === undefined) {
    return {
      message: `HEAD is detached${here.commit ? ` at ${here.commit.slice(0, 7)}` : ''}, and this project belongs to '${project.branch}'`,
      hint: `run 'git checkout ${project.branch}'`,
      details,
    };
  }
  if (!branchExists(root, project.branch)) {
    return {
      message: `this project belongs to '${project.branch}', which no longer exists, and '${here.branch}' is checked out`,
      hint: `if you renamed '${project.branch}' to '${here.branch}', run 'sow project set branch ${here.branch}' to move the project with it; otherwise run 'git checkout' with the project's branch`,
      details,
    };
  }
  return {
    message: `this project belongs to '${project.branch}', but '${here.branch}' is checked out`,
    hint: `run 'git checkout ${project.branch}'; or, to carry the project on in '${here.branch}', run 'sow project set branch ${here.branch}'`,
    details,
  };
}

/**
 * Errors that say the lock cannot be made here: no permission, a read-only file system, a full
 * disk. Writers cannot take it either, so a read goes on without it.
 */
const CANNOT_LOCK = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT']);

/**
 * Runs `fn` holding the workspace lock, so that it sees every state file as one writer left them,
 * never half of a multi-file write. Where the lock cannot be made (a read-only checkout, a full
 * disk), `fn` reads without it.
 */
async function readConsistently<T>(root: string, fn: (locked: boolean) => Promise<T>): Promise<T> {
  let release: (() => void) | undefined;
  try {
    ensureRuntimeDir(root);
    release = await acquireLock(lockPath(root));
  } catch (err) {
    if (!CANNOT_LOCK.has((err as NodeJS.ErrnoException).code ?? '')) throw err;
  }
  try {
    // A read finishes what a killed writer committed (where the lock cannot be made, that fails
    // and says why: the state is half written) and, holding the lock, clears what it left.
    if (hasJournal(root)) await replay(root);
    if (release) clearLeftovers(root);
    return await fn(release !== undefined);
  } finally {
    release?.();
  }
}

/**
 * A read on the project's branch first records the runs that ended while another branch was
 * checked out (app/deferred-runs.ts), as it finishes an interrupted write: only when there are
 * any, and never failing the read (the next command tries again).
 */
async function recordDeferred(root: string, ctx: AppContext): Promise<void> {
  if (!hasDeferredRuns(root)) return;
  try {
    const { forgetDeferredRuns, recordDeferredRuns } = await import('./deferred-runs.js');
    const uow = new UnitOfWork(root, ctx);
    const done = await recordDeferredRuns(uow);
    if (done.length === 0) return;
    await uow.commit();
    forgetDeferredRuns(done);
  } catch {
    // an invalid state file, a full disk: the read says what it finds, and the records wait
  }
}

export interface ReadOptions {
  /** A project of another branch: read with a warning (the default), refuse, or read quietly (a caller that says so itself). */
  otherBranch?: 'warn' | 'refuse' | 'quiet';
}

/**
 * Read-only access, files validated as they load. It lives only inside `read`, which holds the
 * lock while it reads: a command sees one consistent state, whatever writers run beside it.
 */
export class Reader {
  private summaries?: TaskSummary[];

  private constructor(
    readonly root: string,
    readonly projectFile: StateFile<ProjectState>,
    readonly type: ProjectType,
    readonly ctx: AppContext,
  ) {}

  /** Runs `fn` with a reader of the project; the lock is released when it returns. */
  static async read<T>(where: Where, fn: (reader: Reader) => Promise<T> | T, opts: ReadOptions = {}): Promise<T> {
    const ctx = contextOf(where);
    const root = findWorkspaceRoot(ctx.cwd);
    checkLayout(root);
    return readConsistently(root, async (locked) => {
      if (locked) await recordDeferred(root, ctx);
      const { file, type } = await loadProject(root);
      const problem = branchProblem(root, file.data);
      if (problem && opts.otherBranch === 'refuse')
        throw new WrongBranchError(problem.message, problem.hint, problem.details);
      if (problem && opts.otherBranch !== 'quiet')
        warn(`${problem.message}; changes are refused until then (${problem.hint})`);
      return fn(new Reader(root, file, type, ctx));
    });
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

  /** Every task's whole state, in id order. */
  async taskStates(): Promise<TaskState[]> {
    const out: TaskState[] = [];
    for (const t of await this.tasks()) out.push(await this.task(t.id));
    return out;
  }

  async view(): Promise<ProjectView> {
    const view = {
      project: this.project,
      tasks: await this.tasks(),
      docExists: (rel: string) => fileExists(this.root, rel),
      readDoc: (rel: string) => this.readDoc(rel),
    };
    return readsTaskStates(this.type, this.project.statechart.current_state)
      ? { ...view, taskStates: await this.taskStates() }
      : view;
  }

  /** The summaries of the task's dependencies (TaskFolderMissingError for one that has no task). */
  dependenciesOf(task: TaskState): Promise<TaskSummary[]> {
    return dependenciesOf(task, this.taskPhase, (id) => this.task(id));
  }

  /** A document of the repository (relative to its root), or undefined when it does not exist. */
  readDoc(rel: string): string | undefined {
    return readFileIfExists(this.root, rel);
  }
}

/** `entry` after `before`, with one blank line between them (a log's entries are separated so). */
export function joinEntry(before: string, entry: string): string {
  if (before === '' || before.endsWith('\n\n') || entry === '') return `${before}${entry}`;
  return `${before}${before.endsWith('\n') ? '\n' : '\n\n'}${entry}`;
}

/** Read-modify-write access, used inside `update`. */
export class UnitOfWork {
  private loaded?: LoadedProject;
  private projectNext?: ProjectState;
  private readonly taskFiles = new Map<string, StateFile<TaskState>>();
  private readonly tasksNext = new Map<string, TaskState>();
  /** New tasks: the other files of their folder, created with it in one rename. */
  private readonly newTasks = new Map<string, Record<string, string>>();
  /** Documents of the project written with the state, in the same transaction (paths from the repository root). */
  private readonly docsNext = new Map<string, string>();
  /** Entries added to the end of logs that exist (the log is never rewritten). */
  private readonly docsAppended = new Map<string, string>();
  readonly tx: Transaction;
  /** This command's time: every file it writes is stamped with it. */
  readonly now: string;
  readonly actor: Actor;

  constructor(
    readonly root: string,
    readonly ctx: AppContext,
    owner?: string,
  ) {
    this.tx = new Transaction(root);
    this.now = ctx.now();
    this.actor = actor(ctx.env, owner);
  }

  /** The task as it is on disk (before this command's changes), if this command read it. */
  original(id: string): TaskState | undefined {
    return this.taskFiles.get(id)?.data;
  }

  private async load(): Promise<LoadedProject> {
    return (this.loaded ??= await loadProject(this.root));
  }

  async project(): Promise<ProjectState> {
    return this.projectNext ?? (await this.load()).file.data;
  }

  async type(): Promise<ProjectType> {
    return (await this.load()).type;
  }

  async taskPhase(): Promise<string> {
    return taskPhase(await this.type());
  }

  setProject(project: ProjectState): void {
    this.projectNext = project;
  }

  async task(raw: string): Promise<TaskState> {
    const id = normalizeTaskId(raw);
    const pending = this.tasksNext.get(id);
    if (pending) return pending;
    const file = await loadTaskFile(this.root, await this.type(), id, raw);
    this.taskFiles.set(id, file);
    // A claim may be the person's at this terminal: their writes renew it, and they may finish it.
    if (file.data.owner?.kind === 'claim') await this.knowPerson();
    return file.data;
  }

  private personAsked = false;

  /**
   * At a terminal, and with no name given (`--owner`, SOW_OWNER), the actor is also the person
   * there (git's user.name, else $USER). Looked up once, and only when a claim needs the name.
   */
  async knowPerson(): Promise<void> {
    if (this.personAsked || this.actor.owner !== undefined) return;
    this.personAsked = true;
    if (!atTerminal()) return;
    const name = await personName(this.root);
    if (name) this.actor.person = name;
  }

  /** Every task's summary, this command's unsaved changes included. */
  async tasks(): Promise<TaskSummary[]> {
    return loadSummaries(this.root, await this.type(), this.tasksNext);
  }

  /** Every task's whole state, in id order, this command's changes included. */
  async taskStates(): Promise<TaskState[]> {
    const out: TaskState[] = [];
    for (const t of await this.tasks()) out.push(await this.task(t.id));
    return out;
  }

  async view(): Promise<ProjectView> {
    const project = await this.project();
    const view = {
      project,
      tasks: await this.tasks(),
      docExists: (rel: string) => this.docExists(rel),
      readDoc: (rel: string) => this.readDoc(rel),
    };
    return readsTaskStates(await this.type(), project.statechart.current_state)
      ? { ...view, taskStates: await this.taskStates() }
      : view;
  }

  /**
   * Stores a changed task in its own file, stamped with this command's time. A write from an
   * identity that no longer owns the task (it was finished or taken over) is refused; a write
   * from the task's claimant renews its lease.
   */
  setTask(task: TaskState): void {
    const before = this.original(task.id);
    if (before) this.checkWriter(before);
    this.tasksNext.set(task.id, renewLease({ ...task, updated_at: this.now }, this.actor, this.now));
  }

  /**
   * A claim this write of its owner renews that is held on a remote too, and whose lease there is
   * half run out, is renewed there as well (app/remote-claims.ts); so is a worker's, by the
   * worker's own writes. Other writes run no git.
   */
  async renewRemoteClaims(): Promise<void> {
    for (const [id, task] of this.tasksNext) {
      const owner = task.owner;
      if (owner?.remote === undefined || !isOwnedBy(owner, this.actor)) continue;
      const { remoteLeaseDue, renewRemoteClaim } = await import('./remote-claims.js');
      if (!remoteLeaseDue(owner, this.now)) continue;
      this.tasksNext.set(id, {
        ...task,
        owner: await renewRemoteClaim(this.root, id, (await this.project()).branch, owner, this.now),
      });
    }
  }

  /** Refuses (NotOwnerError) an identity that no longer owns the task: it was finished or taken over. */
  checkWriter(task: TaskState): void {
    const retired = retiredIdentity(task, this.actor);
    if (retired !== undefined) throw new NotOwnerError(task, retired);
  }

  /** A new task: its folder (state, and `files` beside it) appears whole or not at all. */
  createTask(task: TaskState, files: Readonly<Record<string, string>>): void {
    this.setTask(task);
    this.newTasks.set(task.id, { ...files });
  }

  /** The summaries of the task's dependencies, without reading every task (TaskFolderMissingError for one that has no task). */
  async dependenciesOf(task: TaskState): Promise<TaskSummary[]> {
    return dependenciesOf(task, await this.taskPhase(), (id) => this.task(id));
  }

  readDoc(rel: string): string | undefined {
    return this.docsNext.get(rel) ?? readFileIfExists(this.root, rel);
  }

  /** Writes a document under the project folder with the state, in the same transaction. */
  writeDoc(rel: string, text: string): void {
    if (!rel.startsWith(`${PROJECT_DIR}/`)) throw new Error(`writeDoc: ${rel} is not under ${PROJECT_DIR}/`);
    this.docsNext.set(rel, text);
  }

  /**
   * Adds `text` to the end of the log `rel` with the state, in the same transaction; a log that
   * does not exist yet begins with `header`. Returns nothing: the log is never read whole.
   */
  appendLog(rel: string, header: string, text: string): void {
    const next = this.docsNext.get(rel);
    if (next !== undefined) return void this.docsNext.set(rel, joinEntry(next, text));
    const appended = this.docsAppended.get(rel);
    if (appended !== undefined) return void this.docsAppended.set(rel, joinEntry(appended, text));
    const end = fileTail(this.root, rel, 2);
    if (end === undefined || end.size === 0) return void this.docsNext.set(rel, joinEntry(header, text));
    this.docsAppended.set(rel, joinEntry(end.tail, text).slice(end.tail.length));
  }

  docExists(rel: string): boolean {
    return this.docsNext.has(rel) || fileExists(this.root, rel);
  }

  async commit(): Promise<void> {
    if (this.projectNext) {
      const data = { ...this.projectNext, updated_at: this.now };
      this.tx.write(PROJECT_FILE, await renderStateFile(this.loaded?.file, PROJECT_FILE, ProjectStateSchema, data));
      // Documents drawn from the project follow it in the same transaction (written only when they change).
      const rendered = (await this.type()).renders?.(data, (rel) => this.readDoc(rel)) ?? {};
      for (const [rel, text] of Object.entries(rendered)) {
        if (this.readDoc(`${PROJECT_DIR}/${rel}`) !== text) this.tx.write(`${PROJECT_DIR}/${rel}`, text);
      }
    }
    const phase = this.tasksNext.size ? await this.taskPhase() : '';
    for (const [id, task] of this.tasksNext) {
      const text = await renderStateFile(this.taskFiles.get(id), taskFile(phase, id), TaskStateSchema, task);
      const files = this.newTasks.get(id);
      if (files) this.tx.createFolder(taskDir(phase, id), { 'state.yaml': text, ...files });
      else this.tx.write(taskFile(phase, id), text);
    }
    for (const [rel, text] of this.docsNext) this.tx.write(rel, text);
    for (const [rel, text] of this.docsAppended) this.tx.append(rel, text);
    this.tx.commit();
  }
}

export interface UpdateOptions {
  /** Change a project of another branch anyway (`project delete --force`). */
  force?: boolean;
  /** Whether the project must belong to the checked-out branch (default true). */
  branchCheck?: boolean;
  /** The name this command claims tasks under (`--owner`); else SOW_OWNER. */
  owner?: string;
}

/**
 * A write: under the lock, finish any interrupted transaction, clear leftovers of killed
 * writers, refuse a project that belongs to another branch, run `fn`, then commit what it changed.
 */
export async function update<R>(
  where: Where,
  fn: (uow: UnitOfWork) => Promise<R>,
  opts: UpdateOptions = {},
): Promise<R> {
  const ctx = contextOf(where);
  const root = findWorkspaceRoot(ctx.cwd);
  checkLayout(root);
  return withRootLock(root, async () => {
    await replay(root);
    clearLeftovers(root);
    const uow = new UnitOfWork(root, ctx, opts.owner);
    // Runs that ended while another branch was checked out, written with this change.
    const deferred = hasDeferredRuns(root) ? await (await import('./deferred-runs.js')).recordDeferredRuns(uow) : [];
    if (opts.branchCheck !== false && !opts.force) {
      const problem = branchProblem(root, await uow.project());
      if (problem) throw new WrongBranchError(problem.message, problem.hint, problem.details);
    }
    const result = await fn(uow);
    await uow.renewRemoteClaims();
    await uow.commit();
    if (deferred.length) (await import('./deferred-runs.js')).forgetDeferredRuns(deferred);
    return result;
  });
}

/** Under the lock, for the commands that create or remove the project itself. */
export async function withWorkspaceLock<R>(where: Where, fn: (root: string) => Promise<R>): Promise<R> {
  const root = findWorkspaceRoot(contextOf(where).cwd);
  checkLayout(root);
  return withRootLock(root, async () => {
    await replay(root);
    clearLeftovers(root);
    return fn(root);
  });
}
