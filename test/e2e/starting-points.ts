/**
 * A starting point a test file reaches once through the built CLI and copies for each test that
 * starts there: a walk is checked once, and the tests that only need where it ends do not pay
 * for it again. A copy is the same repository (its commits, its .sow/) in another folder.
 */
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { makeRepo, type Repo, type RepoOptions } from './harness.js';

/**
 * `startingPoint(fresh, build)` gives a function that returns a copy of the repository `build`
 * brought to its state (built at the first call, through `fresh()`'s repository); each copy is
 * registered with `fresh` (e.g. `useRepos()`) so it goes after its test.
 */
export function startingPoint(fresh: (opts?: RepoOptions) => Repo, build: (repo: Repo) => void): () => Repo {
  let made: Repo | undefined;
  afterAll(() => made?.cleanup());
  return () => {
    if (!made) {
      const repo = makeRepo();
      build(repo);
      made = repo;
    }
    const dir = mkdtempSync(join(tmpdir(), 'sow-e2e-'));
    cpSync(made.dir, dir, { recursive: true, verbatimSymlinks: true });
    const copy = fresh({ dir, existing: true });
    copy.git(['status', '--porcelain']); // refreshes git's index for the new folder
    return copy;
  };
}
