/**
 * The plan stage alone: a spawn's identity, session and started task decided from values, with no
 * git, no disk and no process (the record stage and the end-to-end tests cover the writes).
 */
import { describe, expect, it } from 'vitest';
import { findAgent } from '../../domain/agents.js';
import type { Owner, ProjectState, TaskState } from '../../domain/schemas.js';
import { project as projectOf, T, task as taskOf } from '../../../test/merge-fixtures.js';
import { nextAgentId, planSpawn, projectAssignment, resumedTask, wantsCheckout, type SpawnInput } from './plan.js';

const project = (over: Record<string, unknown> = {}) => projectOf(over) as unknown as ProjectState;
const task = (over: Record<string, unknown> = {}) => taskOf(over) as unknown as TaskState;
const owner = (id: string): Owner => ({ kind: 'worker', by: id, since: T(9), pid: 42 }) as Owner;
const input = (over: Partial<SpawnInput> = {}): SpawnInput => ({
  project: project(),
  agent: findAgent('implementer'),
  executor: { name: 'claude-code', type: 'claude', transport: 'cli' },
  root: '/repo',
  branch: 'feat',
  now: T(9),
  ownerOf: owner,
  ...over,
});

describe('planning a spawn', () => {
  it('numbers workers of a role from the project’s spawn counts', () => {
    expect(nextAgentId(project(), 'implementer')).toEqual({ id: 'implementer-1', counts: { implementer: 1 } });
    expect(nextAgentId(project({ spawn_counts: { implementer: 4, reviewer: 2 } }), 'implementer')).toEqual({
      id: 'implementer-5',
      counts: { implementer: 5, reviewer: 2 },
    });
  });

  it('a pending task starts: in progress, owned by the worker, its session and the role recorded', () => {
    const plan = planSpawn(input({ task: task(), sessionId: 'abc' }));
    expect(plan.agentId).toBe('implementer-1');
    expect(plan.task!.session).toEqual({
      executor: 'claude-code',
      type: 'claude',
      agent: 'implementer',
      agent_id: 'implementer-1',
      cwd: '/repo',
      branch: 'feat',
      started_at: T(9),
    });
    expect(plan.task).toMatchObject({
      status: 'in_progress',
      started_at: T(9),
      session_id: 'abc',
      assigned_agent: 'implementer',
      owner: owner('implementer-1'),
    });
    expect(plan.reopened).toBeUndefined();
  });

  it('without a session id before the run (the CLI reports it), none is recorded; over ACP the session says so', () => {
    const plan = planSpawn(
      input({ task: task({ session_id: 'old' }), executor: { name: 'gem', type: 'gemini', transport: 'acp' } }),
    );
    expect(plan.task).not.toHaveProperty('session_id');
    expect(plan.task!.session!.transport).toBe('acp');
  });

  it(
    'a finished task forced open is reopened and says from what; a handoff carries on with a correction round ' +
      'after review',
    () => {
      const reopened = planSpawn(input({ task: task({ status: 'completed', completed_at: T(5) }) }));
      expect(reopened.reopened).toBe('completed');
      expect(reopened.task!.status).toBe('in_progress');
      const handoff = { from_agent_id: 'implementer-1', reason: 'asked' as const };
      const handed = planSpawn(
        input({
          project: project({ spawn_counts: { implementer: 1 } }),
          task: task({ status: 'needs_review', iteration: 2, session_id: 's1', owner: owner('implementer-1') }),
          handoff,
        }),
      );
      expect(handed.task).toMatchObject({
        status: 'in_progress',
        iteration: 3,
        handoffs: [{ at: T(9), ...handoff, to_agent_id: 'implementer-2' }],
      });
      // The earlier worker no longer owns it: its id is retired, so its late writes are refused.
      expect(handed.task!.retired_owners).toContain('implementer-1');
      expect(handed.task!.owner).toEqual(owner('implementer-2'));
    },
  );

  it(
    'its own checkout: kept when the task has one, made with --worktree or for a parallel task when the ' +
      'setting says so',
    () => {
      expect(wantsCheckout(task(), false)).toBe(false);
      expect(wantsCheckout(task(), true)).toBe(true);
      expect(wantsCheckout(task(), 'parallel')).toBe(false);
      expect(wantsCheckout(task({ parallel: true }), 'parallel')).toBe(true);
      expect(wantsCheckout(task({ worktree: { path: 'w/010', branch: 'sow/010' } }), false)).toBe(true);
      const opened = { path: '/repo/w/010', checkout: { path: 'w/010', branch: 'sow/010' } } as never;
      const plan = planSpawn(input({ task: task(), opened }));
      expect(plan.task!.session!.cwd).toBe('/repo/w/010');
      expect(plan.task).toMatchObject({ worktree: { path: 'w/010' }, session: { cwd: '/repo/w/010' } });
    },
  );

  it(
    'a worker without a task: the project’s session only; its assignment is the iteration’s prompt when ' +
      'there is one',
    () => {
      const plan = planSpawn(input({ agent: findAgent('planner') }));
      expect(plan.task).toBeUndefined();
      expect(plan.project.spawn_counts).toEqual({ planner: 1 });
      expect(projectAssignment(project(), undefined)).toMatch(/^Project: demo — d\nState: ImplementationExecuting\./);
      expect(projectAssignment(project(), 'Do iteration 3.')).toMatch(/^Do iteration 3\.\n\n/);
    },
  );
});

describe('planning a resume', () => {
  it(
    'in progress again with one more resume; ' + 'after review a correction round; a finished task keeps its status',
    () => {
      const session = {
        executor: 'claude-code',
        type: 'claude',
        agent: 'implementer',
        agent_id: 'implementer-1',
        cwd: '/r',
        started_at: T(1),
      };
      const resumed = resumedTask(
        task({ status: 'needs_review', iteration: 1, session }),
        T(9),
        owner('implementer-1'),
      );
      expect(resumed).toMatchObject({
        status: 'in_progress',
        iteration: 2,
        session: { resumed_at: T(9), resumes: 1 },
        owner: owner('implementer-1'),
      });
      expect(resumedTask(task({ status: 'completed', session }), T(9), owner('implementer-1')).status).toBe(
        'completed',
      );
    },
  );
});
