// The lifecycle, a project's place on it and the task graph, as text, mermaid or dot. Every format reads without colour
// (states and statuses are words or symbols); `paint` may add colour on top.
import {
  topologicalOrder,
  type LifecycleGraph,
  type LifecycleMap,
  type LifecycleTransition,
  type TaskGraph,
} from '../domain/graph.js';
import { shown } from '../domain/display.js';
import { plain as PLAIN, type Paint } from './colour.js';

export const GRAPH_FORMATS = ['text', 'mermaid', 'dot'] as const;
export type GraphFormat = (typeof GRAPH_FORMATS)[number];

const guardWord = (t: LifecycleTransition): string | undefined =>
  t.blocked === undefined ? undefined : t.blocked ? 'blocked' : 'met';

/** Final states a transition enters: where a project ends (a final state nothing enters is only a start). */
function endStates(g: LifecycleGraph): string[] {
  const entered = new Set(g.transitions.map((t) => t.to));
  return g.states.filter((s) => s.final && entered.has(s.name)).map((s) => s.name);
}

/** One line per transition (`▶ A --event [guard: blocked]--> B`, ▶ on the current state's), then the guards. */
export function renderLifecycleText(g: LifecycleGraph, paint: Paint = PLAIN): string {
  const width = Math.max(0, ...g.transitions.map((t) => t.from.length));
  const lines = [
    g.current === null
      ? `Lifecycle of ${g.type} projects, from ${g.initial} (no project: no state is current)`
      : `Lifecycle of this ${g.type} project: ▶ marks the current state, ${paint('current', g.current)}`,
    '',
  ];
  for (const t of g.transitions) {
    const here = t.from === g.current;
    const word = guardWord(t);
    const guard = t.guard ? ` [${t.guard}${word ? `: ${paint(word, word)}` : ''}]` : '';
    const from = t.from.padEnd(width);
    lines.push(
      `${here ? paint('current', '▶') : ' '} ${here ? paint('current', from) : from} ` +
        `--${t.event}${guard}--> ${t.to === g.current ? paint('current', t.to) : t.to}`,
    );
  }
  const ends = endStates(g);
  if (ends.length) lines.push('', `Ends in: ${ends.join(', ')}`);
  const guards = new Map<string, string>();
  for (const t of g.transitions) if (t.guard && t.guardDescription) guards.set(t.guard, t.guardDescription);
  if (guards.size) {
    const gw = Math.max(...[...guards.keys()].map((k) => k.length));
    lines.push('', 'Guards', ...[...guards].map(([name, description]) => `  ${name.padEnd(gw)}  ${description}`));
  }
  return lines.join('\n');
}

const transitionLabel = (t: LifecycleTransition): string => {
  const word = guardWord(t);
  return `${t.event}${t.guard ? ` [${t.guard}]` : ''}${word ? ` (${word})` : ''}`;
};

/** A mermaid `stateDiagram-v2`: labels `event [guard]`, final states `--> [*]`, the current state in class current. */
export function renderLifecycleMermaid(g: LifecycleGraph): string {
  const lines = ['stateDiagram-v2', `    [*] --> ${g.initial}`];
  for (const t of g.transitions) lines.push(`    ${t.from} --> ${t.to} : ${transitionLabel(t)}`);
  for (const end of endStates(g)) lines.push(`    ${end} --> [*]`);
  if (g.current !== null) {
    lines.push('    classDef current fill:#fff3b0,stroke:#b58900,stroke-width:3px', `    class ${g.current} current`);
  }
  return lines.join('\n');
}

const dotString = (s: string): string => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;

/** A graphviz `digraph`: final states with a double border, the current state bold with "(current)" under its name. */
export function renderLifecycleDot(g: LifecycleGraph): string {
  const lines = [
    `digraph ${dotString(g.type)} {`,
    '  rankdir=LR;',
    '  node [shape=box, style=rounded];',
    '  edge [fontsize=10];',
    '  "[*]" [shape=point, label=""];',
    `  "[*]" -> ${dotString(g.initial)};`,
  ];
  for (const s of g.states) {
    const attrs: string[] = [];
    if (s.final) attrs.push('peripheries=2');
    if (s.name === g.current)
      attrs.push(
        `label=${dotString(`${s.name}\n(current)`)}`,
        'style="rounded,bold,filled"',
        'fillcolor="#fff3b0"',
        'penwidth=2',
      );
    lines.push(`  ${dotString(s.name)}${attrs.length ? ` [${attrs.join(', ')}]` : ''};`);
  }
  for (const t of g.transitions) {
    const attrs = [`label=${dotString(transitionLabel(t))}`];
    if (t.blocked !== undefined) attrs.push(t.blocked ? 'style=dashed' : 'penwidth=2');
    lines.push(`  ${dotString(t.from)} -> ${dotString(t.to)} [${attrs.join(', ')}];`);
  }
  lines.push('}');
  return lines.join('\n');
}

export const renderLifecycle = (g: LifecycleGraph, format: GraphFormat, paint: Paint = PLAIN): string =>
  ({ text: renderLifecycleText, mermaid: renderLifecycleMermaid, dot: renderLifecycleDot })[format](g, paint);

/** `PlanningActive ✓ → ImplementationPlanning ✓ → [ImplementationExecuting] → ReviewActive → …` */
export function renderLifecycleMap(map: LifecycleMap, paint: Paint = PLAIN): string {
  const parts = map.steps.map(({ state, mark }) =>
    mark === 'current'
      ? paint('current', `[${state}]`)
      : mark === 'done'
        ? `${state} ${paint('done', '✓')}`
        : mark === 'skipped'
          ? paint('skipped', `${state} (skipped)`)
          : state,
  );
  const off = map.offPath ? `  (now in ${paint('current', `[${map.offPath}]`)}, off this path)` : '';
  return `${parts.join(' → ')}${off}`;
}

/** Deep chains are indented no further than this, so 10,000 tasks in a row still fit a terminal. */
const MAX_INDENT = 8;

/** `  020 [in_progress] Parser ← 010`: dependency order, indented by depth. */
export function renderTasksText(g: TaskGraph, paint: Paint = PLAIN): string {
  const byId = new Map(g.nodes.map((n) => [n.id, n]));
  const deps = new Map<string, string[]>();
  for (const e of g.edges) deps.set(e.to, [...(deps.get(e.to) ?? []), e.from]);
  return topologicalOrder(g)
    .map(({ id, depth }) => {
      const n = byId.get(id)!;
      const after = deps.get(id);
      const indent = '  '.repeat(Math.min(depth, MAX_INDENT));
      const afterText = after ? ` ← ${after.join(', ')}` : '';
      return `${indent}${id} ${paint(n.status, `[${n.status}]`)} ${shown(n.name)}${afterText}`;
    })
    .join('\n');
}

/** A mermaid label: quotes, angle brackets and `#` as entities, so a task's name cannot break the diagram. */
const mermaidText = (s: string): string =>
  s.replace(/#/g, '#35;').replace(/"/g, '#quot;').replace(/</g, '#lt;').replace(/>/g, '#gt;').replace(/\s+/g, ' ');

const STATUS_STYLE: Readonly<Record<string, string>> = {
  completed: 'fill:#d4edda,stroke:#2e7d32',
  in_progress: 'fill:#fff3b0,stroke:#b58900',
  needs_review: 'fill:#e8dcf5,stroke:#6f42c1',
  paused: 'fill:#fde2c4,stroke:#c05621',
  failed: 'fill:#f8d7da,stroke:#c62828',
  abandoned: 'fill:#eeeeee,stroke:#999999,color:#777777',
  pending: 'fill:#ffffff,stroke:#666666',
};

/** A mermaid `flowchart TD`: a node per task (`t010`: id, name, status), an arrow from each dependency. */
export function renderTasksMermaid(g: TaskGraph): string {
  const lines = ['flowchart TD'];
  for (const n of g.nodes) lines.push(`    t${n.id}["${mermaidText(`${n.id} ${n.name} [${n.status}]`)}"]`);
  for (const e of g.edges) lines.push(`    t${e.from} --> t${e.to}`);
  const byStatus = new Map<string, string[]>();
  for (const n of g.nodes) byStatus.set(n.status, [...(byStatus.get(n.status) ?? []), `t${n.id}`]);
  for (const [status, ids] of byStatus) {
    const style = STATUS_STYLE[status];
    if (style) lines.push(`    classDef ${status} ${style}`, `    class ${ids.join(',')} ${status}`);
  }
  return lines.join('\n');
}

/** A graphviz `digraph`: a box per task (id, name, status), an arrow from each dependency. */
export function renderTasksDot(g: TaskGraph): string {
  const lines = ['digraph tasks {', '  rankdir=TB;', '  node [shape=box, style=rounded];'];
  for (const n of g.nodes) {
    const attrs = [`label=${dotString(`${n.id} ${n.name}\n[${n.status}]`)}`];
    if (n.status === 'completed') attrs.push('style="rounded,filled"', 'fillcolor="#d4edda"');
    else if (n.status === 'abandoned') attrs.push('style="rounded,dashed"');
    lines.push(`  ${dotString(n.id)} [${attrs.join(', ')}];`);
  }
  for (const e of g.edges) lines.push(`  ${dotString(e.from)} -> ${dotString(e.to)};`);
  lines.push('}');
  return lines.join('\n');
}

export const renderTasks = (g: TaskGraph, format: GraphFormat, paint: Paint = PLAIN): string =>
  ({ text: renderTasksText, mermaid: renderTasksMermaid, dot: renderTasksDot })[format](g, paint);
