/**
 * Layout-1 fixtures (test/fixtures/v1/, made by running sow 0.1.0) turned into real git
 * repositories, as a user of the old sow would have them: `.sow/` committed on the project's
 * branch, which was started from main (so git's reflog says where the branch came from).
 */
import { cpSync, existsSync, readdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { afterEach } from 'vitest';
import { makeRepo, type Repo } from './harness.js';

export const FIXTURES_V1 = fileURLToPath(new URL('../fixtures/v1/', import.meta.url));

export const SCENARIOS = [
  'initialised',
  'planning',
  'executing',
  'review-failed',
  'finalize',
  'commented',
  'no-planning',
] as const;
export type Scenario = (typeof SCENARIOS)[number];

export interface FixtureMeta {
  scenario: string;
  branch: string;
  branches: string[];
  state: string | null;
  steps: unknown[];
}

export interface Fixture {
  scenario: Scenario;
  meta: FixtureMeta;
  /** Every file the old sow left under `.sow/` (the fixture's `dot-sow/`): `.sow/<rel>` → its text. */
  files: Map<string, string>;
  /** A fixture state file (`.sow/…`) parsed, as sow 0.1.0 wrote it. */
  yaml(rel: string): any;
}

/** Every file under `abs`, as `prefix` + its path relative to `abs` (with `/`) → its text. */
export function filesUnder(abs: string, prefix: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.set(prefix + relative(abs, p).split(sep).join('/'), readFileSync(p, 'utf8'));
    }
  };
  if (existsSync(abs)) walk(abs);
  return out;
}

export function loadFixture(scenario: Scenario): Fixture {
  const base = join(FIXTURES_V1, scenario);
  const meta = JSON.parse(readFileSync(join(base, 'meta.json'), 'utf8')) as FixtureMeta;
  const files = filesUnder(join(base, 'tree', 'dot-sow'), '.sow/');
  return {
    scenario,
    meta,
    files,
    yaml(rel) {
      const text = files.get(rel);
      if (text === undefined) throw new Error(`fixture ${scenario} has no ${rel}`);
      return parse(text);
    },
  };
}

export interface FixtureRepo extends Repo {
  fixture: Fixture;
}

/**
 * A new temp git repository holding the fixture: an empty commit on main, then (for a project
 * branch) `git checkout -b <branch>`, then the fixture's work tree (`dot-sow` renamed `.sow`)
 * committed. Git identity comes from the harness's TEST_ENV. Call `cleanup()` when done.
 */
export function fixtureRepo(scenario: Scenario): FixtureRepo {
  const fixture = loadFixture(scenario);
  // git init -q -b main + an empty initial commit, with TEST_ENV's identity; no `sow init`.
  const repo = makeRepo({ init: false });
  try {
    cpSync(join(FIXTURES_V1, scenario, 'tree'), repo.dir, { recursive: true });
    renameSync(join(repo.dir, 'dot-sow'), join(repo.dir, '.sow'));
    if (fixture.meta.branch !== 'main') repo.git(['checkout', '-q', '-b', fixture.meta.branch]);
    repo.git(['add', '-A']);
    repo.git(['commit', '-qm', 'fixture']);
  } catch (err) {
    repo.cleanup();
    throw err;
  }
  return Object.assign(repo, { fixture });
}

/** A `fixtureRepo` whose repositories are removed after each test of the calling file. */
export function useFixtureRepos(): (scenario: Scenario) => FixtureRepo {
  const repos: Repo[] = [];
  afterEach(() => {
    for (const repo of repos.splice(0)) repo.cleanup();
  });
  return (scenario) => {
    const repo = fixtureRepo(scenario);
    repos.push(repo);
    return repo;
  };
}
