import { afterEach, describe, expect, it } from 'vitest';
import { makeRepo, ok, type Repo } from './harness.js';

let repo: Repo;
afterEach(() => repo?.cleanup());

describe('project new and branches', () => {
  it('refuses a --branch that already carries a committed project, without switching to it', () => {
    repo = makeRepo();
    ok(repo, ['project', 'new', 'first', '--description', 'x']);
    repo.git(['add', '-A']);
    repo.git(['commit', '-qm', 'first project']);
    repo.git(['checkout', '-q', 'main']);
    // `sow init` was committed on feat/first only: on main, .sow/ holds just what sow left while it
    // ran, which is neither a workspace nor anything git shows.
    expect(repo.git(['status', '--porcelain'])).toBe('');
    // Refused before project new would initialise .sow/ here.
    const early = repo.sow(['project', 'new', 'second', '--description', 'y', '--branch', 'feat/first']);
    expect(early.code).toBe(1);
    expect(early.stderr).toContain("error: branch 'feat/first' already has a project");
    expect(repo.exists('.sow/.version')).toBe(false);
    ok(repo, ['init']);
    const before = repo.snapshot();
    const r = repo.sow(['project', 'new', 'second', '--description', 'y', '--branch', 'feat/first']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("error: branch 'feat/first' already has a project");
    expect(repo.git(['branch', '--show-current'])).toBe('main');
    expect(repo.snapshot()).toEqual(before);
  });
});

describe('a branch without a project says which branches have one', () => {
  const committed = (r: Repo, name: string) => {
    ok(r, ['project', 'new', name, '--description', name]);
    r.git(['add', '-A']);
    r.git(['commit', '-qm', name]);
    r.git(['checkout', '-q', 'main']);
  };

  it(
    'NO_PROJECT names the local branches whose last commit holds a project (not this one), and continue ' +
      'lists them too',
    () => {
      repo = makeRepo();
      repo.git(['add', '-A']);
      repo.git(['commit', '-qm', 'sow init']);
      const alone = repo.sow(['task', 'list', '--json']);
      expect(alone.json?.error).toEqual({
        code: 'NO_PROJECT',
        message: 'there is no project on this branch',
        hint: 'run \'sow project new <name> --description "..."\' to start one',
      });
      committed(repo, 'one');
      committed(repo, 'two');
      repo.git(['branch', 'plain']);
      for (const args of [['task', 'list'], ['advance'], ['phase', 'get', 'status'], ['project', 'delete', '--yes']]) {
        const r = repo.sow([...args, '--json']);
        expect(r.code, `sow ${args.join(' ')}`).toBe(1);
        expect(r.json?.error, `sow ${args.join(' ')}`).toMatchObject({
          code: 'NO_PROJECT',
          hint:
            "branches 'feat/one', 'feat/two' have projects: check one out ('git checkout feat/one'); or run 'sow " +
            'project new <name> --description "..."\' to start one here',
          details: { branches_with_project: ['feat/one', 'feat/two'] },
        });
      }
      expect(ok(repo, ['project', 'continue']).stdout).toContain('these branches have one: `feat/one`, `feat/two`');
    },
  );

  it('where sow was never committed, not initialised: the hint names the branches that have a project', () => {
    repo = makeRepo();
    committed(repo, 'first');
    const r = repo.sow(['status', '--json']);
    expect(r.code).toBe(1);
    expect(r.json?.error).toMatchObject({
      code: 'NOT_INITIALIZED',
      hint:
        "run 'sow init' to use sow on this branch; or check out a branch that has a project ('feat/first': 'git " +
        "checkout feat/first')",
    });
  });
});
