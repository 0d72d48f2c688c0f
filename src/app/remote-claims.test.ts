/**
 * Claims through the remote in-process, where the end-to-end tests cannot wait: the process that
 * waits for a worker renews its claim on the remote on a timer, and what one look does is tested
 * here with a clock the test moves. The remote is a bare repository.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PROJECT, T0, taskFile, toExecuting, worlds, type World } from '../../test/inproc.js';
import { claimRef } from '../domain/claims.js';
import { makeClaimCommit, pushClaim, thisMachine } from '../adapters/remote-claims.js';
import { renewWorkerClaim } from './workers/settle.js';
import { workerOwner } from './ownership.js';
import { remoteLeaseFrom } from '../domain/ownership.js';
import { update } from './workspace.js';

const world = worlds({ executing: (w) => toExecuting(w, ['First task']) });

const remotes: string[] = [];
afterEach(() => {
  for (const d of remotes.splice(0)) rmSync(d, { recursive: true, force: true });
});

const gitAt = (cwd: string, args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

/**
 * Task 010 worked on by implementer-1, a worker this process waits for, holding its claim on a bare remote as a
 * spawn records it.
 */
async function workerHoldingClaim(w: World): Promise<{ remote: string; ref: string; sha: string }> {
  const remote = mkdtempSync(join(tmpdir(), 'sow-inproc-remote-'));
  remotes.push(remote);
  gitAt(remote, ['init', '-q', '--bare']);
  w.git(['remote', 'add', 'origin', remote]);
  w.write('.sow/config.yaml', 'claims:\n  remote: origin\n');
  const ref = claimRef(w.yaml(PROJECT).branch, '010');
  const now = w.clock.now();
  const leaseUntil = remoteLeaseFrom(now);
  const sha = makeClaimCommit(w.dir, {
    task: '010',
    owner: 'implementer-1',
    machine: thisMachine(),
    since: now,
    lease_until: leaseUntil,
  });
  expect(await pushClaim(w.dir, 'origin', ref, sha, null)).toEqual({ kind: 'done' });
  await update(w.ctx(), async (uow) => {
    const task = await uow.task('010');
    uow.setTask({
      ...task,
      status: 'in_progress',
      owner: {
        ...workerOwner('implementer-1', undefined, now),
        remote: 'origin',
        remote_claim: sha,
        remote_lease_until: leaseUntil,
      },
    });
  });
  return { remote, ref, sha };
}

describe("a worker's claim on the remote, renewed by the process that waits for it", () => {
  it(
    'is renewed once half of its lease there has passed, with a lease from now; not before, and never for ' +
      'another worker',
    async () => {
      const w = await world('executing');
      const { remote, ref, sha } = await workerHoldingClaim(w);
      const at = () => gitAt(remote, ['rev-parse', ref]);
      w.clock.advance(14 * 60);
      const before = w.snapshot();
      expect(await renewWorkerClaim(w.ctx(), '010', 'implementer-1')).toBe(false);
      w.clock.advance(2 * 60);
      expect(await renewWorkerClaim(w.ctx(), '010', 'implementer-2')).toBe(false);
      expect(at()).toBe(sha);
      expect(w.snapshot()).toEqual(before);
      // 16 minutes in: less than half of the 30 minutes is left.
      expect(await renewWorkerClaim(w.ctx(), '010', 'implementer-1')).toBe(true);
      const owner = w.yaml(taskFile('010')).owner;
      const lease = new Date(Date.parse(T0) + 46 * 60_000).toISOString();
      expect(owner).toMatchObject({
        kind: 'worker',
        by: 'implementer-1',
        pid: process.pid,
        remote: 'origin',
        remote_lease_until: lease,
      });
      expect(owner.remote_claim).not.toBe(sha);
      expect(at()).toBe(owner.remote_claim);
      expect(gitAt(remote, ['cat-file', 'commit', owner.remote_claim])).toContain(`lease-until: ${lease}\n`);
    },
  );

  it('a remote not reached leaves the state as it was; the next look tries again', async () => {
    const w = await world('executing');
    const { remote, ref, sha } = await workerHoldingClaim(w);
    w.git(['remote', 'set-url', 'origin', join(remote, 'gone.git')]);
    w.clock.advance(20 * 60);
    const before = w.snapshot();
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(await renewWorkerClaim(w.ctx(), '010', 'implementer-1')).toBe(false);
      expect(stderr.mock.calls.map(([text]) => String(text)).join('')).toMatch(
        new RegExp(
          /^warning: the claim of task 010 was not renewed: the remote 'origin' was not reached \(.*\); /.source +
            /it is tried again in a few minutes\n$/.source,
        ),
      );
    } finally {
      stderr.mockRestore();
    }
    expect(w.snapshot()).toEqual(before);
    w.git(['remote', 'set-url', 'origin', remote]);
    expect(await renewWorkerClaim(w.ctx(), '010', 'implementer-1')).toBe(true);
    expect(gitAt(remote, ['rev-parse', ref])).not.toBe(sha);
  });

  it(
    'is pushed with no lock held: a remote slow to answer holds up no write here, and the new commit is ' +
      'recorded after',
    async () => {
      const w = await world('executing');
      const { remote, ref, sha } = await workerHoldingClaim(w);
      const held = join(remote, 'held');
      const release = join(remote, 'release');
      writeFileSync(
        join(remote, 'hooks', 'pre-receive'),
        `#!/bin/sh\ntouch '${held}'\ni=0\nwhile [ ! -e '${release}' ] && [ $i -lt 3000 ]; do sleep 0.1; i=$((i+1)); ` +
          `done\nexit 0\n`,
        { mode: 0o755 },
      );
      w.clock.advance(20 * 60);
      const renewal = renewWorkerClaim(w.ctx(), '010', 'implementer-1');
      while (!existsSync(held)) await new Promise((r) => setTimeout(r, 20));
      // Another write while the push waits: it would wait for the lock (and give up) if the push held it.
      const timeout = process.env['SOW_LOCK_TIMEOUT'];
      process.env['SOW_LOCK_TIMEOUT'] = '5';
      try {
        await update(w.ctx(), async (uow) => uow.setTask({ ...(await uow.task('010')), name: 'Renamed meanwhile' }));
      } finally {
        if (timeout === undefined) delete process.env['SOW_LOCK_TIMEOUT'];
        else process.env['SOW_LOCK_TIMEOUT'] = timeout;
        writeFileSync(release, '');
      }
      expect(await renewal).toBe(true);
      const task = w.yaml(taskFile('010'));
      expect(task.name).toBe('Renamed meanwhile');
      expect(task.owner.remote_claim).not.toBe(sha);
      expect(gitAt(remote, ['rev-parse', ref])).toBe(task.owner.remote_claim);
    },
  );

  it('a renewal whose claim the state no longer records (let go meanwhile) is given back, not recorded', async () => {
    const w = await world('executing');
    const { remote, ref } = await workerHoldingClaim(w);
    w.clock.advance(20 * 60);
    const held = join(remote, 'held');
    const release = join(remote, 'release');
    writeFileSync(
      join(remote, 'hooks', 'pre-receive'),
      `#!/bin/sh\n[ -e '${held}' ] && exit 0\ntouch '${held}'\ni=0\nwhile [ ! -e '${release}' ] && [ $i -lt 3000 ` +
        `]; do sleep 0.1; i=$((i+1)); done\nexit 0\n`,
      { mode: 0o755 },
    );
    const renewal = renewWorkerClaim(w.ctx(), '010', 'implementer-1');
    while (!existsSync(held)) await new Promise((r) => setTimeout(r, 20));
    await update(w.ctx(), async (uow) => {
      const task = { ...(await uow.task('010')) };
      delete task.owner;
      uow.setTask(task);
    });
    writeFileSync(release, '');
    expect(await renewal).toBe(false);
    expect(w.yaml(taskFile('010')).owner).toBeUndefined();
    expect(() => gitAt(remote, ['rev-parse', '--verify', '-q', ref])).toThrow();
  });
});
