/**
 * The standard lifecycle in-process: the review-fail loop (what a failed review reopens, what it
 * keeps, and which review decides afterwards), a project without planning walked to its end, and
 * which phases run being settled when the project starts. The specification's example, command
 * for command with what each command prints, is test/e2e/lifecycle.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { AppContext } from './context.js';
import { PROJECT, refused, toExecuting, worlds, type World } from '../../test/inproc.js';
import { advanceProject, listAdvanceOptions } from './advance.js';
import { addArtifact, listArtifacts, setArtifact } from './artifacts.js';
import { getPhaseField, setPhaseField } from './phase.js';
import { newProject, projectHistory } from './project.js';
import { projectStatus } from './status.js';
import { addTask, listTasks } from './task.js';
import { setTaskField } from './task-change.js';

const world = worlds({
  two: (w) => toExecuting(w, ['First task', 'Second task']),
  one: (w) => toExecuting(w, ['Only task']),
});

const phase = { kind: 'phase' } as const;

/**
 * The user's context with a clock that moves a second at every reading: a round of review is
 * told from the last by when its artifacts were made, as commands run one after another are.
 */
function ticking(w: World): AppContext {
  return {
    ...w.ctx(),
    now: () => {
      w.clock.advance(1);
      return w.clock.now();
    },
  };
}

/** `sow advance`, expected to move to `to`. */
async function advanceTo(ctx: AppContext, to: string): Promise<void> {
  expect((await advanceProject(ctx, undefined, false)).to).toBe(to);
}

/** `sow advance`, expected to be blocked by a guard (exit 3), changing nothing; returns what it said. */
async function blocked(w: World, ctx: AppContext): Promise<string> {
  const e = await refused(w, () => advanceProject(ctx, undefined, false), 'TRANSITION_BLOCKED', 3);
  expect(e.message).toMatch(/^cannot advance/);
  return `${e.message}\n${e.hint}`;
}

describe('the review-fail loop', () => {
  it(
    'reopens implementation, copies the failed review (keeping it as history), resets approval, and the new ' +
      'approved review decides',
    async () => {
      const w = await world('two');
      const ctx = ticking(w);
      const state = () => w.yaml(PROJECT);
      await setTaskField(ctx, '010', 'status', 'completed');
      await setTaskField(ctx, '020', 'status', 'completed');
      await advanceTo(ctx, 'ReviewActive');

      await addArtifact(ctx, phase, 'outputs', {
        type: 'review',
        path: 'review/report.md',
        extra: { assessment: 'pass' },
      });
      w.write('.sow/project/review/report.md', '# Review\n');
      // The spec's "if review failed" path: change the assessment, then approve.
      expect((await setArtifact(ctx, phase, 'outputs', 0, 'assessment', 'fail')).artifact).toMatchObject({
        approved: false,
        metadata: { assessment: 'fail' },
      });
      await setArtifact(ctx, phase, 'outputs', 0, 'approved', 'true');

      const list = await listAdvanceOptions(ctx);
      expect(list.state).toBe('ReviewActive');
      expect(list.transitions.map((t) => [t.event, t.to, t.blocked])).toEqual([
        ['review_pass', 'FinalizeDocumentation', true],
        ['review_fail', 'ImplementationPlanning', false],
      ]);

      expect(await advanceProject(ctx, undefined, false)).toMatchObject({
        from: 'ReviewActive',
        to: 'ImplementationPlanning',
        event: 'review_fail',
      });
      let s = state();
      expect(s.statechart.current_state).toBe('ImplementationPlanning');
      expect(s.phases.implementation.status).toBe('in_progress');
      expect(s.phases.implementation.completed_at).toBeUndefined();
      expect(s.phases.implementation.iteration).toBe(2);
      expect(s.phases.implementation.metadata.tasks_approved).toBe(false);
      expect(s.phases.implementation.inputs).toEqual([
        {
          type: 'review',
          path: 'review/report.md',
          created_at: expect.stringMatching(/^2026-11-26T10:00:\d\d\.000Z$/),
          approved: true,
          metadata: { assessment: 'fail' },
          approved_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        },
      ]);
      expect(s.phases.review.status).toBe('failed');
      // The failed review stays in the review outputs: the review history is kept.
      expect(s.phases.review.outputs).toEqual(s.phases.implementation.inputs);
      // Earlier tasks are kept.
      expect((await listTasks(ctx)).map((t) => `${t.id}:${t.status}`)).toEqual(['010:completed', '020:completed']);
      // The default phase is now implementation again.
      expect(await getPhaseField(ctx, 'iteration')).toMatchObject({ phase: 'implementation', value: 2 });
      expect((await getPhaseField(ctx, 'tasks_approved')).value).toBe(false);
      expect(await listArtifacts(ctx, phase, 'inputs')).toMatchObject({
        owner: 'implementation',
        artifacts: [{ type: 'review', path: 'review/report.md', approved: true, metadata: { assessment: 'fail' } }],
      });

      // The rework plan needs a person's approval again.
      await blocked(w, ctx);
      expect((await addTask(ctx, { name: 'Address review findings', agent: 'implementer' })).id).toBe('030');
      await setPhaseField(ctx, 'tasks_approved', 'true');
      await advanceTo(ctx, 'ImplementationExecuting');
      await setTaskField(ctx, '030', 'status', 'completed');
      await advanceTo(ctx, 'ReviewActive');
      s = state();
      expect(s.phases.implementation.status).toBe('completed');
      expect(s.phases.review.status).toBe('in_progress');

      // The old failed review is still there, approved, but it belongs to the last round and no
      // longer decides: advancing before this round's review exists is blocked, not looped back…
      expect(await listArtifacts(ctx, phase, 'outputs')).toMatchObject({
        owner: 'review',
        artifacts: [{ type: 'review', path: 'review/report.md', approved: true, metadata: { assessment: 'fail' } }],
      });
      expect(await blocked(w, ctx)).toContain("add this round's review");
      // …the new review is appended (index 1), and while it is unapproved it blocks too…
      expect(
        await addArtifact(ctx, phase, 'outputs', {
          type: 'review',
          path: 'review/report-2.md',
          extra: { assessment: 'pass' },
        }),
      ).toMatchObject({
        index: 1,
        artifact: { approved: false, metadata: { assessment: 'pass' } },
      });
      w.write('.sow/project/review/report-2.md', '# Review 2\n');
      await blocked(w, ctx);
      // …and once approved, it decides.
      await setArtifact(ctx, phase, 'outputs', 1, 'approved', 'true');
      expect(await advanceProject(ctx, undefined, false)).toMatchObject({
        to: 'FinalizeDocumentation',
        event: 'review_pass',
      });
      s = state();
      expect(s.phases.review.status).toBe('completed');
      expect(s.phases.finalize.status).toBe('in_progress');
      expect(s.phases.implementation.iteration).toBe(2);
      expect(
        s.phases.review.outputs.map(
          (a: { path: string; metadata: { assessment: string } }) => `${a.path}:${a.metadata.assessment}`,
        ),
      ).toEqual(['review/report.md:fail', 'review/report-2.md:pass']);
      expect((await projectHistory(ctx)).map((h) => h.event)).toEqual([
        'project_init',
        'complete_planning',
        'tasks_approved',
        'all_tasks_complete',
        'review_fail',
        'tasks_approved',
        'all_tasks_complete',
        'review_pass',
      ]);
    },
  );

  it('a second failed review loops again and counts another iteration', async () => {
    const w = await world('one');
    const ctx = ticking(w);
    await setTaskField(ctx, '010', 'status', 'completed');
    await advanceTo(ctx, 'ReviewActive');
    for (const round of [2, 3]) {
      w.write(`.sow/project/review/round-${round}.md`, '# Review\n');
      await addArtifact(ctx, phase, 'outputs', {
        type: 'review',
        path: `review/round-${round}.md`,
        approved: 'true',
        extra: { assessment: 'fail' },
      });
      await advanceTo(ctx, 'ImplementationPlanning');
      const s = w.yaml(PROJECT);
      expect(s.phases.implementation.iteration).toBe(round);
      expect(s.phases.implementation.metadata.tasks_approved).toBe(false);
      expect(s.phases.implementation.inputs.map((a: { path: string }) => a.path)).toEqual(
        Array.from({ length: round - 1 }, (_, i) => `review/round-${i + 2}.md`),
      );
      expect(s.phases.review.outputs.map((a: { path: string }) => a.path)).toEqual(
        s.phases.implementation.inputs.map((a: { path: string }) => a.path),
      );
      await setPhaseField(ctx, 'metadata.tasks_approved', 'true');
      await advanceTo(ctx, 'ImplementationExecuting');
      // Every task is already completed, so review can start again at once.
      await advanceTo(ctx, 'ReviewActive');
    }
  });
});

describe('without planning', () => {
  it(
    'the disabled phase takes no artifacts; ' + 'the rest of the lifecycle runs, planning staying disabled and pending',
    async () => {
      const w = await world('init');
      const ctx = ticking(w);
      await newProject(ctx, { name: 'quick-fix', description: 'Small fix', planning: false });
      expect((await getPhaseField(ctx, 'enabled', 'planning')).value).toBe(false);
      const e = await refused(
        w,
        () =>
          addArtifact(ctx, { kind: 'phase', phase: 'planning' }, 'outputs', {
            type: 'task_list',
            path: 'planning/tasks.md',
            extra: {},
          }),
        'PHASE_NOT_ACTIVE',
        3,
      );
      expect(e.message).toContain('planning');
      expect((await addTask(ctx, { name: 'Fix it', agent: 'implementer' })).id).toBe('010');
      await setPhaseField(ctx, 'tasks_approved', 'true');
      await advanceTo(ctx, 'ImplementationExecuting');
      await setTaskField(ctx, '010', 'status', 'completed');
      await advanceTo(ctx, 'ReviewActive');
      w.write('.sow/project/review/report.md', '# Review\n');
      await addArtifact(ctx, phase, 'outputs', {
        type: 'review',
        path: 'review/report.md',
        approved: 'true',
        extra: { assessment: 'pass' },
      });
      await advanceTo(ctx, 'FinalizeDocumentation');
      const s = w.yaml(PROJECT);
      expect(s.phases.planning).toMatchObject({ enabled: false, status: 'pending' });
      expect(s.phases.planning.started_at).toBeUndefined();
      expect(s.phases.implementation.status).toBe('completed');
      expect(s.phases.review.status).toBe('completed');
      expect((await projectStatus(ctx)).phases.find((p) => p.name === 'planning')).toMatchObject({
        enabled: false,
        status: 'pending',
      });
    },
  );
});

describe('which phases run is settled when the project starts', () => {
  it(
    "'phase set enabled' cannot skip or revive a phase afterwards; each refusal says why, and the value a phase has " +
      'is accepted',
    async () => {
      const w = await world('init');
      const ctx = w.ctx();
      await newProject(ctx, { name: 'quick-fix', description: 'Small fix', planning: false });
      const enable = (phaseName: string, value: string) => () => setPhaseField(ctx, 'enabled', value, phaseName);
      const revived = await refused(w, enable('planning', 'true'), 'READ_ONLY_FIELD', 1);
      expect(revived.message).toContain(
        'which phases run is settled when the project starts, and the lifecycle has already passed the planning phase',
      );
      expect(revived.hint).toContain("'sow project new <name> --no-planning'");
      for (const [name, why] of [
        ['implementation', 'the implementation phase always runs: its tasks are the change the project makes'],
        ['review', 'the review phase always runs: every change is reviewed before it is finalized'],
        [
          'finalize',
          'the finalize phase always runs: the project ends there (its checks must pass on the finished code',
        ],
      ] as const) {
        expect(`${(await refused(w, enable(name, 'false'), 'READ_ONLY_FIELD', 1)).message}`, name).toContain(why);
      }
      expect(await setPhaseField(ctx, 'enabled', 'false', 'planning')).toMatchObject({
        phase: 'planning',
        field: 'enabled',
        value: false,
      });
      expect(w.yaml(PROJECT).phases.planning).toMatchObject({ enabled: false, status: 'pending' });

      // A project that plans cannot drop planning once it has started.
      const other = await world('init');
      await newProject(other.ctx(), { name: 'planned', description: 'Planned', planning: true });
      const dropped = await refused(
        other,
        () => setPhaseField(other.ctx(), 'enabled', 'false', 'planning'),
        'READ_ONLY_FIELD',
        1,
      );
      expect(`${dropped.message}\n${dropped.hint}`).toContain('the planning phase has already started');
    },
  );
});
