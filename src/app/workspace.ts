/**
 * The unit of work every command goes through: find the workspace, finish any interrupted
 * transaction, load and validate state, let a use case change it, then validate and write the
 * changed files in one transaction — all under the lock for writers. A use case that throws
 * writes nothing.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { NoProjectError, TaskNotFoundError } from '../domain/errors.js';
import { projectType, type ProjectType } from '../domain/project-types/index.js';
import { ProjectStateSchema, TaskStateSchema, type ProjectState, type TaskState } from '../domain/schemas.js';
import { summaryOf } from '../domain/tasks.js';
import { findWorkspaceRoot } from '../adapters/repo.js';
import { withLock } from '../adapters/lock.js';
import { readStateFile, renderStateFile, type StateFile } from '../adapters/state-files.js';
import { journalPath, replayJournal, Transaction } from '../adapters/transaction.js';

export const PROJECT_DIR = '.sow/project';
export const PROJECT_FILE = `${PROJECT_DIR}/state.yaml`;
export const taskDir = (id: string) => `${PROJECT_DIR}/phases/implementation/tasks/${id}`;
export const taskFile = (id: string) => `${taskDir(id)}/state.yaml`;
export const lockPath = (root: string) => join(root, '.sow', '.lock');

export const now = (): string => new Date().toISOString();

async function recover(root: string): Promise<void> {
  if (existsSync(journalPath(root))) await withLock(lockPath(root), () => void replayJournal(root));
}

export async function openWorkspace(cwd: string): Promise<string> {
  const root = findWorkspaceRoot(cwd);
  await recover(root);
  return root;
}

export function hasProject(root: string): boolean {
  return existsSync(join(root, PROJECT_FILE));
}

async function loadProjectFile(root: string): Promise<StateFile<ProjectState>> {
  if (!hasProject(root)) throw new NoProjectError();
  return readStateFile(root, PROJECT_FILE, ProjectStateSchema);
}

async function loadTaskFile(root: string, project: ProjectState, id: string): Promise<StateFile<TaskState>> {
  const tasks = project.phases['implementation']?.tasks ?? [];
  if (!tasks.some((t) => t.id === id)) throw new TaskNotFoundError(id);
  return readStateFile(root, taskFile(id), TaskStateSchema);
}

/** Read-only access: no lock, files validated as they load. */
export class Reader {
  private constructor(readonly root: string, readonly projectFile: StateFile<ProjectState>) {}

  static async open(cwd: string): Promise<Reader> {
    const root = await openWorkspace(cwd);
    return new Reader(root, await loadProjectFile(root));
  }

  get project(): ProjectState {
    return this.projectFile.data;
  }

  get type(): ProjectType {
    return projectType(this.project.type);
  }

  async task(id: string): Promise<TaskState> {
    return (await loadTaskFile(this.root, this.project, id)).data;
  }
}

/** Read-modify-write access, used inside `update`. */
export class UnitOfWork {
  private projectFile?: StateFile<ProjectState>;
  private projectNext?: ProjectState;
  private readonly taskFiles = new Map<string, StateFile<TaskState> | undefined>();
  private readonly tasksNext = new Map<string, TaskState>();
  readonly tx: Transaction;
  readonly now: string = now();

  constructor(readonly root: string) {
    this.tx = new Transaction(root);
  }

  async project(): Promise<ProjectState> {
    if (this.projectNext) return this.projectNext;
    this.projectFile ??= await loadProjectFile(this.root);
    return this.projectFile.data;
  }

  async type(): Promise<ProjectType> {
    return projectType((await this.project()).type);
  }

  setProject(project: ProjectState): void {
    this.projectNext = project;
  }

  async task(id: string): Promise<TaskState> {
    const pending = this.tasksNext.get(id);
    if (pending) return pending;
    const file = await loadTaskFile(this.root, await this.project(), id);
    this.taskFiles.set(id, file);
    return file.data;
  }

  /** Stores a task and keeps the phase's summary of it in step, in the same transaction. */
  async setTask(task: TaskState): Promise<void> {
    const stamped = { ...task, updated_at: this.now };
    this.tasksNext.set(task.id, stamped);
    const project = await this.project();
    const impl = project.phases['implementation'];
    if (!impl) return;
    const tasks = impl.tasks ?? [];
    const summary = summaryOf(stamped);
    const index = tasks.findIndex((t) => t.id === task.id);
    const same = index >= 0 && JSON.stringify(tasks[index]) === JSON.stringify({ ...tasks[index], ...summary });
    if (same) return;
    const nextTasks = index >= 0 ? tasks.map((t, i) => (i === index ? { ...t, ...summary } : t)) : [...tasks, summary];
    this.setProject({ ...project, phases: { ...project.phases, implementation: { ...impl, tasks: nextTasks } } });
  }

  async commit(): Promise<void> {
    if (this.projectNext) {
      const data = { ...this.projectNext, updated_at: this.now };
      const { text, entry } = await renderStateFile(this.projectFile, PROJECT_FILE, ProjectStateSchema, data);
      this.tx.write(PROJECT_FILE, text, entry);
    }
    for (const [id, task] of this.tasksNext) {
      const { text, entry } = await renderStateFile(this.taskFiles.get(id), taskFile(id), TaskStateSchema, task);
      this.tx.write(taskFile(id), text, entry);
    }
    this.tx.commit();
  }
}

export async function update<R>(cwd: string, fn: (uow: UnitOfWork) => Promise<R>): Promise<R> {
  const root = findWorkspaceRoot(cwd);
  return withLock(lockPath(root), async () => {
    replayJournal(root);
    const uow = new UnitOfWork(root);
    const result = await fn(uow);
    await uow.commit();
    return result;
  });
}
