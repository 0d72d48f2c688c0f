import { describe, expect, it } from 'vitest';
import { advance, listTransitions, readsTaskStates } from '../../lifecycle.js';
import type { Artifact, ProjectState, TaskState, TaskSummary } from '../../schemas.js';
import type { RepoConfig } from '../../config-schemas.js';
import type { ProjectView } from '../../project-type.js';
import { design } from './index.js';
import { stampApproval } from '../../approvals.js';

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
  name: 'storage',
  type: 'design',
  description: 'Where do we store events?',
  branch: 'design/storage',
  created_at: T0,
  updated_at: T0,
  statechart: { current_state: state, updated_at: T0, history: [] },
  phases: { design: { ...phase(), outputs, metadata: tags === undefined ? {} : { tags } }, finalization: phase() },
});
const doc = (type: string, path: string, approved: boolean): Artifact => ({ type, path, approved, created_at: T0 });
const task = (id: string, name: string, status: TaskState['status'], outputs: Artifact[] = []): TaskState => ({
  id,
  name,
  phase: 'design',
  status,
  iteration: 1,
  parallel: false,
  dependencies: [],
  created_at: T0,
  updated_at: T0,
  inputs: [],
  outputs,
  metadata: {},
});
const summary = (t: TaskState): TaskSummary => ({
  id: t.id,
  name: t.name,
  status: t.status,
  parallel: t.parallel,
  dependencies: t.dependencies,
});
const view = (tasks: TaskState[], outputs: Artifact[] = [], withStates = true): ProjectView => ({
  project: project('Active', outputs),
  tasks: tasks.map(summary),
  ...(withStates ? { taskStates: tasks } : {}),
});
const guard = design.guards['documentsApproved']!;
const evidence: Artifact = {
  type: 'evidence',
  path: 'evidence/tests-1.log',
  created_at: T0,
  metadata: { check: 'tests' },
};

describe('design: the documentsApproved guard', () => {
  it("reads the tasks' whole states, in Active and in Finalizing (completing checks the approvals again)", () => {
    expect(guard.readsTasks).toBe(true);
    expect(readsTaskStates(design, 'Active')).toBe(true);
    expect(readsTaskStates(design, 'Finalizing')).toBe(true);
    expect(readsTaskStates(design, 'Completed')).toBe(false);
  });

  it('holds when every task is finished, one completed, and every document of a completed task is approved', () => {
    const v = view([
      task('010', 'Use Postgres', 'completed', [doc('adr', 'adrs/0001-use-postgres.md', true), evidence]),
      task('020', 'Event schema', 'completed', [
        doc('spec', 'specs/events.md', true),
        doc('diagram', 'diagrams/flow.mmd', true),
      ]),
      task('030', 'Dropped idea', 'abandoned', [doc('design', 'designs/dropped.md', false)]),
    ]);
    expect(guard.check(v)).toBe(true);
    expect(listTransitions(design, v)).toEqual([
      expect.objectContaining({ event: 'documents_approved', to: 'Finalizing', blocked: false }),
    ]);
    const next = advance(design, v, T0, { by: 'user' });
    expect(next.to).toBe('Finalizing');
    expect(next.project.phases['design']!.status).toBe('completed');
    expect(next.project.phases['finalization']!.status).toBe('in_progress');
  });

  it('no task: names the command that adds one', () => {
    const v = view([]);
    expect(guard.check(v)).toBe(false);
    expect(guard.hint(v)).toBe("add the documents to write, a task each: 'sow task add <document>'");
  });

  it('open tasks: names each of them', () => {
    const v = view([
      task('010', 'a', 'completed', [doc('adr', 'a.md', true)]),
      task('020', 'b', 'in_progress'),
      task('030', 'c', 'pending'),
    ]);
    expect(guard.check(v)).toBe(false);
    expect(guard.hint(v)).toBe(
      "finish or abandon 020, 030 ('sow task set --id <id> status completed', or 'sow task abandon --id <id>')",
    );
  });

  it('every task abandoned: nothing to keep', () => {
    const v = view([task('010', 'a', 'abandoned', [doc('adr', 'a.md', true)])]);
    expect(guard.check(v)).toBe(false);
    expect(guard.hint(v)).toContain('complete at least one document');
  });

  it('a completed task without a document (evidence is not one): names the task and the command', () => {
    const v = view([
      task('010', 'a', 'completed', [doc('adr', 'a.md', true)]),
      task('020', 'b', 'completed', [evidence]),
    ]);
    expect(guard.check(v)).toBe(false);
    expect(guard.hint(v)).toBe(
      "task 020 has no document: 'sow task output add --id 020 --type <type> --path <file>' (type: design, adr, " +
        'architecture, diagram or spec)',
    );
  });

  it('an unapproved document: names it with its real index', () => {
    const v = view([task('010', 'a', 'completed', [evidence, doc('design', 'd.md', true), doc('adr', 'a.md', false)])]);
    expect(guard.check(v)).toBe(false);
    expect(guard.hint(v)).toBe(
      "approve task 010's adr: 'sow task output set --id 010 --index 2 approved true' (the human's decision)",
    );
  });

  it('several problems at once are all named', () => {
    const v = view(
      [task('010', 'a', 'completed', [doc('adr', 'a.md', false)]), task('020', 'b', 'completed')],
      [doc('spec', 'specs/s.md', false)],
    );
    expect(guard.hint(v)).toBe(
      "task 020 has no document: 'sow task output add --id 020 --type <type> --path <file>' (type: design, adr, " +
        'architecture, diagram or spec); ' +
        "approve task 010's adr: 'sow task output set --id 010 --index 0 approved true', the design phase's spec " +
        "specs/s.md: 'sow output set --index 0 approved true' (the human's decision)",
    );
  });

  it('a document added to the design phase itself must be approved too', () => {
    const tasks = [task('010', 'a', 'completed', [doc('adr', 'a.md', true)])];
    expect(guard.check(view(tasks, [doc('architecture', 'arch.md', false)]))).toBe(false);
    expect(guard.check(view(tasks, [doc('architecture', 'arch.md', true)]))).toBe(true);
  });

  it("without the tasks' states it does not hold (the app did not load them)", () => {
    const v = view([task('010', 'a', 'completed', [doc('adr', 'a.md', true)])], [], false);
    expect(guard.check(v)).toBe(false);
    expect(guard.hint(v)).toContain('were not read');
  });
});

describe('design: the archive', () => {
  const tasks = [
    task('010', 'Use Postgres', 'completed', [doc('adr', 'adrs/0001-use-postgres.md', true), evidence]),
    task('020', 'Event store design', 'completed', [
      doc('design', 'designs/event-store.md', true),
      doc('diagram', 'diagrams/flow.mmd', true),
      doc('spec', 'draft-spec.md', false),
    ]),
    task('030', 'Dropped', 'abandoned', [doc('adr', 'adrs/0002-dropped.md', true)]),
  ];
  const phaseDocs = [
    doc('architecture', 'overview/architecture.md', true),
    doc('spec', 'unapproved.md', false),
    doc('adr', 'adrs/0001-use-postgres.md', true),
  ];
  const NOW = '2026-11-26T10:00:00.000Z';
  const entry = (documents: unknown[]) => ({
    type: 'design',
    topic: 'Where do we store events?',
    name: 'storage',
    branch: 'design/storage',
    date: '2026-11-26',
    tags: ['storage', 'postgres'],
    documents,
  });

  it('completing leaves the project, only while each document is as the human approved it', () => {
    const files = new Map([['.sow/project/adrs/0001-use-postgres.md', '# Use Postgres\n']]);
    const approved = [
      task('010', 'Use Postgres', 'completed', [
        stampApproval(doc('adr', 'adrs/0001-use-postgres.md', true), '# Use Postgres\n'),
      ]),
    ];
    const at: ProjectView = {
      project: project('Finalizing'),
      tasks: approved.map(summary),
      taskStates: approved,
      readDoc: (rel) => files.get(rel),
    };
    const next = advance(design, at, T0, { by: 'user' });
    expect(next.to).toBe('Completed');
    expect(design.states['Completed']!.final).toBe(true);
    // Changed after its approval: what would be kept is not what the human approved.
    files.set('.sow/project/adrs/0001-use-postgres.md', '# Use MongoDB\n');
    expect(() => advance(design, at, T0, { by: 'user' })).toThrow(
      'the approval of adrs/0001-use-postgres.md was withdrawn: its content changed since it was given; once the ' +
        "human has seen it, approve again with 'sow task output set --id 010 --index 0 approved true'",
    );
  });

  it(
    'approved documents of completed tasks and of the phase: ADRs to adrs/, the rest to designs/; unapproved, ' +
      'abandoned and repeated ones left out',
    () => {
      const plan = design.archive!(
        { project: project('Finalizing', phaseDocs, 'storage, postgres'), tasks, config: {} },
        NOW,
      );
      expect(plan).toEqual({
        files: [
          { from: 'adrs/0001-use-postgres.md', to: '.sow/knowledge/adrs/0001-use-postgres.md' },
          { from: 'designs/event-store.md', to: '.sow/knowledge/designs/event-store.md' },
          { from: 'diagrams/flow.mmd', to: '.sow/knowledge/designs/flow.mmd' },
          { from: 'overview/architecture.md', to: '.sow/knowledge/designs/architecture.md' },
        ],
        entry: entry([
          { task: '010', type: 'adr', title: 'Use Postgres' },
          { task: '020', type: 'design', title: 'Event store design' },
          { task: '020', type: 'diagram', title: 'Event store design' },
          { type: 'architecture', title: 'architecture.md' },
        ]),
      });
    },
  );

  it('the places come from .sow/config.yaml where it names them', () => {
    const config: RepoConfig = { knowledge: { places: { adr: 'decisions', diagram: 'docs/diagrams' } } };
    const plan = design.archive!({ project: project('Finalizing', [], ['storage', 'postgres']), tasks, config }, NOW);
    expect(plan!.files.map((f) => f.to)).toEqual([
      '.sow/knowledge/decisions/0001-use-postgres.md',
      '.sow/knowledge/designs/event-store.md',
      '.sow/knowledge/docs/diagrams/flow.mmd',
    ]);
    expect(plan!.entry['tags']).toEqual(['storage', 'postgres']);
  });

  it('a project with no approved document leaves an entry without files', () => {
    const plan = design.archive!(
      {
        project: { ...project('Finalizing'), description: '' },
        tasks: [task('010', 'a', 'completed', [doc('adr', 'a.md', false)])],
        config: {},
      },
      NOW,
    );
    expect(plan).toEqual({ files: [], entry: { ...entry([]), topic: 'storage', tags: [] } });
  });
});
