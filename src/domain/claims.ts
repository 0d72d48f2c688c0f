// A claim is the remote ref `refs/sow/claims/<branch>/<task>`; the remote updates a ref only from the value the pusher
// names, so of two claimers exactly one lands. Pure (pushing: adapters/remote-claims.ts).
import { errorClass, UsageError } from './errors.js';
import { shown } from './display.js';
import { isRefBranch, isRemoteName } from './git-names.js';
import { defined } from './json.js';

export { isRefBranch, isRemoteName };

export const CLAIMS_PREFIX = 'refs/sow/claims';

/** The remote named with `--remote`, checked; UsageError (exit 2) for what is no remote name. */
export function remoteArg(name: string): string {
  if (!isRemoteName(name))
    throw new UsageError(
      `invalid --remote '${shown(name)}': not the name of a git remote`,
      "name a remote of this repository, as 'git remote' lists them, e.g. --remote origin",
    );
  return name;
}

export const claimRef = (branch: string, task: string): string => `${CLAIMS_PREFIX}/${branch}/${task}`;

/** What a claim's commit records. */
export type ClaimRecord = Record<'task' | 'owner' | 'machine' | 'since' | 'lease_until', string>;

/** A claim on the remote: its task, its commit, and what that commit records (when sow could read it). */
export type RemoteClaim = { task: string; sha: string } & Partial<Omit<ClaimRecord, 'task'>>;

/** The claim's commit message; `nonce` makes each claim commit its own, so no compare-and-swap mistakes one. */
export function claimMessage(r: ClaimRecord, nonce: string): string {
  const line = (v: string) => v.replace(/[\r\n]+/g, ' ');
  return (
    `sow claim: task ${line(r.task)}\n\n` +
    `task: ${line(r.task)}\nowner: ${line(r.owner)}\nmachine: ${line(r.machine)}\n` +
    `since: ${line(r.since)}\nlease-until: ${line(r.lease_until)}\nnonce: ${nonce}\n`
  );
}

/** 200 characters: a field longer than that was not written by sow, and is cut. */
const FIELD_MAX = 200;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** What a claim's commit records; the remote is untrusted: only sow's fields, cut to 200 characters, ISO times. */
export function parseClaimCommit(task: string, sha: string, commit: string): RemoteClaim {
  const claim: RemoteClaim = { task, sha };
  const body = commit.slice(commit.indexOf('\n\n') + 2);
  for (const raw of body.split('\n')) {
    const m = /^(owner|machine|since|lease-until): (.*)$/.exec(raw);
    if (!m) continue;
    const value = m[2]!.slice(0, FIELD_MAX);
    if (m[1] === 'owner') claim.owner = value;
    else if (m[1] === 'machine') claim.machine = value;
    else if (ISO.test(value)) claim[m[1] === 'since' ? 'since' : 'lease_until'] = value;
  }
  return claim;
}

/** Whether the claim holds at `now`; one sow cannot read holds (taking over needs to know its lease ran out). */
export const remoteClaimLive = (c: RemoteClaim, now: string): boolean =>
  c.lease_until === undefined || Date.parse(c.lease_until) > Date.parse(now);

/** "ann on laptop-3, lease until …" */
export function describeRemoteClaim(c: RemoteClaim): string {
  const who = c.owner !== undefined ? shown(c.owner) : 'someone';
  const on = c.machine !== undefined ? ` on ${shown(c.machine)}` : '';
  return `${who}${on}${c.lease_until !== undefined ? `, lease until ${c.lease_until}` : ''}`;
}

/** What the reads know of the remote's claims; `why` is said of the remote ("was not reached (…)"). */
export type RemoteClaims =
  { remote: string; reached: true; claims: RemoteClaim[] } | { remote: string; reached: false; why: string };

/** A task's claim on the remote, as a list shows it: who, where, until when, and whether it holds now. */
export type RemoteClaimRow = RemoteClaim & { remote: string; live: boolean };

export function remoteClaimRows(read: RemoteClaims | undefined, now: string): Map<string, RemoteClaimRow> {
  const rows = new Map<string, RemoteClaimRow>();
  if (!read?.reached) return rows;
  for (const c of read.claims) rows.set(c.task, { ...c, remote: read.remote, live: remoteClaimLive(c, now) });
  return rows;
}

/** "claimed on origin by ann on laptop-3, lease until …" / "its claim on origin (…) ran out". */
export function remoteClaimText(c: RemoteClaimRow): string {
  return c.live
    ? `claimed on ${shown(c.remote)} by ${describeRemoteClaim(c)}`
    : `its claim on ${shown(c.remote)} (${describeRemoteClaim(c)}) ran out`;
}

/** A claim the remote refused, or a remote sow could not reach: exit 5, nothing changed here. */
export class RemoteClaimError extends errorClass(
  'REMOTE_CLAIM_FAILED',
  'external',
  (remote: string, what: string, why: string, hint?: string) => [
    `${what}: the remote '${shown(remote)}' ${why}`,
    hint ??
      `nothing was changed here; check that 'git push ${shown(remote)}' works from this checkout (network, ` +
        `rights to push refs under ${CLAIMS_PREFIX}/), then run the command again`,
    { remote },
  ],
) {}

/** `claims.remote` (or `--remote`) names no remote of this repository. */
export class NoSuchRemoteError extends errorClass(
  'REMOTE_NOT_FOUND',
  'failed',
  (remote: string, from: 'config' | 'option') => [
    `this repository has no git remote named ` +
      `'${shown(remote)}'${from === 'config' ? ' (claims.remote in .sow/config.yaml)' : ''}`,
    `run 'git remote -v' to see the remotes; add it with 'git remote add ${shown(remote)} ` +
      `<url>'${from === 'config' ? ', or correct claims.remote' : ', or pass another --remote'}`,
    { remote },
  ],
) {}

/** A task still held on the remote by someone else (another machine, most likely). */
export class ClaimedElsewhereError extends errorClass(
  'TASK_CLAIMED_ELSEWHERE',
  'failed',
  (task: string, remote: string, claim: RemoteClaim | undefined, agent: string) => [
    `task ${task} is claimed on the remote '${shown(remote)}' ` +
      `by ${claim ? describeRemoteClaim(claim) : 'another claimer'}; a worker here would work beside theirs`,
    `nothing was changed; start one on the next task nobody holds ('sow agent spawn ${shown(agent)} --next'), ` +
      `wait until that claim is given back or its lease runs out ('sow task list' shows it), or pass --force to ` +
      `take it over`,
    { task, remote, ...defined({ owner: claim?.owner, machine: claim?.machine, lease_until: claim?.lease_until }) },
  ],
) {}
