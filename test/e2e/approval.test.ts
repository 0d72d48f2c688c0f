/**
 * "A person approves the tasks before work starts", as a person meets it: tasks_approved is given
 * only in ImplementationPlanning and only for tasks that exist; it covers the tasks as they were
 * when it was given (adding one, or changing a description or the dependencies, withdraws it, and
 * advance, status and continue name what changed); a document's approval covers the content
 * approved; and a state set by hand whose guard does not hold (ReviewActive with tasks pending)
 * is said by status, failed by doctor and refused by advance with the way back.
 */
import { describe, expect, it } from 'vitest';
import {
  expectEnvelope,
  expectFails,
  inImplementationPlanning,
  inPlanning,
  ok,
  PROJECT,
  TASK_LIST,
  toExecuting,
  useRepos,
  type Repo,
} from './harness.js';

const fresh = useRepos();
const description = (id: string) => `.sow/project/phases/implementation/tasks/${id}/description.md`;

/** ImplementationPlanning with tasks 010 and 020, approved. */
function approvedTwo(): Repo {
  const repo = inImplementationPlanning(fresh);
  ok(repo, ['task', 'add', 'Parse the config', '--agent', 'implementer', '--description', 'Read .sow/config.yaml']);
  ok(repo, ['task', 'add', 'Validate it', '--agent', 'implementer']);
  ok(repo, ['phase', 'set', 'tasks_approved', 'true']);
  return repo;
}

describe('tasks_approved is given in the state that asks for it, for tasks that exist', () => {
  it('in PlanningActive it is refused (exit 3), with or without --phase implementation, and nothing changes', () => {
    const repo = inPlanning(fresh);
    const said = expectFails(
      repo,
      ['phase', 'set', 'tasks_approved', 'true', '--phase', 'implementation'],
      3,
      'APPROVAL_NOT_HERE',
      { human: true },
    );
    expect(said).toContain(
      'tasks_approved is given in ImplementationPlanning, for the tasks as they are then, and the project is in ' +
        'PlanningActive',
    );
    expect(said).toContain(
      'advance to ImplementationPlanning; add the tasks there, show them to the human, then approve them',
    );
    expectFails(
      repo,
      ['phase', 'set', 'metadata.tasks_approved', 'true', '--phase', 'implementation'],
      3,
      'APPROVAL_NOT_HERE',
    );
    // The hole it closes: approved ahead, then tasks added after the plan went straight to work.
    repo.write(TASK_LIST, '# Tasks\n');
    ok(repo, ['output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md', '--approved', 'true']);
    ok(repo, ['advance']);
    ok(repo, ['task', 'add', 'a']);
    expect(repo.sow(['advance']).code).toBe(3);
    expect(repo.yaml(PROJECT).statechart.current_state).toBe('ImplementationPlanning');
  });

  it('with no task it is refused (exit 3): an approval of nothing', () => {
    const repo = inImplementationPlanning(fresh);
    const said = expectFails(repo, ['phase', 'set', 'tasks_approved', 'true'], 3, 'NO_TASKS_TO_APPROVE', {
      human: true,
    });
    expect(said).toContain('there are no tasks to approve');
    expect(said).toContain('sow task add');
  });

  it('once executing it cannot be given or taken again (the approval was given where it was asked for)', () => {
    const repo = fresh();
    toExecuting(repo);
    expect(expectFails(repo, ['phase', 'set', 'tasks_approved', 'false'], 3, 'APPROVAL_NOT_HERE')).toContain(
      'the tasks were approved when the project left ImplementationPlanning',
    );
  });
});

describe('the approval covers the tasks as they were when it was given', () => {
  it(
    'a task added after it: advance is blocked (exit 3) naming the task, status and continue say so; approved ' +
      'again, advance goes on',
    () => {
      const repo = approvedTwo();
      ok(repo, ['task', 'add', 'Sneaked in', '--agent', 'implementer']);
      const said = expectFails(repo, ['advance'], 3, 'TRANSITION_BLOCKED', { human: true });
      expect(said).toContain(
        'the approval of the tasks was withdrawn: task 030 added since it was given; once the human has seen them, ' +
          "approve again with 'sow phase set tasks_approved true'",
      );
      expect(expectEnvelope(repo.sow(['advance', '--json'])).error.details.withdrawn).toEqual([
        { what: 'the tasks', changed: ['task 030 added'], again: 'sow phase set tasks_approved true' },
      ]);
      expect(ok(repo, ['status']).stdout).toContain(
        '! the approval of the tasks was withdrawn: task 030 added since it was given',
      );
      expect(ok(repo, ['project', 'continue', '--full']).stdout).toContain(
        'the approval of the tasks was withdrawn: task 030 added since it was given',
      );
      ok(repo, ['phase', 'set', 'tasks_approved', 'true']);
      expect(ok(repo, ['advance']).stderr).toContain('ImplementationPlanning → ImplementationExecuting');
    },
  );

  it(
    'a description edited (by hand) and dependencies changed after it: ' + 'blocked, naming each; a renamed task too',
    () => {
      const repo = approvedTwo();
      repo.write(description('010'), `${repo.read(description('010'))}Also read the user's config.\n`);
      ok(repo, ['task', 'set', '--id', '020', 'dependencies', '010']);
      const said = expectFails(repo, ['advance'], 3, 'TRANSITION_BLOCKED');
      expect(said).toContain(
        "the approval of the tasks was withdrawn: 010's description changed; 020's dependencies changed since " +
          'it was given',
      );
      ok(repo, ['phase', 'set', 'tasks_approved', 'true']);
      ok(repo, ['task', 'set', '--id', '010', 'name', 'Parse every config']);
      expect(expectFails(repo, ['advance'], 3, 'TRANSITION_BLOCKED')).toContain(
        "010's name changed since it was given",
      );
      ok(repo, ['phase', 'set', 'tasks_approved', 'true']);
      ok(repo, ['advance']);
      expect(repo.yaml(PROJECT).statechart.current_state).toBe('ImplementationExecuting');
    },
  );

  it('a flag set by hand in the project file, without the record of what it covered, covers nothing', () => {
    const repo = inImplementationPlanning(fresh);
    ok(repo, ['task', 'add', 'a']);
    repo.write(
      PROJECT,
      repo
        .read(PROJECT)
        .replace(/(\n {2}implementation:\n(?: {4}.*\n)*? {4}metadata:) \{\}/, '$1\n      tasks_approved: true'),
    );
    expect(repo.yaml(PROJECT).phases.implementation.metadata).toEqual({ tasks_approved: true });
    expect(expectFails(repo, ['advance'], 3, 'TRANSITION_BLOCKED')).toContain('no record of which tasks it covered');
  });
});

describe("a document's approval covers the content approved", () => {
  it('the task list edited after its approval: advance is blocked naming the file; approved again, it goes on', () => {
    const repo = inPlanning(fresh);
    repo.write(TASK_LIST, '# Tasks\n\n- parse the config\n');
    ok(repo, ['output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md']);
    ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
    expect(repo.yaml(PROJECT).phases.planning.outputs[0].approved_sha256).toMatch(/^[0-9a-f]{64}$/);
    repo.write(TASK_LIST, '# Tasks\n\n- parse the config\n- and rewrite the deploy scripts\n');
    const said = expectFails(repo, ['advance'], 3, 'TRANSITION_BLOCKED', { human: true });
    expect(said).toContain(
      'the approval of planning/tasks.md was withdrawn: its content changed since it was given; once the human has ' +
        "seen it, approve again with 'sow output set --phase planning --index 0 approved true'",
    );
    expect(ok(repo, ['status']).stdout).toContain(
      '! the approval of planning/tasks.md was withdrawn: its content changed',
    );
    ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
    ok(repo, ['advance']);
    expect(repo.yaml(PROJECT).statechart.current_state).toBe('ImplementationPlanning');
  });

  it("the stamp is sow's own: it cannot be set", () => {
    const repo = inPlanning(fresh);
    repo.write(TASK_LIST, '# Tasks\n');
    ok(repo, ['output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md', '--approved', 'true']);
    expectFails(repo, ['output', 'set', '--index', '0', 'approved_sha256', '0'.repeat(64)], 1, 'READ_ONLY_FIELD');
  });
});

describe('a state set by hand whose guard does not hold', () => {
  /** ImplementationExecuting with two pending tasks, then current_state set to ReviewActive by hand. */
  function handSetReview(): Repo {
    const repo = fresh();
    toExecuting(repo);
    repo.write(
      PROJECT,
      repo.read(PROJECT).replace('current_state: ImplementationExecuting', 'current_state: ReviewActive'),
    );
    return repo;
  }
  const UNMET =
    'the project is in ReviewActive, but its guard does not hold: every task is completed or abandoned, with at ' +
    'least one completed (allTasksComplete, the way in from ImplementationExecuting)';
  const BACK =
    'set it back to ImplementationExecuting, where its guard holds: in .sow/project/state.yaml, ' +
    "'statechart.current_state: ImplementationExecuting'";

  it('status warns in one line on stderr and says it in --json (state_problem); continue says it', () => {
    const repo = handSetReview();
    const r = ok(repo, ['status']);
    const warnings = r.stderr.split('\n').filter((l) => l.startsWith('warning:'));
    expect(warnings).toEqual([
      `warning: ${UNMET}; ${BACK}; or make the guard hold (unfinished: 010 (pending), 020 (pending); finish them ` +
        `with 'sow task set --id <id> status completed' or drop them with 'sow task abandon --id <id>')`,
    ]);
    const json = repo.sow(['status', '--json']);
    expect(json.code).toBe(0);
    expect(expectEnvelope(json).data.state_problem).toEqual({
      message: UNMET,
      hint: expect.stringContaining(BACK),
      unmet: [
        {
          from: 'ImplementationExecuting',
          event: 'all_tasks_complete',
          guard: 'allTasksComplete',
          description: 'every task is completed or abandoned, with at least one completed',
        },
      ],
      back: 'ImplementationExecuting',
    });
    expect(json.stderr).toContain(`warning: ${UNMET}`);
    expect(ok(repo, ['project', 'continue']).stdout).toContain(`Warning: ${UNMET.replace(/\.$/, '')}`);
    expect(ok(repo, ['project', 'continue', '--full']).stdout).toContain(`- **Warning**: ${UNMET}.`);
  });

  it('doctor fails naming the state and the guard, with the way back', () => {
    const repo = handSetReview();
    const r = repo.sow(['doctor', '--json']);
    expect(r.code).toBe(1);
    const state = expectEnvelope(r).error.details.checks.find((c: { id: string }) => c.id === 'state');
    expect(state).toEqual({ id: 'state', status: 'fail', message: UNMET, fix: expect.stringContaining(BACK) });
  });

  it(
    'advance refuses (exit 3) with the way back, even when the guard out of the state holds; set back, all is ' +
      'well again',
    () => {
      const repo = handSetReview();
      repo.write('.sow/project/review/report.md', '# Review\n\nPass.\n');
      ok(repo, [
        'output',
        'add',
        '--phase',
        'review',
        '--type',
        'review',
        '--path',
        'review/report.md',
        '--assessment',
        'pass',
        '--approved',
        'true',
      ]);
      const said = expectFails(repo, ['advance'], 3, 'STATE_GUARD_UNMET', { human: true });
      expect(said).toBe(
        `cannot advance: ${UNMET}\n${BACK}; or make the guard hold (unfinished: 010 (pending), 020 (pending); finish ` +
          `them with 'sow task set --id <id> status completed' or drop them with 'sow task abandon --id <id>')`,
      );
      repo.write(
        PROJECT,
        repo.read(PROJECT).replace('current_state: ReviewActive', 'current_state: ImplementationExecuting'),
      );
      const status = ok(repo, ['status']);
      expect(status.stderr).not.toContain('warning:');
      expect(repo.sow(['doctor', '--json']).stdout).toContain('"id":"state","status":"ok"');
    },
  );
});
