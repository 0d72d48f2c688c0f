/**
 * Layout 2 and `sow migrate`, end to end, on repositories made by sow 0.1.0 itself
 * (test/fixtures/v1/): a layout-1 workspace is refused until migrated, `--dry-run` lists every
 * change and writes nothing, `sow migrate` keeps a backup and converts every state file, the
 * project then carries on with the new sow, and a layout newer than sow knows is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ok, PROJECT, taskFile, toExecuting, useRepos, type Repo, type RunResult } from './harness.js';
import { filesUnder, fixtureRepo, SCENARIOS, useFixtureRepos, type FixtureRepo, type Scenario } from './fixtures.js';

const VERSION = '.sow/.version';
const GITIGNORE = '.sow/.gitignore';
const BACKUP = '.sow/.backup/1';
const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);

const freshRepo = useRepos();
const freshFixture = useFixtureRepos();

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
  executing: { tasks: 3, first: 'PlanningActive', modified: [JWT, ['010', '../../src/auth/verify.ts', 'src/auth/verify.ts']] },
  'review-failed': { tasks: 3, first: 'PlanningActive', reviewCopied: 'review/report-1.md', modified: [JWT] },
  finalize: { tasks: 4, first: 'PlanningActive', reviewCopied: 'review/report-1.md', modified: [JWT] },
  commented: { tasks: 0, first: 'PlanningActive', modified: [] },
  'no-planning': { tasks: 1, first: 'ImplementationPlanning', modified: [] },
};

const lines = (text: string): string[] => text.split('\n').filter((l) => l !== '');
const diag = (r: RunResult) => `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;

/** The commands that read or write the workspace (task set only where task 010 exists). */
function workspaceCommands(withTask: boolean): string[][] {
  return [
    ['task', 'list'],
    ['project', 'status'],
    ['status'],
    ['project', 'continue'],
    ['advance'],
    ...(withTask ? [['task', 'set', '--id', '010', 'status', 'completed']] : []),
    ['input', 'add', '--type', 'context', '--path', 'x.md'],
    ['init'],
    ['phase', 'get', 'status'],
    ['project', 'new', 'other'],
  ];
}

/** The command exits 4 with this error code, in JSON, and in text names the layout and what to do. */
function expectRefusedJson(repo: Repo, args: string[], code: string, message: RegExp, hint: RegExp): void {
  const r = repo.sow([...args, '--json']);
  const what = `sow ${args.join(' ')} --json\n${diag(r)}`;
  expect(r.code, what).toBe(4);
  expect(r.json?.ok, what).toBe(false);
  expect(r.json?.error?.code, what).toBe(code);
  expect(r.json?.error?.message, what).toMatch(message);
  expect(r.json?.error?.hint, what).toMatch(hint);
}

function expectRefusedText(repo: Repo, args: string[], message: RegExp, hint: RegExp): void {
  const r = repo.sow(args);
  const what = `sow ${args.join(' ')}\n${diag(r)}`;
  expect(r.code, what).toBe(4);
  expect(r.stdout, what).toBe('');
  expect(r.stderr, what).toMatch(new RegExp(`^error: .*${message.source}`, 'm'));
  expect(r.stderr, what).toMatch(new RegExp(`^hint: .*${hint.source}`, 'm'));
}

const LAYOUT_1 = /layout version 1\b/;
const MIGRATE_HINT = /sow migrate/;

/** `git status --porcelain` as path → status (untracked files listed one by one). */
function gitStatus(repo: Repo): Map<string, string> {
  // Not repo.git: it trims the output, and with it the first line's leading status column.
  const out = execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: repo.dir, encoding: 'utf8' });
  return new Map(lines(out).map((l) => [l.slice(3), l.slice(0, 2)]));
}

describe.each(SCENARIOS)('layout-1 fixture %s', (scenario) => {
  const exp = EXPECTED[scenario];
  let repo: FixtureRepo;
  let dryRunLines: string[] = [];
  let migrated = false;

  beforeAll(() => {
    repo = fixtureRepo(scenario);
  });
  afterAll(() => repo?.cleanup());

  /** Later tests need the migrated repository: say so plainly when the migration failed. */
  const needMigrated = () => expect(migrated, `sow migrate failed in ${scenario}; see the 'sow migrate' test`).toBe(true);
  const old = () => repo.fixture;
  const hasProject = () => old().files.has(PROJECT);

  it('refuses every workspace command with MIGRATION_NEEDED (exit 4) and changes nothing', () => {
    expect(exp.tasks === undefined).toBe(!hasProject());
    const before = repo.snapshot();
    const branches = repo.git(['branch', '--list']);
    const withTask = old().files.has(taskFile('010'));
    // Every command in one scenario, a few in the others, with --json and without; every use case
    // on every fixture is refused in-process (src/app/migrate.test.ts).
    const some = [['task', 'list'], ['advance'], ['init']];
    for (const args of scenario === 'executing' ? workspaceCommands(withTask) : some) expectRefusedJson(repo, args, 'MIGRATION_NEEDED', LAYOUT_1, MIGRATE_HINT);
    const text = scenario === 'executing' ? workspaceCommands(true) : some;
    for (const args of text) expectRefusedText(repo, args, LAYOUT_1, MIGRATE_HINT);
    expect(repo.snapshot()).toEqual(before);
    expect(repo.read(VERSION)).toBe(old().files.get(VERSION));
    // No branch was made (project new), the branch is the same, and the work tree is clean.
    expect(repo.git(['branch', '--list'])).toBe(branches);
    expect(repo.git(['branch', '--show-current'])).toBe(old().meta.branch);
    expect([...gitStatus(repo)]).toEqual([]);
  });

  if (scenario === 'executing' || scenario === 'initialised') {
    it('still runs the commands that do not touch the workspace', () => {
      const before = repo.snapshot();
      const version = ok(repo, ['--version']);
      expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
      const help = ok(repo, ['help']);
      expect(help.stdout).toContain('Usage: sow');
      expect(help.stdout).toMatch(/^\s+migrate\b/m);
      const dashHelp = ok(repo, ['--help']);
      expect(dashHelp.stdout).toBe(help.stdout);
      ok(repo, ['migrate', '--dry-run']);
      expect(repo.snapshot()).toEqual(before);
    });
  }

  it('migrate --dry-run lists every change, one line each, and writes nothing', () => {
    const before = repo.snapshot();
    const r = repo.sow(['migrate', '--dry-run']);
    expect(r.code, diag(r)).toBe(0);
    dryRunLines = lines(r.stdout);
    expect(r.stderr).toMatch(/from layout 1 to 2 \(\d+ changes\); nothing written/);

    const want: (string | RegExp)[] = [/^\.sow\/\.gitignore: added \.runtime\/, \.backup\/, worktrees\/ /];
    if (hasProject()) {
      const project = old().yaml(PROJECT);
      expect(project.phases.implementation.tasks).toHaveLength(exp.tasks!);
      want.push(`${PROJECT}: base_branch: 'main' (from git's reflog)`);
      want.push(new RegExp(`^${esc(PROJECT)}: phases\\.implementation\\.tasks: removed \\(${exp.tasks} task summar`));
      if (exp.reviewCopied) want.push(new RegExp(`^${esc(PROJECT)}: phases\\.review\\.outputs: 1 failed review.*copied back.*\\(${esc(exp.reviewCopied)}\\)$`));
      want.push(new RegExp(`^${esc(PROJECT)}: statechart\\.history: started \\(project_init at ${esc(project.created_at)}`));
    }
    for (const [id, from, to] of exp.modified) want.push(new RegExp(`^${esc(taskFile(id))}: modified output '${esc(from)}' → '${esc(to)}'`));
    want.push('.sow/.version: layout 1 → 2');

    for (const w of want) {
      const hits = dryRunLines.filter((l) => (typeof w === 'string' ? l === w : w.test(l)));
      expect(hits, `one line for ${w}\n${r.stdout}`).toHaveLength(1);
    }
    expect(dryRunLines, r.stdout).toHaveLength(want.length);
    // The version is written last, so it is listed last.
    expect(dryRunLines.at(-1)).toBe('.sow/.version: layout 1 → 2');
    // Every line is `<file>: <change>` with a file under .sow/.
    for (const l of dryRunLines) expect(l).toMatch(/^\.sow\/\S+: \S/);

    // --json: the same changes, as data.
    const j = repo.sow(['migrate', '--dry-run', '--json']);
    expect(j.code, diag(j)).toBe(0);
    expect(j.json?.ok).toBe(true);
    expect(j.json?.data).toMatchObject({ from: 1, to: 2, dryRun: true });
    expect(j.json?.data.backup).toBeUndefined();
    expect(j.json?.data.changes.map((c: { file: string; change: string }) => `${c.file}: ${c.change}`)).toEqual(dryRunLines);

    expect(repo.snapshot()).toEqual(before);
    expect(repo.exists('.sow/.backup')).toBe(false);
    expect(repo.read(VERSION).trim()).toBe('1');
    expect([...gitStatus(repo)]).toEqual([]);
  });

  it('migrate converts every state file and keeps a byte-identical, git-ignored backup', () => {
    const r = repo.sow(['migrate']);
    expect(r.code, diag(r)).toBe(0);
    migrated = true;
    expect(r.stderr).toContain('from layout 1 to 2');
    expect(r.stderr).toContain(`${BACKUP}/`);
    // The same changes the dry run listed.
    expect(lines(r.stdout)).toEqual(dryRunLines);

    // The backup: every file the old sow left, byte for byte (and at most its own .gitignore besides).
    const backup = filesUnder(join(repo.dir, BACKUP), '.sow/');
    for (const [rel, text] of old().files) expect(backup.get(rel), `backup of ${rel}`).toBe(text);
    for (const rel of backup.keys()) if (!old().files.has(rel)) expect(rel).toMatch(/(^|\/)\.gitignore$/);

    expect(repo.read(VERSION)).toBe('2\n');
    expect(repo.read(GITIGNORE)).toBe(`${old().files.get(GITIGNORE)}.runtime/\n.backup/\nworktrees/\n`);

    // What changed, as git sees it: the converted files only — no backup, no runtime files.
    const changed = new Set([GITIGNORE, VERSION, ...(hasProject() ? [PROJECT] : []), ...exp.modified.map(([id]) => taskFile(id))]);
    const status = gitStatus(repo);
    expect([...status.keys()].sort()).toEqual([...changed].sort());
    for (const s of status.values()) expect(s).toBe(' M');
    // Every other file is untouched.
    for (const [rel, text] of old().files) if (!changed.has(rel)) expect(repo.read(rel), rel).toBe(text);

    if (hasProject()) {
      const before = old().yaml(PROJECT);
      const after = repo.yaml(PROJECT);
      expect(after.base_branch).toBe('main');
      expect(after.phases.implementation.tasks).toBeUndefined();
      expect(after.statechart.current_state).toBe(old().meta.state);
      expect(after.statechart.history).toEqual([
        { from: 'NoProject', to: exp.first, event: 'project_init', at: before.created_at, by: 'user' },
        expect.objectContaining({ from: old().meta.state, to: old().meta.state, event: 'migrate', at: ISO, by: 'sow migrate' }),
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
        const was = old().yaml(rel);
        const now = repo.yaml(rel);
        const moves = exp.modified.filter(([id]) => id === summary.id);
        for (const o of was.outputs) {
          const move = moves.find(([, from]) => from === o.path);
          if (move) o.path = move[2];
        }
        expect(now, rel).toEqual(was);
        for (const o of now.outputs) if (o.type === 'modified') expect(o.path, rel).not.toMatch(/^\.\.\//);
      }
    }
  });

  if (scenario === 'review-failed') {
    it('review-failed: the failed review is back in the review outputs and still an implementation input', () => {
      needMigrated();
      const s = repo.yaml(PROJECT);
      const report = { type: 'review', path: 'review/report-1.md', created_at: ISO, approved: true, metadata: { assessment: 'fail' } };
      expect(s.phases.review.outputs).toEqual([report]);
      expect(s.phases.implementation.inputs).toEqual([report]);
      expect(s.phases.implementation.iteration).toBe(2);
    });
  }

  if (scenario === 'finalize') {
    it('finalize: the review outputs are both rounds, failed then passed', () => {
      needMigrated();
      const s = repo.yaml(PROJECT);
      expect(s.phases.review.outputs).toEqual([
        { type: 'review', path: 'review/report-1.md', created_at: ISO, approved: true, metadata: { assessment: 'fail' } },
        { type: 'review', path: 'review/report-2.md', created_at: ISO, approved: true, metadata: { assessment: 'pass' } },
      ]);
    });
  }

  if (scenario === 'commented') {
    it("commented: a person's comments in the project file survive the migration", () => {
      needMigrated();
      const text = repo.read(PROJECT);
      expect(text.startsWith('# note from a person\n')).toBe(true);
      expect(text).toContain('# reviewed by hand');
      expect(old().files.get(PROJECT)).toContain('# reviewed by hand');
    });
  }

  it('sow reads the migrated workspace: the same tasks as the old summaries', () => {
    needMigrated();
    if (!hasProject()) {
      // An initialised workspace: a project can be started.
      const r = ok(repo, ['project', 'new', 'demo', '--description', 'After migrating']);
      expect(r.stdout).toBe('PlanningActive\n');
      expect(repo.git(['branch', '--show-current'])).toBe('feat/demo');
      expect(repo.yaml(PROJECT).base_branch).toBe('main');
      return;
    }
    const list = ok(repo, ['task', 'list', '--json']);
    expect(list.json?.data).toEqual(old().yaml(PROJECT).phases.implementation.tasks);
    const status = ok(repo, ['status', '--json']);
    expect(JSON.stringify(status.json?.data)).toContain(old().meta.state!);
  });

  it('migrate again: nothing to do, nothing changed', () => {
    needMigrated();
    const before = repo.snapshot();
    const r = repo.sow(['migrate']);
    expect(r.code, diag(r)).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/already at layout 2; nothing to do/);
    const j = repo.sow(['migrate', '--dry-run', '--json']);
    expect(j.code, diag(j)).toBe(0);
    expect(j.json?.data).toMatchObject({ from: 2, to: 2, changes: [] });
    expect(repo.snapshot()).toEqual(before);
    expect(repo.exists('.sow/.backup/1-2')).toBe(false);
  });

  if (scenario === 'executing') {
    it('executing: the project finishes its lifecycle with the new sow', () => {
      needMigrated();
      // Task 010 has pending feedback: completing it is blocked until the feedback is addressed.
      const blocked = repo.sow(['task', 'set', '--id', '010', 'status', 'completed']);
      expect(blocked.code, diag(blocked)).toBe(3);
      ok(repo, ['task', 'input', 'set', '--id', '010', '--index', '1', 'status', 'addressed']);
      ok(repo, ['task', 'set', '--id', '010', 'status', 'completed']);
      ok(repo, ['task', 'set', '--id', '030', 'status', 'in_progress']);
      ok(repo, ['task', 'set', '--id', '030', 'status', 'completed']);
      expect(ok(repo, ['advance']).stdout).toBe('ReviewActive\n');
      repo.write('.sow/project/review/report-1.md', '# Review\n\nAll good.\n');
      ok(repo, ['output', 'add', '--type', 'review', '--path', 'review/report-1.md', '--assessment', 'pass']);
      ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
      expect(ok(repo, ['advance']).stdout).toBe('FinalizeDocumentation\n');

      const history = ok(repo, ['project', 'history', '--json']).json?.data;
      expect(history).toEqual([
        { from: 'NoProject', to: 'PlanningActive', event: 'project_init', at: old().yaml(PROJECT).created_at, by: 'user' },
        expect.objectContaining({ from: 'ImplementationExecuting', to: 'ImplementationExecuting', event: 'migrate', by: 'sow migrate' }),
        { from: 'ImplementationExecuting', to: 'ReviewActive', event: 'all_tasks_complete', at: ISO, by: 'user' },
        { from: 'ReviewActive', to: 'FinalizeDocumentation', event: 'review_pass', at: ISO, by: 'user' },
      ]);
      // The migrated task kept its repository-relative outputs through the new writes.
      expect(repo.yaml(taskFile('010')).outputs.map((o: { path: string }) => o.path)).toEqual(['src/auth/jwt.ts', 'src/auth/verify.ts']);
    });
  }

  if (scenario === 'review-failed') {
    it('review-failed: a new round of work, and the old failed review does not decide the new review', () => {
      needMigrated();
      expect(ok(repo, ['task', 'add', 'Fix review findings', '--agent', 'implementer']).stdout).toBe('040\n');
      ok(repo, ['phase', 'set', 'tasks_approved', 'true']);
      expect(ok(repo, ['advance']).stdout).toBe('ImplementationExecuting\n');
      ok(repo, ['task', 'set', '--id', '040', 'status', 'in_progress']);
      ok(repo, ['task', 'set', '--id', '040', 'status', 'completed']);
      expect(ok(repo, ['advance']).stdout).toBe('ReviewActive\n');

      // No review of this round yet: blocked, not looped back by report-1's 'fail'.
      const before = repo.snapshot();
      const blocked = repo.sow(['advance']);
      expect(blocked.code, diag(blocked)).toBe(3);
      expect(blocked.stderr).toMatch(/^error: cannot advance/);
      expect(repo.snapshot()).toEqual(before);
      expect(repo.yaml(PROJECT).statechart.current_state).toBe('ReviewActive');

      // This round's review decides.
      repo.write('.sow/project/review/report-2.md', '# Review 2\n\nFixed.\n');
      const added = ok(repo, ['output', 'add', '--type', 'review', '--path', 'review/report-2.md', '--assessment', 'pass']);
      const index = /^\[(\d+)\]/.exec(added.stdout)?.[1];
      expect(index, added.stdout).toBe('1');
      ok(repo, ['output', 'set', '--index', index!, 'approved', 'true']);
      expect(ok(repo, ['advance']).stdout).toBe('FinalizeDocumentation\n');
      expect(repo.yaml(PROJECT).phases.review.outputs.map((o: any) => [o.path, o.metadata.assessment])).toEqual([
        ['review/report-1.md', 'fail'],
        ['review/report-2.md', 'pass'],
      ]);
    });
  }

  if (scenario === 'planning') {
    it('planning: approving the task list and advancing works', () => {
      needMigrated();
      ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
      expect(ok(repo, ['advance']).stdout).toBe('ImplementationPlanning\n');
      expect(ok(repo, ['project', 'history', '--json']).json?.data.at(-1)).toMatchObject({ from: 'PlanningActive', to: 'ImplementationPlanning', event: 'complete_planning' });
    });
  }

  if (scenario === 'no-planning') {
    it('no-planning: approving the tasks and advancing works', () => {
      needMigrated();
      ok(repo, ['phase', 'set', 'tasks_approved', 'true']);
      expect(ok(repo, ['advance']).stdout).toBe('ImplementationExecuting\n');
    });
  }

  if (scenario === 'finalize') {
    it('finalize: the checks step advances', () => {
      needMigrated();
      expect(ok(repo, ['advance']).stdout).toBe('FinalizeDelete\n');
    });
  }

  if (scenario === 'commented') {
    it('commented: the comments also survive a write by the new sow', () => {
      needMigrated();
      ok(repo, ['input', 'add', '--type', 'context', '--path', 'context/third.md']);
      const text = repo.read(PROJECT);
      expect(text.startsWith('# note from a person\n')).toBe(true);
      expect(text).toContain('# reviewed by hand');
      expect(repo.yaml(PROJECT).phases.planning.inputs.map((i: { path: string }) => i.path)).toEqual(['context/jwt-research.md', 'context/more.md', 'context/third.md']);
    });
  }
});

describe('after migrating', () => {
  it('the backup stays out of git on a branch whose .sow/.gitignore does not ignore it', () => {
    // Commit the migration, then go back to main, which has no .sow/.gitignore: the backup is
    // still there (ignored files stay), and must still be ignored.
    const repo = freshFixture('planning');
    const r = repo.sow(['migrate']);
    expect(r.code, diag(r)).toBe(0);
    repo.git(['add', '-A']);
    repo.git(['commit', '-qm', 'migrated']);
    expect(repo.git(['ls-files', '.sow/.backup'])).toBe('');
    repo.git(['checkout', '-q', 'main']);
    expect(repo.exists(`${BACKUP}/project/state.yaml`)).toBe(true);
    expect([...gitStatus(repo).keys()]).toEqual([]);
  });

  it('a fresh clone of the migrated repository works (it has no .sow/.runtime/)', () => {
    const repo = freshFixture('executing');
    const r = repo.sow(['migrate']);
    expect(r.code, diag(r)).toBe(0);
    repo.git(['add', '-A']);
    repo.git(['commit', '-qm', 'migrated']);
    const clone = freshRepo({ init: false });
    clone.git(['clone', '-q', '-b', 'feat/add-auth', repo.dir, 'c']);
    const list = clone.sow(['task', 'list'], { cwd: 'c' });
    expect(list.code, diag(list)).toBe(0);
    // 030 waits for 010 and 020, so starting it is blocked (exit 3), not a crash; 010 can move on.
    const blocked = clone.sow(['task', 'set', '--id', '030', 'status', 'in_progress'], { cwd: 'c' });
    expect(blocked.code, diag(blocked)).toBe(3);
    const set = clone.sow(['task', 'set', '--id', '010', 'status', 'needs_review'], { cwd: 'c' });
    expect(set.code, diag(set)).toBe(0);
    expect(clone.yaml('c/' + taskFile('010')).status).toBe('needs_review');
    expect(clone.git(['-C', 'c', 'status', '--porcelain'])).toBe('M .sow/project/phases/implementation/tasks/010/state.yaml');
  });
});

describe('a journal the old sow left behind', () => {
  it('is finished by migrate (and listed first by the dry run)', () => {
    const repo = freshFixture('planning');
    const journal = { version: 1, writes: [{ path: '.sow/project/log.md', text: 'finished by migrate\n' }], removals: [] };
    repo.write('.sow/.journal.json', JSON.stringify(journal));
    const oldLog = repo.read('.sow/project/log.md');
    expect(oldLog).not.toBe('finished by migrate\n');

    const before = repo.snapshot();
    const dry = repo.sow(['migrate', '--dry-run']);
    expect(dry.code, diag(dry)).toBe(0);
    expect(lines(dry.stdout)[0]).toMatch(/^\.sow\/\.journal\.json: finished the write sow 0\.1\.0 left half done/);
    expect(repo.snapshot()).toEqual(before);
    expect(repo.read('.sow/project/log.md')).toBe(oldLog);

    const r = repo.sow(['migrate']);
    expect(r.code, diag(r)).toBe(0);
    expect(lines(r.stdout)[0]).toMatch(/^\.sow\/\.journal\.json: finished the write/);
    expect(repo.read('.sow/project/log.md')).toBe('finished by migrate\n');
    expect(repo.exists('.sow/.journal.json')).toBe(false);
    expect(repo.read(VERSION)).toBe('2\n');
    expect(repo.yaml(PROJECT).base_branch).toBe('main');
  });
});

describe('a layout newer than this sow', () => {
  const TOO_NEW = /layout version 3\b/;
  const UPGRADE = /upgrade sow/;

  it('refuses every workspace command and migrate with SOW_TOO_OLD (exit 4), changing nothing', () => {
    const repo = freshRepo();
    toExecuting(repo);
    repo.write(VERSION, '3\n');
    const before = repo.snapshot();
    // Every use case: in-process (src/app/migrate.test.ts); here a read, a write, init and migrate.
    for (const args of [['task', 'list'], ['task', 'set', '--id', '010', 'status', 'completed'], ['init'], ['migrate'], ['migrate', '--dry-run']])
      expectRefusedJson(repo, args, 'SOW_TOO_OLD', TOO_NEW, UPGRADE);
    for (const args of [['task', 'list'], ['advance'], ['migrate']]) expectRefusedText(repo, args, TOO_NEW, UPGRADE);
    expect(repo.snapshot()).toEqual(before);
    expect(repo.exists('.sow/.backup')).toBe(false);
    expect(ok(repo, ['--version']).code).toBe(0);
  });

  it('a .version that is not a number: STATE_FILE_INVALID naming .sow/.version', () => {
    const repo = freshRepo();
    ok(repo, ['project', 'new', 'demo', '--description', 'A demo project']);
    repo.write(VERSION, 'abc\n');
    const before = repo.snapshot();
    for (const args of [['task', 'list'], ['advance'], ['init'], ['project', 'status'], ['migrate'], ['migrate', '--dry-run']]) {
      const r = repo.sow([...args, '--json']);
      const what = `sow ${args.join(' ')} --json\n${diag(r)}`;
      expect(r.code, what).toBe(4);
      expect(r.json?.error?.code, what).toBe('STATE_FILE_INVALID');
      expect(r.json?.error?.message, what).toContain('.sow/.version');
    }
    expect(repo.snapshot()).toEqual(before);
  });
});

function esc(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
