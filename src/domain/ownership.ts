/**
 * One owner per task. A task being worked on names its owner: a spawned worker (alive while the
 * `sow agent` process that waits for it runs) or a claim (a session or named owner with a lease).
 * While the owner lives, nobody else finishes the task without --force; once a task is finished or
 * taken over, the identities that owned it are retired, and their late writes to it are refused.
 */
import { SowError, UsageError } from './errors.js';
import type { Actor } from './lifecycle.js';
import type { Owner, TaskState } from './schemas.js';

export const DEFAULT_LEASE_SECONDS = 30 * 60;
/** How many retired identities a task remembers (the latest). */
const RETIRED_KEPT = 20;

/** The names an actor goes by: its session, its agent id (a worker), its owner name. */
export function identities(actor: Actor): string[] {
  return [actor.session, actor.by === 'user' ? undefined : actor.by, actor.owner].filter((x): x is string => Boolean(x));
}

const ownerIdentities = (owner: Owner): string[] => [owner.session, owner.by].filter((x): x is string => Boolean(x));

export function isOwnedBy(owner: Owner, actor: Actor): boolean {
  const mine = identities(actor);
  return ownerIdentities(owner).some((id) => mine.includes(id));
}

/** The identity of the actor that no longer owns the task, if it is one. */
export function retiredIdentity(task: TaskState, actor: Actor): string | undefined {
  const retired = task.retired_owners ?? [];
  return identities(actor).find((id) => retired.includes(id));
}

/**
 * The task without its owner; the owner's identities retired, and the task's session's too
 * (unless `keepSession`: a resume of that session takes the task over from another owner).
 */
export function retireOwner(task: TaskState, opts: { keepSession?: boolean } = {}): TaskState {
  const session = opts.keepSession ? [] : [task.session_id, task.session?.agent_id];
  const ids = [...(task.owner ? ownerIdentities(task.owner) : []), ...session].filter((x): x is string => Boolean(x) && !(opts.keepSession && (x === task.session_id || x === task.session?.agent_id)));
  const next = { ...task };
  delete next.owner;
  if (ids.length === 0) return next;
  const retired = [...(task.retired_owners ?? []).filter((id) => !ids.includes(id)), ...ids];
  next.retired_owners = retired.slice(-RETIRED_KEPT);
  return next;
}

/** A claim's lease, renewed by a write of its owner. */
export function renewLease(task: TaskState, actor: Actor, now: string): TaskState {
  const owner = task.owner;
  if (!owner || owner.kind !== 'claim' || !isOwnedBy(owner, actor)) return task;
  const seconds = owner.lease_seconds ?? DEFAULT_LEASE_SECONDS;
  return { ...task, owner: { ...owner, lease_until: new Date(Date.parse(now) + seconds * 1000).toISOString() } };
}

export function describeOwner(owner: Owner): string {
  if (owner.kind === 'claim') return `${owner.by} (claimed ${owner.since}${owner.lease_until ? `, lease until ${owner.lease_until}` : ''})`;
  return `${owner.by} (a worker run by pid ${owner.pid ?? '?'}${owner.host ? ` on ${owner.host}` : ''}, since ${owner.since})`;
}

/** `30m`, `2h`, `90s`, or a number of minutes. */
export function parseLease(raw: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(s|m|h)?\s*$/.exec(raw);
  const unit = m?.[2] ?? 'm';
  const seconds = m ? Math.round(Number(m[1]) * (unit === 'h' ? 3600 : unit === 'm' ? 60 : 1)) : NaN;
  if (!Number.isFinite(seconds) || seconds < 1 || seconds > 7 * 86_400) {
    throw new UsageError(`invalid --lease '${raw}': expected a duration such as 30m, 2h or 90s (at most 7 days)`, 'for example --lease 45m');
  }
  return seconds;
}

export class TaskOwnedError extends SowError {
  constructor(task: string, owner: Owner, what: string) {
    super('TASK_OWNED', 'failed', `task ${task} is being worked on by ${describeOwner(owner)}; ${what}`,
      `wait until it is done, or pass --force to take it over (the owner's later writes to task ${task} are then refused)`,
      { task, owner: owner.by });
  }
}

export class NotOwnerError extends SowError {
  constructor(task: TaskState, identity: string) {
    super('NOT_OWNER', 'failed', `session ${identity} no longer owns task ${task.id} (its status is ${task.status}${task.owner ? `, now worked on by ${task.owner.by}` : ''})`,
      `nothing was changed; the task was finished or taken over. Stop working on it and report to whoever runs you`,
      { task: task.id, identity, status: task.status });
  }
}
