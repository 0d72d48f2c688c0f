/** Task rules: gap-numbered ids, acyclic dependencies, statuses and their timestamps, what blocks a status change. */
import {
  DependencyCycleError,
  InvalidValueError,
  TaskBlockedError,
  TaskIdTakenError,
  TaskNotFoundError,
} from './errors.js';
import {
  TASK_ID_PATTERN,
  TASK_STATUSES,
  type Artifact,
  type TaskState,
  type TaskStatus,
  type TaskSummary,
} from './schemas.js';
import { readOnly, type FieldSpec } from './fields.js';
import { retireOwner } from './ownership.js';
import { defined } from './json.js';

export const ID_GAP = 10;

/** `10`, `010` and `0010` all name task 010; ids have at least three digits. */
export function normalizeTaskId(raw: string): string {
  const trimmed = raw.trim();
  if (!/^\d{1,9}$/.test(trimmed)) throw new InvalidValueError('id', raw, 'a task id: digits, e.g. 010 or 1000');
  return String(Number(trimmed)).padStart(3, '0');
}

/** Task ids in numeric order without converting them (no extra leading zeros: shorter is smaller). */
export function compareIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

export const byId = (a: { id: string }, b: { id: string }) => compareIds(a.id, b.id);

const ONE_ID = TASK_ID_PATTERN.source.slice(1, -1);
/** Task ids joined by '/' (which no file name holds): one test for a whole folder of them. */
export const TASK_ID_LIST = new RegExp(`^(?:${ONE_ID})(?:/(?:${ONE_ID}))*$`);

// `ids` sorted in place in compareIds' order: the engine's string sort (a comparator cost ~5 M instructions per
// thousand ids) of each length apart, shortest first. Plain loops: ids run from 3 to 5 digits at 1,000 tasks.
export function sortIds(ids: string[]): string[] {
  const byLength: (string[] | undefined)[] = [];
  for (let i = 0; i < ids.length; i++) (byLength[ids[i]!.length] ??= []).push(ids[i]!);
  let at = 0;
  for (let n = 0; n < byLength.length; n++) {
    const group = byLength[n]?.sort();
    if (group) for (let i = 0; i < group.length; i++) ids[at++] = group[i]!;
  }
  return ids;
}

export function nextTaskId(tasks: readonly { id: string }[]): string {
  const max = tasks.reduce((m, t) => Math.max(m, Number(t.id)), 0);
  return String((Math.floor(max / ID_GAP) + 1) * ID_GAP).padStart(3, '0');
}

export function checkNewTaskId(raw: string, tasks: readonly { id: string }[]): string {
  const id = normalizeTaskId(raw);
  // normalizeTaskId's ids all match TASK_ID_PATTERN but this one.
  if (id === '000') throw new InvalidValueError('id', raw, 'a task id from 001 on, e.g. 010');
  if (tasks.some((t) => t.id === id)) throw new TaskIdTakenError(id);
  return id;
}

export function findTask<T extends { id: string }>(tasks: readonly T[], raw: string): T {
  const id = normalizeTaskId(raw);
  const task = tasks.find((t) => t.id === id);
  if (!task) throw new TaskNotFoundError(raw);
  return task;
}

/** A cycle in the dependency graph, as ids from a task back to itself, or undefined. */
export function findCycle(graph: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (id: string): string[] | undefined => {
    const seen = state.get(id);
    if (seen === 'done') return undefined;
    if (seen === 'open') return [...stack.slice(stack.indexOf(id)), id];
    state.set(id, 'open');
    stack.push(id);
    for (const dep of graph.get(id) ?? []) {
      const cycle = visit(dep);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const id of [...graph.keys()].sort(compareIds)) {
    const cycle = visit(id);
    if (cycle) return cycle;
  }
  return undefined;
}

/** Parses `010,20` into ids of other existing tasks that `self` may depend on without a cycle. */
export function parseDependencies(raw: string, tasks: readonly TaskSummary[], self: string): string[] {
  const ids: string[] = [];
  // normalizeTaskId trims each word.
  for (const word of raw.split(',').filter((w) => w.trim())) {
    // What normalizeTaskId takes (trim and \s drop the same white space).
    if (!/^\s*\d{1,9}\s*$/.test(word))
      throw new InvalidValueError('dependencies', raw, 'task ids separated by commas, e.g. 010,020');
    const id = normalizeTaskId(word);
    if (id === self)
      throw new InvalidValueError('dependencies', raw, 'ids of other tasks (a task cannot depend on itself)');
    findTask(tasks, id);
    if (!ids.includes(id)) ids.push(id);
  }
  const graph = new Map<string, readonly string[]>(tasks.map((t) => [t.id, t.dependencies]));
  graph.set(self, ids);
  const cycle = findCycle(graph);
  if (cycle) throw new DependencyCycleError(cycle);
  return ids;
}

export const isFinished = (status: TaskStatus) => status === 'completed' || status === 'abandoned';

export function pendingFeedback(task: TaskState): { index: number; artifact: Artifact }[] {
  return task.inputs.flatMap((artifact, index) =>
    artifact.type === 'feedback' && artifact.metadata?.['status'] === 'pending' ? [{ index, artifact }] : [],
  );
}

/** Statuses that say the task's work is going on or done. */
const WORKING: readonly TaskStatus[] = ['in_progress', 'needs_review', 'completed'];
/** Statuses that say work stopped: only a task whose work started can have stopped. */
const STOPPED: readonly TaskStatus[] = ['paused', 'failed'];

/** Whether `from` → `to` starts or finishes work, which needs the dependencies finished (stopping does not). */
export function needsDependenciesFinished(from: TaskStatus, to: TaskStatus): boolean {
  if (from === to) return false;
  if (WORKING.includes(to)) return true;
  return STOPPED.includes(to) && (from === 'pending' || from === 'abandoned');
}

const BLOCKED_VERB: Record<TaskStatus, string> = {
  pending: 'cannot be set pending',
  in_progress: 'cannot start',
  needs_review: 'cannot go to review',
  paused: 'cannot be paused',
  failed: 'cannot be marked failed',
  completed: 'cannot be completed',
  abandoned: 'cannot be abandoned',
};

/** `action`: what a refusal calls the one acting (`task <id>`); `override`: how to get past a dependency (--force). */
export type StatusChangeOptions = { action?: string; override?: string };

// Why `task` may not take `status` now (completed stays; dependencies finished; no pending feedback): throws
// TaskBlockedError (exit 3); `--force` skips the call.
export function checkStatusChange(
  task: TaskState,
  status: TaskStatus,
  dependencies: readonly TaskSummary[],
  opts: StatusChangeOptions = {},
): void {
  const action = opts.action ?? `task ${task.id}`;
  if (task.status === 'completed' && status !== 'completed') {
    throw new TaskBlockedError(
      `${action} is completed${task.completed_at ? ` (since ${task.completed_at})` : ''}, and a completed task ` +
        `stays completed`,
      `add a task for the further work ('sow task add'), or pass --force to set it ${status} anyway (recorded in ` +
        `the task's log)`,
      { task: task.id, status: task.status, to: status, ...defined({ completed_at: task.completed_at }) },
    );
  }
  if (needsDependenciesFinished(task.status, status)) {
    const open = dependencies.filter((t) => task.dependencies.includes(t.id) && !isFinished(t.status));
    if (open.length > 0) {
      const ids = open.map((t) => t.id).join(', ');
      throw new TaskBlockedError(
        `${action} ${BLOCKED_VERB[status]}: it depends on ${open.map((t) => `${t.id} (${t.status})`).join(', ')}`,
        `finish or abandon ${ids} first, or ` +
          (opts.override ??
            (status === 'in_progress' ? 'pass --force to start it anyway' : `pass --force to set it ${status} anyway`)),
        { task: task.id, status, blocked_by: open.map((t) => ({ id: t.id, status: t.status })) },
      );
    }
  }
  if (status === 'completed' && task.status !== 'completed') {
    const pending = pendingFeedback(task);
    if (pending.length > 0) {
      const first = pending[0]!;
      throw new TaskBlockedError(
        `task ${task.id} cannot be completed: it has pending ` +
          `feedback ${pending.map((p) => `[${p.index}] ${p.artifact.path}`).join(', ')}`,
        `deal with it, then mark it: 'sow task input set --id ${task.id} --index ${first.index} status addressed'; ` +
          `or pass --force to complete it anyway`,
        { task: task.id, pending_feedback: pending.map((p) => ({ index: p.index, path: p.artifact.path })) },
      );
    }
  }
}

/** Applies a status and keeps started_at / completed_at / updated_at true to it. */
export function withStatus(task: TaskState, status: TaskStatus, now: string): TaskState {
  const next: TaskState = { ...task, status, updated_at: now };
  // Abandoning a task nobody started does not make it started.
  if (status !== 'pending' && status !== 'abandoned' && !next.started_at) next.started_at = now;
  if (!isFinished(status)) {
    delete next.completed_at;
    return next;
  }
  next.completed_at = now;
  // A finished task has no worker to resume, and whoever owned it no longer does.
  const retired = retireOwner(next);
  delete retired.session_id;
  delete retired.session;
  return retired;
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
  if (task.owner !== undefined) summary.owner = task.owner;
  if (task.session?.agent_id !== undefined) summary.session_agent = task.session.agent_id;
  return summary;
}

export const TASK_FIELDS: Record<string, FieldSpec> = {
  id: readOnly('a task keeps its id'),
  phase: readOnly('a task belongs to its phase'),
  name: { kind: 'string', nonEmpty: true },
  status: { kind: 'enum', values: TASK_STATUSES },
  iteration: { kind: 'integer', min: 1 },
  assigned_agent: { kind: 'string', nonEmpty: true },
  parallel: { kind: 'boolean' },
  dependencies: { kind: 'string' },
  description: { kind: 'string' },
  created_at: readOnly('it records when the task was added'),
  updated_at: readOnly('sow keeps it current'),
  started_at: readOnly("it follows the status (set 'status')"),
  completed_at: readOnly("it follows the status (set 'status')"),
  session_id: readOnly("sessions are managed by 'sow agent spawn' and 'sow agent resume'"),
  session: readOnly("sessions are managed by 'sow agent spawn' and 'sow agent resume'"),
  worktree: readOnly("a worker's checkout is made by 'sow agent spawn --worktree' and removed by 'sow task merge'"),
  inputs: readOnly('it is a list of artifacts', "use 'sow task input add|set|remove --id <id>'"),
  outputs: readOnly('it is a list of artifacts', "use 'sow task output add|set|remove --id <id>'"),
  metadata: readOnly('it is a map', "set one key of it, e.g. 'metadata.owner'"),
};

export const TASK_FIELD_ALIASES: Readonly<Record<string, string>> = { agent: 'assigned_agent' };

export const TASK_NAME_MAX = 200;

export function checkTaskName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw new InvalidValueError('name', name, 'a non-empty task name');
  if (trimmed.length > TASK_NAME_MAX)
    throw new InvalidValueError('name', `${trimmed.slice(0, 20)}…`, `at most ${TASK_NAME_MAX} characters`);
  return trimmed;
}
