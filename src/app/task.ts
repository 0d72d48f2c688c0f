import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidValueError } from '../domain/errors.js';
import { coerceField, lookupField, parseValue, resolveField, setAtPath } from '../domain/fields.js';
import type { TaskState, TaskStatus, TaskSummary } from '../domain/schemas.js';
import { TASK_STATUSES } from '../domain/schemas.js';
import { checkNewTaskId, checkTaskName, findTask, nextTaskId, parseDependencies, TASK_FIELD_ALIASES, TASK_FIELDS, withStatus } from '../domain/tasks.js';
import { requirePhaseActive, tasksOf } from '../domain/project-types/phase-ops.js';
import { Reader, taskDir, update } from './workspace.js';

export interface AddTaskOptions {
  name: string;
  agent?: string;
  description?: string;
  id?: string;
  parallel?: boolean;
  dependsOn?: string;
}

function descriptionDoc(name: string, description: string | undefined): string {
  return `# ${name}\n\n${description?.trim() ? `${description.trim()}\n` : '<!-- Requirements and acceptance criteria for this task. -->\n'}`;
}

export async function addTask(cwd: string, opts: AddTaskOptions): Promise<TaskState> {
  return update(cwd, async (uow) => {
    const project = await uow.project();
    requirePhaseActive(project, 'implementation', 'adding a task');
    const tasks = tasksOf(project);
    const name = checkTaskName(opts.name);
    const id = opts.id !== undefined ? checkNewTaskId(opts.id, tasks) : nextTaskId(tasks);
    if (opts.agent !== undefined && opts.agent.trim() === '') throw new InvalidValueError('agent', opts.agent, 'an agent name, e.g. implementer');
    const task: TaskState = {
      id,
      name,
      phase: 'implementation',
      status: 'pending',
      iteration: 1,
      ...(opts.agent !== undefined ? { assigned_agent: opts.agent } : {}),
      parallel: opts.parallel ?? false,
      dependencies: opts.dependsOn !== undefined ? parseDependencies(opts.dependsOn, tasks) : [],
      created_at: uow.now,
      updated_at: uow.now,
      inputs: [],
      outputs: [],
      metadata: {},
    };
    await uow.setTask(task);
    const dir = taskDir(id);
    uow.tx.write(`${dir}/description.md`, descriptionDoc(name, opts.description));
    uow.tx.write(`${dir}/log.md`, `# Task log: ${id} ${name}\n\n`);
    uow.tx.mkdir(`${dir}/feedback`);
    return task;
  });
}

export async function setTaskField(cwd: string, id: string, field: string, raw: string): Promise<{ id: string; field: string; value: unknown; task: TaskState }> {
  return update(cwd, async (uow) => {
    const project = await uow.project();
    findTask(tasksOf(project), id);
    let task = await uow.task(id);
    const resolved = resolveField(TASK_FIELD_ALIASES[field] ?? field, TASK_FIELDS);
    let label: string;
    let value: unknown;
    if (resolved.where === 'field') {
      label = resolved.name;
      value = coerceField(resolved.name, raw, resolved.spec);
      if (resolved.name === 'status') task = withStatus(task, value as TaskStatus, uow.now);
      else if (resolved.name === 'name') task = { ...task, name: checkTaskName(String(value)) };
      else task = { ...task, [resolved.name]: value };
    } else if (resolved.path.length === 1 && resolved.path[0] === 'dependencies') {
      label = 'dependencies';
      value = raw.trim() === '' ? [] : parseDependencies(raw, tasksOf(project), id);
      task = { ...task, dependencies: value as string[] };
    } else if (resolved.path.length === 1 && resolved.path[0] === 'description') {
      uow.tx.write(`${taskDir(id)}/description.md`, descriptionDoc(task.name, raw));
      return { id, field: 'description', value: raw, task };
    } else {
      label = `metadata.${resolved.path.join('.')}`;
      value = parseValue(raw);
      task = { ...task, metadata: setAtPath({ ...task.metadata }, resolved.path, value) };
    }
    await uow.setTask(task);
    return { id, field: label, value, task };
  });
}

export async function abandonTask(cwd: string, id: string): Promise<TaskState> {
  return update(cwd, async (uow) => {
    findTask(tasksOf(await uow.project()), id);
    const task = withStatus(await uow.task(id), 'abandoned', uow.now);
    await uow.setTask(task);
    return task;
  });
}

export async function getTask(cwd: string, id: string, field?: string): Promise<{ task: TaskState; field?: string; value?: unknown }> {
  const reader = await Reader.open(cwd);
  findTask(tasksOf(reader.project), id);
  const task = await reader.task(id);
  if (field === undefined) return { task };
  const name = TASK_FIELD_ALIASES[field] ?? field;
  if (name === 'description') {
    const file = join(reader.root, taskDir(id), 'description.md');
    return { task, field: 'description', value: existsSync(file) ? readFileSync(file, 'utf8') : '' };
  }
  const { field: label, value } = lookupField(task, name, { ...TASK_FIELDS, dependencies: true, metadata: true }, {}, `task ${id}`);
  return { task, field: label, value };
}

export async function listTasks(cwd: string, status?: string): Promise<TaskSummary[]> {
  if (status !== undefined && !(TASK_STATUSES as readonly string[]).includes(status)) {
    throw new InvalidValueError('status', status, `one of ${TASK_STATUSES.join(', ')}`);
  }
  const reader = await Reader.open(cwd);
  const tasks = tasksOf(reader.project);
  return status === undefined ? [...tasks] : tasks.filter((t) => t.status === status);
}

export function formatTaskLine(t: TaskSummary): string {
  const extras = [t.assigned_agent ? `agent: ${t.assigned_agent}` : '', t.parallel ? 'parallel' : '', t.dependencies.length ? `after ${t.dependencies.join(',')}` : '']
    .filter(Boolean)
    .join(', ');
  return `[${t.id}] ${t.status.padEnd(12)} ${t.name}${extras ? `  (${extras})` : ''}`;
}
