/**
 * `phase set` and `phase get` in-process: tasks_approved by name or as metadata, dotted paths into
 * nested metadata, typed values, another phase by name; and the fields, values and phases refused.
 * Moved from test/e2e/commands.test.ts, which keeps what get prints (the bare value, an object as
 * JSON, the --json envelope) and which phase it reads by default.
 */
import { describe, expect, it } from 'vitest';
import { PROJECT, refused, said, toImplementationPlanning, worlds, type World } from '../../test/inproc.js';
import { getPhaseField, setPhaseField } from './phase.js';
import { addTask } from './task.js';

const world = worlds({ implementationPlanning: toImplementationPlanning });
const get = async (w: World, field: string, phase?: string) => (await getPhaseField(w.ctx(), field, phase)).value;

describe('phase set / get', () => {
  it(
    'tasks_approved and metadata.tasks_approved both work; ' + 'dotted paths reach nested metadata; values are typed',
    async () => {
      const w = await world('implementationPlanning');
      await addTask(w.ctx(), { name: 'A' });
      await setPhaseField(w.ctx(), 'tasks_approved', 'true');
      expect(w.yaml(PROJECT).phases.implementation.metadata.tasks_approved).toBe(true);
      await setPhaseField(w.ctx(), 'metadata.tasks_approved', 'false');
      expect(w.yaml(PROJECT).phases.implementation.metadata.tasks_approved).toBe(false);
      expect(await get(w, 'tasks_approved')).toBe(false);
      expect(await get(w, 'metadata.tasks_approved')).toBe(false);

      await setPhaseField(w.ctx(), 'metadata.review.round', '3');
      await setPhaseField(w.ctx(), 'review.owner', 'carol');
      await setPhaseField(w.ctx(), 'tasks_approved', 'true', 'implementation');
      await setPhaseField(w.ctx(), 'project_deleted', 'false', 'finalize');
      const s = w.yaml(PROJECT);
      expect(s.phases.implementation.metadata).toMatchObject({
        tasks_approved: true,
        review: { round: 3, owner: 'carol' },
      });
      expect(s.phases.finalize.metadata).toEqual({ project_deleted: false });
      expect(await get(w, 'metadata.review.round')).toBe(3);
      expect(await get(w, 'review.owner')).toBe('carol');
      expect(await get(w, 'metadata.review')).toEqual({ round: 3, owner: 'carol' });
    },
  );

  it('refuses read-only fields, bad values, unknown phases and disabling review, writing nothing', async () => {
    const w = await world('implementationPlanning');
    await refused(w, () => setPhaseField(w.ctx(), 'status', 'completed'), 'READ_ONLY_FIELD', 1);
    await refused(w, () => setPhaseField(w.ctx(), 'tasks_approved', 'maybe'), 'INVALID_VALUE', 1);
    await refused(w, () => setPhaseField(w.ctx(), 'iteration', '0'), 'INVALID_VALUE', 1);
    await refused(w, () => setPhaseField(w.ctx(), 'enabled', 'false', 'review'), 'READ_ONLY_FIELD', 1);
    expect(said(await refused(w, () => getPhaseField(w.ctx(), 'status', 'testing'), 'PHASE_NOT_FOUND', 1))).toContain(
      'planning, implementation, review, finalize',
    );
  });
});
