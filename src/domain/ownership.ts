// One owner per task (a spawned worker or a leased claim): while it lives nobody else finishes the task without
// --force; retired owners' late writes are refused.
import { isoTime } from './time.js';
import { errorClass, UsageError } from './errors.js';
import { shown } from './display.js';
import { defined } from './json.js';
import type { RemoteClaim } from './claims.js';
import type { Owner, TaskState } from './schemas.js';

// Who fires a transition: a worker (its agent id, its session SOW_SESSION_ID), else the user; `owner` names who claims
// tasks (`--owner`, SOW_OWNER), `person` who sits at the terminal (looked up only when a claim needs it).
export type Actor = { by: string; session?: string; owner?: string; person?: string };

export const DEFAULT_LEASE_SECONDS = 30 * 60;
/** How many retired identities a task remembers (the latest). */
const RETIRED_KEPT = 20;

const named = (...names: (string | undefined)[]): string[] => names.filter((x): x is string => Boolean(x));

/** The names an actor goes by: its session, its agent id (a worker), its owner name. */
const identities = (actor: Actor) => named(actor.session, actor.by === 'user' ? undefined : actor.by, actor.owner);

const ownerIdentities = (owner: Owner) => named(owner.session, owner.by);

/** Whether the actor is the owner: by a name it goes by, or as the person at the terminal. */
export function isOwnedBy(owner: Owner, actor: Actor): boolean {
  const mine = identities(actor);
  const theirs = ownerIdentities(owner);
  if (theirs.some((id) => mine.includes(id))) return true;
  return (
    owner.kind === 'claim' && actor.owner === undefined && actor.person !== undefined && theirs.includes(actor.person)
  );
}

/** The name a claim is made under: `--owner`/SOW_OWNER, else the agent id, the session, the person. */
export function claimantOf(actor: Actor): string | undefined {
  return actor.owner ?? (actor.by !== 'user' ? actor.by : undefined) ?? actor.session ?? actor.person;
}

/** The actor's identity that no longer owns the task, if any (never the person at a terminal: they may annotate). */
export function retiredIdentity(task: TaskState, actor: Actor): string | undefined {
  const retired = task.retired_owners ?? [];
  return identities(actor).find((id) => retired.includes(id));
}

/** The task without its owner, whose identities (and the session's, unless `keepSession`: a resume) are retired. */
export function retireOwner(task: TaskState, opts: { keepSession?: boolean } = {}): TaskState {
  const session = opts.keepSession ? [] : [task.session_id, task.session?.agent_id];
  const resumed = (x: string) => opts.keepSession && (x === task.session_id || x === task.session?.agent_id);
  const ids = named(...(task.owner ? ownerIdentities(task.owner) : []), ...session).filter((x) => !resumed(x));
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
  return { ...task, owner: { ...owner, lease_until: remoteLeaseFrom(now, owner.lease_seconds) } };
}

/** Whether a claim's lease on the remote has less than half of its length left at `now` (or is not known). */
export function remoteLeaseDue(owner: Owner, now: string): boolean {
  const until = owner['remote_lease_until'];
  const seconds = owner.lease_seconds ?? DEFAULT_LEASE_SECONDS;
  return typeof until !== 'string' || Date.parse(until) - Date.parse(now) < (seconds * 1000) / 2;
}

// Whether a write of `actor` keeping `owner` must renew the remote claim too: its own claim there (a worker's too), its
// lease half run out.
export const remoteRenewalDue = (owner: Owner | undefined, actor: Actor, now: string): owner is Owner =>
  owner?.remote !== undefined && isOwnedBy(owner, actor) && remoteLeaseDue(owner, now);

/** The end of a lease of `seconds` (default 30 minutes) that starts at `now`. */
export const remoteLeaseFrom = (now: string, seconds = DEFAULT_LEASE_SECONDS): string =>
  isoTime(Date.parse(now) + seconds * 1000);

export function describeOwner(owner: Owner): string {
  if (owner.kind === 'claim')
    return `${owner.by} (claimed ${owner.since}${owner.lease_until ? `, lease until ${owner.lease_until}` : ''})`;
  return (
    `${owner.by} (a worker run by pid ${owner.pid ?? '?'}${owner.host ? ` on ${owner.host}` : ''}, ` +
    `since ${owner.since})`
  );
}

/** Who works on a task, as lists show it: nobody known (undefined), a live owner, or one that is gone. */
export type Worker =
  | { state: 'live'; kind: Owner['kind']; by: string }
  | { state: 'gone'; kind: Owner['kind']; by: string; why: WorkerGone };

/** Why nobody works on a task in progress any more. */
export type WorkerGone = 'process_gone' | 'lease_expired' | 'run_ended';

/** Who works on the task: its owner, live or gone, or the recorded worker of an ownerless task in progress (gone). */
export function workerOf(
  task: { status: TaskState['status']; owner?: Owner; session_agent?: string },
  live: (owner: Owner) => boolean,
): Worker | undefined {
  const owner = task.owner;
  if (owner && live(owner)) return { state: 'live', kind: owner.kind, by: owner.by };
  // A stale owner of a task nobody works on any more (pending, finished) says nothing.
  if (task.status !== 'in_progress') return undefined;
  const why = owner?.kind === 'claim' ? 'lease_expired' : 'process_gone';
  if (owner) return { state: 'gone', kind: owner.kind, by: owner.by, why };
  if (task.session_agent === undefined) return undefined;
  return { state: 'gone', kind: 'worker', by: task.session_agent, why: 'run_ended' };
}

/** Why nobody works on the task, in words: "its worker implementer-1 is gone (…)". */
const GONE: Record<WorkerGone, (by: string) => string> = {
  process_gone: (by) => `its worker ${by} is gone (the sow process that ran it ended)`,
  lease_expired: (by) => `the claim of ${by} ran out`,
  run_ended: (by) => `its worker ${by} ended without saying how the work stands`,
};

/** A task in progress that nobody works on any more, in a sentence: why, and what to do. */
export function unattendedText(
  task: { id: string; assigned_agent?: string },
  w: Extract<Worker, { state: 'gone' }>,
): string {
  const next =
    w.kind === 'worker'
      ? `resume its session ('sow agent resume ${task.id} "<prompt>"'), or let the next claim take it ('sow task ` +
        `next --claim')`
      : `let the next claim take it ('sow task next --claim'), or start a worker on it ('sow agent ` +
        `spawn ${shown(task.assigned_agent ?? 'implementer')} ${task.id}')`;
  return `Nobody works on task ${task.id} any more: ${GONE[w.why](shown(w.by))}. To go on, ${next}.`;
}

/** `90s`, `5m`, `2h`, or a bare number in `bare` units: seconds, or NaN for what is no duration. */
export function durationSeconds(raw: string, bare: 's' | 'm'): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(s|m|h)?\s*$/.exec(raw);
  const unit = m?.[2] ?? bare;
  return m ? Number(m[1]) * (unit === 'h' ? 3600 : unit === 'm' ? 60 : 1) : NaN;
}

export function parseLease(raw: string): number {
  const seconds = Math.round(durationSeconds(raw, 'm'));
  if (Number.isFinite(seconds) && seconds >= 1 && seconds <= 7 * 86_400) return seconds;
  throw new UsageError(
    `invalid --lease '${raw}': expected a duration such as 30m, 2h or 90s (at most 7 days)`,
    'for example --lease 45m',
  );
}

export class TaskOwnedError extends errorClass('TASK_OWNED', 'failed', (task: string, owner: Owner, what: string) => [
  `task ${task} is being worked on by ${describeOwner(owner)}; ${what}`,
  `wait until it is done, or pass --force to take it over (the owner's later writes to task ${task} are then refused)`,
  { task, owner: owner.by },
]) {}

export class NotOwnerError extends errorClass('NOT_OWNER', 'failed', (task: TaskState, identity: string) => [
  `session ${identity} no longer owns task ${task.id} (its status ` +
    `is ${task.status}${task.owner ? `, now worked on by ${task.owner.by}` : ''})`,
  `nothing was changed; the task was finished or taken over. Stop working on it and report to whoever runs you`,
  { task: task.id, identity, status: task.status },
]) {}

/** Who holds a task, when not the one acting: a live owner here, or a live claim on the claims remote. */
export type Holder = { where: 'here'; owner: Owner } | { where: 'remote'; remote: string; claim: RemoteClaim };

/** The holder's name: the owner's, the claim's (someone, when its commit could not be read). */
export const holderName = (h: Holder): string => (h.where === 'here' ? h.owner.by : (h.claim.owner ?? 'someone'));

/** "ann: claimed on the remote 'origin' from laptop-3 since …, lease until …" — who, where, since when. */
export function describeHolder(h: Holder): string {
  if (h.where === 'remote') {
    const c = h.claim;
    const from = c.machine !== undefined ? ` from ${shown(c.machine)}` : '';
    const since = c.since !== undefined ? ` since ${c.since}` : '';
    const lease = c.lease_until !== undefined ? `, lease until ${c.lease_until}` : '';
    return `${shown(holderName(h))}: claimed on the remote '${shown(h.remote)}'${from}${since}${lease}`;
  }
  const o = h.owner;
  const lease = o.lease_until ? `, lease until ${o.lease_until}` : '';
  if (o.kind === 'claim') return `${shown(o.by)}: claimed in this checkout since ${o.since}${lease}`;
  return `${shown(o.by)}: a worker run by pid ${o.pid ?? '?'}${o.host ? ` on ${shown(o.host)}` : ''} since ${o.since}`;
}

/** What the details of a refusal say of the holder: who, where, since when. */
function holderDetails(h: Holder): Record<string, unknown> {
  if (h.where === 'remote') {
    const { machine, since, lease_until } = h.claim;
    return { holder: holderName(h), where: 'remote', remote: h.remote, ...defined({ machine, since, lease_until }) };
  }
  const { by, kind, host, since, lease_until } = h.owner;
  return defined({ holder: by, where: 'here', kind, machine: host, since, lease_until });
}

/** A change of a task someone else holds (exit 3); a `worker` asking has no --force, so it is told to stop. */
export class TaskHeldError extends errorClass(
  'TASK_HELD',
  'blocked',
  (task: string, holder: Holder, worker: boolean = false) => {
    const name = shown(holderName(holder));
    const leased = holder.where === 'remote' || holder.owner.kind === 'claim';
    const wait = leased ? 'until its lease runs out' : 'until its worker is done';
    const then =
      holder.where === 'remote'
        ? `the claim on '${shown(holder.remote)}' is deleted`
        : `${name}'s later writes to it are refused`;
    return [
      `task ${task} is held by ${describeHolder(holder)}; only its holder changes it`,
      worker
        ? `nothing was changed; task ${task} is not yours to change: stop working on it and tell whoever runs you`
        : `nothing was changed; ask ${name} to let it go, wait ${wait} ('sow task list' shows who holds what), or ` +
          `pass --force to take it over (noted in the task's log, and ${then})`,
      { task, ...holderDetails(holder) },
    ];
  },
) {}
