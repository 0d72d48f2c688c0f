import { describe, expect, it } from 'vitest';
import {
  claimMessage,
  claimRef,
  isRefBranch,
  isRemoteName,
  parseClaimCommit,
  remoteArg,
  remoteClaimLive,
  remoteClaimRows,
  remoteClaimText,
} from './claims.js';
import { check } from './schema-check.js';
import { OwnerSchema } from './schemas.js';
import { RepoConfigSchema } from './config-schemas.js';

const record = {
  task: '010',
  owner: 'ann',
  machine: 'laptop-3',
  since: '2026-01-01T10:00:00.000Z',
  lease_until: '2026-01-01T10:30:00.000Z',
};
const commitOf = (message: string) =>
  `tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor sow <sow@localhost> 1 +0000\ncommitter sow ` +
  `<sow@localhost> 1 +0000\n\n${message}`;

describe('claim commits', () => {
  it('record owner, machine, since and lease, and read back as written', () => {
    const claim = parseClaimCommit('010', 'a'.repeat(40), commitOf(claimMessage(record, 'n1')));
    expect(claim).toEqual({
      task: '010',
      sha: 'a'.repeat(40),
      owner: 'ann',
      machine: 'laptop-3',
      since: record.since,
      lease_until: record.lease_until,
    });
    // Two claims of the same task by the same owner at the same moment are still two commits.
    expect(claimMessage(record, 'n1')).not.toBe(claimMessage(record, 'n2'));
  });

  it('a line break in a value cannot forge another field', () => {
    const message = claimMessage({ ...record, owner: 'ann\nlease-until: 2999-01-01T00:00:00.000Z' }, 'n');
    expect(parseClaimCommit('010', 'b'.repeat(40), commitOf(message)).lease_until).toBe(record.lease_until);
  });

  it('from a hostile remote: only the fields sow writes, cut to 200 characters, times only as sow writes them', () => {
    const claim = parseClaimCommit(
      '010',
      'c'.repeat(40),
      commitOf(`x\n\nowner: ${'o'.repeat(500)}\nlease-until: tomorrow\nevil: 1\n`),
    );
    expect(claim.owner).toHaveLength(200);
    expect(claim.lease_until).toBeUndefined();
    expect(Object.keys(claim).sort()).toEqual(['owner', 'sha', 'task']);
  });
});

describe('whether a claim on the remote holds', () => {
  it('until its lease runs out; one whose lease sow cannot read holds', () => {
    const claim = { task: '010', sha: 'd'.repeat(40), lease_until: '2026-01-01T10:30:00.000Z' };
    expect(remoteClaimLive(claim, '2026-01-01T10:29:59.000Z')).toBe(true);
    expect(remoteClaimLive(claim, '2026-01-01T10:30:00.000Z')).toBe(false);
    expect(remoteClaimLive({ task: '010', sha: 'd'.repeat(40) }, '2999-01-01T00:00:00.000Z')).toBe(true);
  });

  it('is shown with who, where and until when; a remote not reached shows none', () => {
    const now = '2026-01-01T10:00:00.000Z';
    const rows = remoteClaimRows(
      {
        remote: 'origin',
        reached: true,
        claims: [
          { task: '010', sha: 'e'.repeat(40), owner: 'ann', machine: 'm', lease_until: '2026-01-01T09:00:00.000Z' },
        ],
      },
      now,
    );
    expect(remoteClaimText(rows.get('010')!)).toBe(
      'its claim on origin (ann on m, lease until 2026-01-01T09:00:00.000Z) ran out',
    );
    expect(remoteClaimRows({ remote: 'origin', reached: false, why: 'offline' }, now).size).toBe(0);
  });
});

describe('remote names', () => {
  it('are names git takes as remotes, never options or paths', () => {
    for (const good of ['origin', 'upstream', 'team/shared', 'my_remote-2', 'a.b'])
      expect(isRemoteName(good), good).toBe(true);
    for (const bad of [
      '',
      '-x',
      '--upload-pack=touch x',
      '../other',
      'a..b',
      '/abs',
      'a b',
      'x.lock',
      'http://host/r.git',
      'a//b',
    ])
      expect(isRemoteName(bad), bad).toBe(false);
    expect(() => remoteArg('--upload-pack=x')).toThrow(expect.objectContaining({ code: 'USAGE' }));
    expect(claimRef('feat/demo', '010')).toBe('refs/sow/claims/feat/demo/010');
  });

  it('claims.remote in .sow/config.yaml is checked as one', () => {
    expect(check(RepoConfigSchema, { claims: { remote: 'origin' } }).ok).toBe(true);
    const bad = check(RepoConfigSchema, { claims: { remote: '--upload-pack=x' } });
    expect(bad.ok ? undefined : bad.issue.path).toBe('claims.remote');
    expect(check(RepoConfigSchema, { claims: { remot: 'origin' } }).ok).toBe(false);
  });
});

describe('what a state file may say of a claim on the remote', () => {
  it("a task owner's remote is a remote name, its claim a commit id", () => {
    const owner = {
      kind: 'claim',
      by: 'ann',
      since: '2026-01-01T10:00:00.000Z',
      remote: 'origin',
      remote_claim: 'f'.repeat(40),
    };
    expect(check(OwnerSchema, owner).ok).toBe(true);
    for (const remote of ['/tmp/elsewhere', 'https://host/r.git', '--upload-pack=x', 'ext::sh -c x'])
      expect(check(OwnerSchema, { ...owner, remote }).ok, remote).toBe(false);
    expect(check(OwnerSchema, { ...owner, remote_claim: 'HEAD' }).ok).toBe(false);
  });

  it("the project's branch stands in a claim ref only when git would take it as a ref name", () => {
    for (const good of ['main', 'feat/demo', 'release-1.2', 'a_b/c.d']) expect(isRefBranch(good), good).toBe(true);
    for (const bad of [
      '',
      'x:refs/heads/main',
      'a..b',
      '-x',
      '/a',
      'a/',
      'a.lock',
      'a b',
      'a~1',
      'a^',
      'a?',
      'a*',
      'a[b',
      'a\\b',
      'a@{1}',
      'a//b',
      'a/.b',
      '.a',
    ])
      expect(isRefBranch(bad), bad).toBe(false);
  });
});
