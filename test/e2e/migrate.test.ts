/**
 * Layout 2 and `sow migrate`, end to end, on a repository made by sow 0.1.0 itself
 * (test/fixtures/v1/executing): a layout-1 workspace is refused until migrated (exit 4, the words
 * in text and --json), `--dry-run` lists every change and writes nothing, `sow migrate` keeps a
 * git-ignored backup and converts the state files, the project then carries on with the new sow
 * (also in a fresh clone), and a layout newer than sow knows, or a .version that is no number, is
 * refused. What each layout-1 file of every fixture converts to, the old journal, every use case
 * refused and the other fixtures carrying on: in-process (src/app/migrate.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { ok, PROJECT, taskFile, toExecuting, useRepos, type Repo, type RunResult } from './harness.js';
import { filesUnder, fixtureRepo, useFixtureRepos, type FixtureRepo, type Scenario } from './fixtures.js';

const VERSION = '.sow/.version';
const GITIGNORE = '.sow/.gitignore';
const BACKUP = '.git/sow/backup/1';
const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);

const freshRepo = useRepos();
const freshFixture = useFixtureRepos();

// The executing fixture: task 010's `modified` outputs were named from .sow/project/.
const MODIFIED: [string, string, string][] = [
  ['010', '../../src/auth/jwt.ts', 'src/auth/jwt.ts'],
  ['010', '../../src/auth/verify.ts', 'src/auth/verify.ts'],
];

const lines = (text: string): string[] => text.split('\n').filter((l) => l !== '');
const diag = (r: RunResult) => `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;

/** A read, a write, a transition, init and project new: every use case is refused in-process. */
function workspaceCommands(): string[][] {
  return [
    ['task', 'list'],
    ['status'],
    ['advance'],
    ['task', 'set', '--id', '010', 'status', 'completed'],
    ['init'],
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
  const out = execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], {
    cwd: repo.dir,
    encoding: 'utf8',
  });
  return new Map(lines(out).map((l) => [l.slice(3), l.slice(0, 2)]));
}

describe('a layout-1 workspace (the executing fixture)', () => {
  const scenario: Scenario = 'executing';
  let repo: FixtureRepo;
  let dryRunLines: string[] = [];
  let migrated = false;

  beforeAll(() => {
    repo = fixtureRepo(scenario);
  });
  afterAll(() => repo?.cleanup());

  /** Later tests need the migrated repository: say so plainly when the migration failed. */
  const needMigrated = () =>
    expect(migrated, `sow migrate failed in ${scenario}; see the 'sow migrate' test`).toBe(true);
  const old = () => repo.fixture;

  it('refuses the workspace commands with MIGRATION_NEEDED (exit 4), in text and --json, and changes nothing', () => {
    const before = repo.snapshot();
    const branches = repo.git(['branch', '--list']);
    // A read, a write, a transition, init and project new on the command line; every use case on
    // every fixture is refused in-process (src/app/migrate.test.ts).
    for (const args of workspaceCommands()) expectRefusedJson(repo, args, 'MIGRATION_NEEDED', LAYOUT_1, MIGRATE_HINT);
    for (const args of [['task', 'list'], ['advance'], ['project', 'new', 'other']])
      expectRefusedText(repo, args, LAYOUT_1, MIGRATE_HINT);
    expect(repo.snapshot()).toEqual(before);
    expect(repo.read(VERSION)).toBe(old().files.get(VERSION));
    // No branch was made (project new), the branch is the same, and the work tree is clean.
    expect(repo.git(['branch', '--list'])).toBe(branches);
    expect(repo.git(['branch', '--show-current'])).toBe(old().meta.branch);
    expect([...gitStatus(repo)]).toEqual([]);
  });

  it('still runs the commands that do not touch the workspace', () => {
    const before = repo.snapshot();
    const version = ok(repo, ['--version']);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    const help = ok(repo, ['help']);
    expect(help.stdout).toContain('Usage: sow');
    expect(help.stdout).toMatch(/^\s+migrate\b/m);
    const dashHelp = ok(repo, ['--help']);
    expect(dashHelp.stdout).toBe(help.stdout);
    expect(repo.snapshot()).toEqual(before);
  });

  it('migrate --dry-run lists every change, one line each, and writes nothing', () => {
    const before = repo.snapshot();
    const r = repo.sow(['migrate', '--dry-run']);
    expect(r.code, diag(r)).toBe(0);
    dryRunLines = lines(r.stdout);
    expect(r.stderr).toMatch(/from layout 1 to 2 \(\d+ changes\); nothing written/);

    const project = old().yaml(PROJECT);
    const want: (string | RegExp)[] = [
      /^\.sow\/\.gitignore: added \.runtime\/, \.backup\/, worktrees\/ /,
      `${PROJECT}: base_branch: 'main' (from git's reflog)`,
      new RegExp(
        `^${esc(PROJECT)}: phases\\.implementation\\.tasks: removed \\(3 task summaries; each task's own ` +
          `state\\.yaml is the one truth\\)$`,
      ),
      new RegExp(`^${esc(PROJECT)}: statechart\\.history: started \\(project_init at ${esc(project.created_at)}`),
      ...MODIFIED.map(
        ([id, from, to]) => `${taskFile(id)}: modified output '${from}' → '${to}' (named from the repository root)`,
      ),
      '.sow/.version: layout 1 → 2',
    ];
    for (const w of want) {
      const hits = dryRunLines.filter((l) => (typeof w === 'string' ? l === w : w.test(l)));
      expect(hits, `one line for ${w}\n${r.stdout}`).toHaveLength(1);
    }
    expect(dryRunLines, r.stdout).toHaveLength(want.length);
    // The version is written last, so it is listed last.
    expect(dryRunLines.at(-1)).toBe('.sow/.version: layout 1 → 2');

    // --json: the same changes, as data.
    const j = repo.sow(['migrate', '--dry-run', '--json']);
    expect(j.code, diag(j)).toBe(0);
    expect(j.json?.ok).toBe(true);
    expect(j.json?.data).toMatchObject({ from: 1, to: 2, dryRun: true });
    expect(j.json?.data.backup).toBeUndefined();
    expect(j.json?.data.changes.map((c: { file: string; change: string }) => `${c.file}: ${c.change}`)).toEqual(
      dryRunLines,
    );

    expect(repo.snapshot()).toEqual(before);
    expect(repo.exists('.sow/.backup')).toBe(false);
    expect(repo.read(VERSION).trim()).toBe('1');
    expect([...gitStatus(repo)]).toEqual([]);
  });

  it('migrate converts the state files and keeps a byte-identical, git-ignored backup', () => {
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
    const changed = new Set([GITIGNORE, VERSION, PROJECT, taskFile('010')]);
    const status = gitStatus(repo);
    expect([...status.keys()].sort()).toEqual([...changed].sort());
    for (const s of status.values()) expect(s).toBe(' M');
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
    expect(repo.exists('.git/sow/backup/1-2')).toBe(false);
  });

  it('the project reads as before and finishes its lifecycle with the new sow', () => {
    needMigrated();
    const list = ok(repo, ['task', 'list', '--json']);
    // The same tasks; the list leaves out what is empty (no dependencies: no key).
    const withoutEmptyDeps = (t: Record<string, unknown>) =>
      Array.isArray(t['dependencies']) && t['dependencies'].length === 0
        ? Object.fromEntries(Object.entries(t).filter(([k]) => k !== 'dependencies'))
        : t;
    expect(list.json?.data).toEqual(old().yaml(PROJECT).phases.implementation.tasks.map(withoutEmptyDeps));
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
      {
        from: 'NoProject',
        to: 'PlanningActive',
        event: 'project_init',
        at: old().yaml(PROJECT).created_at,
        by: 'user',
      },
      expect.objectContaining({
        from: 'ImplementationExecuting',
        to: 'ImplementationExecuting',
        event: 'migrate',
        by: 'sow migrate',
      }),
      { from: 'ImplementationExecuting', to: 'ReviewActive', event: 'all_tasks_complete', at: ISO, by: 'user' },
      { from: 'ReviewActive', to: 'FinalizeDocumentation', event: 'review_pass', at: ISO, by: 'user' },
    ]);
    // The migrated task kept its repository-relative outputs through the new writes.
    expect(repo.yaml(taskFile('010')).outputs.map((o: { path: string }) => o.path)).toEqual(
      MODIFIED.map(([, , to]) => to),
    );
  });
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

  it(
    "a committed .sow/.backup linked outside: migrate keeps its copy in git's folder and writes nothing there; an " +
      'agent-outputs link out is refused, changing nothing',
    () => {
      const repo = freshFixture('executing');
      const outside = mkdtempSync(join(tmpdir(), 'sow-outside-'));
      try {
        writeFileSync(join(outside, '.gitignore'), 'mine\n');
        mkdirSync(join(outside, 'ao'));
        writeFileSync(join(outside, 'ao', 'keep'), 'k');
        const untouched = () => {
          expect(readdirSync(outside).sort()).toEqual(['.gitignore', 'ao']);
          expect(readFileSync(join(outside, '.gitignore'), 'utf8')).toBe('mine\n');
          expect(readdirSync(join(outside, 'ao'))).toEqual(['keep']);
        };
        symlinkSync(outside, join(repo.dir, '.sow/.backup'));
        symlinkSync(join(outside, 'ao'), join(repo.dir, '.sow/project/agent-outputs'));
        repo.git(['add', '-f', '.sow/.backup', '.sow/project/agent-outputs']);
        repo.git(['commit', '-qm', 'hostile']);
        const before = repo.snapshot();
        const refused = repo.sow(['migrate']);
        expect(refused.code, diag(refused)).toBe(4);
        expect(refused.stderr).toContain("'.sow/project/agent-outputs' is a link to");
        expect(repo.snapshot()).toEqual(before);
        untouched();
        rmSync(join(repo.dir, '.sow/project/agent-outputs'));
        const r = repo.sow(['migrate']);
        expect(r.code, diag(r)).toBe(0);
        untouched();
        expect(repo.exists(`${BACKUP}/project/state.yaml`)).toBe(true);
        expect(repo.exists(`${BACKUP}/.backup`), 'the link is not copied').toBe(false);
      } finally {
        rmSync(outside, { recursive: true, force: true });
      }
    },
  );

  it('a fresh clone of the migrated repository works (it has no .git/sow/)', () => {
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
    expect(clone.git(['-C', 'c', 'status', '--porcelain'])).toBe(
      'M .sow/project/phases/implementation/tasks/010/state.yaml',
    );
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
    // Every use case: in-process (src/app/migrate.test.ts); here a read, a write and migrate.
    for (const args of [
      ['task', 'list'],
      ['task', 'set', '--id', '010', 'status', 'completed'],
      ['migrate', '--dry-run'],
    ])
      expectRefusedJson(repo, args, 'SOW_TOO_OLD', TOO_NEW, UPGRADE);
    for (const args of [['task', 'list'], ['migrate']]) expectRefusedText(repo, args, TOO_NEW, UPGRADE);
    expect(repo.snapshot()).toEqual(before);
    expect(repo.exists('.sow/.backup')).toBe(false);
    expect(ok(repo, ['--version']).code).toBe(0);
  });

  it('a .version that is not a number: STATE_FILE_INVALID naming .sow/.version', () => {
    const repo = freshRepo();
    toExecuting(repo);
    repo.write(VERSION, 'abc\n');
    const before = repo.snapshot();
    // Every use case and migrate: in-process (src/app/migrate.test.ts); here a read and migrate.
    for (const args of [['task', 'list'], ['migrate']]) {
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
