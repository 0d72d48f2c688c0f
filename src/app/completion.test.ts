/**
 * The live values of shell completion in-process: read from the files each time, quietly (the
 * project of another branch is offered without a warning). That a completion never fails loudly
 * is the command line's part (test/e2e/completion.test.ts): here the use cases' own refusals.
 */
import { describe, expect, it } from 'vitest';
import { PROJECT, refused, toExecuting, worlds } from '../../test/inproc.js';
import { addRef } from './refs.js';
import {
  artifactTypeCandidates,
  checkCandidates,
  eventCandidates,
  phaseCandidates,
  refCandidates,
  taskIdCandidates,
} from './completion.js';
import { newProject } from './project.js';
import { addTask } from './task.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const world = worlds({
  executing: (w) => toExecuting(w, ['First task', 'Second task']),
  planning: async (w) =>
    void (await newProject(w.ctx(), { name: 'demo', description: 'A demo project', planning: true })),
});

describe('completion candidates', () => {
  it('task ids with their name and status, read afresh each time; from the project of another branch too', async () => {
    const w = await world('executing');
    expect(await taskIdCandidates(w.dir)).toEqual([
      { value: '010', description: 'First task (pending)' },
      { value: '020', description: 'Second task (pending)' },
    ]);
    await addTask(w.ctx(), { name: 'Third', agent: 'implementer' });
    expect((await taskIdCandidates(w.dir)).map((c) => c.value)).toEqual(['010', '020', '030']);
    w.git(['checkout', '-q', '-b', 'elsewhere']);
    expect((await taskIdCandidates(w.dir)).map((c) => c.value)).toEqual(['010', '020', '030']);
  });

  it('the events out of the current state, each with where it leads and, when blocked, what it waits for', async () => {
    const w = await world('executing');
    expect(await eventCandidates(w.dir)).toEqual([
      { value: 'all_tasks_complete', description: expect.stringMatching(/^→ ReviewActive \(.+\)$/) },
    ]);
    const p = await world('planning');
    expect((await eventCandidates(p.dir)).map((c) => c.value)).toEqual(['complete_planning']);
  });

  it(
    'the artifact types of the phase in progress, ' + 'of the phase named, or of a task; not those only sow records',
    async () => {
      const p = await world('planning');
      expect((await artifactTypeCandidates(p.dir, 'phase', 'outputs')).map((c) => c.value)).toEqual(['task_list']);
      expect((await artifactTypeCandidates(p.dir, 'phase', 'inputs')).map((c) => c.value)).toEqual(['context']);
      const w = await world('executing');
      expect((await artifactTypeCandidates(w.dir, 'phase', 'outputs', 'planning')).map((c) => c.value)).toEqual([
        'task_list',
      ]);
      // A phase that does not exist falls back to the current state's.
      expect((await artifactTypeCandidates(w.dir, 'phase', 'inputs', 'nosuch')).map((c) => c.value)).toEqual([
        'context',
        'review',
      ]);
      expect((await artifactTypeCandidates(w.dir, 'task', 'outputs')).map((c) => c.value)).toEqual(['modified']);
      expect(await phaseCandidates(w.dir)).toEqual([
        { value: 'planning', description: 'completed' },
        { value: 'implementation', description: 'in_progress' },
        { value: 'review', description: 'pending' },
        { value: 'finalize', description: 'pending' },
      ]);
    },
  );

  it('the declared checks with what they run, and the refs with their description', async () => {
    const w = await world('init');
    expect(await checkCandidates(w.dir)).toEqual([]);
    expect(refCandidates(w.dir)).toEqual([]);
    w.write('.sow/config.yaml', 'checks:\n  - name: unit\n    run: npm test\n');
    expect(await checkCandidates(w.dir)).toEqual([{ value: 'unit', description: 'npm test' }]);
    const source = mkdtempSync(join(tmpdir(), 'sow-inproc-completion-'));
    try {
      writeFileSync(join(source, 'a.md'), 'a\n');
      await addRef(w.ctx(), source, {
        link: 'notes',
        semantic: 'knowledge',
        local: true,
        progress: false,
        description: 'Team notes',
      });
      expect(refCandidates(w.dir)).toEqual([{ value: 'notes', description: 'Team notes' }]);
    } finally {
      rmSync(source, { recursive: true, force: true });
    }
  });

  it(
    'no project, no workspace, a broken state file: ' + 'the use cases refuse (the command line then offers nothing)',
    async () => {
      const w = await world('init');
      await refused(w, () => taskIdCandidates(w.dir), 'NO_PROJECT', 1);
      const bare = await world('bare');
      await refused(bare, () => eventCandidates(bare.dir), 'NOT_INITIALIZED', 1);
      await refused(bare, () => checkCandidates(bare.dir), 'NOT_INITIALIZED', 1);
      const broken = await world('planning');
      broken.write(PROJECT, `${broken.read(PROJECT)}\nstatechart: [\n`);
      await refused(broken, () => eventCandidates(broken.dir), 'STATE_FILE_INVALID', 4);
    },
  );
});
