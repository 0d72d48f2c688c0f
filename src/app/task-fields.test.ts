/**
 * `task set` and `task get` in-process: status timestamps by the clock, typed fields, metadata by
 * name or dotted path, and the values and fields refused. What the command line prints (get's
 * bare value, the --json envelope) is test/e2e/commands.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { refused, taskFile, toExecuting, worlds } from '../../test/inproc.js';
import { getTask, listTasks } from './task.js';
import { setTaskField } from './task-change.js';

const world = worlds({ two: (w) => toExecuting(w, ['First task', 'Second task']) });

describe('task set/get', () => {
  it(
    'status timestamps by the clock, typed fields, metadata by name or dotted path; bad values, read-only fields ' +
      'and unknown tasks refused',
    async () => {
      const w = await world('two');
      const ctx = w.ctx();
      const created = w.yaml(taskFile('010'));

      w.clock.set('2026-11-26T11:00:00.000Z');
      await setTaskField(ctx, '010', 'status', 'in_progress');
      let t = w.yaml(taskFile('010'));
      expect(t).toMatchObject({
        status: 'in_progress',
        started_at: '2026-11-26T11:00:00.000Z',
        updated_at: '2026-11-26T11:00:00.000Z',
      });
      expect(t.updated_at).not.toBe(created.updated_at);
      expect(t.completed_at).toBeUndefined();

      w.clock.set('2026-11-26T12:00:00.000Z');
      await setTaskField(ctx, '010', 'status', 'completed');
      t = w.yaml(taskFile('010'));
      expect(t).toMatchObject({
        status: 'completed',
        started_at: '2026-11-26T11:00:00.000Z',
        completed_at: '2026-11-26T12:00:00.000Z',
      });
      expect((await listTasks(ctx))[0]).toMatchObject({ id: '010', status: 'completed' });

      // Reopened (a completed task stays completed unless forced): no longer completed.
      await setTaskField(ctx, '010', 'status', 'in_progress', { force: true });
      t = w.yaml(taskFile('010'));
      expect(t.completed_at).toBeUndefined();
      expect(t.started_at).toBe('2026-11-26T11:00:00.000Z');

      await setTaskField(ctx, '010', 'iteration', '2');
      await setTaskField(ctx, '010', 'priority', 'high');
      await setTaskField(ctx, '010', 'metadata.review.round', '2');
      await setTaskField(ctx, '010', 'review.blocking', 'false');
      await setTaskField(ctx, '010', 'assigned_agent', 'reviewer');
      t = w.yaml(taskFile('010'));
      expect(t.iteration).toBe(2);
      expect(t.assigned_agent).toBe('reviewer');
      expect(t.metadata).toEqual({ priority: 'high', review: { round: 2, blocking: false } });
      expect((await listTasks(ctx))[0]!.assigned_agent).toBe('reviewer');
      // Id 10 finds task 010.
      expect((await getTask(ctx, '10', 'assigned_agent')).value).toBe('reviewer');

      const get = async (id: string, field: string) => (await getTask(ctx, id, field)).value;
      expect(await get('010', 'status')).toBe('in_progress');
      expect(await get('010', 'iteration')).toBe(2);
      expect(await get('010', 'priority')).toBe('high');
      expect(await get('010', 'metadata.review.round')).toBe(2);
      expect(await get('010', 'review.blocking')).toBe(false);
      expect(await get('020', 'name')).toBe('Second task');
      expect((await getTask(ctx, '020')).task).toMatchObject({
        id: '020',
        name: 'Second task',
        status: 'pending',
        iteration: 1,
      });

      await refused(w, () => setTaskField(ctx, '010', 'status', 'done'), 'INVALID_VALUE', 1);
      await refused(w, () => setTaskField(ctx, '010', 'iteration', '0'), 'INVALID_VALUE', 1);
      await refused(w, () => setTaskField(ctx, '010', 'id', '011'), 'READ_ONLY_FIELD', 1);
      const missing = await refused(w, () => setTaskField(ctx, '999', 'status', 'completed'), 'TASK_NOT_FOUND', 1);
      expect(missing.message).toContain("'999'");
      expect(missing.hint).toContain('sow task list');
      await refused(w, () => getTask(ctx, '999', 'status'), 'TASK_NOT_FOUND', 1);
    },
  );
});

// Moved from test/e2e/faults.test.ts, which keeps three of them as the command line prints them.
describe('odd numbers', () => {
  it('integers beyond 2^53, -0 and numbers with leading zeros come back exactly as set', async () => {
    const w = await world('two');
    const values: [string, unknown][] = [
      ['9999999999999999', '9999999999999999'],
      ['9007199254740993', '9007199254740993'],
      ['-9007199254740993', '-9007199254740993'],
      ['9007199254740991', 9007199254740991],
      ['-0', '-0'],
      ['007', '007'],
      ['1e3', '1e3'],
      ['0x10', '0x10'],
      ['12', 12],
      ['-12', -12],
      ['0', 0],
    ];
    for (const [i, [raw]] of values.entries()) await setTaskField(w.ctx(), '010', `metadata.n${i}`, raw);
    for (const [i, [raw, expected]] of values.entries()) {
      const { value } = await getTask(w.ctx(), '010', `metadata.n${i}`);
      expect(value, raw).toEqual(expected);
      expect(String(value), raw).toBe(raw);
    }
  });
});
