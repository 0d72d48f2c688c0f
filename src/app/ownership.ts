/** Whether a task's owner still lives (a worker's process here, a claim's lease), and the rules that need it. */
import { NotExecutingError } from '../domain/errors.js';
import { isOwnedBy, retireOwner, workerOf, type Actor, type Holder, type Worker } from '../domain/ownership.js';
import { routeTo } from '../domain/lifecycle.js';
import type { ProjectType, ProjectView } from '../domain/project-type.js';
import type { Owner, TaskState, TaskSummary } from '../domain/schemas.js';
import { remoteClaimLive, type RemoteClaim, type RemoteClaimRow } from '../domain/claims.js';
import { isFinished, summaryOf } from '../domain/tasks.js';
import { processGone, thisProcess } from '../adapters/liveness.js';
import { ourClaim } from './remote-claims.js';

// Whether the owner still works on the task. A worker on another host or pid namespace cannot be looked at: it counts
// as alive (--force takes over), its pid never looked up. A claim lives until its lease runs out at `now`.
export function ownerLive(owner: Owner, now: string): boolean {
  if (owner.kind === 'claim') return owner.lease_until !== undefined && Date.parse(owner.lease_until) > Date.parse(now);
  if (owner.pid === undefined || owner.host === undefined) return false;
  return processGone({ ...owner, pid: owner.pid, host: owner.host, boot: owner.boot || undefined }) !== true;
}

/** The task's owner when it still lives. */
export const liveOwner = (task: TaskState, now: string): Owner | undefined =>
  task.owner && ownerLive(task.owner, now) ? task.owner : undefined;

/** Who works on the task now: a live owner, one that is gone, or nobody known (undefined). */
export const workerNow = (task: Attended, now: string) => workerOf(task, (owner) => ownerLive(owner, now));

/** What says whether anyone works on a task. */
type Attended = Pick<TaskSummary, 'status' | 'owner' | 'session_agent'>;

/** A task as lists show it: its summary, with who works on it (live or gone) and its claim on the claims remote. */
export type TaskRow = Omit<TaskSummary, 'owner' | 'session_agent' | 'dependencies'> & {
  /** Absent when it has none: a list of 10,000 tasks says nothing empty (and builds nothing to leave out). */
  dependencies?: string[];
  worker?: Worker;
  remote_claim?: RemoteClaimRow;
};

export function taskRow(t: TaskSummary, now: string): TaskRow {
  // Field by field in the summary's order (--json keeps it): rest and spread cost several times more, per task.
  const row: TaskRow = { id: t.id, name: t.name, status: t.status, parallel: t.parallel };
  if (t.dependencies.length) row.dependencies = t.dependencies;
  if (t.assigned_agent !== undefined) row.assigned_agent = t.assigned_agent;
  if (t.owner === undefined && t.session_agent === undefined) return row;
  const worker = workerNow(t, now);
  if (worker) row.worker = worker;
  return row;
}

/** Work on tasks starts only in a state that executes them; else NotExecutingError (exit 3) with the route there. */
export function requireExecuting(type: ProjectType, v: ProjectView, task: string | undefined): void {
  const state = v.project.statechart.current_state;
  if (type.states[state]?.executesTasks) return;
  const executing = Object.keys(type.states).filter((name) => type.states[name]!.executesTasks);
  const route = routeTo(type, v, (s) => type.states[s]?.executesTasks === true);
  throw new NotExecutingError(task, state, executing, route);
}

// Who holds the task, if not the actor: a live owner here, else a live claim on the remote (`seen`, read before the
// change) that this checkout's state does not record as its own. The one rule for every change of a task.
export function heldBy(
  task: TaskState,
  actor: Actor,
  now: string,
  seen?: { remote: string; claim?: RemoteClaim },
): Holder | undefined {
  const owner = liveOwner(task, now);
  if (owner && !isOwnedBy(owner, actor)) return { where: 'here', owner };
  const claim = seen?.claim;
  if (seen && claim && remoteClaimLive(claim, now) && claim.sha !== ourClaim(task, seen.remote))
    return { where: 'remote', remote: seen.remote, claim };
  return undefined;
}

/** Taking a task over: a stale owner (or, with --force, a live one) is retired. */
export function takeOver(task: TaskState): TaskState {
  return task.owner ? retireOwner(task) : task;
}

/** The owner record of a worker that this process (`sow agent spawn|resume`) waits for. */
export function workerOwner(agentId: string, session: string | undefined, now: string): Owner {
  return { kind: 'worker', by: agentId, ...(session ? { session } : {}), ...thisProcess(), since: now };
}

/** The tasks that may be ready, in id order: pending or in progress, every dependency done (`isReady` decides). */
export function candidateIds(tasks: readonly TaskSummary[]): string[] {
  const status = new Map(tasks.map((t) => [t.id, t.status]));
  const startable = (t: TaskSummary) => t.status === 'pending' || t.status === 'in_progress';
  const unblocked = (t: TaskSummary) => t.dependencies.every((d) => isFinished(status.get(d) ?? 'pending'));
  return tasks.filter((t) => startable(t) && unblocked(t)).map((t) => t.id);
}

/** Ready to start: pending or in progress, and nobody works on it (any more): the next claim takes it over. */
export function isReady(task: TaskState, now: string): boolean {
  return readyNow(summaryOf(task), now);
}

/** `isReady` from a task's summary, which holds all it needs: a list of ready tasks reads no task file. */
export function readyNow(t: Attended, now: string): boolean {
  if (t.status === 'pending') return !(t.owner && ownerLive(t.owner, now));
  return t.status === 'in_progress' && workerNow(t, now)?.state === 'gone';
}
