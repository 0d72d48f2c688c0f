/**
 * The usage ledger in-process: every spawn and resume is counted when its worker stops (a failed
 * one too), with what its CLI reported in its own event fields, and `sow cost` sums it by task,
 * role, session and executor. The fake CLIs report usage as the real ones do (FAKE_AGENT_USAGE).
 */
import { describe, expect, it } from 'vitest';
import { PROJECT, refused, T0, toExecuting, worlds } from '../../test/inproc.js';
import { fakes } from '../../test/inproc-fakes.js';
import { costOf } from '../domain/usage.js';
import { spawnAgent } from './workers/spawn.js';
import { resumeAgent } from './workers/resume.js';
import type { AgentRunOptions } from './workers/types.js';
import { projectCost } from './cost.js';

const world = worlds({ executing: (w) => toExecuting(w), three: (w) => toExecuting(w, ['A', 'B', 'C']) });
const quiet: AgentRunOptions = { verbose: false, quiet: true, say: () => undefined };
const usage = (input: number, output: number, cost?: number) => ({
  FAKE_AGENT_USAGE: JSON.stringify({ input, output, cost }),
});
const CODEX = 'agents:\n  executors:\n    cx:\n      type: codex\n  bindings:\n    reviewer: cx\n';

describe('the ledger', () => {
  it(
    'a spawn, a resume and a spawn on another task: one entry each, with the figures the CLI reported, at the ' +
      'clock’s time',
    async () => {
      const w = await world('executing');
      const f = fakes();
      const ctx = (env: Record<string, string>) => w.ctx({ ...f.env, ...env });
      await spawnAgent(ctx(usage(1200, 300, 0.042)), 'implementer', '010', quiet);
      w.clock.advance(60);
      await resumeAgent(ctx(usage(800, 100, 0.0105)), { kind: 'task', id: '010' }, 'go on', quiet);
      await spawnAgent(ctx(usage(50, 5, 0.001)), 'implementer', '020', quiet);
      const ledger = w.yaml(PROJECT).usage;
      const session = w.yaml('.sow/project/phases/implementation/tasks/010/state.yaml').session_id;
      expect(ledger).toEqual([
        {
          at: T0,
          agent_id: 'implementer-1',
          agent: 'implementer',
          executor: 'claude-code',
          task: '010',
          session,
          run: 'spawn',
          input_tokens: 1200,
          output_tokens: 300,
          cost_usd: 0.042,
        },
        {
          at: '2026-11-26T10:01:00.000Z',
          agent_id: 'implementer-1',
          agent: 'implementer',
          executor: 'claude-code',
          task: '010',
          session,
          run: 'resume',
          input_tokens: 800,
          output_tokens: 100,
          cost_usd: 0.0105,
        },
        expect.objectContaining({
          agent_id: 'implementer-2',
          task: '020',
          run: 'spawn',
          input_tokens: 50,
          output_tokens: 5,
          cost_usd: 0.001,
        }),
      ]);
      const byTask = await projectCost(w.ctx(), 'task');
      expect(byTask.rows).toEqual([
        {
          key: '010',
          runs: 2,
          unreported: 0,
          input_tokens: 2000,
          output_tokens: 400,
          cost_usd: expect.closeTo(0.0525, 10),
        },
        { key: '020', runs: 1, unreported: 0, input_tokens: 50, output_tokens: 5, cost_usd: 0.001 },
      ]);
      expect(byTask.total).toEqual({
        runs: 3,
        unreported: 0,
        input_tokens: 2050,
        output_tokens: 405,
        cost_usd: expect.closeTo(0.0535, 10),
      });
      expect((await projectCost(w.ctx(), 'role')).rows.map((r) => [r.key, r.runs])).toEqual([['implementer', 3]]);
      expect((await projectCost(w.ctx(), 'session')).rows.map((r) => [r.key, r.runs])).toEqual([
        [session, 2],
        [w.yaml('.sow/project/phases/implementation/tasks/020/state.yaml').session_id, 1],
      ]);
    },
  );

  it(
    'a CLI that reports only tokens (Codex) leaves the cost out; ' + 'a worker that failed is counted, as unreported',
    async () => {
      const w = await world('executing');
      const f = fakes();
      f.writeConfig(CODEX);
      await spawnAgent(w.ctx({ ...f.env, ...usage(700, 70) }), 'reviewer', '010', quiet);
      await expect(
        spawnAgent(w.ctx({ ...f.env, FAKE_AGENT_FAIL: '1' }), 'implementer', '020', quiet),
      ).rejects.toMatchObject({ code: 'WORKER_FAILED' });
      const ledger = w.yaml(PROJECT).usage;
      expect(ledger[0]).toMatchObject({ agent: 'reviewer', executor: 'cx', input_tokens: 700, output_tokens: 70 });
      expect(ledger[0]).not.toHaveProperty('cost_usd');
      expect(ledger[1]).toEqual({
        at: T0,
        agent_id: 'implementer-1',
        agent: 'implementer',
        executor: 'claude-code',
        task: '020',
        session: expect.any(String),
        run: 'spawn',
      });
      const byExecutor = await projectCost(w.ctx(), 'executor');
      expect(byExecutor.rows).toEqual([
        { key: 'cx', runs: 1, unreported: 0, input_tokens: 700, output_tokens: 70 },
        { key: 'claude-code', runs: 1, unreported: 1 },
      ]);
    },
  );

  it('a project with no runs sums to nothing; a worker without a task is the project’s', () => {
    expect(costOf([], 'task')).toEqual({ by: 'task', rows: [], total: { runs: 0, unreported: 0 } });
    const r = costOf(
      [{ at: T0, agent_id: 'planner-1', agent: 'planner', executor: 'claude-code', run: 'spawn', cost_usd: 0.5 }],
      'task',
    );
    expect(r.rows).toEqual([{ key: '(project)', runs: 1, unreported: 0, cost_usd: 0.5 }]);
    expect(
      costOf([{ at: T0, agent_id: 'planner-1', agent: 'planner', executor: 'x', run: 'spawn' }], 'session').rows[0]!
        .key,
    ).toBe('(planner-1, no session id)');
  });
});

describe('the budget', () => {
  it(
    'at the limit no worker starts or resumes (exit 3), naming what was spent and on what; under it, they do; a ' +
      'task that is not there is told first',
    async () => {
      const w = await world('three');
      const f = fakes();
      const ctx = (env: Record<string, string> = {}) => w.ctx({ ...f.env, ...env });
      w.write('.sow/config.yaml', 'budget:\n  usd: 0.05\n');
      await spawnAgent(ctx(usage(1000, 100, 0.04)), 'implementer', '010', quiet);
      // $0.04 of $0.05: the next run may start, and takes the project past its budget.
      await spawnAgent(ctx(usage(10, 1, 0.02)), 'implementer', '020', quiet);
      const over = await refused(w, () => spawnAgent(ctx(), 'implementer', '030', quiet), 'BUDGET_SPENT', 3);
      expect(over.message).toBe(
        "this project's workers have used $0.06 of the $0.05 its budget allows (most on task 010); no worker starts " +
          'or resumes',
      );
      expect(over.hint).toBe("'sow cost' shows what it went on; to go on, raise budget.usd in .sow/config.yaml");
      await refused(w, () => resumeAgent(ctx(), { kind: 'task', id: '010' }, 'go on', quiet), 'BUDGET_SPENT', 3);
      await refused(w, () => spawnAgent(ctx(), 'implementer', '990', quiet), 'TASK_NOT_FOUND', 1);
      expect(f.calls()).toHaveLength(2);
      // Raised: work goes on.
      w.write('.sow/config.yaml', 'budget:\n  usd: 1\n  tokens: 5000\n');
      await resumeAgent(ctx(usage(3000, 900)), { kind: 'task', id: '010' }, 'go on', quiet);
      const tokens = await refused(w, () => spawnAgent(ctx(), 'implementer', '030', quiet), 'BUDGET_SPENT', 3);
      expect(tokens.message).toContain('have used 5,011 tokens of the 5,000 tokens its budget allows');
    },
  );
});
