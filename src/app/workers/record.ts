/**
 * The record stage: one state update writes the plan — the worker's session, its task's owner and
 * status — before the worker starts, since when it exits the state is the only message. A claim on
 * the claims remote is pushed BEFORE that update, never under the lock (a network round trip would
 * hold every other writer), and given back if the update then refuses or fails.
 */
import type { AppContext } from '../context.js';
import type { AgentDef } from '../../domain/agents.js';
import type { Owner, Session, TaskState } from '../../domain/schemas.js';
import { NoReadyTaskError } from '../../domain/errors.js';
import { remoteLeaseFrom, retireOwner } from '../../domain/ownership.js';
import { ClaimedElsewhereError } from '../../domain/claims.js';
import type { OwnerRecord } from '../../domain/signal-proof.js';
import type { ProjectIdentity } from '../../adapters/deferred-runs.js';
import { removeOwnerRecord, writeOwnerRecord } from '../../adapters/signals.js';
import { logLeftCompleted } from '../log.js';
import { candidateIds, isReady, workerOwner } from '../ownership.js';
import { update, type UnitOfWork } from '../workspace.js';
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
  type PlannedExecutor,
} from './plan.js';
import { readForWorker } from './preconditions.js';
import type { Handoff, PushedClaim, Target } from './types.js';

/** A claim that landed on the remote before the lock was taken: for which task, and until when. */
type Claimed = PushedClaim & { task: string; leaseUntil: string; owner: string; branch: string };

/** What the record stage wrote, and what the later stages need of it. */
export interface Recorded {
  target: Target;
  agentId: string;
  assignment: string;
  /** Where the worker works: the project's root, or its own checkout. */
  workdir: string;
  /** Its own checkout, relative to the project checkout. */
  checkoutRel?: string;
  owned: ProjectIdentity;
  ownerRecord?: OwnerRecord;
  pushed?: PushedClaim;
}

export interface SpawnRecord {
  agent: AgentDef;
  /** The target the command named (checked already); undefined: --next picks the task under the lock. */
  named: Target | undefined;
  executor: PlannedExecutor;
  sessionId?: string | undefined;
  branch: string | undefined;
  /** --worktree, or .sow/config.yaml's `workers.worktree` ('parallel': for a parallel task). */
  checkout: boolean | 'parallel';
  force?: boolean | undefined;
  handoff?: Handoff | undefined;
  iteration?: boolean | undefined;
  now: string;
}

/** The owner a worker is: this process, and its claim on the remote when one landed. */
const ownerWith = (claimed: Claimed | undefined, agentId: string, session: string | undefined, now: string): Owner => ({
  ...workerOwner(agentId, session, now),
  ...(claimed ? { remote: claimed.remote, remote_claim: claimed.sha, remote_lease_until: claimed.leaseUntil } : {}),
});

/** Gives back a claim that landed on the remote for a worker that was then not recorded here. */
async function giveBack(root: string, pushed: PushedClaim): Promise<void> {
  const { pushClaim } = await import('../../adapters/remote-claims.js');
  await pushClaim(root, pushed.remote, pushed.ref, null, pushed.sha);
}

/**
 * Before the lock, with a claims remote: the named task's claim, or (--next) the first ready task
 * whose claim lands — of two machines spawning on one task, one push lands; a task held there, or
 * lost to a racer's push, is passed over. The project is read first (a read takes the lock too),
 * and the pushes run after. `skip`: tasks already found taken under the lock.
 */
async function claimFirst(
  ctx: AppContext,
  claims: ClaimsRemote,
  rec: SpawnRecord,
  skip: ReadonlySet<string>,
): Promise<Claimed> {
  const seen = await readForWorker(ctx, async (reader) => {
    const tasks = await reader.tasks();
    const ids = rec.named?.kind === 'task' ? [rec.named.id] : candidateIds(tasks).filter((t) => !skip.has(t));
    const read = await Promise.all(ids.map((id) => reader.task(id)));
    return {
      root: reader.root,
      branch: reader.project.branch,
      // The id the worker will most likely get: the claim's owner is a name to show, its commit is what counts.
      owner: nextAgentId(reader.project, rec.agent.name).id,
      candidates: rec.named ? read : read.filter((task) => isReady(task, rec.now)),
      tasks,
    };
  });
  const onRemote = await remoteClaimer(seen.root, claims, seen.branch);
  const leaseUntil = remoteLeaseFrom(rec.now);
  for (const task of seen.candidates) {
    const sha = await onRemote.claim(
      task.id,
      { task: task.id, owner: seen.owner, machine: onRemote.machine, since: rec.now, lease_until: leaseUntil },
      rec.now,
      {
        ours: ourClaim(task, onRemote.remote),
        // --force takes over a claim on a task it names; --next never takes what another holds.
        force: rec.named !== undefined && rec.force,
      },
    );
    if (sha !== undefined)
      return {
        remote: onRemote.remote,
        ref: onRemote.ref(task.id),
        sha,
        task: task.id,
        leaseUntil,
        owner: seen.owner,
        branch: seen.branch,
      };
    if (rec.named)
      throw new ClaimedElsewhereError(task.id, onRemote.remote, await onRemote.holder(task.id), rec.agent.name);
  }
  throw new NoReadyTaskError(seen.tasks);
}

/** The task the worker takes, under the lock: the one named or claimed (checked again), or the first ready one nobody works on. */
async function takenTask(uow: UnitOfWork, rec: SpawnRecord, claimed: Claimed | undefined): Promise<TaskState> {
  if (rec.named?.kind === 'task' || (claimed && rec.named === undefined)) {
    const task = await uow.task(rec.named?.kind === 'task' ? rec.named.id : claimed!.task);
    if (rec.named)
      await checkSpawnable(
        { type: await uow.type(), view: () => uow.view(), dependenciesOf: (t) => uow.dependenciesOf(t), now: uow.now },
        task,
        rec.force,
        rec.handoff !== undefined,
      );
    else if (!isReady(task, uow.now)) throw new TakenMeanwhile({ task: task.id });
    return task;
  }
  // --next: chosen under the lock, so two spawns never pick the same one.
  const tasks = await uow.tasks();
  for (const id of candidateIds(tasks)) {
    const task = await uow.task(id);
    if (isReady(task, uow.now)) return task;
  }
  throw new NoReadyTaskError(tasks);
}

/**
 * What happened here between the claim and the lock: the task --next claimed was taken (the next one
 * is tried), or another spawn took the worker's id (the claim, which names it, is made again).
 */
class TakenMeanwhile extends Error {
  constructor(readonly taken: { task: string } | { agentId: string }) {
    super(
      'task' in taken
        ? `task ${taken.task} was taken meanwhile`
        : `the claim names a worker id taken meanwhile (now ${taken.agentId})`,
    );
  }
}

/** The claim made again over our own (compare-and-swap on its commit), naming the worker's id as it now is. */
async function renamedClaim(
  root: string,
  claims: ClaimsRemote,
  claimed: Claimed,
  agentId: string,
  rec: SpawnRecord,
): Promise<Claimed> {
  const onRemote = await remoteClaimer(root, claims, claimed.branch);
  const record = {
    task: claimed.task,
    owner: agentId,
    machine: onRemote.machine,
    since: rec.now,
    lease_until: claimed.leaseUntil,
  };
  const sha = await onRemote.claim(claimed.task, record, rec.now, { ours: claimed.sha });
  if (sha === undefined)
    throw new ClaimedElsewhereError(claimed.task, onRemote.remote, await onRemote.holder(claimed.task), rec.agent.name);
  return { ...claimed, sha, owner: agentId };
}

/** Writes a spawn's plan (see the module's comment); with a claims remote, the claim is pushed first. */
export async function recordSpawn(ctx: AppContext, rec: SpawnRecord): Promise<Recorded> {
  const root = ctx.cwd;
  const claims = rec.named?.kind === 'project' ? undefined : await claimsRemote(root);
  const skip = new Set<string>();
  let claimed: Claimed | undefined;
  for (;;) {
    if (claims && !claimed) claimed = await claimFirst(ctx, claims, rec, skip);
    let ownerRecord: OwnerRecord | undefined;
    try {
      return await update(ctx, async (uow) => {
        ownerRecord = undefined;
        const project = await uow.project();
        const owned = { name: project.name, created_at: project.created_at, branch: project.branch };
        const common = {
          project,
          agent: rec.agent,
          executor: rec.executor,
          root: uow.root,
          branch: rec.branch,
          now: rec.now,
          sessionId: rec.sessionId,
        };
        if (rec.named?.kind === 'project') {
          const type = await uow.type();
          // The iteration's prompt is everything the worker knows: it starts with no context at all.
          const iteration =
            rec.iteration && type.iterationPrompt
              ? type.iterationPrompt(await uow.view(), (rel) => uow.readDoc(rel))
              : undefined;
          const plan = planSpawn({ ...common, ownerOf: (id) => workerOwner(id, rec.sessionId, rec.now) });
          const current = await uow.project();
          const session: Session = { ...(rec.sessionId ? { session_id: rec.sessionId } : {}), ...plan.session };
          uow.setProject({
            ...current,
            spawn_counts: plan.counts,
            sessions: { ...current.sessions, [rec.agent.name]: session },
          });
          return {
            target: rec.named,
            agentId: plan.agentId,
            assignment: projectAssignment(project, iteration),
            workdir: root,
            owned,
          };
        }
        const task = await takenTask(uow, rec, claimed);
        // The claim on the remote names the worker: the one recorded here, always.
        const agentId = nextAgentId(project, rec.agent.name).id;
        if (claimed && claimed.owner !== agentId) throw new TakenMeanwhile({ agentId });
        // The checkout is opened before the plan, which records where the worker works.
        const own = wantsCheckout(task, rec.checkout);
        const opened = own
          ? (await import('../worker-checkout.js')).openWorkerCheckout(
              uow.root,
              project.branch,
              task.id,
              task.worktree,
              rec.now,
            )
          : undefined;
        const plan = planSpawn({
          ...common,
          task,
          opened,
          handoff: rec.handoff,
          ownerOf: (id) => ownerWith(claimed, id, rec.sessionId, rec.now),
        });
        // Forced onto a completed task, the worker reopens it, and its log says so.
        if (plan.reopened === 'completed')
          await logLeftCompleted(
            uow,
            task,
            'in_progress',
            uow.actor.by,
            `a worker was spawned on it: sow agent spawn ${rec.agent.name} ${task.id} --force`,
          );
        uow.setProject({ ...(await uow.project()), spawn_counts: plan.counts });
        // The proof that this process is the owner, before the owner is committed: 'agent stop' signals nothing else.
        ownerRecord = writeOwnerRecord(uow.root, { task: task.id, agent_id: plan.agentId });
        uow.setTask(plan.task!);
        return {
          target: { kind: 'task', id: task.id },
          agentId: plan.agentId,
          assignment: taskAssignment(plan.task!),
          workdir: opened?.path ?? root,
          ...(opened ? { checkoutRel: opened.checkout.path } : {}),
          owned,
          ...(ownerRecord ? { ownerRecord } : {}),
          ...(claimed ? { pushed: claimed } : {}),
        } satisfies Recorded;
      });
    } catch (err) {
      if (ownerRecord) removeOwnerRecord(root, ownerRecord);
      // Another spawn here took the id the claim names: the claim is renamed, never given back and made anew (a racer could take it).
      if (claims && claimed && err instanceof TakenMeanwhile && 'agentId' in err.taken) {
        claimed = await renamedClaim(root, claims, claimed, err.taken.agentId, rec).catch(async (e: unknown) => {
          await giveBack(root, claimed!);
          throw e;
        });
        continue;
      }
      // The claim landed on the remote but the worker was not recorded here: give it back (as 'task next --claim' does).
      if (claimed) await giveBack(root, claimed);
      claimed = undefined;
      if (err instanceof TakenMeanwhile && 'task' in err.taken) {
        skip.add(err.taken.task);
        continue;
      }
      throw err;
    }
  }
}

export interface ResumeRecord {
  target: Target;
  session: Session;
  sessionId: string | undefined;
  agentName: string;
  force?: boolean | undefined;
  now: string;
}

/** Writes a resume: the session resumed once more, the task owned by its worker again (claimed on the remote first, as a spawn). */
export async function recordResume(
  ctx: AppContext,
  rec: ResumeRecord,
): Promise<Pick<Recorded, 'owned' | 'ownerRecord' | 'pushed'>> {
  const root = ctx.cwd;
  const { target, session, now } = rec;
  // With a claims remote, the resumed worker claims the task there again, as a spawned one does.
  const claims = target.kind === 'task' ? await claimsRemote(root) : undefined;
  let claimed: Claimed | undefined;
  if (claims && target.kind === 'task') {
    const seen = await readForWorker(ctx, async (reader) => ({
      root: reader.root,
      branch: reader.project.branch,
      task: await reader.task(target.id),
    }));
    // Pushed after the read, which holds the lock while it reads.
    const onRemote = await remoteClaimer(seen.root, claims, seen.branch);
    const leaseUntil = remoteLeaseFrom(now);
    const record = {
      task: seen.task.id,
      owner: session.agent_id,
      machine: onRemote.machine,
      since: now,
      lease_until: leaseUntil,
    };
    const sha = await onRemote.claim(seen.task.id, record, now, {
      ours: ourClaim(seen.task, onRemote.remote),
      force: rec.force,
    });
    if (sha === undefined)
      throw new ClaimedElsewhereError(
        seen.task.id,
        onRemote.remote,
        await onRemote.holder(seen.task.id),
        rec.agentName,
      );
    claimed = {
      remote: onRemote.remote,
      ref: onRemote.ref(seen.task.id),
      sha,
      task: seen.task.id,
      leaseUntil,
      owner: session.agent_id,
      branch: seen.branch,
    };
  }
  let ownerRecord: OwnerRecord | undefined;
  try {
    const owned = await update(ctx, async (uow) => {
      const project = await uow.project();
      if (target.kind === 'task') {
        let task = await uow.task(target.id);
        await checkResumable(task, uow.now, rec.force, (t) => uow.dependenciesOf(t));
        // With --force, a live owner of another session is retired (this session stays).
        if (task.owner && task.owner.by !== session.agent_id) task = retireOwner(task, { keepSession: true });
        // The proof that this process is the owner, before the owner is committed: 'agent stop' signals nothing else.
        ownerRecord = writeOwnerRecord(uow.root, { task: task.id, agent_id: session.agent_id });
        uow.setTask(resumedTask(task, now, ownerWith(claimed, session.agent_id, rec.sessionId, now)));
      } else {
        const s = project.sessions![target.agent]!;
        uow.setProject({ ...project, sessions: { ...project.sessions, [target.agent]: resumedSession(s, now) } });
      }
      return { name: project.name, created_at: project.created_at, branch: project.branch };
    });
    return { owned, ...(ownerRecord ? { ownerRecord } : {}), ...(claimed ? { pushed: claimed } : {}) };
  } catch (err) {
    if (ownerRecord) removeOwnerRecord(root, ownerRecord);
    // The claim landed on the remote but the resume was not recorded here: give it back.
    if (claimed) await giveBack(root, claimed);
    throw err;
  }
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
