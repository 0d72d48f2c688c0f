/**
 * Many branches at once (one project per branch, several branches checked out): what `sow worktree
 * add|list|remove|prune` and `sow status --all` print, end to end with the built sow in temp git
 * repositories, and two projects run side by side in two worktrees with fake agent CLIs spawned in
 * each (test/fakes/fake-agent.mjs, which calls sow back from where it was started).
 *
 * In-process (src/app/worktree.test.ts): which base a new branch starts from (the default branch
 * that origin/HEAD names, local or remote, else main or master, else the branch checked out; not a
 * project branch checked out; --from), an existing branch as it is, a branch without sow committed,
 * the refusals of worktree add, remove of a clean or dirty worktree, and a missing worktree listed
 * until prune forgets it.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { expectEnvelope, expectFails, ok, SOW, useRepos, type Repo } from './harness.js';
import { cleanEnv, makeWorld, runSow, show, type World, until } from './agent-world.js';

const fresh = useRepos();
const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

/** A repository with sow initialised and committed on main. */
function withSow(): Repo {
  const repo = fresh();
  ok(repo, ['init']);
  repo.git(['add', '.sow']);
  repo.git(['commit', '-q', '-m', 'Add sow']);
  return repo;
}

const WT = (branch: string) => `.sow/worktrees/${branch}`;

/** Brings the worktree's project to ImplementationExecuting with these tasks. */
function executingIn(repo: Repo, cwd: string, name: string, tasks: string[]): void {
  ok(repo, ['project', 'new', name, '--description', `The ${name} project`], { cwd });
  repo.write(`${cwd}/.sow/project/planning/tasks.md`, '# Tasks\n');
  ok(repo, ['output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md', '--approved', 'true'], { cwd });
  ok(repo, ['advance'], { cwd });
  for (const t of tasks) ok(repo, ['task', 'add', t, '--agent', 'implementer'], { cwd });
  ok(repo, ['phase', 'set', 'tasks_approved', 'true'], { cwd });
  ok(repo, ['advance'], { cwd });
}

describe('sow worktree add', () => {
  it('checks out a new branch (from the default branch) under .sow/worktrees/, which the main checkout ignores', () => {
    const repo = withSow();
    const r = ok(repo, ['worktree', 'add', 'feat/a']);
    const path = realpathSync(join(repo.dir, WT('feat/a')));
    expect(r.stdout).toBe(`${path}\n`);
    expect(r.stderr).toContain(
      "Created the worktree of 'feat/a' (a new branch from 'main', the repository's default branch; --from picks " +
        'another) at .sow/worktrees/feat/a',
    );
    expect(r.stderr).toContain('Next: cd .sow/worktrees/feat/a && sow project new <name>');
    expect(repo.git(['-C', path, 'branch', '--show-current'])).toBe('feat/a');
    expect(repo.git(['rev-parse', 'feat/a'])).toBe(repo.git(['rev-parse', 'main']));
    expect(repo.git(['status', '--porcelain']), 'the worktree is not untracked work of the main checkout').toBe('');
    expect(repo.read('.sow/.gitignore').split('\n')).toContain('worktrees/');
    // sow was committed on main, so the worktree has it as it is.
    expect(existsSync(join(path, '.sow/.version'))).toBe(true);
    expect(repo.git(['-C', path, 'status', '--porcelain'])).toBe('');
  });

  it('says which base a branch starts from when there is no default branch: the branch checked out', () => {
    // No origin/HEAD, no main or master. Which base in each case (origin/HEAD local or remote, a
    // project branch checked out, --from): in-process.
    const other = fresh({ branch: 'dev' });
    other.git(['add', '.sow']);
    other.git(['commit', '-q', '-m', 'sow']);
    const o = ok(other, ['worktree', 'add', 'feat/z', '--json']);
    expect(expectEnvelope(o).data).toMatchObject({ branch: 'feat/z', created_from: 'dev', base_kind: 'checked-out' });
    expect(ok(other, ['worktree', 'add', 'feat/w']).stderr).toContain(
      "(a new branch from 'dev', the branch checked out (no default branch found); --from picks another)",
    );
  });

  it('a branch without sow committed gets .sow/ initialised, and says so', () => {
    const repo = withSow();
    const first = repo.git(['rev-list', '--max-parents=0', 'HEAD']);
    repo.git(['branch', 'ancient', first]);
    const r = ok(repo, ['worktree', 'add', 'ancient']);
    expect(r.stderr).toContain('sow was not committed on it, so .sow/ was initialised there');
    expect(ok(repo, ['project', 'new', 'anc', '--description', 'x'], { cwd: WT('ancient') }).stdout).toBe(
      'PlanningActive\n',
    );
  });
});

interface Background {
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/** `sow agent spawn …` started in `cwd`, in the background, with a fake worker script. */
function spawnIn(world: World, cwd: string, args: string[], script: unknown[]): Background {
  const child = spawn(process.execPath, [SOW, ...args], {
    cwd,
    env: cleanEnv({ ...world.env, FAKE_AGENT_SCRIPT: JSON.stringify(script) }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return { done: new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr }))) };
}

describe('two projects side by side, with workers in each', () => {
  it(
    'each worktree has its own project and workers; ' + 'list and status --all show both, with the live sessions',
    async () => {
      const repo = withSow();
      ok(repo, ['worktree', 'add', 'feat/a']);
      ok(repo, ['worktree', 'add', 'feat/b']);
      executingIn(repo, WT('feat/a'), 'alpha', ['A one', 'A two']);
      executingIn(repo, WT('feat/b'), 'beta', ['B one']);
      const world = makeWorld();
      cleanups.push(() => world.cleanup());
      const a = realpathSync(join(repo.dir, WT('feat/a')));
      const b = realpathSync(join(repo.dir, WT('feat/b')));
      const go = join(world.root, 'go');
      const started = (n: string) => join(world.root, `started-${n}`);
      const script = (n: string) => [{ touch: started(n) }, { wait: go }, ['task', 'set', 'status', 'needs_review']];
      const runA = spawnIn(world, a, ['agent', 'spawn', 'implementer', '010'], script('a'));
      // From a subdirectory of the worktree: the same workspace.
      const runB = spawnIn(world, join(b, '.sow'), ['agent', 'spawn', 'implementer', '010'], script('b'));
      await until(() => existsSync(started('a')) && existsSync(started('b')), 'both workers to start');

      const list = runSow(repo.dir, world, ['worktree', 'list']);
      expect(list.code, show(list)).toBe(0);
      expect(list.stdout.split('\n').map((l) => l.replace(/ +/g, ' ').trim())).toEqual([
        '* main . no project',
        'feat/a .sow/worktrees/feat/a alpha ImplementationExecuting tasks 0/2 implementer-1 on 010',
        'feat/b .sow/worktrees/feat/b beta ImplementationExecuting tasks 0/1 implementer-1 on 010',
        '',
      ]);
      const all = runSow(a, world, ['status', '--all', '--json']);
      expect(all.code, show(all)).toBe(0);
      expect(
        all.json!.data.map((t: any) => [
          t.branch,
          t.project.name,
          t.project.state,
          t.project.tasks,
          t.project.sessions,
        ]),
      ).toEqual([
        [
          'feat/a',
          'alpha',
          'ImplementationExecuting',
          { done: 0, total: 2 },
          [{ task: '010', by: 'implementer-1', kind: 'worker' }],
        ],
        [
          'feat/b',
          'beta',
          'ImplementationExecuting',
          { done: 0, total: 1 },
          [{ task: '010', by: 'implementer-1', kind: 'worker' }],
        ],
      ]);
      // A live worker keeps its worktree.
      const busy = runSow(repo.dir, world, ['worktree', 'remove', 'feat/b', '--json']);
      expect(busy.code, show(busy)).toBe(1);
      expect(busy.json!.error).toMatchObject({
        code: 'WORKTREE_BUSY',
        details: { sessions: [{ task: '010', by: 'implementer-1', kind: 'worker' }] },
      });
      expect(busy.json!.error!.message).toContain('a live agent session (implementer-1 on task 010)');

      const { writeFileSync } = await import('node:fs');
      writeFileSync(go, '');
      const [doneA, doneB] = await Promise.all([runA.done, runB.done]);
      expect(doneA.code, doneA.stderr).toBe(0);
      expect(doneB.code, doneB.stderr).toBe(0);
      // Each worker ran in its worktree and reported to its own project.
      const calls = world.calls();
      expect(calls.map((c) => c.cwd).sort()).toEqual([a, b].sort());
      const taskOf = (root: string) =>
        JSON.parse(runSow(root, world, ['task', 'get', '--id', '010', '--json']).stdout).data;
      expect(taskOf(a)).toMatchObject({ status: 'needs_review', session: { cwd: a } });
      expect(taskOf(b)).toMatchObject({ status: 'needs_review', session: { cwd: b } });
      expect(JSON.parse(runSow(a, world, ['task', 'get', '--id', '020', '--json']).stdout).data.status).toBe('pending');
      // Resume from a subdirectory of the worktree runs in the recorded cwd.
      const resumed = runSow(join(a, '.sow', 'project'), world, ['agent', 'resume', '010', 'Once more', '-q']);
      expect(resumed.code, show(resumed)).toBe(0);
      expect(world.calls().at(-1)!.cwd).toBe(a);
      // The main checkout saw none of it.
      expect(repo.git(['status', '--porcelain'])).toBe('');
      expect(existsSync(join(repo.dir, '.sow/project'))).toBe(false);
      const statusAll = runSow(repo.dir, world, ['status', '--all']);
      expect(statusAll.stdout).toMatch(
        /^ {2}feat\/a +\.sow\/worktrees\/feat\/a +alpha {2}ImplementationExecuting {2}tasks 0\/2$/m,
      );
    },
  );
});

describe('sow worktree remove and prune', () => {
  it('remove refuses uncommitted work unless --force; the branch stays; empty folders go', () => {
    const repo = withSow();
    ok(repo, ['worktree', 'add', 'feat/a']);
    repo.write(`${WT('feat/a')}/notes.txt`, 'wip\n');
    const message = expectFails(repo, ['worktree', 'remove', 'feat/a'], 1, 'WORKTREE_BUSY');
    expect(message).toContain("the worktree of 'feat/a' has 1 uncommitted change(s) (notes.txt)");
    expect(message).toContain('pass --force to remove it anyway');
    expect(existsSync(join(repo.dir, WT('feat/a'), 'notes.txt'))).toBe(true);
    const r = ok(repo, ['worktree', 'remove', 'feat/a', '--force']);
    expect(r.stderr).toContain("Removed the worktree of 'feat/a' (.sow/worktrees/feat/a); the branch 'feat/a' is kept");
    expect(existsSync(join(repo.dir, '.sow/worktrees/feat')), 'the empty parent folder is gone').toBe(false);
    expect(repo.git(['branch', '--list', 'feat/a'])).toContain('feat/a');
    expect(repo.git(['worktree', 'list', '--porcelain'])).not.toContain('feat/a');
    // A clean one goes without --force: in-process.
  });

  it('a worktree deleted by hand shows as missing until prune forgets it', () => {
    // The rows of worktree list (--json), and the branch checked out again: in-process.
    const repo = withSow();
    ok(repo, ['worktree', 'add', 'feat/a']);
    rmSync(join(repo.dir, WT('feat/a')), { recursive: true, force: true });
    expect(ok(repo, ['worktree', 'list']).stdout).toMatch(
      /feat\/a +\.sow\/worktrees\/feat\/a +missing \(sow worktree prune\)/,
    );
    const pruned = ok(repo, ['worktree', 'prune']);
    expect(pruned.stdout).toBe('feat/a  .sow/worktrees/feat/a\n');
    expect(pruned.stderr).toContain('Forgot 1 worktree(s) whose folder was gone');
    expect(ok(repo, ['worktree', 'prune']).stderr).toContain('Nothing to prune: every worktree folder is there');
  });
});

describe('sow status --all', () => {
  it("every project: the main checkout's too; none at all says so", () => {
    const repo = withSow();
    expect(ok(repo, ['status', '--all']).stdout).toBe('No projects in the main checkout or its worktrees\n');
    expect(expectEnvelope(ok(repo, ['status', '--all', '--json'])).data).toEqual([]);
    ok(repo, ['project', 'new', 'main-work', '--description', 'On a branch of the main checkout']);
    ok(repo, ['worktree', 'add', 'feat/a']);
    const lines = ok(repo, ['project', 'status', '--all']).stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\* feat\/main-work +\. +main-work {2}PlanningActive {2}tasks 0\/0$/);
    expect(readFileSync(join(repo.dir, '.sow/.gitignore'), 'utf8')).toContain('worktrees/');
  });
});
