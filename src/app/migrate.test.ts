/**
 * `sow migrate` in-process, on a workspace sow 0.1.0 made (test/fixtures/v1/executing): the dry
 * run lists and writes nothing, the run keeps a backup and stamps its history entry with the
 * context's clock, a second run has nothing to do, and layouts it cannot read are refused. And on
 * every fixture of sow 0.1.0: what each state file converts to (the dry run's list, the project and
 * task files, the backup, what git sees), and that the project then carries on with the new sow
 * (moved from test/e2e/migrate.test.ts, which keeps the command line on the executing fixture).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  filesUnder,
  FIXTURES_V1,
  loadFixture,
  SCENARIOS,
  type Fixture,
  type Scenario,
} from '../../test/e2e/fixtures.js';
import { PROJECT, refused, T0, taskFile, toExecuting, worlds, type World } from '../../test/inproc.js';
import { advanceProject } from './advance.js';
import { addArtifact, setArtifact } from './artifacts.js';
import { initWorkspace } from './init.js';
import { migrate, type MigrationReport } from './migrate.js';
import { getPhaseField, setPhaseField } from './phase.js';
import { newProject, projectHistory } from './project.js';
import { continueProject, projectStatus } from './status.js';
import { addTask, listTasks } from './task.js';
import { setTaskField } from './task-change.js';

const world = worlds({
  /** The executing fixture of sow 0.1.0 (in place of the .sow/ of init), committed on its branch. */
  v1: async (w) => {
    rmSync(join(w.dir, '.sow'), { recursive: true, force: true });
    cpSync(join(FIXTURES_V1, 'executing', 'tree'), w.dir, { recursive: true });
    renameSync(join(w.dir, 'dot-sow'), join(w.dir, '.sow'));
    w.git(['checkout', '-q', '-b', 'feat/add-auth']);
    w.git(['add', '-A']);
    w.git(['commit', '-qm', 'fixture']);
  },
});

/** A fixture of sow 0.1.0 as test/e2e/fixtures.ts's fixtureRepo makes it: on its branch, committed, no `sow init`. */
async function v1World(scenario: Scenario): Promise<World> {
  const w = await world('bare');
  cpSync(join(FIXTURES_V1, scenario, 'tree'), w.dir, { recursive: true });
  renameSync(join(w.dir, 'dot-sow'), join(w.dir, '.sow'));
  const { branch } = loadFixture(scenario).meta;
  if (branch !== 'main') w.git(['checkout', '-q', '-b', branch]);
  w.git(['add', '-A']);
  w.git(['commit', '-qm', 'fixture']);
  return w;
}

/** The use cases of the commands that read or write the workspace (task set only where task 010 exists). */
function workspaceUses(w: World): [string, () => Promise<unknown>][] {
  return [
    ['task list', () => listTasks(w.ctx())],
    ['project status', () => projectStatus(w.ctx())],
    ['project continue', () => continueProject(w.ctx())],
    ['advance', () => advanceProject(w.ctx(), undefined, false)],
    ...(w.exists('.sow/project/phases/implementation/tasks/010/state.yaml') ||
    w.exists('.sow/project/phases/implementation/tasks/010')
      ? ([['task set', () => setTaskField(w.ctx(), '010', 'status', 'completed')]] as [
          string,
          () => Promise<unknown>,
        ][])
      : []),
    [
      'input add',
      () => addArtifact(w.ctx(), { kind: 'phase' }, 'inputs', { type: 'context', path: 'x.md', extra: {} }),
    ],
    ['init', async () => initWorkspace(w.dir)],
    ['phase get', () => getPhaseField(w.ctx(), 'status')],
    ['project new', () => newProject(w.ctx(), { name: 'other', description: 'x', planning: true })],
  ];
}

// Moved from test/e2e/migrate.test.ts, which keeps every command through the command line on one
// fixture (and a few on each of the others).
describe('a layout it does not read', () => {
  it.each(SCENARIOS)(
    'layout 1 (%s, as sow 0.1.0 left it): every use case that reads or writes the workspace is refused with ' +
      'MIGRATION_NEEDED (exit 4), changing nothing',
    async (scenario) => {
      const w = await v1World(scenario);
      const head = w.git(['rev-parse', 'HEAD']);
      const branches = w.git(['branch', '--list']);
      for (const [what, run] of workspaceUses(w)) {
        const e = await refused(w, run, 'MIGRATION_NEEDED', 4);
        expect(e.message, what).toMatch(/layout version 1\b/);
        expect(e.hint, what).toMatch(/sow migrate/);
      }
      expect(w.read('.sow/.version')).toBe(loadFixture(scenario).files.get('.sow/.version'));
      expect(w.git(['branch', '--list'])).toBe(branches);
      expect(w.git(['rev-parse', 'HEAD'])).toBe(head);
      expect(w.git(['status', '--porcelain', '--untracked-files=all'])).toBe('');
    },
  );

  it(
    'a layout newer than this sow: every use case that reads or writes the workspace is refused with SOW_TOO_OLD ' +
      '(exit 4), changing nothing',
    async () => {
      const w = await world('init');
      await toExecuting(w);
      w.write('.sow/.version', '3\n');
      for (const [what, run] of workspaceUses(w)) {
        const e = await refused(w, run, 'SOW_TOO_OLD', 4);
        expect(e.message, what).toMatch(/layout version 3\b/);
        expect(e.hint, what).toMatch(/upgrade sow/);
      }
      expect(w.exists('.sow/.backup')).toBe(false);
    },
  );
});

const changedFiles = (r: { changes: { file: string }[] }) => [...new Set(r.changes.map((c) => c.file))];

describe('migrate', () => {
  it('--dry-run lists every change, the new .version last, and writes nothing', async () => {
    const w = await world('v1');
    const before = w.snapshot();
    const r = await migrate(w.ctx(), true);
    expect(r).toMatchObject({ from: 1, to: 2, dryRun: true });
    expect(r.backup).toBeUndefined();
    expect(r.changes.at(-1)).toEqual({ file: '.sow/.version', change: 'layout 1 → 2' });
    expect(changedFiles(r)).toContain(PROJECT);
    expect(w.snapshot()).toEqual(before);
  });

  it(
    'converts every state file, keeps a byte-identical backup, stamps the migration with the context’s clock; then ' +
      'there is nothing to do',
    async () => {
      const w = await world('v1');
      const before = w.snapshot();
      w.clock.advance(60);
      const dry = await migrate(w.ctx(), true);
      const r = await migrate(w.ctx(), false);
      expect(r.changes).toEqual(dry.changes);
      expect(r.backup).toBe('.git/sow/backup/1');
      for (const [rel, text] of before)
        if (!rel.startsWith('.git/sow/backup/'))
          expect(w.read(rel.replace(/^\.sow\//, '.git/sow/backup/1/')), rel).toBe(text);
      expect(w.read('.sow/.version')).toBe('2\n');
      const history = w.yaml(PROJECT).statechart.history;
      expect(history.at(-1)).toMatchObject({
        event: 'migrate',
        by: 'sow migrate',
        at: new Date(Date.parse(T0) + 60_000).toISOString(),
      });
      expect(await projectStatus(w.ctx())).toMatchObject({
        name: 'add-auth',
        state: 'ImplementationExecuting',
        tasks: { total: 3 },
      });
      const after = w.snapshot();
      expect(await migrate(w.ctx(), false)).toEqual({ from: 2, to: 2, dryRun: false, changes: [] });
      expect(w.snapshot()).toEqual(after);
    },
  );

  it(
    'refuses a layout newer than this sow (upgrade) and one older than any it converts, and outside a workspace, ' +
      'changing nothing',
    async () => {
      const refuse = async (version: string, code: string, exit: number) => {
        const w: World = await world('init');
        w.write('.sow/.version', version);
        return refused(w, () => migrate(w.ctx(), false), code, exit);
      };
      expect((await refuse('3\n', 'SOW_TOO_OLD', 4)).message).toContain('layout version 3, made by a newer sow');
      await refuse('0\n', 'MIGRATION_NEEDED', 4);
      await refuse('x\n', 'STATE_FILE_INVALID', 4);
      const bare = await world('bare');
      await refused(bare, () => migrate(bare.ctx(), true), 'NOT_INITIALIZED', 1);
    },
  );
});

const VERSION = '.sow/.version';
const GITIGNORE = '.sow/.gitignore';
const BACKUP = '.git/sow/backup/1';
const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const linesOf = (r: MigrationReport) => r.changes.map((c) => `${c.file}: ${c.change}`);

/**
 * `git status --porcelain` as path → status (untracked files listed one by one; not w.git, which trims the first
 * status column).
 */
function gitStatus(w: World): Map<string, string> {
  const out = execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: w.dir, encoding: 'utf8' });
  return new Map(
    out
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => [l.slice(3), l.slice(0, 2)]),
  );
}

/** What each fixture must migrate to, written out by hand from its meta.json steps. */
interface Expected {
  /** Task summaries in the old project file (undefined: no project). */
  tasks?: number;
  /** The state project_init led to. */
  first?: 'PlanningActive' | 'ImplementationPlanning';
  /** The failed review sow 0.1.0 moved to the implementation inputs. */
  reviewCopied?: string;
  /** Task id, old `modified` path, new path. */
  modified: [string, string, string][];
}
const JWT: [string, string, string] = ['010', '../../src/auth/jwt.ts', 'src/auth/jwt.ts'];
const EXPECTED: Record<Scenario, Expected> = {
  initialised: { modified: [] },
  planning: { tasks: 0, first: 'PlanningActive', modified: [] },
  executing: {
    tasks: 3,
    first: 'PlanningActive',
    modified: [JWT, ['010', '../../src/auth/verify.ts', 'src/auth/verify.ts']],
  },
  'review-failed': { tasks: 3, first: 'PlanningActive', reviewCopied: 'review/report-1.md', modified: [JWT] },
  finalize: { tasks: 4, first: 'PlanningActive', reviewCopied: 'review/report-1.md', modified: [JWT] },
  commented: { tasks: 0, first: 'PlanningActive', modified: [] },
  'no-planning': { tasks: 1, first: 'ImplementationPlanning', modified: [] },
};

/** The lines the dry run of this fixture must list, each once, the new .version last. */
function expectedLines(old: Fixture, exp: Expected): (string | RegExp)[] {
  const want: (string | RegExp)[] = [/^\.sow\/\.gitignore: added \.runtime\/, \.backup\/, worktrees\/ /];
  if (old.files.has(PROJECT)) {
    const project = old.yaml(PROJECT);
    expect(project.phases.implementation.tasks).toHaveLength(exp.tasks!);
    want.push(`${PROJECT}: base_branch: 'main' (from git's reflog)`);
    want.push(new RegExp(`^${esc(PROJECT)}: phases\\.implementation\\.tasks: removed \\(${exp.tasks} task summar`));
    if (exp.reviewCopied)
      want.push(
        new RegExp(
          `^${esc(PROJECT)}: phases\\.review\\.outputs: 1 failed review.*copied back.*\\(${esc(exp.reviewCopied)}\\)$`,
        ),
      );
    want.push(
      new RegExp(`^${esc(PROJECT)}: statechart\\.history: started \\(project_init at ${esc(project.created_at)}`),
    );
  }
  for (const [id, from, to] of exp.modified)
    want.push(new RegExp(`^${esc(taskFile(id))}: modified output '${esc(from)}' → '${esc(to)}'`));
  want.push('.sow/.version: layout 1 → 2');
  return want;
}

/** The fixture migrated in-process, after the dry run listed exactly what the run then did. */
async function migrated(
  scenario: Scenario,
): Promise<{ w: World; old: Fixture; dry: MigrationReport; run: MigrationReport }> {
  const w = await v1World(scenario);
  const old = loadFixture(scenario);
  const dry = await migrate(w.ctx(), true);
  const run = await migrate(w.ctx(), false);
  return { w, old, dry, run };
}

// Moved from test/e2e/migrate.test.ts, which runs the command line on the executing fixture.
describe.each(SCENARIOS)('layout-1 fixture %s', (scenario) => {
  const exp = EXPECTED[scenario];

  it(
    'the dry run lists every change, one line each, and writes nothing; migrate makes exactly those changes and ' +
      'keeps a byte-identical backup; sow reads the result; a second run has nothing to do',
    async () => {
      const w = await v1World(scenario);
      const old = loadFixture(scenario);
      expect(exp.tasks === undefined).toBe(!old.files.has(PROJECT));
      const before = w.snapshot();
      const dry = await migrate(w.ctx(), true);
      expect(dry).toMatchObject({ from: 1, to: 2, dryRun: true });
      expect(dry.backup).toBeUndefined();
      const lines = linesOf(dry);
      const want = expectedLines(old, exp);
      for (const x of want)
        expect(
          lines.filter((l) => (typeof x === 'string' ? l === x : x.test(l))),
          `one line for ${x}\n${lines.join('\n')}`,
        ).toHaveLength(1);
      expect(lines, lines.join('\n')).toHaveLength(want.length);
      expect(lines.at(-1)).toBe('.sow/.version: layout 1 → 2');
      for (const l of lines) expect(l).toMatch(/^\.sow\/\S+: \S/);
      expect(w.snapshot()).toEqual(before);
      expect(w.exists('.sow/.backup')).toBe(false);
      expect(w.read(VERSION).trim()).toBe('1');
      expect([...gitStatus(w)]).toEqual([]);

      const run = await migrate(w.ctx(), false);
      expect(run.changes).toEqual(dry.changes);
      expect(run.backup).toBe(BACKUP);
      const hasProject = old.files.has(PROJECT);

      // The backup: every file the old sow left, byte for byte (and at most its own .gitignore besides).
      const backup = filesUnder(join(w.dir, BACKUP), '.sow/');
      for (const [rel, text] of old.files) expect(backup.get(rel), `backup of ${rel}`).toBe(text);
      for (const rel of backup.keys()) if (!old.files.has(rel)) expect(rel).toMatch(/(^|\/)\.gitignore$/);

      expect(w.read(VERSION)).toBe('2\n');
      expect(w.read(GITIGNORE)).toBe(`${old.files.get(GITIGNORE)}.runtime/\n.backup/\nworktrees/\n`);

      // What changed, as git sees it: the converted files only — no backup, no runtime files.
      const changed = new Set([
        GITIGNORE,
        VERSION,
        ...(hasProject ? [PROJECT] : []),
        ...exp.modified.map(([id]) => taskFile(id)),
      ]);
      const status = gitStatus(w);
      expect([...status.keys()].sort()).toEqual([...changed].sort());
      for (const s of status.values()) expect(s).toBe(' M');
      for (const [rel, text] of old.files) if (!changed.has(rel)) expect(w.read(rel), rel).toBe(text);

      if (hasProject) {
        const before = old.yaml(PROJECT);
        const after = w.yaml(PROJECT);
        expect(after.base_branch).toBe('main');
        expect(after.phases.implementation.tasks).toBeUndefined();
        expect(after.statechart.current_state).toBe(old.meta.state);
        expect(after.statechart.history).toEqual([
          { from: 'NoProject', to: exp.first, event: 'project_init', at: before.created_at, by: 'user' },
          expect.objectContaining({
            from: old.meta.state,
            to: old.meta.state,
            event: 'migrate',
            at: T0,
            by: 'sow migrate',
          }),
        ]);
        // Nothing else of the project changed.
        const strip = (p: any) => {
          const c = structuredClone(p);
          delete c.base_branch;
          delete c.statechart.history;
          delete c.phases.implementation.tasks;
          delete c.phases.review.outputs;
          return c;
        };
        expect(strip(after)).toEqual(strip(before));
        if (!exp.reviewCopied) expect(after.phases.review.outputs).toEqual(before.phases.review.outputs);

        // Task files: `modified` outputs named from the repository root; nothing else changed.
        for (const summary of before.phases.implementation.tasks) {
          const rel = taskFile(summary.id);
          const was = old.yaml(rel);
          const now = w.yaml(rel);
          for (const o of was.outputs) {
            const move = exp.modified.find(([id, from]) => id === summary.id && from === o.path);
            if (move) o.path = move[2];
          }
          expect(now, rel).toEqual(was);
          for (const o of now.outputs) if (o.type === 'modified') expect(o.path, rel).not.toMatch(/^\.\.\//);
        }

        // sow reads it: the same tasks as the old summaries, in the same state.
        // (A list leaves out what is empty: no dependencies, no key.)
        expect((await listTasks(w.ctx())).map((t) => ({ dependencies: [], ...t }))).toEqual(
          before.phases.implementation.tasks,
        );
        expect((await projectStatus(w.ctx())).state).toBe(old.meta.state);
      } else {
        // An initialised workspace: a project can be started.
        const started = await newProject(w.ctx(), { name: 'demo', description: 'After migrating', planning: true });
        expect(started.project.statechart.current_state).toBe('PlanningActive');
        expect(w.git(['branch', '--show-current'])).toBe('feat/demo');
        expect(w.yaml(PROJECT).base_branch).toBe('main');
      }

      const after = w.snapshot();
      expect(await migrate(w.ctx(), false)).toEqual({ from: 2, to: 2, dryRun: false, changes: [] });
      expect(await migrate(w.ctx(), true)).toEqual({ from: 2, to: 2, dryRun: true, changes: [] });
      expect(w.snapshot()).toEqual(after);
      expect(w.exists('.git/sow/backup/1-2')).toBe(false);
    },
  );
});

describe('layout-1 fixtures carry on with the new sow', () => {
  const review = (path: string, assessment: string) => ({
    type: 'review',
    path,
    created_at: ISO,
    approved: true,
    metadata: { assessment },
  });

  it(
    'review-failed: the failed review is back in the review outputs and still an implementation input; a new round ' +
      'is decided by its own review',
    async () => {
      const { w } = await migrated('review-failed');
      const s = w.yaml(PROJECT);
      expect(s.phases.review.outputs).toEqual([review('review/report-1.md', 'fail')]);
      expect(s.phases.implementation.inputs).toEqual([review('review/report-1.md', 'fail')]);
      expect(s.phases.implementation.iteration).toBe(2);

      const ctx = w.ctx();
      expect((await addTask(ctx, { name: 'Fix review findings', agent: 'implementer' })).id).toBe('040');
      await setPhaseField(ctx, 'tasks_approved', 'true');
      expect((await advanceProject(ctx, undefined, false)).to).toBe('ImplementationExecuting');
      await setTaskField(ctx, '040', 'status', 'in_progress');
      await setTaskField(ctx, '040', 'status', 'completed');
      expect((await advanceProject(ctx, undefined, false)).to).toBe('ReviewActive');
      // No review of this round yet: blocked, not looped back by report-1's 'fail'.
      const e = await refused(w, () => advanceProject(w.ctx(), undefined, false), 'TRANSITION_BLOCKED', 3);
      expect(e.message).toMatch(/^cannot advance/);
      expect(w.yaml(PROJECT).statechart.current_state).toBe('ReviewActive');
      // This round's review decides.
      w.write('.sow/project/review/report-2.md', '# Review 2\n\nFixed.\n');
      const added = await addArtifact(ctx, { kind: 'phase' }, 'outputs', {
        type: 'review',
        path: 'review/report-2.md',
        extra: { assessment: 'pass' },
      });
      expect(added.index).toBe(1);
      await setArtifact(ctx, { kind: 'phase' }, 'outputs', added.index, 'approved', 'true');
      expect((await advanceProject(ctx, undefined, false)).to).toBe('FinalizeDocumentation');
      expect(w.yaml(PROJECT).phases.review.outputs.map((o: any) => [o.path, o.metadata.assessment])).toEqual([
        ['review/report-1.md', 'fail'],
        ['review/report-2.md', 'pass'],
      ]);
    },
  );

  it('finalize: the review outputs are both rounds, failed then passed; the checks step advances', async () => {
    const { w } = await migrated('finalize');
    expect(w.yaml(PROJECT).phases.review.outputs).toEqual([
      review('review/report-1.md', 'fail'),
      review('review/report-2.md', 'pass'),
    ]);
    expect((await advanceProject(w.ctx(), undefined, false)).to).toBe('FinalizeDelete');
  });

  it(
    "commented: a person's comments in the project file " + 'survive the migration and a write by the new sow',
    async () => {
      const { w, old } = await migrated('commented');
      expect(old.files.get(PROJECT)).toContain('# reviewed by hand');
      let text = w.read(PROJECT);
      expect(text.startsWith('# note from a person\n')).toBe(true);
      expect(text).toContain('# reviewed by hand');
      await addArtifact(w.ctx(), { kind: 'phase' }, 'inputs', { type: 'context', path: 'context/third.md', extra: {} });
      text = w.read(PROJECT);
      expect(text.startsWith('# note from a person\n')).toBe(true);
      expect(text).toContain('# reviewed by hand');
      expect(w.yaml(PROJECT).phases.planning.inputs.map((i: { path: string }) => i.path)).toEqual([
        'context/jwt-research.md',
        'context/more.md',
        'context/third.md',
      ]);
    },
  );

  it('planning: approving the task list and advancing works', async () => {
    const { w } = await migrated('planning');
    await setArtifact(w.ctx(), { kind: 'phase' }, 'outputs', 0, 'approved', 'true');
    expect((await advanceProject(w.ctx(), undefined, false)).to).toBe('ImplementationPlanning');
    expect((await projectHistory(w.ctx())).at(-1)).toMatchObject({
      from: 'PlanningActive',
      to: 'ImplementationPlanning',
      event: 'complete_planning',
    });
  });

  it('no-planning: approving the tasks and advancing works', async () => {
    const { w } = await migrated('no-planning');
    await setPhaseField(w.ctx(), 'tasks_approved', 'true');
    expect((await advanceProject(w.ctx(), undefined, false)).to).toBe('ImplementationExecuting');
  });
});

// Moved from test/e2e/migrate.test.ts.
describe('a journal the old sow left behind', () => {
  it('is finished by migrate (and listed first by the dry run)', async () => {
    const w = await v1World('planning');
    w.write(
      '.sow/.journal.json',
      JSON.stringify({
        version: 1,
        writes: [{ path: '.sow/project/log.md', text: 'finished by migrate\n' }],
        removals: [],
      }),
    );
    const oldLog = w.read('.sow/project/log.md');
    expect(oldLog).not.toBe('finished by migrate\n');
    const before = w.snapshot();
    const dry = await migrate(w.ctx(), true);
    expect(linesOf(dry)[0]).toMatch(/^\.sow\/\.journal\.json: finished the write sow 0\.1\.0 left half done/);
    expect(w.snapshot()).toEqual(before);
    expect(w.read('.sow/project/log.md')).toBe(oldLog);
    expect(w.exists('.sow/.journal.json')).toBe(true);

    const run = await migrate(w.ctx(), false);
    expect(linesOf(run)[0]).toMatch(/^\.sow\/\.journal\.json: finished the write/);
    expect(w.read('.sow/project/log.md')).toBe('finished by migrate\n');
    expect(w.exists('.sow/.journal.json')).toBe(false);
    expect(w.read(VERSION)).toBe('2\n');
    expect(w.yaml(PROJECT).base_branch).toBe('main');
  });
});

// Moved from test/e2e/migrate.test.ts, which keeps one read on the command line.
describe('a .version that is not a number', () => {
  it(
    'every use case that reads or writes the workspace, and migrate, are refused with STATE_FILE_INVALID naming ' +
      '.sow/.version',
    async () => {
      const w = await world('init');
      await newProject(w.ctx(), { name: 'demo', description: 'A demo project', planning: true });
      w.write(VERSION, 'abc\n');
      for (const [what, run] of [
        ...workspaceUses(w),
        ['migrate', () => migrate(w.ctx(), false)] as const,
        ['migrate --dry-run', () => migrate(w.ctx(), true)] as const,
      ]) {
        const e = await refused(w, run, 'STATE_FILE_INVALID', 4);
        expect(e.message, what).toContain('.sow/.version');
      }
    },
  );
});
