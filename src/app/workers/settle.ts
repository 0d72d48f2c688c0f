/** The settle stage, however a run ended: usage into the ledger (or deferred until the project's branch is back), the
 * task let go (paused after a signal), its remote claim given back after the write. */
import type { AppContext } from '../context.js';
import type { Owner, TaskState, UsageEntry } from '../../domain/schemas.js';
import { withStatus } from '../../domain/tasks.js';
import { DEFAULT_LEASE_SECONDS, remoteLeaseDue } from '../../domain/ownership.js';
import type { Usage } from '../../adapters/executors/types.js';
import { removeOwnerRecord } from '../../adapters/signals.js';
import type { ProjectIdentity } from '../../adapters/deferred-runs.js';
import { isReadyFile, readEvents, READY_VARIABLE } from '../../adapters/supervisor.js';
import { writeFileAtomic } from '../../adapters/fs-atomic.js';
import { currentBranch } from '../../adapters/repo.js';
import { isProject } from '../deferred-runs.js';
import { writeLogEntry } from '../log-entry.js';
import { branchProblem, taskDir } from '../project-files.js';
import { Reader, update } from '../workspace.js';
import type { UnitOfWork } from '../unit-of-work.js';
import { releaseRemoteClaim } from '../remote-claims.js';
import { RunNotRecordedError, WorkerStoppedError } from '../agent-errors.js';
import { usageOfEvents } from './events.js';
import type { Recorded } from './record.js';
import type { Rights } from './resolve.js';
import { label, type AgentRunResult, type Resolution, type Speaker, type Target } from './types.js';

/** A task let go under the lock, whose claim on the remote is given back after the write (never under the lock). */
type LetGo = { root: string; task: string; branch: string; owner: Owner };

const giveBackAfter = async (released: LetGo | undefined) => {
  if (released) await releaseRemoteClaim(released.root, released.task, released.branch, released.owner, true);
};

/** The task no longer owned by its worker (paused, with `stopped` in its log, when it was stopped); its claim to give
 * back after the write. */
async function letGo(uow: UnitOfWork, task: TaskState, branch: string, stopped: string | undefined): Promise<LetGo> {
  let next = { ...task };
  delete next.owner;
  if (stopped !== undefined) {
    if (next.status === 'in_progress') next = withStatus(next, 'paused', uow.now);
    await writeLogEntry(uow, task.id, { agent: uow.actor.by, action: 'paused_task', result: 'partial' }, stopped);
  }
  uow.setTask(next);
  return { root: uow.root, task: task.id, branch, owner: task.owner! };
}

/** While a worker runs, its remote claim is looked at every quarter of the lease and renewed past half; stopping waits
 * for a look under way, so the settle after it sees the last commit. */
function renewWhileRunning(ctx: AppContext, taskId: string, agentId: string): () => Promise<unknown> {
  let looking: Promise<unknown> = Promise.resolve();
  const look = () => void (looking = looking.then(() => renewWorkerClaim(ctx, taskId, agentId)).catch(() => undefined));
  const timer = setInterval(look, (DEFAULT_LEASE_SECONDS * 1000) / 4);
  timer.unref();
  return () => {
    clearInterval(timer);
    return looking;
  };
}

/** Renews the claim once half its lease passed (never under the lock); whether it did. A failure is warned of and
 * tried again at the next look. */
export async function renewWorkerClaim(ctx: AppContext, taskId: string, agentId: string): Promise<boolean> {
  const seen = await Reader.read(
    ctx,
    async (reader) => ({ root: reader.root, branch: reader.project.branch, task: await reader.task(taskId) }),
    { otherBranch: 'quiet' },
  );
  const { owner } = seen.task;
  const now = ctx.now();
  if (owner?.kind !== 'worker' || owner.by !== agentId || owner.pid !== process.pid || owner.remote === undefined)
    return false;
  if (!remoteLeaseDue(owner, now)) return false;
  const { renewClaims } = await import('../claim-renewal.js');
  const due = [{ task: seen.task.id, branch: seen.branch, owner }];
  return renewClaims(seen.root, ctx, due, now, 'it is tried again in a few minutes');
}

/** After the run, however it ended: its usage into the ledger (every run is counted), and the task no longer owned by
 * this process's worker (unless someone took it over). */
async function settleRun(
  ctx: AppContext,
  target: Target,
  entry: UsageEntry,
  owned: ProjectIdentity,
  stopped?: unknown,
): Promise<RunNotRecordedError | undefined> {
  let released: LetGo | undefined;
  try {
    await update(
      ctx,
      async (uow) => {
        const project = await uow.project();
        // Another project, or this one's copy on a branch that is not its own: not the place to write.
        if (!isProject(project, owned) || branchProblem(uow.root, project)) throw new Error('not on the project');
        uow.setProject({ ...project, usage: [...(project.usage ?? []), entry] });
        if (target.kind !== 'task') return;
        const task = await uow.task(target.id);
        if (task.owner?.kind !== 'worker' || task.owner.by !== entry.agent_id || task.owner.pid !== process.pid) return;
        // Stopped by a signal to this process (agent stop, a shutdown, Ctrl-C): paused with a note, as agent stop does.
        const note =
          stopped instanceof WorkerStoppedError
            ? `Stopped: ${stopped.signal} reached sow (pid ${process.pid}) while its worker ${entry.agent_id} ran, ` +
              `and ended the worker. Resume it with 'sow agent resume ${task.id} "<prompt>"'.`
            : undefined;
        released = await letGo(uow, task, project.branch, note);
      },
      { branchCheck: false },
    );
    await giveBackAfter(released);
    return undefined;
  } catch (err) {
    // The project's branch is not checked out (switched while the worker ran): kept until it is, never written into
    // another branch's copy of the project.
    const checkedOut = currentBranch(ctx.cwd);
    if (checkedOut === owned.branch) throw err;
    const { deferRun } = await import('../../adapters/deferred-runs.js');
    deferRun(ctx.cwd, {
      version: 1,
      project: owned,
      ...(target.kind === 'task' ? { task: target.id } : {}),
      agent_id: entry.agent_id,
      pid: process.pid,
      ...(checkedOut !== undefined ? { checked_out: checkedOut } : {}),
      entry,
    });
    return new RunNotRecordedError(entry.agent_id, label(target), checkedOut, owned.branch);
  }
}

/** After `agent stop` ended a worker: the task paused with a note, let go, and the run counted from its events (unless
 * its supervisor counted it, having seen the worker end). */
export async function settleStopped(
  ctx: AppContext,
  taskId: string,
  agentId: string,
  pid: number,
  eventsFile: string | undefined,
): Promise<string> {
  let released: LetGo | undefined;
  const status = await update(ctx, async (uow) => {
    const task = await uow.task(taskId);
    const session = task.session;
    const since = task.owner?.since ?? task.started_at ?? uow.now;
    // A sow process that was running the worker passes the signal on and settles the task itself (settleRun).
    if (task.owner?.kind !== 'worker' || task.owner.by !== agentId || task.owner.pid !== pid) return task.status;
    const project = await uow.project();
    const note =
      `Stopped with sow agent stop: its worker ${agentId} (pid ${pid}) was ended. Resume it with 'sow agent ` +
      `resume ${task.id} "<prompt>"'.`;
    released = await letGo(uow, task, project.branch, note);
    const counted = (project.usage ?? []).some((e) => e.agent_id === agentId && e.task === task.id && e.at >= since);
    if (!counted && session) {
      const events = eventsFile ? readEvents(uow.root, eventsFile)?.lines : undefined;
      const usage = events ? usageOfEvents(session.type, events) : {};
      const run: UsageEntry['run'] = session.resumed_at && session.resumed_at >= since ? 'resume' : 'spawn';
      const who = { target: { kind: 'task', id: task.id } as const, agent: session.agent, agentId, run };
      const entry = usageEntry(uow.now, { ...who, executor: session.executor }, task.session_id, usage);
      uow.setProject({ ...project, usage: [...(project.usage ?? []), entry] });
    }
    return (await uow.task(taskId)).status;
  });
  await giveBackAfter(released);
  return status;
}

/** The ledger entry of a run that ended now. */
function usageEntry(
  at: string,
  who: Pick<UsageEntry, 'agent' | 'executor' | 'run'> & { target: Target; agentId: string },
  session: string | undefined,
  usage: Usage,
): UsageEntry {
  const { target, agent, agentId, executor, run } = who;
  const task = target.kind === 'task' ? { task: target.id } : {};
  return { at, agent_id: agentId, agent, executor, ...task, ...(session ? { session } : {}), run, ...usage };
}

/** A detached worker's supervisor tells whoever started it that the session (new or continued) is recorded. */
export function announceStart(
  ctx: AppContext,
  run: { agent: string; agent_id: string; target: Target; session_id: string | null; events_file: string },
): void {
  const ready = ctx.env[READY_VARIABLE];
  if (!ready || !isReadyFile(ctx.cwd, ready)) return;
  const { target, ...rest } = run;
  // Written whole (a rename), so the starter never reads half of it.
  const said = { ...rest, ...(target.kind === 'task' ? { task: target.id } : {}), pid: process.pid };
  writeFileAtomic(ready, JSON.stringify(said), { durable: false });
}

/** What the run's caller hears: the worker, its session, and its task's new status (or what it reported). */
export async function finish(
  l: Launch,
  sessionId: string | null,
  run: { eventsFile: string; denials: AgentRunResult['denials'] },
  startedAt: string,
  speaker: Speaker,
): Promise<AgentRunResult> {
  const { ctx, target, agentId } = l;
  const executor = l.resolution.executor.name;
  const result: AgentRunResult = {
    agent: l.agent,
    agent_id: agentId,
    executor,
    session_id: sessionId,
    events_file: run.eventsFile,
    denials: run.denials,
  };
  if (target.kind === 'task') {
    const task = await Reader.read(ctx, (reader) => reader.task(target.id));
    result.task = task.id;
    result.status = task.status;
    if (!speaker.quiet) speaker.say(`Task ${task.id} is now ${task.status}`);
    // The protocol: a worker ends by setting needs_review, paused or failed.
    if (task.status === 'in_progress')
      speaker.say(
        `Warning: ${agentId} exited without reporting a status; read ${taskDir(task.phase, task.id)}/log.md, ` +
          `then resume it or set the status`,
      );
  } else {
    // A worker without a task reports how its work stands with 'sow agent report'.
    const report = await Reader.read(ctx, (reader) => reader.project.sessions?.[target.agent]?.report);
    if (report && report.at >= startedAt)
      result.report = { status: report.status, ...(report.message ? { message: report.message } : {}) };
    if (!speaker.quiet)
      speaker.say(
        result.report
          ? `${agentId} finished and ` +
              `reported ${result.report.status}${result.report.message ? `: ${result.report.message}` : ''}`
          : `${agentId} finished`,
      );
  }
  if (sessionId === null && !speaker.quiet)
    speaker.say(`Note: ${executor} reported no session id, so this session cannot be resumed`);
  return result;
}

/** A worker whose start is recorded, ready to run and then settle. */
export interface Launch {
  /** The context in the project's root (the folder the run was asked from may be gone): the worker starts from its
   * environment. */
  ctx: AppContext;
  target: Target;
  kind: 'spawn' | 'resume';
  agent: string;
  agentId: string;
  resolution: Resolution;
  /** What the worker may do unasked, and the declared checks withheld from it. */
  rights: Rights;
  cwd: string;
  /** The session known before the run: a resume's always, a spawn's when sow or the CLI made it first. */
  sessionId: string | undefined;
  /** The project the worker works for (its end is recorded there, and nowhere else), its owner record and claim. */
  recorded: Pick<Recorded, 'owned' | 'ownerRecord' | 'pushed'>;
  /** A spawn records the session id its CLI reports during the run at once. */
  onSession?: (id: string) => Promise<void>;
}

/** Runs `work` and settles it however it ends: usage into the ledger, the task let go, the owner record removed. A run
 * the project could not record (its branch not checked out) is kept and refused with RUN_NOT_RECORDED. */
export async function settled<R extends { reportedSession?: string } | undefined>(
  l: Launch,
  meter: { usage: Usage },
  work: () => Promise<R>,
  say: (line: string) => void,
): Promise<R> {
  const { ctx } = l;
  // A worker may run longer than its claim's lease on the remote, and say nothing meanwhile: this process renews it.
  const { target } = l;
  const renewing =
    l.recorded.pushed && target.kind === 'task' ? renewWhileRunning(ctx, target.id, l.agentId) : undefined;
  let result: R | undefined;
  let failure: unknown;
  let unrecorded: RunNotRecordedError | undefined;
  try {
    result = await work();
  } catch (err) {
    failure = err;
    throw err;
  } finally {
    await renewing?.();
    // Whatever happened to the worker, what it used is counted (should this fail, the owner is stale once we exit).
    const who = { ...l, executor: l.resolution.executor.name, run: l.kind };
    const entry = usageEntry(ctx.now(), who, l.sessionId ?? result?.reportedSession, meter.usage);
    unrecorded = await settleRun(ctx, l.target, entry, l.recorded.owned, failure).catch(() => undefined);
    if (unrecorded) say(`Warning: ${unrecorded.message}`);
    if (l.recorded.ownerRecord) removeOwnerRecord(ctx.cwd, l.recorded.ownerRecord);
  }
  if (unrecorded) throw unrecorded;
  return result as R;
}
