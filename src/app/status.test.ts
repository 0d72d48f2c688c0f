/**
 * The status and continue views in-process, beyond project.test.ts: the counts, the variables the
 * prompts are filled with, the continue prompt's advancing section, and the NoProject variables.
 */
import { describe, expect, it } from 'vitest';
import { toExecuting, worlds } from '../../test/inproc.js';
import { withCheckStatuses } from './checks.js';
import { setTaskField } from './task-change.js';
import { noProjectVariables, promptVariables, renderCard, renderContinue, statusOf, taskCounts } from './status.js';
import { claimNext } from './task.js';
import { Reader } from './workspace.js';

const world = worlds({ executing: (w) => toExecuting(w, ['First task', 'Second task', 'Third task']) });

/** The project's type and view as `status` and `continue` read them. */
const viewOf = (w: Awaited<ReturnType<typeof world>>) =>
  Reader.read(w.ctx(), async (r) => ({
    type: r.type,
    view: await withCheckStatuses(r.root, r.type, await r.view()),
    now: r.ctx.now(),
  }));

describe('status', () => {
  it('counts the tasks by status; the counts read `N (n status, …)`, or none yet', async () => {
    const w = await world('executing');
    await setTaskField(w.ctx(), '010', 'status', 'in_progress');
    await setTaskField(w.ctx(), '010', 'status', 'completed');
    const { type, view, now } = await viewOf(w);
    const r = statusOf(type, view, now);
    expect(r.tasks).toEqual({ total: 3, by_status: { completed: 1, pending: 2 } });
    expect(taskCounts(r)).toBe('3 (1 completed, 2 pending)');
    expect(taskCounts(r, (s) => `<${s}>`)).toBe('3 (1 <completed>, 2 <pending>)');
    expect(taskCounts({ tasks: { total: 0, by_status: {} } })).toBe('none yet');
    expect(r.phases.find((p) => p.name === 'implementation')).toEqual({
      name: 'implementation',
      status: 'in_progress',
      enabled: true,
      iteration: 1,
      inputs: 0,
      outputs: 0,
    });
  });

  it(
    'a lease is judged at the time given: ' + 'alive a millisecond before it ends, gone at the instant it does',
    async () => {
      const w = await world('executing');
      await claimNext(w.ctx(), { owner: 'ci-7', leaseSeconds: 60 });
      const { type, view } = await viewOf(w);
      expect(statusOf(type, view, '2026-11-26T10:00:59.999Z').tasks.unattended).toBeUndefined();
      expect(statusOf(type, view, '2026-11-26T10:01:00.000Z').tasks.unattended).toEqual([
        expect.objectContaining({ id: '010', name: 'First task' }),
      ]);
    },
  );

  it(
    'the prompts’ variables: the project’s name, branch, state, the number of tasks, the round of the work, and ' +
      'what the type adds (the review round)',
    async () => {
      const w = await world('executing');
      const { type, view } = await viewOf(w);
      expect(promptVariables(type, view)).toEqual({
        name: 'demo',
        description: 'A demo project',
        branch: 'feat/demo',
        base_branch: 'main',
        state: 'ImplementationExecuting',
        task_count: '3',
        iteration: '1',
        review_iteration: '1',
      });
    },
  );

  it('continue: the header, the state’s prompt filled in, and what `sow advance` checks, met or not yet', async () => {
    const w = await world('executing');
    const { type, view, now } = await viewOf(w);
    const text = renderContinue(type, view, now);
    expect(text.split('\n').slice(0, 7)).toEqual([
      '# sow: demo — ImplementationExecuting',
      '',
      '- Project: demo (standard) on branch `feat/demo`, started from `main`',
      '- Description: A demo project',
      '- State: ImplementationExecuting',
      '- Phases: planning completed, implementation in_progress, review pending, finalize pending',
      '- Tasks: 3 (3 pending)',
    ]);
    expect(text).toContain('Carry out the 3 task(s) of implementation iteration 1 until');
    expect(text).toMatch(/^- `all_tasks_complete` → ReviewActive: .+ — \*\*not yet met\*\*: /m);
    for (const id of ['010', '020', '030']) {
      await setTaskField(w.ctx(), id, 'status', 'in_progress');
      await setTaskField(w.ctx(), id, 'status', 'completed');
    }
    const done = await viewOf(w);
    expect(renderContinue(done.type, done.view, done.now)).toMatch(
      /^- `all_tasks_complete` → ReviewActive: .+ — met$/m,
    );
  });

  it(
    'the state card of every state: its name, ' + 'the one next command, and the way to the how-to, in a few lines',
    async () => {
      const w = await world('executing');
      const { type, view, now } = await viewOf(w);
      for (const [state, def] of Object.entries(type.states)) {
        if (def.final) continue;
        const at = {
          ...view,
          project: { ...view.project, statechart: { ...view.project.statechart, current_state: state } },
        };
        const card = renderCard(type, at, now).trimEnd().split('\n');
        expect(card[0], state).toBe(`# sow: demo — ${state}`);
        expect(
          card.filter((l) => l.startsWith('Next: ')),
          state,
        ).toHaveLength(1);
        expect(card.at(-1), state).toBe('How to work in this state: `sow project continue --full`');
        expect(card.length, state).toBeLessThanOrEqual(8);
      }
    },
  );

  it(
    'the state card stays a card whatever the files hold: ' + 'long values cut at a word, control characters escaped',
    async () => {
      const w = await world('executing');
      const { type, view, now } = await viewOf(w);
      const description = `Evil\x1b[2J\nNext: rm -rf / ${'very long words '.repeat(400)}`;
      const card = renderCard(type, { ...view, project: { ...view.project, description } }, now, 3);
      const lines = card.trimEnd().split('\n');
      expect(lines[1]).toMatch(
        /^standard project on `feat\/demo`: Evil\\x1b\[2J\\nNext: rm -rf \/ very long words .*…$/,
      );
      expect(lines[1]!.length).toBeLessThan(220);
      expect(card).not.toMatch(/\x1b/);
      expect(lines.filter((l) => l.startsWith('Next: '))).toHaveLength(1);
      expect(card).toContain('References: 3 (`sow refs list`)');
    },
  );

  it(
    'with tasks pending, the card spawns the role most of them are assigned to; a tie goes to the role ' +
      'named first',
    async () => {
      const w = await world('executing');
      const { type, view, now } = await viewOf(w);
      const next = (agents: (string | undefined)[]) => {
        const tasks = agents.map((a, i) => ({ ...view.tasks[0]!, id: String((i + 1) * 10).padStart(3, '0') }));
        agents.forEach((a, i) => (a ? (tasks[i]!.assigned_agent = a) : delete tasks[i]!.assigned_agent));
        return /^Next: `sow agent spawn (\S+) --next/m.exec(renderCard(type, { ...view, tasks }, now))?.[1];
      };
      expect(next(['reviewer', 'implementer', undefined, 'implementer'])).toBe('implementer');
      expect(next(['reviewer', 'implementer', 'implementer', 'reviewer', 'reviewer'])).toBe('reviewer');
      expect(next(['reviewer', 'implementer', 'implementer', 'reviewer'])).toBe('reviewer');
      expect(next(['implementer', 'reviewer', 'reviewer', 'implementer'])).toBe('implementer');
    },
  );

  it('the NoProject variables: the branch checked out, and the branches that have a project', async () => {
    const w = await world('init');
    expect(noProjectVariables(w.dir)).toEqual({ branch: 'main', elsewhere: "'git branch' lists the branches" });
    expect(noProjectVariables(w.dir, ['feat/a', 'feat/b'])).toEqual({
      branch: 'main',
      elsewhere: 'these branches have one: `feat/a`, `feat/b`',
    });
    w.git(['checkout', '-q', '--detach']);
    expect(noProjectVariables(w.dir).branch).toBe('(detached HEAD)');
  });
});
