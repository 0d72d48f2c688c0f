/** A write's glue: the lock, who acts, and the unit of work committed as one transaction (no network here). */
import { PROJECT_DIR } from '../domain/artifacts.js';
import { readsTaskStates } from '../domain/lifecycle.js';
import type { ProjectType, ProjectView } from '../domain/project-type.js';
import { remoteRenewalDue, type Actor } from '../domain/ownership.js';
import { stampedTask } from '../domain/task-change.js';
import { taskPhase } from '../domain/phases.js';
import {
  ProjectStateSchema,
  TaskStateSchema,
  type Owner,
  type ProjectState,
  type TaskState,
  type TaskSummary,
} from '../domain/schemas.js';
import { normalizeTaskId } from '../domain/tasks.js';
import { fileExists, readFileIfExists } from '../adapters/files.js';
import { withLock } from '../adapters/lock.js';
import { ensureRuntimeDir, runtimePath } from '../adapters/runtime.js';
import { renderStateFile, type StateFile } from '../adapters/state-files.js';
import { atTerminal, personName } from '../adapters/person.js';
import { clearLeftovers, Transaction } from '../adapters/transaction.js';
import { replayJournal } from '../adapters/journal.js';
import type { AppContext } from './context.js';
import {
  checkJournalText,
  dependenciesOf,
  loadProject,
  loadSummaries,
  loadTaskFile,
  taskDir,
  taskFile,
  PROJECT_FILE,
  type LoadedProject,
} from './project-files.js';

export const lockPath = (root: string) => runtimePath(root, 'lock');

/** Runs `fn` holding the workspace lock (the runtime folder made first: a fresh clone has none). */
export function withRootLock<T>(root: string, fn: () => Promise<T> | T): Promise<T> {
  ensureRuntimeDir(root);
  return withLock(lockPath(root), fn);
}

/** At a terminal with no name given, the actor is also the person there (git's user.name, else $USER). */
export async function knowPerson(root: string, actor: Actor): Promise<void> {
  if (actor.owner !== undefined || actor.person !== undefined || !atTerminal()) return;
  const name = await personName(root);
  if (name) actor.person = name;
}

/** Who acts: a spawned worker (SOW_AGENT_ID) or the user, its session, and the name it claims under, if any. */
export function actor(env: AppContext['env'], owner?: string): Actor {
  const agent = env['SOW_AGENT_ID'];
  const session = env['SOW_SESSION_ID'];
  const name = owner ?? (env['SOW_OWNER'] || undefined);
  return { by: agent || 'user', ...(session ? { session } : {}), ...(name ? { owner: name } : {}) };
}

export const replay = (root: string) => replayJournal(root, checkJournalText);

/** Holding the lock, with any interrupted transaction finished and what killed writers left cleared. */
export function underLock<T>(root: string, fn: () => Promise<T>): Promise<T> {
  return withRootLock(root, async () => {
    await replay(root);
    clearLeftovers(root);
    return fn();
  });
}

/** What a reader and a unit of work both read through, and what they build on it the same way. */
export abstract class ProjectReads {
  abstract task(raw: string): Promise<TaskState>;
  abstract tasks(): Promise<TaskSummary[]>;
  abstract readDoc(rel: string): string | undefined;
  abstract docExists(rel: string): boolean;
  protected abstract basis(): Promise<{ project: ProjectState; type: ProjectType }>;

  /** Every task's whole state, in id order. */
  async taskStates(): Promise<TaskState[]> {
    const out: TaskState[] = [];
    for (const t of await this.tasks()) out.push(await this.task(t.id));
    return out;
  }

  /** The project view; every task's state only where the current state reads them. */
  async view(): Promise<ProjectView> {
    const { project, type } = await this.basis();
    const view = {
      project,
      tasks: await this.tasks(),
      docExists: (rel: string) => this.docExists(rel),
      readDoc: (rel: string) => this.readDoc(rel),
    };
    const all = readsTaskStates(type, project.statechart.current_state);
    return all ? { ...view, taskStates: await this.taskStates() } : view;
  }

  /** The summaries of the task's dependencies (TaskFolderMissingError for one that has no task). */
  async dependenciesOf(task: TaskState): Promise<TaskSummary[]> {
    return dependenciesOf(task, taskPhase((await this.basis()).type), (id) => this.task(id));
  }
}

/** A claim whose lease on the remote a write of its owner found half run out: renewed there after the write. */
export type DueRenewal = { task: string; branch: string; owner: Owner };

/** Read-modify-write access, used inside `update`. */
export class UnitOfWork extends ProjectReads {
  private loaded?: LoadedProject;
  private projectNext?: ProjectState;
  private readonly taskFiles = new Map<string, StateFile<TaskState>>();
  private readonly tasksNext = new Map<string, TaskState>();
  /** New tasks: the other files of their folder, created with it in one rename. */
  private readonly newTasks = new Map<string, Record<string, string>>();
  /** Documents of the project written with the state, in the same transaction (paths from the repository root). */
  private readonly docsNext = new Map<string, string>();
  readonly tx: Transaction;
  /** This command's time: every file it writes is stamped with it. */
  readonly now: string;
  readonly actor: Actor;

  constructor(
    readonly root: string,
    readonly ctx: AppContext,
    owner?: string,
  ) {
    super();
    this.tx = new Transaction(root);
    this.now = ctx.now();
    this.actor = actor(ctx.env, owner);
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

  private personAsked?: Promise<void>;

  /** `knowPerson`, once, only when a claim needs the name. */
  knowPerson(): Promise<void> {
    return (this.personAsked ??= knowPerson(this.root, this.actor));
  }

  /** Every task's summary, this command's unsaved changes included. */
  async tasks(): Promise<TaskSummary[]> {
    return loadSummaries(this.root, await this.type(), this.tasksNext);
  }

  protected async basis() {
    return { project: await this.project(), type: await this.type() };
  }

  /** Stores a changed task, stamped; refused from an identity that no longer owns it; a claimant's renews its lease. */
  setTask(task: TaskState): void {
    this.tasksNext.set(task.id, stampedTask(this.taskFiles.get(task.id)?.data, task, this.actor, this.now));
  }

  /** The claims this owner's write renews whose lease on the remote is half run out: renewed there after the lock. */
  async claimsDue(): Promise<DueRenewal[]> {
    const due: DueRenewal[] = [];
    for (const [task, { owner }] of this.tasksNext)
      if (remoteRenewalDue(owner, this.actor, this.now))
        due.push({ task, branch: (await this.project()).branch, owner });
    return due;
  }

  /** A claim's new commit on the remote, recorded after the write that renewed it: nothing else of the task changes. */
  recordClaim(task: TaskState, owner: Owner): void {
    this.tasksNext.set(task.id, { ...task, owner });
  }

  /** A new task: its folder (state, and `files` beside it) appears whole or not at all. */
  createTask(task: TaskState, files: Readonly<Record<string, string>>): void {
    this.setTask(task);
    this.newTasks.set(task.id, { ...files });
  }

  readDoc(rel: string): string | undefined {
    return this.docsNext.get(rel) ?? readFileIfExists(this.root, rel);
  }

  /** Writes a document under the project folder with the state, in the same transaction. */
  writeDoc(rel: string, text: string): void {
    if (!rel.startsWith(`${PROJECT_DIR}/`)) throw new Error(`writeDoc: ${rel} is not under ${PROJECT_DIR}/`);
    this.docsNext.set(rel, text);
  }

  docExists(rel: string): boolean {
    return this.docsNext.has(rel) || fileExists(this.root, rel);
  }

  async commit(): Promise<void> {
    if (this.projectNext) {
      const data = { ...this.projectNext, updated_at: this.now };
      this.tx.write(PROJECT_FILE, await renderStateFile(this.loaded?.file, PROJECT_FILE, ProjectStateSchema, data));
      // Documents drawn from the project, in the same transaction, when they change.
      const rendered = (await this.type()).renders?.(data, (rel) => this.readDoc(rel)) ?? {};
      for (const [rel, text] of Object.entries(rendered))
        if (this.readDoc(`${PROJECT_DIR}/${rel}`) !== text) this.tx.write(`${PROJECT_DIR}/${rel}`, text);
    }
    const phase = this.tasksNext.size ? await this.taskPhase() : '';
    for (const [id, task] of this.tasksNext) {
      const text = await renderStateFile(this.taskFiles.get(id), taskFile(phase, id), TaskStateSchema, task);
      const files = this.newTasks.get(id);
      if (files) this.tx.createFolder(taskDir(phase, id), { 'state.yaml': text, ...files });
      else this.tx.write(taskFile(phase, id), text);
    }
    for (const [rel, text] of this.docsNext) this.tx.write(rel, text);
    this.tx.commit();
  }
}
