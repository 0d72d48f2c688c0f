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

export interface StartingPoint {
  /** A copy of the starting point, removed after the test. */
  (): Repo;
  /** The folder of the starting point itself, made at the first call. */
  made(): string;
}

/** A copy of the repository in `from`, in a new folder, as `makeRepo` gives it (`fresh` registers it for removal). */
function copyOf(from: string, fresh: (opts?: RepoOptions) => Repo = makeRepo): Repo {
  const dir = mkdtempSync(join(tmpdir(), 'sow-e2e-'));
  cpSync(from, dir, { recursive: true, verbatimSymlinks: true });
  const copy = fresh({ dir, existing: true });
  copy.git(['status', '--porcelain']); // refreshes git's index for the new folder
  return copy;
}

/**
 * `startingPoint(fresh, build)` gives a function that returns a copy of the repository `build`
 * brought to its state (built at the first call, in a fresh repository, or in a copy of the
 * starting point `from`); each copy is registered with `fresh` (e.g. `useRepos()`) so it goes
 * after its test.
 */
export function startingPoint(
  fresh: (opts?: RepoOptions) => Repo,
  build: (repo: Repo) => void,
  from?: StartingPoint,
): StartingPoint {
  let made: Repo | undefined;
  afterAll(() => made?.cleanup());
  const ensure = (): string => {
    if (!made) {
      const repo = from ? copyOf(from.made()) : makeRepo();
      build(repo);
      made = repo;
    }
    return made.dir;
  };
  return Object.assign(() => copyOf(ensure(), fresh), { made: ensure });
}
