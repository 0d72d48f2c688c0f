/**
 * The reads a review needs, on the command line (and on `sow ui`'s pages, which show their
 * --json): `task changes` (what a task's work changed, from git, whether or not it recorded the
 * files), `output show` / `task input show` (an artifact's document, named by its index, never by a
 * path) and `task board` (ready or waiting, pending feedback, iteration, what the workers used).
 * A hostile state file gets no git run where it points and no file read outside the repository.
 */
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ok, taskFile, toExecuting, useRepos } from './harness.js';

const fresh = useRepos();
const json = (r: { stdout: string }) =>
  JSON.parse(r.stdout) as { ok: boolean; data?: any; error?: { code: string; message: string } };

describe('sow task changes', () => {
  it(
    'what the project checkout changed against the base branch: the recorded files when there are some, else every ' +
      'change (new files whole, .sow/ never)',
    () => {
      const repo = fresh();
      toExecuting(repo, ['First', 'Second']);
      repo.write('README.md', 'as it was\n');
      repo.git(['add', '-A']);
      repo.git(['commit', '-qm', 'the project']);
      repo.write('README.md', 'changed\n');
      repo.write('src/new.ts', 'export const x = 1;\n');
      const all = json(ok(repo, ['task', 'changes', '--id', '010', '--json'])).data;
      expect(all).toMatchObject({ task: '010', source: 'project-checkout', checkout: '.', recorded: [] });
      // Committed on the project branch, then changed: against the base branch it is added, as it is now.
      expect(all.files.map((f: { path: string; status: string }) => [f.path, f.status])).toEqual([
        ['README.md', 'added'],
        ['src/new.ts', 'added'],
      ]);
      expect(all.files[0].patch).toMatch(/\n\+changed$/);
      expect(all.files[1].patch).toMatch(
        /^diff --git a\/src\/new\.ts b\/src\/new\.ts\n[\s\S]*\n\+export const x = 1;$/,
      );
      ok(repo, ['task', 'output', 'add', '--id', '020', '--type', 'modified', '--path', 'src/new.ts']);
      const recorded = json(ok(repo, ['task', 'changes', '--id', '020', '--json'])).data;
      expect(recorded).toMatchObject({
        source: 'recorded',
        recorded: ['src/new.ts'],
        files: [{ path: 'src/new.ts', status: 'added', untracked: true }],
      });
      const text = ok(repo, ['task', 'changes', '--id', '020']);
      expect(text.stdout).toContain('+export const x = 1;');
      expect(text.stderr).toMatch(/^Task 020: 1 file changed among the files it records as modified/);
    },
  );

  it(
    'a worktree record that is not what sow writes is refused before git runs anywhere (exit 4); a recorded path ' +
      'that leaves the repository never reaches git',
    () => {
      const repo = fresh();
      toExecuting(repo, ['First']);
      const file = taskFile('010');
      const state = repo.read(file);
      repo.write(
        file,
        state.replace(
          'metadata: {}',
          'metadata: {}\nworktree:\n  branch: evil\n  path: ../../../tmp\n  from: main\n  created_at: ' +
            '"2026-12-01T00:00:00.000Z"',
        ),
      );
      const before = repo.snapshot();
      const r = repo.sow(['task', 'changes', '--id', '010', '--json']);
      expect(r.code).toBe(4);
      expect(json(r).error).toMatchObject({ code: 'WORKER_CHECKOUT_INVALID' });
      expect(repo.snapshot()).toEqual(before);
      repo.write(
        file,
        state.replace(
          /outputs: \[\]/,
          'outputs:\n  - type: modified\n    path: ../outside.txt\n    created_at: "2026-12-01T00:00:00.000Z"',
        ),
      );
      const out = json(ok(repo, ['task', 'changes', '--id', '010', '--json'])).data;
      expect(out).toMatchObject({ source: 'project-checkout', recorded: ['../outside.txt'] });
      expect(out.files.map((f: { path: string }) => f.path)).not.toContain('../outside.txt');
    },
  );
});

describe('sow output show, sow task input show', () => {
  it(
    'the document of an artifact by its index; one not written yet is null; a link out of the repository is ' +
      'refused (exit 4)',
    () => {
      const repo = fresh();
      ok(repo, ['project', 'new', 'p', '--description', 'd']);
      repo.write('.sow/project/planning/tasks.md', '# Tasks\n\n- One\n');
      ok(repo, ['output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md']);
      expect(ok(repo, ['output', 'show', '--index', '0']).stdout).toBe('# Tasks\n\n- One\n');
      expect(json(ok(repo, ['output', 'show', '--index', '0', '--json'])).data).toMatchObject({
        index: 0,
        file: '.sow/project/planning/tasks.md',
        text: '# Tasks\n\n- One\n',
        artifact: { type: 'task_list' },
      });
      ok(repo, ['output', 'add', '--type', 'task_list', '--path', 'planning/later.md']);
      const later = ok(repo, ['output', 'show', '--index', '1', '--json']);
      expect(json(later).data).toMatchObject({ text: null, file: '.sow/project/planning/later.md' });
      const missing = repo.sow(['output', 'show', '--index', '7', '--json']);
      expect([missing.code, json(missing).error?.code]).toEqual([1, 'INDEX_OUT_OF_RANGE']);
      symlinkSync('/etc/passwd', join(repo.dir, '.sow/project/planning/later.md'));
      const escaped = repo.sow(['output', 'show', '--index', '1', '--json']);
      expect([escaped.code, json(escaped).error?.code]).toEqual([4, 'PATH_ESCAPES']);
      expect(escaped.stdout).not.toMatch(/root:/);
    },
  );

  it("a task's feedback, as written", () => {
    const repo = fresh();
    toExecuting(repo, ['First']);
    ok(repo, ['task', 'feedback', '--id', '010', 'Name the file.']);
    expect(json(ok(repo, ['task', 'input', 'show', '--id', '010', '--index', '0', '--json'])).data).toMatchObject({
      text: 'Name the file.\n',
      artifact: { type: 'feedback' },
    });
  });
});

describe('sow task board', () => {
  it('each card: ready, or waiting for which tasks; pending feedback; iteration; nobody on it', () => {
    const repo = fresh();
    toExecuting(repo, ['First', 'Second']);
    ok(repo, ['task', 'set', '--id', '020', 'dependencies', '010']);
    ok(repo, ['task', 'feedback', '--id', '020', 'Mind the edge case.']);
    const cards = json(ok(repo, ['task', 'board', '--json'])).data.cards;
    expect(cards).toMatchObject([
      { id: '010', status: 'pending', ready: true, blocked_by: [], iteration: 1, feedback_pending: 0 },
      {
        id: '020',
        status: 'pending',
        ready: false,
        blocked_by: [{ id: '010', status: 'pending' }],
        feedback_pending: 1,
      },
    ]);
    expect(cards[0]).not.toHaveProperty('usage');
    ok(repo, ['task', 'set', '--id', '010', 'status', 'in_progress']);
    const one = json(ok(repo, ['task', 'board', '--id', '10', '--json'])).data;
    expect(one).toMatchObject({ cards: [{ id: '010', status: 'in_progress', ready: false }], runs: [] });
    expect(ok(repo, ['task', 'board']).stdout).toBe(
      '010 in_progress · First · nobody works on it\n020 pending · Second · waits for 010 (in_progress) · 1 ' +
        'pending feedback\n',
    );
    const none = repo.sow(['task', 'board', '--id', '090', '--json']);
    expect([none.code, json(none).error?.code]).toEqual([1, 'TASK_NOT_FOUND']);
  });
});
