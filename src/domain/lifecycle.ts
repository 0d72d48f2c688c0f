/**
 * The lifecycle engine: builds an XState machine from a project type's transition table and
 * evaluates it with XState's pure `transition`, so `advance`, `advance --dry-run` and the tests
 * share one code path and none of them needs a running actor.
 */
import { createMachine, transition as xTransition, type AnyStateMachine } from 'xstate';
import { InvalidEventError, TransitionBlockedError, UsageError } from './errors.js';
import type { ProjectType } from './project-types/types.js';
import { listTransitions, type TransitionOption } from './transitions.js';

export { listTransitions, type TransitionOption } from './transitions.js';
import type { ProjectState } from './schemas.js';

interface Ctx { project: ProjectState }

const machines = new WeakMap<ProjectType, AnyStateMachine>();

export function machineOf(type: ProjectType): AnyStateMachine {
  let machine = machines.get(type);
  if (machine) return machine;
  type XTransition = { target: string; guard?: string; actions: { type: string; params: Readonly<Record<string, string>> }[] };
  const states: Record<string, { on: Record<string, XTransition[]> }> = {};
  for (const name of Object.keys(type.states)) states[name] = { on: {} };
  for (const t of type.transitions) {
    const on = states[t.from]!.on;
    (on[t.event] ??= []).push({
      target: t.to,
      ...(t.guard ? { guard: t.guard } : {}),
      actions: (t.actions ?? []).map((a) => ({ type: a.type, params: a.params ?? {} })),
    });
  }
  // The table is data built at run time, so XState's literal-type inference cannot check it;
  // the reachability and guard tests in lifecycle.test.ts do instead.
  const config = { id: type.name, initial: type.initialState, context: { project: undefined as unknown as ProjectState }, states };
  machine = createMachine(
    config as Parameters<typeof createMachine>[0],
    {
      guards: Object.fromEntries(
        Object.entries(type.guards).map(([name, g]) => [name, ({ context }: { context: Ctx }) => g.check(context.project)]),
      ),
    } as never,
  );
  machines.set(type, machine);
  return machine;
}

export interface AdvanceResult {
  from: string;
  to: string;
  event: string;
  project: ProjectState;
}

/**
 * Fires `event`, or the first automatic event whose guard holds. Throws TransitionBlockedError
 * (nothing changes) when no guard holds, InvalidEventError for an event the state does not have.
 */
export function advance(type: ProjectType, project: ProjectState, now: string, event?: string): AdvanceResult {
  const from = project.statechart.current_state;
  if (!type.states[from]) throw new UsageError(`state '${from}' is not a state of the ${type.name} lifecycle`);
  const options = listTransitions(type, project);
  let chosen: TransitionOption | undefined;
  if (event !== undefined) {
    const matching = options.filter((o) => o.event === event);
    if (matching.length === 0) throw new InvalidEventError(event, from, [...new Set(options.map((o) => o.event))]);
    chosen = matching.find((o) => !o.blocked);
    if (!chosen) throw blockedError(from, matching);
  } else {
    const automatic = options.filter((o) => o.automatic);
    if (automatic.length === 0) throw new InvalidEventError('(automatic)', from, []);
    chosen = automatic.find((o) => !o.blocked);
    if (!chosen) throw blockedError(from, automatic);
  }

  const machine = machineOf(type);
  const snapshot = machine.resolveState({ value: from, context: { project } });
  const [next, actions] = xTransition(machine, snapshot, { type: chosen.event });
  const to = String(next.value);
  let result = project;
  for (const action of actions) {
    const impl = type.actions[action.type];
    if (impl) result = impl(result, (action.params ?? {}) as unknown as Record<string, string>, now);
  }
  result = { ...result, statechart: { ...result.statechart, current_state: to, updated_at: now } };
  return { from, to, event: chosen.event, project: result };
}

function blockedError(from: string, options: TransitionOption[]): TransitionBlockedError {
  const needs = options.map((o) => o.guardDescription ?? o.event);
  const hints = [...new Set(options.map((o) => o.hint).filter((h): h is string => Boolean(h)))];
  return new TransitionBlockedError(
    `cannot advance from ${from}: blocked until ${needs.join(', or until ')}`,
    hints.join('; or '),
    { state: from, blocked: options.map((o) => ({ event: o.event, to: o.to, guard: o.guard, description: o.guardDescription })) },
  );
}
