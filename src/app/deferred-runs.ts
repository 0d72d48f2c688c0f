/** Runs that ended while another branch was checked out, recorded by the next command on its branch (0069). */
import { check } from '../domain/schema-check.js';
import { UsageEntrySchema, type UsageEntry } from '../domain/schemas.js';
import { withStatus } from '../domain/tasks.js';
import { deferredRuns, type DeferredRun, type ProjectIdentity } from '../adapters/deferred-runs.js';
import { writeLogEntry } from './log-entry.js';
import { releaseRemoteClaim } from './remote-claims.js';
import { branchProblem } from './project-files.js';
import type { UnitOfWork } from './unit-of-work.js';

const sameRun = (a: UsageEntry, b: UsageEntry) =>
  a.at === b.at && a.agent_id === b.agent_id && a.task === b.task && a.run === b.run;

export const isProject = (p: { name: string; created_at: string }, id: ProjectIdentity) =>
  p.name === id.name && p.created_at === id.created_at;

/** What recording leaves: the records to remove after the commit, the claims to give back after the lock. */
export type Recorded = { files: string[]; giveBack: (() => Promise<void>)[] };

/** Puts the waiting records of this project into `uow` (its branch checked out); claims go back after the lock. */
export async function recordDeferredRuns(uow: UnitOfWork): Promise<Recorded> {
  const done: Recorded = { files: [], giveBack: [] };
  const waiting = deferredRuns(uow.root);
  if (waiting.length === 0) return done;
  // A project that cannot be read throws: its caller leaves the records waiting.
  const project = await uow.project();
  if (branchProblem(uow.root, project)) return done;
  for (const { file, run } of waiting) {
    if (!isProject(project, run.project)) continue;
    const valid = check(UsageEntrySchema, run.entry);
    const current = await uow.project();
    // Idempotent: a record whose removal was lost after its write is not counted twice.
    if (valid.ok && !(current.usage ?? []).some((e) => sameRun(e, valid.value)))
      uow.setProject({ ...current, usage: [...(current.usage ?? []), valid.value] });
    if (run.task !== undefined) await letGo(uow, run, current.branch, done.giveBack);
    done.files.push(file);
  }
  return done;
}

async function letGo(uow: UnitOfWork, run: DeferredRun, branch: string, giveBack: (() => Promise<void>)[]) {
  const { task: id, agent_id: agentId, pid, checked_out: checkedOut } = run;
  // Removed since: nothing to let go.
  const task = await uow.task(id!).catch(() => undefined);
  if (!task) return;
  const owner = task.owner;
  // Someone took it over meanwhile: theirs now.
  if (owner?.kind !== 'worker' || owner.by !== agentId || owner.pid !== pid) return;
  giveBack.push(() => releaseRemoteClaim(uow.root, task.id, branch, owner, true));
  let next = { ...task };
  delete next.owner;
  if (next.status === 'in_progress') next = withStatus(next, 'paused', uow.now);
  uow.setTask(next);
  const where = checkedOut === undefined ? 'a detached HEAD was' : `'${checkedOut}' was`;
  const notes =
    `Stopped unrecorded: its worker ${agentId} ended while ${where} checked out, not this project's branch ` +
    `'${branch}', so sow could not record its end then (it is counted now). Resume it with 'sow agent ` +
    `resume ${task.id} "<prompt>"'.`;
  await writeLogEntry(uow, task.id, { agent: uow.actor.by, action: 'paused_task', result: 'partial' }, notes);
}
