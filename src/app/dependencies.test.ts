/**
 * The dependency check every whole-set read makes: a dependency on a task that does not exist,
 * and a cycle however it is written (up or down the ids, through several tasks, on itself), is
 * refused; dependencies that all point to earlier tasks are taken without a search for cycles.
 */
import { describe, expect, it } from 'vitest';
import { refused, taskFile, toExecuting, worlds } from '../../test/inproc.js';
import { listTasks } from './task.js';

const world = worlds({ four: (w) => toExecuting(w, ['A', 'B', 'C', 'D']) });

/** Writes a task file's dependencies by hand, as a person editing it would. */
function depend(w: Awaited<ReturnType<typeof world>>, id: string, deps: string[]): void {
  const text = w
    .read(taskFile(id))
    .replace(
      /^dependencies:.*(\n {2}- .*)*$/m,
      deps.length ? `dependencies:\n${deps.map((d) => `  - "${d}"`).join('\n')}` : 'dependencies: []',
    );
  w.write(taskFile(id), text);
}

describe('dependencies as read from the task files', () => {
  it('are taken when they point down or up the ids without a cycle', async () => {
    const w = await world('four');
    depend(w, '020', ['010']);
    depend(w, '030', ['040']);
    depend(w, '040', ['010', '020']);
    expect((await listTasks(w.ctx())).map((t) => [t.id, t.dependencies ?? []])).toEqual([
      ['010', []],
      ['020', ['010']],
      ['030', ['040']],
      ['040', ['010', '020']],
    ]);
  });

  for (const [what, edits, path] of [
    ['a task on itself', { '020': ['020'] }, /020 → 020/],
    ['two tasks', { '010': ['020'], '020': ['010'] }, /010 → 020 → 010/],
    ['three tasks, one edge up', { '040': ['030'], '030': ['020'], '020': ['040'] }, /020 → 040 → 030 → 020/],
    ['three tasks, two edges up', { '010': ['030'], '030': ['040'], '040': ['010'] }, /010 → 030 → 040 → 010/],
  ] as const) {
    it(`with a cycle through ${what} are refused, naming it`, async () => {
      const w = await world('four');
      for (const [id, deps] of Object.entries(edits)) depend(w, id, [...deps]);
      const err = await refused(w, () => listTasks(w.ctx()), 'STATE_FILE_INVALID', 4);
      expect(err.message).toMatch(path);
    });
  }

  it('naming a task that does not exist are refused, naming the first such dependency', async () => {
    const w = await world('four');
    depend(w, '030', ['010', '990']);
    depend(w, '040', ['980']);
    const err = await refused(w, () => listTasks(w.ctx()), 'TASK_FOLDER_MISSING', 4);
    expect(err.details).toMatchObject({ task: '990', needed_by: '030', field: 'dependencies.1' });
  });
});
