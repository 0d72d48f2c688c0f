/**
 * State that merges, end to end: two clones of one project change it (tasks completed, outputs
 * added, log entries, a knowledge entry each), commit, and one merges the other with git itself,
 * which runs `sow merge-driver` from PATH as `sow init` registered it. The merge rules, case by
 * case, are judged in-process (src/domain/merge.test.ts, src/app/merge-driver.test.ts).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeRepo, ok, SOW, TEST_ENV, taskFile, toExecuting, type Repo } from './harness.js';

const work = mkdtempSync(join(tmpdir(), 'sow-merge-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A `sow` on PATH, as a user has one: git runs the driver by that name. */
const bin = join(work, 'bin');
mkdirSync(bin);
writeFileSync(join(bin, 'sow'), `#!/bin/sh\nexec "${process.execPath}" "${SOW}" "$@"\n`, { mode: 0o755 });
const env = { PATH: `${bin}:${process.env['PATH']}` };

function gitIn(repo: Repo, args: string[]): { code: number; out: string } {
  const r = spawnSync('git', args, { cwd: repo.dir, env: { ...process.env, ...TEST_ENV, ...env }, encoding: 'utf8' });
  return { code: r.status ?? -1, out: `${r.stdout}${r.stderr}` };
}

const commit = (repo: Repo, message: string) => {
  repo.git(['add', '-A']);
  repo.git(['commit', '-q', '-m', message]);
};

let counter = 0;
/**
 * The origin (a project executing tasks 010, 020, 030, committed on its branch) and a clone of it on that branch,
 * registered by `sow init`.
 */
function twoClones(): { a: Repo; b: Repo; branch: string } {
  const dir = join(work, `case-${counter++}`);
  mkdirSync(dir);
  const a = makeRepo({ dir: join(dir, 'a') });
  toExecuting(a, ['First task', 'Second task', 'Third task']);
  commit(a, 'the project');
  const branch = a.git(['branch', '--show-current']);
  execFileSync('git', ['clone', '-q', '--branch', branch, a.dir, join(dir, 'b')], {
    env: { ...process.env, ...TEST_ENV },
  });
  const b = makeRepo({ dir: join(dir, 'b'), existing: true });
  return { a, b, branch };
}

const sow = (repo: Repo, args: string[]) => ok(repo, args, { env });
/** `sow doctor --json [args]`: its finding `id` (in the data, or in the error's details when a check failed). */
function doctorSays(
  repo: Repo,
  id: string,
  args: string[] = [],
): { status: string; message: string; fix?: string; fixed?: boolean } {
  const r = repo.sow(['doctor', '--json', ...args], { env });
  const checks = (r.json!.ok ? r.json!.data.checks : (r.json!.error as any).details.checks) as {
    id: string;
    status: string;
    message: string;
  }[];
  expect(r.code).toBe(checks.some((c) => c.status === 'fail') ? 1 : 0);
  return checks.find((c) => c.id === id)!;
}
const knowledge = (name: string, date: string) =>
  `entries:\n  - type: exploration\n    name: ${name}\n    date: "${date}"\n    files: []\n`;

describe('sow merge-driver, run by git merge', () => {
  it(
    'two clones change the same project: the merge finishes without a conflict, every change of both sides is ' +
      'there, and sow reads the result',
    () => {
      const { a, b, branch } = twoClones();
      // A clone has the attribute (committed) but not the command (git config is not): doctor says so, --fix sets it.
      expect(doctorSays(b, 'merge-driver')).toMatchObject({
        status: 'fail',
        message: expect.stringContaining('git config has no merge.sow.driver'),
        fix: expect.stringContaining('sow doctor --fix'),
      });
      expect(doctorSays(b, 'merge-driver', ['--fix'])).toMatchObject({ status: 'ok', fixed: true });
      expect(b.git(['config', '--get', 'merge.sow.driver'])).toContain('sow merge-driver %O %A %B %P');

      const side = (repo: Repo, id: string, file: string, note: string, entry: string) => {
        sow(repo, ['task', 'set', '--id', id, 'status', 'in_progress']);
        repo.write(file, `${note}\n`);
        sow(repo, [
          'log',
          '--task',
          id,
          '--action',
          'modified_file',
          '--result',
          'success',
          '--files',
          file,
          `${note}: task`,
        ]);
        sow(repo, ['task', 'set', '--id', id, 'status', 'completed']);
        sow(repo, ['task', 'output', 'add', '--id', '030', '--type', 'modified', '--path', file]);
        repo.write(`.sow/project/${file}.md`, `# ${note}\n`);
        sow(repo, ['input', 'add', '--type', 'context', '--path', `${file}.md`]);
        sow(repo, ['log', '--project', '--action', 'note', '--result', 'success', `${note}: project`]);
        repo.write('.sow/knowledge/index.yaml', entry);
        commit(repo, note);
      };
      side(a, '010', 'from-a.txt', 'from a', knowledge('from-a', '2026-02-01'));
      side(b, '020', 'from-b.txt', 'from b', knowledge('from-b', '2026-01-01'));

      const merge = gitIn(b, ['pull', '--no-rebase', '--no-edit', a.dir, branch]);
      expect(merge.code, merge.out).toBe(0);
      expect(merge.out).not.toContain('CONFLICT');
      expect(b.git(['status', '--porcelain'])).toBe('');

      const tasks = b.sow(['task', 'list', '--json']).json!.data as { id: string; status: string }[];
      expect(tasks.map((t) => [t.id, t.status])).toEqual([
        ['010', 'completed'],
        ['020', 'completed'],
        ['030', 'pending'],
      ]);
      expect(
        b
          .yaml(taskFile('030'))
          .outputs.map((o: { path: string }) => o.path)
          .sort(),
      ).toEqual(['from-a.txt', 'from-b.txt']);
      expect(
        b
          .yaml('.sow/project/state.yaml')
          .phases.implementation.inputs.map((i: { path: string }) => i.path)
          .sort(),
      ).toEqual(['from-a.txt.md', 'from-b.txt.md']);
      const log = b.read('.sow/project/log.md');
      expect(log).toContain('from a: project');
      expect(log).toContain('from b: project');
      expect(log.match(/^timestamp:/gm)).toHaveLength(2);
      expect(b.read(`${taskFile('010').replace('state.yaml', 'log.md')}`)).toContain('from a: task');
      // The knowledge index: both entries, by date.
      expect(b.yaml('.sow/knowledge/index.yaml').entries.map((e: { name: string }) => e.name)).toEqual([
        'from-b',
        'from-a',
      ]);
      expect(b.sow(['status', '--json']).json!.ok).toBe(true);
      const doctor = b.sow(['doctor', '--json'], { env });
      expect(
        (doctor.json!.data?.checks ?? (doctor.json!.error as any).details.checks).filter(
          (c: { status: string }) => c.status === 'fail',
        ),
      ).toEqual([]);
      expect(doctorSays(b, 'merge-conflicts').status).toBe('ok');
    },
  );

  it(
    'a field both sides changed to different values stops the merge; the file stays valid YAML with this side’s ' +
      'value, and doctor names the field, both values and the next step',
    () => {
      const { a, b, branch } = twoClones();
      sow(b, ['doctor', '--fix']);
      sow(a, ['task', 'set', '--id', '020', 'name', 'Named in a']);
      sow(a, ['log', '--project', '--action', 'note', '--result', 'success', 'a renamed 020']);
      commit(a, 'a');
      sow(b, ['task', 'set', '--id', '020', 'name', 'Named in b']);
      sow(b, ['task', 'set', '--id', '010', 'status', 'in_progress']);
      commit(b, 'b');

      const merge = gitIn(b, ['pull', '--no-rebase', '--no-edit', a.dir, branch]);
      expect(merge.code, merge.out).not.toBe(0);
      expect(merge.out).toContain(`CONFLICT (content): Merge conflict in ${taskFile('020')}`);
      expect(merge.out).toContain("'name' is 'Named in b' here and 'Named in a' on the other branch");
      // No markers: sow reads the file, which holds this side's value; the other changes merged.
      expect(b.read(taskFile('020'))).not.toContain('<<<<<<<');
      expect(b.yaml(taskFile('020')).name).toBe('Named in b');
      expect(b.read('.sow/project/log.md')).toContain('a renamed 020');
      expect(b.sow(['task', 'list', '--json']).json!.ok).toBe(true);

      const finding = doctorSays(b, 'merge-conflicts');
      expect(finding.status).toBe('fail');
      expect(finding.message).toContain(
        `${taskFile('020')}: 'name' is 'Named in b' here and 'Named in a' on the other branch`,
      );
      expect(finding.fix).toContain(`git add ${taskFile('020')}`);

      // The person decides, adds and commits: doctor is content again.
      sow(b, ['task', 'set', '--id', '020', 'name', 'Named in a']);
      gitIn(b, ['add', taskFile('020')]);
      expect(gitIn(b, ['commit', '-q', '--no-edit']).code).toBe(0);
      expect(doctorSays(b, 'merge-conflicts').status).toBe('ok');
    },
  );

  it('a file it does not merge by meaning gets git’s text merge, and doctor tells it apart', () => {
    const { a, b, branch } = twoClones();
    sow(b, ['init']);
    const description = taskFile('010').replace('state.yaml', 'description.md');
    a.write(description, 'from a\n');
    commit(a, 'a');
    b.write(description, 'from b\n');
    commit(b, 'b');
    const merge = gitIn(b, ['pull', '--no-rebase', '--no-edit', a.dir, branch]);
    expect(merge.code, merge.out).not.toBe(0);
    expect(b.read(description)).toMatch(/^<<<<<<< ours\nfrom b\n=======\nfrom a\n>>>>>>> theirs\n$/);
    expect(doctorSays(b, 'merge-conflicts').message).toContain(
      `${description}: git's text merge left conflict markers in it`,
    );

    // Where git finds no sow on PATH, the registered command falls back to git's text merge: the same markers.
    b.git(['merge', '--abort']);
    const noSow = spawnSync('git', ['pull', '--no-rebase', '--no-edit', a.dir, branch], {
      cwd: b.dir,
      env: { ...process.env, ...TEST_ENV },
      encoding: 'utf8',
    });
    expect(noSow.status, noSow.stderr).toBe(1);
    expect(noSow.stderr).not.toContain('not found');
    expect(b.read(description)).toMatch(/^<<<<<<< ours\nfrom b\n=======\nfrom a\n>>>>>>> theirs\n$/);
  });
});
