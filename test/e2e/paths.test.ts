/**
 * Artifact paths on the command line: `sow log --file` names files from where the user stands
 * (the process's working folder) and `--path` from the artifact type's root, an absolute path
 * inside the repository is converted, a path outside it is refused (exit 1, in text and --json),
 * a file that does not exist yet is a warning on stderr (stdout keeps one JSON document), and
 * approving a missing file is refused. Every root, every outside path, paths through a symlink,
 * `set path` and where a missing file is looked for: in-process (src/app/paths.test.ts).
 */
import { describe, expect, it } from 'vitest';
import {
  useRepos,
  ok,
  expectEnvelope,
  expectFails,
  inPlanning,
  PROJECT,
  TASK_LIST,
  taskFile,
  toExecuting,
  type Repo,
} from './harness.js';

const fresh = useRepos();
const planning = () => inPlanning(fresh);

function executing(): Repo {
  const repo = fresh();
  toExecuting(repo);
  return repo;
}

const outputsOf = (repo: Repo, id: string) =>
  repo.yaml(taskFile(id)).outputs.map((o: { type: string; path: string }) => `${o.type}:${o.path}`);

const LOG = ['log', '--agent', 'implementer-1', '--action', 'modified_file', '--result', 'success'];

describe('modified files are named from the repository root', () => {
  it(
    'log --file is relative to where you stand, --path is not; a file outside is refused; a missing file is a ' +
      'warning, and approving it is refused',
    () => {
      const repo = executing();
      repo.write('src/auth/jwt.ts', 'export {};\n');
      // From src/: log names files like git does (relative to where you stand) ...
      ok(repo, [...LOG, '--task', '010', '--file', 'auth/jwt.ts'], { cwd: 'src' });
      expect(outputsOf(repo, '010')).toEqual(['modified:src/auth/jwt.ts']);
      // Logging the same file again tracks nothing new.
      const again = ok(repo, [...LOG, '--task', '010', '--file', 'src/auth/jwt.ts', '--json']);
      expect(expectEnvelope(again).data).toMatchObject({ files: ['src/auth/jwt.ts'], tracked: [] });
      // ... while --path of an artifact is always relative to its type's root.
      const added = ok(repo, ['task', 'output', 'add', '--id', '020', '--type', 'modified', '--path', 'src/a.ts'], {
        cwd: 'src',
      });
      expect(added.stderr).toContain('warning: src/a.ts does not exist yet; ');
      expect(outputsOf(repo, '020')).toEqual(['modified:src/a.ts']);
      expectFails(repo, [...LOG, '--task', '010', '--file', '../../outside.ts'], 1, 'PATH_OUTSIDE_REPOSITORY', {
        cwd: 'src',
      });
      const up = expectFails(
        repo,
        ['task', 'output', 'add', '--id', '010', '--type', 'modified', '--path', '../x'],
        1,
        'PATH_OUTSIDE_REPOSITORY',
        { human: true },
      );
      expect(up).toContain('repository root');
      expect(
        expectFails(
          repo,
          ['task', 'output', 'set', '--id', '020', '--index', '0', 'approved', 'true'],
          1,
          'ARTIFACT_FILE_MISSING',
        ),
      ).toContain("'src/a.ts'");
      // set path converts like add, and warns alike.
      const moved = ok(repo, ['task', 'output', 'set', '--id', '020', '--index', '0', 'path', `${repo.dir}/src/b.ts`]);
      expect(moved.stderr).toContain('warning: src/b.ts does not exist yet');
      expect(outputsOf(repo, '020')).toEqual(['modified:src/b.ts']);
    },
  );
});

describe('documents are named from .sow/project/', () => {
  it('absolute paths inside the repository are converted; outside ones are refused', () => {
    const repo = planning();
    ok(repo, ['input', 'add', '--type', 'context', '--path', `${repo.dir}/docs/notes.md`]);
    expect(repo.yaml(PROJECT).phases.planning.inputs.map((a: { path: string }) => a.path)).toEqual([
      '../../docs/notes.md',
    ]);
    const etc = expectFails(
      repo,
      ['input', 'add', '--type', 'context', '--path', '/etc/passwd'],
      1,
      'PATH_OUTSIDE_REPOSITORY',
      { human: true },
    );
    expect(etc).toContain("'/etc/passwd'");
  });

  it(
    'adding a missing file warns on stderr (one JSON document on stdout with --json); approving is refused until ' +
      'the file exists',
    () => {
      const repo = planning();
      const added = ok(repo, ['output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md']);
      expect(added.stdout).toBe('[0] task_list: planning/tasks.md (not approved)\n');
      expect(added.stderr).toContain('warning: .sow/project/planning/tasks.md does not exist yet; ');
      const json = ok(repo, ['input', 'add', '--type', 'context', '--path', 'notes/a.md', '--json']);
      expect(expectEnvelope(json)).toMatchObject({
        ok: true,
        data: { index: 0, artifact: { type: 'context', path: 'notes/a.md' } },
      });
      expect(json.stderr).toContain('warning: .sow/project/notes/a.md does not exist yet; ');

      const missing = expectFails(
        repo,
        ['output', 'set', '--index', '0', 'approved', 'true'],
        1,
        'ARTIFACT_FILE_MISSING',
        { human: true },
      );
      expect(missing).toContain('.sow/project/planning/tasks.md');
      repo.write(TASK_LIST, '# Tasks\n');
      const approved = ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
      expect(approved.stderr).not.toContain('warning');
      expect(repo.yaml(PROJECT).phases.planning.outputs[0].approved).toBe(true);
    },
  );
});
