import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { refused, taskFile, toExecuting, worlds } from '../../test/inproc.js';
import { workerFolder } from './context.js';
import { allowChecks } from './check-allowance.js';
import { checkRun } from './checks.js';
import { setTaskField } from './task-change.js';
import { mergeChecksSentence, mergeTask, openWorkerCheckout } from './worker-checkout.js';
import { checkoutsWithProject, listWorktreesFor } from './worktree.js';
import { readRepoConfig } from '../adapters/repo-config.js';
import { linkedCheckoutProblem } from '../adapters/repo.js';
import { exitCodeFor, type SowError } from '../domain/errors.js';

const world = worlds({ executing: (w) => toExecuting(w, ['First task', 'Second task']) });

describe('a worker checkout', () => {
  it(
    'is .sow/worktrees/.workers/<project branch>--task-<id> on a branch of that name from the project branch, made ' +
      'once, never read as a project of its own',
    async () => {
      const w = await world('executing');
      const branch = w.git(['branch', '--show-current']);
      // The project's state committed: the checkout has a copy of it.
      w.git(['add', '--all']);
      w.git(['commit', '--quiet', '-m', 'the project']);
      const made = openWorkerCheckout(w.dir, branch, '010', undefined, w.clock.now());
      expect(made.created).toBe(true);
      expect(made.checkout).toMatchObject({
        branch: `${branch}--task-010`,
        path: `.sow/worktrees/.workers/${branch}--task-010`,
        from: branch,
      });
      expect(made.path).toBe(join(w.dir, made.checkout.path));
      expect(w.git(['-C', made.path, 'branch', '--show-current'])).toBe(`${branch}--task-010`);
      expect(w.git(['rev-parse', `${branch}--task-010`])).toBe(w.git(['rev-parse', branch]));
      // Again with its record: the same checkout.
      expect(openWorkerCheckout(w.dir, branch, '010', made.checkout, w.clock.now())).toMatchObject({
        created: false,
        path: made.path,
      });
      // Not a project checkout: status --all and agent ps --all do not read its copy of .sow/.
      expect(checkoutsWithProject(w.dir).map((c) => c.rel)).toEqual(['.']);
      expect((await listWorktreesFor(w.ctx())).find((t) => t.path === made.path)).toMatchObject({ project: null });
    },
  );

  it(
    "routes a worker's commands from its checkout to the " + 'same folder of the project checkout, and only there',
    async () => {
      const w = await world('executing');
      const other = await world('init');
      const branch = w.git(['branch', '--show-current']);
      const { path } = openWorkerCheckout(w.dir, branch, '010', undefined, w.clock.now());
      mkdirSync(join(path, 'src'), { recursive: true });
      expect(workerFolder(join(path, 'src'), { SOW_PROJECT_ROOT: w.dir })).toBe(join(w.dir, 'src'));
      expect(workerFolder(path, { SOW_PROJECT_ROOT: w.dir })).toBe(w.dir);
      // A person at a terminal in the checkout (no SOW_PROJECT_ROOT): its place names the project checkout.
      expect(workerFolder(join(path, 'src'), {})).toBe(join(w.dir, 'src'));
      // Not a worker's checkout (the same name elsewhere, not in git's records): the folder itself.
      const lookalike = join(other.dir, '.sow', 'worktrees', '.workers', 'x--task-010');
      mkdirSync(lookalike, { recursive: true });
      expect(workerFolder(lookalike, {})).toBe(lookalike);
      // A project root that is not the checkout's repository, or holds no sow workspace: never followed.
      expect(workerFolder(path, { SOW_PROJECT_ROOT: other.dir })).toBe(path);
      expect(workerFolder(path, { SOW_PROJECT_ROOT: join(w.dir, '.sow') })).toBe(path);
      // In the project checkout itself, nothing to route.
      expect(workerFolder(join(w.dir, 'src'), { SOW_PROJECT_ROOT: w.dir })).toBe(join(w.dir, 'src'));
    },
  );

  it(
    'task merge refuses a task without a checkout, one not completed, and a checkout record sow did not write — ' +
      'before git is asked, nothing changed',
    async () => {
      const w = await world('executing');
      const branch = w.git(['branch', '--show-current']);
      await refused(w, () => mergeTask(w.ctx(), '010'), 'TASK_NO_WORKTREE', 1);
      const { checkout } = openWorkerCheckout(w.dir, branch, '010', undefined, w.clock.now());
      const task = w.yaml(taskFile('010'));
      w.write(taskFile('010'), stringify({ ...task, worktree: checkout }));
      await refused(w, () => mergeTask(w.ctx(), '010'), 'TASK_NOT_COMPLETED', 1);
      // A record whose branch would reach git as an option, or whose path leads elsewhere: state trouble (exit 4).
      w.write(
        taskFile('010'),
        stringify({
          ...task,
          status: 'completed',
          completed_at: task.updated_at,
          worktree: { ...checkout, branch: '--upload-pack=touch x--task-010' },
        }),
      );
      await refused(w, () => mergeTask(w.ctx(), '010'), 'WORKER_CHECKOUT_INVALID', 4);
      w.write(
        taskFile('010'),
        stringify({
          ...task,
          status: 'completed',
          completed_at: task.updated_at,
          worktree: { ...checkout, path: '.sow/worktrees/../../elsewhere' },
        }),
      );
      await refused(w, () => mergeTask(w.ctx(), '010'), 'WORKER_CHECKOUT_INVALID', 4);
    },
  );

  it(
    'task merge commits what the worker left (outside .sow/) under a message that says so, merges with a merge ' +
      'commit, and removes the checkout and its branch',
    async () => {
      const w = await world('executing');
      w.git(['config', 'user.name', 'Ada']);
      w.git(['config', 'user.email', 'ada@example.invalid']);
      const branch = w.git(['branch', '--show-current']);
      const { checkout, path } = openWorkerCheckout(w.dir, branch, '010', undefined, w.clock.now());
      const task = w.yaml(taskFile('010'));
      w.write(
        taskFile('010'),
        stringify({ ...task, status: 'completed', completed_at: task.updated_at, worktree: checkout }),
      );
      writeFileSync(join(path, 'new.txt'), 'made by the worker\n');
      mkdirSync(join(path, '.sow'), { recursive: true });
      writeFileSync(join(path, '.sow', 'stray.txt'), 'not the truth\n');
      const r = await mergeTask(w.ctx(), '010');
      expect(r).toMatchObject({
        task: '010',
        branch: `${branch}--task-010`,
        into: branch,
        committed: true,
        files: ['new.txt'],
        dropped: ['.sow/stray.txt'],
      });
      expect(w.read('new.txt')).toBe('made by the worker\n');
      expect(w.git(['log', '-1', '--format=%s%n%P'])).toMatch(new RegExp(`^Merge task 010: First task\\n\\S+ \\S+$`));
      expect(w.git(['log', '-1', '--format=%B', 'HEAD^2'])).toMatch(
        /^Task 010: First task\n\nWhat its worker left uncommitted .* committed by 'sow task merge'/,
      );
      expect(existsSync(path)).toBe(false);
      expect(w.git(['branch', '--list', `${branch}--task-010`])).toBe('');
      expect(w.yaml(taskFile('010')).worktree).toBeUndefined();
      expect(w.read('.sow/project/phases/implementation/tasks/010/log.md')).toContain(
        `Merged its branch '${branch}--task-010' into '${branch}'`,
      );
    },
  );

  it(
    'task merge merges only code whose task_complete checks passed on it in the checkout: none, stale or forced ' +
      'past is said, refused exit 3 with nothing changed',
    async () => {
      const w = await world('executing');
      w.git(['config', 'user.name', 'Ada']);
      w.git(['config', 'user.email', 'ada@example.invalid']);
      const branch = w.git(['branch', '--show-current']);
      w.write(
        '.sow/config.yaml',
        'checks:\n  - name: unit\n    run: "! grep -q broken work.txt"\n    when: [task_complete]\n',
      );
      await allowChecks(w.ctx(), [], {
        yes: true,
        interactive: false,
        confirm: async () => true,
        show: () => undefined,
      });
      const { checkout, path } = openWorkerCheckout(w.dir, branch, '010', undefined, w.clock.now());
      w.write(taskFile('010'), stringify({ ...w.yaml(taskFile('010')), status: 'in_progress', worktree: checkout }));
      writeFileSync(join(path, 'work.txt'), 'done\n');
      // Completed by the person in the project checkout: checked in the worker's checkout, on its code.
      const done = await setTaskField(w.ctx(), '010', 'status', 'completed');
      const head = w.git(['-C', path, 'rev-parse', 'HEAD']);
      expect(done.checks).toMatchObject([
        { name: 'unit', passed: true, checkout: checkout.path, commit: head, dirty: true },
      ]);
      expect(w.yaml(taskFile('010')).outputs[0].metadata).toMatchObject({
        checkout: checkout.path,
        commit: head,
        dirty: true,
      });

      // The worker's code changes after the evidence: refused as stale, before its leftovers are committed.
      writeFileSync(join(path, 'work.txt'), 'done\nbroken\n');
      const stale = await refused(w, () => mergeTask(w.ctx(), '010'), 'TASK_MERGE_UNCHECKED', 3);
      expect(stale.message).toContain('unit: stale (the code changed since it passed)');
      expect(stale.hint).toContain("'sow check run unit --task 010'");
      expect(w.git(['-C', path, 'rev-parse', 'HEAD'])).toBe(head);
      expect(w.git(['-C', path, 'status', '--porcelain', '--', 'work.txt'])).toBe('?? work.txt');

      // Checked again there (failing), still refused; forced, merged and said.
      await expect(checkRun(w.ctx(), [], { task: '010' })).rejects.toMatchObject({ code: 'CHECKS_FAILED' });
      expect((await refused(w, () => mergeTask(w.ctx(), '010'), 'TASK_MERGE_UNCHECKED', 3)).message).toContain(
        'unit: failed (exit 1;',
      );
      const forced = await mergeTask(w.ctx(), '010', { force: true });
      expect(forced.checked).toMatchObject({
        commit: head,
        dirty: true,
        forced: true,
        checks: [{ name: 'unit', state: 'failed', dirty: true, commit: head }],
      });
      expect(mergeChecksSentence(forced.checked)).toMatch(
        new RegExp(
          /^Merged with --force although [0-9a-f]{12} with what the worker left uncommitted /.source +
            /had no fresh passing evidence: unit: failed \(exit 1; log/.source,
        ),
      );
      expect(w.read('work.txt')).toBe('done\nbroken\n');
      expect(w.read('.sow/project/phases/implementation/tasks/010/log.md')).toContain('Merged with --force although');
    },
  );

  it('task merge with no task_complete check declared requires none, and says so', async () => {
    const w = await world('executing');
    w.git(['config', 'user.name', 'Ada']);
    w.git(['config', 'user.email', 'ada@example.invalid']);
    const branch = w.git(['branch', '--show-current']);
    const { checkout, path } = openWorkerCheckout(w.dir, branch, '010', undefined, w.clock.now());
    const task = w.yaml(taskFile('010'));
    w.write(
      taskFile('010'),
      stringify({ ...task, status: 'completed', completed_at: task.updated_at, worktree: checkout }),
    );
    writeFileSync(join(path, 'new.txt'), 'x\n');
    const r = await mergeTask(w.ctx(), '010');
    expect(r.checked).toMatchObject({ checks: [], forced: false, dirty: true });
    expect(mergeChecksSentence(r.checked)).toMatch(
      new RegExp(
        /^No check is declared for task_complete, so none was required of [0-9a-f]{12} /.source +
          /with what the worker left uncommitted\.$/.source,
      ),
    );
  });

  it(
    "is used only while its .git is what git wrote for it: a regular file naming the repository's record, which " +
      'names it back',
    async () => {
      const w = await world('executing');
      const branch = w.git(['branch', '--show-current']);
      const made = openWorkerCheckout(w.dir, branch, '010', undefined, w.clock.now());
      const dotGit = join(made.path, '.git');
      const genuine = readFileSync(dotGit, 'utf8');
      const open = () => openWorkerCheckout(w.dir, branch, '010', made.checkout, w.clock.now());
      const problem = (): string | undefined => {
        try {
          open();
          return undefined;
        } catch (err) {
          expect((err as SowError).code, (err as SowError).message).toBe('CHECKOUT_GIT_INVALID');
          expect(exitCodeFor((err as SowError).kind)).toBe(4);
          return (err as SowError).message;
        }
      };
      expect(problem()).toBeUndefined();
      // git's relative form (worktree.useRelativePaths) is as good.
      const record = genuine.slice('gitdir: '.length).trim();
      writeFileSync(dotGit, `gitdir: ${relative(made.path, record)}\n`);
      expect(problem()).toBeUndefined();
      const elsewhere = join(w.dir, 'elsewhere');
      mkdirSync(join(elsewhere, 'worktrees', 'x'), { recursive: true });
      writeFileSync(join(elsewhere, 'worktrees', 'x', 'gitdir'), `${dotGit}\n`);
      const cases: [string, () => void, RegExp][] = [
        [
          'a git dir of its own',
          () => writeFileSync(dotGit, `gitdir: ${elsewhere}\n`),
          /names '.*elsewhere', which is not this repository's record of a worktree/,
        ],
        [
          'a record-like folder elsewhere',
          () => writeFileSync(dotGit, `gitdir: ${join(elsewhere, 'worktrees', 'x')}\n`),
          /not this repository's record/,
        ],
        [
          'the record of the main checkout',
          () => writeFileSync(dotGit, `gitdir: ${join(w.dir, '.git')}\n`),
          /not this repository's record/,
        ],
        [
          'two lines',
          () => writeFileSync(dotGit, `${genuine}gitdir: ${elsewhere}\n`),
          /is not one line 'gitdir: <path>'/,
        ],
        ['a link', () => (rmSync(dotGit), symlinkSync(record, dotGit)), /\.git is a link/],
        ['a folder', () => (rmSync(dotGit), mkdirSync(dotGit)), /\.git is not a file/],
      ];
      for (const [what, make, says] of cases) {
        rmSync(dotGit, { recursive: true, force: true });
        writeFileSync(dotGit, genuine);
        make();
        expect([what, problem()]).toEqual([what, expect.stringMatching(says)]);
      }
      // The record naming another checkout back (git's own file: git then lists the checkout there, and sow refuses
      // that too).
      rmSync(dotGit, { recursive: true, force: true });
      writeFileSync(dotGit, genuine);
      const back = join(record, 'gitdir');
      const recorded = readFileSync(back, 'utf8');
      mkdirSync(join(w.dir, 'other'));
      writeFileSync(join(w.dir, 'other', '.git'), genuine);
      writeFileSync(back, `${join(w.dir, 'other', '.git')}\n`);
      expect(linkedCheckoutProblem(w.dir, made.path)).toMatch(/whose record names another checkout/);
      writeFileSync(back, recorded);
      expect(problem()).toBeUndefined();
    },
  );

  it('workers.worktree in .sow/config.yaml is a boolean, its key checked for typos', async () => {
    const w = await world('init');
    w.write('.sow/config.yaml', 'workers:\n  worktree: true\n');
    expect((await readRepoConfig(w.dir)).config.workers?.worktree).toBe(true);
    w.write('.sow/config.yaml', 'workers:\n  worktree: yes please\n');
    await expect(readRepoConfig(w.dir)).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringContaining('workers.worktree'),
    });
    w.write('.sow/config.yaml', 'workers:\n  worktre: true\n');
    await expect(readRepoConfig(w.dir)).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringContaining('worktree'),
    });
  });
});
