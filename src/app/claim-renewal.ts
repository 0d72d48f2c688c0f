// Renewing a claim on the claims remote, never under the lock: pushed after the write that found the lease half run
// out, then recorded by a second write only if the state still records the renewed commit, else given back (0079).
import type { Owner } from '../domain/schemas.js';
import { shown } from '../domain/display.js';
import { remoteLeaseFrom } from '../domain/ownership.js';
import { warn } from '../adapters/notices.js';
import { forgetCachedClaims, makeClaimCommit, pushTaskClaim, thisMachine } from '../adapters/remote-claims.js';
import type { AppContext } from './context.js';
import { underLock, UnitOfWork, type DueRenewal } from './unit-of-work.js';

/** Pushes a new claim commit over the old one (compare-and-swap); on failure, said, and the owner comes back as is. */
async function pushRenewal(root: string, due: DueRenewal, now: string, retry: string): Promise<Owner> {
  const { task, branch, owner } = due;
  const { remote, remote_claim: sha } = owner;
  // A claim's lease here was just renewed by the write; a worker has none here: its lease there runs from now.
  const leaseUntil = owner.kind === 'claim' ? owner.lease_until : remoteLeaseFrom(now, owner.lease_seconds);
  if (remote === undefined || sha === undefined || leaseUntil === undefined) return owner;
  const record = { task, owner: owner.by, machine: thisMachine(), since: owner.since, lease_until: leaseUntil };
  const commit = makeClaimCommit(root, record);
  const outcome = await pushTaskClaim(root, remote, branch, task, commit, sha);
  if (outcome.kind === 'done') {
    forgetCachedClaims(root);
    return { ...owner, remote_claim: commit, remote_lease_until: leaseUntil };
  }
  if (outcome.kind === 'lost')
    warn(
      `the claim of task ${task} on the remote '${shown(remote)}' is no longer ${shown(owner.by)}'s: ` +
        `its lease there ran out and it was taken over, or it was deleted ('sow task list' shows who holds it)`,
    );
  else warn(`the claim of task ${task} was not renewed: the remote '${shown(remote)}' ${outcome.why}; ${retry}`);
  return owner;
}

/** Records the renewed claim if the task's owner still records the commit renewed; else gives the new one back. */
async function recordRenewal(root: string, ctx: AppContext, due: DueRenewal, renewed: Owner): Promise<boolean> {
  const recorded = await underLock(root, async () => {
    const uow = new UnitOfWork(root, ctx);
    const task = await uow.task(due.task);
    if (task.owner?.by !== due.owner.by || task.owner.remote_claim !== due.owner.remote_claim) return false;
    const { remote_claim, remote_lease_until } = renewed;
    uow.recordClaim(task, { ...task.owner, remote_claim, remote_lease_until });
    await uow.commit();
    return true;
  });
  if (!recorded) await pushTaskClaim(root, renewed.remote!, due.branch, due.task, null, renewed.remote_claim!);
  return recorded;
}

/** Renews each claim due, then records it here; whether all were. Never fails: what goes wrong is said, and retried. */
export async function renewClaims(
  root: string,
  ctx: AppContext,
  due: readonly DueRenewal[],
  now: string,
  retry = 'the next write tries again',
): Promise<boolean> {
  let all = true;
  for (const d of due) {
    try {
      const renewed = await pushRenewal(root, d, now, retry);
      all = renewed !== d.owner && (await recordRenewal(root, ctx, d, renewed)) && all;
    } catch (err) {
      warn(`the claim of task ${d.task} was not renewed: ${(err as Error).message}; ${retry}`);
      all = false;
    }
  }
  return all;
}
