/** A project type's own commands in-process: found by their group, and refused on a project of another type. */
import { describe, expect, it } from 'vitest';
import { refused, said, toExecuting, typeCommand, worlds } from '../../test/inproc.js';

const world = worlds({ executing: (w) => toExecuting(w, ['First task']) });

describe('type commands', () => {
  it('a command of one type on a project of another is refused before anything is read or written', async () => {
    const w = await world('executing');
    const e = await refused(w, () => typeCommand(w.ctx(), ['iter', 'status']), 'WRONG_PROJECT_TYPE', 1);
    expect(said(e)).toBe(
      "'sow iter status' belongs to iterative projects, and this project is standard\nrun 'sow project types' to " +
        "see what each type does; 'sow project status' shows this project's next step",
    );
    await refused(
      w,
      () => typeCommand(w.ctx(), ['iter', 'phase', 'add', 'R1', '--title', 'x', '--criteria', 'y', '--output', 'o.md']),
      'WRONG_PROJECT_TYPE',
      1,
    );
    await refused(w, () => typeCommand(w.ctx(), ['breakdown', 'publish', '--to', 'files']), 'WRONG_PROJECT_TYPE', 1);
    const none = await world('init');
    await refused(none, () => typeCommand(none.ctx(), ['iter', 'status']), 'NO_PROJECT', 1);
  });
});
