/**
 * The transitions out of a state, with their guards evaluated. Pure and free of XState, so the
 * commands that only show them (status, continue, advance --list) do not load the machine.
 */
import type { ProjectType, TransitionDef } from './project-types/types.js';
import type { ProjectState } from './schemas.js';

export interface TransitionOption {
  event: string;
  to: string;
  guard?: string;
  guardDescription?: string;
  blocked: boolean;
  hint?: string;
  automatic: boolean;
}

/** Every transition out of the current state, with its guard and whether it is blocked now. */
export function listTransitions(type: ProjectType, project: ProjectState): TransitionOption[] {
  const from = project.statechart.current_state;
  return type.transitions.filter((t) => t.from === from).map((t) => describe(type, t, project));
}

function describe(type: ProjectType, t: TransitionDef, project: ProjectState): TransitionOption {
  const guard = t.guard ? type.guards[t.guard] : undefined;
  const blocked = guard ? !guard.check(project) : false;
  return {
    event: t.event,
    to: t.to,
    ...(t.guard ? { guard: t.guard } : {}),
    ...(guard ? { guardDescription: guard.description } : {}),
    blocked,
    ...(guard && blocked ? { hint: guard.hint(project) } : {}),
    automatic: t.automatic,
  };
}

