/** `sow graph` and `sow schema` data, and the shared result shapes, in-process. */
import { describe, expect, it } from 'vitest';
import { PROJECT, refused, toExecuting, toImplementationPlanning, worlds } from '../../test/inproc.js';
import { lifecycleOf, tasksGraphOf } from './graph.js';
import { artifactListData, claimData, taskSetData } from './results.js';
import { jsonSchemaOf } from './schema.js';
import { addTask } from './task.js';
import { setTaskField } from './task-change.js';

const world = worlds({ executing: (w) => toExecuting(w, ['First task', 'Second task']) });

describe('graph lifecycle', () => {
  it('the project’s machine, its state marked and the guard out of it judged now: blocked, then met', async () => {
    const w = await world('executing');
    const g = await lifecycleOf(w.ctx());
    expect(g).toMatchObject({ type: 'standard', current: 'ImplementationExecuting' });
    const out = () =>
      g.transitions.find((t) => t.from === 'ImplementationExecuting' && t.event === 'all_tasks_complete');
    expect(out()).toMatchObject({ to: 'ReviewActive', guard: 'allTasksComplete', automatic: true, blocked: true });
    for (const id of ['010', '020']) await setTaskField(w.ctx(), id, 'status', 'completed', {});
    const after = await lifecycleOf(w.ctx());
    expect(
      after.transitions.find((t) => t.from === 'ImplementationExecuting' && t.event === 'all_tasks_complete'),
    ).toMatchObject({ blocked: false });
  });

  it('a type named: its machine, nothing marked; no project, no workspace: the default type’s', async () => {
    const w = await world('executing');
    const named = await lifecycleOf(w.ctx(), 'breakdown');
    expect(named).toMatchObject({ type: 'breakdown', current: null });
    expect(named.transitions.every((t) => t.blocked === undefined)).toBe(true);
    const init = await world('init');
    expect(await lifecycleOf(init.ctx())).toMatchObject({ type: 'standard', current: null });
    const bare = await world('bare');
    expect((await lifecycleOf(bare.ctx())).current).toBeNull();
  });

  it('a project file sow cannot read is its error, not the default picture', async () => {
    const w = await world('executing');
    w.write(PROJECT, 'name: [\n');
    await refused(w, () => lifecycleOf(w.ctx()), 'STATE_FILE_INVALID', 4);
  });
});

describe('graph tasks', () => {
  it('the tasks and their dependencies; without a project, NO_PROJECT', async () => {
    const w = await world('executing');
    await addTask(w.ctx(), { name: 'Third', agent: 'implementer', dependsOn: '010,020' });
    expect(await tasksGraphOf(w.ctx())).toEqual({
      nodes: [
        { id: '010', name: 'First task', status: 'pending' },
        { id: '020', name: 'Second task', status: 'pending' },
        { id: '030', name: 'Third', status: 'pending' },
      ],
      edges: [
        { from: '010', to: '030' },
        { from: '020', to: '030' },
      ],
    });
    const init = await world('init');
    await refused(init, () => tasksGraphOf(init.ctx()), 'NO_PROJECT', 1);
  });

  it('a project without tasks: no nodes, no edges', async () => {
    const w = await world('init');
    await toImplementationPlanning(w);
    expect(await tasksGraphOf(w.ctx())).toEqual({ nodes: [], edges: [] });
  });
});

describe('schema', () => {
  it('each file’s JSON Schema with its title; the fields a file takes are the schema’s', () => {
    const project = jsonSchemaOf('project');
    expect(project['title']).toBe('sow project state (.sow/project/state.yaml)');
    expect(Object.keys(project['properties'] as object)).toEqual(
      expect.arrayContaining(['name', 'type', 'branch', 'statechart', 'phases']),
    );
    expect(jsonSchemaOf('task')['title']).toBe(
      'sow task state (.sow/project/phases/implementation/tasks/<id>/state.yaml)',
    );
    expect(Object.keys(jsonSchemaOf('config')['properties'] as object)).toEqual(['agents']);
    expect(Object.keys(jsonSchemaOf('repo-config')['properties'] as object)).toEqual(
      expect.arrayContaining(['checks', 'github']),
    );
  });
});

describe('results', () => {
  it(
    'the shapes the CLI and sow mcp share: the claimed id first, a task set with what its checks did, artifacts ' +
      'with their index',
    () => {
      const task = { id: '010' } as never;
      const owner = { agent: 'implementer-1' } as never;
      expect(Object.keys(claimData({ task, owner }))).toEqual(['id', 'task', 'owner']);
      expect(claimData({ task, owner }).id).toBe('010');
      expect(taskSetData({ id: '010', field: 'status', value: 'completed' })).toEqual({
        id: '010',
        field: 'status',
        value: 'completed',
      });
      expect(taskSetData({ id: '010', field: 'status', value: 'completed', checks: [], unchanged: true })).toEqual({
        id: '010',
        field: 'status',
        value: 'completed',
        checks: [],
        unchanged: true,
      });
      expect(
        artifactListData([
          { type: 'context', path: 'a.md', approved: false } as never,
          { type: 'review', path: 'b.md' } as never,
        ]),
      ).toEqual([
        { index: 0, type: 'context', path: 'a.md', approved: false },
        { index: 1, type: 'review', path: 'b.md' },
      ]);
    },
  );
});
