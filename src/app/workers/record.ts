/** The record stage: one update writes the plan only if the state is still what it was made from (else it is planned
 * again). A remote claim is pushed before, never under the lock, and given back if the write fails. */
import { isDeepStrictEqual } from 'node:util';
import type { AppContext } from '../context.js';
import type { Owner, ProjectState, Session, TaskState, TaskSummary } from '../../domain/schemas.js';
import { NoReadyTaskError } from '../../domain/errors.js';
import { remoteLeaseFrom, retireOwner } from '../../domain/ownership.js';
import { ClaimedElsewhereError } from '../../domain/claims.js';
import type { OwnerRecord } from '../../domain/signal-proof.js';
import type { ProjectIdentity } from '../../adapters/deferred-runs.js';
import { removeOwnerRecord, writeOwnerRecord } from '../../adapters/signals.js';
import { leftCompletedEntry } from '../log-entry.js';
import { candidateIds, isReady, workerOwner } from '../ownership.js';
import { update, type Reader } from '../workspace.js';
import { type UnitOfWork } from '../unit-of-work.js';
import { claimsRemote, ourClaim, remoteClaimer, type ClaimsRemote } from '../remote-claims.js';
import {
  checkResumable,
  checkSpawnable,
  nextAgentId,
  planSpawn,
  projectAssignment,
  resumedSession,
  resumedTask,
  taskAssignment,
  wantsCheckout,
  type SpawnRecord,
} from './plan.js';
import { readForWorker } from './preconditions.js';
import type { Target } from './types.js';

/** A claim that landed on the remote before the lock was taken (what giving it back needs): for which task, and until
 * when. */
type Claimed = { remote: string; ref: string; sha: string; task: string; leaseUntil: string; owner: string };

/** The owner a worker is: this process, and its claim on the remote when one landed. */
const ownerWith = (claimed: Claimed | undefined, agentId: string, session: string | undefined, now: string): Owner => ({
  ...workerOwner(agentId, session, now),
  ...(claimed ? { remote: claimed.remote, remote_claim: claimed.sha, remote_lease_until: claimed.leaseUntil } : {}),
});

/** Gives back a claim that landed on the remote for a worker that was then not recorded here. */
async function giveBack(root: string, pushed: Claimed): Promise<void> {
  const { pushClaim } = await import('../../adapters/remote-claims.js');
  await pushClaim(root, pushed.remote, pushed.ref, null, pushed.sha);
}

/** The state a plan was made from: the write goes on only if it is still so. */
interface Basis {
  project: ProjectState;
  task?: TaskState;
  /** The task's dependencies as read, when they decided whether it may start (not forced). */
  deps?: TaskSummary[] | undefined;
}

/** The plan's basis is gone: another write changed what it was made from. */
class Stale extends Error {}

/** Refuses (Stale) a write whose project, task or task's dependencies are no longer as the plan read them. */
async function unchanged(uow: UnitOfWork, basis: Basis): Promise<void> {
  const task = basis.task && (await uow.task(basis.task.id));
  if (
    !isDeepStrictEqual(await uow.project(), basis.project) ||
    (task && !isDeepStrictEqual(task, basis.task)) ||
    (task && basis.deps && !isDeepStrictEqual(await uow.dependenciesOf(task), basis.deps))
  )
    throw new Stale();
}

/** What a spawn plans from, in one read: the project, and the tasks the worker may take, in order. */
interface SpawnSeen {
  project: ProjectState;
  /** The task named (checked), or (--next) the ready ones nobody works on: only the first without a claims remote. */
  candidates: TaskState[];
  deps: Map<string, TaskSummary[]>;
  tasks: TaskSummary[];
  /** A worker for the project's next iteration: that iteration's prompt, everything it knows. */
  iteration?: string | undefined;
}

async function readSpawn(reader: Reader, rec: SpawnRecord, every: boolean): Promise<SpawnSeen> {
  const seen: SpawnSeen = { project: reader.project, candidates: [], deps: new Map(), tasks: [] };
  const now = reader.ctx.now();
  if (rec.named?.kind === 'project') {
    const prompt = rec.iteration ? reader.type.iterationPrompt : undefined;
    return { ...seen, iteration: prompt?.(await reader.view(), (rel) => reader.readDoc(rel)) };
  }
  const deps = (task: TaskState) => reader.dependenciesOf(task);
  if (rec.named?.kind === 'task') {
    const task = await reader.task(rec.named.id);
    await checkSpawnable(reader, task, rec.force, rec.handoff !== undefined);
    if (!rec.force) seen.deps.set(task.id, await deps(task));
    return { ...seen, candidates: [task] };
  }
  seen.tasks = await reader.tasks();
  for (const id of candidateIds(seen.tasks)) {
    const task = await reader.task(id);
    if (!isReady(task, now)) continue;
    seen.candidates.push(task);
    seen.deps.set(task.id, await deps(task));
    if (!every) break;
  }
  if (seen.candidates.length === 0) throw new NoReadyTaskError(seen.tasks);
  return seen;
}

/** Pushes `by.owner`'s claim of the first of `tasks` whose claim lands, over `by.ours` (else the claim the task
 * records); a task held there is passed over, or refused with ClaimedElsewhereError for `by.refuseAs`. */
async function claimFirst(
  root: string,
  claims: ClaimsRemote,
  branch: string,
  tasks: readonly TaskState[],
  by: { owner: string; now: string; leaseUntil: string; ours?: string; force?: boolean; refuseAs?: string | undefined },
): Promise<Claimed | undefined> {
  const onRemote = await remoteClaimer(root, claims, branch);
  const { owner, now, leaseUntil } = by;
  for (const candidate of tasks) {
    const task = candidate.id;
    const record = { task, owner, machine: onRemote.machine, since: now, lease_until: leaseUntil };
    const opts = { ours: by.ours ?? ourClaim(candidate, onRemote.remote), force: by.force };
    const sha = await onRemote.claim(task, record, now, opts);
    if (sha !== undefined) return { remote: onRemote.remote, ref: onRemote.ref(task), sha, task, leaseUntil, owner };
    if (by.refuseAs !== undefined)
      throw new ClaimedElsewhereError(task, onRemote.remote, await onRemote.holder(task), by.refuseAs);
  }
  return undefined;
}

/** The one write of a spawn: its plan, on the state it was made from; the owner record, when it has a task. */
async function writeSpawn(
  uow: UnitOfWork,
  basis: Basis,
  plan: ReturnType<typeof planSpawn>,
  rec: SpawnRecord,
): Promise<OwnerRecord | undefined> {
  await unchanged(uow, basis);
  // Forced onto a completed task, the worker reopens it, and its log says so.
  if (plan.reopened === 'completed') {
    const how = `a worker was spawned on it: sow agent spawn ${rec.agent.name} ${basis.task!.id} --force`;
    const phase = await uow.taskPhase();
    uow.tx.appendEntry(leftCompletedEntry(phase, uow.now, basis.task!, 'in_progress', uow.actor.by, how));
  }
  uow.setProject(plan.project);
  if (!plan.task) return undefined;
  uow.setTask(plan.task);
  // The proof that this process is the owner, before the owner is committed: 'agent stop' signals nothing else.
  return writeOwnerRecord(uow.root, { task: plan.task.id, agent_id: plan.agentId });
}

type Held = { claimed: Claimed | undefined };
type Write = (uow: UnitOfWork) => Promise<OwnerRecord | undefined>;

/** Plans and writes until the write finds the state its plan read (Stale: planned again); the owner record of a
 * failed write is removed, and a claim that landed is given back when no write does (as 'task next --claim' does). */
async function recordUntilWritten<T extends { write: Write }>(ctx: AppContext, attempt: (held: Held) => Promise<T>) {
  const held: Held = { claimed: undefined };
  try {
    for (;;) {
      const tried = await attempt(held);
      let ownerRecord: OwnerRecord | undefined;
      try {
        await update(ctx, async (uow) => void (ownerRecord = await tried.write(uow)));
      } catch (err) {
        if (ownerRecord) removeOwnerRecord(ctx.cwd, ownerRecord);
        if (err instanceof Stale) continue;
        throw err;
      }
      return { ...tried, ownerRecord, claimed: held.claimed };
    }
  } catch (err) {
    if (held.claimed) await giveBack(ctx.cwd, held.claimed);
    throw err;
  }
}

/** What the record stage wrote, and what the later stages need of it. */
export type Recorded = Awaited<ReturnType<typeof recordSpawn>>;

/** Plans a spawn and writes its plan (see the module's comment); with a claims remote, the claim is pushed first. */
export async function recordSpawn(ctx: AppContext, rec: SpawnRecord) {
  const root = ctx.cwd;
  const claims = rec.named?.kind === 'project' ? undefined : await claimsRemote(root);
  const { seen, plan, opened, ownerRecord, claimed } = await recordUntilWritten(ctx, async (held) => {
    const seen = await readForWorker(ctx, (reader) => readSpawn(reader, rec, claims !== undefined));
    const agentId = nextAgentId(seen.project, rec.agent.name).id;
    // A claim whose task is no longer one the worker may take (taken here meanwhile) is given back.
    const left = held.claimed;
    if (left && !seen.candidates.some((t) => t.id === left.task)) {
      held.claimed = undefined;
      await giveBack(root, left);
    }
    if (claims && (!held.claimed || held.claimed.owner !== agentId)) {
      // The claim that landed is claimed again for the new id; else the first candidate whose claim lands: --force
      // takes over a claim on a task it names, --next never takes what another holds.
      const again = held.claimed;
      const by = again
        ? { ours: again.sha, leaseUntil: again.leaseUntil, refuseAs: rec.agent.name }
        : {
            leaseUntil: remoteLeaseFrom(rec.now),
            force: Boolean(rec.named && rec.force),
            refuseAs: rec.named && rec.agent.name,
          };
      const tasks = again ? seen.candidates.filter((t) => t.id === again.task) : seen.candidates;
      held.claimed = await claimFirst(root, claims, seen.project.branch, tasks, {
        owner: agentId,
        now: rec.now,
        ...by,
      });
      if (!held.claimed) throw new NoReadyTaskError(seen.tasks);
    }
    const claimed = held.claimed;
    const task = claimed ? seen.candidates.find((t) => t.id === claimed.task) : seen.candidates[0];
    const opens = task && wantsCheckout(task, rec.checkout) ? await import('../worker-checkout.js') : undefined;
    const opened = task && opens?.openWorkerCheckout(root, seen.project.branch, task.id, task.worktree, rec.now);
    const ownerOf = (id: string) => ownerWith(claimed, id, rec.sessionId, rec.now);
    const plan = planSpawn({ ...rec, project: seen.project, root, task, opened, ownerOf });
    const basis = { project: seen.project, task, deps: task && seen.deps.get(task.id) };
    return { write: (uow: UnitOfWork) => writeSpawn(uow, basis, plan, rec), seen, plan, opened };
  });
  const owned = { name: seen.project.name, created_at: seen.project.created_at, branch: seen.project.branch };
  // A worker without a task has no checkout, owner record or claim of its own.
  const task = plan.task;
  return {
    target: task ? ({ kind: 'task', id: task.id } as const) : rec.named!,
    agentId: plan.agentId,
    assignment: task ? taskAssignment(task) : projectAssignment(seen.project, seen.iteration),
    workdir: opened?.path ?? root,
    ...(opened ? { checkoutRel: opened.checkout.path } : {}),
    owned,
    ...(ownerRecord ? { ownerRecord } : {}),
    ...(claimed ? { pushed: claimed } : {}),
  };
}

export interface ResumeRecord {
  target: Target;
  session: Session;
  sessionId: string | undefined;
  agentName: string;
  force?: boolean | undefined;
  now: string;
}

/** Plans a resume and writes it: the session resumed, the task owned by its worker again (with --force, a live owner
 * of another session retired), claimed on the remote first as a spawn. */
export async function recordResume(ctx: AppContext, rec: ResumeRecord) {
  const root = ctx.cwd;
  const { target, session, now } = rec;
  const claims = target.kind === 'task' ? await claimsRemote(root) : undefined;
  const { project, ownerRecord, claimed } = await recordUntilWritten(ctx, async (held) => {
    const basis = await readForWorker(ctx, async (reader): Promise<Basis> => {
      if (target.kind !== 'task') return { project: reader.project };
      const task = await reader.task(target.id);
      const deps = rec.force ? undefined : await reader.dependenciesOf(task);
      await checkResumable(task, reader.ctx.now(), rec.force, async () => deps!);
      return { project: reader.project, task, deps };
    });
    const { project } = basis;
    if (claims && basis.task && !held.claimed)
      held.claimed = await claimFirst(root, claims, project.branch, [basis.task], {
        owner: session.agent_id,
        now,
        leaseUntil: remoteLeaseFrom(now),
        force: rec.force === true,
        refuseAs: rec.agentName,
      });
    const claimed = held.claimed;
    const write: Write = async (uow) => {
      await unchanged(uow, basis);
      if (target.kind !== 'task') {
        const sessions = { ...project.sessions, [target.agent]: resumedSession(project.sessions![target.agent]!, now) };
        uow.setProject({ ...project, sessions });
        return undefined;
      }
      const task = basis.task!;
      // With --force, a live owner of another session is retired (this session stays).
      const own = task.owner && task.owner.by !== session.agent_id ? retireOwner(task, { keepSession: true }) : task;
      uow.setTask(resumedTask(own, now, ownerWith(claimed, session.agent_id, rec.sessionId, now)));
      // The proof that this process is the owner, before the owner is committed: 'agent stop' signals nothing else.
      return writeOwnerRecord(uow.root, { task: task.id, agent_id: session.agent_id });
    };
    return { write, project };
  });
  const owned = { name: project.name, created_at: project.created_at, branch: project.branch };
  return { owned, ...(ownerRecord ? { ownerRecord } : {}), ...(claimed ? { pushed: claimed } : {}) };
}

/** The session id the CLI reported during the run, written where the worker's session is recorded. */
export async function recordReportedSession(
  ctx: AppContext,
  target: Target,
  agent: string,
  agentId: string,
  id: string,
): Promise<void> {
  await update(ctx, async (uow) => {
    if (target.kind === 'task') {
      const task = await uow.task(target.id);
      uow.setTask({
        ...task,
        session_id: id,
        ...(task.owner?.by === agentId ? { owner: { ...task.owner, session: id } } : {}),
      });
    } else {
      const p = await uow.project();
      const s = p.sessions?.[agent];
      if (s) uow.setProject({ ...p, sessions: { ...p.sessions, [agent]: { ...s, session_id: id } } });
    }
  });
}
