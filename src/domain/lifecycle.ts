/** The lifecycle engine: one pure transition function over a project type's table, the only reader of it. */
import type { Actor } from './ownership.js';
import { JudgedView, withdrawalSentence } from './approvals.js';
import { PROJECT_DIR } from './artifacts.js';
import { errorClass, InvalidEventError, NoAutomaticEventError, TransitionBlockedError } from './errors.js';
import type { GuardDef, ProjectType, ProjectView, TransitionDef } from './project-type.js';
import type { HistoryEntry, ProjectState } from './schemas.js';

export type TransitionOption = ReturnType<typeof describe>;

/** Every sentence a guard's description (a clause) is put in, so each reads for every guard (lifecycle.test.ts). */
export const guardSentence = {
  blockedUntil: (clauses: readonly string[]): string => `blocked until ${clauses.join(', or until ')}`,
  when: (clause: string): string => `when ${clause}`,
};

// A transition out of the current state, judged with approvals as they stand (a changed document's lapsed);
// `withdrawn`: approvals the blocked guard read that were given and no longer count (what changed since).
function describe(type: ProjectType, t: TransitionDef, judged: JudgedView) {
  const guard = t.guard ? type.guards[t.guard] : undefined;
  const { value: blocked, withdrawn } = guard ? judged.watch((v) => !guard.check(v)) : { value: false, withdrawn: [] };
  const all = guard && blocked ? [...withdrawn, ...(guard.withdrawals?.(judged.view) ?? [])] : [];
  return {
    event: t.event,
    to: t.to,
    ...(t.guard ? { guard: t.guard } : {}),
    ...(guard ? { guardDescription: guard.description } : {}),
    blocked,
    ...(guard && blocked ? { hint: guard.hint(judged.view) } : {}),
    ...(all.length ? { withdrawn: all } : {}),
    automatic: t.automatic,
  };
}

/** Whether a guard of a transition out of `state` reads the tasks' whole states (view.taskStates). */
export function readsTaskStates(type: ProjectType, state: string): boolean {
  return type.transitions.some(
    (t) => t.from === state && t.guard !== undefined && type.guards[t.guard]?.readsTasks === true,
  );
}

/** Every transition out of the current state, with its guard and whether it is blocked now. */
export function listTransitions(type: ProjectType, view: ProjectView): TransitionOption[] {
  const from = view.project.statechart.current_state;
  const judged = new JudgedView(view);
  return type.transitions.filter((t) => t.from === from).map((t) => describe(type, t, judged));
}

/** The shortest way by automatic transitions to a state where `wanted` holds, with its first step judged. */
export function routeTo(type: ProjectType, view: ProjectView, wanted: (state: string) => boolean) {
  const judged = new JudgedView(view);
  const start = view.project.statechart.current_state;
  const seen = new Map<string, TransitionDef[]>([[start, []]]);
  const queue = [start];
  while (queue.length > 0) {
    const state = queue.shift()!;
    const path = seen.get(state)!;
    if (state !== start && wanted(state))
      return { steps: [start, ...path.map((t) => t.to)], first: describe(type, path[0]!, judged) };
    for (const t of type.transitions) {
      if (t.from !== state || !t.automatic || seen.has(t.to)) continue;
      seen.set(t.to, [...path, t]);
      queue.push(t.to);
    }
  }
  return undefined;
}

// Fires `event`, or the first automatic event whose guard holds: runs its actions and appends to the history. Throws
// TransitionBlockedError when no guard holds, InvalidEventError for an event the state does not have.
export function advance(type: ProjectType, view: ProjectView, now: string, actor: Actor, event?: string) {
  const from = view.project.statechart.current_state;
  const options = type.transitions.filter((t) => t.from === from);
  const candidates = options.filter((t) => (event === undefined ? t.automatic : t.event === event));
  const events = [...new Set(options.map((o) => o.event))];
  if (candidates.length === 0 && event === undefined) throw new NoAutomaticEventError(from, events);
  if (candidates.length === 0) {
    const elsewhere = type.transitions.find((t) => t.event === event);
    const all = type.transitions.map((t) => t.event);
    throw new InvalidEventError(event!, from, events, elsewhere?.from, all);
  }
  // A state whose own guard does not hold (set by hand) is no place to go on from.
  const problem = stateProblem(type, view);
  if (problem) throw new StateGuardUnmetError(problem);
  // Guards judge approvals as they stand; the actions change the project as it was read.
  const judged = new JudgedView(view);
  const chosen = candidates.find((t) => !t.guard || type.guards[t.guard]!.check(judged.view));
  const judge = (t: TransitionDef) => describe(type, t, judged);
  if (!chosen) throw blockedError(from, candidates.map(judge));

  let project = view.project;
  // Every action a transition names exists: its type's Transitions make a misspelt one a compile error.
  for (const action of chosen.actions ?? []) project = type.actions[action.type]!(project, action.params ?? {}, now);
  const entry: HistoryEntry = {
    from,
    to: chosen.to,
    event: chosen.event,
    at: now,
    by: actor.by,
    ...(actor.session ? { session: actor.session } : {}),
  };
  project = {
    ...project,
    statechart: {
      ...project.statechart,
      current_state: chosen.to,
      updated_at: now,
      history: [...(project.statechart.history ?? []), entry],
    },
  };
  return { from, to: chosen.to, event: chosen.event, project };
}

function blockedError(from: string, options: TransitionOption[]): TransitionBlockedError {
  const needs = options.map((o) => o.guardDescription ?? o.event);
  const hints = [...new Set(options.map((o) => o.hint).filter((h): h is string => Boolean(h)))];
  const withdrawn = [
    ...new Map(options.flatMap((o) => o.withdrawn ?? []).map((w) => [withdrawalSentence(w), w])).entries(),
  ];
  const why = withdrawn.length ? `; ${withdrawn.map(([sentence]) => sentence).join('; ')}` : '';
  return new TransitionBlockedError(
    `cannot advance from ${from}: ${guardSentence.blockedUntil(needs)}${why}`,
    hints.join('; or '),
    {
      state: from,
      blocked: options.map((o) => ({ event: o.event, to: o.to, guard: o.guard, description: o.guardDescription })),
      ...(withdrawn.length ? { withdrawn: withdrawn.map(([, w]) => w) } : {}),
    },
  );
}

/** A way into a state whose guard does not hold on the data as it is now. */
type UnmetEntry = { from: string; event: string; guard: string; description: string; hint: string };

// The current state, which no way into it holds for (a state set by hand in the project file); `back`: the state to go
// back to, the latest of its history whose way in holds.
export type StateProblem = { state: string; unmet: UnmetEntry[]; back?: string };

/** A guard's `standing` (default: its check), or undefined when it reads evidence or unread task files. */
function stands(guard: GuardDef, view: ProjectView): boolean | undefined {
  if (guard.evidence) return undefined;
  if (guard.readsTasks && view.taskStates === undefined && !guard.standing) return undefined;
  return (guard.standing ?? guard.check)(view);
}

/** The ways into `state` that do not hold, or undefined when one of them holds (or cannot be judged). */
function unmetEntries(type: ProjectType, view: ProjectView, state: string): UnmetEntry[] | undefined {
  if (state === type.initialState || type.states[state]?.final) return undefined;
  const ways = type.transitions.filter((t) => t.to === state);
  const guards = ways.map((t) => (t.guard ? type.guards[t.guard] : undefined));
  if (ways.length === 0 || guards.some((guard) => !guard || stands(guard, view) !== false)) return undefined;
  return ways.map((t, i) => {
    const guard = guards[i]!;
    return { from: t.from, event: t.event, guard: t.guard!, description: guard.description, hint: guard.hint(view) };
  });
}

// Whether a guard into the current state holds on the data now: sow enters a state only through one, so a state none
// holds for was set by hand or its data changed since. Cheap: reads no file.
export function stateProblem(type: ProjectType, view: ProjectView): StateProblem | undefined {
  const state = view.project.statechart.current_state;
  const unmet = unmetEntries(type, view, state);
  if (!unmet) return undefined;
  const back = [...(view.project.statechart.history ?? [])]
    .reverse()
    .flatMap((entry) => [entry.to, entry.from])
    .find(
      (candidate) =>
        candidate !== state &&
        Object.hasOwn(type.states, candidate) &&
        candidate !== type.initialState &&
        !type.states[candidate]!.final &&
        unmetEntries(type, view, candidate) === undefined,
    );
  return { state, unmet, ...(back ? { back } : {}) };
}

const STATE_FILE = `${PROJECT_DIR}/state.yaml`;

/** "the project is in ReviewActive, but its guard does not hold: … (allTasksComplete, the way in from …)". */
export function stateProblemText(problem: StateProblem): string {
  const unmet = problem.unmet.map((u) => `${u.description} (${u.guard}, the way in from ${u.from})`).join(', nor ');
  return `the project is in ${problem.state}, but its guard does not hold: ${unmet}`;
}

/** How to get back: make the guard hold, or set the state back (no command moves it backwards). */
export function stateProblemHint(problem: StateProblem): string {
  const hold = [...new Set(problem.unmet.map((u) => u.hint))].join('; or ');
  const back = problem.back
    ? `set it back to ${problem.back}, where its guard holds: in ${STATE_FILE}, ` +
      `'statechart.current_state: ${problem.back}'`
    : `set statechart.current_state in ${STATE_FILE} back to the state the project was really in`;
  return `${back}; or make the guard hold (${hold})`;
}

/** `sow advance` from a state whose guard does not hold (exit 3): moving on would carry the state forward. */
export class StateGuardUnmetError extends errorClass('STATE_GUARD_UNMET', 'blocked', (problem: StateProblem) => [
  `cannot advance: ${stateProblemText(problem)}`,
  stateProblemHint(problem),
  {
    state: problem.state,
    unmet: problem.unmet.map(({ hint: _hint, ...u }) => u),
    ...(problem.back ? { back: problem.back } : {}),
  },
]) {}
