/**
 * What sow accepts as state, in-process: a project file whose state, type or phases are not those
 * of its lifecycle, and task files that disagree with their folder or with each other, are refused
 * (exit 4, naming the file and the field in the message and the details) by every use case that
 * reads them, changing nothing; so are state files that are not YAML or break the schema. Moved
 * from test/e2e/integrity.test.ts and test/e2e/robustness.test.ts, which keep one command of each
 * on the command line (stderr, --json, exit 4) and the YAML syntax errors.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { describe, expect, it } from 'vitest';
import { PROJECT, refused, taskFile, toExecuting, worlds, type World } from '../../test/inproc.js';
import { advanceProject, listAdvanceOptions } from './advance.js';
import { addArtifact } from './artifacts.js';
import { appendLog } from './log.js';
import { setPhaseField } from './phase.js';
import { newProject, setProjectField } from './project.js';
import { continueProject, projectStatus } from './status.js';
import { addTask, getTask, listTasks } from './task.js';
import { abandonTask, setTaskField } from './task-change.js';

const TASKS_DIR = '.sow/project/phases/implementation/tasks';

const world = worlds({
  planning: async (w) =>
    void (await newProject(w.ctx(), { name: 'demo', description: 'A demo project', planning: true })),
  executing: (w) => toExecuting(w),
});

function editYaml(w: World, rel: string, edit: (doc: ReturnType<typeof parseDocument>) => void): void {
  const doc = parseDocument(w.read(rel));
  edit(doc);
  writeFileSync(join(w.dir, rel), doc.toString());
}

/** Runs `fn` with the files `rels` edited, then puts them back as they were. */
async function withEdited(w: World, rels: string[], fn: () => Promise<void>): Promise<void> {
  const saved = rels.map((rel) => [rel, w.read(rel)] as const);
  try {
    await fn();
  } finally {
    for (const [rel, text] of saved) writeFileSync(join(w.dir, rel), text);
  }
}

type Use = [string, () => Promise<unknown>];

/**
 * Every use case refuses with STATE_FILE_INVALID (exit 4) naming `file` and `field`, changing nothing; their
 * messages.
 */
async function refusedBy(w: World, uses: Use[], file: string, field: string | undefined): Promise<string[]> {
  const messages: string[] = [];
  for (const [what, run] of uses) {
    const e = await refused(w, run, 'STATE_FILE_INVALID', 4);
    expect(e.message, what).toContain(file);
    expect(e.details?.['file'], what).toBe(file);
    if (field) {
      expect(e.message, what).toContain(`${field}:`);
      expect(e.details?.['field'], what).toBe(field);
    }
    messages.push(e.message);
  }
  expect(w.exists('.git/sow/lock'), 'lock released').toBe(false);
  return messages;
}

describe('a project file that is not a project of its lifecycle', () => {
  it('an unknown current_state is refused by every use case, naming the field and the valid states', async () => {
    const w = await world('planning');
    editYaml(w, PROJECT, (doc) => doc.setIn(['statechart', 'current_state'], 'Bogus'));
    const messages = await refusedBy(
      w,
      [
        ['project status', () => projectStatus(w.ctx())],
        ['project continue', () => continueProject(w.ctx())],
        ['task list', () => listTasks(w.ctx())],
        ['advance', () => advanceProject(w.ctx(), undefined, false)],
        ['advance --list', () => listAdvanceOptions(w.ctx())],
        ['task add', () => addTask(w.ctx(), { name: 'X' })],
      ],
      PROJECT,
      'statechart.current_state',
    );
    for (const m of messages) {
      expect(m).toContain("'Bogus'");
      for (const state of ['PlanningActive', 'ImplementationPlanning', 'ImplementationExecuting', 'ReviewActive'])
        expect(m).toContain(state);
    }
  });

  it(
    'a final state (NoProject), and names of JavaScript object members, ' + 'are no states a project file can be in',
    async () => {
      const w = await world('planning');
      for (const state of ['NoProject', 'constructor', 'toString']) {
        await withEdited(w, [PROJECT], async () => {
          editYaml(w, PROJECT, (doc) => doc.setIn(['statechart', 'current_state'], state));
          const [m] = await refusedBy(
            w,
            [
              ['project status', () => projectStatus(w.ctx())],
              ['advance', () => advanceProject(w.ctx(), undefined, false)],
              ['phase set', () => setPhaseField(w.ctx(), 'metadata.a', 'b')],
              ['project set', () => setProjectField(w.ctx(), 'description', 'x')],
            ],
            PROJECT,
            'statechart.current_state',
          );
          expect(m).toContain(`'${state}'`);
          expect(m).toContain('PlanningActive');
        });
      }
    },
  );

  it(
    'an unknown project type (names of JavaScript object members too), a missing phase and an extra phase ' +
      'are refused',
    async () => {
      const w = await world('planning');
      for (const type of ['galaxy', '__proto__', 'toString']) {
        await withEdited(w, [PROJECT], async () => {
          editYaml(w, PROJECT, (doc) => doc.set('type', type));
          const [m] = await refusedBy(
            w,
            [
              ['project status', () => projectStatus(w.ctx())],
              ['task list', () => listTasks(w.ctx())],
              ['advance', () => advanceProject(w.ctx(), undefined, false)],
              ['project set', () => setProjectField(w.ctx(), 'description', 'x')],
            ],
            PROJECT,
            'type',
          );
          if (type === 'galaxy') expect(m).toContain('galaxy');
        });
      }
      await withEdited(w, [PROJECT], async () => {
        editYaml(w, PROJECT, (doc) => doc.deleteIn(['phases', 'review']));
        await refusedBy(
          w,
          [
            ['project status', () => projectStatus(w.ctx())],
            ['phase set', () => setPhaseField(w.ctx(), 'metadata.a', 'b')],
            ['advance --list', () => listAdvanceOptions(w.ctx())],
          ],
          PROJECT,
          'phases.review',
        );
      });
      await withEdited(w, [PROJECT], async () => {
        editYaml(w, PROJECT, (doc) => doc.setIn(['phases', 'testing'], doc.getIn(['phases', 'review'])));
        await refusedBy(
          w,
          [
            ['project status', () => projectStatus(w.ctx())],
            ['phase set', () => setPhaseField(w.ctx(), 'metadata.a', 'b')],
          ],
          PROJECT,
          'phases.testing',
        );
      });
      // Restored, it loads again.
      expect(await projectStatus(w.ctx())).toMatchObject({ state: 'PlanningActive' });
    },
  );
});

describe('task files that disagree with their folder or with each other', () => {
  it('are refused, naming the file and field (the task index is no excuse)', async () => {
    const w = await world('executing');
    // The stat-checked index has seen both tasks; hand edits must still be noticed.
    await listTasks(w.ctx());

    // The file of task 010 says it is 020. (Same size as before: only the content tells.)
    await withEdited(w, [taskFile('010')], async () => {
      editYaml(w, taskFile('010'), (doc) => doc.set('id', '020'));
      await refusedBy(
        w,
        [
          ['task list', () => listTasks(w.ctx())],
          ['task get', () => getTask(w.ctx(), '010')],
          ['task set', () => setTaskField(w.ctx(), '010', 'name', 'x')],
        ],
        taskFile('010'),
        'id',
      );
    });

    // Folders not named by an id.
    for (const name of ['10', 'notes']) {
      const dir = join(w.dir, TASKS_DIR, name);
      mkdirSync(dir);
      writeFileSync(join(dir, 'state.yaml'), w.read(taskFile('010')));
      try {
        await refusedBy(w, [['task list', () => listTasks(w.ctx())]], `${TASKS_DIR}/${name}`, undefined);
      } finally {
        rmSync(dir, { recursive: true });
      }
    }

    // A dependency on a task that does not exist: the missing task's folder is named first, then
    // the file that depends on it (either may be what is wrong).
    await withEdited(w, [taskFile('020')], async () => {
      editYaml(w, taskFile('020'), (doc) => doc.set('dependencies', ['999']));
      for (const [what, run] of [
        ['task list', () => listTasks(w.ctx())],
        ['advance --list', () => listAdvanceOptions(w.ctx())],
      ] as Use[]) {
        const e = await refused(w, run, 'TASK_FOLDER_MISSING', 4);
        expect(e.details, what).toMatchObject({
          folder: `${TASKS_DIR}/999`,
          needed_by: '020',
          file: taskFile('020'),
          field: 'dependencies.0',
        });
        expect(e.message, what).toBe(
          `task 999 is missing: its folder ${TASKS_DIR}/999 does not exist, and task 020 depends on it`,
        );
        expect(e.hint, what).toContain(`remove 999 from the dependencies in ${taskFile('020')}`);
      }
    });

    // A cycle.
    await withEdited(w, [taskFile('010'), taskFile('020')], async () => {
      editYaml(w, taskFile('010'), (doc) => doc.set('dependencies', ['020']));
      editYaml(w, taskFile('020'), (doc) => doc.set('dependencies', ['010']));
      const [m] = await refusedBy(
        w,
        [
          ['task list', () => listTasks(w.ctx())],
          ['task add', () => addTask(w.ctx(), { name: 'Third' })],
        ],
        taskFile('010'),
        'dependencies',
      );
      expect(m).toContain('cycle');
      expect(m).toMatch(/010 → 020 → 010|020 → 010 → 020/);
    });

    // All restored: it loads.
    expect((await listTasks(w.ctx())).map((t) => t.id)).toEqual(['010', '020']);
  });
});

describe('state files are validated on every read and never overwritten when invalid', () => {
  it('an unreadable project state.yaml: refused naming the file, for reads and writes', async () => {
    const w = await world('executing');
    writeFileSync(join(w.dir, PROJECT), `${w.read(PROJECT)}extra: [unclosed\n`);
    await refusedBy(
      w,
      [
        ['task list', () => listTasks(w.ctx())],
        ['task add', () => addTask(w.ctx(), { name: 'Another' })],
        ['phase set', () => setPhaseField(w.ctx(), 'metadata.a', 'b')],
        ['advance', () => advanceProject(w.ctx(), undefined, false)],
      ],
      PROJECT,
      undefined,
    );
  });

  it(
    'a task status that is no status: ' + 'refused naming the task file and the field; the other task stays usable',
    async () => {
      const w = await world('executing');
      const file = taskFile('010');
      editYaml(w, file, (doc) => doc.set('status', 'bogus'));
      await refusedBy(
        w,
        [
          ['task get', () => getTask(w.ctx(), '010')],
          ['task set', () => setTaskField(w.ctx(), '010', 'name', 'Renamed')],
          ['task abandon', () => abandonTask(w.ctx(), '010')],
          [
            'task input add',
            () =>
              addArtifact(w.ctx(), { kind: 'task', id: '010' }, 'inputs', {
                type: 'reference',
                path: 'refs/a.md',
                extra: {},
              }),
          ],
        ],
        file,
        'status',
      );
      await setTaskField(w.ctx(), '020', 'status', 'in_progress');
      expect(w.read(file)).toContain('status: bogus');
    },
  );

  it('a missing required field: refused naming the field', async () => {
    const w = await world('executing');
    const file = taskFile('020');
    editYaml(w, file, (doc) => doc.delete('name'));
    await refusedBy(
      w,
      [
        ['task get', () => getTask(w.ctx(), '020')],
        ['task set', () => setTaskField(w.ctx(), '020', 'metadata.x', 'y')],
      ],
      file,
      'name',
    );
  });

  it('an iteration of "x" in the project file: refused with the field path, and writes leave it alone', async () => {
    const w = await world('executing');
    editYaml(w, PROJECT, (doc) => doc.setIn(['phases', 'implementation', 'iteration'], 'x'));
    await refusedBy(
      w,
      [
        ['task list', () => listTasks(w.ctx())],
        ['phase set', () => setPhaseField(w.ctx(), 'iteration', '2')],
        ['task add', () => addTask(w.ctx(), { name: 'Another' })],
        [
          'output add --phase review',
          () =>
            addArtifact(w.ctx(), { kind: 'phase', phase: 'review' }, 'outputs', {
              type: 'review',
              path: 'review/r.md',
              extra: {},
            }),
        ],
      ],
      PROJECT,
      'phases.implementation.iteration',
    );
  });
});

// Moved from test/e2e/integrity.test.ts, which keeps one of them on the command line.
describe('YAML syntax errors', () => {
  it('name the line and column, for every use case that reads the file', async () => {
    const w = await world('planning');
    const good = w.read(PROJECT).split('\n');
    const cases: { line: number; text: string }[] = [
      { line: good.findIndex((l) => l.startsWith('description:')) + 1, text: 'description: "unterminated' },
      { line: good.findIndex((l) => l.startsWith('  review:')) + 3, text: '   misaligned: 1' },
      { line: good.findIndex((l) => l.startsWith('  implementation:')) + 2, text: '\tenabled: true' },
    ];
    for (const { line, text } of cases) {
      expect(line).toBeGreaterThan(1);
      await withEdited(w, [PROJECT], async () => {
        const lines = [...good];
        lines[line - 1] = text;
        writeFileSync(join(w.dir, PROJECT), lines.join('\n'));
        const messages = await refusedBy(
          w,
          [
            ['task list', () => listTasks(w.ctx())],
            ['project status', () => projectStatus(w.ctx())],
          ],
          PROJECT,
          undefined,
        );
        for (const m of messages)
          expect(m, JSON.stringify(text)).toMatch(new RegExp(`not valid YAML at line ${line}, column \\d+`));
      });
    }
  });
});

// Moved from test/e2e/integrity.test.ts, which keeps a read and a write of it (stderr and --json).
describe('initialised means initialised', () => {
  it(
    'a .sow/ holding only runtime files is not a workspace: every use case says to run sow init, and initialises ' +
      'nothing; project new initialises by itself',
    async () => {
      const w = await world('bare');
      w.write('.git/sow/.gitignore', '*\n');
      w.write('.git/sow/tmp/leftover.tmp', 'x');
      const uses: Use[] = [
        ['task list', () => listTasks(w.ctx())],
        ['task add', () => addTask(w.ctx(), { name: 'X' })],
        ['project status', () => projectStatus(w.ctx())],
        ['project continue', () => continueProject(w.ctx())],
        ['phase set', () => setPhaseField(w.ctx(), 'metadata.a', 'b')],
        ['advance', () => advanceProject(w.ctx(), undefined, false)],
        ['advance --list', () => listAdvanceOptions(w.ctx())],
        [
          'log --project',
          () =>
            appendLog(w.ctx(), {
              agent: 'a',
              action: 'research',
              result: 'success',
              files: [],
              project: true,
              notes: 'note',
            }),
        ],
      ];
      for (const [what, run] of uses) {
        const e = await refused(w, run, 'NOT_INITIALIZED', 1);
        expect(e.message, what).toContain('not initialised');
        expect(e.hint, what).toBe("run 'sow init'");
        expect(w.exists('.sow/.version'), `${what} did not initialise`).toBe(false);
        expect(w.exists(PROJECT)).toBe(false);
      }
      expect(w.git(['status', '--porcelain', '--untracked-files=all'])).toBe('');
      const made = await newProject(w.ctx(), { name: 'y', description: 'd', planning: true });
      expect(made.initialised).toBe(w.dir);
      expect(w.read('.sow/.version').trim()).toMatch(/^\d+$/);
      expect(w.exists('.sow/.gitignore')).toBe(true);
      expect(w.yaml(PROJECT).name).toBe('y');
    },
  );
});
