import { describe, expect, it } from 'vitest';
import { advance, listTransitions, machineOf } from './lifecycle.js';
import { standard, latestApprovedReview } from './project-types/standard/index.js';
import { PROJECT_TYPES } from './project-types/index.js';
import type { Artifact, ProjectState, TaskSummary } from './schemas.js';
import { TransitionBlockedError, InvalidEventError } from './errors.js';

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-02T00:00:00.000Z';

function project(state: string, patch: (p: ProjectState) => void = () => {}): ProjectState {
  const phase = () => ({ status: 'pending' as const, enabled: true, iteration: 1, created_at: T0, metadata: {}, inputs: [] as Artifact[], outputs: [] as Artifact[] });
  const p: ProjectState = {
    name: 'demo',
    type: 'standard',
    description: '',
    branch: 'feat/demo',
    created_at: T0,
    updated_at: T0,
    statechart: { current_state: state, updated_at: T0 },
    phases: { planning: phase(), implementation: { ...phase(), tasks: [] }, review: phase(), finalize: phase() },
  };
  patch(p);
  return p;
}

const task = (id: string, status: TaskSummary['status']): TaskSummary => ({ id, name: `task ${id}`, status, parallel: false, dependencies: [] });
const art = (type: string, extra: Partial<Artifact> = {}): Artifact => ({ type, path: `${type}.md`, created_at: T0, ...extra });

describe('standard guards', () => {
  const g = standard.guards;
  it('planningComplete needs an approved task_list', () => {
    expect(g.planningComplete!.check(project('PlanningActive', (p) => (p.phases.planning!.outputs = [art('task_list', { approved: true })])))).toBe(true);
    expect(g.planningComplete!.check(project('PlanningActive', (p) => (p.phases.planning!.outputs = [art('task_list', { approved: false })])))).toBe(false);
    expect(g.planningComplete!.check(project('PlanningActive'))).toBe(false);
  });
  it('tasksApproved needs the flag and at least one task', () => {
    const withTasks = (approved: unknown, tasks: TaskSummary[]) =>
      project('ImplementationPlanning', (p) => {
        p.phases.implementation!.metadata = { tasks_approved: approved };
        p.phases.implementation!.tasks = tasks;
      });
    expect(g.tasksApproved!.check(withTasks(true, [task('010', 'pending')]))).toBe(true);
    expect(g.tasksApproved!.check(withTasks(true, []))).toBe(false);
    expect(g.tasksApproved!.check(withTasks(false, [task('010', 'pending')]))).toBe(false);
    expect(g.tasksApproved!.check(withTasks('true', [task('010', 'pending')]))).toBe(false);
  });
  it('allTasksComplete needs every task done and one completed', () => {
    const withTasks = (tasks: TaskSummary[]) => project('ImplementationExecuting', (p) => (p.phases.implementation!.tasks = tasks));
    expect(g.allTasksComplete!.check(withTasks([task('010', 'completed'), task('020', 'abandoned')]))).toBe(true);
    expect(g.allTasksComplete!.check(withTasks([task('010', 'completed'), task('020', 'needs_review')]))).toBe(false);
    expect(g.allTasksComplete!.check(withTasks([task('010', 'abandoned')]))).toBe(false);
    expect(g.allTasksComplete!.check(withTasks([]))).toBe(false);
    expect(g.allTasksComplete!.hint(withTasks([task('010', 'completed'), task('020', 'paused')]))).toContain('020 (paused)');
  });
  it('reviewPassed and reviewFailed read the latest approved review', () => {
    const reviews = (...outputs: Artifact[]) => project('ReviewActive', (p) => (p.phases.review!.outputs = outputs));
    const pass = art('review', { approved: true, metadata: { assessment: 'pass' } });
    const fail = art('review', { approved: true, metadata: { assessment: 'fail' } });
    const draftPass = art('review', { approved: false, metadata: { assessment: 'pass' } });
    expect(g.reviewPassed!.check(reviews(fail, pass))).toBe(true);
    expect(g.reviewFailed!.check(reviews(fail, pass))).toBe(false);
    expect(g.reviewFailed!.check(reviews(pass, fail))).toBe(true);
    expect(g.reviewPassed!.check(reviews(fail, draftPass))).toBe(false);
    expect(g.reviewPassed!.check(reviews())).toBe(false);
    expect(g.reviewFailed!.check(reviews())).toBe(false);
    expect(latestApprovedReview(reviews(pass, fail, draftPass))).toBe(fail);
  });
  it('projectDeleted needs the flag', () => {
    expect(g.projectDeleted!.check(project('FinalizeDelete', (p) => (p.phases.finalize!.metadata = { project_deleted: true })))).toBe(true);
    expect(g.projectDeleted!.check(project('FinalizeDelete'))).toBe(false);
  });
  it('planningDisabled follows the planning phase', () => {
    expect(g.planningDisabled!.check(project('NoProject', (p) => (p.phases.planning!.enabled = false)))).toBe(true);
    expect(g.planningDisabled!.check(project('NoProject'))).toBe(false);
  });
});

describe('machines of every project type', () => {
  for (const type of Object.values(PROJECT_TYPES)) {
    it(`${type.name}: every state is reachable and every non-final state has an exit`, () => {
      machineOf(type); // builds without throwing
      const reached = new Set([type.initialState]);
      const queue = [type.initialState];
      while (queue.length) {
        const from = queue.shift()!;
        for (const t of type.transitions.filter((t) => t.from === from)) {
          if (!reached.has(t.to)) {
            reached.add(t.to);
            queue.push(t.to);
          }
        }
      }
      expect([...reached].sort()).toEqual(Object.keys(type.states).sort());
      for (const [name, def] of Object.entries(type.states)) {
        if (def.final && name !== type.initialState) continue;
        expect(type.transitions.some((t) => t.from === name), `${name} has no exit`).toBe(true);
      }
      for (const t of type.transitions) {
        if (t.guard) expect(type.guards[t.guard], `guard ${t.guard}`).toBeDefined();
        for (const a of t.actions ?? []) expect(type.actions[a.type], `action ${a.type}`).toBeDefined();
      }
    });
  }
});

describe('advance', () => {
  it('fires the automatic event whose guard holds and runs its actions', () => {
    const p = project('PlanningActive', (p) => {
      p.phases.planning = { ...p.phases.planning!, status: 'in_progress', started_at: T0, outputs: [art('task_list', { approved: true })] };
    });
    const r = advance(standard, p, T1);
    expect(r).toMatchObject({ from: 'PlanningActive', to: 'ImplementationPlanning', event: 'complete_planning' });
    expect(r.project.statechart.current_state).toBe('ImplementationPlanning');
    expect(r.project.phases.planning).toMatchObject({ status: 'completed', completed_at: T1 });
    expect(r.project.phases.implementation).toMatchObject({ status: 'in_progress', started_at: T1, iteration: 1 });
    expect(p.statechart.current_state).toBe('PlanningActive'); // pure: the input is untouched
  });

  it('refuses with the guard description when blocked, and checks guards on explicit events too', () => {
    const p = project('PlanningActive');
    expect(() => advance(standard, p, T1)).toThrow(TransitionBlockedError);
    expect(() => advance(standard, p, T1)).toThrow(/a task_list output of planning is approved/);
    expect(() => advance(standard, p, T1, 'complete_planning')).toThrow(TransitionBlockedError);
    expect(() => advance(standard, p, T1, 'review_pass')).toThrow(InvalidEventError);
  });

  it('review_fail reopens implementation, counts the iteration, carries the review and resets approval', () => {
    const failed = art('review', { approved: true, metadata: { assessment: 'fail' } });
    const p = project('ReviewActive', (p) => {
      p.phases.implementation = { ...p.phases.implementation!, status: 'completed', started_at: T0, completed_at: T0, metadata: { tasks_approved: true }, tasks: [task('010', 'completed')] };
      p.phases.review = { ...p.phases.review!, status: 'in_progress', started_at: T0, outputs: [failed] };
    });
    const r = advance(standard, p, T1);
    expect(r.event).toBe('review_fail');
    expect(r.to).toBe('ImplementationPlanning');
    const impl = r.project.phases.implementation!;
    expect(impl.status).toBe('in_progress');
    expect(impl.iteration).toBe(2);
    expect(impl.metadata['tasks_approved']).toBe(false);
    expect(impl.completed_at).toBeUndefined();
    expect(impl.inputs).toEqual([failed]);
    expect(r.project.phases.review!.status).toBe('failed');
    expect(r.project.phases.review!.outputs).toEqual([]);

    // The next round: review starts again with iteration 2 and needs a new review.
    const again = advance(standard, {
      ...r.project,
      statechart: { ...r.project.statechart, current_state: 'ImplementationExecuting' },
      phases: { ...r.project.phases, implementation: { ...impl, tasks: [task('010', 'completed'), task('020', 'completed')] } },
    }, T1);
    expect(again.to).toBe('ReviewActive');
    expect(again.project.phases.review).toMatchObject({ status: 'in_progress', iteration: 2 });
    expect(() => advance(standard, again.project, T1)).toThrow(TransitionBlockedError);
  });

  it('project_init starts planning, or implementation when planning is disabled', () => {
    expect(advance(standard, project('NoProject'), T1, 'project_init').to).toBe('PlanningActive');
    const noPlanning = advance(standard, project('NoProject', (p) => (p.phases.planning!.enabled = false)), T1, 'project_init');
    expect(noPlanning.to).toBe('ImplementationPlanning');
    expect(noPlanning.project.phases.implementation!.status).toBe('in_progress');
    expect(noPlanning.project.phases.planning!.status).toBe('pending');
  });

  it('lists every transition with its guard and whether it is blocked', () => {
    const list = listTransitions(standard, project('ReviewActive', (p) => (p.phases.review!.outputs = [art('review', { approved: true, metadata: { assessment: 'pass' } })])));
    expect(list).toEqual([
      expect.objectContaining({ event: 'review_pass', to: 'FinalizeDocumentation', blocked: false, guardDescription: expect.stringContaining('pass') }),
      expect.objectContaining({ event: 'review_fail', to: 'ImplementationPlanning', blocked: true }),
    ]);
  });
});
