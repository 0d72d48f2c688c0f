/** What every project type's definition shares: artifact types, the phase actions, transitions, states, tags. */
import { completePhase, phaseOf, startPhase } from '../phases.js';
import type { ArtifactTypeDef } from '../artifacts.js';
import type { ProjectState, TaskStatus } from '../schemas.js';
import { isFinished } from '../tasks.js';
import type { ActionImpl, ActionRef, PhaseDef, ProjectType, StateDef, TransitionDef } from '../project-type.js';
import { evidenceType } from './evidence.js';

/** An artifact type whose files live under .sow/project/ (all but a task's `modified` files). */
export const doc = (name: string, description: string, more: Partial<ArtifactTypeDef> = {}): ArtifactTypeDef => ({
  name,
  root: 'project',
  description,
  ...more,
});

/** The actions that enter and leave a phase, which defineType gives the transitions between phases. */
export const phaseActions = {
  startPhase: (p, params, now) => startPhase(p, params['phase']!, now),
  completePhase: (p, params, now) => completePhase(p, params['phase']!, now),
} satisfies Record<string, ActionImpl>;

/** project_init, fired by `project new` only; a misspelt state, guard or action in a transition fails to compile. */
export const init = <S extends string, G extends string = never>(to: S, guard?: G): TransitionDef<S, G, never> => ({
  from: 'NoProject' as S,
  event: 'project_init',
  to,
  ...(guard ? { guard } : {}),
  automatic: false,
});

/** A transition `sow advance` may take without being told the event; `actions` replace the phase moves. */
export const step = <S extends string, G extends string = never, A extends string = never>(
  from: S,
  event: string,
  to: S,
  guard?: G,
  actions?: readonly ActionRef<A>[],
): TransitionDef<S, G, A> => ({
  from,
  event,
  to,
  ...(guard ? { guard } : {}),
  ...(actions ? { actions } : {}),
  automatic: true,
});

/** A state whose work the human leads (the agent asks and drafts), or the AI (the human approves at the gates). */
const led =
  (lead: 'human' | 'ai') =>
  (phase: string, purpose: string, more: Partial<StateDef> = {}): StateDef => ({ phase, lead, purpose, ...more });
export const human = led('human');
export const ai = led('ai');
/** A state where the project ends: its folder is removed. */
export const ended = (purpose: string): StateDef => ({ phase: null, lead: null, purpose, final: true });

/** A type's transitions: between its states and NoProject, with its guards and actions or the phase actions. */
export type Transitions<S, G, A = object> = TransitionDef<
  (keyof S & string) | 'NoProject',
  keyof G & string,
  (keyof A & string) | keyof typeof phaseActions
>[];

// Every type starts in NoProject (where some end) and has the phase actions besides its own; every phase and task
// records the checks' evidence, and a phase always runs unless it says it can be disabled.
export const defineType = (
  def: Omit<ProjectType, 'initialState' | 'actions' | 'phases'> & {
    actions?: ProjectType['actions'];
    phases: readonly (Omit<PhaseDef, 'canDisable' | 'outputs'> & Partial<Pick<PhaseDef, 'canDisable' | 'outputs'>>)[];
  },
): ProjectType => {
  const states: ProjectType['states'] = { NoProject: ended('No project is active on this branch.'), ...def.states };
  return {
    ...def,
    initialState: 'NoProject',
    states,
    actions: { ...phaseActions, ...def.actions },
    transitions: def.transitions.map((t) => (t.actions ? t : withPhaseMoves(t, states[t.from]!, states[t.to]!))),
    phases: def.phases.map((p) => ({ canDisable: false, ...p, outputs: [...(p.outputs ?? []), evidenceType] })),
    taskOutputs: [...def.taskOutputs, evidenceType],
  };
};

/** A transition between the states of two phases completes the one and starts the other. */
function withPhaseMoves(t: TransitionDef, from: StateDef, to: StateDef): TransitionDef {
  if (from.phase === to.phase) return t;
  const complete = from.phase ? [{ type: 'completePhase', params: { phase: from.phase } }] : [];
  return { ...t, actions: [...complete, ...(to.phase ? [{ type: 'startPhase', params: { phase: to.phase } }] : [])] };
}

/** Every task is completed or abandoned, and at least one is completed. */
export const tasksDone = (tasks: readonly { status: TaskStatus }[]) =>
  tasks.length > 0 && tasks.every((t) => isFinished(t.status)) && tasks.some((t) => t.status === 'completed');
export const baseName = (path: string) => path.split('/').at(-1)!;

/** The fields every type's entry in .sow/knowledge/index.yaml begins with. */
export const archiveEntry = (type: string, project: ProjectState, now: string) => ({
  type,
  topic: project.description || project.name,
  name: project.name,
  branch: project.branch,
  date: now.slice(0, 10),
});

/** Tags of a project: the phase's metadata `tags` (a list, or words separated by commas). */
export function tagsOf(project: ProjectState, phase: string): string[] {
  const raw = phaseOf(project, phase).metadata['tags'];
  if (Array.isArray(raw)) return raw.map(String);
  return typeof raw === 'string' ? raw.split(',').flatMap((tag) => tag.trim() || []) : [];
}
