/**
 * Strict input in-process: typos are refused with "did you mean" instead of landing silently in
 * metadata, phase-owned metadata stays on its phase, agents must exist, reviews carry an
 * assessment, task ids keep counting past 990, dependencies exist and never form a cycle, and
 * status changes wait for unfinished dependencies and pending feedback. Every refusal: its error
 * code and exit code, a hint, and .sow/ byte-identical. What the command line adds (refusals as
 * stderr words them, an unknown --agent as a usage error, what get and list print) is
 * test/e2e/strict-input.test.ts.
 */
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import {
  PROJECT,
  refused,
  said,
  T0,
  taskFile,
  toImplementationPlanning,
  toExecuting,
  worlds,
  type World,
} from '../../test/inproc.js';
import { advanceProject } from './advance.js';
import { addArtifact, listArtifacts, setArtifact } from './artifacts.js';
import { getPhaseField, setPhaseField } from './phase.js';
import { newProject } from './project.js';
import { addTask, getTask, listTasks } from './task.js';
import { abandonTask, setTaskField } from './task-change.js';

const phase = { kind: 'phase' } as const;

async function planning(w: World): Promise<void> {
  await newProject(w.ctx(), { name: 'demo', description: 'A demo project', planning: true });
}

const world = worlds({
  planning,
  implementationPlanning: toImplementationPlanning,
  executing: (w) => toExecuting(w, ['First', 'Second', 'Third']),
  reviewActive: async (w) => {
    await toExecuting(w, ['Only task']);
    await setTaskField(w.ctx(), '010', 'status', 'completed');
    expect((await advanceProject(w.ctx(), undefined, false)).to).toBe('ReviewActive');
  },
  one: (w) => toExecuting(w, ['Only task']),
});

/** Refused with this code and exit code (a hint, nothing changed): "message\nhint". */
const refusal = async (w: World, run: () => Promise<unknown>, code: string, exit: number) =>
  said(await refused(w, run, code, exit));

describe('did you mean', () => {
  it(
    'task set/get: unknown names go to metadata, near misses of a field are refused, metadata.<name> stores ' +
      'exactly that name',
    async () => {
      const w = await world('executing');
      const ctx = w.ctx();
      await setTaskField(ctx, '010', 'priority', 'high');
      expect(w.yaml(taskFile('010')).metadata).toEqual({ priority: 'high' });

      const swapped = await refusal(w, () => setTaskField(ctx, '010', 'stauts', 'completed'), 'DID_YOU_MEAN', 1);
      expect(swapped).toContain("did you mean 'status'?");
      expect(swapped).toContain("'metadata.stauts'");
      expect(await refusal(w, () => setTaskField(ctx, '010', 'Status', 'completed'), 'DID_YOU_MEAN', 1)).toContain(
        "did you mean 'status'?",
      );
      expect(await refusal(w, () => setTaskField(ctx, '010', 'dependancies', '020'), 'DID_YOU_MEAN', 1)).toContain(
        "did you mean 'dependencies'?",
      );
      // get: a typo is not mistaken for "unset".
      expect(await refusal(w, () => getTask(ctx, '010', 'stauts'), 'DID_YOU_MEAN', 1)).toContain(
        "did you mean 'status'?",
      );

      // metadata.<name> always means that key, typo-like or not.
      await setTaskField(ctx, '010', 'metadata.stauts', 'x');
      // Two edits from a short field ('note' vs 'name') is a real key, not a typo.
      await setTaskField(ctx, '010', 'note', 'hi');
      const t = w.yaml(taskFile('010'));
      expect(t.metadata).toEqual({ priority: 'high', stauts: 'x', note: 'hi' });
      expect(t.status).toBe('pending');
      expect(t.name).toBe('First');
      expect((await getTask(ctx, '010', 'metadata.stauts')).value).toBe('x');
      expect((await getTask(ctx, '010', 'note')).value).toBe('hi');
    },
  );

  it('phase set/get: a near miss of a metadata key the project type uses is refused', async () => {
    const w = await world('implementationPlanning');
    const ctx = w.ctx();
    expect(await refusal(w, () => setPhaseField(ctx, 'task_approved', 'true'), 'DID_YOU_MEAN', 1)).toContain(
      "did you mean 'tasks_approved'?",
    );
    expect(await refusal(w, () => getPhaseField(ctx, 'tasks_aproved'), 'DID_YOU_MEAN', 1)).toContain(
      "did you mean 'tasks_approved'?",
    );
    expect(w.yaml(PROJECT).phases.implementation.metadata).toEqual({});
    // The exact name works (for tasks that exist); metadata.<typo> stores the typo as asked.
    await addTask(ctx, { name: 'A' });
    await setPhaseField(ctx, 'tasks_approved', 'true');
    await setPhaseField(ctx, 'metadata.task_approved', 'x');
    expect(w.yaml(PROJECT).phases.implementation.metadata).toMatchObject({ tasks_approved: true, task_approved: 'x' });
  });

  it('artifacts: a near miss in output set and in an extra --flag of output add is refused', async () => {
    const w = await world('reviewActive');
    const ctx = w.ctx();
    const flag = await refusal(
      w,
      () => addArtifact(ctx, phase, 'outputs', { type: 'review', path: 'review/r.md', extra: { asessment: 'pass' } }),
      'DID_YOU_MEAN',
      1,
    );
    expect(flag).toContain("did you mean 'assessment'?");
    expect(w.yaml(PROJECT).phases.review.outputs).toEqual([]);

    await addArtifact(ctx, phase, 'outputs', { type: 'review', path: 'review/r.md', extra: { assessment: 'pass' } });
    w.write('.sow/project/review/r.md', '# Review\n');
    expect(
      await refusal(w, () => setArtifact(ctx, phase, 'outputs', 0, 'aproved', 'true'), 'DID_YOU_MEAN', 1),
    ).toContain("did you mean 'approved'?");
    expect(w.yaml(PROJECT).phases.review.outputs[0].approved).toBe(false);
    await setArtifact(ctx, phase, 'outputs', 0, 'approved', 'true');
    expect(w.yaml(PROJECT).phases.review.outputs[0].approved).toBe(true);
  });

  it('a near miss of the alias `agent` (`agnet`) is refused too, not stored in metadata', async () => {
    const w = await world('implementationPlanning');
    await addTask(w.ctx(), { name: 'A' });
    expect(await refusal(w, () => setTaskField(w.ctx(), '010', 'agnet', 'reviewer'), 'DID_YOU_MEAN', 1)).toContain(
      "did you mean 'agent'?",
    );
  });
});

describe('phase-owned metadata', () => {
  it(
    'tasks_approved belongs to implementation and project_deleted to finalize, ' + 'by name or as metadata.<key>',
    async () => {
      const w = await world('planning');
      const ctx = w.ctx();
      const wrong = await refusal(w, () => setPhaseField(ctx, 'tasks_approved', 'true'), 'WRONG_PHASE', 1);
      expect(wrong).toContain("'tasks_approved' belongs to the implementation phase, not planning");
      expect(wrong).toContain('pass --phase implementation');
      expect(await refusal(w, () => setPhaseField(ctx, 'metadata.tasks_approved', 'true'), 'WRONG_PHASE', 1)).toContain(
        'pass --phase implementation',
      );
      expect(
        await refusal(w, () => setPhaseField(ctx, 'project_deleted', 'true', 'review'), 'WRONG_PHASE', 1),
      ).toContain('pass --phase finalize');
      expect(await refusal(w, () => getPhaseField(ctx, 'tasks_approved'), 'WRONG_PHASE', 1)).toContain(
        'pass --phase implementation',
      );
      expect(await refusal(w, () => getPhaseField(ctx, 'metadata.tasks_approved'), 'WRONG_PHASE', 1)).toContain(
        'pass --phase implementation',
      );

      // The right phase, but not the moment: the tasks are approved in ImplementationPlanning, once they exist.
      expect(
        await refusal(w, () => setPhaseField(ctx, 'tasks_approved', 'true', 'implementation'), 'APPROVAL_NOT_HERE', 3),
      ).toContain('and the project is in PlanningActive');
      await setPhaseField(ctx, 'project_deleted', 'false', 'finalize');
      const s = w.yaml(PROJECT);
      expect(s.phases.planning.metadata).toEqual({});
      expect(s.phases.implementation.metadata).toEqual({});
      expect(s.phases.finalize.metadata).toEqual({ project_deleted: false });
      expect((await getPhaseField(ctx, 'project_deleted', 'finalize')).value).toBe(false);
    },
  );

  it(
    'phase get suggests a metadata key of another phase ' + 'as phase set does (tasks_aproved in PlanningActive)',
    async () => {
      const w = await world('planning');
      expect(await refusal(w, () => setPhaseField(w.ctx(), 'tasks_aproved', 'true'), 'DID_YOU_MEAN', 1)).toContain(
        "did you mean 'tasks_approved'?",
      );
      expect(await refusal(w, () => getPhaseField(w.ctx(), 'tasks_aproved'), 'DID_YOU_MEAN', 1)).toContain(
        "did you mean 'tasks_approved'?",
      );
    },
  );
});

describe('agents', () => {
  it('task set agent|assigned_agent (a field: exit 1) takes only known agents', async () => {
    const w = await world('implementationPlanning');
    const ctx = w.ctx();
    await addTask(ctx, { name: 'X', agent: 'architect' });
    expect(await refusal(w, () => setTaskField(ctx, '010', 'agent', 'implementr'), 'UNKNOWN_AGENT', 1)).toContain(
      "did you mean 'implementer'?",
    );
    expect(await refusal(w, () => setTaskField(ctx, '010', 'assigned_agent', 'revewer'), 'UNKNOWN_AGENT', 1)).toContain(
      "did you mean 'reviewer'?",
    );
    expect(await refusal(w, () => setTaskField(ctx, '010', 'assigned_agent', 'bob'), 'UNKNOWN_AGENT', 1)).toContain(
      'decomposer',
    );
    expect(w.yaml(taskFile('010')).assigned_agent).toBe('architect');
    await setTaskField(ctx, '010', 'agent', 'reviewer');
    expect(w.yaml(taskFile('010')).assigned_agent).toBe('reviewer');
    await setTaskField(ctx, '010', 'assigned_agent', 'orchestrator');
    expect(w.yaml(taskFile('010')).assigned_agent).toBe('orchestrator');
  });
});

describe('review assessment', () => {
  it('a review output needs an assessment when added and when approved, even one written in by hand', async () => {
    const w = await world('reviewActive');
    const ctx = w.ctx();
    const add = await refusal(
      w,
      () => addArtifact(ctx, phase, 'outputs', { type: 'review', path: 'review/r.md', extra: {} }),
      'METADATA_REQUIRED',
      1,
    );
    expect(add).toContain('--assessment');
    expect(add).toContain('sow output add --phase review --type review --path review/r.md --assessment pass');

    // A person adds a review to the project file by hand, without an assessment.
    const s = w.yaml(PROJECT);
    s.phases.review.outputs.push({ type: 'review', path: 'review/manual.md', approved: false, created_at: T0 });
    w.write(PROJECT, stringify(s));
    w.write('.sow/project/review/manual.md', '# Review\nLooks good.\n');
    expect((await listArtifacts(ctx, phase, 'outputs')).artifacts).toEqual([
      { type: 'review', path: 'review/manual.md', approved: false, created_at: T0 },
    ]);

    const approve = await refusal(
      w,
      () => setArtifact(ctx, phase, 'outputs', 0, 'approved', 'true'),
      'METADATA_REQUIRED',
      1,
    );
    expect(approve).toContain('assessment');
    expect(approve).toContain('sow output set --phase review --index 0 assessment pass');
    await refused(w, () => advanceProject(ctx, undefined, false), 'TRANSITION_BLOCKED', 3);

    await setArtifact(ctx, phase, 'outputs', 0, 'assessment', 'pass');
    await setArtifact(ctx, phase, 'outputs', 0, 'approved', 'true');
    expect(w.yaml(PROJECT).phases.review.outputs[0]).toMatchObject({
      approved: true,
      metadata: { assessment: 'pass' },
    });
    expect((await advanceProject(ctx, undefined, false)).to).toBe('FinalizeDocumentation');
  });
});

describe('task ids', () => {
  it('numbering continues past 990, lists order by number, --id 10 names 010 everywhere', async () => {
    const w = await world('implementationPlanning');
    const ctx = w.ctx();
    const add = async (name: string, id?: string) =>
      (await addTask(ctx, { name, ...(id !== undefined ? { id } : {}) })).id;
    expect(await add('Ten')).toBe('010');
    expect(await add('Twenty')).toBe('020');
    expect(await add('Late', '980')).toBe('980');
    expect(await add('Later', '990')).toBe('990');
    expect(await add('Thousand')).toBe('1000');
    expect(await add('After')).toBe('1010');
    expect(await add('Squeezed', '15')).toBe('015');
    expect(w.yaml(taskFile('1000'))).toMatchObject({ id: '1000', name: 'Thousand' });
    expect(w.yaml(taskFile('015'))).toMatchObject({ id: '015', name: 'Squeezed' });
    expect((await listTasks(ctx)).map((t) => t.id)).toEqual(['010', '015', '020', '980', '990', '1000', '1010']);

    // --id 10 finds 010 in every use case that takes a task id.
    expect((await getTask(ctx, '10', 'name')).value).toBe('Ten');
    await setTaskField(ctx, '10', 'status', 'in_progress');
    expect(w.yaml(taskFile('010')).status).toBe('in_progress');
    await addArtifact(ctx, { kind: 'task', id: '10' }, 'inputs', { type: 'reference', path: 'notes.md', extra: {} });
    expect((await listArtifacts(ctx, { kind: 'task', id: '10' }, 'inputs')).artifacts).toMatchObject([
      { type: 'reference', path: 'notes.md' },
    ]);
    expect(w.yaml(taskFile('010')).inputs).toHaveLength(1);
    expect((await getTask(ctx, '0010', 'status')).value).toBe('in_progress');
    expect((await getTask(ctx, '1000', 'name')).value).toBe('Thousand');

    expect(await refusal(w, () => add('Clash', '10'), 'TASK_ID_TAKEN', 1)).toContain("'010'");
    expect(await refusal(w, () => add('Clash', '01000'), 'TASK_ID_TAKEN', 1)).toContain("'1000'");
  });
});

describe('dependencies and status gates', () => {
  it(
    'dependencies must exist and form no cycle; an empty value clears them; an unfinished dependency ' +
      'blocks starting',
    async () => {
      const w = await world('executing');
      const ctx = w.ctx();
      await refused(w, () => addTask(ctx, { name: 'Bad', dependsOn: '010,999' }), 'TASK_NOT_FOUND', 1);
      await refused(w, () => setTaskField(ctx, '020', 'dependencies', '010,999'), 'TASK_NOT_FOUND', 1);
      expect(w.exists(taskFile('040'))).toBe(false);

      await setTaskField(ctx, '020', 'dependencies', '010');
      expect(w.yaml(taskFile('020')).dependencies).toEqual(['010']);
      expect(await refusal(w, () => setTaskField(ctx, '010', 'dependencies', '020'), 'DEPENDENCY_CYCLE', 1)).toContain(
        '010 → 020 → 010',
      );
      expect(w.yaml(taskFile('010')).dependencies).toEqual([]);

      // Starting 020 while 010 is pending.
      const blocked = await refusal(w, () => setTaskField(ctx, '020', 'status', 'in_progress'), 'TASK_BLOCKED', 3);
      expect(blocked).toContain('task 020 cannot start: it depends on 010 (pending)');
      expect(blocked).toContain('--force');
      await setTaskField(ctx, '020', 'status', 'in_progress', { force: true });
      expect(w.yaml(taskFile('020')).status).toBe('in_progress');
      await setTaskField(ctx, '020', 'status', 'pending');

      // Once 010 is completed, 020 starts without --force.
      await setTaskField(ctx, '010', 'status', 'completed');
      await setTaskField(ctx, '020', 'status', 'in_progress');
      expect(w.yaml(taskFile('020')).status).toBe('in_progress');

      // An abandoned dependency does not block either.
      await setTaskField(ctx, '020', 'status', 'pending');
      await setTaskField(ctx, '020', 'dependencies', '010,030');
      expect(await refusal(w, () => setTaskField(ctx, '020', 'status', 'in_progress'), 'TASK_BLOCKED', 3)).toContain(
        'depends on 030 (pending)',
      );
      await abandonTask(ctx, '030');
      await setTaskField(ctx, '020', 'status', 'in_progress');

      await setTaskField(ctx, '020', 'dependencies', '');
      expect(w.yaml(taskFile('020')).dependencies).toEqual([]);
      // A list says nothing empty: no dependencies, no key.
      expect((await listTasks(ctx))[1]).not.toHaveProperty('dependencies');
    },
  );

  it('pending feedback blocks completing a task until it is addressed (or --force)', async () => {
    const w = await world('one');
    const ctx = w.ctx();
    const task = { kind: 'task', id: '010' } as const;
    await addArtifact(ctx, task, 'inputs', { type: 'reference', path: 'sinks/style.md', extra: {} });
    await addArtifact(ctx, task, 'inputs', {
      type: 'feedback',
      path: 'phases/implementation/tasks/010/feedback/001.md',
      extra: {},
    });
    await setTaskField(ctx, '010', 'status', 'in_progress');

    const blocked = await refusal(w, () => setTaskField(ctx, '010', 'status', 'completed'), 'TASK_BLOCKED', 3);
    expect(blocked).toContain('[1] phases/implementation/tasks/010/feedback/001.md');
    expect(blocked).toContain("'sow task input set --id 010 --index 1 status addressed'");
    expect(blocked).toContain('--force');

    await setTaskField(ctx, '010', 'status', 'completed', { force: true });
    expect(w.yaml(taskFile('010')).status).toBe('completed');
    // Reopened, which a completed task needs --force for too.
    await setTaskField(ctx, '010', 'status', 'in_progress', { force: true });

    await setArtifact(ctx, task, 'inputs', 1, 'status', 'addressed');
    await setTaskField(ctx, '010', 'status', 'completed');
    expect(w.yaml(taskFile('010'))).toMatchObject({
      status: 'completed',
      inputs: [{ type: 'reference' }, { type: 'feedback', metadata: { status: 'addressed' } }],
    });
  });
});
