/**
 * The task guards in-process: status changes past a pending dependency, claims only in a state
 * that executes tasks (every project type), a session alone as a claimant, a finished task's
 * history. What the command line adds (stderr, --json, exit codes of a parse) is
 * test/e2e/guards.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { refused, said, T0, taskFile, toExecuting, worlds } from '../../test/inproc.js';
import { advanceProject } from './advance.js';
import { addArtifact } from './artifacts.js';
import { deleteProject, newProject } from './project.js';
import { abandonTask, addTask, claimNext, setTaskField } from './task.js';

const world = worlds({
  /** ImplementationExecuting with 010 and 020, where 020 depends on 010. */
  chained: async (w) => {
    await toExecuting(w, ['Sign tokens', 'Verify tokens']);
    await setTaskField(w.ctx(), '020', 'dependencies', '010');
  },
  one: (w) => toExecuting(w, ['A']),
  two: (w) => toExecuting(w, ['A', 'B']),
});

const TASKS_DIR = '.sow/project/phases/implementation/tasks';

describe('work on a task starts and ends only after its dependencies', () => {
  it('a worker that started may always say it stopped, but not that it is done', async () => {
    const w = await world('chained');
    const ctx = w.ctx();
    await setTaskField(ctx, '020', 'status', 'in_progress', { force: true });
    await setTaskField(ctx, '020', 'status', 'paused');
    expect(said(await refused(w, () => setTaskField(ctx, '020', 'status', 'needs_review'), 'TASK_BLOCKED', 3))).toContain('task 020 cannot go to review: it depends on 010 (pending)');
    await setTaskField(ctx, '010', 'status', 'completed');
    await setTaskField(ctx, '020', 'status', 'in_progress');
    await setTaskField(ctx, '020', 'status', 'needs_review');
  });
});

describe('claims only where tasks are worked on', () => {
  it('every project type with tasks: refused in a state that does not execute them', async () => {
    const w = await world('init');
    const ctx = w.ctx();
    const claim = () => claimNext(ctx, { owner: 'w1' });
    // iterative and breakdown: their first state gathers requirements.
    for (const [type, state, executing] of [
      ['iterative', 'DiscoverActive', 'ExecuteActive'],
      ['breakdown', 'Discovery', 'Active'],
    ] as const) {
      await newProject(ctx, { name: `p-${type}`, type, description: 'd', planning: true });
      const text = said(await refused(w, claim, 'NOT_EXECUTING', 3));
      expect(text).toContain(`the project is in ${state}, and tasks are worked on in ${executing}`);
      expect(text).toContain("run 'sow advance' (");
      await deleteProject(ctx, async () => true, false, true, false);
      w.git(['checkout', '-q', 'main']);
    }
    // exploration: in Summarizing a topic can still be added, but nobody works on topics any more.
    await newProject(ctx, { name: 'libs', type: 'exploration', description: 'd', planning: true });
    await addTask(ctx, { name: 'jose' });
    await setTaskField(ctx, '010', 'status', 'completed');
    expect((await advanceProject(ctx, undefined, false)).to).toBe('Summarizing');
    await addTask(ctx, { name: 'Another topic' });
    const text = said(await refused(w, claim, 'NOT_EXECUTING', 3));
    expect(text).toContain('the project is in Summarizing, and tasks are worked on in Active');
    expect(text).toContain("run 'sow project continue'");
    expect(w.yaml('.sow/project/phases/exploration/tasks/020/state.yaml').status).toBe('pending');
    await deleteProject(ctx, async () => true, false, true, false);
    w.git(['checkout', '-q', 'main']);
    // design: Finalizing.
    await newProject(ctx, { name: 'store', type: 'design', description: 'd', planning: true });
    await addTask(ctx, { name: 'Decide' });
    w.write('.sow/project/adr.md', '# ADR\n');
    await addArtifact(ctx, { kind: 'task', id: '010' }, 'outputs', { type: 'adr', path: 'adr.md', approved: 'true', extra: {} });
    await setTaskField(ctx, '010', 'status', 'completed');
    expect((await advanceProject(ctx, undefined, false)).to).toBe('Finalizing');
    expect(said(await refused(w, claim, 'NOT_EXECUTING', 3))).toContain('the project is in Finalizing, and tasks are worked on in Active');
  });
});

describe('who claims', () => {
  it('a session alone (SOW_SESSION_ID, no SOW_AGENT_ID) claims under its own name, and owns what it claimed', async () => {
    const w = await world('two');
    const session = w.ctx({ SOW_SESSION_ID: 'sess-42' });
    const r = await claimNext(session);
    expect(r.owner).toMatchObject({ kind: 'claim', by: 'sess-42', session: 'sess-42' });
    // Someone else may not finish it; the session may.
    await refused(w, () => setTaskField(w.ctx(), '010', 'status', 'completed'), 'TASK_OWNED', 1);
    await refused(w, () => setTaskField(w.ctx({ SOW_SESSION_ID: 'sess-7' }), '010', 'status', 'completed'), 'TASK_OWNED', 1);
    await setTaskField(session, '010', 'status', 'completed');
    expect(w.yaml(taskFile('010')).status).toBe('completed');
  });
});

describe("a finished task's history is a fact", () => {
  it('leaving completed (abandoned, pending, in_progress, …) is refused without --force; with it, the task log says so', async () => {
    const w = await world('one');
    const ctx = w.ctx();
    await setTaskField(ctx, '010', 'status', 'completed');
    expect(w.yaml(taskFile('010')).completed_at).toBe(T0);
    w.clock.advance(3600);
    const abandon = said(await refused(w, () => abandonTask(ctx, '010'), 'TASK_BLOCKED', 3));
    expect(abandon).toContain(`task 010 is completed (since ${T0}), and a completed task stays completed`);
    expect(abandon).toContain("pass --force to set it abandoned anyway (recorded in the task's log)");
    for (const status of ['pending', 'in_progress', 'needs_review', 'paused', 'failed', 'abandoned']) {
      await refused(w, () => setTaskField(ctx, '010', 'status', status), 'TASK_BLOCKED', 3);
    }
    await setTaskField(ctx, '010', 'status', 'pending', { force: true });
    const task = w.yaml(taskFile('010'));
    expect(task.status).toBe('pending');
    expect(task.completed_at).toBeUndefined();
    expect(task.updated_at).toBe('2026-11-26T11:00:00.000Z');
    const log = w.read(`${TASKS_DIR}/010/log.md`);
    expect(log).toContain('timestamp: "2026-11-26T11:00:00.000Z"\nagent: user\naction: note\nresult: success\n');
    expect(log.trimEnd().endsWith(`Reopened with --force (set pending): the task had been completed since ${T0}; its status is now pending.`)).toBe(true);
  });
});
