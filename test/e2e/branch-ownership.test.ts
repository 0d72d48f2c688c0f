/**
 * A project belongs to its branch: `project new` records the branch and the branch it started
 * from; on any other checkout (the project carried along uncommitted, a branch made from the
 * project's, a branch renamed by hand, a detached HEAD) every write is refused with WRONG_BRANCH
 * and a way out, reads still work with a warning, and `project new` says what it found.
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

  it('with --branch from main: that branch, based on main', () => {
    const repo = fresh();
    ok(repo, ['project', 'new', 'demo', '--description', 'd', '--branch', 'x']);
    expect(branchNow(repo)).toBe('x');
    expect(repo.yaml(PROJECT)).toMatchObject({ branch: 'x', base_branch: 'main' });
  });

  it('on a branch of its own: that branch, based on the branch git says it was made from', () => {
    const repo = fresh();
    repo.git(['checkout', '-q', '-b', 'my-work']);
    ok(repo, ['project', 'new', 'demo', '--description', 'd']);
    expect(branchNow(repo)).toBe('my-work');
    expect(repo.yaml(PROJECT)).toMatchObject({ branch: 'my-work', base_branch: 'main' });

    // Not a guess of main: a branch made from develop is based on develop (git's reflog says so).
    const other = fresh();
    other.git(['checkout', '-q', '-b', 'develop']);
    other.git(['commit', '-q', '--allow-empty', '-m', 'on develop']);
    other.git(['checkout', '-q', '-b', 'topic']);
    ok(other, ['project', 'new', 'topic-work', '--description', 'd']);
    expect(other.yaml(PROJECT)).toMatchObject({ branch: 'topic', base_branch: 'develop' });
  });
});

describe('a project carried to another branch uncommitted', () => {
  it('refuses every write with WRONG_BRANCH, still reads with a warning, and works again on its branch', () => {
    const repo = fresh();
    toExecuting(repo);
    // So that `advance --dry-run` has a transition to show: every task done.
    for (const id of ['010', '020']) {
      ok(repo, ['task', 'set', '--id', id, 'status', 'in_progress']);
      ok(repo, ['task', 'set', '--id', id, 'status', 'completed']);
    }
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
      [{ args: ['task', 'list'] }, { args: ['project', 'status'] }, { args: ['phase', 'get', 'status'] }, { args: ['advance', '--list'] }, { args: ['advance', '--dry-run'] }],
      ['feat/demo', 'main'],
    );
    expect(reads[0]!.stdout).toContain('First task');
    expect(reads[2]!.stdout.trim()).toBe('in_progress');

    // `project new` explains what is in .sow/project/ and how to get it home.
    const found = expectFails(repo, ['project', 'new', 'other', '--description', 'x'], 1, 'PROJECT_EXISTS', { human: true });
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
    ok(repo, ['project', 'set', 'description', 'home again']);
    expect(repo.yaml(PROJECT).description).toBe('home again');
    const list = ok(repo, ['task', 'list']);
    expect(list.stderr).not.toContain('warning:');
  });

  it('project delete on the wrong branch needs --force', () => {
    const repo = fresh();
    ok(repo, ['project', 'new', 'demo', '--description', 'd']);
    repo.git(['checkout', '-q', 'main']);
    const refused = expectFails(repo, ['project', 'delete', '--yes'], 1, 'WRONG_BRANCH', { human: true });
    expect(refused.message).toBe("this project belongs to 'feat/demo', but 'main' is checked out");
    expect(refused.hint).toContain('--force');
    ok(repo, ['project', 'delete', '--yes', '--force']);
    expect(repo.exists(PROJECT)).toBe(false);
    expect(repo.exists('.sow/.version')).toBe(true);
  });
});

describe('a branch made from the project branch, with the project committed', () => {
  it('refuses writes until the project is moved with `sow project set branch`', () => {
    const repo = fresh();
    ok(repo, ['project', 'new', 'demo', '--description', 'd']);
    commitAll(repo, 'project demo');
    repo.git(['checkout', '-q', '-b', 'copy']);

    expectWritesRefused(
      repo,
      [
        ['phase', 'set', 'metadata.a', 'b'],
        ['project', 'set', 'description', 'x'],
        ['output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md'],
      ],
      "this project belongs to 'feat/demo', but 'copy' is checked out",
      ['git checkout feat/demo', 'sow project set branch copy'],
    );

    // Only to the branch that is checked out.
    const elsewhere = expectFails(repo, ['project', 'set', 'branch', 'elsewhere'], 1, 'INVALID_VALUE', { human: true });
    expect(elsewhere.message).toContain("'elsewhere'");
    expect(elsewhere.message).toContain("'copy'");

    const moved = ok(repo, ['project', 'set', 'branch', 'copy', '--json']);
    expect(moved.json!.data).toEqual({ field: 'branch', value: 'copy' });
    expect(repo.read(PROJECT)).toMatch(/^branch: copy$/m);
    expect(repo.yaml(PROJECT).base_branch).toBe('main');

    ok(repo, ['phase', 'set', 'metadata.a', 'b']);
    expect(repo.yaml(PROJECT).phases.planning.metadata.a).toBe('b');
    expect(ok(repo, ['task', 'list']).stderr).not.toContain('warning:');
  });
});

describe('a project branch renamed by hand', () => {
  it('says the branch no longer exists, and names the move that fixes it', () => {
    const repo = fresh();
    ok(repo, ['project', 'new', 'demo', '--description', 'd']);
    commitAll(repo, 'project demo');
    repo.git(['branch', '-m', 'feat/demo', 'feat/renamed']);
    expect(branchNow(repo)).toBe('feat/renamed');

    expectWritesRefused(
      repo,
      [
        ['phase', 'set', 'metadata.a', 'b'],
        ['project', 'set', 'description', 'x'],
      ],
      /'feat\/demo', which no longer exists/,
      ['sow project set branch feat/renamed'],
    );
    expectReadsWarn(repo, [{ args: ['project', 'status'] }], ['feat/demo', 'feat/renamed']);

    ok(repo, ['project', 'set', 'branch', 'feat/renamed']);
    expect(repo.yaml(PROJECT).branch).toBe('feat/renamed');
    ok(repo, ['phase', 'set', 'metadata.a', 'b']);
    expect(repo.yaml(PROJECT).phases.planning.metadata.a).toBe('b');
  });
});

describe('a detached HEAD', () => {
  it('refuses writes naming the commit and the project branch; reads warn', () => {
    const repo = fresh();
    ok(repo, ['project', 'new', 'demo', '--description', 'd']);
    commitAll(repo, 'project demo');
    repo.git(['checkout', '-q', '--detach']);
    const commit = repo.git(['rev-parse', '--short=7', 'HEAD']);

    expectWritesRefused(repo, [['phase', 'set', 'metadata.a', 'b'], ['project', 'set', 'description', 'x'], ['advance']], new RegExp(`^HEAD is detached at ${commit}\\b.*'feat/demo'`), [
      'git checkout feat/demo',
    ]);
    expect(commit).toMatch(/^[0-9a-f]{7}$/);

    // Moving the project to a detached HEAD is no way out.
    expectFails(repo, ['project', 'set', 'branch', 'feat/demo'], 1, 'INVALID_VALUE');

    expectReadsWarn(repo, [{ args: ['task', 'list'] }, { args: ['project', 'status'] }], ['feat/demo']);
    const warned = repo.sow(['phase', 'get', 'status']);
    expect(warned.stderr).toMatch(/^warning: HEAD is detached/m);
  });

  it('project new with no branch to hold the project is refused by the repository (exit 1)', () => {
    const repo = fresh();
    repo.git(['checkout', '-q', '--detach']);
    const r = expectFails(repo, ['project', 'new', 'x', '--description', 'd'], 1, 'DETACHED_HEAD', { human: true });
    expect(r.message).toContain('detached');
    expect(r.hint).toContain('git checkout');
    expect(r.hint).toContain('--branch');
    expect(repo.exists(PROJECT)).toBe(false);
  });
});

describe('project new when this branch already has a project', () => {
  it('committed: names the project and its state, and says to start from the base branch', () => {
    const repo = fresh();
    ok(repo, ['project', 'new', 'demo', '--description', 'd']);
    commitAll(repo, 'project demo');
    const r = expectFails(repo, ['project', 'new', 'second', '--description', 'd'], 1, 'PROJECT_EXISTS', { human: true });
    expect(r.message).toContain("branch 'feat/demo' already has project 'demo' (in PlanningActive)");
    expect(r.hint).toContain('git checkout main');
    expect(r.hint).not.toContain('--branch');
    expect(r.hint).not.toContain('commit');
    expect(branchNow(repo)).toBe('feat/demo');
  });

  it('uncommitted: the hint also says to commit it first', () => {
    const repo = fresh();
    ok(repo, ['project', 'new', 'demo', '--description', 'd']);
    const r = expectFails(repo, ['project', 'new', 'second', '--description', 'd'], 1, 'PROJECT_EXISTS');
    expect(r.message).toContain("branch 'feat/demo' already has project 'demo' (in PlanningActive)");
    expect(r.hint).toContain('git checkout main');
    expect(r.hint).toContain('git add .sow && git commit');
    expect(r.hint.indexOf('commit')).toBeLessThan(r.hint.indexOf('git checkout main'));
    expect(r.hint).not.toContain('--branch');
    expect(branchNow(repo)).toBe('feat/demo');
  });
});
