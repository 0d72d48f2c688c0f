import { describe, expect, it } from 'vitest';
import { columns, formatTaskGroups, renderStatus, renderTransitions, renderWorktrees } from './render.js';
import { allProjectTypes } from '../domain/project-types/index.js';

const PROJECT_TYPES = Object.fromEntries((await allProjectTypes()).map((t) => [t.name, t]));
import type { WorktreeInfo } from '../app/worktree.js';
import type { StatusReport } from '../app/status.js';
import type { TransitionOption } from '../domain/lifecycle.js';

/** Where each column of `line` starts: after a run of two or more spaces. */
const starts = (line: string): number[] => [...line.matchAll(/ {2,}(?=\S)/g)].map((m) => m.index! + m[0].length);

describe('columns line up, long names included', () => {
  it('every cell of a column starts where the others do, whatever the longest one', () => {
    const text = columns([
      ['a', 'bb', 'end'],
      ['a-much-longer-first-cell', 'b', 'end'],
      ['c', 'a-longer-second-cell', 'end'],
    ]);
    const lines = text.split('\n');
    expect(new Set(lines.map((l) => starts(l).join(','))).size).toBe(1);
    expect(lines.every((l) => !l.endsWith(' '))).toBe(true);
  });

  it(
    'sow project types: the description column starts at one place for every type (breakdown/ is the ' +
      'longest prefix)',
    () => {
      const types = Object.values(PROJECT_TYPES).map((t) => [t.name, t.branchPrefix, t.description]);
      const lines = columns(types).split('\n');
      const descriptions = lines.map((l, i) => l.indexOf(types[i]![2]!));
      expect(new Set(descriptions).size).toBe(1);
      expect(lines.find((l) => l.startsWith('breakdown'))).toMatch(/^breakdown +breakdown\/ {2}Split/);
    },
  );

  const tree = (
    branch: string,
    name: string | null,
    state = 'ImplementationExecuting',
    extra: Partial<WorktreeInfo> = {},
  ): WorktreeInfo => ({
    branch,
    path: `/r/.sow/worktrees/${branch}`,
    rel: `.sow/worktrees/${branch}`,
    main: false,
    sow: true,
    missing: false,
    project: name === null ? null : { name, state, branch, tasks: { done: 1, total: 3 }, sessions: [] },
    ...extra,
  });

  it(
    'sow worktree list and status --all: name, ' + 'state and tasks are columns of their own, with a long project name',
    () => {
      const trees = [
        { ...tree('main', 'demo', 'PlanningActive'), main: true, rel: '.', path: '/r' },
        tree('feat/a', 'a-project-with-a-rather-long-name-for-a-column'),
        tree('feat/b', 'b', 'ReviewActive', {
          project: {
            name: 'b',
            state: 'ReviewActive',
            branch: 'feat/b',
            tasks: { done: 3, total: 3 },
            sessions: [{ by: 'implementer-1', task: '010', kind: 'worker' } as never],
          },
        }),
        tree('feat/c', null),
      ];
      for (const text of [renderWorktrees(trees), renderWorktrees(trees, { projectsOnly: true })]) {
        const lines = text.split('\n').filter((l) => !l.includes('no project'));
        const stateAt = lines.map((l) => l.search(/PlanningActive|ImplementationExecuting|ReviewActive/));
        const tasksAt = lines.map((l) => l.indexOf('tasks '));
        expect(new Set(stateAt).size, text).toBe(1);
        expect(new Set(tasksAt).size, text).toBe(1);
      }
    },
  );
});

describe('guards in the status and advance --list views', () => {
  const option: TransitionOption = {
    event: 'complete_planning',
    to: 'ImplementationPlanning',
    guard: 'planningComplete',
    guardDescription: 'a task_list output of planning is approved',
    blocked: true,
    automatic: true,
  };

  it('say when a transition goes: "when <the guard>", never "needs <a clause>"', () => {
    const list = renderTransitions('PlanningActive', [option]);
    expect(list).toContain('(when a task_list output of planning is approved)');
    const status: StatusReport = {
      name: 'demo',
      type: 'standard',
      description: '',
      branch: 'feat/demo',
      base_branch: null,
      state: 'PlanningActive',
      purpose: '',
      lead: null,
      phases: [],
      tasks: { total: 0, by_status: {} },
      next: [option],
    };
    const view = renderStatus(status);
    expect(view).toContain(
      'complete_planning → ImplementationPlanning — when a task_list output of planning is approved',
    );
    for (const text of [list, view]) expect(text).not.toMatch(/needs a task_list/);
  });
});

describe('the task list an agent reads (formatTaskGroups)', () => {
  const t = (id: string, status: any, more: Record<string, unknown> = {}) =>
    ({ id, name: `Task ${id}`, status, parallel: false, assigned_agent: 'implementer', ...more }) as any;

  it('blocked: a dependency that is not finished, or not there; a finished task is never blocked', () => {
    const tasks = [
      t('010', 'abandoned'),
      t('020', 'pending', { dependencies: ['010'] }),
      t('030', 'pending', { dependencies: ['999'] }),
      t('040', 'completed', { dependencies: ['030'] }),
    ];
    const statusOf = new Map(tasks.map((x) => [x.id, x.status]));
    expect(formatTaskGroups(tasks, { statusOf })).toBe(
      [
        'pending (2):',
        '020 Task 020 (after 010)',
        '030 Task 030 (after 999, blocked)',
        'completed (1):',
        '040 Task 040 (after 030)',
        'abandoned (1):',
        '010 Task 010',
      ].join('\n'),
    );
    // Without the statuses (a list of ready tasks) nothing is judged blocked.
    expect(formatTaskGroups([tasks[2]])).toBe('pending (1):\n030 Task 030 (after 999)');
  });

  it('a name from a file cannot forge a line or a heading', () => {
    const text = formatTaskGroups([t('010', 'pending', { name: 'A\ncompleted (1): 020' })], { finishedAsIds: true });
    expect(text.split('\n')).toEqual(['pending (1):', '010 A\\ncompleted (1): 020']);
  });
});
