/**
 * The task use cases in-process: add, set, next, claim, abandon, with a clock the test moves and
 * the environment of whoever acts. The command line around them is test/e2e/ownership.test.ts
 * and test/e2e/lifecycle.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { PROJECT, refused, T0, toImplementationPlanning, taskFile, toExecuting, worlds } from '../../test/inproc.js';
import { appendLog } from './log.js';
import { addTask, claimNext, getTask, listTasks, nextTasks } from './task.js';
import { abandonTask, setTaskField } from './task-change.js';

const world = worlds({
  implementationPlanning: toImplementationPlanning,
  five: (w) => toExecuting(w, ['A', 'B', 'C', 'D', 'E']),
  two: (w) => toExecuting(w, ['A', 'B']),
  one: (w) => toExecuting(w, ['A']),
});

const ids = (rows: readonly { id: string }[]) => rows.map((t) => t.id);

describe('task add and set', () => {
  // Moved from test/e2e/commands.test.ts, which keeps the ids add prints, --json, a refusal on stderr, and --id that is
  // no id (a usage error).
  it(
    'gap-numbered ids, --id, --parallel, --depends-on, --description; each task in its own file, listed in id ' +
      'order; a taken id or an unknown dependency refused',
    async () => {
      const w = await world('implementationPlanning');
      const add = async (opts: Parameters<typeof addTask>[1]) => (await addTask(w.ctx(), opts)).id;
      expect(await add({ name: 'Design the API', agent: 'architect', description: 'Write the OpenAPI spec' })).toBe(
        '010',
      );
      expect(await add({ name: 'Build it' })).toBe('020');
      expect(await add({ name: 'Squeeze in', id: '015', parallel: true })).toBe('015');
      expect(await add({ name: 'Test it', dependsOn: '010,015' })).toBe('030');
      // The list is read from the task files, in id order; the project file keeps no copy of it.
      expect(await listTasks(w.ctx())).toEqual([
        { id: '010', name: 'Design the API', status: 'pending', parallel: false, assigned_agent: 'architect' },
        { id: '015', name: 'Squeeze in', status: 'pending', parallel: true },
        { id: '020', name: 'Build it', status: 'pending', parallel: false },
        { id: '030', name: 'Test it', status: 'pending', parallel: false, dependencies: ['010', '015'] },
      ]);
      expect(w.yaml(PROJECT).phases.implementation.tasks).toBeUndefined();
      expect(w.yaml(taskFile('030'))).toMatchObject({
        id: '030',
        name: 'Test it',
        phase: 'implementation',
        status: 'pending',
        iteration: 1,
        parallel: false,
        dependencies: ['010', '015'],
      });
      expect(w.yaml(taskFile('015')).parallel).toBe(true);
      const dir = '.sow/project/phases/implementation/tasks/010';
      expect(w.read(`${dir}/description.md`)).toContain('Write the OpenAPI spec');
      expect(w.exists(`${dir}/log.md`)).toBe(true);
      expect(w.exists(`${dir}/feedback`)).toBe(true);
      expect(
        (await refused(w, () => addTask(w.ctx(), { name: 'Clash', id: '010' }), 'TASK_ID_TAKEN', 1)).message,
      ).toContain("'010'");
      // --id 10 means 010: taken.
      await refused(w, () => addTask(w.ctx(), { name: 'Clash', id: '10' }), 'TASK_ID_TAKEN', 1);
      await refused(w, () => addTask(w.ctx(), { name: 'Bad dep', dependsOn: '010,999' }), 'TASK_NOT_FOUND', 1);
    },
  );

  it('numbers tasks by tens, stamps them with the clock, and records who changed them', async () => {
    const w = await world('two');
    w.clock.set('2026-12-01T08:00:00.000Z');
    const t = await addTask(w.ctx(), { name: 'Third', dependsOn: '010,020', description: 'Do the third thing' });
    expect(t).toMatchObject({
      id: '030',
      status: 'pending',
      dependencies: ['010', '020'],
      created_at: '2026-12-01T08:00:00.000Z',
    });
    expect(w.read('.sow/project/phases/implementation/tasks/030/description.md')).toBe(
      '# Third\n\nDo the third thing\n',
    );
    w.clock.advance(60);
    await setTaskField(w.ctx(), '30', 'metadata.note', 'looked at it');
    expect(w.yaml(taskFile('030'))).toMatchObject({
      metadata: { note: 'looked at it' },
      updated_at: '2026-12-01T08:01:00.000Z',
    });
    expect((await getTask(w.ctx(), '030', 'description')).value).toBe('# Third\n\nDo the third thing\n');
  });

  it('refuses a dependency on a task that does not exist, and a cycle, leaving the state as it was', async () => {
    const w = await world('two');
    await refused(w, () => addTask(w.ctx(), { name: 'X', dependsOn: '990' }), 'TASK_NOT_FOUND');
    await setTaskField(w.ctx(), '020', 'dependencies', '010');
    await refused(w, () => setTaskField(w.ctx(), '010', 'dependencies', '020'), 'DEPENDENCY_CYCLE');
  });

  // Moved from test/e2e/guards.test.ts, which keeps completed on stderr, the details in --json, and --force.
  it(
    'every status of work is refused while a dependency is pending (exit 3, ' + 'naming it, with the way out)',
    async () => {
      const w = await world('two');
      await setTaskField(w.ctx(), '020', 'dependencies', '010');
      for (const [status, verb] of [
        ['completed', 'cannot be completed'],
        ['needs_review', 'cannot go to review'],
        ['in_progress', 'cannot start'],
        ['paused', 'cannot be paused'],
        ['failed', 'cannot be marked failed'],
      ] as const) {
        const e = await refused(w, () => setTaskField(w.ctx(), '020', 'status', status), 'TASK_BLOCKED', 3);
        const text = `${e.message}\n${e.hint}`;
        expect(text, status).toContain(`task 020 ${verb}: it depends on 010 (pending)`);
        expect(text, status).toContain('finish or abandon 010 first');
        expect(text, status).toContain('--force');
        expect(e.details, status).toMatchObject({
          task: '020',
          status,
          blocked_by: [{ id: '010', status: 'pending' }],
        });
      }
    },
  );

  it('a status change waits for the dependencies; --force overrides it', async () => {
    const w = await world('two');
    await setTaskField(w.ctx(), '020', 'dependencies', '010');
    await refused(w, () => setTaskField(w.ctx(), '020', 'status', 'in_progress'), 'TASK_BLOCKED', 3);
    const r = await setTaskField(w.ctx(), '020', 'status', 'in_progress', { force: true });
    expect(r.task).toMatchObject({ status: 'in_progress', started_at: T0 });
  });

  it('abandon finishes the task; abandoning it again changes nothing', async () => {
    const w = await world('one');
    const first = await abandonTask(w.ctx(), '010');
    expect(first.task).toMatchObject({ status: 'abandoned' });
    const before = w.snapshot();
    expect(await abandonTask(w.ctx(), '010')).toMatchObject({ unchanged: true });
    expect(w.snapshot()).toEqual(before);
  });
});

describe('task next', () => {
  it('lists the ready tasks in id order: pending, every dependency finished, nobody on them', async () => {
    const w = await world('five');
    const ctx = w.ctx();
    await setTaskField(ctx, '030', 'dependencies', '010');
    await setTaskField(ctx, '040', 'dependencies', '020');
    await abandonTask(ctx, '020');
    await setTaskField(ctx, '050', 'status', 'in_progress');
    expect(ids(await nextTasks(ctx)), '030 waits for 010; 040 waited for 020 (abandoned); 050 is in progress').toEqual([
      '010',
      '040',
    ]);
    await setTaskField(ctx, '010', 'status', 'completed');
    expect(ids(await nextTasks(ctx))).toEqual(['030', '040']);
    expect(ids((await listTasks(ctx)).filter((t) => t.status === 'pending'))).toEqual(['030', '040']);
  });
});

describe('task next --claim', () => {
  it(
    'claims the first ready task: in progress, ' + 'owned with a lease from the clock; the next claim takes the next',
    async () => {
      const w = await world('two');
      const r = await claimNext(w.ctx(), { owner: 'w1', agent: 'implementer' });
      expect(r.task).toMatchObject({ id: '010', status: 'in_progress', assigned_agent: 'implementer' });
      expect(w.yaml(taskFile('010')).owner).toEqual({
        kind: 'claim',
        by: 'w1',
        since: T0,
        lease_until: '2026-11-26T10:30:00.000Z',
        lease_seconds: 1800,
      });
      expect((await claimNext(w.ctx(), { owner: 'w2' })).task.id).toBe('020');
      const none = await refused(w, () => claimNext(w.ctx(), { owner: 'w3' }), 'NO_READY_TASK', 1);
      expect(none.message).toContain('2 in progress');
    },
  );

  it('claims under SOW_OWNER, or the worker of the environment; without a name it is a usage error', async () => {
    const w = await world('two');
    await refused(w, () => claimNext(w.ctx()), 'USAGE', 2);
    await claimNext(w.ctx({ SOW_OWNER: 'ci-bot' }));
    expect(w.yaml(taskFile('010')).owner.by).toBe('ci-bot');
    await claimNext(w.as('implementer-3'));
    expect(w.yaml(taskFile('020')).owner.by).toBe('implementer-3');
  });

  it(
    "a lease runs out: the next claim takes the task over, the old owner's writes are refused; an owner's write " +
      'renews its lease',
    async () => {
      const w = await world('two');
      await claimNext(w.ctx(), { owner: 'slow', leaseSeconds: 2 });
      w.clock.advance(1);
      await setTaskField(w.ctx(), '010', 'metadata.progress', 'half', { owner: 'slow' });
      expect(w.yaml(taskFile('010')).owner.lease_until, 'the write renewed the lease').toBe('2026-11-26T10:00:03.000Z');
      expect(ids(await nextTasks(w.ctx())), 'still owned').toEqual(['020']);
      w.clock.advance(1.999);
      expect(ids(await nextTasks(w.ctx())), 'still owned, a millisecond before the lease ends').toEqual(['020']);
      w.clock.advance(0.001);
      expect(ids(await nextTasks(w.ctx())), 'the lease ran out when it ended').toEqual(['010', '020']);
      expect((await claimNext(w.ctx(), { owner: 'fast' })).task.id).toBe('010');
      const task = w.yaml(taskFile('010'));
      expect(task.owner.by).toBe('fast');
      expect(task.retired_owners).toContain('slow');
      const e = await refused(
        w,
        () => setTaskField(w.ctx(), '010', 'status', 'needs_review', { owner: 'slow' }),
        'NOT_OWNER',
        1,
      );
      expect(e.message).toContain('session slow no longer owns task 010');
      await setTaskField(w.ctx(), '010', 'status', 'needs_review', { owner: 'fast' });
    },
  );

  it(
    'changing a claimed task is for its owner; ' + 'anyone else needs --force, and then the owner is locked out',
    async () => {
      const w = await world('one');
      await claimNext(w.ctx(), { owner: 'w1' });
      const changes = [
        () => setTaskField(w.ctx(), '010', 'status', 'completed'),
        () => abandonTask(w.ctx(), '010'),
        () => setTaskField(w.ctx(), '010', 'status', 'needs_review'),
        () => setTaskField(w.ctx(), '010', 'metadata.note', 'looked at it'),
        () => setTaskField(w.ctx(), '010', 'description', 'Do it otherwise'),
      ];
      for (const change of changes) {
        const e = await refused(w, change, 'TASK_HELD', 3);
        expect(e.message).toMatch(
          /^task 010 is held by w1: claimed in this checkout since \S+, lease until \S+; only its holder changes it$/,
        );
        expect(e.hint).toContain('--force');
      }
      // Its owner may.
      await setTaskField(w.ctx(), '010', 'metadata.note', 'mine', { owner: 'w1' });
      await setTaskField(w.ctx(), '010', 'status', 'completed', { force: true });
      const task = w.yaml(taskFile('010'));
      expect(task.status).toBe('completed');
      expect(task.owner).toBeUndefined();
      expect(task.retired_owners).toEqual(['w1']);
      await refused(w, () => setTaskField(w.ctx(), '010', 'status', 'in_progress', { owner: 'w1' }), 'NOT_OWNER');
      const note = { action: 'note', result: 'success', files: [], task: '010', project: false, notes: 'late' };
      await refused(w, () => appendLog(w.ctx({ SOW_OWNER: 'w1' }), note), 'NOT_OWNER', 1);
      // A person (no owner name) still may.
      await appendLog(w.ctx(), { ...note, notes: 'a person adds a note' });
      expect(w.read('.sow/project/phases/implementation/tasks/010/log.md')).toContain('a person adds a note');
    },
  );

  it('the owner itself may finish its task', async () => {
    const w = await world('one');
    await claimNext(w.ctx(), { owner: 'w1' });
    await setTaskField(w.ctx(), '010', 'status', 'completed', { owner: 'w1' });
    expect(w.yaml(taskFile('010'))).toMatchObject({ status: 'completed', completed_at: T0 });
  });
});
