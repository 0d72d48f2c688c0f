/**
 * A project belongs to its branch, as a person meets it at the command line: `project new` makes
 * and records the branch; on another checkout (the project carried along uncommitted, a branch
 * made from the project's, a detached HEAD) a write is refused with WRONG_BRANCH on stderr and in
 * --json, exit 1, .sow/ byte-identical; reads still work with a warning; `project set branch`
 * moves the project; `project new` on a detached HEAD is refused.
 *
 * In-process (src/app/branch-ownership.test.ts): the branch and base branch recorded in each case
 * (--branch, a branch of its own, one made from develop), every write refused on each wrong
 * checkout with its hint (a branch made from the project's, one renamed by hand, a detached HEAD),
 * `project set branch` only to the branch checked out, `project delete` there only with --force,
 * and what `project new` says when the branch already has a project (committed or not). Every
 * write of a carried project: src/app/workspace.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { ok, PROJECT, taskFile, toExecuting, useRepos, type Repo, type RunResult } from './harness.js';

const fresh = useRepos();

interface Failure {
  message: string;
  hint: string;
}

/**
 * Runs `args` with --json (and, with `human`, without): exit code, error code, no change to .sow/,
 * and the human form prints the same message and hint. Returns the error's message and hint.
 */
function expectFails(repo: Repo, args: string[], exit: number, code: string, opts: { human?: boolean } = {}): Failure {
  const before = repo.snapshot();
  const r = repo.sow([...args, '--json']);
  const label = `sow ${args.join(' ')} --json\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;
  expect(r.code, label).toBe(exit);
  expect(r.json, label).toBeDefined();
  expect(r.json, label).toMatchObject({ ok: false, error: { code, message: expect.any(String) } });
  const error = r.json!.error!;
  if (opts.human) {
    const human = repo.sow(args);
    expect(human.code, `sow ${args.join(' ')}`).toBe(exit);
    expect(human.stdout).toBe('');
    expect(human.stderr).toContain(`error: ${error.message}`);
    if (error.hint) expect(human.stderr).toContain(`hint: ${error.hint}`);
  }
  expect(repo.snapshot(), `sow ${args.join(' ')} left .sow/ byte-identical`).toEqual(before);
  return { message: error.message, hint: error.hint ?? '' };
}

/** Every write in `writes` is refused with WRONG_BRANCH, this message, and a hint holding each of `hints`. */
function expectWritesRefused(repo: Repo, writes: string[][], message: string | RegExp, hints: string[]): void {
  writes.forEach((args, i) => {
    const { message: got, hint } = expectFails(repo, args, 1, 'WRONG_BRANCH', { human: i === 0 });
    if (typeof message === 'string') expect(got, `sow ${args.join(' ')}`).toBe(message);
    else expect(got, `sow ${args.join(' ')}`).toMatch(message);
    for (const h of hints) expect(hint, `sow ${args.join(' ')}: hint`).toContain(h);
  });
}

/** Each read exits `exit` (0 unless told) and warns on stderr, naming `names`. */
function expectReadsWarn(repo: Repo, reads: { args: string[]; exit?: number }[], names: string[]): RunResult[] {
  const before = repo.snapshot();
  return reads.map(({ args, exit = 0 }) => {
    const r = repo.sow(args);
    expect(r.code, `sow ${args.join(' ')}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(exit);
    const warning = r.stderr.split('\n').find((l) => l.startsWith('warning: '));
    expect(warning, `sow ${args.join(' ')} warns on stderr`).toBeDefined();
    for (const n of names) expect(warning, `sow ${args.join(' ')}: the warning names '${n}'`).toContain(`'${n}'`);
    expect(repo.snapshot(), `sow ${args.join(' ')} wrote nothing`).toEqual(before);
    return r;
  });
}

const commitAll = (repo: Repo, message: string) => {
  repo.git(['add', '-A']);
  repo.git(['commit', '-qm', message]);
};

const branchNow = (repo: Repo) => repo.git(['branch', '--show-current']);

describe('project new records the branch and the branch it started from', () => {
  it('on main: a new feat/<name> branch, based on main', () => {
    const repo = fresh();
    ok(repo, ['project', 'new', 'demo', '--description', 'd']);
    expect(branchNow(repo)).toBe('feat/demo');
    expect(repo.yaml(PROJECT)).toMatchObject({ branch: 'feat/demo', base_branch: 'main' });
  });
  // --branch, a branch of its own, one made from develop: in-process.
});

describe('a project carried to another branch uncommitted', () => {
  it('refuses every write with WRONG_BRANCH, still reads with a warning, and works again on its branch', () => {
    const repo = fresh();
    toExecuting(repo);
    // So that `advance --dry-run` has a transition to show: every task done.
    for (const id of ['010', '020']) ok(repo, ['task', 'set', '--id', id, 'status', 'completed']);
    expect(repo.git(['status', '--porcelain'])).toBe('?? .sow/');
    repo.git(['checkout', '-q', 'main']);
    expect(branchNow(repo)).toBe('main');
    expect(repo.yaml(PROJECT).branch).toBe('feat/demo');

    const message = "this project belongs to 'feat/demo', but 'main' is checked out";
    // Every write is refused in-process (src/app/workspace.test.ts); here two, on stderr and in --json.
    expectWritesRefused(
      repo,
      [
        ['task', 'add', 'Another'],
        ['task', 'set', '--id', '010', 'name', 'Renamed'],
      ],
      message,
      ['git checkout feat/demo'],
    );
    expect(repo.yaml(taskFile('010')).name).toBe('First task');

    const reads = expectReadsWarn(
      repo,
      [
        { args: ['task', 'list', '--status', 'completed'] },
        { args: ['project', 'status'] },
        { args: ['phase', 'get', 'status'] },
        { args: ['advance', '--list'] },
        { args: ['advance', '--dry-run'] },
      ],
      ['feat/demo', 'main'],
    );
    expect(reads[0]!.stdout).toContain('First task');
    expect(reads[2]!.stdout.trim()).toBe('in_progress');

    // `project new` explains what is in .sow/project/ and how to get it home.
    const found = expectFails(repo, ['project', 'new', 'other', '--description', 'x'], 1, 'PROJECT_EXISTS', {
      human: true,
    });
    expect(found.message).toContain("'feat/demo'");
    expect(found.message).toContain('uncommitted');
    expect(found.hint).toContain('git checkout feat/demo');
    expect(found.hint).toContain('commit');
    expect(found.hint).not.toContain('--branch');
    expect(branchNow(repo)).toBe('main');

    // Back on its branch, writes work again.
    repo.git(['checkout', '-q', 'feat/demo']);
    const added = ok(repo, ['task', 'add', 'Back home', '--json']);
    expect(added.json!.data.id).toBe('030');
    const list = ok(repo, ['task', 'list']);
    expect(list.stderr).not.toContain('warning:');
  });
  // project delete there only with --force: in-process.
});

describe('a branch made from the project branch, with the project committed', () => {
  it('refuses writes until the project is moved with `sow project set branch`', () => {
    const repo = fresh();
    ok(repo, ['project', 'new', 'demo', '--description', 'd']);
    commitAll(repo, 'project demo');
    repo.git(['checkout', '-q', '-b', 'copy']);

    // Every write, and a move to a branch not checked out: in-process.
    expectWritesRefused(
      repo,
      [['phase', 'set', 'metadata.a', 'b']],
      "this project belongs to 'feat/demo', but 'copy' is checked out",
      ['git checkout feat/demo', 'sow project set branch copy'],
    );

    const moved = ok(repo, ['project', 'set', 'branch', 'copy', '--json']);
    expect(moved.json!.data).toEqual({ field: 'branch', value: 'copy' });
    expect(repo.read(PROJECT)).toMatch(/^branch: copy$/m);

    ok(repo, ['phase', 'set', 'metadata.a', 'b']);
    expect(repo.yaml(PROJECT).phases.planning.metadata.a).toBe('b');
  });
});

// A project branch renamed by hand: in-process.

describe('a detached HEAD', () => {
  it('refuses writes naming the commit and the project branch; reads warn', () => {
    const repo = fresh();
    ok(repo, ['project', 'new', 'demo', '--description', 'd']);
    commitAll(repo, 'project demo');
    repo.git(['checkout', '-q', '--detach']);
    const commit = repo.git(['rev-parse', '--short=7', 'HEAD']);

    // Every write, and moving the project to a detached HEAD: in-process.
    expectWritesRefused(repo, [['advance']], new RegExp(`^HEAD is detached at ${commit}\\b.*'feat/demo'`), [
      'git checkout feat/demo',
    ]);
    const [warned] = expectReadsWarn(repo, [{ args: ['phase', 'get', 'status'] }], ['feat/demo']);
    expect(warned!.stderr).toMatch(/^warning: HEAD is detached/m);
  });

  it('project new with no branch to hold the project is refused by the repository (exit 1)', () => {
    const repo = fresh();
    repo.git(['checkout', '-q', '--detach']);
    const r = expectFails(repo, ['project', 'new', 'x', '--description', 'd'], 1, 'DETACHED_HEAD', { human: true });
    expect(r.message).toContain('detached');
    expect(r.hint).toContain('--branch');
    expect(repo.exists(PROJECT)).toBe(false);
  });
});

// project new when this branch already has a project (committed, or not): in-process.
