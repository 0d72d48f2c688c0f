/**
 * Inputs and outputs in-process, beyond add/set (project.test.ts): list and remove, for a phase
 * (the one in progress or the one named) and for a task, and their refusals.
 */
import { describe, expect, it } from 'vitest';
import { refused, said, taskFile, toExecuting, worlds } from '../../test/inproc.js';
import { addArtifact, listArtifacts, removeArtifact } from './artifacts.js';

const world = worlds({ executing: (w) => toExecuting(w, ['First task']) });

describe('artifacts', () => {
  it('list: the phase in progress by default, the phase named, or a task’s', async () => {
    const w = await world('executing');
    expect(await listArtifacts(w.ctx(), { kind: 'phase' }, 'inputs')).toEqual({
      owner: 'implementation',
      artifacts: [],
    });
    const planning = await listArtifacts(w.ctx(), { kind: 'phase', phase: 'planning' }, 'outputs');
    expect(planning).toEqual({
      owner: 'planning',
      artifacts: [expect.objectContaining({ type: 'task_list', path: 'planning/tasks.md', approved: true })],
    });
    await addArtifact(w.ctx(), { kind: 'task', id: '10' }, 'outputs', {
      type: 'modified',
      path: 'src/a.ts',
      extra: {},
    });
    expect(await listArtifacts(w.ctx(), { kind: 'task', id: '010' }, 'outputs')).toEqual({
      owner: 'task 010',
      artifacts: [expect.objectContaining({ type: 'modified', path: 'src/a.ts' })],
    });
  });

  it('remove takes the artifact at the index out and says which it was; the others move up', async () => {
    const w = await world('executing');
    const task = { kind: 'task', id: '010' } as const;
    for (const path of ['src/a.ts', 'src/b.ts', 'src/c.ts'])
      await addArtifact(w.ctx(), task, 'outputs', { type: 'modified', path, extra: {} });
    const r = await removeArtifact(w.ctx(), task, 'outputs', 1);
    expect(r).toEqual({ index: 1, artifact: expect.objectContaining({ path: 'src/b.ts' }) });
    expect(w.yaml(taskFile('010')).outputs.map((o: { path: string }) => o.path)).toEqual(['src/a.ts', 'src/c.ts']);
    w.write('.sow/project/context/notes.md', '# Notes\n');
    await addArtifact(w.ctx(), { kind: 'phase' }, 'inputs', { type: 'context', path: 'context/notes.md', extra: {} });
    expect((await removeArtifact(w.ctx(), { kind: 'phase' }, 'inputs', 0)).artifact).toMatchObject({
      type: 'context',
      path: 'context/notes.md',
    });
    expect((await listArtifacts(w.ctx(), { kind: 'phase' }, 'inputs')).artifacts).toEqual([]);
  });

  it(
    'refuses an index out of range (naming the list command), an unknown task or phase, and an unknown type, ' +
      'changing nothing',
    async () => {
      const w = await world('executing');
      const empty = await refused(
        w,
        () => removeArtifact(w.ctx(), { kind: 'task', id: '010' }, 'outputs', 0),
        'INDEX_OUT_OF_RANGE',
        1,
      );
      expect(said(empty)).toBe(
        "task 010 outputs are empty (index 0)\nrun 'sow task output list --id 010' to see the indexes",
      );
      const range = await refused(
        w,
        () => removeArtifact(w.ctx(), { kind: 'phase', phase: 'planning' }, 'outputs', 3),
        'INDEX_OUT_OF_RANGE',
        1,
      );
      expect(said(range)).toBe(
        "index 3 is out of range for the planning phase outputs: valid indexes are 0–0\nrun 'sow output list --phase " +
          "planning' to see the indexes",
      );
      await refused(w, () => removeArtifact(w.ctx(), { kind: 'task', id: '090' }, 'outputs', 0), 'TASK_NOT_FOUND', 1);
      await refused(w, () => listArtifacts(w.ctx(), { kind: 'task', id: '090' }, 'outputs'), 'TASK_NOT_FOUND', 1);
      expect(
        said(
          await refused(
            w,
            () => listArtifacts(w.ctx(), { kind: 'phase', phase: 'plannin' }, 'outputs'),
            'PHASE_NOT_FOUND',
            1,
          ),
        ),
      ).toContain("did you mean 'planning'?");
      await refused(
        w,
        () => addArtifact(w.ctx(), { kind: 'phase' }, 'outputs', { type: 'nonsense', path: 'x.md', extra: {} }),
        'UNKNOWN_ARTIFACT_TYPE',
        1,
      );
    },
  );
});
