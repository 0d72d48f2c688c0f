/**
 * Many branches at once, in-process: worktree add, list, remove and prune, and which checkouts
 * hold a project — with the context's clock judging who still works in a worktree.
 */
import { mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AppContext } from './context.js';
import { refused, said, worlds, type World } from '../../test/inproc.js';
import { addArtifact, setArtifact } from './artifacts.js';
import { advanceProject } from './advance.js';
import { setPhaseField } from './phase.js';
import { newProject } from './project.js';
import { addTask, claimNext } from './task.js';
import {
  addWorktreeFor,
  checkoutsWithProject,
  listWorktreesFor,
  pruneWorktreesFor,
  removeWorktreeFor,
} from './worktree.js';

/** sow initialised and committed on main. */
const world = worlds({
  withSow: async (w) => {
    w.git(['add', '.sow']);
    w.git(['commit', '-q', '-m', 'Add sow']);
  },
});

const WT = (branch: string) => `.sow/worktrees/${branch}`;

/** Brings the project of the checkout `ctx` is in to ImplementationExecuting with these tasks. */
async function executingIn(w: World, ctx: AppContext, name: string, tasks: string[]): Promise<void> {
  await newProject(ctx, { name, description: `The ${name} project`, planning: true });
  w.write(join(ctx.cwd.slice(w.dir.length + 1), '.sow/project/planning/tasks.md'), '# Tasks\n');
  await addArtifact(ctx, { kind: 'phase' }, 'outputs', { type: 'task_list', path: 'planning/tasks.md', extra: {} });
  await setArtifact(ctx, { kind: 'phase' }, 'outputs', 0, 'approved', 'true');
  await advanceProject(ctx, undefined, false);
  for (const t of tasks) await addTask(ctx, { name: t, agent: 'implementer' });
  await setPhaseField(ctx, 'tasks_approved', 'true');
  await advanceProject(ctx, undefined, false);
}

describe('worktree add', () => {
  it(
    'a new branch from the default branch under .sow/worktrees/, which the main checkout ignores; sow committed ' +
      'there comes along',
    async () => {
      const w = await world('withSow');
      const r = await addWorktreeFor(w.ctx(), 'feat/a');
      const path = realpathSync(join(w.dir, WT('feat/a')));
      expect(r).toEqual({
        branch: 'feat/a',
        path,
        rel: WT('feat/a'),
        created_from: 'main',
        base_kind: 'default',
        initialised: false,
      });
      expect(w.git(['-C', path, 'branch', '--show-current'])).toBe('feat/a');
      expect(w.git(['rev-parse', 'feat/a'])).toBe(w.git(['rev-parse', 'main']));
      expect(w.git(['status', '--porcelain'])).toBe('');
      expect(w.read('.sow/.gitignore').split('\n')).toContain('worktrees/');
      expect(w.exists(`${WT('feat/a')}/.sow/.version`)).toBe(true);
    },
  );

  it(
    '--from another base; an existing branch as it is; ' + 'a branch without sow committed gets .sow/ initialised',
    async () => {
      const w = await world('withSow');
      w.git(['branch', 'old']);
      w.write('src/x.ts', 'x\n');
      w.git(['add', 'src']);
      w.git(['commit', '-q', '-m', 'x']);
      expect(await addWorktreeFor(w.ctx(), 'feat/b', 'old')).toMatchObject({ created_from: 'old', base_kind: 'from' });
      expect(w.git(['rev-parse', 'feat/b'])).toBe(w.git(['rev-parse', 'old']));
      const existing = await addWorktreeFor(w.ctx(), 'old');
      expect(existing).toMatchObject({ branch: 'old', rel: WT('old'), initialised: false });
      expect(existing.created_from).toBeUndefined();
      w.git(['branch', 'ancient', w.git(['rev-list', '--max-parents=0', 'HEAD'])]);
      expect((await addWorktreeFor(w.ctx(), 'ancient')).initialised).toBe(true);
      expect(w.exists(`${WT('ancient')}/.sow/.version`)).toBe(true);
    },
  );

  it(
    'from a project branch: starts from the default branch, not the checked-out one; from a worktree, it goes in ' +
      'the main checkout',
    async () => {
      const w = await world('withSow');
      await newProject(w.ctx(), { name: 'first', description: 'x', planning: true });
      w.write('src/first.ts', 'first\n');
      w.git(['add', '-A']);
      w.git(['commit', '-q', '-m', 'first']);
      expect(await addWorktreeFor(w.ctx(), 'feat/second')).toMatchObject({
        created_from: 'main',
        base_kind: 'default',
      });
      expect(w.exists(`${WT('feat/second')}/src/first.ts`)).toBe(false);
      // The second project records main as its base, as it would have been started from main.
      await newProject(w.ctx({}, WT('feat/second')), { name: 'second', description: 'x', planning: true });
      expect(w.yaml(`${WT('feat/second')}/.sow/project/state.yaml`).base_branch).toBe('main');
      const nested = await addWorktreeFor(w.ctx({}, WT('feat/second')), 'feat/third');
      expect(nested.rel).toBe(WT('feat/third'));
      // --from still picks the base.
      expect(await addWorktreeFor(w.ctx(), 'feat/fourth', 'feat/first')).toMatchObject({
        created_from: 'feat/first',
        base_kind: 'from',
      });
      expect(w.git(['rev-parse', 'feat/fourth'])).toBe(w.git(['rev-parse', 'feat/first']));
    },
  );

  it(
    'the default branch is what origin/HEAD names (a local branch of that name, else the remote one); without any, ' +
      'the branch checked out',
    async () => {
      const w = await world('withSow');
      w.git(['checkout', '-q', '-b', 'trunk']);
      w.write('src/trunk.ts', 'trunk\n');
      w.git(['add', 'src']);
      w.git(['commit', '-q', '-m', 'trunk']);
      w.git(['update-ref', 'refs/remotes/origin/trunk', 'trunk']);
      w.git(['symbolic-ref', 'refs/remotes/origin/HEAD', 'refs/remotes/origin/trunk']);
      w.git(['checkout', '-q', 'main']);
      expect(await addWorktreeFor(w.ctx(), 'feat/x')).toMatchObject({ created_from: 'trunk', base_kind: 'default' });
      expect(w.git(['rev-parse', 'feat/x'])).toBe(w.git(['rev-parse', 'trunk']));
      // Only the remote branch: it is the base.
      w.git(['branch', '-q', '-D', 'trunk']);
      expect(await addWorktreeFor(w.ctx(), 'feat/y')).toMatchObject({
        created_from: 'origin/trunk',
        base_kind: 'default',
      });
      expect(w.git(['rev-parse', 'feat/y'])).toBe(w.git(['rev-parse', 'refs/remotes/origin/trunk']));

      // No origin/HEAD, no main or master: the branch checked out.
      const other = await world('withSow');
      other.git(['checkout', '-q', '-b', 'dev']);
      other.git(['branch', '-q', '-D', 'main']);
      expect(await addWorktreeFor(other.ctx(), 'feat/z')).toMatchObject({
        created_from: 'dev',
        base_kind: 'checked-out',
      });
    },
  );

  it(
    'refusals: a branch checked out already, a bad name, ' + '--from with an existing branch, an unknown base, no sow',
    async () => {
      const w = await world('withSow');
      await addWorktreeFor(w.ctx(), 'feat/a');
      expect((await refused(w, () => addWorktreeFor(w.ctx(), 'feat/a'), 'WORKTREE_EXISTS', 1)).message).toBe(
        `branch 'feat/a' is already checked out at ${WT('feat/a')}`,
      );
      expect((await refused(w, () => addWorktreeFor(w.ctx(), 'main'), 'WORKTREE_EXISTS', 1)).message).toBe(
        "branch 'main' is already checked out at .",
      );
      await refused(w, () => addWorktreeFor(w.ctx(), 'bad..name'), 'INVALID_NAME', 2);
      w.git(['branch', 'other']);
      await refused(w, () => addWorktreeFor(w.ctx(), 'other', 'main'), 'BRANCH_EXISTS', 1);
      await refused(w, () => addWorktreeFor(w.ctx(), 'feat/c', 'nope'), 'INVALID_VALUE', 1);
      await refused(w, () => addWorktreeFor(w.ctx(), 'feat/c', '--upload-pack=x'), 'INVALID_VALUE', 1);
      expect(w.git(['branch', '--list', 'feat/c'])).toBe('');
      const bare = await world('bare');
      await refused(bare, () => addWorktreeFor(bare.ctx(), 'feat/a'), 'NOT_INITIALIZED', 1);
    },
  );
});

describe("worktree add: where it goes is sow's own folder", () => {
  it(
    'a folder git does not know as a worktree is not overwritten (WORKTREE_PATH_TAKEN); a link on the way is ' +
      'refused, never followed',
    async () => {
      const w = await world('withSow');
      w.write(`${WT('feat/x')}/mine.txt`, 'mine\n');
      const e = await refused(w, () => addWorktreeFor(w.ctx(), 'feat/x'), 'WORKTREE_PATH_TAKEN', 1);
      expect(e.message).toBe(`${WT('feat/x')} exists already, but git does not know it as a worktree`);
      expect(w.read(`${WT('feat/x')}/mine.txt`)).toBe('mine\n');
      expect(w.git(['branch', '--list', 'feat/x'])).toBe('');

      const other = await world('withSow');
      const elsewhere = mkdtempSync(join(tmpdir(), 'sow-inproc-elsewhere-'));
      try {
        symlinkSync(elsewhere, join(other.dir, '.sow/worktrees'));
        const link = await refused(other, () => addWorktreeFor(other.ctx(), 'feat/y'), 'PATH_ESCAPES', 4);
        expect(said(link)).toContain('.sow/worktrees');
        expect(readdirSync(elsewhere)).toEqual([]);
      } finally {
        rmSync(elsewhere, { recursive: true, force: true });
      }
    },
  );
});

describe('worktree list, and who works where', () => {
  it(
    'every checkout with its project; ' + "a claim is a live session until its lease ends at the context's time",
    async () => {
      const w = await world('withSow');
      await addWorktreeFor(w.ctx(), 'feat/a');
      await addWorktreeFor(w.ctx(), 'feat/b');
      const a = w.ctx({}, WT('feat/a'));
      await executingIn(w, a, 'alpha', ['A one', 'A two']);
      await claimNext(a, { owner: 'me', leaseSeconds: 60 });
      // Its state committed: what keeps the worktree is the session alone.
      w.git(['-C', a.cwd, 'add', '-A']);
      w.git(['-C', a.cwd, 'commit', '-q', '-m', 'alpha']);
      const list = await listWorktreesFor(w.ctx());
      expect(list.map((t) => [t.branch, t.rel, t.main, t.sow, t.missing, t.project?.name ?? null])).toEqual([
        ['main', '.', true, false, false, null],
        ['feat/a', WT('feat/a'), false, true, false, 'alpha'],
        ['feat/b', WT('feat/b'), false, true, false, null],
      ]);
      expect(list[1]!.project).toEqual({
        name: 'alpha',
        state: 'ImplementationExecuting',
        branch: 'feat/a',
        tasks: { done: 0, total: 2 },
        sessions: [{ task: '010', by: 'me', kind: 'claim' }],
      });
      expect(checkoutsWithProject(w.dir).map((c) => c.rel)).toEqual([WT('feat/a')]);

      // While the lease runs, the worktree is busy; once it ended, it is not.
      w.clock.advance(59);
      const busy = await refused(w, () => removeWorktreeFor(w.ctx(), 'feat/a', false), 'WORKTREE_BUSY', 1);
      expect(said(busy)).toContain('a live agent session (me on task 010)');
      expect(busy.hint).toContain('wait for the worker to finish');
      w.clock.advance(1);
      expect((await listWorktreesFor(w.ctx()))[1]!.project!.sessions).toEqual([]);
      await removeWorktreeFor(w.ctx(), 'feat/a', false);
      expect(w.git(['branch', '--list', 'feat/a'])).toContain('feat/a');
    },
  );

  it('a project that cannot be read is listed with why', async () => {
    const w = await world('withSow');
    await addWorktreeFor(w.ctx(), 'feat/a');
    await executingIn(w, w.ctx({}, WT('feat/a')), 'alpha', ['A']);
    w.write(`${WT('feat/a')}/.sow/project/state.yaml`, ': not yaml [');
    const row = (await listWorktreesFor(w.ctx()))[1]!;
    expect(row.project).toBeNull();
    expect(row.problem).toMatch(/\S/);
  });
});

describe('worktree remove and prune', () => {
  it(
    'remove refuses uncommitted work unless forced; ' + 'the branch stays; empty folders go; a clean one goes as it is',
    async () => {
      const w = await world('withSow');
      await addWorktreeFor(w.ctx(), 'feat/a');
      w.write(`${WT('feat/a')}/notes.txt`, 'wip\n');
      const e = await refused(w, () => removeWorktreeFor(w.ctx(), 'feat/a', false), 'WORKTREE_BUSY', 1);
      expect(e.message).toBe("the worktree of 'feat/a' has 1 uncommitted change(s) (notes.txt)");
      expect(e.hint).toContain('pass --force to remove it anyway');
      expect(w.exists(`${WT('feat/a')}/notes.txt`)).toBe(true);
      const path = realpathSync(join(w.dir, WT('feat/a')));
      expect(await removeWorktreeFor(w.ctx(), 'feat/a', true)).toEqual({ branch: 'feat/a', path, rel: WT('feat/a') });
      expect(w.exists('.sow/worktrees/feat')).toBe(false);
      expect(w.git(['branch', '--list', 'feat/a'])).toContain('feat/a');
      await addWorktreeFor(w.ctx(), 'feat/b');
      await removeWorktreeFor(w.ctx(), 'feat/b', false);
      expect(w.exists(WT('feat/b'))).toBe(false);
    },
  );

  it('an unknown branch, and the main checkout, are refused with the worktrees there are', async () => {
    const w = await world('withSow');
    const none = await refused(w, () => removeWorktreeFor(w.ctx(), 'feat/x', false), 'WORKTREE_NOT_FOUND', 1);
    expect(none.hint).toContain("'sow worktree add <branch>' makes one");
    await addWorktreeFor(w.ctx(), 'feat/a');
    expect(
      (await refused(w, () => removeWorktreeFor(w.ctx(), 'feat/x', false), 'WORKTREE_NOT_FOUND', 1)).hint,
    ).toContain('the worktrees: feat/a');
    expect((await refused(w, () => removeWorktreeFor(w.ctx(), 'main', false), 'WORKTREE_NOT_FOUND', 1)).message).toBe(
      "'main' is checked out in the main checkout, which is not a worktree",
    );
  });

  it(
    'a worktree deleted by hand is listed as missing until prune forgets it; then its branch can be ' +
      'checked out again',
    async () => {
      const w = await world('withSow');
      await addWorktreeFor(w.ctx(), 'feat/a');
      await addWorktreeFor(w.ctx(), 'feat/b');
      rmSync(join(w.dir, WT('feat/a')), { recursive: true, force: true });
      expect((await listWorktreesFor(w.ctx())).map((t) => [t.branch, t.missing])).toEqual([
        ['main', false],
        ['feat/a', true],
        ['feat/b', false],
      ]);
      const pruned = await pruneWorktreesFor(w.ctx());
      expect(pruned.pruned.map((t) => [t.branch, t.rel])).toEqual([['feat/a', WT('feat/a')]]);
      expect((await listWorktreesFor(w.ctx())).map((t) => t.branch)).toEqual(['main', 'feat/b']);
      expect((await pruneWorktreesFor(w.ctx())).pruned).toEqual([]);
      await addWorktreeFor(w.ctx(), 'feat/a');
    },
  );
});
