/**
 * A checkout per parallel worker, end to end: three fake workers, detached, each in its own
 * worktree (two by --worktree, one by the setting for parallel tasks), edit different files and
 * the same file. Their task state stays in the project checkout, whose files they never touch;
 * `sow task merge` brings the different edits back and stops at the same-file conflict, naming it.
 * The fake workers wait on files the test creates, so what runs at once is shown by files.
 */
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentFixtures, show, until } from './agent-world.js';
import { acpEvents } from '../fakes/acp-log.js';
import { TEST_ENV } from './harness.js';

const base = agentFixtures({
  tasks: ['Edit a', 'Edit b and the shared file', 'Edit the shared file'],
  setup: (t) => {
    t.write('a.txt', 'a\n');
    t.write('b.txt', 'b\n');
    t.write('shared.txt', 'shared\n');
    t.git(['add', '--', 'a.txt', 'b.txt', 'shared.txt']);
    t.git(['commit', '--quiet', '-m', 'files the workers edit']);
  },
});

/**
 * The project checkout as the workers could change it: every file outside .git/ and .sow/ with its content, git's
 * status of them, and HEAD.
 */
function checkoutState(root: string, git: (args: string[]) => string): string {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const rel = relative(root, path);
      if (rel === '.git' || rel === '.sow') continue;
      if (statSync(path).isDirectory()) walk(path);
      else files.push(`${rel}: ${readFileSync(path, 'utf8')}`);
    }
  };
  walk(root);
  return [
    ...files,
    `status: ${git(['status', '--porcelain', '--untracked-files=all', '--', '.', ':(exclude).sow'])}`,
    `HEAD: ${git(['rev-parse', 'HEAD'])}`,
  ].join('\n');
}

/** A worker that says it started, waits for `go`, edits `edits` in its own folder, and reports needs_review. */
const worker = (dir: string, name: string, edits: Record<string, string>) =>
  JSON.stringify([
    { touch: join(dir, `${name}.started`) },
    { wait: join(dir, 'go') },
    ...Object.entries(edits).map(([file, text]) => ({ append: file, text })),
    [
      'log',
      '--action',
      'modified_file',
      '--result',
      'success',
      ...Object.keys(edits).flatMap((f) => ['--file', f]),
      `${name} edited its files`,
    ],
    ['task', 'set', 'status', 'needs_review'],
  ]);

describe('a checkout per parallel worker', () => {
  it(
    'three workers in their own worktrees: one truth for their state, the project checkout untouched, different ' +
      'edits merged, the same-file conflict stopped with its files named',
    async () => {
      const f = base();
      const dir = f.world.root;
      const branch = f.repo.git(['branch', '--show-current']);
      // The setting gives a parallel task a checkout of its own; the others ask with --worktree.
      f.repo.write('.sow/config.yaml', 'workers:\n  worktree: true\n');
      f.ok(['task', 'set', '--id', '030', 'parallel', 'true']);
      const before = checkoutState(f.root, f.repo.git);
      // A worker without a task has no checkout of its own to ask for.
      const projectLevel = f.sow(['agent', 'spawn', 'planner', '--worktree', '--json']);
      expect(projectLevel.code, show(projectLevel)).toBe(2);
      expect(projectLevel.json!.error!.code).toBe('USAGE');

      const spawned = [
        f.ok(['agent', 'spawn', 'implementer', '010', '--worktree', '--detach', '--json'], {
          FAKE_AGENT_SCRIPT: worker(dir, 'w1', { 'a.txt': 'from 010\n' }),
        }),
        f.ok(['agent', 'spawn', 'implementer', '020', '--worktree', '--detach', '--json'], {
          FAKE_AGENT_SCRIPT: worker(dir, 'w2', { 'b.txt': 'from 020\n', 'shared.txt': 'from 020\n' }),
        }),
        f.ok(['agent', 'spawn', 'implementer', '030', '--detach', '--json'], {
          FAKE_AGENT_SCRIPT: worker(dir, 'w3', { 'shared.txt': 'from 030\n' }),
        }),
      ];
      expect(spawned.map((r) => r.json!.data.task)).toEqual(['010', '020', '030']);
      for (const name of ['w1', 'w2', 'w3'])
        await until(() => existsSync(join(dir, `${name}.started`)), `${name} started`);

      // agent ps says where each works, as data and as a column.
      const checkoutOf = (id: string) => `.sow/worktrees/.workers/${branch}--task-${id}`;
      const ps = f.ok(['agent', 'ps', '--json']).json!.data as { task: string; worktree: string }[];
      expect(ps.map((w) => [w.task, w.worktree]).sort()).toEqual([
        ['010', checkoutOf('010')],
        ['020', checkoutOf('020')],
        ['030', checkoutOf('030')],
      ]);
      expect(f.ok(['agent', 'ps']).stdout).toMatch(
        new RegExp(`worktree[\\s\\S]*${checkoutOf('010').replace(/[.]/g, '\\.')}`),
      );
      // Each fake ran in its own checkout, on a branch of the project branch, told where the project is.
      const calls = f.world.calls();
      for (const id of ['010', '020', '030']) {
        const call = calls.find((c) => c.env['SOW_TASK_ID'] === id)!;
        expect(call.cwd).toBe(join(f.root, checkoutOf(id)));
        expect(call.env['SOW_PROJECT_ROOT']).toBe(f.root);
        expect(f.repo.git(['-C', call.cwd, 'branch', '--show-current'])).toBe(`${branch}--task-${id}`);
        expect(f.task(id).worktree).toMatchObject({
          branch: `${branch}--task-${id}`,
          path: checkoutOf(id),
          from: branch,
        });
      }

      writeFileSync(join(dir, 'go'), '');
      const waited = f.ok(['agent', 'wait', '--json']).json!.data;
      expect(waited.stopped.map((t: { task: string; status: string }) => [t.task, t.status]).sort()).toEqual([
        ['010', 'needs_review'],
        ['020', 'needs_review'],
        ['030', 'needs_review'],
      ]);
      // One truth: what the workers said through sow is in the project checkout's task state and logs.
      for (const id of ['010', '020', '030'])
        expect(f.repo.read(`.sow/project/phases/implementation/tasks/${id}/log.md`)).toMatch(/edited its files/);
      // Their edits are in their checkouts only: the project checkout was never touched.
      expect(checkoutState(f.root, f.repo.git)).toBe(before);
      expect(readFileSync(join(f.root, checkoutOf('020'), 'shared.txt'), 'utf8')).toBe('shared\nfrom 020\n');

      // A resume continues in the same checkout.
      f.ok(['agent', 'resume', '020', 'One more line', '--quiet'], {
        FAKE_AGENT_SCRIPT: JSON.stringify([
          { append: 'b.txt', text: 'again 020\n' },
          ['task', 'set', 'status', 'needs_review'],
        ]),
      });
      const resumed = f.world.calls().at(-1)!;
      expect(resumed).toMatchObject({ resuming: true, cwd: join(f.root, checkoutOf('020')) });
      expect(readFileSync(join(f.root, checkoutOf('020'), 'b.txt'), 'utf8')).toBe('b\nfrom 020\nagain 020\n');
      expect(checkoutState(f.root, f.repo.git)).toBe(before);

      // Refused: a task not completed; then one without a checkout of its own.
      const early = f.sow(['task', 'merge', '010', '--json']);
      expect(early.code, show(early)).toBe(1);
      expect(early.json!.error!.code).toBe('TASK_NOT_COMPLETED');
      for (const id of ['010', '020', '030']) f.ok(['task', 'set', '--id', id, 'status', 'completed']);

      // Different files: merged cleanly, what the worker left uncommitted committed on its branch first; checkout and
      // branch gone.
      const first = f.ok(['task', 'merge', '010', '--json']).json!.data;
      expect(first).toMatchObject({
        task: '010',
        branch: `${branch}--task-010`,
        into: branch,
        committed: true,
        files: ['a.txt'],
      });
      expect(f.repo.read('a.txt')).toBe('a\nfrom 010\n');
      expect(existsSync(join(f.root, checkoutOf('010')))).toBe(false);
      expect(f.repo.git(['branch', '--list', `${branch}--task-010`])).toBe('');
      expect(f.task('010').worktree).toBeUndefined();
      const again = f.sow(['task', 'merge', '--id', '010', '--json']);
      expect(again.code, show(again)).toBe(1);
      expect(again.json!.error!.code).toBe('TASK_NO_WORKTREE');

      // The project checkout's own uncommitted change to a file the merge changes: refused, nothing touched.
      f.repo.write('b.txt', 'b\nmine\n');
      const dirty = f.sow(['task', 'merge', '020', '--json']);
      expect(dirty.code, show(dirty)).toBe(1);
      expect(dirty.json!.error).toMatchObject({ code: 'TASK_MERGE_DIRTY', message: expect.stringContaining('b.txt') });
      expect(f.repo.read('b.txt')).toBe('b\nmine\n');
      f.repo.git(['checkout', '--', 'b.txt']);
      expect(f.ok(['task', 'merge', '020', '--json']).json!.data).toMatchObject({
        task: '020',
        files: ['b.txt', 'shared.txt'],
      });
      expect(f.repo.read('shared.txt')).toBe('shared\nfrom 020\n');

      // The same file: the merge stops, names it, leaves the project checkout as it was and keeps the worker's
      // checkout.
      const head = f.repo.git(['rev-parse', 'HEAD']);
      const status = f.repo.git(['status', '--porcelain', '--', '.', ':(exclude).sow']);
      const conflict = f.sow(['task', 'merge', '030', '--json']);
      expect(conflict.code, show(conflict)).toBe(1);
      expect(conflict.json!.error).toMatchObject({
        code: 'TASK_MERGE_CONFLICT',
        message: expect.stringContaining('shared.txt'),
        hint: expect.stringContaining(checkoutOf('030')),
      });
      expect(f.repo.git(['rev-parse', 'HEAD'])).toBe(head);
      expect(f.repo.git(['status', '--porcelain', '--', '.', ':(exclude).sow'])).toBe(status);
      expect(existsSync(join(f.root, '.git', 'MERGE_HEAD'))).toBe(false);
      expect(f.repo.read('shared.txt')).toBe('shared\nfrom 020\n');
      expect(readFileSync(join(f.root, checkoutOf('030'), 'shared.txt'), 'utf8')).toBe('shared\nfrom 030\n');
      expect(f.task('030').worktree).toMatchObject({ branch: `${branch}--task-030` });

      // Resolved where the hint says, the merge goes through.
      const wt = join(f.root, checkoutOf('030'));
      const merged = spawnSync('git', ['-C', wt, 'merge', '--quiet', branch], {
        encoding: 'utf8',
        env: { ...process.env, ...TEST_ENV },
      });
      expect(merged.status).toBe(1);
      writeFileSync(join(wt, 'shared.txt'), 'shared\nfrom 020\nfrom 030\n');
      f.repo.git(['-C', wt, 'commit', '--quiet', '--all', '--no-edit']);
      expect(f.ok(['task', 'merge', '030', '--json']).json!.data).toMatchObject({
        task: '030',
        committed: false,
        files: ['shared.txt'],
      });
      expect(f.repo.read('shared.txt')).toBe('shared\nfrom 020\nfrom 030\n');
      expect(existsSync(wt)).toBe(false);
    },
  );

  it(
    'over the Agent Client Protocol: the session opens in the worker’s checkout, its edits land there, its sow ' +
      'calls (a command, sow mcp) act on the project checkout',
    () => {
      const f = base(
        'agents:\n  executors:\n    w:\n      type: claude\n      transport: acp\n  bindings:\n    implementer: w\n',
      );
      const branch = f.repo.git(['branch', '--show-current']);
      const checkout = join(f.root, `.sow/worktrees/.workers/${branch}--task-010`);
      // The last edit is of the project checkout's file: outside the worker's own checkout, refused under the safe
      // profile.
      const script = [
        { edit: 'a.txt', text: 'over acp\n' },
        { mcp: { tool: 'status', arguments: {} } },
        { run: 'sow task set --id 010 status needs_review' },
        { edit: join(f.root, 'b.txt'), text: 'not here\n' },
      ];
      f.ok(['agent', 'spawn', 'implementer', '010', '--worktree'], { FAKE_ACP_SCRIPT: JSON.stringify(script) });
      const log = acpEvents(f.world.log);
      expect(log.find((e) => e.event === 'session/new')!.params.cwd).toBe(checkout);
      expect(
        log.filter((e) => e.event === 'step').map((e) => (e.result === 'refused' ? 'refused' : 'allowed')),
      ).toEqual(['allowed', 'allowed', 'allowed', 'refused']);
      const mcp = log.find((e) => e.event === 'step' && e.step?.mcp)!.result;
      expect(JSON.stringify(mcp.structuredContent), JSON.stringify(mcp)).toContain('ImplementationExecuting');
      expect(readFileSync(join(checkout, 'a.txt'), 'utf8')).toBe('over acp\n');
      expect(f.repo.read('a.txt')).toBe('a\n');
      expect(f.repo.read('b.txt')).toBe('b\n');
      expect(f.task('010')).toMatchObject({
        status: 'needs_review',
        worktree: { branch: `${branch}--task-010` },
        session: { cwd: checkout, transport: 'acp' },
      });
    },
  );

  it(
    "a checkout's .git is git's own: a safe worker cannot point it elsewhere, and sow runs no git in a checkout " +
      'whose .git leads elsewhere (exit 4)',
    () => {
      const f = base(
        'agents:\n  executors:\n    w:\n      type: claude\n      transport: acp\n  bindings:\n    implementer: w\n',
      );
      const branch = f.repo.git(['branch', '--show-current']);
      const rel = `.sow/worktrees/.workers/${branch}--task-020`;
      const checkout = join(f.root, rel);
      f.ok(['agent', 'spawn', 'implementer', '020', '--worktree'], {
        FAKE_ACP_SCRIPT: JSON.stringify([
          { edit: 'b.txt', text: 'from 020\n' },
          { run: 'sow task set --id 020 status needs_review' },
        ]),
      });
      const genuine = readFileSync(join(checkout, '.git'), 'utf8');
      // A git dir of the attacker's making, whose configuration runs a command whenever git looks at the files.
      const marker = join(outside, 'fsmonitor-ran');
      const evil = join(f.root, 'evil-gitdir');
      f.repo.git(['init', '--quiet', '--bare', evil]);
      f.repo.git(['config', '--file', join(evil, 'config'), 'core.bare', 'false']);
      f.repo.git(['config', '--file', join(evil, 'config'), 'core.fsmonitor', `touch ${marker}; echo`]);
      // It borrows the repository's objects and starts at the worker's commit, so git gets as far as asking the
      // monitor.
      writeFileSync(join(evil, 'objects/info/alternates'), `${join(f.root, '.git/objects')}\n`);
      writeFileSync(join(evil, 'HEAD'), `${f.repo.git(['rev-parse', `refs/heads/${branch}--task-020`])}\n`);
      const hostile = `gitdir: ${evil}\n`;

      // A worker of another task, in the project checkout, may not change that checkout's .git.
      f.ok(['agent', 'spawn', 'implementer', '010'], {
        FAKE_ACP_SCRIPT: JSON.stringify([{ edit: `${rel}/.git`, text: hostile }]),
      });
      const asked = acpEvents(f.world.log).filter((e) => e.event === 'step' && e.step?.edit);
      expect(asked.at(-1)!.result).toBe('refused');
      expect(readFileSync(join(checkout, '.git'), 'utf8')).toBe(genuine);

      // Had something else pointed it there: sow task merge and sow worktree remove refuse before git runs there.
      writeFileSync(join(checkout, '.git'), hostile);
      f.ok(['task', 'set', '--id', '020', 'status', 'completed']);
      const state = f.repo.snapshot();
      const merge = f.sow(['task', 'merge', '020', '--json']);
      expect(merge.code, show(merge)).toBe(4);
      expect(merge.json!.error).toMatchObject({
        code: 'CHECKOUT_GIT_INVALID',
        message: expect.stringContaining(`${rel}/.git names '${evil}'`),
        hint: expect.stringContaining(`git worktree repair ${rel}`),
      });
      const remove = f.sow(['worktree', 'remove', `${branch}--task-020`, '--json']);
      expect(remove.code, show(remove)).toBe(4);
      expect(remove.json!.error!.code).toBe('CHECKOUT_GIT_INVALID');
      expect(existsSync(marker), 'git ran the command of the git dir the .git named').toBe(false);
      expect(f.repo.snapshot()).toEqual(state);
      // As the hint says: git writes it again, and the merge goes through.
      const repaired = spawnSync('git', ['-C', f.root, 'worktree', 'repair', checkout], {
        encoding: 'utf8',
        env: { ...process.env, ...TEST_ENV },
      });
      expect(repaired.status, repaired.stderr).toBe(0);
      expect(f.ok(['task', 'merge', '020', '--json']).json!.data).toMatchObject({ task: '020', files: ['b.txt'] });
      expect(existsSync(marker)).toBe(false);
    },
  );
});

/** A folder outside every test repository, for what must never be touched. */
const outside = realpathSync(mkdtempSync(join(tmpdir(), 'sow-worktree-outside-')));
afterAll(() => rmSync(outside, { recursive: true, force: true }));
