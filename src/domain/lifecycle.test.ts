import { describe, expect, it } from 'vitest';
import { advance, guardSentence, listTransitions, stateProblem, StateGuardUnmetError } from './lifecycle.js';
import type { Actor } from './ownership.js';
import { taskApprovalRecord } from './approvals.js';
import { standard } from './project-types/standard/index.js';
import { latestApprovedReview } from './project-types/reviews.js';
import { allProjectTypes } from './project-types/index.js';

const PROJECT_TYPES = Object.fromEntries((await allProjectTypes()).map((t) => [t.name, t]));
import type { ProjectView } from './project-type.js';
import type { Artifact, ProjectState, TaskSummary } from './schemas.js';
import { TransitionBlockedError, InvalidEventError } from './errors.js';

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-02T00:00:00.000Z';
const T2 = '2026-01-03T00:00:00.000Z';
const USER: Actor = { by: 'user' };

function project(state: string, patch: (p: ProjectState) => void = () => {}): ProjectState {
  const phase = () => ({
    status: 'pending' as const,
    enabled: true,
    iteration: 1,
    created_at: T0,
    metadata: {},
    inputs: [] as Artifact[],
    outputs: [] as Artifact[],
  });
  const p: ProjectState = {
    name: 'demo',
    type: 'standard',
    description: '',
    branch: 'feat/demo',
    created_at: T0,
    updated_at: T0,
    statechart: { current_state: state, updated_at: T0, history: [] },
    phases: { planning: phase(), implementation: phase(), review: phase(), finalize: phase() },
  };
  patch(p);
  return p;
}
const view = (p: ProjectState, tasks: TaskSummary[] = []): ProjectView => ({ project: p, tasks });

const task = (id: string, status: TaskSummary['status']): TaskSummary => ({
  id,
  name: `task ${id}`,
  status,
  parallel: false,
  dependencies: [],
});
const art = (type: string, extra: Partial<Artifact> = {}): Artifact => ({
  type,
  path: `${type}.md`,
  created_at: T0,
  ...extra,
});

describe('standard guards (each passes and fails)', () => {
  const g = standard.guards;
  it('planningComplete needs an approved task_list', () => {
    expect(
      g.planningComplete!.check(
        view(project('PlanningActive', (p) => (p.phases.planning!.outputs = [art('task_list', { approved: true })]))),
      ),
    ).toBe(true);
    expect(
      g.planningComplete!.check(
        view(project('PlanningActive', (p) => (p.phases.planning!.outputs = [art('task_list', { approved: false })]))),
      ),
    ).toBe(false);
    expect(g.planningComplete!.check(view(project('PlanningActive')))).toBe(false);
  });
  it(
    'tasksApproved needs the flag, at least one task, and a record of the approval that covers the tasks ' +
      'as they are',
    () => {
      const docs = new Map([['.sow/project/phases/implementation/tasks/010/description.md', 'Do A\n']]);
      const readDoc = (rel: string) => docs.get(rel);
      const ten = [task('010', 'pending')];
      const record = taskApprovalRecord(ten, 'implementation', readDoc);
      const approved = (value: unknown, covered: unknown = record) =>
        project(
          'ImplementationPlanning',
          (p) => (p.phases.implementation!.metadata = { tasks_approved: value, approved_tasks: covered }),
        );
      const at = (p: ProjectState, tasks: TaskSummary[]): ProjectView => ({ project: p, tasks, readDoc });
      expect(g.tasksApproved!.check(at(approved(true), ten))).toBe(true);
      expect(g.tasksApproved!.check(at(approved(true), []))).toBe(false);
      expect(g.tasksApproved!.check(at(approved(false), ten))).toBe(false);
      expect(g.tasksApproved!.check(at(approved('true'), ten))).toBe(false);
      // A flag without a record (set by hand) covers nothing.
      const bare = at(approved(true, null), ten);
      expect(g.tasksApproved!.check(bare)).toBe(false);
      expect(g.tasksApproved!.hint(bare)).toContain('no record of which tasks it covered');
      // A task added, a description or the dependencies changed since: each named.
      const added = at(approved(true), [...ten, task('020', 'pending')]);
      expect(g.tasksApproved!.check(added)).toBe(false);
      expect(g.tasksApproved!.withdrawals!(added)).toEqual([
        { what: 'the tasks', changed: ['task 020 added'], again: 'sow phase set tasks_approved true' },
      ]);
      docs.set('.sow/project/phases/implementation/tasks/010/description.md', 'Do A and B\n');
      const changed = at(approved(true), [{ ...ten[0]!, dependencies: ['005'] }]);
      expect(g.tasksApproved!.check(changed)).toBe(false);
      expect(g.tasksApproved!.hint(changed)).toContain("(010's description changed; 010's dependencies changed)");
      expect(g.tasksApproved!.withdrawals!(at(approved(true), []))[0]!.changed).toEqual(['task 010 removed']);
      // Once the project is executing, what stays is that the approval was given.
      expect(g.tasksApproved!.standing!(changed)).toBe(true);
      expect(g.tasksApproved!.standing!(at(approved(false), ten))).toBe(false);
    },
  );
  it('allTasksComplete needs every task done and one completed (the tasks come from their own files)', () => {
    const p = project('ImplementationExecuting');
    expect(g.allTasksComplete!.check(view(p, [task('010', 'completed'), task('020', 'abandoned')]))).toBe(true);
    expect(g.allTasksComplete!.check(view(p, [task('010', 'completed'), task('020', 'needs_review')]))).toBe(false);
    expect(g.allTasksComplete!.check(view(p, [task('010', 'abandoned')]))).toBe(false);
    expect(g.allTasksComplete!.check(view(p, []))).toBe(false);
    expect(g.allTasksComplete!.hint(view(p, [task('010', 'completed'), task('020', 'paused')]))).toContain(
      '020 (paused)',
    );
  });
  it('reviewPassed and reviewFailed read the latest approved review of this round', () => {
    const reviews = (...outputs: Artifact[]) =>
      view(
        project(
          'ReviewActive',
          (p) => (p.phases.review = { ...p.phases.review!, status: 'in_progress', started_at: T0, outputs }),
        ),
      );
    const pass = art('review', { approved: true, metadata: { assessment: 'pass' } });
    const fail = art('review', { approved: true, metadata: { assessment: 'fail' } });
    const draftPass = art('review', { approved: false, metadata: { assessment: 'pass' } });
    expect(g.reviewPassed!.check(reviews(fail, pass))).toBe(true);
    expect(g.reviewFailed!.check(reviews(fail, pass))).toBe(false);
    expect(g.reviewFailed!.check(reviews(pass, fail))).toBe(true);
    expect(g.reviewPassed!.check(reviews(fail, draftPass))).toBe(false);
    expect(g.reviewPassed!.check(reviews())).toBe(false);
    expect(g.reviewFailed!.check(reviews())).toBe(false);
    expect(latestApprovedReview(reviews(pass, fail, draftPass).project, 'review')).toBe(fail);
    // A review of an earlier round (added before the review phase last started) cannot decide again.
    const earlier = view(
      project(
        'ReviewActive',
        (p) => (p.phases.review = { ...p.phases.review!, status: 'in_progress', started_at: T1, outputs: [fail] }),
      ),
    );
    expect(g.reviewFailed!.check(earlier)).toBe(false);
    expect(g.reviewFailed!.hint(earlier)).toContain("add this round's review");
  });
  it('projectDeleted needs the flag', () => {
    expect(
      g.projectDeleted!.check(
        view(project('FinalizeDelete', (p) => (p.phases.finalize!.metadata = { project_deleted: true }))),
      ),
    ).toBe(true);
    expect(g.projectDeleted!.check(view(project('FinalizeDelete')))).toBe(false);
  });
  it('planningDisabled follows the planning phase', () => {
    expect(g.planningDisabled!.check(view(project('NoProject', (p) => (p.phases.planning!.enabled = false))))).toBe(
      true,
    );
    expect(g.planningDisabled!.check(view(project('NoProject')))).toBe(false);
  });
});

describe('machines of every project type', () => {
  for (const type of Object.values(PROJECT_TYPES)) {
    it(`${type.name}: every state is reachable and every non-final state has an exit`, () => {
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
        expect(
          type.transitions.some((t) => t.from === name),
          `${name} has no exit`,
        ).toBe(true);
      }
      for (const t of type.transitions) {
        expect(type.states[t.from], `state ${t.from}`).toBeDefined();
        expect(type.states[t.to], `state ${t.to}`).toBeDefined();
        if (t.guard) expect(type.guards[t.guard], `guard ${t.guard}`).toBeDefined();
        for (const a of t.actions ?? []) expect(type.actions[a.type], `action ${a.type}`).toBeDefined();
      }
    });
  }
});

describe('advance', () => {
  it('fires the automatic event whose guard holds, runs its actions and records the transition', () => {
    const p = project('PlanningActive', (p) => {
      p.phases.planning = {
        ...p.phases.planning!,
        status: 'in_progress',
        started_at: T0,
        outputs: [art('task_list', { approved: true })],
      };
    });
    const r = advance(standard, view(p), T1, { by: 'implementer-1', session: 's-1' });
    expect(r).toMatchObject({ from: 'PlanningActive', to: 'ImplementationPlanning', event: 'complete_planning' });
    expect(r.project.statechart.current_state).toBe('ImplementationPlanning');
    expect(r.project.statechart.history).toEqual([
      {
        from: 'PlanningActive',
        to: 'ImplementationPlanning',
        event: 'complete_planning',
        at: T1,
        by: 'implementer-1',
        session: 's-1',
      },
    ]);
    expect(r.project.phases.planning).toMatchObject({ status: 'completed', completed_at: T1 });
    expect(r.project.phases.implementation).toMatchObject({ status: 'in_progress', started_at: T1, iteration: 1 });
    expect(p.statechart.current_state).toBe('PlanningActive'); // pure: the input is untouched
  });

  it('refuses with the guard description when blocked, and checks guards on explicit events too', () => {
    const p = view(project('PlanningActive'));
    expect(() => advance(standard, p, T1, USER)).toThrow(TransitionBlockedError);
    expect(() => advance(standard, p, T1, USER)).toThrow(/a task_list output of planning is approved/);
    expect(() => advance(standard, p, T1, USER, 'complete_planning')).toThrow(TransitionBlockedError);
    expect(() => advance(standard, p, T1, USER, 'review_pass')).toThrow(InvalidEventError);
  });

  it(
    'review_fail reopens implementation, counts the iteration, copies the review (keeping it as history) and ' +
      'resets approval',
    () => {
      const failed = art('review', { approved: true, created_at: T1, metadata: { assessment: 'fail' } });
      const p = project('ReviewActive', (p) => {
        p.phases.implementation = {
          ...p.phases.implementation!,
          status: 'completed',
          started_at: T0,
          completed_at: T0,
          metadata: { tasks_approved: true },
        };
        p.phases.review = { ...p.phases.review!, status: 'in_progress', started_at: T0, outputs: [failed] };
      });
      const r = advance(standard, view(p, [task('010', 'completed')]), T1, USER);
      expect(r.event).toBe('review_fail');
      expect(r.to).toBe('ImplementationPlanning');
      const impl = r.project.phases.implementation!;
      expect(impl.status).toBe('in_progress');
      expect(impl.iteration).toBe(2);
      expect(impl.metadata['tasks_approved']).toBe(false);
      expect(impl.completed_at).toBeUndefined();
      expect(impl.inputs).toEqual([failed]);
      expect(r.project.phases.review!.status).toBe('failed');
      expect(r.project.phases.review!.outputs).toEqual([failed]);

      // The next round (the rework approved, so its guard holds): review starts again with iteration 2; the old review
      // stays and cannot decide.
      const done = [task('010', 'completed'), task('020', 'completed')];
      const reapproved = { ...r.project.phases.implementation!, metadata: { tasks_approved: true } };
      const executing = {
        ...r.project,
        phases: { ...r.project.phases, implementation: reapproved },
        statechart: { ...r.project.statechart, current_state: 'ImplementationExecuting' },
      };
      const again = advance(standard, view(executing, done), T2, USER);
      expect(again.to).toBe('ReviewActive');
      expect(again.project.phases.review).toMatchObject({ status: 'in_progress', iteration: 2, started_at: T2 });
      expect(again.project.phases.review!.outputs).toEqual([failed]);
      expect(() => advance(standard, view(again.project, done), T2, USER)).toThrow(TransitionBlockedError);
      // The new round's approved review decides.
      const passed = art('review', { approved: true, created_at: T2, metadata: { assessment: 'pass' } });
      const decided = {
        ...again.project,
        phases: { ...again.project.phases, review: { ...again.project.phases.review!, outputs: [failed, passed] } },
      };
      expect(advance(standard, view(decided, done), T2, USER).event).toBe('review_pass');
      expect(again.project.statechart.history!.map((h) => h.event)).toEqual(['review_fail', 'all_tasks_complete']);
    },
  );

  it('project_init starts planning, or implementation when planning is disabled', () => {
    expect(advance(standard, view(project('NoProject')), T1, USER, 'project_init').to).toBe('PlanningActive');
    const noPlanning = advance(
      standard,
      view(project('NoProject', (p) => (p.phases.planning!.enabled = false))),
      T1,
      USER,
      'project_init',
    );
    expect(noPlanning.to).toBe('ImplementationPlanning');
    expect(noPlanning.project.phases.implementation!.status).toBe('in_progress');
    expect(noPlanning.project.phases.planning!.status).toBe('pending');
    expect(noPlanning.project.statechart.history).toEqual([
      { from: 'NoProject', to: 'ImplementationPlanning', event: 'project_init', at: T1, by: 'user' },
    ]);
  });

  it('lists every transition with its guard and whether it is blocked', () => {
    const p = project(
      'ReviewActive',
      (p) =>
        (p.phases.review = {
          ...p.phases.review!,
          status: 'in_progress',
          started_at: T0,
          outputs: [art('review', { approved: true, metadata: { assessment: 'pass' } })],
        }),
    );
    expect(listTransitions(standard, view(p))).toEqual([
      expect.objectContaining({
        event: 'review_pass',
        to: 'FinalizeDocumentation',
        blocked: false,
        guardDescription: expect.stringContaining('pass'),
      }),
      expect.objectContaining({ event: 'review_fail', to: 'ImplementationPlanning', blocked: true }),
    ]);
  });
});

describe('guard descriptions, in the sentences they are put in', () => {
  // Each guard's description is a clause, so "blocked until …" and "when …" read as English:
  // "needs a task_list output of planning is approved" and "blocked until at least one summary
  // output, and every summary approved" were what descriptions and sentences that disagreed made.
  const FINITE = /\b(is|are|has|have|exists|exist|holds|hold|names|name|forms|form)\b/;
  const guards = Object.values(PROJECT_TYPES).flatMap((type) =>
    Object.entries(type.guards).map(([name, g]) => ({ where: `${type.name}.${name}`, description: g.description })),
  );

  it('covers the guards of every project type', () => {
    expect(guards.length).toBeGreaterThanOrEqual(Object.keys(PROJECT_TYPES).length);
  });

  it.each(guards)(
    '$where is a clause: lower case, no full stop, a verb in it and in its last part',
    ({ description }) => {
      expect(description).toMatch(/^[a-z'(]/);
      expect(description).not.toMatch(/[.;:]$/);
      expect(description).toMatch(FINITE);
      // The last of a list of conditions ("…, and every summary is approved") has its own verb.
      const last = description.split(/, and /).at(-1)!;
      expect(last, `the last part of '${description}'`).toMatch(FINITE);
    },
  );

  it.each(guards)('$where reads in every sentence it is put in', ({ description }) => {
    const sentences = [
      `cannot advance from X: ${guardSentence.blockedUntil([description])}`,
      `cannot advance from X: ${guardSentence.blockedUntil([description, description])}`,
      `event → Y — ${guardSentence.when(description)}`,
    ];
    for (const s of sentences) {
      expect(s).toMatch(/(until|when) [a-z'(]/);
      // A clause after a verb that wants a noun ("needs a … is approved") is what broke them.
      expect(s).not.toMatch(/\b(needs|requires) /);
    }
  });

  it('a blocked advance says the guard in the sentence guardSentence makes', () => {
    const p = project('PlanningActive', (x) => (x.phases['planning']!.status = 'in_progress'));
    const err = (() => {
      try {
        advance(standard, view(p), T1, USER);
      } catch (e) {
        return e as TransitionBlockedError;
      }
      throw new Error('advance was not blocked');
    })();
    expect(err.message).toBe(
      `cannot advance from ` +
        `PlanningActive: ${guardSentence.blockedUntil([standard.guards['planningComplete']!.description])}`,
    );
  });
});

describe('stateProblem: the guard of the current state, from the transitions into it', () => {
  const approvedImpl = (p: ProjectState) => (p.phases.implementation!.metadata = { tasks_approved: true });
  const history = (p: ProjectState) =>
    (p.statechart.history = [
      { from: 'NoProject', to: 'PlanningActive', event: 'project_init', at: T0, by: 'user' },
      { from: 'PlanningActive', to: 'ImplementationPlanning', event: 'complete_planning', at: T0, by: 'user' },
      { from: 'ImplementationPlanning', to: 'ImplementationExecuting', event: 'tasks_approved', at: T0, by: 'user' },
    ]);

  it('ReviewActive with tasks pending: the unmet guard, and the latest state of the history whose guard holds', () => {
    const p = project('ReviewActive', (p) => (approvedImpl(p), history(p)));
    const problem = stateProblem(standard, view(p, [task('010', 'pending')]))!;
    expect(problem).toMatchObject({ state: 'ReviewActive', back: 'ImplementationExecuting' });
    expect(problem.unmet).toEqual([
      {
        from: 'ImplementationExecuting',
        event: 'all_tasks_complete',
        guard: 'allTasksComplete',
        description: standard.guards['allTasksComplete']!.description,
        hint: expect.stringContaining('010 (pending)'),
      },
    ]);
    // advance refuses (exit 3), whatever the guards out of the state say.
    const e = (() => {
      try {
        advance(standard, view(p, [task('010', 'pending')]), T1, USER);
      } catch (err) {
        return err as StateGuardUnmetError;
      }
      throw new Error('advance went on');
    })();
    expect(e).toBeInstanceOf(StateGuardUnmetError);
    expect(e.kind).toBe('blocked');
    expect(e.hint).toContain("'statechart.current_state: ImplementationExecuting'");
    expect(stateProblem(standard, view(p, [task('010', 'completed')]))).toBeUndefined();
  });

  it('a state with one way in that holds is fine; so are the initial, a final and a guard-less way in', () => {
    // ImplementationPlanning: from PlanningActive (task list approved) or from NoProject (planning disabled).
    const withPlan = project(
      'ImplementationPlanning',
      (p) => (p.phases.planning!.outputs = [art('task_list', { approved: true })]),
    );
    expect(stateProblem(standard, view(withPlan))).toBeUndefined();
    const noPlanning = project('ImplementationPlanning', (p) => (p.phases.planning!.enabled = false));
    expect(stateProblem(standard, view(noPlanning))).toBeUndefined();
    expect(stateProblem(standard, view(project('ImplementationPlanning')))?.unmet.map((u) => u.guard)).toEqual([
      'planningDisabled',
      'planningComplete',
      'reviewFailed',
    ]);
    expect(stateProblem(standard, view(project('NoProject')))).toBeUndefined();
    expect(stateProblem(standard, view(project('PlanningActive')))).toBeUndefined();
    expect(stateProblem(standard, view(project('FinalizeChecks')))).toBeUndefined();
  });

  it(
    "executing: the approval's standing is that it was given (tasks added since are the orchestrator's, with " +
      'the human)',
    () => {
      const p = project('ImplementationExecuting', approvedImpl);
      expect(stateProblem(standard, view(p, [task('010', 'pending'), task('020', 'pending')]))).toBeUndefined();
      const unapproved = stateProblem(standard, view(project('ImplementationExecuting'), [task('010', 'pending')]))!;
      expect(unapproved.unmet.map((u) => u.guard)).toEqual(['tasksApproved']);
      expect(unapproved.back).toBeUndefined();
    },
  );

  it('a guard that reads the checks or unread task files is not judged (cheap: no process, no file)', () => {
    expect(stateProblem(standard, view(project('FinalizeDelete')))).toBeUndefined();
  });
});
