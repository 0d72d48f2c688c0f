/**
 * Transition history: every transition, project_init too, is appended to statechart.history with
 * from, to, event, when, and who fired it — a worker (its agent id and session, from the
 * environment sow gives it) or else the user. `sow project history` prints it.
 */
import { describe, expect, it } from 'vitest';
import { ok, PROJECT, TASK_LIST, useRepos } from './harness.js';

const fresh = useRepos();
const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

describe('sow project history', () => {
  it('records who fired each transition: a worker by its agent id and session, else the user', () => {
    const repo = fresh();
    ok(repo, ['project', 'new', 'demo', '--description', 'x']);
    repo.write(TASK_LIST, '# Tasks\n');
    ok(repo, ['output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md', '--approved', 'true']);
    // A worker advances: sow spawned it with SOW_AGENT_ID and SOW_SESSION_ID.
    ok(repo, ['advance'], {
      env: { SOW_AGENT_ID: 'planner-1', SOW_SESSION_ID: '5f0c7d1e-0000-4000-8000-000000000001' },
    });
    ok(repo, ['task', 'add', 'One', '--agent', 'implementer']);
    ok(repo, ['phase', 'set', 'tasks_approved', 'true']);
    // A dry run records nothing.
    ok(repo, ['advance', '--dry-run']);
    ok(repo, ['advance']);

    const history = repo.yaml(PROJECT).statechart.history;
    expect(history).toEqual([
      { from: 'NoProject', to: 'PlanningActive', event: 'project_init', at: ISO, by: 'user' },
      {
        from: 'PlanningActive',
        to: 'ImplementationPlanning',
        event: 'complete_planning',
        at: ISO,
        by: 'planner-1',
        session: '5f0c7d1e-0000-4000-8000-000000000001',
      },
      { from: 'ImplementationPlanning', to: 'ImplementationExecuting', event: 'tasks_approved', at: ISO, by: 'user' },
    ]);
    expect(history.map((h: { at: string }) => h.at)).toEqual([...history.map((h: { at: string }) => h.at)].sort());
    expect(ok(repo, ['project', 'history', '--json']).json!.data).toEqual(history);

    const text = ok(repo, ['project', 'history']).stdout.trim().split('\n');
    expect(text).toHaveLength(3);
    expect(text[0]).toMatch(/^\S+Z\s+project_init\s+NoProject → PlanningActive\s+by user$/);
    expect(text[1]).toContain('complete_planning');
    expect(text[1]).toContain('by planner-1 (session 5f0c7d1e-0000-4000-8000-000000000001)');

    // Blocked and refused advances record nothing.
    const before = repo.snapshot();
    expect(repo.sow(['advance']).code).toBe(3);
    expect(repo.sow(['advance', 'review_pass']).code).toBe(1);
    expect(repo.snapshot()).toEqual(before);
  });

  it('is read-only: it cannot be set, and it needs a project', () => {
    const repo = fresh();
    const none = repo.sow(['project', 'history', '--json']);
    expect(none.code).toBe(1);
    expect(none.json?.error?.code).toBe('NO_PROJECT');
    ok(repo, ['project', 'new', 'demo', '--description', 'x']);
    const refused = repo.sow(['project', 'set', 'statechart.history', '[]', '--json']);
    expect(refused.code).toBe(1);
    expect(refused.json?.error?.code).toBe('READ_ONLY_FIELD');
    expect(repo.yaml(PROJECT).statechart.history).toHaveLength(1);
  });
});
