/** Pictures of a project as data, read from the tables `advance` runs on so they cannot drift (cli/graph.ts draws). */
import type { TransitionOption } from './lifecycle.js';
import type { ProjectType } from './project-type.js';
import type { HistoryEntry, TaskSummary } from './schemas.js';
import { byId, compareIds } from './tasks.js';

/** The machine of `type` as data; with a project, its current state and the transitions out of it, judged. */
export function lifecycleGraph(type: ProjectType, project?: { current: string; options: readonly TransitionOption[] }) {
  const current = project?.current ?? null;
  return {
    type: type.name,
    initial: type.initialState,
    current,
    states: Object.entries(type.states).map(([name, def]) => ({ name, phase: def.phase, final: def.final === true })),
    transitions: type.transitions.map((t) => {
      const judged =
        t.from === current ? project?.options.find((o) => o.event === t.event && o.to === t.to) : undefined;
      const description = t.guard ? type.guards[t.guard]?.description : undefined;
      return {
        from: t.from,
        event: t.event,
        to: t.to,
        ...(t.guard ? { guard: t.guard } : {}),
        ...(description ? { guardDescription: description } : {}),
        automatic: t.automatic,
        ...(judged && t.guard ? { blocked: judged.blocked } : {}),
      };
    }),
  };
}

export type LifecycleGraph = ReturnType<typeof lifecycleGraph>;
export type LifecycleTransition = LifecycleGraph['transitions'][number];

// A type's main path: from the state project_init enters along each state's first automatic transition to a new state,
// until a final state (excluded).
export function mainPath(type: ProjectType): string[] {
  const inits = type.transitions.filter((t) => t.from === type.initialState);
  const entry = (inits.find((t) => !t.guard) ?? inits[0])?.to;
  const path: string[] = [];
  for (let state = entry; state !== undefined && !type.states[state]?.final && !path.includes(state);) {
    path.push(state);
    const from: string = state;
    state = type.transitions.find((t) => t.from === from && t.automatic && !path.includes(t.to))?.to;
  }
  return path;
}

type MapMark = 'done' | 'current' | 'skipped' | 'ahead';
/** `offPath`: the current state when it is not on the main path (a side state). */
export type LifecycleMap = { steps: { state: string; mark: MapMark }[]; offPath?: string };

/** Where a project is on its type's main path: each state done, current, skipped (never entered) or ahead. */
export function lifecycleMap(type: ProjectType, current: string, history: readonly HistoryEntry[] = []): LifecycleMap {
  const path = mainPath(type);
  const left = new Set(history.map((h) => h.from));
  const entered = new Set(history.map((h) => h.to));
  const at = path.indexOf(current);
  const markOf = (state: string, i: number): MapMark => {
    if (state === current) return 'current';
    if (left.has(state)) return 'done';
    return at >= 0 && i < at && !entered.has(state) ? 'skipped' : 'ahead';
  };
  const steps = path.map((state, i) => ({ state, mark: markOf(state, i) }));
  return at >= 0 ? { steps } : { steps, offPath: current };
}

/** `edges`: `from` must finish before `to` starts (`to` depends on `from`). */
export function taskGraph(tasks: readonly TaskSummary[]) {
  return {
    nodes: tasks.map((t) => ({ id: t.id, name: t.name, status: t.status })),
    edges: tasks.flatMap((t) => t.dependencies.map((dep) => ({ from: dep, to: t.id }))),
  };
}

export type TaskGraph = ReturnType<typeof taskGraph>;

/** The tasks in dependency order (else by id), each with its depth; tasks of a cycle would come last. */
export function topologicalOrder(g: TaskGraph): { id: string; depth: number }[] {
  const deps = new Map<string, string[]>(g.nodes.map((n) => [n.id, []]));
  const dependents = new Map<string, string[]>(g.nodes.map((n) => [n.id, []]));
  for (const e of g.edges) {
    if (!deps.has(e.to) || !deps.has(e.from)) continue;
    deps.get(e.to)!.push(e.from);
    dependents.get(e.from)!.push(e.to);
  }
  const waiting = new Map([...deps].map(([id, d]) => [id, d.length]));
  const depth = new Map<string, number>();
  // The lowest id among the ready tasks comes next: a binary heap, as a re-sorted queue is quadratic in tasks that
  // become ready one by one while many wait (10,000 tasks in pairs).
  const ready: string[] = [];
  const push = (id: string) => {
    let i = ready.push(id) - 1;
    while (i > 0 && compareIds(id, ready[(i - 1) >> 1]!) < 0) {
      ready[i] = ready[(i - 1) >> 1]!;
      i = (i - 1) >> 1;
    }
    ready[i] = id;
  };
  const pop = () => {
    const top = ready[0]!;
    const last = ready.pop()!;
    let i = 0;
    for (let c = 1; c < ready.length; i = c, c = 2 * c + 1) {
      if (c + 1 < ready.length && compareIds(ready[c + 1]!, ready[c]!) < 0) c++;
      if (compareIds(last, ready[c]!) <= 0) break;
      ready[i] = ready[c]!;
    }
    if (ready.length > 0) ready[i] = last;
    return top;
  };
  for (const n of g.nodes) if (waiting.get(n.id) === 0) push(n.id);
  const out: { id: string; depth: number }[] = [];
  while (ready.length > 0) {
    const id = pop();
    // A loop, not Math.max(...): spread as arguments, some 125,000 dependencies overflow the stack.
    let d = 0;
    for (const dep of deps.get(id)!) d = Math.max(d, (depth.get(dep) ?? 0) + 1);
    depth.set(id, d);
    out.push({ id, depth: d });
    for (const next of dependents.get(id)!) {
      const left = waiting.get(next)! - 1;
      waiting.set(next, left);
      if (left === 0) push(next);
    }
  }
  const placed = new Set(out.map((o) => o.id));
  for (const n of [...g.nodes].sort(byId)) if (!placed.has(n.id)) out.push({ id: n.id, depth: 0 });
  return out;
}
