/**
 * `task feedback` and `task get log` in-process: feedback written and registered in one step,
 * numbered after what the task already has; refusals change nothing.
 */
import { describe, expect, it } from 'vitest';
import { refused, taskFile, toExecuting, worlds } from '../../test/inproc.js';
import { addArtifact, addFeedback } from './artifacts.js';
import { getTask, taskDiff } from './task.js';

const world = worlds({ two: (w) => toExecuting(w, ['First task', 'Second task']) });
const dir = '.sow/project/phases/implementation/tasks/010';

describe('task feedback', () => {
  it('writes the next feedback/<nnn>.md and registers it as a pending feedback input, in one step', async () => {
    const w = await world('two');
    const ctx = w.ctx();
    const first = await addFeedback(ctx, '010', '  The form needs a label.\n\n');
    expect(first).toMatchObject({
      index: 0,
      artifact: {
        type: 'feedback',
        path: 'phases/implementation/tasks/010/feedback/001.md',
        metadata: { status: 'pending' },
      },
    });
    expect(w.read(`${dir}/feedback/001.md`)).toBe('The form needs a label.\n');
    // A file already there (written by hand) is not overwritten: the next number is taken.
    w.write(`${dir}/feedback/002.md`, 'by hand\n');
    const second = await addFeedback(ctx, '10', 'And a test.');
    expect(second.artifact.path).toBe('phases/implementation/tasks/010/feedback/003.md');
    expect(w.read(`${dir}/feedback/002.md`)).toBe('by hand\n');
    expect(
      w
        .yaml(taskFile('010'))
        .inputs.map((a: { path: string; metadata?: { status?: string } }) => [
          a.path.split('/').at(-1),
          a.metadata?.status,
        ]),
    ).toEqual([
      ['001.md', 'pending'],
      ['003.md', 'pending'],
    ]);
  });

  it('refuses a task that is not there, changing nothing', async () => {
    const w = await world('two');
    await refused(w, () => addFeedback(w.ctx(), '990', 'x'), 'TASK_NOT_FOUND');
  });
});

describe('task get log', () => {
  it('is the task’s log.md as written', async () => {
    const w = await world('two');
    expect((await getTask(w.ctx(), '010', 'log')).value).toBe(w.read(`${dir}/log.md`));
    w.write(`${dir}/log.md`, '---\naction: started_task\n---\n\nbegun\n');
    expect(await getTask(w.ctx(), '010', 'log')).toMatchObject({
      field: 'log',
      value: '---\naction: started_task\n---\n\nbegun\n',
    });
  });
});

describe('task diff', () => {
  it('shows what the task changed: a new file whole; nothing before it records a file', async () => {
    const w = await world('two');
    expect(await taskDiff(w.ctx(), '010')).toEqual({ task: '010', files: [], diff: '' });
    w.write('src/hello.ts', 'export const hello = 1;\n');
    await addArtifact(w.ctx(), { kind: 'task', id: '010' }, 'outputs', {
      type: 'modified',
      path: 'src/hello.ts',
      extra: {},
    });
    expect(await taskDiff(w.ctx(), '010')).toEqual({
      task: '010',
      files: ['src/hello.ts'],
      diff: 'new file src/hello.ts\n+export const hello = 1;\n+',
    });
  });
});
