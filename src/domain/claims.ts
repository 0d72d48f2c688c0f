/**
 * Claims through the git remote: across machines, the remote arbitrates who works on a task. A
 * claim is the ref `refs/sow/claims/<project branch>/<task id>` on the remote, pointing at a small
 * commit whose message records who claimed, on which machine, and until when. The remote creates
 * a ref atomically and updates it only from the value the pusher names, so of two claimers of one
 * task exactly one push lands. Pure: the pushing is in adapters/remote-claims.ts.
 */
import { SowError, UsageError } from './errors.js';
import { shown } from './display.js';
import { isRefBranch, isRemoteName } from './git-names.js';

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

/** The ref of a task's claim on the remote. */
export const claimRef = (branch: string, task: string): string => `${CLAIMS_PREFIX}/${branch}/${task}`;

/** What a claim's commit records. */
export interface ClaimRecord {
  task: string;
  owner: string;
  machine: string;
  since: string;
  lease_until: string;
}

/**
 * A claim on the remote: its task, the commit its ref points at, and what that commit records (when sow could read
 * it).
 */
export interface RemoteClaim {
  task: string;
  sha: string;
  owner?: string;
  machine?: string;
  since?: string;
  lease_until?: string;
}

/**
 * The claim's commit message: a subject, then one `key: value` line per field. `nonce` makes
 * each claim commit its own, so that two claimers never push the same commit and a
 * compare-and-swap never mistakes one claim for another.
 */
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

/**
 * What a claim's commit records, from the commit as `git cat-file commit` prints it. The remote is
 * untrusted: only the fields sow writes are read, each at most 200 characters, times only in the
 * form sow writes them.
 */
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

/**
 * Whether the claim holds at `now`. A claim sow cannot read (its commit did not come, or records
 * no lease) holds: taking a task over needs to know its lease ran out.
 */
export const remoteClaimLive = (c: RemoteClaim, now: string): boolean =>
  c.lease_until === undefined || Date.parse(c.lease_until) > Date.parse(now);

/** "ann on laptop-3, lease until …" */
export function describeRemoteClaim(c: RemoteClaim): string {
  const who = c.owner !== undefined ? shown(c.owner) : 'someone';
  const on = c.machine !== undefined ? ` on ${shown(c.machine)}` : '';
  return `${who}${on}${c.lease_until !== undefined ? `, lease until ${c.lease_until}` : ''}`;
}

/**
 * What the reads (task list, task next, status, agent ps) know of the remote's claims; `why` is said of the remote
 * ("was not reached (…)").
 */
export type RemoteClaims =
  { remote: string; reached: true; claims: RemoteClaim[] } | { remote: string; reached: false; why: string };

/** A task's claim on the remote, as a list shows it: who, where, until when, and whether it holds now. */
export type RemoteClaimRow = RemoteClaim & { remote: string; live: boolean };

/** The remote's claims by task. */
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

/**
 * A claim through the remote that the remote refused, or a remote sow could not reach: exit 5, nothing changed here.
 */
export class RemoteClaimError extends SowError {
  constructor(remote: string, what: string, why: string, hint?: string) {
    super(
      'REMOTE_CLAIM_FAILED',
      'external',
      `${what}: the remote '${shown(remote)}' ${why}`,
      hint ??
        `nothing was changed here; check that 'git push ${shown(remote)}' works from this checkout (network, ` +
          `rights to push refs under ${CLAIMS_PREFIX}/), then run the command again`,
      { remote },
    );
  }
}

/** `claims.remote` (or `--remote`) names no remote of this repository. */
export class NoSuchRemoteError extends SowError {
  constructor(remote: string, from: 'config' | 'option') {
    super(
      'REMOTE_NOT_FOUND',
      'failed',
      `this repository has no git remote named ` +
        `'${shown(remote)}'${from === 'config' ? ' (claims.remote in .sow/config.yaml)' : ''}`,
      `run 'git remote -v' to see the remotes; add it with 'git remote add ${shown(remote)} ` +
        `<url>'${from === 'config' ? ', or correct claims.remote' : ', or pass another --remote'}`,
      { remote },
    );
  }
}

/**
 * A task claimed, and still held, on the remote by someone else (another machine, most likely): a worker here would
 * work beside theirs.
 */
export class ClaimedElsewhereError extends SowError {
  constructor(task: string, remote: string, claim: RemoteClaim | undefined, agent: string) {
    super(
      'TASK_CLAIMED_ELSEWHERE',
      'failed',
      `task ${task} is claimed on the remote '${shown(remote)}' ` +
        `by ${claim ? describeRemoteClaim(claim) : 'another claimer'}; a worker here would work beside theirs`,
      `nothing was changed; start one on the next task nobody holds ('sow agent spawn ${shown(agent)} --next'), ` +
        `wait until that claim is given back or its lease runs out ('sow task list' shows it), or pass --force to ` +
        `take it over`,
      {
        task,
        remote,
        ...(claim?.owner !== undefined ? { owner: claim.owner } : {}),
        ...(claim?.machine !== undefined ? { machine: claim.machine } : {}),
        ...(claim?.lease_until !== undefined ? { lease_until: claim.lease_until } : {}),
      },
    );
  }
}
