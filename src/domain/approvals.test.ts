import { describe, expect, it } from 'vitest';
import {
  contentDigest,
  JudgedView,
  stampApproval,
  taskApprovalChanges,
  taskApprovalRecord,
  withdrawalSentence,
} from './approvals.js';
import type { ProjectView } from './project-type.js';
import type { Artifact, ProjectState, TaskSummary } from './schemas.js';

const T0 = '2026-01-01T00:00:00.000Z';
const DOC = '.sow/project/planning/tasks.md';
const phase = (outputs: Artifact[] = [], metadata: Record<string, unknown> = {}) => ({
  status: 'in_progress' as const,
  enabled: true,
  iteration: 1,
  created_at: T0,
  metadata,
  inputs: [],
  outputs,
});
const project = (outputs: Artifact[], metadata: Record<string, unknown> = {}): ProjectState => ({
  name: 'demo',
  type: 'standard',
  description: '',
  branch: 'feat/demo',
  created_at: T0,
  updated_at: T0,
  statechart: { current_state: 'PlanningActive', updated_at: T0, history: [] },
  phases: { planning: phase(outputs), implementation: phase([], metadata) },
});
const taskList = (extra: Partial<Artifact> = {}): Artifact => ({
  type: 'task_list',
  path: 'planning/tasks.md',
  created_at: T0,
  approved: true,
  ...extra,
});
const task = (id: string, dependencies: string[] = []): TaskSummary => ({
  id,
  name: `task ${id}`,
  status: 'pending',
  parallel: false,
  dependencies,
});

describe('a document approval holds for the content approved', () => {
  it('stampApproval records the hash of the content when approved, and drops it otherwise', () => {
    expect(stampApproval(taskList(), '# T\n')).toEqual({ ...taskList(), approved_sha256: contentDigest('# T\n') });
    expect(stampApproval(taskList({ approved: false, approved_sha256: contentDigest('x') }), '# T\n')).toEqual(
      taskList({ approved: false }),
    );
    expect(stampApproval(taskList(), undefined)).toEqual(taskList());
  });

  it(
    'JudgedView: a guard that reads a changed approval sees it unapproved, and is told what changed; nothing is ' +
      'read when no guard asks',
    () => {
      let reads = 0;
      const files = new Map([[DOC, '# T, edited\n']]);
      const view: ProjectView = {
        project: project([stampApproval(taskList(), '# T\n')]),
        tasks: [],
        readDoc: (rel) => (reads++, files.get(rel)),
      };
      const judged = new JudgedView(view);
      expect(reads).toBe(0);
      const { value, withdrawn } = judged.watch((v) => v.project.phases['planning']!.outputs[0]!.approved);
      expect(value).toBe(false);
      expect(withdrawn).toEqual([
        {
          what: 'planning/tasks.md',
          changed: ['its content changed'],
          again: 'sow output set --phase planning --index 0 approved true',
        },
      ]);
      expect(withdrawalSentence(withdrawn[0]!)).toBe(
        'the approval of planning/tasks.md was withdrawn: its content changed since it was given; once the human has ' +
          "seen it, approve again with 'sow output set --phase planning --index 0 approved true'",
      );
      // A guard that does not read approvals is told nothing; the file was read once.
      expect(judged.watch(() => 1).withdrawn).toEqual([]);
      expect(reads).toBe(1);
      // The content as approved: it counts.
      files.set(DOC, '# T\n');
      expect(new JudgedView(view).view.project.phases['planning']!.outputs[0]!.approved).toBe(true);
      // Nothing stamped: the view is the one given.
      const plain: ProjectView = { ...view, project: project([taskList()]) };
      expect(new JudgedView(plain).view).toBe(plain);
    },
  );
});

describe("the tasks' approval covers each task's name, description and dependencies", () => {
  const descriptions = new Map([
    ['.sow/project/phases/implementation/tasks/010/description.md', 'A\n'],
    ['.sow/project/phases/implementation/tasks/020/description.md', 'B\n'],
  ]);
  const read = (rel: string) => descriptions.get(rel);
  const def = {
    phase: 'implementation',
    key: 'tasks_approved',
    record: 'approved_tasks',
    state: 'ImplementationPlanning',
  };
  const approvedFor = (tasks: TaskSummary[]) =>
    project([], { tasks_approved: true, approved_tasks: taskApprovalRecord(tasks, 'implementation', read) });

  it('names each change since: added, removed, renamed, description, dependencies', () => {
    const p = approvedFor([task('010'), task('020')]);
    expect(taskApprovalChanges(def, { project: p, tasks: [task('010'), task('020')], readDoc: read })).toEqual([]);
    expect(
      taskApprovalChanges(def, { project: p, tasks: [task('010'), task('020'), task('030')], readDoc: read }),
    ).toEqual(['task 030 added']);
    expect(taskApprovalChanges(def, { project: p, tasks: [task('020')], readDoc: read })).toEqual(['task 010 removed']);
    expect(
      taskApprovalChanges(def, {
        project: p,
        tasks: [{ ...task('010'), name: 'other' }, task('020', ['010'])],
        readDoc: read,
      }),
    ).toEqual(["010's name changed", "020's dependencies changed"]);
    const edited = (rel: string) => (rel.includes('/010/') ? 'A, and more\n' : read(rel));
    expect(taskApprovalChanges(def, { project: p, tasks: [task('010'), task('020')], readDoc: edited })).toEqual([
      "010's description changed",
    ]);
  });

  it('a flag without a record, or with a record that is not a map, covers nothing', () => {
    expect(
      taskApprovalChanges(def, { project: project([], { tasks_approved: true }), tasks: [task('010')], readDoc: read }),
    ).toEqual(['no record of which tasks it covered']);
    expect(
      taskApprovalChanges(def, {
        project: project([], { tasks_approved: true, approved_tasks: ['010'] }),
        tasks: [task('010')],
        readDoc: read,
      }),
    ).toEqual(['no record of which tasks it covered']);
  });
});
