/** Task rules: gap-numbered ids, statuses and their timestamps, the summary kept on the phase. */
import { InvalidValueError, TaskIdTakenError, TaskNotFoundError, UsageError } from './errors.js';
import { TASK_ID_PATTERN, TASK_STATUSES, type TaskState, type TaskStatus, type TaskSummary } from './schemas.js';
import type { FieldSpec } from './fields.js';

export const ID_GAP = 10;

export function nextTaskId(tasks: readonly TaskSummary[]): string {
  const max = tasks.reduce((m, t) => Math.max(m, Number(t.id)), 0);
  const next = (Math.floor(max / ID_GAP) + 1) * ID_GAP;
  if (next > 999) throw new UsageError('no free task id above the highest one (999 is the last)', 'pass a free id with --id NNN');
  return String(next).padStart(3, '0');
}

export function checkNewTaskId(id: string, tasks: readonly TaskSummary[]): string {
  if (!TASK_ID_PATTERN.test(id)) throw new InvalidValueError('id', id, 'three digits, e.g. 010');
  if (tasks.some((t) => t.id === id)) throw new TaskIdTakenError(id);
  return id;
}

export function findTask(tasks: readonly TaskSummary[], id: string): TaskSummary {
  const task = tasks.find((t) => t.id === id);
  if (!task) throw new TaskNotFoundError(id);
  return task;
}

/** Parses `010,020` and checks that each id exists and is not the task itself. */
export function parseDependencies(raw: string, tasks: readonly TaskSummary[], self?: string): string[] {
  const ids = raw.split(',').map((s) => s.trim()).filter(Boolean);
  for (const id of ids) {
    if (!TASK_ID_PATTERN.test(id)) throw new InvalidValueError('dependencies', raw, 'task ids separated by commas, e.g. 010,020');
    if (id === self) throw new InvalidValueError('dependencies', raw, 'ids of other tasks (a task cannot depend on itself)');
    findTask(tasks, id);
  }
  return [...new Set(ids)];
}

export const TERMINAL_STATUSES: readonly TaskStatus[] = ['completed', 'abandoned'];

/** Applies a status and keeps started_at / completed_at / updated_at true to it. */
export function withStatus(task: TaskState, status: TaskStatus, now: string): TaskState {
  const next: TaskState = { ...task, status, updated_at: now };
  // Abandoning a task nobody started does not make it started.
  if (status !== 'pending' && status !== 'abandoned' && !next.started_at) next.started_at = now;
  if (TERMINAL_STATUSES.includes(status)) {
    next.completed_at = now;
    // A finished task has no worker to resume (spec 003): its session is cleared.
    delete next.session_id;
    delete next.session;
  } else {
    delete next.completed_at;
  }
  return next;
}

export function summaryOf(task: TaskState): TaskSummary {
  const summary: TaskSummary = {
    id: task.id,
    name: task.name,
    status: task.status,
    parallel: task.parallel,
    dependencies: task.dependencies,
  };
  if (task.assigned_agent !== undefined) summary.assigned_agent = task.assigned_agent;
  return summary;
}

export const TASK_FIELDS: Record<string, FieldSpec> = {
  id: { kind: 'readonly', why: 'a task keeps its id' },
  phase: { kind: 'readonly', why: 'a task belongs to its phase' },
  name: { kind: 'string', nonEmpty: true },
  status: { kind: 'enum', values: TASK_STATUSES },
  iteration: { kind: 'integer', min: 1 },
  assigned_agent: { kind: 'string', nonEmpty: true },
  parallel: { kind: 'boolean' },
  created_at: { kind: 'readonly', why: 'it records when the task was added' },
  updated_at: { kind: 'readonly', why: 'sow keeps it current' },
  started_at: { kind: 'readonly', why: "it follows the status (set 'status')" },
  completed_at: { kind: 'readonly', why: "it follows the status (set 'status')" },
  session_id: { kind: 'readonly', why: "sessions are managed by 'sow agent spawn' and 'sow agent resume'" },
  session: { kind: 'readonly', why: "sessions are managed by 'sow agent spawn' and 'sow agent resume'" },
  inputs: { kind: 'readonly', why: 'it is a list of artifacts', hint: "use 'sow task input add|set|remove --id <id>'" },
  outputs: { kind: 'readonly', why: 'it is a list of artifacts', hint: "use 'sow task output add|set|remove --id <id>'" },
};

export const TASK_FIELD_ALIASES: Readonly<Record<string, string>> = { agent: 'assigned_agent' };

export const TASK_NAME_MAX = 200;

export function checkTaskName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw new InvalidValueError('name', name, 'a non-empty task name');
  if (trimmed.length > TASK_NAME_MAX) throw new InvalidValueError('name', `${trimmed.slice(0, 20)}…`, `at most ${TASK_NAME_MAX} characters`);
  return trimmed;
}
