/**
 * `task set` and `task abandon`, for the CLI, MCP, the page and workers alike: plan the change
 * (domain/task-change.ts) → run the checks a completion needs, outside the lock, where the task's
 * code is → record, in one update that plans again on the state as it is then and writes exactly
 * that plan, with the checks' evidence. A change that needs no check is planned and recorded in
 * one update.
 */
import type { AppContext } from './context.js';
import { claimantOf, describeHolder } from '../domain/ownership.js';
import type { Check } from '../domain/config-schemas.js';
import { planTaskChange, type ChangeRequest, type TaskChangePlan } from '../domain/task-change.js';
import { heldBy, liveOwner } from './ownership.js';
import { claimsRemote, dropOverriddenClaim, giveBackRemoteClaim, type ClaimSeen } from './remote-claims.js';
import { isRefBranch } from '../domain/claims.js';
import { shown } from '../domain/display.js';
import { warn } from '../adapters/notices.js';
import { findWorkspaceRoot } from '../adapters/repo.js';
import { readTaskClaim } from '../adapters/remote-claims.js';
import { taskDir } from './project-files.js';
import { Reader, update } from './workspace.js';
import { type UnitOfWork } from './unit-of-work.js';
import type { CheckRun, RunChecksOptions } from './checks.js';
import { CompletionChecksFailedError } from './check-errors.js';

export type SetTaskOptions = Pick<ChangeRequest, 'force' | 'worker' | 'override'> &
  RunChecksOptions & {
    /** The name this command acts under (renews its claim's lease); else SOW_OWNER. */
    owner?: string;
    /** Called once the plan says checks run: their progress and interruption (the CLI sets them up then). */
    checking?: () => Promise<RunChecksOptions>;
  };

/** What was set (the task as it is now); a completion says which checks it ran, or skipped with --force. */
export type SetTaskResult = Pick<TaskChangePlan, 'id' | 'field' | 'value' | 'task' | 'unchanged'> & {
  checks?: CheckRun[];
};

/**
 * Sets a field of a task. Completing it (status completed, any spelling of the field) runs the
 * checks declared for task_complete first; when one fails, its evidence is recorded, the status
 * stays, and CompletionChecksFailedError (exit 3) says which, with the end of its log. With
 * --force they are skipped, and evidence saying so is recorded.
 */
export function setTaskField(ctx: AppContext, rawId: string, field: string, raw: string, opts: SetTaskOptions = {}) {
  return changeTask(ctx, rawId, { field, raw }, opts);
}

export function abandonTask(ctx: AppContext, rawId: string, opts: SetTaskOptions = {}): Promise<SetTaskResult> {
  return changeTask(ctx, rawId, { field: 'status', raw: 'abandoned', what: 'abandoned' }, opts);
}

async function changeTask(
  ctx: AppContext,
  rawId: string,
  asked: Pick<ChangeRequest, 'field' | 'raw' | 'what'>,
  opts: SetTaskOptions,
): Promise<SetTaskResult> {
  const { force, worker, override } = opts;
  const request: ChangeRequest = { ...asked, force, worker, ...(override !== undefined ? { override } : {}) };
  // The task's claim on the remote is read first, outside the lock (never under it).
  const seen = await claimSeenForChange(ctx, rawId);
  const after: (() => Promise<void>)[] = [];
  const locked = opts.owner !== undefined ? { owner: opts.owner } : {};
  const planned = await update(
    ctx,
    async (uow) => {
      const plan = await planIn(uow, rawId, request, seen);
      // Refused now, before minutes of checks, if it would be refused afterwards.
      if (!plan.checks) await record(uow, plan, seen, after);
      return plan;
    },
    locked,
  );
  if (!planned.checks) {
    for (const step of after) await step();
    return result(planned, []);
  }
  // Whoever completes it (the worker, the person, MCP), the checks run where the task's code is.
  const checks = await import('./checks.js');
  const runs = await checks.runCompletionChecks(ctx, planned, planned.checks, opts);
  const done = await update(ctx, (uow) => recordCompletion(uow, planned.id, request, seen, runs, after), locked);
  if (done instanceof Error) throw done;
  for (const step of after) await step();
  return result(done, runs);
}

const result = (plan: TaskChangePlan, checks: CheckRun[]): SetTaskResult => ({
  id: plan.id,
  field: plan.field,
  value: plan.value,
  task: plan.task,
  ...(plan.completes ? { checks } : {}),
  ...(plan.unchanged ? { unchanged: true } : {}),
});

/** The plan, on the state as this update reads it. */
async function planIn(
  uow: UnitOfWork,
  rawId: string,
  request: ChangeRequest,
  seen: ClaimSeen | undefined,
): Promise<TaskChangePlan> {
  const task = await uow.task(rawId);
  return planTaskChange(
    {
      task,
      actor: uow.actor,
      now: uow.now,
      holder: () => heldBy(task, uow.actor, uow.now, seen),
      dependenciesOf: (t) => uow.dependenciesOf(t),
      tasks: () => uow.tasks(),
      checks: () => completionChecks(uow.root),
    },
    request,
  );
}

async function completionChecks(root: string): Promise<Check[]> {
  const { readRepoConfig } = await import('../adapters/repo-config.js');
  return ((await readRepoConfig(root)).config.checks ?? []).filter((c) => c.when?.includes('task_complete'));
}

/**
 * The record stage of a completion whose checks ran: planned again under the lock, so what changed
 * meanwhile is not written over. The runs are evidence whatever happens: with the completion when
 * they passed (or were skipped), else alone, the status kept and the failure returned — as it is
 * when the task was completed by someone else meanwhile (unchanged) or the change is refused now.
 */
async function recordCompletion(
  uow: UnitOfWork,
  id: string,
  request: ChangeRequest,
  seen: ClaimSeen | undefined,
  runs: readonly CheckRun[],
  after: (() => Promise<void>)[],
): Promise<TaskChangePlan | Error> {
  const { evidenceInto, evidenceOutputs } = await import('./checks.js');
  const evidence = () => evidenceInto(uow, runs, { task: id });
  if (!runs.every((r) => r.passed || r.skipped)) {
    await evidence();
    return new CompletionChecksFailedError(uow.root, id, runs);
  }
  let plan: TaskChangePlan;
  try {
    plan = await planIn(uow, id, request, seen);
  } catch (err) {
    await evidence().catch(() => undefined);
    return err as Error;
  }
  if (plan.unchanged) {
    await evidence().catch(() => undefined);
    return plan;
  }
  const task = { ...plan.task, outputs: [...plan.task.outputs, ...evidenceOutputs(runs, uow.now)] };
  await record(uow, { ...plan, task }, seen, after);
  return { ...plan, task };
}

/** Writes what the plan says, under the lock; the steps on the remote that must wait for the write go to `after`. */
async function record(
  uow: UnitOfWork,
  plan: TaskChangePlan,
  seen: ClaimSeen | undefined,
  after: (() => Promise<void>)[],
): Promise<void> {
  const branch = (await uow.project()).branch;
  if (plan.takeover) await noteTakeover(uow, plan.id, plan.takeover, seen, branch, after);
  // Last, once nothing here refuses the change: the claim on the remote is given back (letting go
  // never fails for the remote: the claim there then runs out with its lease).
  if (plan.release) {
    const { releaseRemoteClaim } = await import('./remote-claims.js');
    await releaseRemoteClaim(uow.root, plan.id, branch, plan.release.owner, plan.release.quiet);
  }
  if (plan.reopened) {
    const { logLeftCompleted } = await import('./log-entry.js');
    await logLeftCompleted(uow, plan.reopened, String(plan.value), claimantOf(uow.actor) ?? uow.actor.by);
  }
  if (plan.description !== undefined)
    uow.tx.write(`${taskDir(await uow.taskPhase(), plan.id)}/description.md`, plan.description);
  if (plan.write) uow.setTask(plan.task);
}

/**
 * A change forced past someone else's hold: noted in the task's log (by whom, from whom); once it
 * is written, the claim the holder had on the remote is deleted (or given back, when it was this
 * checkout's).
 */
async function noteTakeover(
  uow: UnitOfWork,
  id: string,
  { holder, what }: NonNullable<TaskChangePlan['takeover']>,
  seen: ClaimSeen | undefined,
  branch: string,
  after: (() => Promise<void>)[],
): Promise<void> {
  // Who forced it, as well as sow can tell: the name it acts under, else git's user.name (else $USER).
  await uow.knowPerson();
  const { personName } = await import('../adapters/person.js');
  const who = claimantOf(uow.actor) ?? (await personName(uow.root)) ?? uow.actor.by;
  const root = uow.root;
  if (holder.where === 'remote') {
    const overridden = { ...seen!, claim: holder.claim };
    after.push(() => dropOverriddenClaim(root, overridden));
  } else if (holder.owner.remote !== undefined) {
    const owner = holder.owner;
    after.push(() => giveBackRemoteClaim(root, id, branch, owner));
  }
  const { writeLogEntry } = await import('./log-entry.js');
  const { thisMachine } = await import('../adapters/remote-claims.js');
  await writeLogEntry(
    uow,
    id,
    { agent: who, action: 'note', result: 'success' },
    `Taken over with --force (${what}) by ${who} on ${thisMachine()}, from ${describeHolder(holder)}. ` +
      (holder.where === 'remote'
        ? `Their claim on the remote is deleted once this change is written (a failure is said then).`
        : `Their later writes to this task are refused.`),
  );
}

/**
 * What a change of a task knows of its claim on the remote, asked before the change takes the
 * lock (never under it): `claim` absent when the remote holds none. Undefined — nothing to check
 * there — without a claims remote, when a live owner here holds the task's claim on it (then this
 * checkout's state says who holds the task, and the owner's writes wait for no network), or when
 * the remote was not reached (said on stderr: the change goes on as far as this checkout knows).
 */
export async function claimSeenForChange(ctx: AppContext, rawId: string): Promise<ClaimSeen | undefined> {
  const remote = await claimsRemote(findWorkspaceRoot(ctx.cwd));
  if (!remote) return undefined;
  const seen = await Reader.read(
    ctx,
    async (reader) => {
      const task = await reader.task(rawId);
      const owner = liveOwner(task, ctx.now());
      const ours = owner !== undefined && owner.remote === remote.name && owner.remote_claim !== undefined;
      return { root: reader.root, branch: reader.project.branch, task: task.id, ours };
    },
    { otherBranch: 'quiet' },
  );
  if (seen.ours) return undefined;
  const read = isRefBranch(seen.branch)
    ? await readTaskClaim(seen.root, remote.name, seen.branch, seen.task)
    : ({
        reached: false,
        why: `was not asked: the project's branch '${shown(seen.branch)}' cannot be part of a ref`,
      } as const);
  if (!read.reached) {
    warn(
      `the claim of task ${seen.task} on the remote '${shown(remote.name)}' was not read: it ${read.why}; the ` +
        `change goes on as far as this checkout knows who holds the task`,
    );
    return undefined;
  }
  return { remote: remote.name, branch: seen.branch, task: seen.task, ...(read.claim ? { claim: read.claim } : {}) };
}
