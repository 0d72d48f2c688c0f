/**
 * Strict input on the command line: refusals as stderr words them (a near miss of a field, a
 * dependency cycle, a start an unfinished dependency blocks), and an unknown agent given to
 * `task add --agent`, which the command line checks as a flag (exit 2). The rules themselves —
 * did you mean, phase-owned metadata, known agents, review assessments, task ids past 990,
 * dependencies and status gates — are tested in-process: src/app/strict-input.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { useRepos, ok, expectFails, inImplementationPlanning, taskFile, toExecuting } from './harness.js';

const fresh = useRepos();

describe('refusals on the command line', () => {
  it(
    'a near miss of a field (exit 1), a dependency cycle (exit 1) and a start an unfinished dependency blocks (exit ' +
      '3): error and hint on stderr, nothing changed',
    () => {
      const repo = fresh();
      toExecuting(repo, ['First', 'Second', 'Third']);
      const swapped = expectFails(repo, ['task', 'set', '--id', '010', 'stauts', 'completed'], 1, 'DID_YOU_MEAN', {
        human: true,
      });
      expect(swapped).toContain("did you mean 'status'?");
      expect(swapped).toContain("'metadata.stauts'");
      ok(repo, ['task', 'set', '--id', '020', 'dependencies', '010']);
      expect(
        expectFails(repo, ['task', 'set', '--id', '010', 'dependencies', '020'], 1, 'DEPENDENCY_CYCLE', {
          human: true,
        }),
      ).toContain('010 → 020 → 010');
      const blocked = expectFails(repo, ['task', 'set', '--id', '020', 'status', 'in_progress'], 3, 'TASK_BLOCKED', {
        human: true,
      });
      expect(blocked).toContain('task 020 cannot start: it depends on 010 (pending)');
      ok(repo, ['task', 'set', '--id', '020', 'status', 'in_progress', '--force']);
      expect(repo.yaml(taskFile('020')).status).toBe('in_progress');
    },
  );
});

describe('agents', () => {
  it(
    'task add --agent is a flag: an unknown agent is a usage error (exit 2), with did you mean or the ' +
      'list of agents',
    () => {
      const repo = inImplementationPlanning(fresh);
      const typo = expectFails(repo, ['task', 'add', 'X', '--agent', 'implementr'], 2, 'USAGE', { human: true });
      expect(typo).toContain("unknown agent 'implementr'; did you mean 'implementer'?");
      const bob = expectFails(repo, ['task', 'add', 'X', '--agent', 'bob'], 2, 'USAGE');
      expect(bob).not.toContain('did you mean');
      for (const agent of [
        'implementer',
        'architect',
        'reviewer',
        'planner',
        'researcher',
        'decomposer',
        'orchestrator',
      ])
        expect(bob).toContain(agent);
      expect(repo.exists('.sow/project/phases/implementation/tasks')).toBe(false);
      ok(repo, ['task', 'add', 'X', '--agent', 'architect']);
      expect(repo.yaml(taskFile('010')).assigned_agent).toBe('architect');
    },
  );
});
