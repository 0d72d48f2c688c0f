/**
 * The plan of a change of a task, decided from values alone: whether it is a completion, which
 * checks it runs, what it writes, or its refusal (the app tests cover reading and writing it).
 */
import { describe, expect, it } from 'vitest';
import type { Check } from './config-schemas.js';
import type { Owner, TaskState, TaskSummary } from './schemas.js';
import type { Holder } from './ownership.js';
import { T, task as taskOf } from '../../test/merge-fixtures.js';
import { planTaskChange, type ChangeRequest, type ChangeView } from './task-change.js';

const task = (over: Record<string, unknown> = {}) => taskOf(over) as unknown as TaskState;
const unit: Check = { name: 'unit', run: 'npm test', when: ['task_complete'] };
const claim = (by: string): Owner => ({ kind: 'claim', by, since: T(1), lease_until: T(59) }) as Owner;

function view(
  over: Omit<Partial<ChangeView>, 'holder'> & { holder?: Holder; deps?: TaskSummary[]; declared?: Check[] } = {},
) {
  const asked: string[] = [];
  const { holder, deps, declared, ...rest } = over;
  const v: ChangeView = {
    task: task({ status: 'in_progress' }),
    actor: { by: 'ann' },
    now: T(9),
    holder: () => holder,
    dependenciesOf: async () => (asked.push('dependencies'), deps ?? []),
    tasks: async () => (asked.push('tasks'), []),
    checks: async () => (asked.push('checks'), declared ?? [unit]),
    ...rest,
  };
  return { v, asked };
}
const set = (field: string, raw: string, more: Partial<ChangeRequest> = {}): ChangeRequest => ({ field, raw, ...more });

describe('planning a change of a task', () => {
  it('a completion runs its task_complete checks first', async () => {
    const plan = await planTaskChange(view().v, set('status', 'completed'));
    expect(plan).toMatchObject({ id: '010', field: 'status', value: 'completed', write: true });
    expect(plan.checks).toEqual({ skip: false, declared: [unit] });
    expect(plan.task).toMatchObject({ status: 'completed', completed_at: T(9) });
  });

  it('--force records the checks as skipped; none declared: no checks', async () => {
    expect((await planTaskChange(view().v, set('status', 'completed', { force: true }))).checks).toEqual({
      skip: true,
      declared: [unit],
    });
    expect((await planTaskChange(view({ declared: [] }).v, set('status', 'completed'))).checks).toBeUndefined();
  });

  it('no other change reads the checks or runs them', async () => {
    for (const [field, raw] of [
      ['status', 'needs_review'],
      ['status', 'abandoned'],
      ['name', 'Renamed'],
      ['metadata.note', 'completed'],
      ['state', 'completed'],
    ] as const) {
      const { v, asked } = view();
      expect((await planTaskChange(v, set(field, raw))).checks).toBeUndefined();
      expect(asked).not.toContain('checks');
    }
  });

  it('a task completed already is unchanged: nothing written, no check run, nothing else read', async () => {
    const { v, asked } = view({ task: task({ status: 'completed', completed_at: T(2) }) });
    const plan = await planTaskChange(v, set('status', 'completed'));
    expect(plan).toMatchObject({ unchanged: true, write: false, task: v.task });
    expect(plan.checks).toBeUndefined();
    expect(asked).toEqual([]);
  });

  it('refuses before any check: a holder (TASK_HELD), a retired identity (NOT_OWNER), open dependencies', async () => {
    const held = view({ holder: { where: 'here', owner: claim('bob') } });
    await expect(planTaskChange(held.v, set('status', 'completed'))).rejects.toMatchObject({ code: 'TASK_HELD' });
    const retired = view({ task: task({ status: 'in_progress', retired_owners: ['ann'] }) });
    await expect(planTaskChange(retired.v, set('status', 'completed'))).rejects.toMatchObject({ code: 'NOT_OWNER' });
    const blocked = view({
      task: task({ status: 'in_progress', dependencies: ['005'] }),
      deps: [{ id: '005', status: 'in_progress' } as TaskSummary],
    });
    await expect(planTaskChange(blocked.v, set('status', 'completed'))).rejects.toMatchObject({
      code: 'TASK_BLOCKED',
    });
    expect(held.asked).not.toContain('checks');
  });

  it('--force takes the task over: the holder here is retired, the takeover planned for its log', async () => {
    const holder: Holder = { where: 'here', owner: claim('bob') };
    const { v } = view({ holder, task: task({ status: 'in_progress', owner: claim('bob') }) });
    const plan = await planTaskChange(v, set('status', 'completed', { force: true }));
    expect(plan.takeover).toEqual({ holder, what: 'set status completed' });
    expect(plan.task.owner).toBeUndefined();
    expect(plan.task.retired_owners).toEqual(['bob']);
  });

  it('finishing a task claimed on a remote gives the claim back; its claimant pausing it lets it go', async () => {
    const mine = { ...claim('ann'), remote: 'origin', remote_claim: 'abc' } as Owner;
    const done = await planTaskChange(
      view({ task: task({ status: 'in_progress', owner: mine }) }).v,
      set('status', 'completed'),
    );
    expect(done.release).toEqual({ owner: mine, quiet: false });
    const paused = await planTaskChange(
      view({ task: task({ status: 'in_progress', owner: mine }), actor: { by: 'x', owner: 'ann' } }).v,
      set('status', 'paused'),
    );
    expect(paused.release).toEqual({ owner: mine, quiet: true });
    expect(paused.task.owner).toBeUndefined();
  });

  it('a description is a document beside the state: the state is written only when a takeover changed it', async () => {
    const plan = await planTaskChange(view().v, set('description', 'Do it well'));
    expect(plan).toMatchObject({ write: false, description: '# one\n\nDo it well\n' });
  });
});
