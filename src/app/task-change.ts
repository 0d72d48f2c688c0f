// `task set` and `task abandon` for every caller (decision 0086): read → plan (domain/task-change.ts) → checks outside
// the lock → `commitChange`, which refuses when a file the plan read changed; steps on the remote run outside the lock.
import type { AppContext } from './context.js';
import { SowError } from '../domain/errors.js';
import { claimantOf, describeHolder, remoteRenewalDue } from '../domain/ownership.js';
import type { Check } from '../domain/config-schemas.js';
import { TaskStateSchema, type TaskState } from '../domain/schemas.js';
import { planTaskChange, stampedTask, type ChangeRequest, type TaskChangePlan } from '../domain/task-change.js';
import { isRefBranch } from '../domain/claims.js';
import { taskPhase } from '../domain/phases.js';
import { normalizeTaskId } from '../domain/tasks.js';
import { shown } from '../domain/display.js';
import { warn } from '../adapters/notices.js';
import { personName } from '../adapters/person.js';
import { notRefBranch, readTaskClaim, thisMachine } from '../adapters/remote-claims.js';
import { renderStateFile } from '../adapters/state-files.js';
import { commitChange, StaleChangeError, type ChangeSet, type LogEntry } from '../adapters/transaction.js';
import { heldBy, liveOwner } from './ownership.js';
import { claimsRemote, dropOverriddenClaim, releaseRemoteClaim, type ClaimSeen } from './remote-claims.js';
import { dependenciesOf, loadSummaries, loadTaskFile, taskDir, taskFile } from './project-files.js';
import { leftCompletedEntry, taskLogEntry } from './log-entry.js';
import { openProject } from './workspace.js';
import { actor, knowPerson } from './unit-of-work.js';
import type { CheckRun, RunChecksOptions } from './checks.js';
import { CompletionChecksFailedError } from './check-errors.js';

export type SetTaskOptions = Pick<ChangeRequest, 'force' | 'worker' | 'override' | 'what'> &
  RunChecksOptions & {
    /** The name this command acts under (renews its claim's lease); else SOW_OWNER. */
    owner?: string;
    /** Called once the plan says checks run: their progress and interruption (the CLI sets them up then). */
    checking?: () => Promise<RunChecksOptions>;
  };

// Sets a field of a task. A completion runs the task_complete checks first: a failure records its evidence, keeps the
// status and throws CompletionChecksFailedError (exit 3); --force skips them, with evidence saying so.
export async function setTaskField(
  ctx: AppContext,
  rawId: string,
  field: string,
  raw: string,
  opts: SetTaskOptions = {},
) {
  const { force, worker, override, what } = opts;
  const request: ChangeRequest = { field, raw, what, force, worker, ...(override !== undefined ? { override } : {}) };
  let view = await readTask(ctx, rawId, opts.owner);
  // The task's claim on the remote is read once, before any lock (never under it).
  const seen = await claimSeen(view);
  let plan: TaskChangePlan | Error = await planOn(view, request, seen);
  // Whoever completes it (the worker, the person, MCP), the checks run where the task's code is.
  const checks = plan.checks && (await import('./checks.js'));
  const runs = checks && (await checks.runCompletionChecks(ctx, plan, plan.checks!, opts));
  const released = new Set<string>();
  // A race lost is another writer's change written: each round, one writer goes on.
  for (let tries = 1; ; tries++) {
    // After the checks, or a race lost, planned again on the state as it is now: nothing is written over.
    if (runs || tries > 1) {
      view = await readTask(ctx, rawId, opts.owner);
      // A completion whose checks ran: the failure, the plan, or the refusal it meets now (its evidence is written).
      if (!runs) plan = await planOn(view, request, seen);
      else if (runs.some((r) => !r.passed && !r.skipped))
        plan = new CompletionChecksFailedError(view.root, view.file.data.id, runs);
      else plan = await planOn(view, request, seen).catch((err: Error) => err);
    }
    const { change, after, written } = await changeOf(view, plan, seen, runs, released);
    try {
      await commitChange(view.root, change);
    } catch (err) {
      if (!(err instanceof StaleChangeError)) throw err;
      if (tries >= MAX_RACES)
        throw new SowError(
          'STATE_KEEPS_CHANGING',
          'failed',
          `task ${view.file.data.id} was not changed: its state changed under each of ${tries} attempts (last: ` +
            `${err.why})`,
          'another process keeps writing this project: retry when it is done',
        );
      continue;
    }
    for (const step of after) await step();
    // A claim on the remote whose lease there this write found half run out is renewed there, after it.
    if (written && remoteRenewalDue(written.owner, view.actor, view.now)) {
      const due = [{ task: written.id, branch: view.branch, owner: written.owner }];
      await (await import('./claim-renewal.js')).renewClaims(view.root, ctx, due, view.now);
    }
    if (plan instanceof Error) throw plan;
    // What was set (the task as it is now); a completion says which checks it ran, or skipped with --force.
    const { id, field, value, task, unchanged } = plan;
    const checked = plan.completes ? { checks: runs ?? [] } : {};
    return { id, field, value, task, ...checked, ...(unchanged ? { unchanged } : {}) };
  }
}

export const abandonTask = (ctx: AppContext, rawId: string, opts: SetTaskOptions = {}) =>
  setTaskField(ctx, rawId, 'status', 'abandoned', { ...opts, what: 'abandoned' });

/** What a change of one task is planned from, and every state file read for it (the write checks them). */
type TaskView = Awaited<ReturnType<typeof readTask>>;

/** Races lost before giving up: each is another writer's change written, so only a writer that never stops wins. */
const MAX_RACES = 200;

/** The task as it is, with what the change needs to know of the project (refused on another branch). */
async function readTask(ctx: AppContext, rawId: string, owner: string | undefined) {
  const { root, file: project, type } = await openProject(ctx);
  const file = await loadTaskFile(root, type, normalizeTaskId(rawId), rawId);
  const who = actor(ctx.env, owner);
  // A claim may be the person's at this terminal: their writes renew it, and they may finish it.
  if (file.data.owner?.kind === 'claim') await knowPerson(root, who);
  const phase = taskPhase(type);
  return { root, branch: project.data.branch, type, phase, file, actor: who, now: ctx.now(), read: [file] };
}

/** The plan, on the task as the view holds it; what else it reads is added to the view's files. */
async function planOn(view: TaskView, request: ChangeRequest, seen: ClaimSeen | undefined): Promise<TaskChangePlan> {
  const { root, type, phase, actor: who, now } = view;
  const task = view.file.data;
  const load = async (id: string) => {
    const file = await loadTaskFile(root, type, id);
    view.read.push(file);
    return file.data;
  };
  const plan = await planTaskChange(
    {
      task,
      actor: who,
      now,
      holder: () => heldBy(task, who, now, seen),
      dependenciesOf: (t) => dependenciesOf(t, phase, load),
      tasks: () => loadSummaries(root, type, new Map()),
      checks: () => completionChecks(root),
    },
    request,
  );
  // New dependencies, and theirs: one of them changed meanwhile could close a circle, so the write checks them.
  if (plan.field === 'dependencies') {
    const known = new Set(view.read.map((f) => f.rel));
    const next = [...plan.task.dependencies];
    for (let id = next.pop(); id !== undefined; id = next.pop())
      if (!known.has(taskFile(phase, id)) && known.add(taskFile(phase, id)))
        next.push(...((await load(id).catch(() => undefined))?.dependencies ?? []));
  }
  return plan;
}

async function completionChecks(root: string): Promise<Check[]> {
  const { readRepoConfig } = await import('../adapters/repo-config.js');
  return ((await readRepoConfig(root)).config.checks ?? []).filter((c) => c.when?.includes('task_complete'));
}

// The plan with the checks' evidence and the remote steps waiting on it. A completion refused after its checks, or
// already completed, writes the evidence alone (a failed check also refuses a writer that no longer owns the task).
async function changeOf(
  view: TaskView,
  plan: TaskChangePlan | Error,
  seen: ClaimSeen | undefined,
  runs: readonly CheckRun[] | undefined,
  /** The remote claims given back by an earlier round of this change. */
  released: Set<string>,
): Promise<{ change: ChangeSet; after: (() => Promise<void>)[]; written?: TaskState }> {
  const { file, actor: who, now, phase } = view;
  const after: (() => Promise<void>)[] = [];
  const log: LogEntry[] = [];
  const write: Record<string, string> = {};
  const checks = runs && (await import('./checks.js'));
  const evidence = checks ? checks.evidenceOutputs(runs!, now) : [];
  let written: TaskState | undefined;
  if (plan instanceof Error || plan.unchanged) {
    try {
      checks?.requireEvidenceSlot(view.type.taskOutputs, `task ${file.data.id} outputs`);
      if (checks)
        written = stampedTask(file.data, { ...file.data, outputs: [...file.data.outputs, ...evidence] }, who, now);
    } catch (err) {
      if (plan instanceof CompletionChecksFailedError) throw err;
    }
  } else {
    if (plan.takeover) log.push(await takeoverEntry(view, plan.takeover, seen, after));
    // Given back before the write, once nothing here refuses: a remote refusing stops a finish, never a let-go.
    // Once per claim: a race lost after it was given back does not push again (the remote would refuse).
    const claim = plan.release?.owner.remote_claim;
    if (plan.release && !(claim !== undefined && released.has(claim))) {
      await releaseRemoteClaim(view.root, plan.id, view.branch, plan.release.owner, plan.release.quiet);
      if (claim !== undefined) released.add(claim);
    }
    if (plan.reopened)
      log.push(leftCompletedEntry(phase, now, plan.reopened, String(plan.value), claimantOf(who) ?? who.by));
    if (plan.description !== undefined) write[`${taskDir(phase, plan.id)}/description.md`] = plan.description;
    plan.task = { ...plan.task, outputs: [...plan.task.outputs, ...evidence] };
    if (plan.write) written = stampedTask(file.data, plan.task, who, now);
  }
  if (written) write[file.rel] = await renderStateFile(file, file.rel, TaskStateSchema, written);
  return { change: { branch: view.branch, read: view.read, write, log }, after, ...(written ? { written } : {}) };
}

/** A forced takeover, noted in the task's log; once written, the holder's claim on the remote is deleted. */
async function takeoverEntry(
  view: TaskView,
  { holder, what }: NonNullable<TaskChangePlan['takeover']>,
  seen: ClaimSeen | undefined,
  after: (() => Promise<void>)[],
): Promise<LogEntry> {
  const { root, branch, file } = view;
  const id = file.data.id;
  // Who forced it, as well as sow can tell: the name it acts under, else git's user.name (else $USER).
  await knowPerson(root, view.actor);
  const who = claimantOf(view.actor) ?? (await personName(root)) ?? view.actor.by;
  if (holder.where === 'remote') {
    const overridden = { ...seen!, claim: holder.claim };
    after.push(() => dropOverriddenClaim(root, overridden));
  } else if (holder.owner.remote !== undefined) {
    const owner = holder.owner;
    after.push(() => releaseRemoteClaim(root, id, branch, owner, true));
  }
  const notes =
    `Taken over with --force (${what}) by ${who} on ${thisMachine()}, from ${describeHolder(holder)}. ` +
    (holder.where === 'remote'
      ? `Their claim on the remote is deleted once this change is written (a failure is said then).`
      : `Their later writes to this task are refused.`);
  return taskLogEntry(view.phase, id, view.now, { agent: who, action: 'note', result: 'success' }, notes);
}

// The task's claim on the remote, asked before the lock (`claim` absent: none there). Undefined without a claims
// remote, when a live owner here holds it (its writes wait for no network), or when the remote was not reached (said).
async function claimSeen({ root, branch, file, now }: TaskView): Promise<ClaimSeen | undefined> {
  const remote = await claimsRemote(root);
  if (!remote) return undefined;
  const task = file.data.id;
  const owner = liveOwner(file.data, now);
  if (owner !== undefined && owner.remote === remote.name && owner.remote_claim !== undefined) return undefined;
  const read = isRefBranch(branch)
    ? await readTaskClaim(root, remote.name, branch, task)
    : ({ reached: false, why: notRefBranch(branch) } as const);
  if (!read.reached) {
    warn(
      `the claim of task ${task} on the remote '${shown(remote.name)}' was not read: it ${read.why}; the ` +
        `change goes on as far as this checkout knows who holds the task`,
    );
    return undefined;
  }
  return { remote: remote.name, branch, task, ...(read.claim ? { claim: read.claim } : {}) };
}
