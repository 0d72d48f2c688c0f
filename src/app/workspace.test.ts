/**
 * The workspace in-process: finding and opening it (and every layout it refuses), the project
 * file and what stands in for a missing one, the problems of the task files doctor lists, the
 * branch a project belongs to, what a journal may write, and the lock.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeJournal, type JournalStep } from '../../test/e2e/harness.js';
import { PROJECT, refused, said, taskFile, toExecuting, worlds, type World } from '../../test/inproc.js';
import { advanceProject } from './advance.js';
import { addArtifact, setArtifact } from './artifacts.js';
import { appendLog } from './log.js';
import { setPhaseField } from './phase.js';
import { setProjectField } from './project.js';
import { continueProject, projectStatus } from './status.js';
import { addTask, listTasks } from './task.js';
import { abandonTask, setTaskField } from './task-change.js';
import { branchProblem, checkJournalText, loadProject, projectLeftovers, taskFileProblems } from './project-files.js';
import { lockPath, withRootLock } from './unit-of-work.js';
import { openRoot, update, withWorkspaceLock } from './workspace.js';

const world = worlds({ executing: (w) => toExecuting(w, ['First task', 'Second task']) });
const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

const project = async (w: World) => (await loadProject(w.dir)).file.data;

describe('opening the workspace', () => {
  it(
    'from the root or a subfolder; outside a repository, without sow, and with a layout it cannot read it refuses, ' +
      'changing nothing',
    async () => {
      const w = await world('init');
      w.write('src/deep/.keep', '');
      expect(await openRoot(w.ctx({}, 'src/deep'))).toBe(w.dir);
      const plain = mkdtempSync(join(tmpdir(), 'sow-inproc-ws-'));
      temps.push(plain);
      await refused(w, () => openRoot({ ...w.ctx(), cwd: plain }), 'NOT_A_GIT_REPOSITORY', 1);
      const bare = await world('bare');
      await refused(bare, () => openRoot(bare.ctx()), 'NOT_INITIALIZED', 1);
      for (const [version, code] of [
        ['1\n', 'MIGRATION_NEEDED'],
        ['3\n', 'SOW_TOO_OLD'],
        ['v2\n', 'STATE_FILE_INVALID'],
      ] as const) {
        const v = await world('init');
        v.write('.sow/.version', version);
        await refused(v, () => openRoot(v.ctx()), code, 4);
        await refused(v, () => withWorkspaceLock(v.ctx(), async () => undefined), code, 4);
        await refused(v, () => update(v.ctx(), async () => undefined), code, 4);
      }
    },
  );

  it(
    'finishes a write a crashed command left after its commit point; a journal naming what sow would not write ' +
      'is refused',
    async () => {
      const w = await world('executing');
      const text = w.read(PROJECT).replace('description: A demo project', 'description: Finished by the journal');
      writeJournal({ dir: w.dir } as never, [{ to: PROJECT, text }]);
      expect(await openRoot(w.ctx())).toBe(w.dir);
      expect(w.read(PROJECT)).toBe(text);
      expect(w.exists('.git/sow/journal.json')).toBe(false);

      const bad = await world('executing');
      writeJournal({ dir: bad.dir } as never, [{ to: PROJECT, text: 'name: [\n' }]);
      expect((await refused(bad, () => openRoot(bad.ctx()), 'JOURNAL_REFUSED', 4)).message).toContain(
        'nothing of it was applied',
      );
    },
  );
});

describe('the project file', () => {
  it(
    'loaded with its type; none: NO_PROJECT naming the branches that have one; files without it: ' +
      'PROJECT_FILE_MISSING',
    async () => {
      const w = await world('executing');
      expect((await loadProject(w.dir)).type.name).toBe('standard');
      expect(projectLeftovers(w.dir)).toEqual([]);
      w.git(['add', '-A']);
      w.git(['commit', '-qm', 'project']);
      w.git(['checkout', '-q', 'main']);
      const none = await refused(w, () => loadProject(w.dir), 'NO_PROJECT', 1);
      expect(said(none)).toContain('feat/demo');
      w.write('.sow/project/notes.md', 'left\n');
      expect(projectLeftovers(w.dir)).toEqual(['notes.md']);
      const left = await refused(w, () => loadProject(w.dir), 'PROJECT_FILE_MISSING', 4);
      expect(left.hint).toContain(`git checkout -- ${PROJECT}`);
    },
  );

  it('an unknown type, or a state its type does not have: STATE_FILE_INVALID naming the field', async () => {
    const w = await world('executing');
    w.write(PROJECT, w.read(PROJECT).replace('type: standard', 'type: nosuch'));
    expect((await refused(w, () => loadProject(w.dir), 'STATE_FILE_INVALID', 4)).message).toContain(
      "unknown project type 'nosuch'",
    );
    const s = await world('executing');
    s.write(PROJECT, s.read(PROJECT).replace('current_state: ImplementationExecuting', 'current_state: Nowhere'));
    expect((await refused(s, () => loadProject(s.dir), 'STATE_FILE_INVALID', 4)).message).toContain(
      `${PROJECT}: statechart.current_state`,
    );
  });
});

describe('task file problems (doctor)', () => {
  it(
    'none in a sound project; each problem named: a folder that is not a task, a folder without a state file, a ' +
      'file of another task, a stray tasks folder',
    async () => {
      const w = await world('executing');
      const { type } = await loadProject(w.dir);
      expect(await taskFileProblems(w.dir, type)).toEqual([]);
      mkdirSync(join(w.dir, '.sow/project/phases/implementation/tasks/notes'));
      mkdirSync(join(w.dir, '.sow/project/phases/implementation/tasks/030'));
      w.write(taskFile('020'), w.read(taskFile('020')).replace('id: "020"', 'id: "010"'));
      mkdirSync(join(w.dir, '.sow/project/phases/review/tasks/010'), { recursive: true });
      const problems = (await taskFileProblems(w.dir, type)).map((p) => p.message);
      expect(problems).toEqual([
        ".sow/project/phases/implementation/tasks/020/state.yaml: id: says id '010', but it is the file of task 020 " +
          '(its folder)',
        '.sow/project/phases/implementation/tasks/030/state.yaml: is missing: the task folder has no state file',
        '.sow/project/phases/implementation/tasks/notes: is not a task folder: task folders are named by task id ' +
          '(010, 020, …, 1000)',
        expect.stringContaining(
          '.sow/project/phases/review/tasks: holds 1 folder(s) (010), but the tasks of a standard project live in ' +
            '.sow/project/phases/implementation/tasks',
        ),
      ]);
    },
  );

  it('a dependency on a task that is not there: TASK_FOLDER_MISSING, with both ways out', async () => {
    const w = await world('executing');
    const { type } = await loadProject(w.dir);
    w.write(taskFile('020'), w.read(taskFile('020')).replace('dependencies: []', 'dependencies:\n  - "070"'));
    const [problem] = await taskFileProblems(w.dir, type);
    expect(problem).toMatchObject({
      code: 'TASK_FOLDER_MISSING',
      message:
        'task 070 is missing: its folder .sow/project/phases/implementation/tasks/070 does not exist, and task 020 ' +
        'depends on it',
    });
    expect(problem!.hint).toContain(
      'remove 070 from the dependencies in .sow/project/phases/implementation/tasks/020/state.yaml',
    );
  });
});

describe('the branch of a project', () => {
  // Moved from test/e2e/branch-ownership.test.ts, which keeps two of these writes through the
  // command line, and the reads that warn.
  it(
    'a project carried to another branch uncommitted: every write is refused with WRONG_BRANCH and the way back, ' +
      'changing nothing',
    async () => {
      const w = await world('executing');
      for (const id of ['010', '020']) {
        await setTaskField(w.ctx(), id, 'status', 'in_progress');
        await setTaskField(w.ctx(), id, 'status', 'completed');
      }
      expect(w.git(['status', '--porcelain'])).toBe('?? .sow/');
      w.git(['checkout', '-q', 'main']);
      const log = (task?: string) => ({
        agent: task ? 'implementer-1' : 'orchestrator',
        action: task ? 'test_run' : 'research',
        result: 'success',
        files: [],
        project: !task,
        notes: 'a note',
        ...(task ? { task } : {}),
      });
      const writes: [string, () => Promise<unknown>][] = [
        ['task add', () => addTask(w.ctx(), { name: 'Another' })],
        ['phase set', () => setPhaseField(w.ctx(), 'metadata.a', 'b')],
        [
          'input add',
          () => addArtifact(w.ctx(), { kind: 'phase' }, 'inputs', { type: 'context', path: 'notes.md', extra: {} }),
        ],
        [
          'output add',
          () =>
            addArtifact(w.ctx(), { kind: 'phase' }, 'outputs', {
              type: 'task_list',
              path: 'planning/more.md',
              extra: {},
            }),
        ],
        ['advance', () => advanceProject(w.ctx(), undefined, false)],
        ['project set', () => setProjectField(w.ctx(), 'description', 'x')],
        ['log --project', () => appendLog(w.ctx(), log())],
        ['task set', () => setTaskField(w.ctx(), '010', 'name', 'Renamed')],
        ['task abandon', () => abandonTask(w.ctx(), '020')],
        [
          'task output add',
          () =>
            addArtifact(w.ctx(), { kind: 'task', id: '010' }, 'outputs', {
              type: 'modified',
              path: 'src/a.ts',
              extra: {},
            }),
        ],
        [
          'output set --phase planning',
          () => setArtifact(w.ctx(), { kind: 'phase', phase: 'planning' }, 'outputs', 0, 'approved', 'false'),
        ],
        ['log --task', () => appendLog(w.ctx(), log('010'))],
      ];
      for (const [what, run] of writes) {
        const e = await refused(w, run, 'WRONG_BRANCH', 1);
        expect(e.message, what).toBe("this project belongs to 'feat/demo', but 'main' is checked out");
        expect(e.hint, what).toContain('git checkout feat/demo');
      }
      expect(w.yaml(taskFile('010')).name).toBe('First task');
      // Back on its branch, writes work again.
      w.git(['checkout', '-q', 'feat/demo']);
      expect((await addTask(w.ctx(), { name: 'Back home' })).id).toBe('030');
    },
  );

  it(
    'none when its branch is checked out; another branch, ' + 'a detached HEAD, or a branch gone: why, and what to run',
    async () => {
      const w = await world('executing');
      const p = await project(w);
      expect(branchProblem(w.dir, p)).toBeUndefined();
      w.git(['checkout', '-q', '-b', 'other']);
      const other = branchProblem(w.dir, p)!;
      expect({ code: other.code, message: other.message, hint: other.hint, details: other.details }).toEqual({
        code: 'WRONG_BRANCH',
        message: "this project belongs to 'feat/demo', but 'other' is checked out",
        hint:
          "run 'git checkout feat/demo'; or, to carry the project on in 'other', run 'sow project set " +
          "branch other'",
        details: { project_branch: 'feat/demo', current_branch: 'other' },
      });
      w.git(['branch', '-D', 'feat/demo']);
      expect(branchProblem(w.dir, p)?.message).toBe(
        "this project belongs to 'feat/demo', which no longer exists, and 'other' is checked out",
      );
      w.git(['checkout', '-q', '--detach']);
      expect(branchProblem(w.dir, p)).toMatchObject({
        message: expect.stringMatching(/^HEAD is detached at [0-9a-f]{7}, and this project belongs to 'feat\/demo'$/),
        hint: "run 'git checkout feat/demo'",
        details: { current_branch: null },
      });
      // A write refuses on the wrong branch (WRONG_BRANCH), leaving the state as it was.
      await refused(w, () => update(w.ctx(), async () => undefined), 'WRONG_BRANCH', 1);
    },
  );
});

// Moved from test/e2e/faults.test.ts (which keeps one hostile journal and the one 0.1.0 left,
// through the command line): every use case, a read, a write, the status and a dry run, meets
// the journal first.
describe('a journal is runtime data, never trusted input: every use case refuses a hostile one', () => {
  const JOURNAL = '.git/sow/journal.json';
  /** A project executing two tasks beside a folder outside it that a hostile journal aims at. */
  async function target(): Promise<{ w: World; outside: string }> {
    const w = await world('executing');
    const outside = mkdtempSync(join(tmpdir(), 'sow-inproc-outside-'));
    temps.push(outside);
    writeFileSync(join(outside, 'precious.txt'), 'keep me\n');
    return { w, outside };
  }
  const journal = (w: World, steps: JournalStep[], opts?: Parameters<typeof writeJournal>[2]) =>
    writeJournal({ dir: w.dir } as never, steps, opts);

  /**
   * A read, a write, the status and a dry run each refuse the journal (exit 4), applying nothing of it and leaving
   * it for the user to look at.
   */
  async function refusedEverywhere(w: World, outside: string, problem: RegExp): Promise<void> {
    const text = w.read(JOURNAL);
    const uses: [string, () => Promise<unknown>][] = [
      ['task list', () => listTasks(w.ctx())],
      ['task set', () => setTaskField(w.ctx(), '010', 'metadata.x', '1')],
      ['project status', () => projectStatus(w.ctx())],
      ['advance --dry-run', () => advanceProject(w.ctx(), undefined, true)],
    ];
    for (const [what, run] of uses) {
      const said_ = said(await refused(w, run, 'JOURNAL_REFUSED', 4));
      expect(said_, what).toContain('.git/sow/journal.json');
      expect(said_, what).toMatch(problem);
      expect(said_, what).toContain('nothing of it was applied');
      expect(w.read(JOURNAL), `${what}: the journal is left for the user to look at`).toBe(text);
    }
    expect(readdirSync(outside).sort(), 'nothing written or removed outside the repository').toEqual(['precious.txt']);
    expect(readFileSync(join(outside, 'precious.txt'), 'utf8')).toBe('keep me\n');
    expect(existsSync(join(w.dir, '..', 'pwned.txt'))).toBe(false);
  }

  it(
    'a journal whose targets lie outside .sow/ — by ../, ' + 'by an absolute path, through a symlink — is refused',
    async () => {
      const { w, outside } = await target();
      const text = 'pwned\n';
      const name = outside.split('/').pop();
      for (const to of [
        `../${name}/pwned.txt`,
        `.sow/../../${name}/pwned.txt`,
        `${outside}/pwned.txt`,
        'README.md',
        '.git/sow/lock',
      ]) {
        journal(w, [
          { to, text },
          { to: '.sow/project/notes.md', text },
        ]);
        await refusedEverywhere(w, outside, /target sow does not write through a journal/);
        expect(w.exists('README.md')).toBe(false);
      }
      // A link inside .sow/ that leads out of it: the path looks inside, the file would not be.
      symlinkSync(outside, join(w.dir, '.sow/project/elsewhere'));
      journal(w, [
        { to: '.sow/project/elsewhere/pwned.txt', text },
        { to: '.sow/project/notes.md', text },
      ]);
      await refusedEverywhere(w, outside, /target sow does not write through a journal/);
    },
  );

  it('a journal that removes a tree outside .sow/, or reads from outside its temp folder, is refused', async () => {
    const { w, outside } = await target();
    for (const removal of [
      outside,
      `../${outside.split('/').pop()}`,
      '.sow',
      '.git',
      '.sow/knowledge',
      '.sow/worktrees/feat/x',
      '.sow/.backup',
      '.sow/refs',
      '.sow/project/phases',
    ]) {
      journal(w, [{ to: '.sow/project/notes.md', text: 'x\n' }], { removals: [removal] });
      await refusedEverywhere(w, outside, /names a removal sow never journals/);
    }
    expect(existsSync(join(w.dir, '.git'))).toBe(true);
    // Renames whose source is not a temp file sow made: a state file moved away, a file outside.
    for (const from of [PROJECT, join(outside, 'precious.txt'), '.git/sow/tmp/../../project/state.yaml']) {
      journal(
        w,
        [
          { to: '.sow/project/notes.md', text: 'x\n' },
          { to: '.sow/project/more.md', text: 'y\n' },
        ],
        { edit: (body) => (body.renames[0].from = from) },
      );
      await refusedEverywhere(w, outside, /source outside sow's temp folder/);
    }
  });

  it(
    'a journal that is not whole (its checksum), not of this format, or would write an invalid state file is ' +
      'refused; removed, sow works again',
    async () => {
      const { w, outside } = await target();
      const project = w.read(PROJECT);
      journal(
        w,
        [
          { to: PROJECT, text: project.replace('A demo project', 'Changed') },
          { to: '.sow/project/notes.md', text: 'x\n' },
        ],
        { tamper: (body) => body.renames.reverse() },
      );
      await refusedEverywhere(w, outside, /checksum/);
      journal(w, [
        { to: PROJECT, text: 'name: [unclosed\n' },
        { to: '.sow/project/notes.md', text: 'x\n' },
      ]);
      await refusedEverywhere(w, outside, /would write \.sow\/project\/state\.yaml, which would not be valid/);
      // A task file that says it is another task: what sow writes always agrees with its folder.
      journal(w, [
        { to: taskFile('010'), text: w.read(taskFile('020')) },
        { to: '.sow/project/notes.md', text: 'x\n' },
      ]);
      await refusedEverywhere(w, outside, /would write .*010\/state\.yaml, which would not be valid/);
      w.write(JOURNAL, JSON.stringify({ version: 1, writes: [{ path: '../pwned.txt', text: 'x' }], removals: [] }));
      await refusedEverywhere(w, outside, /not a journal of this sow/);
      w.write(JOURNAL, '{"version": 2, "renames": [');
      await refusedEverywhere(w, outside, /not valid JSON/);
      // Once the user removes it, sow works again, and nothing of it was applied.
      rmSync(join(w.dir, JOURNAL));
      expect(w.read(PROJECT)).toBe(project);
      await setTaskField(w.ctx(), '010', 'metadata.after', '1');
      expect(w.exists('.sow/project/notes.md')).toBe(false);
    },
  );
});

// Moved from test/e2e/hostile-paths.test.ts, which keeps .sow/.runtime itself linked out, and
// .git/sow/tmp linked to the repository's own source, in a clone.
describe('runtime folders that are links are refused, never emptied', () => {
  for (const rel of ['.git/sow/tmp', '.git/sow/trash']) {
    it(
      `${rel} -> a folder outside: every read and a write refuse it (exit 4, ` + `naming the link) and empty nothing`,
      async () => {
        const w = await world('executing');
        const outside = mkdtempSync(join(tmpdir(), 'sow-inproc-sentinel-'));
        temps.push(outside);
        writeFileSync(join(outside, 'precious.txt'), 'keep me\n');
        mkdirSync(join(outside, 'folder'));
        writeFileSync(join(outside, 'folder', 'inner.txt'), 'me too\n');
        rmSync(join(w.dir, rel), { recursive: true, force: true });
        mkdirSync(join(w.dir, '.git/sow'), { recursive: true });
        symlinkSync(outside, join(w.dir, rel));
        const pattern = new RegExp(`${rel.replaceAll('.', '\\.')} is a link \\(to '${outside}'\\)`);
        for (const [what, run] of [
          ['status', () => projectStatus(w.ctx())],
          ['project continue', () => continueProject(w.ctx())],
          ['task list', () => listTasks(w.ctx())],
          ['task set', () => setTaskField(w.ctx(), '010', 'status', 'in_progress')],
        ] as [string, () => Promise<unknown>][]) {
          expect(said(await refused(w, run, 'RUNTIME_FOLDER_INVALID', 4)), what).toMatch(pattern);
        }
        expect(readdirSync(outside).sort()).toEqual(['folder', 'precious.txt']);
        expect(readFileSync(join(outside, 'precious.txt'), 'utf8')).toBe('keep me\n');
        expect(readFileSync(join(outside, 'folder', 'inner.txt'), 'utf8')).toBe('me too\n');
      },
    );
  }
});

describe('what a journal may write', () => {
  it(
    'a project or task file sow would write, a layout number, any other text; not a broken state file, another ' +
      'task’s file, or a version that is not a number',
    async () => {
      const w = await world('executing');
      await checkJournalText(PROJECT, w.read(PROJECT));
      await checkJournalText(taskFile('010'), w.read(taskFile('010')));
      await checkJournalText('.sow/.version', '2\n');
      await checkJournalText('.sow/project/notes.md', 'anything: [\n');
      for (const [rel, text] of [
        [PROJECT, 'name: [\n'],
        [PROJECT, w.read(PROJECT).replace('type: standard', 'type: nosuch')],
        [taskFile('020'), w.read(taskFile('010'))],
        ['.sow/.version', 'two\n'],
      ] as const)
        await expect(checkJournalText(rel, text), rel).rejects.toMatchObject({ code: 'STATE_FILE_INVALID' });
    },
  );
});

describe('the lock', () => {
  it('held while the function runs (its folder made first), released after, also when it throws', async () => {
    const w = await world('init');
    rmSync(join(w.dir, '.git/sow'), { recursive: true, force: true });
    const seen: string[] = [];
    await withRootLock(w.dir, () => void seen.push(existsSync(lockPath(w.dir)) ? 'held' : 'free'));
    expect(seen).toEqual(['held']);
    expect(existsSync(lockPath(w.dir))).toBe(false);
    await expect(withRootLock(w.dir, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(existsSync(lockPath(w.dir))).toBe(false);

    expect(
      await withWorkspaceLock(w.ctx(), (root) =>
        Promise.resolve(`${root}: ${existsSync(lockPath(root)) ? 'held' : 'free'}`),
      ),
    ).toBe(`${w.dir}: held`);
    expect(existsSync(lockPath(w.dir))).toBe(false);
  });
});
