/** What every project type's machine shares: the phase actions, the no-project state, tags. */
import { completePhase, phaseOf, startPhase } from '../phases.js';
import type { ProjectState } from '../schemas.js';
import type { ActionImpl, ActionRef, StateDef } from '../project-type.js';

/** The actions that enter and leave a phase (`start('review')`, `complete('review')`). */
export const phaseActions = {
  startPhase: (p, params, now) => startPhase(p, params['phase']!, now),
  completePhase: (p, params, now) => completePhase(p, params['phase']!, now),
} satisfies Record<string, ActionImpl>;
export const start = (phase: string): ActionRef<'startPhase'> => ({ type: 'startPhase', params: { phase } });
export const complete = (phase: string): ActionRef<'completePhase'> => ({ type: 'completePhase', params: { phase } });

/** The state of a branch without a project: where every type starts, and where some end. */
export const NO_PROJECT: StateDef = {
  phase: null,
  lead: null,
  purpose: 'No project is active on this branch.',
  final: true,
};

/** Tags of a project: the phase's metadata `tags` (a list, or words separated by commas). */
export function tagsOf(project: ProjectState, phase: string): string[] {
  const raw = phaseOf(project, phase).metadata['tags'];
  if (Array.isArray(raw)) return raw.map(String);
  return typeof raw === 'string'
    ? raw
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean)
    : [];
}
