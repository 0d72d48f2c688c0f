/**
 * The lifecycle engine: one pure transition function over a project type's table. `advance`,
 * `advance --dry-run`, `advance --list`, the status view and the reachability tests all read the
 * same table; nothing else knows the transitions.
 */
import { InvalidEventError, NoAutomaticEventError, TransitionBlockedError } from './errors.js';
import type { ProjectType, ProjectView, TransitionDef } from './project-type.js';
import type { HistoryEntry, ProjectState } from './schemas.js';

export interface TransitionOption {
  event: string;
  to: string;
  guard?: string;
  guardDescription?: string;
  blocked: boolean;
  hint?: string;
  automatic: boolean;
}

/**
 * A guard's description is a clause that holds or not ("a task_list output of planning is
 * approved"). Every sentence a description is put in is made here, so each reads for every guard
 * of every type (lifecycle.test.ts composes them all).
 */
export const guardSentence = {
  /** "blocked until <clause>, or until <clause>". */
  blockedUntil: (clauses: readonly string[]): string => `blocked until ${clauses.join(', or until ')}`,
  /** "when <clause>": the condition a transition goes on. */
  when: (clause: string): string => `when ${clause}`,
};

/** Who fires a transition: a worker (its agent id and session), else the user. */
export interface Actor {
  by: string;
  /** The session it runs in (SOW_SESSION_ID): an identity of its own. */
  session?: string;
  /** A name that claims tasks (`--owner`, SOW_OWNER). */
  owner?: string;
  /** The person at the terminal, by name, when there is one (looked up only when a claim needs it). */
  person?: string;
}

function describe(type: ProjectType, t: TransitionDef, view: ProjectView): TransitionOption {
  const guard = t.guard ? type.guards[t.guard] : undefined;
  const blocked = guard ? !guard.check(view) : false;
  return {
    event: t.event,
    to: t.to,
    ...(t.guard ? { guard: t.guard } : {}),
    ...(guard ? { guardDescription: guard.description } : {}),
    blocked,
    ...(guard && blocked ? { hint: guard.hint(view) } : {}),
    automatic: t.automatic,
  };
}

/** Whether a guard of a transition out of `state` reads the tasks' whole states (view.taskStates). */
export function readsTaskStates(type: ProjectType, state: string): boolean {
  return type.transitions.some((t) => t.from === state && t.guard !== undefined && type.guards[t.guard]?.readsTasks === true);
}

/** Every transition out of the current state, with its guard and whether it is blocked now. */
export function listTransitions(type: ProjectType, view: ProjectView): TransitionOption[] {
  const from = view.project.statechart.current_state;
  return type.transitions.filter((t) => t.from === from).map((t) => describe(type, t, view));
}

/**
 * The shortest way, by automatic transitions, from the current state to one where `wanted` holds:
 * the first step with its guard (blocked now or not), and how many steps there are. Undefined when
 * no such state can be reached.
 */
export function routeTo(type: ProjectType, view: ProjectView, wanted: (state: string) => boolean): { steps: string[]; first: TransitionOption } | undefined {
  const start = view.project.statechart.current_state;
  const seen = new Map<string, TransitionDef[]>([[start, []]]);
  const queue = [start];
  while (queue.length > 0) {
    const state = queue.shift()!;
    const path = seen.get(state)!;
    if (state !== start && wanted(state)) {
      return { steps: [start, ...path.map((t) => t.to)], first: describe(type, path[0]!, view) };
    }
    for (const t of type.transitions) {
      if (t.from !== state || !t.automatic || seen.has(t.to)) continue;
      seen.set(t.to, [...path, t]);
      queue.push(t.to);
    }
  }
  return undefined;
}

export interface AdvanceResult {
  from: string;
  to: string;
  event: string;
  project: ProjectState;
}

/**
 * Fires `event`, or the first automatic event whose guard holds, runs its actions in order and
 * appends the transition to `statechart.history`. Throws TransitionBlockedError (nothing changes)
 * when no guard holds, InvalidEventError for an event the state does not have.
 */
export function advance(type: ProjectType, view: ProjectView, now: string, actor: Actor, event?: string): AdvanceResult {
  const from = view.project.statechart.current_state;
  const options = type.transitions.filter((t) => t.from === from);
  let candidates: readonly TransitionDef[];
  if (event !== undefined) {
    candidates = options.filter((t) => t.event === event);
    if (candidates.length === 0) {
      const elsewhere = type.transitions.find((t) => t.event === event);
      throw new InvalidEventError(
        event,
        from,
        [...new Set(options.map((o) => o.event))],
        elsewhere?.from,
        type.transitions.map((t) => t.event),
      );
    }
  } else {
    candidates = options.filter((t) => t.automatic);
    if (candidates.length === 0) throw new NoAutomaticEventError(from, [...new Set(options.map((o) => o.event))]);
  }
  const chosen = candidates.find((t) => !t.guard || type.guards[t.guard]!.check(view));
  if (!chosen)
    throw blockedError(
      from,
      candidates.map((t) => describe(type, t, view)),
    );

  let project = view.project;
  for (const action of chosen.actions ?? []) {
    const impl = type.actions[action.type];
    if (!impl) throw new Error(`project type ${type.name} has no action '${action.type}'`);
    project = impl(project, action.params ?? {}, now);
  }
  const entry: HistoryEntry = { from, to: chosen.to, event: chosen.event, at: now, by: actor.by, ...(actor.session ? { session: actor.session } : {}) };
  project = {
    ...project,
    statechart: { ...project.statechart, current_state: chosen.to, updated_at: now, history: [...(project.statechart.history ?? []), entry] },
  };
  return { from, to: chosen.to, event: chosen.event, project };
}

function blockedError(from: string, options: TransitionOption[]): TransitionBlockedError {
  const needs = options.map((o) => o.guardDescription ?? o.event);
  const hints = [...new Set(options.map((o) => o.hint).filter((h): h is string => Boolean(h)))];
  return new TransitionBlockedError(`cannot advance from ${from}: ${guardSentence.blockedUntil(needs)}`, hints.join('; or '), {
    state: from,
    blocked: options.map((o) => ({ event: o.event, to: o.to, guard: o.guard, description: o.guardDescription })),
  });
}
