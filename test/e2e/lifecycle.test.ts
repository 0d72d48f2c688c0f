/**
 * The standard lifecycle end to end: the specification's "Complete Lifecycle Example" command for
 * command, a project started with --no-planning, and one refusal of 'phase set enabled'. In-process
 * (src/app/lifecycle.test.ts): the review-fail loop (what a failed review reopens and keeps, which
 * review decides afterwards), a project without planning walked to its end, and each phase whose
 * running is settled when the project starts.
 */
import { describe, expect, it } from 'vitest';
import { expectFails, useRepos, ok, PROJECT, taskFile, type Repo } from './harness.js';

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
const TASKS_DIR = '.sow/project/phases/implementation/tasks';

const fresh = useRepos();

/** Runs sow, expects exit 0, and returns stdout without its trailing newline. */
function out(repo: Repo, args: string[]): string {
  return ok(repo, args).stdout.replace(/\n$/, '');
}

describe('spec 000: Complete Lifecycle Example', () => {
  it('runs the example command for command, with the state the spec shows after each step', () => {
    const repo = fresh();
    const state = () => repo.yaml(PROJECT);

    // ── 1. Initialize Project ───────────────────────────────────────────────────────────────
    const created = ok(repo, ['project', 'new', 'add-auth', '--description', 'Add JWT authentication to API']);
    expect(created.stdout).toBe('PlanningActive\n');
    expect(created.stderr).toContain("Created project 'add-auth'");
    expect(created.stderr).toContain('feat/add-auth');
    expect(repo.git(['branch', '--show-current'])).toBe('feat/add-auth');
    let s = state();
    expect(s).toMatchObject({
      name: 'add-auth',
      description: 'Add JWT authentication to API',
      branch: 'feat/add-auth',
      type: 'standard',
      statechart: { current_state: 'PlanningActive', updated_at: ISO },
      created_at: ISO,
      updated_at: ISO,
    });
    expect(Object.keys(s.phases)).toEqual(['planning', 'implementation', 'review', 'finalize']);
    expect(s.phases.planning).toMatchObject({
      status: 'in_progress',
      enabled: true,
      iteration: 1,
      started_at: ISO,
      inputs: [],
      outputs: [],
      metadata: {},
    });
    for (const name of ['implementation', 'review', 'finalize']) {
      expect(s.phases[name]).toMatchObject({
        status: 'pending',
        enabled: true,
        iteration: 1,
        inputs: [],
        outputs: [],
        metadata: {},
      });
      expect(s.phases[name].started_at).toBeUndefined();
    }
    // Tasks live in their own files only; the project file keeps no list of them.
    expect(s.phases.implementation.tasks).toBeUndefined();
    expect(s.base_branch).toBe('main');
    expect(s.statechart.history).toEqual([
      { from: 'NoProject', to: 'PlanningActive', event: 'project_init', at: ISO, by: 'user' },
    ]);
    expect(repo.exists('.sow/project/log.md')).toBe(true);

    // ── 2. Planning Phase ───────────────────────────────────────────────────────────────────
    expect(out(repo, ['input', 'add', '--type', 'context', '--path', 'discovery/jwt-research.md'])).toBe(
      '[0] context: discovery/jwt-research.md',
    );
    expect(out(repo, ['input', 'add', '--type', 'context', '--path', 'sinks/auth-patterns.md'])).toBe(
      '[1] context: sinks/auth-patterns.md',
    );
    expect(out(repo, ['output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md'])).toBe(
      '[0] task_list: planning/tasks.md (not approved)',
    );

    const listed = ok(repo, ['output', 'list']);
    expect(listed.stdout).toBe('[0] task_list: planning/tasks.md (not approved)\n');

    // An approval vouches for a file: the task list must be written first.
    expect(repo.sow(['output', 'set', '--index', '0', 'approved', 'true']).code).toBe(1);
    repo.write('.sow/project/planning/tasks.md', '# Tasks\n\n1. Sign\n2. Verify\n3. Middleware\n');
    ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
    s = state();
    expect(s.phases.planning.status).toBe('in_progress');
    expect(s.phases.planning.inputs).toEqual([
      { type: 'context', path: 'discovery/jwt-research.md', created_at: ISO },
      { type: 'context', path: 'sinks/auth-patterns.md', created_at: ISO },
    ]);
    // The approval records the content it was given for (it holds while the file keeps it).
    expect(s.phases.planning.outputs).toEqual([
      {
        type: 'task_list',
        path: 'planning/tasks.md',
        created_at: ISO,
        approved: true,
        approved_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
    ]);
    expect(out(repo, ['output', 'list'])).toBe('[0] task_list: planning/tasks.md (approved)');

    const toImplementation = ok(repo, ['advance']);
    expect(toImplementation.stdout).toBe('ImplementationPlanning\n');
    expect(toImplementation.stderr).toContain('PlanningActive → ImplementationPlanning (complete_planning)');
    s = state();
    expect(s.statechart.current_state).toBe('ImplementationPlanning');
    expect(s.phases.planning).toMatchObject({ status: 'completed', completed_at: ISO });
    expect(s.phases.implementation).toMatchObject({ status: 'in_progress', started_at: ISO, iteration: 1 });

    // ── 3. Implementation Planning ──────────────────────────────────────────────────────────
    expect(out(repo, ['task', 'add', 'Implement JWT signing', '--agent', 'implementer'])).toBe('010');
    expect(out(repo, ['task', 'add', 'Implement JWT verification', '--agent', 'implementer'])).toBe('020');
    expect(out(repo, ['task', 'add', 'Add auth middleware', '--agent', 'implementer'])).toBe('030');
    s = state();
    expect(s.phases.implementation.status).toBe('in_progress');
    const names = {
      '010': 'Implement JWT signing',
      '020': 'Implement JWT verification',
      '030': 'Add auth middleware',
    } as const;
    expect(ok(repo, ['task', 'list', '--json']).json!.data).toEqual(
      Object.entries(names).map(([id, name]) => ({
        id,
        name,
        status: 'pending',
        parallel: false,
        assigned_agent: 'implementer',
      })),
    );
    for (const [id, name] of Object.entries(names)) {
      const task = repo.yaml(taskFile(id));
      expect(task).toMatchObject({
        id,
        name,
        phase: 'implementation',
        status: 'pending',
        iteration: 1,
        assigned_agent: 'implementer',
        parallel: false,
        dependencies: [],
        inputs: [],
        outputs: [],
        created_at: ISO,
        updated_at: ISO,
      });
      expect(task.started_at).toBeUndefined();
      expect(task.completed_at).toBeUndefined();
      expect(repo.read(`${TASKS_DIR}/${id}/description.md`)).toContain(name);
      expect(repo.exists(`${TASKS_DIR}/${id}/log.md`)).toBe(true);
      expect(repo.exists(`${TASKS_DIR}/${id}/feedback`)).toBe(true);
    }

    ok(repo, ['phase', 'set', 'tasks_approved', 'true']);
    expect(state().phases.implementation.metadata.tasks_approved).toBe(true);

    expect(out(repo, ['advance'])).toBe('ImplementationExecuting');
    expect(state().statechart.current_state).toBe('ImplementationExecuting');
    expect(state().phases.implementation.status).toBe('in_progress');

    // ── 4. Implementation Execution ─────────────────────────────────────────────────────────
    ok(repo, ['task', 'set', '--id', '010', 'status', 'in_progress']);
    let t010 = repo.yaml(taskFile('010'));
    expect(t010).toMatchObject({ status: 'in_progress', started_at: ISO });
    expect(t010.completed_at).toBeUndefined();
    expect(ok(repo, ['task', 'list', '--json']).json!.data[0]).toMatchObject({ id: '010', status: 'in_progress' });

    expect(
      out(repo, ['task', 'input', 'add', '--id', '010', '--type', 'reference', '--path', 'sinks/style-guide.md']),
    ).toBe('[0] reference: sinks/style-guide.md');
    expect(
      out(repo, ['task', 'input', 'add', '--id', '010', '--type', 'reference', '--path', 'knowledge/jwt-design.md']),
    ).toBe('[1] reference: knowledge/jwt-design.md');
    expect(repo.yaml(taskFile('010')).inputs).toEqual([
      { type: 'reference', path: 'sinks/style-guide.md', created_at: ISO },
      { type: 'reference', path: 'knowledge/jwt-design.md', created_at: ISO },
    ]);

    // The worker's outputs (the spec tracks them via logging; the command surface records them),
    // named from the repository root, as the spec's "state after execution" shows.
    expect(out(repo, ['task', 'output', 'add', '--id', '010', '--type', 'modified', '--path', 'src/auth/jwt.ts'])).toBe(
      '[0] modified: src/auth/jwt.ts',
    );
    expect(
      out(repo, ['task', 'output', 'add', '--id', '010', '--type', 'modified', '--path', 'src/auth/verify.ts']),
    ).toBe('[1] modified: src/auth/verify.ts');
    expect(repo.yaml(taskFile('010')).outputs).toEqual([
      { type: 'modified', path: 'src/auth/jwt.ts', created_at: ISO },
      { type: 'modified', path: 'src/auth/verify.ts', created_at: ISO },
    ]);

    // Human feedback.
    ok(repo, [
      'task',
      'input',
      'add',
      '--id',
      '010',
      '--type',
      'feedback',
      '--path',
      'phases/implementation/tasks/010/feedback/001.md',
    ]);
    ok(repo, [
      'task',
      'input',
      'add',
      '--id',
      '010',
      '--type',
      'feedback',
      '--path',
      'phases/implementation/tasks/010/feedback/002.md',
    ]);
    const inputs = ok(repo, ['task', 'input', 'list', '--id', '010']);
    // With its heading, as the command surface shows it.
    expect(inputs.stdout.split('\n').filter(Boolean)).toEqual([
      'Inputs:',
      '[0] reference: sinks/style-guide.md',
      '[1] reference: knowledge/jwt-design.md',
      '[2] feedback: phases/implementation/tasks/010/feedback/001.md (status: pending)',
      '[3] feedback: phases/implementation/tasks/010/feedback/002.md (status: pending)',
    ]);

    // Pending feedback blocks completion (exit 3) until it is addressed.
    expect(repo.sow(['task', 'set', '--id', '010', 'status', 'completed']).code).toBe(3);
    ok(repo, ['task', 'input', 'set', '--id', '010', '--index', '2', 'status', 'addressed']);
    ok(repo, ['task', 'input', 'set', '--id', '010', '--index', '3', 'status', 'addressed']);
    expect(repo.yaml(taskFile('010')).inputs).toEqual([
      { type: 'reference', path: 'sinks/style-guide.md', created_at: ISO },
      { type: 'reference', path: 'knowledge/jwt-design.md', created_at: ISO },
      {
        type: 'feedback',
        path: 'phases/implementation/tasks/010/feedback/001.md',
        created_at: ISO,
        metadata: { status: 'addressed' },
      },
      {
        type: 'feedback',
        path: 'phases/implementation/tasks/010/feedback/002.md',
        created_at: ISO,
        metadata: { status: 'addressed' },
      },
    ]);

    ok(repo, ['task', 'set', '--id', '010', 'status', 'completed']);
    t010 = repo.yaml(taskFile('010'));
    expect(t010).toMatchObject({ status: 'completed', started_at: ISO, completed_at: ISO });

    for (const id of ['020', '030']) {
      ok(repo, ['task', 'set', '--id', id, 'status', 'in_progress']);
      ok(repo, ['task', 'set', '--id', id, 'status', 'completed']);
    }
    expect(ok(repo, ['task', 'list', '--json']).json!.data.map((t: { status: string }) => t.status)).toEqual([
      'completed',
      'completed',
      'completed',
    ]);

    const toReview = ok(repo, ['advance']);
    expect(toReview.stdout).toBe('ReviewActive\n');
    expect(toReview.stderr).toContain('(all_tasks_complete)');
    s = state();
    expect(s.statechart.current_state).toBe('ReviewActive');
    expect(s.phases.implementation).toMatchObject({ status: 'completed', completed_at: ISO });
    expect(s.phases.review).toMatchObject({ status: 'in_progress', started_at: ISO });

    // ── 5. Review Phase ─────────────────────────────────────────────────────────────────────
    expect(out(repo, ['output', 'add', '--type', 'review', '--path', 'review/report.md', '--assessment', 'pass'])).toBe(
      '[0] review: review/report.md (assessment: pass, not approved)',
    );
    expect(state().phases.review.outputs).toEqual([
      { type: 'review', path: 'review/report.md', created_at: ISO, approved: false, metadata: { assessment: 'pass' } },
    ]);
    expect(ok(repo, ['output', 'list']).stdout).toBe('[0] review: review/report.md (assessment: pass, not approved)\n');
    repo.write('.sow/project/review/report.md', '# Review\n\nPass.\n');
    ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
    expect(state().phases.review.outputs[0]).toMatchObject({ approved: true, metadata: { assessment: 'pass' } });

    const toFinalize = ok(repo, ['advance']);
    expect(toFinalize.stdout).toBe('FinalizeDocumentation\n');
    expect(toFinalize.stderr).toContain('(review_pass)');
    s = state();
    expect(s.phases.review).toMatchObject({ status: 'completed', completed_at: ISO });
    expect(s.phases.finalize).toMatchObject({ status: 'in_progress', started_at: ISO });

    // ── 6. Finalize Phase ───────────────────────────────────────────────────────────────────
    expect(out(repo, ['advance'])).toBe('FinalizeChecks');
    expect(state().statechart.current_state).toBe('FinalizeChecks');
    expect(out(repo, ['advance'])).toBe('FinalizeDelete');
    expect(state().statechart.current_state).toBe('FinalizeDelete');

    ok(repo, ['phase', 'set', 'project_deleted', 'true']);
    expect(state().phases.finalize.metadata.project_deleted).toBe(true);

    // Every transition so far, in order, by the user.
    const history = ok(repo, ['project', 'history', '--json']).json!.data as {
      from: string;
      to: string;
      event: string;
      at: string;
      by: string;
    }[];
    expect(history.map((h) => `${h.from} -${h.event}-> ${h.to}`)).toEqual([
      'NoProject -project_init-> PlanningActive',
      'PlanningActive -complete_planning-> ImplementationPlanning',
      'ImplementationPlanning -tasks_approved-> ImplementationExecuting',
      'ImplementationExecuting -all_tasks_complete-> ReviewActive',
      'ReviewActive -review_pass-> FinalizeDocumentation',
      'FinalizeDocumentation -documentation_done-> FinalizeChecks',
      'FinalizeChecks -checks_done-> FinalizeDelete',
    ]);
    expect(new Set(history.map((h) => h.by))).toEqual(new Set(['user']));
    expect(out(repo, ['project', 'history']).split('\n')).toHaveLength(7);

    const done = ok(repo, ['advance']);
    expect(done.stdout).toBe('NoProject\n');
    expect(done.stderr).toContain('(project_delete)');
    expect(repo.exists('.sow/project')).toBe(false);
    // The workspace itself stays.
    expect(repo.exists('.sow/.version')).toBe(true);
    expect(repo.exists('.sow/knowledge')).toBe(true);

    const gone = repo.sow(['project', 'status', '--json']);
    expect(gone.code).toBe(1);
    expect(gone.json?.error?.code).toBe('NO_PROJECT');

    // A new project can start; off main, it stays on the branch it is on.
    expect(out(repo, ['project', 'new', 'add-refresh-tokens', '--description', 'Next'])).toBe('PlanningActive');
    expect(state()).toMatchObject({
      name: 'add-refresh-tokens',
      branch: 'feat/add-auth',
      statechart: { current_state: 'PlanningActive' },
    });
    expect(repo.git(['branch', '--show-current'])).toBe('feat/add-auth');
  });
});

describe('--no-planning', () => {
  it(
    "starts at ImplementationPlanning with planning disabled, which takes no artifacts, and 'phase set enabled' " +
      'cannot revive',
    () => {
      const repo = fresh();
      const created = ok(repo, ['project', 'new', 'quick-fix', '--no-planning', '--description', 'Small fix']);
      expect(created.stdout).toBe('ImplementationPlanning\n');
      expect(repo.git(['branch', '--show-current'])).toBe('feat/quick-fix');
      const s = repo.yaml(PROJECT);
      expect(s).toMatchObject({
        name: 'quick-fix',
        description: 'Small fix',
        branch: 'feat/quick-fix',
        statechart: { current_state: 'ImplementationPlanning' },
      });
      expect(s.phases.planning).toMatchObject({ enabled: false, status: 'pending' });
      expect(s.phases.planning.started_at).toBeUndefined();
      expect(s.phases.implementation).toMatchObject({
        enabled: true,
        status: 'in_progress',
        started_at: ISO,
        iteration: 1,
      });
      expect(out(repo, ['phase', 'get', 'enabled', '--phase', 'planning'])).toBe('false');

      // The disabled phase takes no artifacts.
      const before = repo.snapshot();
      const refused = repo.sow([
        'output',
        'add',
        '--type',
        'task_list',
        '--path',
        'planning/tasks.md',
        '--phase',
        'planning',
        '--json',
      ]);
      expect(refused.code).toBe(3);
      expect(refused.json?.ok).toBe(false);
      expect(refused.json?.error?.message).toContain('planning');
      expect(repo.snapshot()).toEqual(before);

      // Which phases run is settled when the project starts: enabling planning now would show a
      // phase the lifecycle never enters. The phases that always run, setting the value a phase has,
      // and dropping planning once it started: in-process.
      const revived = expectFails(
        repo,
        ['phase', 'set', 'enabled', 'true', '--phase', 'planning'],
        1,
        'READ_ONLY_FIELD',
        { human: true },
      );
      expect(revived).toContain(
        'which phases run is settled when the project starts, and the lifecycle has already passed the planning phase',
      );
      expect(revived).toContain("'sow project new <name> --no-planning'");
      // The rest of the lifecycle without planning: in-process.
    },
  );
});
