/**
 * A task worked in a checkout of its own is checked there: fake workers spawned with --worktree
 * change the code in their checkouts, and whoever completes the task (the worker itself, the person
 * in the project checkout) runs the project's task_complete checks on the worker's code, recording
 * evidence that names the checkout and its commit. `sow task merge` merges only code with fresh
 * passing evidence from that checkout; anything else is refused (exit 3) naming the check and the
 * command that checks it, or merged with --force, noted in the task's log.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentFixtures, parseLog, show, type AgentFixture } from './agent-world.js';

const base = agentFixtures({
  tasks: ['Fix the app', 'Something else'],
  setup: (t) => {
    t.write('app.txt', 'ok\n');
    t.git(['add', '--', 'app.txt']);
    t.git(['commit', '--quiet', '-m', 'the app']);
  },
});

/**
 * The project's check, in the project checkout's .sow/config.yaml, allowed as the person would:
 * it passes only where the app was fixed and not broken, and says where it ran.
 */
const UNIT = 'echo "ran in $(pwd)"; grep -q fixed app.txt && ! grep -q broken app.txt';

function setUp(
  opts: { fixedInProject?: boolean } = {},
): AgentFixture & { branch: string; rel: string; checkout: string } {
  const f = base();
  if (opts.fixedInProject) {
    // The project branch passes the check already, so a worker's checkout starts passing it.
    f.repo.write('app.txt', 'ok\nfixed\n');
    f.repo.git(['commit', '--quiet', '-m', 'fixed', '--', 'app.txt']);
  }
  f.repo.write(
    '.sow/config.yaml',
    `checks:\n  - name: unit\n    run: ${JSON.stringify(UNIT)}\n    when: [task_complete]\n`,
  );
  f.ok(['check', 'allow', '--yes']);
  const branch = f.repo.git(['branch', '--show-current']);
  const rel = `.sow/worktrees/.workers/${branch}--task-010`;
  return { ...f, branch, rel, checkout: join(f.root, rel) };
}

/** Spawns task 010's worker in its own checkout, running `script` (test/fakes/fake-agent.mjs steps). */
function spawnWorker(f: AgentFixture, script: unknown[]): void {
  const r = f.sow(['agent', 'spawn', 'implementer', '010', '--worktree', '--json'], {
    FAKE_AGENT_SCRIPT: JSON.stringify(script),
  });
  expect(r.code, show(r)).toBe(0);
}

const git = (f: AgentFixture, cwd: string, args: string[]) => f.repo.git(['-C', cwd, ...args]);
const evidenceOf = (f: AgentFixture) =>
  (f.task('010').outputs as { type: string; path: string; metadata: Record<string, unknown> }[]).filter(
    (o) => o.type === 'evidence',
  );

describe('a task worked in its own checkout is checked there', () => {
  it(
    'a worker whose change fails the check is not completed — by itself or by the person — and the evidence names ' +
      'its checkout and commit',
    () => {
      const f = setUp();
      const tried = join(f.world.root, 'completed.json');
      // The project checkout's own code passes the check (uncommitted, so not in the worker's checkout)…
      f.repo.write('app.txt', 'ok\nfixed\n');
      expect(f.ok(['check', 'run']).stdout).toMatch(/^✓ unit/);
      // …and the worker "fixes" the app in its checkout but breaks it too, then tries to complete its task.
      spawnWorker(f, [
        { append: 'app.txt', text: 'fixed\nbroken\n' },
        { try: ['task', 'set', 'status', 'completed', '--json'], out: tried },
        { try: ['task', 'set', 'status', 'needs_review'], out: join(f.world.root, 'handed-back.json') },
      ]);
      const own = JSON.parse(readFileSync(tried, 'utf8')) as { code: number; stdout: string };
      expect(own.code, JSON.stringify(own)).toBe(3);
      const error = JSON.parse(own.stdout).error;
      expect(error).toMatchObject({
        code: 'TASK_CHECKS_FAILED',
        details: { task: '010', failed: ['unit'], checkout: f.rel },
      });
      expect(error.message).toContain(`declared for task_complete failed in its checkout ${f.rel} (at `);
      expect(error.hint).toContain(`fix the cause in ${f.rel}`);
      const head = git(f, f.checkout, ['rev-parse', 'HEAD']);
      const [first] = evidenceOf(f);
      expect(first!.metadata).toMatchObject({
        check: 'unit',
        run: UNIT,
        exit_code: 1,
        commit: head,
        dirty: true,
        checkout: f.rel,
      });
      expect(f.repo.read(`.sow/project/${first!.path}`)).toContain(`ran in ${f.checkout}\n`);

      // The person, in the project checkout (whose code passes), gets the same verdict: the task's code is the
      // worker's.
      const person = f.sow(['task', 'set', '--id', '010', 'status', 'completed']);
      expect(person.code, show(person)).toBe(3);
      expect(person.stderr).toContain(
        `error: task 010 was not completed: the check declared for task_complete failed in its checkout ${f.rel} ` +
          `(at ${head.slice(0, 12)} with uncommitted changes): unit (exit 1)`,
      );
      expect(person.stderr).not.toMatch(/^\s+at /m);
      expect(f.task('010').status).toBe('needs_review');
      expect(evidenceOf(f).map((e) => [e.metadata['checkout'], e.metadata['exit_code']])).toEqual([
        [f.rel, 1],
        [f.rel, 1],
      ]);
      expect(f.repo.read('app.txt')).toBe('ok\nfixed\n');
    },
  );

  it(
    'a worker whose change passes is completed on evidence from its checkout, and the merge relies on it ' +
      'and says so',
    () => {
      const f = setUp();
      // In the project checkout the check fails (app.txt is not fixed there): only the worker's code passes it.
      spawnWorker(f, [{ append: 'app.txt', text: 'fixed\n' }, ['task', 'set', 'status', 'completed']]);
      const task = f.task('010');
      expect(task.status).toBe('completed');
      const head = git(f, f.checkout, ['rev-parse', 'HEAD']);
      const [evidence] = evidenceOf(f);
      expect(evidence!.metadata).toMatchObject({
        check: 'unit',
        exit_code: 0,
        commit: head,
        dirty: true,
        checkout: f.rel,
      });
      expect(f.repo.read(`.sow/project/${evidence!.path}`)).toContain(`ran in ${f.checkout}\n`);

      // Meanwhile the project branch moved on: the merge says its result was not checked as a whole.
      f.repo.write('other.txt', 'other\n');
      f.repo.git(['add', '--', 'other.txt']);
      f.repo.git(['commit', '--quiet', '-m', 'other work', '--', 'other.txt']);
      const merged = f.sow(['task', 'merge', '010']);
      expect(merged.code, show(merged)).toBe(0);
      expect(merged.stderr).toContain(
        `Checked: unit passed on ${head.slice(0, 12)} with what the worker left uncommitted in its checkout ` +
          `(${evidence!.path}). The project branch changed 1 file since the checkout was made; the merge result ` +
          `combines both and was not checked as a whole ('sow check run' checks it).`,
      );
      expect(f.repo.read('app.txt')).toBe('ok\nfixed\n');
      const log = parseLog(f.repo.read('.sow/project/phases/implementation/tasks/010/log.md'));
      expect(log.at(-1)!.body).toContain(`Checked: unit passed on ${head.slice(0, 12)}`);
    },
  );

  it(
    'a commit in the checkout after the evidence: merge refuses it as stale (exit 3, nothing changed) until sow ' +
      'check run --task checks it there',
    () => {
      const f = setUp({ fixedInProject: true });
      spawnWorker(f, [{ append: 'app.txt', text: 'more\n' }, ['task', 'set', 'status', 'completed']]);
      // More work lands in the checkout after the task was completed.
      writeFileSync(join(f.checkout, 'app.txt'), 'ok\nfixed\nmore\nand more\n');
      git(f, f.checkout, ['commit', '--quiet', '--all', '-m', 'more']);
      const head = git(f, f.checkout, ['rev-parse', 'HEAD']);
      const projectHead = f.repo.git(['rev-parse', 'HEAD']);
      const state = f.repo.snapshot();

      const refused = f.sow(['task', 'merge', '010', '--json']);
      expect(refused.code, show(refused)).toBe(3);
      expect(refused.json!.error).toMatchObject({
        code: 'TASK_MERGE_UNCHECKED',
        message:
          `task 010's branch '${f.branch}--task-010' was not merged: the code it would merge ` +
          `(${head.slice(0, 12)} in ${f.rel}) has no fresh passing evidence of a check declared for task_complete: ` +
          `unit: stale (the code changed since it passed)`,
        hint:
          "run 'sow check run unit --task 010' (it runs there), then 'sow task merge 010' again; --force merges " +
          "without it, noted in the task's log",
      });
      expect(f.repo.snapshot()).toEqual(state);
      expect(f.repo.git(['rev-parse', 'HEAD'])).toBe(projectHead);
      expect(git(f, f.checkout, ['rev-parse', 'HEAD'])).toBe(head);
      expect(f.repo.read('app.txt')).toBe('ok\nfixed\n');

      // As the hint says: checked there, then merged on that evidence.
      const checked = f.sow(['check', 'run', 'unit', '--task', '010']);
      expect(checked.code, show(checked)).toBe(0);
      expect(checked.stderr).toContain(
        `The check passed in the task's checkout ${f.rel}; evidence recorded on task 010`,
      );
      const fresh = evidenceOf(f).at(-1)!;
      expect(fresh.metadata).toMatchObject({
        check: 'unit',
        exit_code: 0,
        commit: head,
        dirty: false,
        checkout: f.rel,
      });
      const merged = f.sow(['task', 'merge', '010', '--json']);
      expect(merged.code, show(merged)).toBe(0);
      expect(merged.json!.data).toMatchObject({
        task: '010',
        committed: false,
        files: ['app.txt'],
        checked: {
          commit: head,
          dirty: false,
          forced: false,
          beside: [],
          checks: [{ name: 'unit', state: 'fresh-pass', evidence: fresh.path, commit: head, dirty: false }],
        },
      });
      expect(f.repo.read('app.txt')).toBe('ok\nfixed\nmore\nand more\n');
    },
  );

  it(
    'a commit that breaks the code: its checks fail there, the merge stays refused; --force merges it, noted in ' +
      'the task log',
    () => {
      const f = setUp({ fixedInProject: true });
      spawnWorker(f, [{ append: 'app.txt', text: 'more\n' }, ['task', 'set', 'status', 'completed']]);
      writeFileSync(join(f.checkout, 'app.txt'), 'ok\nfixed\nmore\nbroken\n');
      git(f, f.checkout, ['commit', '--quiet', '--all', '-m', 'breaks it']);
      const head = git(f, f.checkout, ['rev-parse', 'HEAD']);

      const checked = f.sow(['check', 'run', '--task', '010']);
      expect(checked.code, show(checked)).toBe(1);
      const failed = evidenceOf(f).at(-1)!;
      expect(failed.metadata).toMatchObject({ exit_code: 1, commit: head, dirty: false, checkout: f.rel });
      const refused = f.sow(['task', 'merge', '010', '--json']);
      expect(refused.code, show(refused)).toBe(3);
      expect(refused.json!.error).toMatchObject({
        code: 'TASK_MERGE_UNCHECKED',
        message: expect.stringContaining(`unit: failed (exit 1; log .sow/project/${failed.path})`),
      });
      expect(f.repo.read('app.txt')).toBe('ok\nfixed\n');

      const forced = f.sow(['task', 'merge', '010', '--force']);
      expect(forced.code, show(forced)).toBe(0);
      expect(forced.stderr).toContain(
        `Merged with --force although ${head.slice(0, 12)} had no fresh passing evidence: unit: failed (exit 1; log ` +
          `.sow/project/${failed.path}).`,
      );
      expect(f.repo.read('app.txt')).toBe('ok\nfixed\nmore\nbroken\n');
      const log = parseLog(f.repo.read('.sow/project/phases/implementation/tasks/010/log.md'));
      expect(log.at(-1)!.body).toContain('Merged with --force although');
    },
  );

  it(
    "runs the project checkout's checks as allowed there: never the worker's copy of .sow/config.yaml, never " +
      "without the person's allowance",
    () => {
      const f = setUp();
      const marker = join(f.world.root, 'ran');
      f.repo.write('app.txt', 'ok\nfixed\n');
      spawnWorker(f, [{ append: 'app.txt', text: 'broken\n' }, ['task', 'set', 'status', 'needs_review']]);
      // The worker's copy says a check that always passes: not what runs.
      mkdirSync(join(f.checkout, '.sow'), { recursive: true });
      writeFileSync(
        join(f.checkout, '.sow/config.yaml'),
        `checks:\n  - name: unit\n    run: "touch ${marker}"\n    when: [task_complete]\n`,
      );
      const r = f.sow(['task', 'set', '--id', '010', 'status', 'completed']);
      expect(r.code, show(r)).toBe(3);
      expect(() => readFileSync(marker)).toThrow();
      expect(evidenceOf(f).at(-1)!.metadata).toMatchObject({ run: UNIT, exit_code: 1, checkout: f.rel });

      // Withdrawn by the person: refused before anything runs, in the checkout as anywhere.
      f.ok(['check', 'forget']);
      const before = f.repo.snapshot();
      const notAllowed = f.sow(['task', 'set', '--id', '010', 'status', 'completed', '--json']);
      expect(notAllowed.code, show(notAllowed)).toBe(1);
      expect(notAllowed.json!.error!.code).toBe('CHECKS_NOT_ALLOWED');
      expect(f.repo.snapshot()).toEqual(before);
    },
  );
});
