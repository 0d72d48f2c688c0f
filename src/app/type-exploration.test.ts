/**
 * The exploration type in-process, and the type a branch implies: the guards out of Active and
 * Summarizing, the summaries kept in .sow/knowledge/explorations/<name>/ and each project indexed
 * after the ones before. The walk through the command line is test/e2e/project-types.test.ts.
 */
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { PROJECT, refused, said, worlds, type World } from '../../test/inproc.js';
import { advanceProject } from './advance.js';
import { addArtifact, setArtifact } from './artifacts.js';
import { setPhaseField } from './phase.js';
import { newProject } from './project.js';
import { addTask } from './task.js';
import { abandonTask, setTaskField } from './task-change.js';

const world = worlds();
const blocked = async (w: World) =>
  said(await refused(w, () => advanceProject(w.ctx(), undefined, false), 'TRANSITION_BLOCKED', 3));

describe('the type a branch implies', () => {
  it("a branch with a type's prefix implies that type; --type says otherwise", async () => {
    const w = await world();
    w.git(['checkout', '-q', '-b', 'explore/caching']);
    await newProject(w.ctx(), { name: 'caching', description: 'Cache or not', planning: true });
    expect(w.yaml(PROJECT)).toMatchObject({
      type: 'exploration',
      branch: 'explore/caching',
      statechart: { current_state: 'Active' },
    });
    const other = await world();
    other.git(['checkout', '-q', '-b', 'explore/caching']);
    await newProject(other.ctx(), { name: 'caching', description: 'Cache or not', type: 'standard', planning: true });
    expect(other.yaml(PROJECT)).toMatchObject({ type: 'standard', statechart: { current_state: 'PlanningActive' } });
  });
});

describe('exploration', () => {
  it(
    'topics → summaries → approved → completed: each step waits for what it needs; the summaries kept and indexed, ' +
      'the next project after the first',
    async () => {
      const w = await world();
      const ctx = w.ctx();
      await newProject(ctx, {
        name: 'jwt-libs',
        type: 'exploration',
        description: 'Which JWT library?',
        planning: true,
      });
      await blocked(w);
      await addTask(ctx, { name: 'jose' });
      await addTask(ctx, { name: 'jsonwebtoken' });
      await setTaskField(ctx, '010', 'status', 'in_progress');
      w.write('.sow/project/findings/jose.md', '# jose\n');
      await addArtifact(ctx, { kind: 'task', id: '010' }, 'outputs', {
        type: 'findings',
        path: 'findings/jose.md',
        extra: {},
      });
      await setTaskField(ctx, '010', 'status', 'completed');
      expect(await blocked(w)).toContain('020');
      await abandonTask(ctx, '020');
      expect((await advanceProject(ctx, undefined, false)).to).toBe('Summarizing');
      await setPhaseField(ctx, 'metadata.tags', 'auth,jwt');
      w.write('.sow/project/summary.md', '# Which JWT library?\n\njose.\n');
      await addArtifact(ctx, { kind: 'phase' }, 'outputs', { type: 'summary', path: 'summary.md', extra: {} });
      expect(await blocked(w)).toContain("'sow output set --index 0 approved true'");
      await setArtifact(ctx, { kind: 'phase' }, 'outputs', 0, 'approved', 'true');
      expect((await advanceProject(ctx, undefined, false)).to).toBe('Finalizing');
      w.clock.set('2026-12-02T12:00:00.000Z');
      expect(await advanceProject(ctx, undefined, false)).toMatchObject({ to: 'Completed', projectRemoved: true });
      expect(w.exists('.sow/project')).toBe(false);
      expect(w.read('.sow/knowledge/explorations/jwt-libs/summary.md')).toBe('# Which JWT library?\n\njose.\n');
      expect(parse(w.read('.sow/knowledge/index.yaml'))).toEqual({
        entries: [
          {
            type: 'exploration',
            topic: 'Which JWT library?',
            name: 'jwt-libs',
            branch: 'explore/jwt-libs',
            date: '2026-12-02',
            tags: ['auth', 'jwt'],
            path: '.sow/knowledge/explorations/jwt-libs',
            files: ['.sow/knowledge/explorations/jwt-libs/summary.md'],
          },
        ],
      });

      // The next one is added to the same index.
      await newProject(ctx, {
        name: 'caching',
        type: 'exploration',
        branch: 'explore/caching',
        description: 'Cache or not',
        planning: true,
      });
      await addTask(ctx, { name: 'redis' });
      await setTaskField(ctx, '010', 'status', 'completed');
      await advanceProject(ctx, undefined, false);
      w.write('.sow/project/summary.md', '# Cache\n');
      await addArtifact(ctx, { kind: 'phase' }, 'outputs', {
        type: 'summary',
        path: 'summary.md',
        approved: 'true',
        extra: {},
      });
      await advanceProject(ctx, undefined, false);
      await advanceProject(ctx, undefined, false);
      expect(parse(w.read('.sow/knowledge/index.yaml')).entries.map((e: any) => e.name)).toEqual([
        'jwt-libs',
        'caching',
      ]);
    },
  );
});
