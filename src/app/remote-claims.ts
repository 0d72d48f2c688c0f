/**
 * Claims through the git remote, as the use cases need them: which remote (`claims.remote` in
 * .sow/config.yaml, or `--remote`), claiming a ready task there before here, giving the claim back
 * when the task is finished, and what the lists show of the remote's claims. Without a claims
 * remote none of this runs git, or even parses the configuration.
 */
import { claimRef, isRefBranch, NoSuchRemoteError, RemoteClaimError, type RemoteClaims } from '../domain/claims.js';
export { remoteClaimRows } from '../domain/claims.js';
import { shown } from '../domain/display.js';
import type { Owner } from '../domain/schemas.js';
import { contextOf, type Where } from './context.js';
import { readFileIfExists } from '../adapters/files.js';
import { findWorkspaceRoot } from '../adapters/repo.js';
import { warn } from '../adapters/notices.js';
import { forgetCachedClaims, hasRemote, makeClaimCommit, NOT_A_REMOTE, pushClaim, readRemoteClaims, thisMachine, type PushOutcome } from '../adapters/remote-claims.js';
import { DEFAULT_LEASE_SECONDS } from '../domain/ownership.js';

export interface ClaimsRemote {
  name: string;
  from: 'config' | 'option';
}

/**
 * The remote claims go through: `--remote`, else `claims.remote` of .sow/config.yaml. The file is
 * parsed only when it mentions `claims:` at the start of a line, so a read of a repository that
 * does not use them costs one small file read.
 */
export async function claimsRemote(root: string, option?: string): Promise<ClaimsRemote | undefined> {
  if (option !== undefined) return { name: option, from: 'option' };
  const text = readFileIfExists(root, '.sow/config.yaml');
  if (text === undefined || !/^claims\s*:/m.test(text)) return undefined;
  const { readRepoConfig } = await import('../adapters/repo-config.js');
  const name = (await readRepoConfig(root)).config.claims?.remote;
  return name ? { name, from: 'config' } : undefined;
}

/** The remote, checked to be one of the repository's: a name that is none would reach git as a path or URL. */
export function requireRemote(root: string, remote: ClaimsRemote): string {
  if (!hasRemote(root, remote.name)) throw new NoSuchRemoteError(remote.name, remote.from);
  return remote.name;
}

/**
 * `pushClaim` for a claim a task's state names: its remote (from the state file) only if the
 * repository defines it, its branch only if it can stand in a ref — else a failure that says why.
 */
async function pushTo(root: string, remote: string, branch: string, task: string, sha: string | null, expected: string): Promise<PushOutcome> {
  if (!hasRemote(root, remote)) return { kind: 'failed', why: NOT_A_REMOTE };
  if (!isRefBranch(branch)) return { kind: 'failed', why: `was not asked: the project's branch '${shown(branch)}' cannot be part of a ref` };
  return pushClaim(root, remote, claimRef(branch, task), sha, expected);
}

/**
 * Gives a finished task's claim back on the remote it was made on: deletes its ref if it still
 * points at the claim's commit. Gone or taken over meanwhile is fine (there is nothing of ours to
 * give back); a remote that refuses or cannot be reached stops the change (exit 5) unless `force`,
 * which finishes the task here and leaves the claim to run out with its lease.
 */
export async function releaseRemoteClaim(root: string, task: string, branch: string, owner: Owner, force: boolean | undefined): Promise<void> {
  const remote = owner['remote'];
  const sha = owner['remote_claim'];
  if (typeof remote !== 'string' || typeof sha !== 'string') return;
  const outcome = await pushTo(root, remote, branch, task, null, sha);
  if (outcome.kind === 'failed') {
    if (force) {
      warn(`the claim of task ${task} was not given back: the remote '${shown(remote)}' ${outcome.why}; it runs out with its lease`);
      return;
    }
    throw new RemoteClaimError(
      remote,
      `could not give back the claim of task ${task}`,
      outcome.why,
      `nothing was changed here; run the command again when the remote can be reached, or pass --force to finish the task here anyway (its claim on the remote then runs out with its lease)`,
    );
  }
  forgetCachedClaims(root);
}

/** What the lists know of the remote's claims; undefined without a claims remote. A remote not reached is said on stderr. */
export async function remoteClaimsForReads(root: string, branch: string, now: string): Promise<RemoteClaims | undefined> {
  const remote = await claimsRemote(root);
  if (!remote) return undefined;
  const read: RemoteClaims = isRefBranch(branch)
    ? await readRemoteClaims(root, remote.name, branch, now)
    : { remote: remote.name, reached: false, why: `was not asked: the project's branch '${shown(branch)}' cannot be part of a ref` };
  if (!read.reached) warn(`the claims on the remote '${shown(remote.name)}' were not read: it ${read.why}; only this checkout's claims are shown`);
  return read;
}

/**
 * The remote's claims of the project here, for a command that does not read the project
 * otherwise (agent ps): undefined without a claims remote, found before the project is read.
 */
export async function projectRemoteClaims(where: Where): Promise<RemoteClaims | undefined> {
  const ctx = contextOf(where);
  const { Reader } = await import('./workspace.js');
  if (!(await claimsRemote(findWorkspaceRoot(ctx.cwd)))) return undefined;
  const { root, branch } = await Reader.read(ctx, (reader) => ({ root: reader.root, branch: reader.project.branch }), { otherBranch: 'quiet' });
  return remoteClaimsForReads(root, branch, ctx.now());
}

/** Whether a claim's lease on the remote has less than half of its length left at `now` (or is not known). */
export function remoteLeaseDue(owner: Owner, now: string): boolean {
  const until = owner['remote_lease_until'];
  const seconds = owner.lease_seconds ?? DEFAULT_LEASE_SECONDS;
  return typeof until !== 'string' || Date.parse(until) - Date.parse(now) < (seconds * 1000) / 2;
}

/**
 * The owner's claim renewed on the remote: a new claim commit, with the lease this write gave it
 * here, pushed over the old one (compare-and-swap). The write goes on whatever happens there — a
 * remote not reached, or the claim taken over there after its lease ran out — and says so.
 */
export async function renewRemoteClaim(root: string, task: string, branch: string, owner: Owner, now: string): Promise<Owner> {
  const remote = owner['remote'];
  const sha = owner['remote_claim'];
  if (typeof remote !== 'string' || typeof sha !== 'string' || owner.lease_until === undefined) return owner;
  const commit = makeClaimCommit(root, { task, owner: owner.by, machine: thisMachine(), since: owner.since, lease_until: owner.lease_until });
  const outcome = await pushTo(root, remote, branch, task, commit, sha);
  if (outcome.kind === 'done') {
    forgetCachedClaims(root);
    return { ...owner, remote_claim: commit, remote_lease_until: owner.lease_until };
  }
  if (outcome.kind === 'lost')
    warn(
      `the claim of task ${task} on the remote '${shown(remote)}' is no longer ${shown(owner.by)}'s: its lease there ran out and it was taken over, or it was deleted ('sow task list' shows who holds it)`,
    );
  else warn(`the claim of task ${task} was not renewed: the remote '${shown(remote)}' ${outcome.why}; the next write tries again`);
  return owner;
}
