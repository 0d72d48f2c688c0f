/**
 * The project use cases in-process: project new, status and continue, phase outputs (add, set),
 * phase set, advance (with --dry-run), and the log — with a fixed clock, so every timestamp they
 * write is known, and the environment of the user or of a worker.
 */
import { describe, expect, it } from 'vitest';
import { PROJECT, refused, said, T0, TASK_LIST, taskFile, toExecuting, worlds } from '../../test/inproc.js';
import { advanceProject, listAdvanceOptions } from './advance.js';
import { addArtifact, setArtifact } from './artifacts.js';
import { appendLog } from './log.js';
import { setPhaseField } from './phase.js';
import { newProject, projectHistory } from './project.js';
import { continueProject, projectStatus } from './status.js';

const world = worlds({
  planning: async (w) => {
    await newProject(w.ctx(), { name: 'demo', description: 'A demo project', planning: true });
  },
  executing: (w) => toExecuting(w, ['A', 'B']),
});

describe('project new', () => {
  it(
    'on main: creates feat/<name>, records the base branch, ' + 'starts in PlanningActive at the clock’s time',
    async () => {
      const w = await world('init');
      const r = await newProject(w.ctx(), { name: 'demo', description: 'A demo project', planning: true });
      expect(r).toMatchObject({ branch: 'feat/demo', createdBranch: true, switchedBranch: true });
      expect(w.git(['branch', '--show-current'])).toBe('feat/demo');
      const p = w.yaml(PROJECT);
      expect(p).toMatchObject({
        name: 'demo',
        type: 'standard',
        branch: 'feat/demo',
        base_branch: 'main',
        created_at: T0,
        updated_at: T0,
        statechart: { current_state: 'PlanningActive' },
      });
      expect(p.statechart.history).toEqual([expect.objectContaining({ event: 'project_init', at: T0, by: 'user' })]);
    },
  );

  it('a worker that starts a project is recorded as who moved the state machine', async () => {
    const w = await world('init');
    await newProject(w.as('planner-2'), { name: 'demo', description: 'd', planning: true });
    expect(w.yaml(PROJECT).statechart.history[0]).toMatchObject({ event: 'project_init', by: 'planner-2' });
  });

  it('refuses a second project, an invalid branch name, and a name that is not one, changing nothing', async () => {
    const w = await world('planning');
    await refused(
      w,
      () => newProject(w.ctx(), { name: 'other', description: 'd', planning: true }),
      'PROJECT_EXISTS',
      1,
    );
    const fresh = await world('init');
    await refused(
      fresh,
      () => newProject(fresh.ctx(), { name: 'x', description: 'd', planning: true, branch: 'a..b' }),
      'INVALID_NAME',
      2,
    );
    await refused(
      fresh,
      () => newProject(fresh.ctx(), { name: 'Not A Name', description: 'd', planning: true }),
      'INVALID_NAME',
    );
  });

  it('--no-planning for a type the branch implies that cannot skip it: refused on the branch it ran on', async () => {
    const w = await world('init');
    const e = await refused(
      w,
      () => newProject(w.ctx(), { name: 'x', description: 'd', planning: false, branch: 'explore/x' }),
      'USAGE',
      2,
    );
    expect(e.message).toContain('exploration project type cannot skip planning');
    expect(w.git(['branch', '--show-current'])).toBe('main');
    expect(w.git(['branch', '--list', 'explore/x'])).toBe('');
  });

  it('without a planning phase: starts at ImplementationPlanning', async () => {
    const w = await world('init');
    await newProject(w.ctx(), { name: 'quick', description: 'd', planning: false });
    expect(w.yaml(PROJECT).statechart.current_state).toBe('ImplementationPlanning');
  });
});

describe('outputs, phase set and advance', () => {
  it(
    'walks planning to implementation: output add, approve, advance (dry run first), tasks_approved; history ' +
      'stamped with the clock',
    async () => {
      const w = await world('planning');
      const ctx = w.ctx();
      const blocked = said(await refused(w, () => advanceProject(ctx, undefined, false), 'TRANSITION_BLOCKED', 3));
      expect(blocked).toContain('task_list');
      w.write(TASK_LIST, '# Tasks\n');
      w.clock.advance(60);
      const added = await addArtifact(ctx, { kind: 'phase' }, 'outputs', {
        type: 'task_list',
        path: 'planning/tasks.md',
        extra: {},
      });
      expect(added).toEqual({
        index: 0,
        artifact: {
          type: 'task_list',
          path: 'planning/tasks.md',
          approved: false,
          created_at: '2026-11-26T10:01:00.000Z',
        },
      });
      await setArtifact(ctx, { kind: 'phase' }, 'outputs', 0, 'approved', 'true');
      expect((await listAdvanceOptions(ctx)).transitions).toEqual([
        expect.objectContaining({ to: 'ImplementationPlanning', blocked: false }),
      ]);
      const dry = await advanceProject(ctx, undefined, true);
      expect(dry).toMatchObject({ from: 'PlanningActive', to: 'ImplementationPlanning', dryRun: true });
      expect(w.yaml(PROJECT).statechart.current_state, 'a dry run moves nothing').toBe('PlanningActive');
      w.clock.advance(60);
      expect(await advanceProject(ctx, undefined, false)).toMatchObject({
        from: 'PlanningActive',
        to: 'ImplementationPlanning',
        dryRun: false,
        projectRemoved: false,
      });
      // The tasks are approved once they exist.
      await refused(w, () => setPhaseField(ctx, 'tasks_approved', 'true'), 'NO_TASKS_TO_APPROVE', 3);
      const { addTask } = await import('./task.js');
      await addTask(ctx, { name: 'One', agent: 'implementer' });
      const r = await setPhaseField(ctx, 'tasks_approved', 'true');
      expect(r).toEqual({ phase: 'implementation', field: 'metadata.tasks_approved', value: true });
      const history = await projectHistory(ctx);
      expect(history.map((h) => [h.event, h.at])).toEqual([
        ['project_init', T0],
        ['complete_planning', '2026-11-26T10:02:00.000Z'],
      ]);
    },
  );

  it('approving a document that does not exist is refused, and nothing changes', async () => {
    const w = await world('planning');
    await addArtifact(w.ctx(), { kind: 'phase' }, 'outputs', {
      type: 'task_list',
      path: 'planning/tasks.md',
      extra: {},
    });
    await refused(
      w,
      () => setArtifact(w.ctx(), { kind: 'phase' }, 'outputs', 0, 'approved', 'true'),
      'ARTIFACT_FILE_MISSING',
      1,
    );
    await refused(
      w,
      () => setArtifact(w.ctx(), { kind: 'phase' }, 'outputs', 5, 'approved', 'true'),
      'INDEX_OUT_OF_RANGE',
    );
  });
});

describe('history', () => {
  it(
    'records who fired each transition and when, by the clock: a worker by its agent id and session, else the user; ' +
      'a dry run or a refusal records nothing',
    async () => {
      const w = await world('planning');
      w.write(TASK_LIST, '# Tasks\n');
      await addArtifact(w.ctx(), { kind: 'phase' }, 'outputs', {
        type: 'task_list',
        path: 'planning/tasks.md',
        approved: 'true',
        extra: {},
      });
      w.clock.set('2026-11-26T11:00:00.000Z');
      await advanceProject(w.ctx({ SOW_AGENT_ID: 'planner-1', SOW_SESSION_ID: 'sess-1' }), undefined, false);
      const { addTask } = await import('./task.js');
      await addTask(w.ctx(), { name: 'One', agent: 'implementer' });
      await setPhaseField(w.ctx(), 'tasks_approved', 'true');
      w.clock.set('2026-11-26T12:00:00.000Z');
      await advanceProject(w.ctx(), undefined, true);
      w.clock.set('2026-11-26T13:00:00.000Z');
      await advanceProject(w.ctx(), undefined, false);
      const history = [
        { from: 'NoProject', to: 'PlanningActive', event: 'project_init', at: T0, by: 'user' },
        {
          from: 'PlanningActive',
          to: 'ImplementationPlanning',
          event: 'complete_planning',
          at: '2026-11-26T11:00:00.000Z',
          by: 'planner-1',
          session: 'sess-1',
        },
        {
          from: 'ImplementationPlanning',
          to: 'ImplementationExecuting',
          event: 'tasks_approved',
          at: '2026-11-26T13:00:00.000Z',
          by: 'user',
        },
      ];
      expect(await projectHistory(w.ctx())).toEqual(history);
      await refused(w, () => advanceProject(w.ctx(), undefined, false), 'TRANSITION_BLOCKED', 3);
      await refused(w, () => advanceProject(w.ctx(), 'review_pass', false), 'INVALID_EVENT', 1);
      expect(w.yaml(PROJECT).statechart.history).toEqual(history);
    },
  );
});

describe('project status and continue', () => {
  it('status counts the tasks and lists the next moves; continue renders the prompt of the state', async () => {
    const w = await world('executing');
    const s = await projectStatus(w.ctx());
    expect(s).toMatchObject({
      name: 'demo',
      state: 'ImplementationExecuting',
      branch: 'feat/demo',
      base_branch: 'main',
      tasks: { total: 2, by_status: { pending: 2 } },
    });
    expect(s.tasks.unattended).toBeUndefined();
    const c = await continueProject(w.ctx());
    expect(c.state).toBe('ImplementationExecuting');
    expect(c.prompt).toContain('# sow: demo — ImplementationExecuting');
  });

  it('a claim whose lease ran out, by the clock: status says nobody works on the task any more', async () => {
    const w = await world('executing');
    const { claimNext } = await import('./task.js');
    await claimNext(w.ctx(), { owner: 'ci-7', leaseSeconds: 60 });
    expect((await projectStatus(w.ctx())).tasks.unattended).toBeUndefined();
    w.clock.advance(60);
    expect((await projectStatus(w.ctx())).tasks.unattended).toEqual([
      expect.objectContaining({
        id: '010',
        worker: { state: 'gone', kind: 'claim', by: 'ci-7', why: 'lease_expired' },
      }),
    ]);
  });

  it('continue without a project: the NoProject prompt', async () => {
    const w = await world('init');
    expect((await continueProject(w.ctx())).state).toBe('NoProject');
  });
});

describe('log', () => {
  it(
    'a worker logs as itself to its task (SOW_TASK_ID), ' + 'and the files it names become outputs of the task',
    async () => {
      const w = await world('executing');
      w.write('src/a.ts', 'export {};\n');
      w.clock.set('2026-11-27T09:00:00.000Z');
      const r = await appendLog(w.as('implementer-1', '010'), {
        action: 'created_file',
        result: 'success',
        files: ['src/a.ts'],
        project: false,
        notes: 'made a',
      });
      expect(r).toEqual({
        file: '.sow/project/phases/implementation/tasks/010/log.md',
        task: '010',
        agent: 'implementer-1',
        files: ['src/a.ts'],
        tracked: ['src/a.ts'],
      });
      expect(w.yaml(taskFile('010')).outputs).toEqual([
        { type: 'modified', path: 'src/a.ts', created_at: '2026-11-27T09:00:00.000Z' },
      ]);
      expect(w.read(r.file)).toContain(
        'timestamp: "2026-11-27T09:00:00.000Z"\nagent: implementer-1\naction: created_file\nresult: ' +
          'success\nfiles:\n  - src/a.ts\n---\n\nmade a\n',
      );
    },
  );

  it('a file named from a subfolder is relative to it; one outside the repository is refused', async () => {
    const w = await world('executing');
    w.write('src/b.ts', 'export {};\n');
    const r = await appendLog(w.ctx({}, 'src'), {
      action: 'note',
      result: 'success',
      files: ['b.ts'],
      task: '020',
      project: false,
      notes: '',
    });
    expect(r.files).toEqual(['src/b.ts']);
    await refused(
      w,
      () =>
        appendLog(w.ctx(), {
          action: 'note',
          result: 'success',
          files: ['/etc/hostname'],
          task: '020',
          project: false,
          notes: '',
        }),
      'PATH_OUTSIDE_REPOSITORY',
      1,
    );
  });

  it('the user logs to the project; saying neither where nor a worker’s task is a usage error', async () => {
    const w = await world('executing');
    expect(
      (await appendLog(w.ctx(), { action: 'note', result: 'success', files: [], project: true, notes: 'hi' })).agent,
    ).toBe('user');
    await refused(
      w,
      () => appendLog(w.ctx(), { action: 'note', result: 'success', files: [], project: false, notes: 'hi' }),
      'USAGE',
      2,
    );
    await refused(
      w,
      () => appendLog(w.ctx(), { action: 'dance', result: 'success', files: [], project: true, notes: 'hi' }),
      'USAGE',
      2,
    );
  });
});
