/** Claims on the git remote as use cases need them; without a claims remote nothing here runs git. */
import {
  claimRef,
  isRefBranch,
  NoSuchRemoteError,
  RemoteClaimError,
  remoteClaimLive,
  type ClaimRecord,
  type RemoteClaim,
  type RemoteClaims,
} from '../domain/claims.js';
import { shown } from '../domain/display.js';
import type { Owner } from '../domain/schemas.js';
import { readFileIfExists } from '../adapters/files.js';
import { warn } from '../adapters/notices.js';
import {
  claimsOf,
  forgetCachedClaims,
  hasRemote,
  listClaimRefs,
  makeClaimCommit,
  notRefBranch,
  pushClaim,
  pushTaskClaim,
  readRemoteClaims,
  thisMachine,
} from '../adapters/remote-claims.js';

export type ClaimsRemote = { name: string; from: 'config' | 'option' };

/** `--remote`, else `claims.remote` of .sow/config.yaml (parsed only when a line starts with `claims:`). */
export async function claimsRemote(root: string, option?: string): Promise<ClaimsRemote | undefined> {
  if (option !== undefined) return { name: option, from: 'option' };
  const text = readFileIfExists(root, '.sow/config.yaml');
  if (text === undefined || !/^claims\s*:/m.test(text)) return undefined;
  const { readRepoConfig } = await import('../adapters/repo-config.js');
  const name = (await readRepoConfig(root)).config.claims?.remote;
  return name ? { name, from: 'config' } : undefined;
}

// Gives a task's claim back (deletes its ref if it still points at the claim's commit). A remote that refuses stops the
// change (exit 5), unless `force`: then it is warned of, and the lease runs out.
export async function releaseRemoteClaim(root: string, task: string, branch: string, owner: Owner, force?: boolean) {
  const { remote, remote_claim: sha } = owner;
  if (remote === undefined || sha === undefined) return;
  const outcome = await pushTaskClaim(root, remote, branch, task, null, sha);
  if (outcome.kind !== 'failed') forgetCachedClaims(root);
  else if (force)
    warn(
      `the claim of task ${task} was not given back: the remote '${shown(remote)}' ${outcome.why}; it runs out ` +
        `with its lease`,
    );
  else
    throw new RemoteClaimError(
      remote,
      `could not give back the claim of task ${task}`,
      outcome.why,
      `nothing was changed here; run the command again when the remote can be reached, or pass --force to finish ` +
        `the task here anyway (its claim on the remote then runs out with its lease)`,
    );
}

/** What the lists know of the remote's claims (undefined without a claims remote); one not reached is said. */
export async function remoteClaimsForReads(root: string, branch: string, now: string) {
  const remote = await claimsRemote(root);
  if (!remote) return undefined;
  const read: RemoteClaims = isRefBranch(branch)
    ? await readRemoteClaims(root, remote.name, branch, now)
    : { remote: remote.name, reached: false, why: notRefBranch(branch) };
  if (!read.reached)
    warn(
      `the claims on the remote '${shown(remote.name)}' were not read: it ${read.why}; only this checkout's ` +
        `claims are shown`,
    );
  return read;
}

/** The commit of the task's claim on `remote` that this checkout's state records (its owner's, live or gone). */
export const ourClaim = (task: { owner?: Owner | undefined }, remote: string): string | undefined =>
  task.owner?.remote === remote ? task.owner.remote_claim : undefined;

// Claiming on the remote for one command: its claims read once (not reached: exit 5); `claim` returns the commit, or
// undefined when held there or lost to a racer. A live claim is pushed over only when `ours`, or with `force`.
export async function remoteClaimer(root: string, remote: ClaimsRemote, branch: string) {
  const name = remote.name;
  // A name that is no remote of the repository would reach git as a path or URL.
  if (!hasRemote(root, name)) throw new NoSuchRemoteError(name, remote.from);
  if (!isRefBranch(branch)) throw new RemoteClaimError(name, 'could not claim a task', notRefBranch(branch));
  const listed = await listClaimRefs(root, name, branch);
  if (!listed.ok) throw new RemoteClaimError(name, 'could not claim a task', listed.why);
  const held = new Map((await claimsOf(root, name, branch, listed.refs)).map((c) => [c.task, c]));
  /** Tasks whose claim moved on the remote since it was read: a racer's push landed first. */
  const moved = new Set<string>();
  return {
    remote: name,
    machine: thisMachine(),
    ref: (task: string) => claimRef(branch, task),
    async claim(task: string, record: ClaimRecord, now: string, opts: { ours?: string; force?: boolean } = {}) {
      const current = held.get(task);
      if (current && remoteClaimLive(current, now) && current.sha !== opts.ours && !opts.force) return undefined;
      const sha = makeClaimCommit(root, record);
      const outcome = await pushClaim(root, name, claimRef(branch, task), sha, current?.sha ?? null);
      if (outcome.kind === 'lost') {
        moved.add(task);
        return undefined;
      }
      if (outcome.kind === 'failed') throw new RemoteClaimError(name, `could not claim task ${task}`, outcome.why);
      forgetCachedClaims(root);
      return sha;
    },
    /** Who holds the task's claim on the remote now (read again if a racer's push landed since). */
    async holder(task: string): Promise<RemoteClaim | undefined> {
      if (!moved.has(task)) return held.get(task);
      const again = await listClaimRefs(root, name, branch);
      const sha = again.ok ? again.refs.get(task) : undefined;
      if (sha === undefined) return undefined;
      return (await claimsOf(root, name, branch, new Map([[task, sha]])))[0];
    },
  };
}

/** A task's claim on the remote as a change saw it before taking the lock (app/task-change.ts). */
export type ClaimSeen = { remote: string; branch: string; task: string; claim?: RemoteClaim };

/** After a forced takeover, the overridden claim is deleted if unchanged; else said, with the git command to do it. */
export async function dropOverriddenClaim(root: string, seen: ClaimSeen & { claim: RemoteClaim }): Promise<void> {
  const { remote, branch, task, claim } = seen;
  const outcome = await pushTaskClaim(root, remote, branch, task, null, claim.sha);
  const ref = claimRef(branch, task);
  if (outcome.kind === 'done') forgetCachedClaims(root);
  else if (outcome.kind === 'lost')
    warn(
      `the claim of task ${task} on the remote '${shown(remote)}' changed since it was read (given back, or ` +
        `claimed again), so it was left as it is; 'sow task list' shows who holds the task now`,
    );
  else
    warn(
      `the claim of task ${task} on the remote '${shown(remote)}' was not deleted: the remote ${outcome.why}; the ` +
        `change here stands. To delete the claim, run: git push ` +
        `--force-with-lease=${shown(ref)}:${claim.sha} ${shown(remote)} :${shown(ref)}`,
    );
}
