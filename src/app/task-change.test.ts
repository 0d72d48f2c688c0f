/**
 * A change of a task is written only on the state it was planned from: a write that finds a file
 * the plan read changed since (another writer came in between) is refused whole, and the task is
 * read and planned again, so what the other writer did is not written over.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { taskFile, toExecuting, worlds, type World } from '../../test/inproc.js';
import * as transaction from '../adapters/transaction.js';
import * as remoteClaims from './remote-claims.js';
import { claimNext } from './task.js';
import { setTaskField } from './task-change.js';

const world = worlds({ two: (w) => toExecuting(w, ['A', 'B']) });

/** Before the first write of this change, `meanwhile` runs: another writer that came in between. */
function raceOnce(meanwhile: () => void): { writes: () => number } {
  const commit = transaction.commitChange;
  let writes = 0;
  vi.spyOn(transaction, 'commitChange').mockImplementation(async (root, change) => {
    if (writes++ === 0) meanwhile();
    return commit(root, change);
  });
  return { writes: () => writes };
}

const rename = (w: World, id: string, name: string) =>
  w.write(taskFile(id), w.read(taskFile(id)).replace(/^name: .*$/m, `name: ${name}`));

afterEach(() => vi.restoreAllMocks());

describe('a change planned on a state that changed before it was written', () => {
  it('is planned again on the state as it is then: both changes stand', async () => {
    const w = await world('two');
    const race = raceOnce(() => rename(w, '010', 'Renamed meanwhile'));
    const r = await setTaskField(w.ctx(), '010', 'status', 'in_progress');
    expect(race.writes()).toBe(2);
    expect(r.task).toMatchObject({ name: 'Renamed meanwhile', status: 'in_progress' });
    expect(w.yaml(taskFile('010'))).toMatchObject({ name: 'Renamed meanwhile', status: 'in_progress' });
  });

  it('a dependency that changed meanwhile counts too: the dependency check is made again', async () => {
    const w = await world('two');
    await setTaskField(w.ctx(), '020', 'dependencies', '010');
    await setTaskField(w.ctx(), '010', 'status', 'completed', { force: true });
    // 010 is taken back to pending between the plan (010 completed: 020 may start) and the write.
    const race = raceOnce(() =>
      w.write(taskFile('010'), w.read(taskFile('010')).replace(/^status: .*$/m, 'status: pending')),
    );
    await expect(setTaskField(w.ctx(), '020', 'status', 'in_progress')).rejects.toMatchObject({
      code: 'TASK_BLOCKED',
    });
    expect(race.writes()).toBe(1);
    expect(w.yaml(taskFile('020')).status).toBe('pending');
  });

  it('a new dependency whose own dependencies changed meanwhile: no circle is closed', async () => {
    const w = await world('two');
    // Between the plan of "020 depends on 010" and its write, 010 comes to depend on 020.
    const race = raceOnce(() =>
      w.write(taskFile('010'), w.read(taskFile('010')).replace(/^dependencies: .*$/m, "dependencies: ['020']")),
    );
    await expect(setTaskField(w.ctx(), '020', 'dependencies', '010')).rejects.toThrow(/circ|cycle/i);
    expect(race.writes()).toBe(1);
    expect(w.yaml(taskFile('020')).dependencies).toEqual([]);
  });

  it('gives up with a clear error when the state changes under every attempt', async () => {
    const w = await world('two');
    const before = w.read(taskFile('010'));
    let writes = 0;
    vi.spyOn(transaction, 'commitChange').mockImplementation(async () => {
      writes++;
      throw new transaction.StaleChangeError('a writer that never stops');
    });
    await expect(setTaskField(w.ctx(), '010', 'status', 'in_progress')).rejects.toMatchObject({
      code: 'STATE_KEEPS_CHANGING',
      hint: expect.stringContaining('retry'),
    });
    expect(writes).toBe(200);
    expect(w.read(taskFile('010'))).toBe(before);
  });
});

describe('a claim on the remote, given back before a write that lost a race', () => {
  it('is given back once: the change planned again does not push again', async () => {
    const w = await world('two');
    await claimNext(w.ctx(), { owner: 'ann' });
    const claimed = w.read(taskFile('010'));
    expect(claimed).toMatch(/^ {2}kind: claim$/m);
    w.write(
      taskFile('010'),
      claimed.replace(/^( {2})kind: claim$/m, `$1kind: claim\n$1remote: origin\n$1remote_claim: ${'a'.repeat(40)}`),
    );
    const release = vi.spyOn(remoteClaims, 'releaseRemoteClaim').mockResolvedValue(undefined);
    const race = raceOnce(() => rename(w, '010', 'Renamed meanwhile'));
    await setTaskField(w.ctx(), '010', 'status', 'completed', { owner: 'ann', force: true });
    expect(race.writes()).toBe(2);
    expect(release).toHaveBeenCalledTimes(1);
    expect(w.yaml(taskFile('010'))).toMatchObject({ name: 'Renamed meanwhile', status: 'completed' });
  });
});
