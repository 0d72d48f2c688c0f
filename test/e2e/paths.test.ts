/**
 * Artifact paths: each artifact type declares the root its path is relative to. Documents
 * (context, task_list, review, feedback, reference, documentation) are relative to .sow/project/;
 * `modified` (a file of the code base) is relative to the repository root, as git names it.
 * Absolute paths inside the repository are converted, anything outside is refused, a file that
 * does not exist yet is a warning, and approving a missing file is refused.
 */
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { useRepos, ok, expectEnvelope, expectFails, inPlanning, PROJECT, TASK_LIST, taskFile, toExecuting, type Repo } from './harness.js';

const fresh = useRepos();
const planning = () => inPlanning(fresh);
const links: string[] = [];
afterEach(() => {
  for (const dir of links.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function executing(tasks?: string[]): Repo {
  const repo = fresh();
  toExecuting(repo, tasks);
  return repo;
}

const outputsOf = (repo: Repo, id: string) => repo.yaml(taskFile(id)).outputs.map((o: { type: string; path: string }) => `${o.type}:${o.path}`);

const LOG = ['log', '--agent', 'implementer-1', '--action', 'modified_file', '--result', 'success'];

describe('modified files are named from the repository root', () => {
  it('sow log --file and task output add store the same repository path, once; log --file is cwd-relative, --path is not', () => {
    const repo = executing();
    repo.write('src/auth/jwt.ts', 'export {};\n');

    ok(repo, [...LOG, '--task', '010', '--file', 'src/auth/jwt.ts']);
    expect(outputsOf(repo, '010')).toEqual(['modified:src/auth/jwt.ts']);
    // Logging the same file again tracks nothing new.
    const again = ok(repo, [...LOG, '--task', '010', '--file', 'src/auth/jwt.ts', '--json']);
    expect(expectEnvelope(again).data).toMatchObject({ files: ['src/auth/jwt.ts'], tracked: [] });
    expect(outputsOf(repo, '010')).toEqual(['modified:src/auth/jwt.ts']);
    expect(repo.read('.sow/project/phases/implementation/tasks/010/log.md').match(/src\/auth\/jwt\.ts/g)).toHaveLength(2);

    ok(repo, ['task', 'output', 'add', '--id', '020', '--type', 'modified', '--path', 'src/auth/jwt.ts']);
    expect(outputsOf(repo, '020')).toEqual(['modified:src/auth/jwt.ts']);

    // From src/: log names files like git does (relative to where you stand) ...
    ok(repo, [...LOG, '--task', '020', '--file', 'auth/jwt.ts', '--file', './auth/other.ts'], { cwd: 'src' });
    expect(outputsOf(repo, '020')).toEqual(['modified:src/auth/jwt.ts', 'modified:src/auth/other.ts']);
    // ... while --path of an artifact is always relative to its type's root.
    ok(repo, ['task', 'output', 'add', '--id', '020', '--type', 'modified', '--path', 'src/x.ts'], { cwd: 'src' });
    ok(repo, ['task', 'output', 'add', '--id', '020', '--type', 'modified', '--path', './src//y/../z.ts'], { cwd: 'src/auth' });
    expect(outputsOf(repo, '020')).toEqual(['modified:src/auth/jwt.ts', 'modified:src/auth/other.ts', 'modified:src/x.ts', 'modified:src/z.ts']);

    // A file outside the repository is refused, relative or absolute.
    expectFails(repo, [...LOG, '--task', '010', '--file', '../../outside.ts'], 1, 'PATH_OUTSIDE_REPOSITORY', { cwd: 'src' });
    expectFails(repo, [...LOG, '--task', '010', '--file', '/etc/passwd'], 1, 'PATH_OUTSIDE_REPOSITORY');
  });
});

describe('absolute and outside paths', () => {
  it('absolute paths inside the repository are converted to the type root; outside ones are refused', () => {
    const repo = planning();
    const dir = repo.dir;
    ok(repo, ['output', 'add', '--type', 'task_list', '--path', `${dir}/.sow/project/planning/tasks.md`]);
    ok(repo, ['input', 'add', '--type', 'context', '--path', `${dir}/docs/notes.md`]);
    ok(repo, ['input', 'add', '--type', 'context', '--path', '../../docs/rel.md']);
    const planningPhase = repo.yaml(PROJECT).phases.planning;
    expect(planningPhase.outputs.map((a: { path: string }) => a.path)).toEqual(['planning/tasks.md']);
    expect(planningPhase.inputs.map((a: { path: string }) => a.path)).toEqual(['../../docs/notes.md', '../../docs/rel.md']);

    const etc = expectFails(repo, ['input', 'add', '--type', 'context', '--path', '/etc/passwd'], 1, 'PATH_OUTSIDE_REPOSITORY', { human: true });
    expect(etc).toContain("'/etc/passwd'");
    expect(expectFails(repo, ['input', 'add', '--type', 'context', '--path', '../../../x'], 1, 'PATH_OUTSIDE_REPOSITORY')).toContain('.sow/project/');
    expectFails(repo, ['output', 'add', '--type', 'task_list', '--path', `${dir}/../x.md`], 1, 'PATH_OUTSIDE_REPOSITORY');
  });

  it('modified paths: absolute inside converted, ../ refused', () => {
    const repo = executing(['Only task']);
    ok(repo, ['task', 'output', 'add', '--id', '010', '--type', 'modified', '--path', `${repo.dir}/src/a.ts`]);
    expect(outputsOf(repo, '010')).toEqual(['modified:src/a.ts']);
    const up = expectFails(repo, ['task', 'output', 'add', '--id', '010', '--type', 'modified', '--path', '../x'], 1, 'PATH_OUTSIDE_REPOSITORY', { human: true });
    expect(up).toContain('repository root');
    expectFails(repo, ['task', 'output', 'add', '--id', '010', '--type', 'modified', '--path', '/etc/passwd'], 1, 'PATH_OUTSIDE_REPOSITORY');
    expectFails(repo, ['task', 'output', 'add', '--id', '010', '--type', 'modified', '--path', 'src/../../x'], 1, 'PATH_OUTSIDE_REPOSITORY');
    // A task's document inputs are rooted at .sow/project/ like the phase ones.
    ok(repo, ['task', 'input', 'add', '--id', '010', '--type', 'reference', '--path', `${repo.dir}/.sow/project/sinks/style.md`]);
    expect(repo.yaml(taskFile('010')).inputs[0].path).toBe('sinks/style.md');
  });

  it('an absolute path through a symlink to the repository (macOS /var → /private/var, or a linked checkout) is inside the repository', () => {
    const repo = executing(['Only task']);
    const parent = mkdtempSync(join(tmpdir(), 'sow-link-'));
    links.push(parent);
    const alias = join(parent, 'repo');
    symlinkSync(repo.dir, alias);
    const add = repo.sow(['task', 'output', 'add', '--id', '010', '--type', 'modified', '--path', `${alias}/src/a.ts`]);
    expect.soft(add.code, add.stderr).toBe(0);
    const log = repo.sow([...LOG, '--task', '010', '--file', `${alias}/src/b.ts`]);
    expect.soft(log.code, log.stderr).toBe(0);
    expect(outputsOf(repo, '010')).toEqual(['modified:src/a.ts', 'modified:src/b.ts']);
  });
});

describe('files that do not exist yet', () => {
  it('adding warns on stderr (one JSON document on stdout with --json); approving is refused until the file exists', () => {
    const repo = planning();
    const added = ok(repo, ['output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md']);
    expect(added.stdout).toBe('[0] task_list: planning/tasks.md (not approved)\n');
    expect(added.stderr).toContain('warning: .sow/project/planning/tasks.md does not exist yet; ');
    const json = ok(repo, ['input', 'add', '--type', 'context', '--path', 'notes/a.md', '--json']);
    expect(expectEnvelope(json)).toMatchObject({ ok: true, data: { index: 0, artifact: { type: 'context', path: 'notes/a.md' } } });
    expect(json.stderr).toContain('warning: .sow/project/notes/a.md does not exist yet; ');

    const missing = expectFails(repo, ['output', 'set', '--index', '0', 'approved', 'true'], 1, 'ARTIFACT_FILE_MISSING', { human: true });
    expect(missing).toContain('.sow/project/planning/tasks.md');
    expectFails(repo, ['output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md', '--approved', 'true'], 1, 'ARTIFACT_FILE_MISSING');
    // A document is looked for under .sow/project/, not at the repository root.
    repo.write('planning/tasks.md', '# wrong place\n');
    expectFails(repo, ['output', 'set', '--index', '0', 'approved', 'true'], 1, 'ARTIFACT_FILE_MISSING');

    repo.write(TASK_LIST, '# Tasks\n');
    const approved = ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
    expect(approved.stderr).not.toContain('warning');
    ok(repo, ['output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md', '--approved', 'true']);
    expect(repo.yaml(PROJECT).phases.planning.outputs.map((a: { approved: boolean }) => a.approved)).toEqual([true, true]);
  });

  it('a modified file is looked for at the repository root', () => {
    const repo = executing(['Only task']);
    const added = ok(repo, ['task', 'output', 'add', '--id', '010', '--type', 'modified', '--path', 'src/a.ts']);
    expect(added.stderr).toContain('warning: src/a.ts does not exist yet; ');
    expect(expectFails(repo, ['task', 'output', 'set', '--id', '010', '--index', '0', 'approved', 'true'], 1, 'ARTIFACT_FILE_MISSING')).toContain("'src/a.ts'");
    expectFails(repo, ['task', 'output', 'add', '--id', '010', '--type', 'modified', '--path', 'src/a.ts', '--approved', 'true'], 1, 'ARTIFACT_FILE_MISSING');
    repo.write('.sow/project/src/a.ts', 'wrong place\n');
    expectFails(repo, ['task', 'output', 'set', '--id', '010', '--index', '0', 'approved', 'true'], 1, 'ARTIFACT_FILE_MISSING');
    repo.write('src/a.ts', 'export {};\n');
    ok(repo, ['task', 'output', 'set', '--id', '010', '--index', '0', 'approved', 'true']);
    expect(repo.yaml(taskFile('010')).outputs[0]).toMatchObject({ path: 'src/a.ts', approved: true });
  });
});

describe('output set path', () => {
  it('converts and checks a new path like add does', () => {
    const repo = executing(['Only task']);
    ok(repo, ['task', 'output', 'add', '--id', '010', '--type', 'modified', '--path', 'src/a.ts']);
    const moved = ok(repo, ['task', 'output', 'set', '--id', '010', '--index', '0', 'path', `${repo.dir}/src/b.ts`]);
    expect(moved.stderr).toContain('warning: src/b.ts does not exist yet');
    expect(outputsOf(repo, '010')).toEqual(['modified:src/b.ts']);
    ok(repo, ['task', 'output', 'set', '--id', '010', '--index', '0', 'path', 'lib/../src/c.ts']);
    expect(outputsOf(repo, '010')).toEqual(['modified:src/c.ts']);
    expectFails(repo, ['task', 'output', 'set', '--id', '010', '--index', '0', 'path', '../x'], 1, 'PATH_OUTSIDE_REPOSITORY', { human: true });
    expectFails(repo, ['task', 'output', 'set', '--id', '010', '--index', '0', 'path', '/etc/passwd'], 1, 'PATH_OUTSIDE_REPOSITORY');

    // A document: absolute → relative to .sow/project/; moving an approved artifact to a missing file is refused.
    ok(repo, ['input', 'add', '--type', 'context', '--path', 'ctx/a.md']);
    ok(repo, ['input', 'set', '--index', '0', 'path', `${repo.dir}/.sow/project/ctx/b.md`]);
    expect(repo.yaml(PROJECT).phases.implementation.inputs[0].path).toBe('ctx/b.md');
    repo.write('.sow/project/ctx/b.md', '# b\n');
    ok(repo, ['input', 'set', '--index', '0', 'approved', 'true']);
    expectFails(repo, ['input', 'set', '--index', '0', 'path', 'ctx/missing.md'], 1, 'ARTIFACT_FILE_MISSING');
    expectFails(repo, ['input', 'set', '--index', '0', 'path', '../../../x.md'], 1, 'PATH_OUTSIDE_REPOSITORY');
    expect(repo.yaml(PROJECT).phases.implementation.inputs[0]).toMatchObject({ path: 'ctx/b.md', approved: true });
  });
});
