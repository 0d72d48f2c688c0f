/**
 * Artifact paths in-process: each artifact type's root (documents from .sow/project/, `modified`
 * files from the repository root), `sow log --file` relative to where the user stands and
 * `--path` never, absolute paths inside the repository (also through a symlink) converted,
 * anything outside refused, and approving an artifact whose file is missing refused. Moved from
 * test/e2e/paths.test.ts, which keeps one of each on the command line and the warnings on stderr.
 */
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PROJECT, refused, said, taskFile, TASK_LIST, toExecuting, worlds, type World } from '../../test/inproc.js';
import { addArtifact, setArtifact } from './artifacts.js';
import { appendLog } from './log.js';
import { newProject } from './project.js';
import type { AppContext } from './context.js';

const world = worlds({
  planning: async (w) =>
    void (await newProject(w.ctx(), { name: 'demo', description: 'A demo project', planning: true })),
  executing: (w) => toExecuting(w),
});
const links: string[] = [];
// "… does not exist yet" warnings go to stderr (and are said once per process): the e2e test
// checks them; here they are kept off the test output.
let quiet: { mockRestore(): void } | undefined;
beforeEach(() => void (quiet = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)));
afterEach(() => {
  quiet?.mockRestore();
  for (const dir of links.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const task = (id: string) => ({ kind: 'task', id }) as const;
const phase = { kind: 'phase' } as const;
const outputsOf = (w: World, id: string) =>
  w.yaml(taskFile(id)).outputs.map((o: { type: string; path: string }) => `${o.type}:${o.path}`);
const log = (ctx: AppContext, taskId: string, files: string[]) =>
  appendLog(ctx, {
    agent: 'implementer-1',
    action: 'modified_file',
    result: 'success',
    files,
    task: taskId,
    project: false,
    notes: '',
  });
const modified = (ctx: AppContext, id: string, path: string, approved?: string) =>
  addArtifact(ctx, task(id), 'outputs', {
    type: 'modified',
    path,
    ...(approved !== undefined ? { approved } : {}),
    extra: {},
  });
const OUTSIDE = 'PATH_OUTSIDE_REPOSITORY';
const MISSING = 'ARTIFACT_FILE_MISSING';

describe('modified files are named from the repository root', () => {
  it(
    'log --file and task output add store the same repository path, once; log --file is cwd-relative, ' +
      '--path is not',
    async () => {
      const w = await world('executing');
      w.write('src/auth/jwt.ts', 'export {};\n');
      await log(w.ctx(), '010', ['src/auth/jwt.ts']);
      expect(outputsOf(w, '010')).toEqual(['modified:src/auth/jwt.ts']);
      // Logging the same file again tracks nothing new.
      expect(await log(w.ctx(), '010', ['src/auth/jwt.ts'])).toMatchObject({ files: ['src/auth/jwt.ts'], tracked: [] });
      expect(outputsOf(w, '010')).toEqual(['modified:src/auth/jwt.ts']);
      expect(w.read('.sow/project/phases/implementation/tasks/010/log.md').match(/src\/auth\/jwt\.ts/g)).toHaveLength(
        2,
      );

      await modified(w.ctx(), '020', 'src/auth/jwt.ts');
      expect(outputsOf(w, '020')).toEqual(['modified:src/auth/jwt.ts']);
      // From src/: log names files like git does (relative to where you stand) ...
      await log(w.ctx({}, 'src'), '020', ['auth/jwt.ts', './auth/other.ts']);
      expect(outputsOf(w, '020')).toEqual(['modified:src/auth/jwt.ts', 'modified:src/auth/other.ts']);
      // ... while --path of an artifact is always relative to its type's root.
      await modified(w.ctx({}, 'src'), '020', 'src/x.ts');
      await modified(w.ctx({}, 'src/auth'), '020', './src//y/../z.ts');
      expect(outputsOf(w, '020')).toEqual([
        'modified:src/auth/jwt.ts',
        'modified:src/auth/other.ts',
        'modified:src/x.ts',
        'modified:src/z.ts',
      ]);

      // A file outside the repository is refused, relative or absolute.
      await refused(w, () => log(w.ctx({}, 'src'), '010', ['../../outside.ts']), OUTSIDE, 1);
      await refused(w, () => log(w.ctx(), '010', ['/etc/passwd']), OUTSIDE, 1);
    },
  );
});

describe('absolute and outside paths', () => {
  it('absolute paths inside the repository are converted to the type root; outside ones are refused', async () => {
    const w = await world('planning');
    await addArtifact(w.ctx(), phase, 'outputs', {
      type: 'task_list',
      path: `${w.dir}/.sow/project/planning/tasks.md`,
      extra: {},
    });
    await addArtifact(w.ctx(), phase, 'inputs', { type: 'context', path: `${w.dir}/docs/notes.md`, extra: {} });
    await addArtifact(w.ctx(), phase, 'inputs', { type: 'context', path: '../../docs/rel.md', extra: {} });
    const planning = w.yaml(PROJECT).phases.planning;
    expect(planning.outputs.map((a: { path: string }) => a.path)).toEqual(['planning/tasks.md']);
    expect(planning.inputs.map((a: { path: string }) => a.path)).toEqual(['../../docs/notes.md', '../../docs/rel.md']);

    expect(
      said(
        await refused(
          w,
          () => addArtifact(w.ctx(), phase, 'inputs', { type: 'context', path: '/etc/passwd', extra: {} }),
          OUTSIDE,
          1,
        ),
      ),
    ).toContain("'/etc/passwd'");
    expect(
      said(
        await refused(
          w,
          () => addArtifact(w.ctx(), phase, 'inputs', { type: 'context', path: '../../../x', extra: {} }),
          OUTSIDE,
          1,
        ),
      ),
    ).toContain('.sow/project/');
    await refused(
      w,
      () => addArtifact(w.ctx(), phase, 'outputs', { type: 'task_list', path: `${w.dir}/../x.md`, extra: {} }),
      OUTSIDE,
      1,
    );
  });

  it(
    'modified paths: absolute inside converted, ../ refused; ' + 'a task’s document inputs are rooted at .sow/project/',
    async () => {
      const w = await world('executing');
      await modified(w.ctx(), '010', `${w.dir}/src/a.ts`);
      expect(outputsOf(w, '010')).toEqual(['modified:src/a.ts']);
      expect(said(await refused(w, () => modified(w.ctx(), '010', '../x'), OUTSIDE, 1))).toContain('repository root');
      await refused(w, () => modified(w.ctx(), '010', '/etc/passwd'), OUTSIDE, 1);
      await refused(w, () => modified(w.ctx(), '010', 'src/../../x'), OUTSIDE, 1);
      await addArtifact(w.ctx(), task('010'), 'inputs', {
        type: 'reference',
        path: `${w.dir}/.sow/project/sinks/style.md`,
        extra: {},
      });
      expect(w.yaml(taskFile('010')).inputs[0].path).toBe('sinks/style.md');
    },
  );

  it(
    'an absolute path through a symlink to the repository (macOS /var → /private/var, or a linked checkout) is ' +
      'inside the repository',
    async () => {
      const w = await world('executing');
      const parent = mkdtempSync(join(tmpdir(), 'sow-link-'));
      links.push(parent);
      const alias = join(parent, 'repo');
      symlinkSync(w.dir, alias);
      await modified(w.ctx(), '010', `${alias}/src/a.ts`);
      await log(w.ctx(), '010', [`${alias}/src/b.ts`]);
      expect(outputsOf(w, '010')).toEqual(['modified:src/a.ts', 'modified:src/b.ts']);
    },
  );
});

describe('approving needs the file', () => {
  it('a document: refused until it exists under .sow/project/ (not at the repository root)', async () => {
    const w = await world('planning');
    await addArtifact(w.ctx(), phase, 'outputs', { type: 'task_list', path: 'planning/tasks.md', extra: {} });
    expect(
      said(await refused(w, () => setArtifact(w.ctx(), phase, 'outputs', 0, 'approved', 'true'), MISSING, 1)),
    ).toContain('.sow/project/planning/tasks.md');
    await refused(
      w,
      () =>
        addArtifact(w.ctx(), phase, 'outputs', {
          type: 'task_list',
          path: 'planning/tasks.md',
          approved: 'true',
          extra: {},
        }),
      MISSING,
      1,
    );
    w.write('planning/tasks.md', '# wrong place\n');
    await refused(w, () => setArtifact(w.ctx(), phase, 'outputs', 0, 'approved', 'true'), MISSING, 1);
    w.write(TASK_LIST, '# Tasks\n');
    await setArtifact(w.ctx(), phase, 'outputs', 0, 'approved', 'true');
    await addArtifact(w.ctx(), phase, 'outputs', {
      type: 'task_list',
      path: 'planning/tasks.md',
      approved: 'true',
      extra: {},
    });
    expect(w.yaml(PROJECT).phases.planning.outputs.map((a: { approved: boolean }) => a.approved)).toEqual([true, true]);
  });

  it('a modified file: refused until it exists at the repository root (not under .sow/project/)', async () => {
    const w = await world('executing');
    await modified(w.ctx(), '010', 'src/a.ts');
    const approve = () => setArtifact(w.ctx(), task('010'), 'outputs', 0, 'approved', 'true');
    expect(said(await refused(w, approve, MISSING, 1))).toContain("'src/a.ts'");
    await refused(w, () => modified(w.ctx(), '010', 'src/a.ts', 'true'), MISSING, 1);
    w.write('.sow/project/src/a.ts', 'wrong place\n');
    await refused(w, approve, MISSING, 1);
    w.write('src/a.ts', 'export {};\n');
    await approve();
    expect(w.yaml(taskFile('010')).outputs[0]).toMatchObject({ path: 'src/a.ts', approved: true });
  });
});

describe('output set path', () => {
  it('converts and checks a new path like add does', async () => {
    const w = await world('executing');
    const out = (value: string) => setArtifact(w.ctx(), task('010'), 'outputs', 0, 'path', value);
    await modified(w.ctx(), '010', 'src/a.ts');
    await out(`${w.dir}/src/b.ts`);
    expect(outputsOf(w, '010')).toEqual(['modified:src/b.ts']);
    await out('lib/../src/c.ts');
    expect(outputsOf(w, '010')).toEqual(['modified:src/c.ts']);
    await refused(w, () => out('../x'), OUTSIDE, 1);
    await refused(w, () => out('/etc/passwd'), OUTSIDE, 1);

    // A document: absolute → relative to .sow/project/; moving an approved artifact to a missing file is refused.
    const input = (field: string, value: string) => setArtifact(w.ctx(), phase, 'inputs', 0, field, value);
    await addArtifact(w.ctx(), phase, 'inputs', { type: 'context', path: 'ctx/a.md', extra: {} });
    await input('path', `${w.dir}/.sow/project/ctx/b.md`);
    expect(w.yaml(PROJECT).phases.implementation.inputs[0].path).toBe('ctx/b.md');
    w.write('.sow/project/ctx/b.md', '# b\n');
    await input('approved', 'true');
    await refused(w, () => input('path', 'ctx/missing.md'), MISSING, 1);
    await refused(w, () => input('path', '../../../x.md'), OUTSIDE, 1);
    expect(w.yaml(PROJECT).phases.implementation.inputs[0]).toMatchObject({ path: 'ctx/b.md', approved: true });
  });
});
