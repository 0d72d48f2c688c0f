import { describe, expect, it } from 'vitest';
import { advance } from '../../lifecycle.js';
import type { Artifact, ProjectState, TaskState, TaskStatus } from '../../schemas.js';
import { summaryOf } from '../../tasks.js';
import type { ProjectView } from '../../project-type.js';
import { breakdown } from './index.js';
import { publishOrder, unitBody, unitFileName, unitProblems } from './units.js';

const T0 = '2026-01-01T00:00:00.000Z';
const phase = (outputs: Artifact[] = []) => ({
  status: 'pending' as const,
  enabled: true,
  iteration: 1,
  created_at: T0,
  metadata: {} as Record<string, unknown>,
  inputs: [] as Artifact[],
  outputs,
});
const project = (state: string, discovery: Artifact[] = []): ProjectState => ({
  name: 'auth',
  type: 'breakdown',
  description: 'JWT authentication',
  branch: 'breakdown/auth',
  created_at: T0,
  updated_at: T0,
  statechart: { current_state: state, updated_at: T0, history: [] },
  phases: { discovery: phase(discovery), breakdown: phase(), publishing: phase() },
});
const doc = (type: string, path: string, approved: boolean): Artifact => ({ type, path, approved, created_at: T0 });
const spec = (id: string, approved = true) => doc('work_unit_spec', `units/${id}.md`, approved);
const unit = (
  id: string,
  status: TaskStatus,
  o: { deps?: string[]; outputs?: Artifact[]; name?: string; published?: unknown } = {},
): TaskState => ({
  id,
  name: o.name ?? `Unit ${id}`,
  phase: 'breakdown',
  status,
  iteration: 1,
  parallel: false,
  dependencies: o.deps ?? [],
  created_at: T0,
  updated_at: T0,
  inputs: [],
  outputs: o.outputs ?? (status === 'completed' ? [spec(id)] : []),
  metadata: o.published === undefined ? {} : { published: o.published },
});
const view = (state: string, tasks: TaskState[], discovery: Artifact[] = []): ProjectView => ({
  project: project(state, discovery),
  tasks: tasks.map(summaryOf),
  taskStates: tasks,
});
const g = breakdown.guards;

describe('breakdown guards', () => {
  it('discoveryApproved: a discovery output approved; the hint adds or approves it', () => {
    expect(g['discoveryApproved']!.check(view('Discovery', [], [doc('discovery', 'discovery.md', true)]))).toBe(true);
    expect(g['discoveryApproved']!.check(view('Discovery', []))).toBe(false);
    expect(g['discoveryApproved']!.hint(view('Discovery', []))).toContain(
      "'sow output add --type discovery --path discovery.md'",
    );
    const draft = view('Discovery', [], [doc('context', 'c.md', false), doc('discovery', 'discovery.md', false)]);
    expect(g['discoveryApproved']!.check(draft)).toBe(false);
    expect(g['discoveryApproved']!.hint(draft)).toBe(
      "the human approves the discovery document: 'sow output set --index 1 approved true'",
    );
  });

  it(
    'unitsReady reads the whole task states and holds for ' + 'finished units with approved specs and a sound graph',
    () => {
      expect(g['unitsReady']!.readsTasks).toBe(true);
      const ready = view('Active', [
        unit('010', 'completed'),
        unit('020', 'completed', { deps: ['010'] }),
        unit('030', 'abandoned'),
      ]);
      expect(g['unitsReady']!.check(ready)).toBe(true);
      expect(g['unitsReady']!.check({ ...ready, taskStates: undefined })).toBe(false);
    },
  );

  it('unitsReady: no units, open units, nothing completed', () => {
    const none = view('Active', []);
    expect(g['unitsReady']!.check(none)).toBe(false);
    expect(g['unitsReady']!.hint(none)).toContain("'sow task add");
    const open = view('Active', [unit('010', 'completed'), unit('020', 'in_progress'), unit('030', 'pending')]);
    expect(g['unitsReady']!.check(open)).toBe(false);
    expect(g['unitsReady']!.hint(open)).toBe(
      "finish or abandon 020 and 030 ('sow task set --id <id> status completed', or 'sow task abandon --id <id>')",
    );
    const abandoned = view('Active', [unit('010', 'abandoned')]);
    expect(g['unitsReady']!.check(abandoned)).toBe(false);
    expect(g['unitsReady']!.hint(abandoned)).toContain('complete at least one unit');
  });

  it('unitsReady: a completed unit without a spec gets the exact command; an unapproved spec its index', () => {
    const missing = view('Active', [unit('010', 'completed', { outputs: [] })]);
    expect(g['unitsReady']!.check(missing)).toBe(false);
    expect(g['unitsReady']!.hint(missing)).toBe(
      "unit 010 has no spec: write it and add it: 'sow task output add --id 010 --type work_unit_spec --path " +
        "units/010.md'",
    );
    const unapproved = view('Active', [
      unit('010', 'completed', { outputs: [doc('evidence', 'e.log', false), spec('010', false)] }),
    ]);
    expect(g['unitsReady']!.check(unapproved)).toBe(false);
    expect(g['unitsReady']!.hint(unapproved)).toContain("'sow task output set --id 010 --index 1 approved true'");
    // An abandoned unit needs no spec.
    expect(
      g['unitsReady']!.check(view('Active', [unit('010', 'completed'), unit('020', 'abandoned', { outputs: [] })])),
    ).toBe(true);
  });

  it('unitsReady: a dependency on an abandoned or a missing unit names both ids; a cycle is named', () => {
    const onAbandoned = view('Active', [unit('010', 'abandoned'), unit('020', 'completed', { deps: ['010'] })]);
    expect(g['unitsReady']!.check(onAbandoned)).toBe(false);
    expect(g['unitsReady']!.hint(onAbandoned)).toMatch(
      /^unit 020 is completed but depends on 010, which was abandoned: .*'sow task set --id 020 dependencies/,
    );
    const onMissing = view('Active', [unit('010', 'completed', { deps: ['040'] })]);
    expect(g['unitsReady']!.check(onMissing)).toBe(false);
    expect(g['unitsReady']!.hint(onMissing)).toContain('unit 010 depends on 040, which does not exist');
    const cycle = view('Active', [
      unit('010', 'completed', { deps: ['020'] }),
      unit('020', 'completed', { deps: ['010'] }),
    ]);
    expect(g['unitsReady']!.check(cycle)).toBe(false);
    expect(g['unitsReady']!.hint(cycle)).toContain('the dependencies form a cycle: 010 → 020 → 010');
    // Every problem is named, not only the first.
    expect(
      unitProblems([
        unit('010', 'completed', { deps: ['020'], outputs: [] }),
        unit('020', 'completed', { deps: ['010'] }),
      ]),
    ).toHaveLength(2);
  });

  it('unitsPublished: every completed unit has a readable publication (an issue number or a file)', () => {
    expect(g['unitsPublished']!.readsTasks).toBe(true);
    const all = view('Publishing', [
      unit('010', 'completed', { published: { issue: 12, url: 'https://github.com/a/b/issues/12' } }),
      unit('020', 'completed', { published: { file: '.sow/knowledge/breakdowns/auth/020-unit-020.md' } }),
      unit('030', 'abandoned'),
    ]);
    expect(g['unitsPublished']!.check(all)).toBe(true);
    const part = view('Publishing', [
      unit('010', 'completed', { published: { issue: 12 } }),
      unit('020', 'completed'),
      unit('030', 'completed', { published: { issue: 'twelve' } }),
    ]);
    expect(g['unitsPublished']!.check(part)).toBe(false);
    expect(g['unitsPublished']!.hint(part)).toBe(
      "publish units 020 and 030: 'sow breakdown publish' ('--dry-run' shows what it would do first)",
    );
    // A unit reopened after the breakdown was ready keeps the project from completing.
    const reopened = view('Publishing', [
      unit('010', 'completed', { published: { issue: 12 } }),
      unit('020', 'in_progress'),
    ]);
    expect(g['unitsPublished']!.check(reopened)).toBe(false);
    expect(g['unitsPublished']!.hint(reopened)).toContain('020 was reopened after the breakdown was ready');
  });
});

describe('publishing', () => {
  it('orders the completed units after their dependencies, ties by id, leaving out the abandoned', () => {
    const tasks = [
      unit('010', 'completed', { deps: ['030'] }),
      unit('020', 'completed'),
      unit('030', 'completed'),
      unit('040', 'completed', { deps: ['010', '020'] }),
      unit('050', 'abandoned'),
      unit('1000', 'completed'),
      unit('990', 'completed', { deps: ['1000'] }),
    ];
    expect(publishOrder(tasks).map((t) => t.id)).toEqual(['020', '030', '010', '040', '1000', '990']);
  });

  it('the body: the spec, then a "Depends on #n" line per dependency (links between files)', () => {
    const deps = [
      { id: '020', title: 'Verify tokens', publication: { issue: 13, url: 'https://github.com/acme/api/issues/13' } },
      { id: '010', title: 'Token format', publication: { issue: 12, url: 'https://github.com/acme/api/issues/12' } },
    ];
    expect(unitBody('# Refresh\n\nRotate tokens.\n\n\n', deps, { issue: true })).toBe(
      '# Refresh\n\nRotate tokens.\n\nDepends on #12\nDepends on #13\n',
    );
    expect(unitBody('# Token format\n', [], { issue: true })).toBe('# Token format\n');
    const file = '.sow/knowledge/breakdowns/auth/030-refresh.md';
    expect(
      unitBody(
        '# Refresh\n',
        [
          {
            id: '010',
            title: 'Token format',
            publication: { file: '.sow/knowledge/breakdowns/auth/010-token-format.md' },
          },
        ],
        { file },
      ),
    ).toBe('# Refresh\n\nDepends on [010 Token format](010-token-format.md)\n');
    expect(unitBody('# Refresh\n', [deps[1]!], { file })).toBe(
      '# Refresh\n\nDepends on [#12 Token format](https://github.com/acme/api/issues/12)\n',
    );
  });

  it('file names: the id and the title as words', () => {
    expect(unitFileName({ id: '010', name: 'Token format: HS256 / RS256!' })).toBe('010-token-format-hs256-rs256.md');
    expect(unitFileName({ id: '020', name: 'Überprüfung' })).toBe('020-uberprufung.md');
    expect(unitFileName({ id: '030', name: '???' })).toBe('030.md');
  });
});

describe('the breakdown machine', () => {
  it('walks Discovery → Active → Publishing → Completed, moving the phases', () => {
    let p = advance(breakdown, view('Discovery', [], [doc('discovery', 'discovery.md', true)]), T0, { by: 'user' });
    expect([p.to, p.project.phases['discovery']!.status, p.project.phases['breakdown']!.status]).toEqual([
      'Active',
      'completed',
      'in_progress',
    ]);
    const done = [
      unit('010', 'completed', { published: { issue: 1 } }),
      unit('020', 'completed', { deps: ['010'], published: { issue: 2 } }),
    ];
    p = advance(breakdown, { ...view('Active', done), project: p.project }, T0, { by: 'user' });
    expect([p.to, p.project.phases['breakdown']!.status, p.project.phases['publishing']!.status]).toEqual([
      'Publishing',
      'completed',
      'in_progress',
    ]);
    p = advance(breakdown, { ...view('Publishing', done), project: p.project }, T0, { by: 'user' });
    expect([p.to, p.project.phases['publishing']!.status]).toEqual(['Completed', 'completed']);
    expect(breakdown.states['Active']!.executesTasks).toBe(true);
  });

  it("completing archives the discovery document and the completed units' specs, and indexes the units", () => {
    const p = project('Publishing', [doc('discovery', 'discovery.md', true), doc('discovery', 'draft.md', false)]);
    const tasks = [
      unit('010', 'completed', {
        name: 'Token format',
        published: { issue: 12, url: 'https://github.com/acme/api/issues/12', at: T0 },
      }),
      unit('020', 'completed', {
        name: 'Verify tokens',
        deps: ['010'],
        published: { file: '.sow/knowledge/breakdowns/auth/020-verify-tokens.md', at: T0 },
      }),
      unit('030', 'abandoned', { outputs: [spec('030', false)] }),
    ];
    expect(breakdown.archive!({ project: p, tasks, config: {} }, '2026-11-26T10:00:00.000Z')).toEqual({
      files: [
        { from: 'discovery.md', to: '.sow/knowledge/breakdowns/auth/discovery.md' },
        { from: 'units/010.md', to: '.sow/knowledge/breakdowns/auth/specs/010.md' },
        { from: 'units/020.md', to: '.sow/knowledge/breakdowns/auth/specs/020.md' },
      ],
      entry: {
        type: 'breakdown',
        topic: 'JWT authentication',
        name: 'auth',
        branch: 'breakdown/auth',
        date: '2026-11-26',
        path: '.sow/knowledge/breakdowns/auth',
        units: [
          { id: '010', title: 'Token format', issue: 12, url: 'https://github.com/acme/api/issues/12', depends_on: [] },
          {
            id: '020',
            title: 'Verify tokens',
            file: '.sow/knowledge/breakdowns/auth/020-verify-tokens.md',
            depends_on: ['010'],
          },
        ],
      },
    });
  });
});
