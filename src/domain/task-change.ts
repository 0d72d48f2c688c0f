// A change of a task, decided once for every way in (`task set`, `task abandon`, MCP, the page, a worker's report): the
// plan of what is written and which checks run first, or the refusal. Pure: the app writes exactly what it says.
import { findAgent } from './agents.js';
import { coerceField, own, parseValue, resolveField, setAtPath } from './fields.js';
import { isOwnedBy, NotOwnerError, renewLease, retiredIdentity, retireOwner, TaskHeldError } from './ownership.js';
import type { Actor, Holder } from './ownership.js';
import type { Check } from './config-schemas.js';
import type { Owner, TaskState, TaskStatus, TaskSummary } from './schemas.js';
import {
  checkStatusChange,
  checkTaskName,
  isFinished,
  parseDependencies,
  TASK_FIELD_ALIASES,
  TASK_FIELDS,
  withStatus,
  type StatusChangeOptions,
} from './tasks.js';

/** What is asked: a field (by any of its names, or metadata) and its value as written. */
export interface ChangeRequest extends StatusChangeOptions {
  field: string;
  raw: string;
  /** Override a refusal: a live holder, an unfinished dependency, pending feedback, a completed task. */
  force?: boolean;
  /** The one asking is a spawned worker reporting (it has no --force): a refusal tells it to stop. */
  worker?: boolean;
  /** How the task's log names a forced change (default `set <field> <value>`). */
  what?: string;
}

/** What the plan reads: the task, who acts and when, and the rest only when the change needs it. */
export interface ChangeView {
  task: TaskState;
  actor: Actor;
  now: string;
  /** Who else holds the task now, here or on the claims remote; undefined when nobody does. */
  holder(): Holder | undefined;
  dependenciesOf(task: TaskState): Promise<TaskSummary[]>;
  tasks(): Promise<TaskSummary[]>;
  /** The checks declared for task_complete (read only for a completion). */
  checks(): Promise<readonly Check[]>;
}

export interface TaskChangePlan {
  id: string;
  /** The field as stored (`status`, `metadata.x`). */
  field: string;
  value: unknown;
  /** The task as it will be written (as it is, when nothing is). */
  task: TaskState;
  /** Asks to complete the task (whether or not it is completed already). */
  completes?: true;
  /** The task had that status already: nothing is written, and no check runs. */
  unchanged?: true;
  /** Whether the task's state is written (a description alone is a document beside it). */
  write: boolean;
  /** A completion: the checks that must pass before it is written, or that --force records as skipped. */
  checks?: { skip: boolean; declared: readonly Check[] };
  /** Taken over from someone else with --force: said in the task's log, and their claim given back. */
  takeover?: { holder: Holder; what: string };
  /** The claim on the remote that finishing or letting go gives back; `quiet`: a remote refusing does not stop it. */
  release?: { owner: Owner; quiet: boolean };
  /** A completed task moved to another status with --force: its log says so. */
  reopened?: TaskState;
  /** The new description.md, whole. */
  description?: string;
}

/** Fields whose value is checked beyond its type; the others are coerced by their spec. */
const CHECKED: Record<string, (raw: string, view: ChangeView) => unknown> = {
  name: checkTaskName,
  assigned_agent: (raw) => findAgent(raw.trim()).name,
  dependencies: async (raw, view) =>
    raw.trim() === '' ? [] : parseDependencies(raw, await view.tasks(), view.task.id),
};

/** Plans `request` on the task the view holds; throws the refusal (nothing planned is then written). */
export async function planTaskChange(view: ChangeView, request: ChangeRequest): Promise<TaskChangePlan> {
  const id = view.task.id;
  const resolved = resolveField(
    own(TASK_FIELD_ALIASES, request.field) ?? request.field,
    TASK_FIELDS,
    `task ${id}`,
    Object.keys(TASK_FIELD_ALIASES),
  );
  if (resolved.where === 'field' && resolved.name === 'status')
    return planStatus(view, request, coerceField('status', request.raw, resolved.spec) as TaskStatus);
  const field = resolved.where === 'field' ? resolved.name : `metadata.${resolved.path.join('.')}`;
  // Checked before the value: whoever may not change the task hears that first.
  const { takeover, before } = guard(view, request, `set ${field}`);
  const plan = { id, field, write: true, ...(takeover ? { takeover } : {}) };
  const raw = request.raw;
  if (resolved.where === 'metadata') {
    const value = parseValue(raw);
    return { ...plan, value, task: { ...before, metadata: setAtPath({ ...before.metadata }, resolved.path, value) } };
  }
  const name = resolved.name;
  // A forced change took the task over: its owner is gone from the state too.
  if (name === 'description')
    return { ...plan, value: raw, task: before, description: descriptionDoc(before.name, raw), write: !!takeover };
  const checked = own(CHECKED, name);
  const value = checked ? await checked(raw, view) : coerceField(name, raw, resolved.spec);
  return { ...plan, value, task: { ...before, [name]: value } };
}

/** The status change: refused as the guards say (unless --force); a task with that status already is left as is. */
async function planStatus(view: ChangeView, request: ChangeRequest, status: TaskStatus): Promise<TaskChangePlan> {
  const { task, actor } = view;
  const completes = status === 'completed' ? { completes: true as const } : {};
  const plan = { id: task.id, field: 'status', value: status, ...completes };
  // Who no longer owns the task hears that first, even about a change that would change nothing.
  refuseRetired(task, actor);
  if (task.status === status) return { ...plan, task, unchanged: true, write: false };
  const { takeover, before } = guard(view, request, request.what ?? `set status ${status}`);
  if (!request.force) checkStatusChange(before, status, await view.dependenciesOf(before), request);
  const next = withStatus(before, status, view.now);
  // Its claimant setting it back to pending or paused lets it go: here, and on the remote.
  const lets =
    (status === 'pending' || status === 'paused') && before.owner?.kind === 'claim' && isOwnedBy(before.owner, actor);
  // A new object: withStatus never returns the task it is given.
  if (lets) delete next.owner;
  const declared = status === 'completed' ? await view.checks() : [];
  return {
    ...plan,
    task: next,
    write: true,
    ...(takeover ? { takeover } : {}),
    ...((isFinished(status) || lets) && before.owner?.remote !== undefined
      ? { release: { owner: before.owner, quiet: request.force === true || lets } }
      : {}),
    ...(before.status === 'completed' ? { reopened: before } : {}),
    ...(declared.length ? { checks: { skip: request.force === true, declared } } : {}),
  };
}

/** The task as `actor`'s write stores it: refused if it no longer owns `before`, stamped, a claim's lease renewed. */
export function stampedTask(before: TaskState | undefined, next: TaskState, actor: Actor, now: string): TaskState {
  if (before) refuseRetired(before, actor);
  return renewLease({ ...next, updated_at: now }, actor, now);
}

/** A write from an identity that no longer owns the task (finished or taken over) is refused: it is told to stop. */
export function refuseRetired(task: TaskState, actor: Actor): void {
  const retired = retiredIdentity(task, actor);
  if (retired !== undefined) throw new NotOwnerError(task, retired);
}

/** Refused (TASK_HELD, exit 3) while someone else holds `before`; --force takes it over, retiring a holder here. */
function guard(view: ChangeView, request: ChangeRequest, what: string) {
  refuseRetired(view.task, view.actor);
  const holder = view.holder();
  if (!holder) return { before: view.task };
  if (!request.force) throw new TaskHeldError(view.task.id, holder, request.worker);
  return { takeover: { holder, what }, before: holder.where === 'here' ? retireOwner(view.task) : view.task };
}

/** What sow writes into the description of a task added without one. */
export const DESCRIPTION_PLACEHOLDER = '<!-- Requirements and acceptance criteria for this task. -->';

/** A task's description.md: its name as the title, then the description (or a placeholder to fill in). */
export function descriptionDoc(name: string, description: string | undefined): string {
  return `# ${name}\n\n${description?.trim() || DESCRIPTION_PLACEHOLDER}\n`;
}
