/**
 * Strict input: typos are refused with "did you mean" instead of landing silently in metadata,
 * phase-owned metadata stays on its phase, agents must exist, reviews carry an assessment, task
 * ids keep counting past 990, dependencies exist and never form a cycle, and status changes are
 * gated by unfinished dependencies and pending feedback. Every refusal: exit code, error code, a
 * hint, and .sow/ byte-identical.
 */
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { useRepos, ok, expectEnvelope, expectFails, inImplementationPlanning, inPlanning, PROJECT, taskFile, toExecuting, type Repo } from './harness.js';

const fresh = useRepos();
const planning = () => inPlanning(fresh);
const implementationPlanning = () => inImplementationPlanning(fresh);

function executing(tasks?: string[]): Repo {
  const repo = fresh();
  toExecuting(repo, tasks);
  return repo;
}

function reviewActive(): Repo {
  const repo = executing(['Only task']);
  ok(repo, ['task', 'set', '--id', '010', 'status', 'completed']);
  ok(repo, ['advance']);
  expect(repo.yaml(PROJECT).statechart.current_state).toBe('ReviewActive');
  return repo;
}

function out(repo: Repo, args: string[]): string {
  return ok(repo, args).stdout.replace(/\n$/, '');
}

describe('did you mean', () => {
  it('task set/get: unknown names go to metadata, near misses of a field are refused, metadata.<name> stores exactly that name', () => {
    const repo = executing();

    ok(repo, ['task', 'set', '--id', '010', 'priority', 'high']);
    expect(repo.yaml(taskFile('010')).metadata).toEqual({ priority: 'high' });

    const swapped = expectFails(repo, ['task', 'set', '--id', '010', 'stauts', 'completed'], 1, 'DID_YOU_MEAN', { human: true });
    expect(swapped).toContain("did you mean 'status'?");
    expect(swapped).toContain("'metadata.stauts'");
    expect(expectFails(repo, ['task', 'set', '--id', '010', 'Status', 'completed'], 1, 'DID_YOU_MEAN')).toContain("did you mean 'status'?");
    expect(expectFails(repo, ['task', 'set', '--id', '010', 'dependancies', '020'], 1, 'DID_YOU_MEAN')).toContain("did you mean 'dependencies'?");
    // get: a typo is not mistaken for "unset".
    expect(expectFails(repo, ['task', 'get', '--id', '010', 'stauts'], 1, 'DID_YOU_MEAN', { human: true })).toContain("did you mean 'status'?");

    // metadata.<name> always means that key, typo-like or not.
    ok(repo, ['task', 'set', '--id', '010', 'metadata.stauts', 'x']);
    // Two edits from a short field ('note' vs 'name') is a real key, not a typo.
    ok(repo, ['task', 'set', '--id', '010', 'note', 'hi']);
    const t = repo.yaml(taskFile('010'));
    expect(t.metadata).toEqual({ priority: 'high', stauts: 'x', note: 'hi' });
    expect(t.status).toBe('pending');
    expect(t.name).toBe('First task');
    expect(out(repo, ['task', 'get', '--id', '010', 'metadata.stauts'])).toBe('x');
    expect(out(repo, ['task', 'get', '--id', '010', 'note'])).toBe('hi');
  });

  it('phase set/get: a near miss of a metadata key the project type uses is refused', () => {
    const repo = implementationPlanning();
    const set = expectFails(repo, ['phase', 'set', 'task_approved', 'true'], 1, 'DID_YOU_MEAN', { human: true });
    expect(set).toContain("did you mean 'tasks_approved'?");
    expect(expectFails(repo, ['phase', 'get', 'tasks_aproved'], 1, 'DID_YOU_MEAN')).toContain("did you mean 'tasks_approved'?");
    expect(repo.yaml(PROJECT).phases.implementation.metadata).toEqual({});
    // The exact name works; metadata.<typo> stores the typo as asked.
    ok(repo, ['phase', 'set', 'tasks_approved', 'true']);
    ok(repo, ['phase', 'set', 'metadata.task_approved', 'x']);
    expect(repo.yaml(PROJECT).phases.implementation.metadata).toEqual({ tasks_approved: true, task_approved: 'x' });
  });

  it('artifacts: a near miss in output set and in an extra --flag of output add is refused', () => {
    const repo = reviewActive();
    const flag = expectFails(repo, ['output', 'add', '--type', 'review', '--path', 'review/r.md', '--asessment', 'pass'], 1, 'DID_YOU_MEAN', { human: true });
    expect(flag).toContain("did you mean 'assessment'?");
    expect(repo.yaml(PROJECT).phases.review.outputs).toEqual([]);

    ok(repo, ['output', 'add', '--type', 'review', '--path', 'review/r.md', '--assessment', 'pass']);
    repo.write('.sow/project/review/r.md', '# Review\n');
    expect(expectFails(repo, ['output', 'set', '--index', '0', 'aproved', 'true'], 1, 'DID_YOU_MEAN', { human: true })).toContain("did you mean 'approved'?");
    expect(repo.yaml(PROJECT).phases.review.outputs[0].approved).toBe(false);
    ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
    expect(repo.yaml(PROJECT).phases.review.outputs[0].approved).toBe(true);
  });

  it('a near miss of the alias `agent` (`agnet`) is refused too, not stored in metadata', () => {
    const repo = implementationPlanning();
    ok(repo, ['task', 'add', 'A']);
    expect(expectFails(repo, ['task', 'set', '--id', '010', 'agnet', 'reviewer'], 1, 'DID_YOU_MEAN')).toContain("did you mean 'agent'?");
  });
});

describe('phase-owned metadata', () => {
  it('tasks_approved belongs to implementation and project_deleted to finalize, by name or as metadata.<key>', () => {
    const repo = planning();
    const wrong = expectFails(repo, ['phase', 'set', 'tasks_approved', 'true'], 1, 'WRONG_PHASE', { human: true });
    expect(wrong).toContain("'tasks_approved' belongs to the implementation phase, not planning");
    expect(wrong).toContain('pass --phase implementation');
    expect(expectFails(repo, ['phase', 'set', 'metadata.tasks_approved', 'true'], 1, 'WRONG_PHASE')).toContain('pass --phase implementation');
    expect(expectFails(repo, ['phase', 'set', 'project_deleted', 'true', '--phase', 'review'], 1, 'WRONG_PHASE')).toContain('pass --phase finalize');
    expect(expectFails(repo, ['phase', 'get', 'tasks_approved'], 1, 'WRONG_PHASE', { human: true })).toContain('pass --phase implementation');
    expect(expectFails(repo, ['phase', 'get', 'metadata.tasks_approved'], 1, 'WRONG_PHASE')).toContain('pass --phase implementation');

    ok(repo, ['phase', 'set', 'tasks_approved', 'true', '--phase', 'implementation']);
    ok(repo, ['phase', 'set', 'project_deleted', 'false', '--phase', 'finalize']);
    const s = repo.yaml(PROJECT);
    expect(s.phases.planning.metadata).toEqual({});
    expect(s.phases.implementation.metadata).toEqual({ tasks_approved: true });
    expect(s.phases.finalize.metadata).toEqual({ project_deleted: false });
    expect(out(repo, ['phase', 'get', 'tasks_approved', '--phase', 'implementation'])).toBe('true');
  });

  it('phase get suggests a metadata key of another phase as phase set does (tasks_aproved in PlanningActive)', () => {
    const repo = planning();
    expect(expectFails(repo, ['phase', 'set', 'tasks_aproved', 'true'], 1, 'DID_YOU_MEAN')).toContain("did you mean 'tasks_approved'?");
    // get only offers the current phase's declared keys, so the typo gets no suggestion here.
    expect(expectFails(repo, ['phase', 'get', 'tasks_aproved'], 1, 'DID_YOU_MEAN')).toContain("did you mean 'tasks_approved'?");
  });
});

describe('agents', () => {
  it('task add --agent (a flag: exit 2) and task set agent|assigned_agent (a field: exit 1) take only known agents', () => {
    const repo = implementationPlanning();
    const typo = expectFails(repo, ['task', 'add', 'X', '--agent', 'implementr'], 2, 'USAGE', { human: true });
    expect(typo).toContain("unknown agent 'implementr'; did you mean 'implementer'?");
    const bob = expectFails(repo, ['task', 'add', 'X', '--agent', 'bob'], 2, 'USAGE');
    expect(bob).not.toContain('did you mean');
    for (const agent of ['implementer', 'architect', 'reviewer', 'planner', 'researcher', 'decomposer', 'orchestrator']) expect(bob).toContain(agent);
    expect(repo.exists('.sow/project/phases/implementation/tasks')).toBe(false);

    ok(repo, ['task', 'add', 'X', '--agent', 'architect']);
    expect(expectFails(repo, ['task', 'set', '--id', '010', 'agent', 'implementr'], 1, 'UNKNOWN_AGENT')).toContain("did you mean 'implementer'?");
    expect(expectFails(repo, ['task', 'set', '--id', '010', 'assigned_agent', 'revewer'], 1, 'UNKNOWN_AGENT')).toContain("did you mean 'reviewer'?");
    expect(expectFails(repo, ['task', 'set', '--id', '010', 'assigned_agent', 'bob'], 1, 'UNKNOWN_AGENT')).toContain('decomposer');
    expect(repo.yaml(taskFile('010')).assigned_agent).toBe('architect');
    ok(repo, ['task', 'set', '--id', '010', 'agent', 'reviewer']);
    expect(repo.yaml(taskFile('010')).assigned_agent).toBe('reviewer');
    ok(repo, ['task', 'set', '--id', '010', 'assigned_agent', 'orchestrator']);
    expect(repo.yaml(taskFile('010')).assigned_agent).toBe('orchestrator');
  });
});

describe('review assessment', () => {
  it('a review output needs --assessment when added and when approved, even one written in by hand', () => {
    const repo = reviewActive();
    const add = expectFails(repo, ['output', 'add', '--type', 'review', '--path', 'review/r.md'], 1, 'METADATA_REQUIRED', { human: true });
    expect(add).toContain('--assessment');
    expect(add).toContain('sow output add --phase review --type review --path review/r.md --assessment pass');

    // A person adds a review to the project file by hand, without an assessment.
    const s = repo.yaml(PROJECT);
    s.phases.review.outputs.push({ type: 'review', path: 'review/manual.md', approved: false, created_at: new Date().toISOString() });
    repo.write(PROJECT, stringify(s));
    repo.write('.sow/project/review/manual.md', '# Review\nLooks good.\n');
    expect(out(repo, ['output', 'list'])).toBe('[0] review: review/manual.md (not approved)');

    const approve = expectFails(repo, ['output', 'set', '--index', '0', 'approved', 'true'], 1, 'METADATA_REQUIRED', { human: true });
    expect(approve).toContain('assessment');
    expect(approve).toContain('sow output set --phase review --index 0 assessment pass');
    expectFails(repo, ['advance'], 3, 'TRANSITION_BLOCKED');

    ok(repo, ['output', 'set', '--index', '0', 'assessment', 'pass']);
    ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
    expect(repo.yaml(PROJECT).phases.review.outputs[0]).toMatchObject({ approved: true, metadata: { assessment: 'pass' } });
    expect(out(repo, ['advance'])).toBe('FinalizeDocumentation');
  });
});

describe('task ids', () => {
  it('numbering continues past 990, lists order by number, --id 10 names 010 everywhere', () => {
    const repo = implementationPlanning();
    expect(out(repo, ['task', 'add', 'Ten'])).toBe('010');
    expect(out(repo, ['task', 'add', 'Twenty'])).toBe('020');
    expect(out(repo, ['task', 'add', 'Late', '--id', '980'])).toBe('980');
    expect(out(repo, ['task', 'add', 'Later', '--id', '990'])).toBe('990');
    expect(out(repo, ['task', 'add', 'Thousand'])).toBe('1000');
    expect(out(repo, ['task', 'add', 'After'])).toBe('1010');
    expect(out(repo, ['task', 'add', 'Squeezed', '--id', '15'])).toBe('015');
    expect(repo.yaml(taskFile('1000'))).toMatchObject({ id: '1000', name: 'Thousand' });
    expect(repo.yaml(taskFile('015'))).toMatchObject({ id: '015', name: 'Squeezed' });

    const ids = ['010', '015', '020', '980', '990', '1000', '1010'];
    expect(expectEnvelope(ok(repo, ['task', 'list', '--json'])).data.map((t: { id: string }) => t.id)).toEqual(ids);
    expect(
      out(repo, ['task', 'list'])
        .split('\n')
        .map((l) => /^\[(\d+)\]/.exec(l)?.[1]),
    ).toEqual(ids);

    // --id 10 finds 010 in every command that takes a task id.
    expect(out(repo, ['task', 'get', '--id', '10', 'name'])).toBe('Ten');
    ok(repo, ['task', 'set', '--id', '10', 'status', 'in_progress']);
    expect(repo.yaml(taskFile('010')).status).toBe('in_progress');
    ok(repo, ['task', 'input', 'add', '--id', '10', '--type', 'reference', '--path', 'notes.md']);
    expect(out(repo, ['task', 'input', 'list', '--id', '10'])).toBe('[0] reference: notes.md');
    expect(repo.yaml(taskFile('010')).inputs).toHaveLength(1);
    expect(out(repo, ['task', 'get', '--id', '0010', 'status'])).toBe('in_progress');
    expect(out(repo, ['task', 'get', '--id', '1000', 'name'])).toBe('Thousand');

    const taken = expectFails(repo, ['task', 'add', 'Clash', '--id', '10'], 1, 'TASK_ID_TAKEN', { human: true });
    expect(taken).toContain("'010'");
    expect(expectFails(repo, ['task', 'add', 'Clash', '--id', '01000'], 1, 'TASK_ID_TAKEN')).toContain("'1000'");
  });
});

describe('dependencies and status gates', () => {
  it('dependencies must exist and form no cycle; an empty value clears them; an unfinished dependency blocks starting', () => {
    const repo = executing(['First', 'Second', 'Third']);
    expectFails(repo, ['task', 'add', 'Bad', '--depends-on', '010,999'], 1, 'TASK_NOT_FOUND', { human: true });
    expectFails(repo, ['task', 'set', '--id', '020', 'dependencies', '010,999'], 1, 'TASK_NOT_FOUND');
    expect(repo.exists(taskFile('040'))).toBe(false);

    ok(repo, ['task', 'set', '--id', '020', 'dependencies', '010']);
    expect(repo.yaml(taskFile('020')).dependencies).toEqual(['010']);
    const cycle = expectFails(repo, ['task', 'set', '--id', '010', 'dependencies', '020'], 1, 'DEPENDENCY_CYCLE', { human: true });
    expect(cycle).toContain('010 → 020 → 010');
    expect(repo.yaml(taskFile('010')).dependencies).toEqual([]);

    // Starting 020 while 010 is pending.
    const blocked = expectFails(repo, ['task', 'set', '--id', '020', 'status', 'in_progress'], 3, 'TASK_BLOCKED', { human: true });
    expect(blocked).toContain('task 020 cannot start: it depends on 010 (pending)');
    expect(blocked).toContain('--force');
    ok(repo, ['task', 'set', '--id', '020', 'status', 'in_progress', '--force']);
    expect(repo.yaml(taskFile('020')).status).toBe('in_progress');
    ok(repo, ['task', 'set', '--id', '020', 'status', 'pending']);

    // Once 010 is completed, 020 starts without --force.
    ok(repo, ['task', 'set', '--id', '010', 'status', 'completed']);
    ok(repo, ['task', 'set', '--id', '020', 'status', 'in_progress']);
    expect(repo.yaml(taskFile('020')).status).toBe('in_progress');

    // An abandoned dependency does not block either.
    ok(repo, ['task', 'set', '--id', '020', 'status', 'pending']);
    ok(repo, ['task', 'set', '--id', '020', 'dependencies', '010,030']);
    expect(expectFails(repo, ['task', 'set', '--id', '020', 'status', 'in_progress'], 3, 'TASK_BLOCKED')).toContain('depends on 030 (pending)');
    ok(repo, ['task', 'abandon', '--id', '030']);
    ok(repo, ['task', 'set', '--id', '020', 'status', 'in_progress']);

    ok(repo, ['task', 'set', '--id', '020', 'dependencies', '']);
    expect(repo.yaml(taskFile('020')).dependencies).toEqual([]);
    expect(expectEnvelope(ok(repo, ['task', 'list', '--json'])).data[1]).toMatchObject({ id: '020', dependencies: [] });
  });

  it('pending feedback blocks completing a task until it is addressed (or --force)', () => {
    const repo = executing(['Only task']);
    ok(repo, ['task', 'input', 'add', '--id', '010', '--type', 'reference', '--path', 'sinks/style.md']);
    ok(repo, ['task', 'input', 'add', '--id', '010', '--type', 'feedback', '--path', 'phases/implementation/tasks/010/feedback/001.md']);
    ok(repo, ['task', 'set', '--id', '010', 'status', 'in_progress']);

    const blocked = expectFails(repo, ['task', 'set', '--id', '010', 'status', 'completed'], 3, 'TASK_BLOCKED', { human: true });
    expect(blocked).toContain('[1] phases/implementation/tasks/010/feedback/001.md');
    expect(blocked).toContain("'sow task input set --id 010 --index 1 status addressed'");
    expect(blocked).toContain('--force');

    ok(repo, ['task', 'set', '--id', '010', 'status', 'completed', '--force']);
    expect(repo.yaml(taskFile('010')).status).toBe('completed');
    // Reopened, which a completed task needs --force for too.
    ok(repo, ['task', 'set', '--id', '010', 'status', 'in_progress', '--force']);

    ok(repo, ['task', 'input', 'set', '--id', '010', '--index', '1', 'status', 'addressed']);
    ok(repo, ['task', 'set', '--id', '010', 'status', 'completed']);
    expect(repo.yaml(taskFile('010'))).toMatchObject({ status: 'completed', inputs: [{ type: 'reference' }, { type: 'feedback', metadata: { status: 'addressed' } }] });
  });
});
