/**
 * One truth per fact, in-process: a task's fields live in its own file, so a hand edit (a status
 * changed, a task folder added or removed) is seen at once by lists, status and the guards; a file
 * laid out by another tool is read and written back; comments a person wrote survive writes.
 * Moved from test/e2e/one-truth.test.ts, which keeps the task index as the built CLI meets it (the
 * index's own rules: src/adapters/task-index.test.ts).
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { PROJECT, refused, taskFile, toExecuting, worlds, type World } from '../../test/inproc.js';
import { advanceProject } from './advance.js';
import { addArtifact } from './artifacts.js';
import { setProjectField } from './project.js';
import { projectStatus } from './status.js';
import { getTask, listTasks } from './task.js';
import { setTaskField } from './task-change.js';

const world = worlds({
  two: (w) => toExecuting(w, ['One', 'Two']),
  one: (w) => toExecuting(w, ['One']),
});

/** Replaces `from` by `to` in a file, in place (same inode), as an editor that writes over the file does. */
function editInPlace(w: World, rel: string, from: string, to: string): void {
  const text = readFileSync(join(w.dir, rel), 'utf8');
  expect(text).toContain(from);
  writeFileSync(join(w.dir, rel), text.replace(from, to));
}

describe('a hand edit of a task file is seen everywhere, at once', () => {
  it('status pending → completed by hand: task list, task get, project status and the guards all see it', async () => {
    const w = await world('two');
    await setTaskField(w.ctx(), '010', 'status', 'completed');
    await refused(w, () => advanceProject(w.ctx(), undefined, false), 'TRANSITION_BLOCKED', 3);

    editInPlace(w, taskFile('020'), 'status: pending', 'status: completed');
    expect((await listTasks(w.ctx())).map((t) => `${t.id}:${t.status}`)).toEqual(['010:completed', '020:completed']);
    expect((await getTask(w.ctx(), '020', 'status')).value).toBe('completed');
    expect((await projectStatus(w.ctx())).tasks).toEqual({ total: 2, by_status: { completed: 2 } });
    expect((await advanceProject(w.ctx(), undefined, true)).to).toBe('ReviewActive');
    expect((await advanceProject(w.ctx(), undefined, false)).to).toBe('ReviewActive');
    // The project file never held a copy that could disagree, and no parse cache kept one either.
    expect(w.read(PROJECT)).not.toContain('One');
    expect(w.exists('.sow/.cache'), 'no parse cache').toBe(false);
  });

  it('a task added by hand (a new folder) is listed; one removed by hand is gone', async () => {
    const w = await world('one');
    w.write(
      taskFile('020'),
      w.read(taskFile('010')).replace('id: "010"', 'id: "020"').replace('name: One', 'name: Copied by hand'),
    );
    expect((await listTasks(w.ctx())).map((t) => `${t.id} ${t.name}`)).toEqual(['010 One', '020 Copied by hand']);
    await setTaskField(w.ctx(), '020', 'status', 'in_progress');
    rmSync(join(w.dir, '.sow/project/phases/implementation/tasks/020'), { recursive: true });
    expect((await listTasks(w.ctx())).map((t) => t.id)).toEqual(['010']);
  });
});

describe('files sow did not write', () => {
  it(
    'reads a file laid out by another tool (the yaml package takes what the canonical reader declines) and ' +
      'writes it back',
    async () => {
      const w = await world('one');
      // Four-space indentation, single quotes and a flow list: valid YAML, not the form sow writes.
      const text = stringify(
        { ...w.yaml(taskFile('010')), name: 'Renamed by hand', dependencies: [] },
        { indent: 4, defaultStringType: 'QUOTE_SINGLE', flowCollectionPadding: true },
      );
      expect(text).toContain("'name': 'Renamed by hand'");
      writeFileSync(join(w.dir, taskFile('010')), text);
      expect((await getTask(w.ctx(), '010', 'name')).value).toBe('Renamed by hand');
      expect((await listTasks(w.ctx()))[0]!.name).toBe('Renamed by hand');
      await setTaskField(w.ctx(), '010', 'iteration', '2');
      expect(w.yaml(taskFile('010'))).toMatchObject({ name: 'Renamed by hand', iteration: 2 });
    },
  );

  it('keeps comments a person wrote through writes', async () => {
    const w = await world('one');
    const noted = w
      .read(PROJECT)
      .replace('description: A demo project', 'description: A demo project # keep this short');
    writeFileSync(join(w.dir, PROJECT), `# Reviewed by Ada on Monday\n${noted}`);
    w.write('.sow/project/notes.md', '# Notes\n');
    await addArtifact(w.ctx(), { kind: 'phase' }, 'inputs', { type: 'context', path: 'notes.md', extra: {} });
    await setProjectField(w.ctx(), 'description', 'Changed');
    const after = w.read(PROJECT);
    expect(after.startsWith('# Reviewed by Ada on Monday\n')).toBe(true);
    expect(after).toContain('description: Changed # keep this short');
    expect(w.yaml(PROJECT).phases.implementation.inputs.at(-1).path).toBe('notes.md');
  });
});
