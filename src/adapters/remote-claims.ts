/** Claims on the git remote, with git alone: `ls-remote` lists them, `commit-tree` makes one on the empty tree, and
 * `push --force-with-lease` changes one only if the remote still has the value expected (one racing pusher lands). */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { hostname } from 'node:os';
import * as v from 'valibot';
import {
  CLAIMS_PREFIX,
  claimMessage,
  claimRef,
  isRefBranch,
  parseClaimCommit,
  type ClaimRecord,
  type RemoteClaim,
  type RemoteClaims,
} from '../domain/claims.js';
import { shown } from '../domain/display.js';
import { readRegular } from './confine.js';
import { writeFileAtomic } from './fs-atomic.js';
import { quietly } from './io-errors.js';
import { gitObjects, gitRun, gitRunAsync, NO_PROMPT, opt, val } from './git.js';
import { ensureRuntimeDir, runtimePath } from './runtime.js';

/** The claim commits' author: sow, not the person (who may have no git identity on this machine). */
const COMMIT_ENV = {
  GIT_AUTHOR_NAME: 'sow',
  GIT_AUTHOR_EMAIL: 'sow@localhost',
  GIT_COMMITTER_NAME: 'sow',
  GIT_COMMITTER_EMAIL: 'sow@localhost',
};

export const thisMachine = (): string => hostname();

export const NOT_A_REMOTE = "is not a remote of this repository ('git remote -v' lists them)";
/** Why the remote was not asked of a branch no ref can hold. */
export const notRefBranch = (branch: string) =>
  `was not asked: the project's branch '${shown(branch)}' cannot be part of a ref`;

/** Whether the repository has a remote of that name (its url, asked of git config: never a path). */
export function hasRemote(root: string, remote: string): boolean {
  return gitRun(root, ['config', '--get', val(`remote.${remote}.url`, 'the remote')]).ok;
}

/** `ls-remote` of the claims refs matching `pattern` (ref → commit), or why the remote was not reached. */
async function lsRemote(root: string, remote: string, pattern: string, what: string) {
  const r = await gitRunAsync(root, ['ls-remote', '--refs', val(remote, 'the claims remote'), val(pattern, what)], {
    env: NO_PROMPT,
  });
  if (!r.ok) return { ok: false as const, why: `was not reached (${gitReason(r.err)})` };
  const refs = new Map<string, string>();
  for (const line of r.out.split('\n')) {
    const m = /^([0-9a-f]{40,64})\t(.+)$/.exec(line);
    if (m) refs.set(m[2]!, m[1]!);
  }
  return { ok: true as const, refs };
}

/** What git said about a failure, in a line: its first `fatal:` or `error:` line, else its last line. */
function gitReason(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const first = lines.find((l) => /^(fatal|error):/.test(l)) ?? lines.at(-1);
  return first?.replace(/^(fatal|error|remote): */, '').slice(0, 300) || 'git gave no reason';
}

/** The claim refs of `branch` (or of its `task` alone) on the remote, task id → commit; or why not ("was not reached
 * (…)"). */
export async function listClaimRefs(
  root: string,
  remote: string,
  branch: string,
  task = '*',
): Promise<{ ok: true; refs: Map<string, string> } | { ok: false; why: string }> {
  const prefix = `${CLAIMS_PREFIX}/${branch}/`;
  const r = await lsRemote(root, remote, `${prefix}${task}`, 'the claims refs');
  if (!r.ok) return r;
  const refs = new Map<string, string>();
  for (const [ref, sha] of r.refs) {
    const id = ref.slice(prefix.length);
    if (ref.startsWith(prefix) && /^\d{3,}$/.test(id)) refs.set(id, sha);
  }
  return { ok: true, refs };
}

/** The claims of those refs as their commits record them, missing commits fetched by ref name; one that did not come
 * (its ref moved) is a claim sow cannot read, which counts as holding. */
export async function claimsOf(
  root: string,
  remote: string,
  branch: string,
  refs: ReadonlyMap<string, string>,
): Promise<RemoteClaim[]> {
  if (refs.size === 0) return [];
  const entries = [...refs.entries()];
  // One `cat-file --batch` for every claim commit; a fetch of those the checkout lacks, then one more.
  const shas = (list: [string, string][]) => list.map(([, sha]) => sha);
  let present = gitObjects(root, shas(entries));
  const missing = entries.filter(([, sha]) => present.get(sha)?.type !== 'commit');
  if (missing.length) {
    // The refs on stdin: nothing there can be read as an option.
    gitRun(
      root,
      [
        'fetch',
        '--quiet',
        '--no-tags',
        '--no-write-fetch-head',
        '--no-auto-gc',
        '--stdin',
        val(remote, 'the claims remote'),
      ],
      {
        input: missing.map(([task]) => `${CLAIMS_PREFIX}/${branch}/${task}\n`).join(''),
        env: NO_PROMPT,
      },
    );
    present = new Map([...present, ...gitObjects(root, shas(missing))]);
  }
  const out = entries.map(([task, sha]): RemoteClaim => {
    const commit = present.get(sha);
    return commit?.type === 'commit' ? parseClaimCommit(task, sha, commit.content) : { task, sha };
  });
  return out.sort((a, b) => a.task.localeCompare(b.task));
}

/** The claim of one task on the remote, asked now (no cache); `claim` absent when there is none. */
export async function readTaskClaim(
  root: string,
  remote: string,
  branch: string,
  task: string,
): Promise<{ reached: true; claim?: RemoteClaim } | { reached: false; why: string }> {
  if (!hasRemote(root, remote)) return { reached: false, why: NOT_A_REMOTE };
  const listed = await listClaimRefs(root, remote, branch, task);
  if (!listed.ok) return { reached: false, why: listed.why };
  const [claim] = await claimsOf(root, remote, branch, listed.refs);
  return claim ? { reached: true, claim } : { reached: true };
}

/** A claim's commit, on the empty tree, with no parent: made in the object store, nothing else touched. */
export function makeClaimCommit(root: string, record: ClaimRecord): string {
  const tree = gitRun(root, ['mktree'], { input: '' });
  if (!tree.ok) throw new Error(`git mktree failed: ${tree.err}`);
  const commit = gitRun(root, ['commit-tree', val(tree.out, 'the empty tree')], {
    input: claimMessage(record, randomBytes(8).toString('hex')),
    env: COMMIT_ENV,
  });
  if (!commit.ok) throw new Error(`git commit-tree failed: ${commit.err}`);
  return commit.out;
}

/** A compare-and-swap push: landed, lost to another claimer, or failed (`why`, said of the remote). */
export type PushOutcome = { kind: 'done' } | { kind: 'lost' } | { kind: 'failed'; why: string };

/** Sets the remote's `ref` to `sha` (null: deletes it) only if it is now `expected` (null: absent). */
export async function pushClaim(
  root: string,
  remote: string,
  ref: string,
  sha: string | null,
  expected: string | null,
): Promise<PushOutcome> {
  const r = await gitRunAsync(
    root,
    [
      'push',
      '--porcelain',
      '--no-verify',
      opt('--force-with-lease', `${ref}:${expected ?? ''}`),
      val(remote, 'the claims remote'),
      val(`${sha ?? ''}:${ref}`, 'the claim refspec'),
    ],
    { env: NO_PROMPT },
  );
  if (r.ok) return { kind: 'done' };
  const status = r.out.split('\n').find((l) => l.startsWith('!\t'));
  if (status === undefined) return { kind: 'failed', why: `was not reached (${gitReason(r.err)})` };
  // Refused before sending: the ref the remote advertised was not the expected one.
  if (status.includes('[rejected]')) return { kind: 'lost' };
  // Refused by the remote: its ref moved under the push (a racer's landed first), or it refuses
  // pushes there (a hook, rules, rights). Only its ref's value now tells them apart.
  const now = await lsRemote(root, remote, ref, 'the claim ref');
  if (!now.ok) return { kind: 'failed', why: now.why };
  const current = now.refs.get(ref) ?? null;
  if (current !== expected) return { kind: 'lost' };
  const said = r.err.includes('remote:') ? r.err.split('\n').filter((l) => l.startsWith('remote:')) : [status];
  return { kind: 'failed', why: `refused the push (${gitReason(said.join('\n'))})` };
}

// The reads' cache: a few seconds, so a list after a list asks the remote once.

const CACHE_FILE = 'remote-claims.json';
export const CLAIMS_CACHE_SECONDS = 5;
const CACHE_LIMITS = { max: 4 * 1024 * 1024, what: 'the claims cache', why: 'it holds a line per claimed task' };

const CACHE = v.object({
  remote: v.string(),
  branch: v.string(),
  at: v.string(),
  claims: v.array(
    v.object({
      task: v.string(),
      sha: v.string(),
      owner: v.optional(v.string()),
      machine: v.optional(v.string()),
      since: v.optional(v.string()),
      lease_until: v.optional(v.string()),
    }),
  ),
});

/** The cached claims of that remote and branch, if read a few seconds before `now`; anything odd is no cache. */
export function cachedClaims(root: string, remote: string, branch: string, now: string): RemoteClaim[] | undefined {
  const path = runtimePath(root, CACHE_FILE);
  const cache = quietly(() => v.parse(CACHE, JSON.parse(readRegular(path, path, CACHE_LIMITS) ?? '')));
  if (cache?.remote !== remote || cache.branch !== branch) return undefined;
  const age = Date.parse(now) - Date.parse(cache.at);
  return age >= 0 && age < CLAIMS_CACHE_SECONDS * 1000 ? cache.claims : undefined;
}

export function cacheClaims(
  root: string,
  remote: string,
  branch: string,
  now: string,
  claims: readonly RemoteClaim[],
): void {
  // A cache: one not written means the next read asks the remote again.
  quietly(() => {
    ensureRuntimeDir(root);
    const text = `${JSON.stringify({ remote, branch, at: now, claims })}\n`;
    writeFileAtomic(runtimePath(root, CACHE_FILE), text, { durable: false });
  });
}

/** After a claim changed on the remote, the next read asks it again. */
export function forgetCachedClaims(root: string): void {
  rmSync(runtimePath(root, CACHE_FILE), { force: true });
}

/** The remote's claims of the branch, read as the lists need them: from the cache, else from the remote. */
export async function readRemoteClaims(
  root: string,
  remote: string,
  branch: string,
  now: string,
): Promise<RemoteClaims> {
  const cached = cachedClaims(root, remote, branch, now);
  if (cached) return { remote, reached: true, claims: cached };
  // A name that is no remote would reach git as a path: a folder of the repository, say.
  if (!hasRemote(root, remote)) return { remote, reached: false, why: NOT_A_REMOTE };
  const listed = await listClaimRefs(root, remote, branch);
  if (!listed.ok) return { remote, reached: false, why: listed.why };
  const claims = await claimsOf(root, remote, branch, listed.refs);
  cacheClaims(root, remote, branch, now, claims);
  return { remote, reached: true, claims };
}

/** `pushClaim` for a claim a task's state names: its remote must be the repository's, its branch fit a ref. */
export async function pushTaskClaim(
  root: string,
  remote: string,
  branch: string,
  task: string,
  sha: string | null,
  expected: string,
): Promise<PushOutcome> {
  if (!hasRemote(root, remote)) return { kind: 'failed', why: NOT_A_REMOTE };
  if (!isRefBranch(branch)) return { kind: 'failed', why: notRefBranch(branch) };
  return pushClaim(root, remote, claimRef(branch, task), sha, expected);
}
