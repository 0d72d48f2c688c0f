import { describe, expect, it } from 'vitest';
import { advance } from '../../lifecycle.js';
import type { Artifact, ProjectState, TaskSummary } from '../../schemas.js';
import { exploration } from './index.js';

const T0 = '2026-01-01T00:00:00.000Z';
const phase = () => ({
  status: 'pending' as const,
  enabled: true,
  iteration: 1,
  created_at: T0,
  metadata: {} as Record<string, unknown>,
  inputs: [] as Artifact[],
  outputs: [] as Artifact[],
});
const project = (state: string, outputs: Artifact[] = [], tags?: unknown): ProjectState => ({
  name: 'jwt-libs',
  type: 'exploration',
  description: 'Which JWT library?',
  branch: 'explore/jwt-libs',
  created_at: T0,
  updated_at: T0,
  statechart: { current_state: state, updated_at: T0, history: [] },
  phases: { exploration: { ...phase(), outputs, metadata: tags === undefined ? {} : { tags } }, finalization: phase() },
});
const task = (id: string, status: TaskSummary['status']): TaskSummary => ({
  id,
  name: id,
  status,
  parallel: false,
  dependencies: [],
});
const summary = (path: string, approved: boolean): Artifact => ({ type: 'summary', path, approved, created_at: T0 });
const g = exploration.guards;

describe('exploration guards', () => {
  it('topicsDone: every topic finished, at least one completed', () => {
    const p = project('Active');
    expect(g['topicsDone']!.check({ project: p, tasks: [task('010', 'completed'), task('020', 'abandoned')] })).toBe(
      true,
    );
    expect(g['topicsDone']!.check({ project: p, tasks: [] })).toBe(false);
    expect(g['topicsDone']!.check({ project: p, tasks: [task('010', 'completed'), task('020', 'in_progress')] })).toBe(
      false,
    );
    expect(
      g['topicsDone']!.hint({ project: p, tasks: [task('010', 'completed'), task('020', 'in_progress')] }),
    ).toContain('020');
    expect(g['topicsDone']!.check({ project: p, tasks: [task('010', 'abandoned')] })).toBe(false);
  });

  it('summariesApproved: at least one summary, all approved', () => {
    expect(g['summariesApproved']!.check({ project: project('Summarizing', [summary('s.md', true)]), tasks: [] })).toBe(
      true,
    );
    expect(g['summariesApproved']!.check({ project: project('Summarizing'), tasks: [] })).toBe(false);
    const p = project('Summarizing', [summary('a.md', true), summary('b.md', false)]);
    expect(g['summariesApproved']!.check({ project: p, tasks: [] })).toBe(false);
    expect(g['summariesApproved']!.hint({ project: p, tasks: [] })).toBe(
      "approve the summary: 'sow output set --index 1 approved true'",
    );
  });

  it('completing archives the approved summaries with an index entry; it waits while one is not approved', () => {
    const p = project(
      'Finalizing',
      [summary('summary.md', true), summary('other/summary.md', true), summary('draft.md', false)],
      'auth, jwt',
    );
    expect(() => advance(exploration, { project: p, tasks: [] }, T0, { by: 'user' })).toThrow(
      'cannot advance from Finalizing: blocked until there is at least one summary output, and every summary ' +
        'is approved',
    );
    expect(g['summariesApproved']!.hint({ project: p, tasks: [] })).toBe(
      "approve the summary: 'sow output set --phase exploration --index 2 approved true'",
    );
    const next = advance(
      exploration,
      { project: project('Finalizing', [summary('summary.md', true)]), tasks: [] },
      T0,
      { by: 'user' },
    );
    expect(next.to).toBe('Completed');
    expect(exploration.archive!({ project: p, tasks: [], config: {} }, '2026-11-26T10:00:00.000Z')).toEqual({
      files: [
        { from: 'summary.md', to: '.sow/knowledge/explorations/jwt-libs/summary.md' },
        { from: 'other/summary.md', to: '.sow/knowledge/explorations/jwt-libs/summary.md' },
      ],
      entry: {
        type: 'exploration',
        topic: 'Which JWT library?',
        name: 'jwt-libs',
        branch: 'explore/jwt-libs',
        date: '2026-11-26',
        tags: ['auth', 'jwt'],
        path: '.sow/knowledge/explorations/jwt-libs',
      },
    });
  });
});
