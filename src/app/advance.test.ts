/**
 * The standard type's guards through `advance`, in-process: each blocks with exit 3 and a hint,
 * leaving the state files byte-identical, until what it needs is there. The command line around
 * advance (--list, --dry-run, explicit events, the words on stderr) is test/e2e/commands.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { refused, said, toImplementationPlanning, worlds, type World } from '../../test/inproc.js';
import { advanceProject } from './advance.js';
import { addArtifact } from './artifacts.js';
import { setPhaseField } from './phase.js';
import { addTask } from './task.js';
import { abandonTask, setTaskField } from './task-change.js';

const world = worlds({
  implementationPlanning: toImplementationPlanning,
});

const blocked = async (w: World) =>
  said(await refused(w, () => advanceProject(w.ctx(), undefined, false), 'TRANSITION_BLOCKED', 3));

describe('advance', () => {
  it('each guard blocks with exit 3 and a hint, leaving the state files byte-identical', async () => {
    const w = await world('implementationPlanning');
    const ctx = w.ctx();
    // No tasks (and tasks_approved cannot be given for none), then tasks without approval.
    expect(await blocked(w)).toContain('sow task add');
    await addTask(ctx, { name: 'A' });
    await addTask(ctx, { name: 'B' });
    expect(await blocked(w)).toContain('tasks_approved');
    await setPhaseField(ctx, 'tasks_approved', 'true');
    await advanceProject(ctx, undefined, false);
    // all_tasks_complete: unfinished tasks, then only abandoned ones.
    await setTaskField(ctx, '010', 'status', 'completed');
    expect(await blocked(w)).toContain('020');
    await setTaskField(ctx, '010', 'status', 'abandoned', { force: true });
    await abandonTask(ctx, '020');
    await blocked(w);
    await setTaskField(ctx, '020', 'status', 'completed');
    expect((await advanceProject(ctx, undefined, false)).to).toBe('ReviewActive');
    // An unapproved review does not count.
    await addArtifact(ctx, { kind: 'phase' }, 'outputs', {
      type: 'review',
      path: 'review/report.md',
      extra: { assessment: 'pass' },
    });
    await blocked(w);
  });
});
