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
    const early = repo.sow(['project', 'new', 'second', '--description', 'y', '--branch', 'feat/first']);
    expect(early.code).toBe(1);
    expect(early.stderr).toContain("run 'sow init'");
    ok(repo, ['init']);
    const before = repo.snapshot();
    const r = repo.sow(['project', 'new', 'second', '--description', 'y', '--branch', 'feat/first']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("error: branch 'feat/first' already has a project");
    expect(repo.git(['branch', '--show-current'])).toBe('main');
    expect(repo.snapshot()).toEqual(before);
  });
});
