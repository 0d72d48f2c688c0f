/**
 * The task guards in-process: status changes past a pending dependency, claims only in a state
 * that executes tasks (every project type), a session alone as a claimant, a finished task's
 * history (writes that change nothing, leaving completed only with --force), tasks in progress
 * that nobody works on any more (a claim run out, a worker alive or gone), and a deleted task
 * folder. What the command line adds (stderr, --json, exit codes of a parse) is
 * test/e2e/guards.test.ts.
 */
import { spawn, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { refused, said, T0, TASK_LIST, taskFile, toExecuting, worlds, type World } from '../../test/inproc.js';
import { fakes } from '../../test/inproc-fakes.js';
import { advanceProject } from './advance.js';
import { spawnAgent } from './workers/spawn.js';
import { resumeAgent } from './workers/resume.js';
import { addArtifact } from './artifacts.js';
import { allowChecks } from './check-allowance.js';
import { abandonTask, setTaskField } from './task-change.js';
import { getPhaseField, setPhaseField } from './phase.js';
import { deleteProject, newProject } from './project.js';
import { agentReport } from './report.js';
import { continueProject, projectStatus } from './status.js';
import { addTask, claimNext, getTask, listTasks, nextTasks } from './task.js';

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

const children: { kill(): unknown }[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill();
});

/** Writes an owner into a task file, in progress, as a killed `sow agent spawn` or a live worker leaves it. */
function forgeOwner(w: World, id: string, owner: string): void {
  const text = w.read(taskFile(id)).replace('metadata: {}', `metadata: {}\nowner:\n${owner.replace(/^/gm, '  ')}`);
  w.write(taskFile(id), text.replace(/^status: \w+$/m, 'status: in_progress'));
}

describe('work on a task starts and ends only after its dependencies', () => {
  it('a worker that started may always say it stopped, but not that it is done', async () => {
    const w = await world('chained');
    const ctx = w.ctx();
    await setTaskField(ctx, '020', 'status', 'in_progress', { force: true });
    await setTaskField(ctx, '020', 'status', 'paused');
    expect(
      said(await refused(w, () => setTaskField(ctx, '020', 'status', 'needs_review'), 'TASK_BLOCKED', 3)),
    ).toContain('task 020 cannot go to review: it depends on 010 (pending)');
    await setTaskField(ctx, '010', 'status', 'completed');
    await setTaskField(ctx, '020', 'status', 'in_progress');
    await setTaskField(ctx, '020', 'status', 'needs_review');
  });
});

describe('every path a status changes by waits for the dependencies', () => {
  it(
    'agent report: a worker cannot report needs_review past a pending dependency; the hint says what it can do (no ' +
      '--force for a worker)',
    async () => {
      const w = await world('chained');
      await setTaskField(w.ctx(), '020', 'status', 'in_progress', { force: true });
      const worker = w.as('implementer-1', '020');
      const text = said(await refused(w, () => agentReport(worker, 'needs_review', 'done'), 'TASK_BLOCKED', 3));
      expect(text).toContain('task 020 cannot go to review: it depends on 010 (pending)');
      expect(text).toContain("report 'paused' with the reason until then");
      expect(text).not.toContain('--force');
      await agentReport(worker, 'paused', 'waiting for 010');
      expect(w.yaml(taskFile('020')).status).toBe('paused');
    },
  );

  it(
    'agent resume: resuming a paused task whose dependency is pending is refused before any CLI runs; ' +
      '--force resumes',
    async () => {
      const w = await world('chained');
      const f = fakes();
      const opts = { verbose: false, quiet: false, say: () => undefined };
      const ctx = w.ctx(f.env);
      // A forced worker that ends without a report, then is paused by the orchestrator.
      await spawnAgent(ctx, 'implementer', '020', { ...opts, force: true });
      await setTaskField(w.ctx(), '020', 'status', 'paused');
      const e = await refused(w, () => resumeAgent(ctx, { kind: 'task', id: '020' }, 'go on', opts), 'TASK_BLOCKED', 3);
      expect(e.message).toBe('task 020 cannot start: it depends on 010 (pending)');
      expect(e.hint).toBe('finish or abandon 010 first, or pass --force to resume it anyway');
      expect(
        f.calls().filter((c) => c.resuming),
        'no worker was resumed',
      ).toEqual([]);
      await resumeAgent(ctx, { kind: 'task', id: '020' }, 'go on', { ...opts, force: true });
      expect(f.calls().filter((c) => c.resuming)).toHaveLength(1);
      expect(w.yaml(taskFile('020')).status).toBe('in_progress');
    },
  );
});

describe('claims only where tasks are worked on', () => {
  it(
    'standard: before the tasks are approved, a claim is refused with the sow advance that gets there (a claim has ' +
      'no --force)',
    async () => {
      const w = await world('init');
      const ctx = w.ctx();
      const claim = () => claimNext(ctx, { owner: 'w1' });
      await newProject(ctx, { name: 'demo', description: 'd', planning: true });
      expect(said(await refused(w, claim, 'NOT_EXECUTING', 3))).toContain(
        'the project is in PlanningActive, and tasks are worked on in ImplementationExecuting',
      );
      w.write(TASK_LIST, '# Tasks\n');
      await addArtifact(ctx, { kind: 'phase' }, 'outputs', {
        type: 'task_list',
        path: 'planning/tasks.md',
        approved: 'true',
        extra: {},
      });
      await advanceProject(ctx, undefined, false);
      await addTask(ctx, { name: 'A' });
      const text = said(await refused(w, claim, 'NOT_EXECUTING', 3));
      expect(text).toContain(
        'no task can be claimed now: the project is in ImplementationPlanning, and tasks are worked on in ' +
          'ImplementationExecuting',
      );
      expect(text).toContain("run 'sow advance' (ImplementationPlanning → ImplementationExecuting); first:");
      expect(text).toContain('tasks_approved true');
      expect(text, 'a claim has no --force').not.toContain('--force');
      expect(w.yaml(taskFile('010')).status).toBe('pending');
      await setPhaseField(ctx, 'tasks_approved', 'true');
      await advanceProject(ctx, undefined, false);
      expect((await claim()).task.id).toBe('010');
    },
  );

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
    await addArtifact(ctx, { kind: 'task', id: '010' }, 'outputs', {
      type: 'adr',
      path: 'adr.md',
      approved: 'true',
      extra: {},
    });
    await setTaskField(ctx, '010', 'status', 'completed');
    expect((await advanceProject(ctx, undefined, false)).to).toBe('Finalizing');
    expect(said(await refused(w, claim, 'NOT_EXECUTING', 3))).toContain(
      'the project is in Finalizing, and tasks are worked on in Active',
    );
  });
});

describe('who claims', () => {
  it(
    'a session alone (SOW_SESSION_ID, no SOW_AGENT_ID) ' + 'claims under its own name, and owns what it claimed',
    async () => {
      const w = await world('two');
      const session = w.ctx({ SOW_SESSION_ID: 'sess-42' });
      const r = await claimNext(session);
      expect(r.owner).toMatchObject({ kind: 'claim', by: 'sess-42', session: 'sess-42' });
      // Someone else may not finish it; the session may.
      await refused(w, () => setTaskField(w.ctx(), '010', 'status', 'completed'), 'TASK_HELD', 3);
      await refused(
        w,
        () => setTaskField(w.ctx({ SOW_SESSION_ID: 'sess-7' }), '010', 'status', 'completed'),
        'TASK_HELD',
        3,
      );
      await setTaskField(session, '010', 'status', 'completed');
      expect(w.yaml(taskFile('010')).status).toBe('completed');
    },
  );
});

describe("a finished task's history is a fact", () => {
  it(
    'leaving completed (abandoned, pending, in_progress, …) is refused without --force; with it, the task ' +
      'log says so',
    async () => {
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
      expect(
        log
          .trimEnd()
          .endsWith(
            `Reopened with --force (set pending): the task had been completed since ${T0}; its status is now pending.`,
          ),
      ).toBe(true);
    },
  );
});

describe('a write that finds the task so already changes nothing', () => {
  it(
    'completing a completed task: unchanged, byte-identical, completed_at kept; its task_complete checks do ' +
      'not run again',
    async () => {
      const w = await world('one');
      await setTaskField(w.ctx(), '010', 'status', 'completed');
      // A check that would fail: were it run, the completion would be refused.
      w.write('.sow/config.yaml', 'checks:\n  - name: unit\n    run: "false"\n    when: [task_complete]\n');
      await allowChecks(w.ctx(), [], {
        yes: true,
        interactive: false,
        confirm: async () => true,
        show: () => undefined,
      });
      w.clock.advance(60);
      const before = w.snapshot();
      const r = await setTaskField(w.ctx(), '010', 'status', 'completed');
      expect(r).toMatchObject({ id: '010', field: 'status', value: 'completed', checks: [], unchanged: true });
      expect(w.snapshot()).toEqual(before);
      expect(w.yaml(taskFile('010')).completed_at).toBe(T0);
    },
  );

  it('abandoning an abandoned task, or any status a task has already, changes nothing', async () => {
    const w = await world('two');
    await abandonTask(w.ctx(), '010');
    await setTaskField(w.ctx(), '020', 'status', 'in_progress');
    w.clock.advance(60);
    const before = w.snapshot();
    expect((await abandonTask(w.ctx(), '010')).unchanged).toBe(true);
    expect((await setTaskField(w.ctx(), '020', 'status', 'in_progress')).unchanged).toBe(true);
    expect(w.snapshot()).toEqual(before);
  });
});

describe('a task in progress that nobody works on any more', () => {
  const exitedPid = () => Number(spawnSync('sh', ['-c', 'echo $$'], { encoding: 'utf8' }).stdout.trim());

  it("its worker's sow process is gone: the row says so, and status and continue carry the advice", async () => {
    const w = await world('two');
    forgeOwner(
      w,
      '010',
      `kind: worker\nby: implementer-7\npid: ${exitedPid()}\nhost: ${hostname()}\nsince: "2026-11-26T00:00:00.000Z"`,
    );
    const rows = await listTasks(w.ctx());
    expect(rows[0]!.worker).toEqual({ state: 'gone', kind: 'worker', by: 'implementer-7', why: 'process_gone' });
    expect(rows[1]!.worker, 'nobody known: no field').toBeUndefined();
    const advice =
      `Nobody works on task 010 any more: its worker implementer-7 is gone (the sow process that ran it ` +
      `ended). To go on, resume its session ('sow agent resume 010 "<prompt>"'), or let the next claim take it ` +
      `('sow task next --claim').`;
    expect((await projectStatus(w.ctx())).tasks.unattended).toEqual([
      { id: '010', name: 'A', worker: rows[0]!.worker, advice },
    ]);
    expect((await continueProject(w.ctx())).prompt).toContain(`- ${advice}\n`);
    expect(
      (await nextTasks(w.ctx())).map((t) => t.id),
      'ready again',
    ).toEqual(['010', '020']);
  });

  it(
    'a claim whose lease ran out, by the clock: said so, with a claim or a worker as the way on; the next ' +
      'claim takes it',
    async () => {
      const w = await world('one');
      await claimNext(w.ctx(), { owner: 'ci-7' });
      expect((await listTasks(w.ctx()))[0]!.worker).toEqual({ state: 'live', kind: 'claim', by: 'ci-7' });
      w.clock.advance(1801);
      expect((await listTasks(w.ctx()))[0]!.worker).toEqual({
        state: 'gone',
        kind: 'claim',
        by: 'ci-7',
        why: 'lease_expired',
      });
      expect((await projectStatus(w.ctx())).tasks.unattended?.map((u) => u.advice)).toEqual([
        "Nobody works on task 010 any more: the claim of ci-7 ran out. To go on, let the next claim take it ('sow " +
          "task next --claim'), or start a worker on it ('sow agent spawn implementer 010').",
      ]);
      expect((await claimNext(w.ctx(), { owner: 'w2' })).task.id).toBe('010');
      expect((await listTasks(w.ctx()))[0]!.worker).toEqual({ state: 'live', kind: 'claim', by: 'w2' });
      expect((await projectStatus(w.ctx())).tasks.unattended).toBeUndefined();
    },
  );

  it(
    'a task set in progress by hand, or one whose worker is alive, is shown as it is; the phase lists ' +
      'the same rows',
    async () => {
      const w = await world('two');
      await setTaskField(w.ctx(), '010', 'status', 'in_progress');
      // A live worker: this test's own child process, as the owner's pid.
      const child = spawn('sleep', ['60']);
      children.push(child);
      forgeOwner(
        w,
        '020',
        `kind: worker\nby: implementer-2\npid: ${child.pid}\nhost: ${hostname()}\nsince: "2026-11-26T00:00:00.000Z"`,
      );
      const rows = await listTasks(w.ctx());
      expect(rows[0]!.worker).toBeUndefined();
      expect(rows[1]!.worker).toEqual({ state: 'live', kind: 'worker', by: 'implementer-2' });
      expect((await projectStatus(w.ctx())).tasks.unattended).toBeUndefined();
      expect((await getPhaseField(w.ctx(), 'tasks')).value).toEqual(rows);
    },
  );
});

describe('a deleted task folder', () => {
  it(
    'is named, with the git checkout that restores it, by task list, status, task get and task set of a task that ' +
      'depends on it',
    async () => {
      const w = await world('chained');
      w.git(['add', '-A']);
      w.git(['commit', '-q', '-m', 'the plan']);
      const folder = `${TASKS_DIR}/010`;
      rmSync(join(w.dir, folder), { recursive: true });
      const uses: [string, () => Promise<unknown>][] = [
        ['task list', () => listTasks(w.ctx())],
        ['status', () => projectStatus(w.ctx())],
        ['task get', () => getTask(w.ctx(), '020')],
        ['task set', () => setTaskField(w.ctx(), '020', 'status', 'in_progress')],
      ];
      for (const [what, run] of uses) {
        const e = await refused(w, run, 'TASK_FOLDER_MISSING', 4);
        expect(e.message, what).toBe(
          `task 010 is missing: its folder ${folder} does not exist, and task 020 depends on it`,
        );
        expect(e.details, what).toMatchObject({ folder, task: '010', needed_by: '020' });
        expect(e.hint, what).toContain(`restore it with 'git checkout -- ${folder}'`);
        expect(e.hint, `${what}: does not blame the file of 020`).not.toContain(`git checkout -- ${taskFile('020')}`);
      }
      w.git(['checkout', '--', folder]);
      expect((await listTasks(w.ctx())).map((t) => t.id)).toEqual(['010', '020']);
    },
  );
});
