import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cacheClaims, cachedClaims, claimsOf, listClaimRefs, makeClaimCommit, pushClaim } from './remote-claims.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const REF = 'refs/sow/claims/main/010';
const record = (owner: string) => ({
  task: '010',
  owner,
  machine: 'here',
  since: '2026-01-01T10:00:00.000Z',
  lease_until: '2026-01-01T10:30:00.000Z',
});

/** A bare repository as the remote, and a checkout whose `origin` it is. */
function world() {
  const top = mkdtempSync(join(tmpdir(), 'sow-remote-claims-'));
  dirs.push(top);
  const remote = join(top, 'remote.git');
  const clone = join(top, 'clone');
  execFileSync('git', ['init', '-q', '--bare', remote]);
  execFileSync('git', ['init', '-q', '-b', 'main', clone]);
  execFileSync('git', ['remote', 'add', 'origin', remote], { cwd: clone });
  const refOnRemote = (): string | undefined => {
    try {
      return execFileSync('git', ['rev-parse', '--verify', '-q', REF], { cwd: remote, encoding: 'utf8' }).trim();
    } catch {
      return undefined;
    }
  };
  return { remote, clone, refOnRemote };
}

describe('pushClaim: a compare-and-swap of a claim ref on the remote', () => {
  it('creates only what does not exist, replaces and deletes only from the value named', async () => {
    const w = world();
    const a = makeClaimCommit(w.clone, record('ann'));
    const b = makeClaimCommit(w.clone, record('bob'));
    expect(a).not.toBe(b);
    expect(await pushClaim(w.clone, 'origin', REF, a, null)).toEqual({ kind: 'done' });
    expect(w.refOnRemote()).toBe(a);
    // bob, who saw no claim, loses; and cannot replace a claim he does not name.
    expect(await pushClaim(w.clone, 'origin', REF, b, null)).toEqual({ kind: 'lost' });
    expect(await pushClaim(w.clone, 'origin', REF, b, b)).toEqual({ kind: 'lost' });
    expect(w.refOnRemote()).toBe(a);
    // Naming ann's claim takes it over; then ann's release finds it moved.
    expect(await pushClaim(w.clone, 'origin', REF, b, a)).toEqual({ kind: 'done' });
    expect(await pushClaim(w.clone, 'origin', REF, null, a)).toEqual({ kind: 'lost' });
    expect(await pushClaim(w.clone, 'origin', REF, null, b)).toEqual({ kind: 'done' });
    expect(w.refOnRemote()).toBeUndefined();
  });

  it('a remote that refuses or is not there fails with its reason; listing says it was not reached', async () => {
    const w = world();
    mkdirSync(join(w.remote, 'hooks'), { recursive: true });
    writeFileSync(join(w.remote, 'hooks', 'pre-receive'), '#!/bin/sh\necho "no claims here" >&2\nexit 1\n');
    chmodSync(join(w.remote, 'hooks', 'pre-receive'), 0o755);
    const sha = makeClaimCommit(w.clone, record('ann'));
    expect(await pushClaim(w.clone, 'origin', REF, sha, null)).toEqual({
      kind: 'failed',
      why: 'refused the push (no claims here)',
    });
    execFileSync('git', ['remote', 'set-url', 'origin', join(w.remote, 'missing.git')], { cwd: w.clone });
    const offline = await pushClaim(w.clone, 'origin', REF, sha, null);
    expect(offline).toMatchObject({ kind: 'failed', why: expect.stringMatching(/^was not reached \(.*missing\.git/) });
    expect(await listClaimRefs(w.clone, 'origin', 'main')).toMatchObject({
      ok: false,
      why: expect.stringContaining('missing.git'),
    });
  });

  it('lists the claims of the branch and reads what their commits record, fetching those not here', async () => {
    const w = world();
    const other = join(w.remote, '..', 'other');
    execFileSync('git', ['clone', '-q', w.remote, other]);
    const sha = makeClaimCommit(other, record('ann'));
    expect(await pushClaim(other, 'origin', REF, sha, null)).toEqual({ kind: 'done' });
    const listed = await listClaimRefs(w.clone, 'origin', 'main');
    expect(listed).toEqual({ ok: true, refs: new Map([['010', sha]]) });
    expect(await listClaimRefs(w.clone, 'origin', 'other-branch')).toEqual({ ok: true, refs: new Map() });
    const claims = await claimsOf(w.clone, 'origin', 'main', (listed as { refs: Map<string, string> }).refs);
    expect(claims).toEqual([
      {
        task: '010',
        sha,
        owner: 'ann',
        machine: 'here',
        since: '2026-01-01T10:00:00.000Z',
        lease_until: '2026-01-01T10:30:00.000Z',
      },
    ]);
  });
});

describe('the claims cache', () => {
  it('answers for a few seconds, for the same remote and branch only', () => {
    const w = world();
    const claims = [{ task: '010', sha: 'a'.repeat(40), owner: 'ann' }];
    cacheClaims(w.clone, 'origin', 'main', '2026-01-01T10:00:00.000Z', claims);
    expect(cachedClaims(w.clone, 'origin', 'main', '2026-01-01T10:00:04.000Z')).toEqual(claims);
    expect(cachedClaims(w.clone, 'origin', 'main', '2026-01-01T10:00:05.000Z')).toBeUndefined();
    expect(cachedClaims(w.clone, 'origin', 'main', '2026-01-01T09:59:59.000Z')).toBeUndefined();
    expect(cachedClaims(w.clone, 'upstream', 'main', '2026-01-01T10:00:01.000Z')).toBeUndefined();
    expect(cachedClaims(w.clone, 'origin', 'dev', '2026-01-01T10:00:01.000Z')).toBeUndefined();
  });

  it('a file of another shape reads as no cache', () => {
    const w = world();
    const file = join(w.clone, '.git', 'sow', 'remote-claims.json');
    mkdirSync(join(w.clone, '.git', 'sow'), { recursive: true });
    const at = '2026-01-01T10:00:00.000Z';
    for (const text of [
      'not json',
      '[]',
      JSON.stringify({ remote: 'origin', branch: 'main', at, claims: [{ task: 1 }] }),
      JSON.stringify({ remote: 'origin', branch: 'main', at, claims: 'x' }),
    ]) {
      writeFileSync(file, text);
      expect(cachedClaims(w.clone, 'origin', 'main', at), text).toBeUndefined();
    }
  });
});
