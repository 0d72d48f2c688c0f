/**
 * A project belongs to its branch, in-process: the branch and base branch `project new` records
 * (from main, with --branch, on a branch of its own, on a branch made from another), the way out of
 * each wrong checkout (a branch made from the project's, a branch renamed by hand, a detached HEAD),
 * `project set branch` only to the branch checked out, `project delete` there only with --force,
 * and what `project new` says when the branch already has a project. The refusal as a person sees
 * it (stderr, --json, exit code) and the reads that warn are test/e2e/branch-ownership.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { PROJECT, refused, toExecuting, worlds, type World } from '../../test/inproc.js';
import { advanceProject } from './advance.js';
import { addArtifact } from './artifacts.js';
import { setPhaseField } from './phase.js';
import { deleteProject, newProject, setProjectField } from './project.js';

const world = worlds({
  /** A project in PlanningActive on feat/demo, committed there. */
  committed: async (w) => {
    await newProject(w.ctx(), { name: 'demo', description: 'd', planning: true });
    commitAll(w, 'project demo');
  },
});

const commitAll = (w: World, message: string) => {
  w.git(['add', '-A']);
  w.git(['commit', '-qm', message]);
};
const branchNow = (w: World) => w.git(['branch', '--show-current']);
const start = (w: World, name: string, branch?: string) =>
  newProject(w.ctx(), { name, description: 'd', planning: true, ...(branch ? { branch } : {}) });

/**
 * Each of the writes is refused with WRONG_BRANCH (changing nothing), this message and a hint holding each of
 * `hints`.
 */
async function writesRefused(w: World, message: string | RegExp, hints: string[]): Promise<void> {
  const writes: [string, () => Promise<unknown>][] = [
    ['phase set', () => setPhaseField(w.ctx(), 'metadata.a', 'b')],
    ['project set', () => setProjectField(w.ctx(), 'description', 'x')],
    [
      'output add',
      () =>
        addArtifact(w.ctx(), { kind: 'phase' }, 'outputs', { type: 'task_list', path: 'planning/tasks.md', extra: {} }),
    ],
    ['advance', () => advanceProject(w.ctx(), undefined, false)],
  ];
  for (const [what, run] of writes) {
    const e = await refused(w, run, 'WRONG_BRANCH', 1);
    if (typeof message === 'string') expect(e.message, what).toBe(message);
    else expect(e.message, what).toMatch(message);
    for (const h of hints) expect(e.hint, `${what}: hint`).toContain(h);
  }
}

describe('project new records the branch and the branch it started from', () => {
  it('with --branch from main: that branch, based on main', async () => {
    const w = await world('init');
    await start(w, 'demo', 'x');
    expect(branchNow(w)).toBe('x');
    expect(w.yaml(PROJECT)).toMatchObject({ branch: 'x', base_branch: 'main' });
  });

  it(
    'on a branch of its own: that branch, ' + 'based on the branch git says it was made from (not a guess of main)',
    async () => {
      const w = await world('init');
      w.git(['checkout', '-q', '-b', 'my-work']);
      await start(w, 'demo');
      expect(branchNow(w)).toBe('my-work');
      expect(w.yaml(PROJECT)).toMatchObject({ branch: 'my-work', base_branch: 'main' });

      const other = await world('init');
      other.git(['checkout', '-q', '-b', 'develop']);
      other.git(['commit', '-q', '--allow-empty', '-m', 'on develop']);
      other.git(['checkout', '-q', '-b', 'topic']);
      await start(other, 'topic-work');
      expect(other.yaml(PROJECT)).toMatchObject({ branch: 'topic', base_branch: 'develop' });
    },
  );
});

describe('a project carried to another branch uncommitted', () => {
  it('project new says what is in .sow/project/ and how to get it home; delete needs --force', async () => {
    const w = await world('init');
    await toExecuting(w);
    w.git(['checkout', '-q', 'main']);
    const found = await refused(w, () => start(w, 'other'), 'PROJECT_EXISTS', 1);
    expect(found.message).toContain("'feat/demo'");
    expect(found.message).toContain('uncommitted');
    expect(found.hint).toContain('git checkout feat/demo');
    expect(found.hint).toContain('commit');
    expect(found.hint).not.toContain('--branch');
    expect(branchNow(w)).toBe('main');

    const del = await refused(w, () => deleteProject(w.ctx(), async () => true, false, true, false), 'WRONG_BRANCH', 1);
    expect(del.message).toBe("this project belongs to 'feat/demo', but 'main' is checked out");
    expect(del.hint).toContain('--force');
    await deleteProject(w.ctx(), async () => true, false, true, true);
    expect(w.exists(PROJECT)).toBe(false);
    expect(w.exists('.sow/.version')).toBe(true);
  });
});

describe('a branch made from the project branch, with the project committed', () => {
  it(
    'refuses writes until the project is moved with project set branch, ' + 'and only to the branch checked out',
    async () => {
      const w = await world('committed');
      w.git(['checkout', '-q', '-b', 'copy']);
      await writesRefused(w, "this project belongs to 'feat/demo', but 'copy' is checked out", [
        'git checkout feat/demo',
        'sow project set branch copy',
      ]);

      const elsewhere = await refused(w, () => setProjectField(w.ctx(), 'branch', 'elsewhere'), 'INVALID_VALUE', 1);
      expect(elsewhere.message).toContain("'elsewhere'");
      expect(elsewhere.message).toContain("'copy'");

      expect(await setProjectField(w.ctx(), 'branch', 'copy')).toEqual({ field: 'branch', value: 'copy' });
      expect(w.read(PROJECT)).toMatch(/^branch: copy$/m);
      expect(w.yaml(PROJECT).base_branch).toBe('main');
      await setPhaseField(w.ctx(), 'metadata.a', 'b');
      expect(w.yaml(PROJECT).phases.planning.metadata.a).toBe('b');
    },
  );
});

describe('a project branch renamed by hand', () => {
  it('says the branch no longer exists, and names the move that fixes it', async () => {
    const w = await world('committed');
    w.git(['branch', '-m', 'feat/demo', 'feat/renamed']);
    expect(branchNow(w)).toBe('feat/renamed');
    await writesRefused(w, /'feat\/demo', which no longer exists/, ['sow project set branch feat/renamed']);
    await setProjectField(w.ctx(), 'branch', 'feat/renamed');
    expect(w.yaml(PROJECT).branch).toBe('feat/renamed');
    await setPhaseField(w.ctx(), 'metadata.a', 'b');
    expect(w.yaml(PROJECT).phases.planning.metadata.a).toBe('b');
  });
});

describe('a detached HEAD', () => {
  it('refuses writes naming the commit and the project branch; moving the project there is no way out', async () => {
    const w = await world('committed');
    w.git(['checkout', '-q', '--detach']);
    const commit = w.git(['rev-parse', '--short=7', 'HEAD']);
    expect(commit).toMatch(/^[0-9a-f]{7}$/);
    await writesRefused(w, new RegExp(`^HEAD is detached at ${commit}\\b.*'feat/demo'`), ['git checkout feat/demo']);
    await refused(w, () => setProjectField(w.ctx(), 'branch', 'feat/demo'), 'INVALID_VALUE', 1);
  });

  it('project new with no branch to hold the project is refused (DETACHED_HEAD), with the ways out', async () => {
    const w = await world('init');
    w.git(['checkout', '-q', '--detach']);
    const e = await refused(w, () => start(w, 'x'), 'DETACHED_HEAD', 1);
    expect(e.message).toContain('detached');
    expect(e.hint).toContain('git checkout');
    expect(e.hint).toContain('--branch');
    expect(w.exists(PROJECT)).toBe(false);
  });
});

describe('project new when this branch already has a project', () => {
  it('committed: names the project and its state, and says to start from the base branch', async () => {
    const w = await world('committed');
    const e = await refused(w, () => start(w, 'second'), 'PROJECT_EXISTS', 1);
    expect(e.message).toContain("branch 'feat/demo' already has project 'demo' (in PlanningActive)");
    expect(e.hint).toContain('git checkout main');
    expect(e.hint).not.toContain('--branch');
    expect(e.hint).not.toContain('commit');
    expect(branchNow(w)).toBe('feat/demo');
  });

  it('uncommitted: the hint also says to commit it first', async () => {
    const w = await world('init');
    await start(w, 'demo');
    const e = await refused(w, () => start(w, 'second'), 'PROJECT_EXISTS', 1);
    expect(e.message).toContain("branch 'feat/demo' already has project 'demo' (in PlanningActive)");
    expect(e.hint).toContain('git checkout main');
    expect(e.hint).toContain('git add .sow && git commit');
    expect(e.hint!.indexOf('commit')).toBeLessThan(e.hint!.indexOf('git checkout main'));
    expect(e.hint).not.toContain('--branch');
    expect(branchNow(w)).toBe('feat/demo');
  });
});
