import { describe, expect, it } from 'vitest';
import { lifecycleGraph, lifecycleMap, mainPath, taskGraph, topologicalOrder } from '../domain/graph.js';
import {
  GRAPH_FORMATS,
  renderLifecycle,
  renderLifecycleDot,
  renderLifecycleMap,
  renderLifecycleMermaid,
  renderLifecycleText,
  renderTasks,
  renderTasksDot,
  renderTasksMermaid,
  renderTasksText,
} from './graph.js';
import { listTransitions, type TransitionOption } from '../domain/lifecycle.js';
import { allProjectTypes } from '../domain/project-types/index.js';

const PROJECT_TYPES = Object.fromEntries((await allProjectTypes()).map((t) => [t.name, t]));
import { standard } from '../domain/project-types/standard/index.js';
import type { ProjectType } from '../domain/project-type.js';
import type { Artifact, HistoryEntry, ProjectState, TaskSummary } from '../domain/schemas.js';

const T0 = '2026-01-01T00:00:00.000Z';
const TYPES = Object.values(PROJECT_TYPES);

/** The transitions out of `state`, every guarded one judged blocked. */
const judged = (type: ProjectType, state: string): TransitionOption[] =>
  type.transitions
    .filter((t) => t.from === state)
    .map((t) => ({
      event: t.event,
      to: t.to,
      ...(t.guard ? { guard: t.guard } : {}),
      blocked: t.guard !== undefined,
      automatic: t.automatic,
    }));

function standardProject(state: string, history: HistoryEntry[] = []): ProjectState {
  const phase = () => ({
    status: 'pending' as const,
    enabled: true,
    iteration: 1,
    created_at: T0,
    metadata: {},
    inputs: [] as Artifact[],
    outputs: [] as Artifact[],
  });
  return {
    name: 'demo',
    type: 'standard',
    description: '',
    branch: 'feat/demo',
    created_at: T0,
    updated_at: T0,
    statechart: { current_state: state, updated_at: T0, history },
    phases: { planning: phase(), implementation: phase(), review: phase(), finalize: phase() },
  };
}
const step = (from: string, to: string): HistoryEntry => ({ from, to, event: 'e', at: T0, by: 'user' });
const task = (
  id: string,
  status: TaskSummary['status'],
  dependencies: string[] = [],
  name = `task ${id}`,
): TaskSummary => ({ id, name, status, parallel: false, dependencies });

describe('the lifecycle as data', () => {
  it('is the type table: every state and transition, with guard descriptions, nothing marked without a project', () => {
    const g = lifecycleGraph(standard);
    expect(g.type).toBe('standard');
    expect(g.initial).toBe('NoProject');
    expect(g.current).toBeNull();
    expect(g.states.map((s) => s.name)).toEqual(Object.keys(standard.states));
    expect(g.transitions).toHaveLength(standard.transitions.length);
    expect(g.transitions.find((t) => t.event === 'tasks_approved')).toEqual({
      from: 'ImplementationPlanning',
      event: 'tasks_approved',
      to: 'ImplementationExecuting',
      guard: 'tasksApproved',
      guardDescription: standard.guards['tasksApproved']!.description,
      automatic: true,
    });
    expect(g.transitions.some((t) => t.blocked !== undefined)).toBe(false);
  });

  it('judges the guards out of the current state (and only those) as listTransitions does', () => {
    const project = standardProject('ImplementationExecuting');
    const tasks = [task('010', 'completed'), task('020', 'pending')];
    const g = lifecycleGraph(standard, {
      current: 'ImplementationExecuting',
      options: listTransitions(standard, { project, tasks }),
    });
    expect(g.current).toBe('ImplementationExecuting');
    expect(g.transitions.filter((t) => t.blocked !== undefined)).toEqual([
      expect.objectContaining({ event: 'all_tasks_complete', blocked: true }),
    ]);
    const done = lifecycleGraph(standard, {
      current: 'ImplementationExecuting',
      options: listTransitions(standard, { project, tasks: [task('010', 'completed')] }),
    });
    expect(done.transitions.find((t) => t.event === 'all_tasks_complete')!.blocked).toBe(false);
    // A transition without a guard has nothing to judge.
    const finalizing = lifecycleGraph(standard, {
      current: 'FinalizeDocumentation',
      options: judged(standard, 'FinalizeDocumentation'),
    });
    expect(finalizing.transitions.find((t) => t.event === 'documentation_done')!.blocked).toBeUndefined();
  });
});

describe('every registered type renders in every format', () => {
  for (const type of TYPES) {
    const current = mainPath(type)[1] ?? mainPath(type)[0]!;
    const marked = lifecycleGraph(type, { current, options: judged(type, current) });
    const bare = lifecycleGraph(type);

    it(
      `${type.name}: mermaid stateDiagram-v2 with [*], every transition labelled event [guard], the current state ` +
        `in class current`,
      () => {
        const text = renderLifecycleMermaid(marked);
        const lines = text.split('\n');
        expect(lines[0]).toBe('stateDiagram-v2');
        expect(lines).toContain(`    [*] --> ${type.initialState}`);
        for (const t of type.transitions) {
          expect(
            lines.some((l) => l.startsWith(`    ${t.from} --> ${t.to} : ${t.event}${t.guard ? ` [${t.guard}]` : ''}`)),
            `${t.from} --${t.event}--> ${t.to}`,
          ).toBe(true);
        }
        for (const [name, def] of Object.entries(type.states)) {
          if (def.final && type.transitions.some((t) => t.to === name)) expect(lines).toContain(`    ${name} --> [*]`);
        }
        expect(lines).toContain(`    class ${current} current`);
        expect(lines.some((l) => l.startsWith('    classDef current '))).toBe(true);
        // Ids are bare state names, which mermaid accepts as they are; labels hold no colon after the first.
        for (const l of lines.slice(1))
          expect(l).toMatch(/^ {4}(\[\*\]|[A-Za-z]\w*) --> (\[\*\]|[A-Za-z]\w*)( : [^:]+)?$|^ {4}class(Def)? /);
        expect(renderLifecycleMermaid(bare)).not.toContain('current');
      },
    );

    it(`${type.name}: dot is a digraph with every state and transition, the current state labelled (current)`, () => {
      const text = renderLifecycleDot(marked);
      expect(text).toMatch(/^digraph "\w+" \{\n/);
      expect(text.endsWith('\n}')).toBe(true);
      for (const name of Object.keys(type.states)) expect(text).toContain(`  "${name}"`);
      for (const t of type.transitions) expect(text).toContain(`"${t.from}" -> "${t.to}" [label="${t.event}`);
      expect(text).toContain(`label="${current}\\n(current)"`);
      expect(renderLifecycleDot(bare)).not.toContain('(current)');
      // Balanced quotes on every line: nothing a name holds breaks the file.
      for (const line of text.split('\n')) expect((line.replace(/\\"/g, '').match(/"/g) ?? []).length % 2).toBe(0);
    });

    it(
      `${type.name}: text has a line per transition, the current state's marked ▶ and its guards met or ` +
        `blocked in words`,
      () => {
        const text = renderLifecycleText(marked);
        const arrows = text.split('\n').filter((l) => l.includes('-->'));
        expect(arrows).toHaveLength(type.transitions.length);
        const here = arrows.filter((l) => l.startsWith('▶'));
        expect(here).toHaveLength(type.transitions.filter((t) => t.from === current).length);
        for (const l of here) expect(l).toMatch(new RegExp(`^▶ ${current} +--`));
        for (const t of type.transitions.filter((x) => x.from === current && x.guard))
          expect(text).toContain(`[${t.guard}: blocked]-->`);
        expect(text).toContain(`current state, ${current}`);
        expect(renderLifecycleText(bare)).not.toMatch(/▶|: blocked|: met/);
      },
    );

    it(`${type.name}: renderLifecycle picks the format`, () => {
      for (const format of GRAPH_FORMATS) expect(renderLifecycle(marked, format).length).toBeGreaterThan(0);
      expect(renderLifecycle(marked, 'mermaid')).toBe(renderLifecycleMermaid(marked));
      expect(renderLifecycle(marked, 'dot')).toBe(renderLifecycleDot(marked));
      expect(renderLifecycle(marked, 'text')).toBe(renderLifecycleText(marked));
    });
  }

  it('the text reads as the issue shows it, and paint only wraps the words it is given', () => {
    const g = lifecycleGraph(standard, {
      current: 'ImplementationExecuting',
      options: judged(standard, 'ImplementationExecuting'),
    });
    const text = renderLifecycleText(g);
    expect(text).toMatch(
      /^▶ ImplementationExecuting +--all_tasks_complete \[allTasksComplete: blocked\]--> ReviewActive$/m,
    );
    expect(text).toMatch(/^ {2}allTasksComplete +every task is completed or abandoned/m);
    const painted = renderLifecycleText(g, (word, t) => `<${word}>${t}</>`);
    expect(painted).toContain('[allTasksComplete: <blocked>blocked</>]');
    expect(painted.replace(/<[a-z_]+>|<\/>/g, '')).toBe(text);
  });
});

describe('the main path', () => {
  it(
    'of every registered type: from the state project creation enters, along automatic transitions, to before a ' +
      'final state',
    () => {
      const expected: Record<string, string[]> = {
        standard: [
          'PlanningActive',
          'ImplementationPlanning',
          'ImplementationExecuting',
          'ReviewActive',
          'FinalizeDocumentation',
          'FinalizeChecks',
          'FinalizeDelete',
        ],
        exploration: ['Active', 'Summarizing', 'Finalizing'],
        design: ['Active', 'Finalizing'],
        breakdown: ['Discovery', 'Active', 'Publishing'],
        iterative: ['DiscoverActive', 'PlanActive', 'ExecuteActive', 'VerifyActive', 'DeliverActive'],
      };
      expect(Object.keys(expected).sort()).toEqual(Object.keys(PROJECT_TYPES).sort());
      for (const type of TYPES) {
        const path = mainPath(type);
        expect(path, type.name).toEqual(expected[type.name]);
        // Each step is an automatic transition of the table, and the last leads to a final state.
        for (let i = 1; i < path.length; i++)
          expect(
            type.transitions.some((t) => t.from === path[i - 1] && t.to === path[i] && t.automatic),
            `${path[i - 1]} → ${path[i]}`,
          ).toBe(true);
        expect(
          type.transitions.some((t) => t.from === path.at(-1) && t.automatic && type.states[t.to]?.final),
          `${type.name} ends`,
        ).toBe(true);
        // Every state a project lives in is on it (no registered type has a side state).
        expect(path.sort()).toEqual(
          Object.entries(type.states)
            .filter(([, d]) => !d.final)
            .map(([n]) => n)
            .sort(),
        );
      }
    },
  );

  it(
    'marks what the history says: done, current, ahead; ' + 'a state never entered before the current one is skipped',
    () => {
      const history = [
        step('NoProject', 'PlanningActive'),
        step('PlanningActive', 'ImplementationPlanning'),
        step('ImplementationPlanning', 'ImplementationExecuting'),
      ];
      const map = lifecycleMap(standard, 'ImplementationExecuting', history);
      expect(map.steps.map((s) => s.mark)).toEqual(['done', 'done', 'current', 'ahead', 'ahead', 'ahead', 'ahead']);
      expect(map.offPath).toBeUndefined();
      expect(renderLifecycleMap(map)).toBe(
        'PlanningActive ✓ → ImplementationPlanning ✓ → [ImplementationExecuting] → ReviewActive → ' +
          'FinalizeDocumentation → FinalizeChecks → FinalizeDelete',
      );

      const noPlanning = lifecycleMap(standard, 'ImplementationPlanning', [
        step('NoProject', 'ImplementationPlanning'),
      ]);
      expect(renderLifecycleMap(noPlanning)).toMatch(
        /^PlanningActive \(skipped\) → \[ImplementationPlanning\] → ImplementationExecuting/,
      );

      // After a failed review the project is back in ImplementationPlanning; the review was done once.
      const rework = lifecycleMap(standard, 'ImplementationPlanning', [
        ...history,
        step('ImplementationExecuting', 'ReviewActive'),
        step('ReviewActive', 'ImplementationPlanning'),
      ]);
      expect(rework.steps.map((s) => s.mark)).toEqual(['done', 'current', 'done', 'done', 'ahead', 'ahead', 'ahead']);

      const off = lifecycleMap(standard, 'Elsewhere', history);
      expect(off.offPath).toBe('Elsewhere');
      expect(renderLifecycleMap(off)).toContain('(now in [Elsewhere], off this path)');
      const painted = renderLifecycleMap(map, (word, t) => `<${word}>${t}</>`);
      expect(painted).toContain('<current>[ImplementationExecuting]</>');
      expect(painted).toContain('PlanningActive <done>✓</>');
    },
  );
});

describe('the task graph', () => {
  const tasks = [
    task('010', 'completed'),
    task('020', 'in_progress', ['010']),
    task('030', 'pending', ['010', '020']),
    task('040', 'abandoned'),
    task('005', 'pending', ['040']),
  ];
  // Summaries come in id order; 005 sorts first.
  const g = taskGraph([...tasks].sort((a, b) => Number(a.id) - Number(b.id)));

  it('is nodes with id, name and status, and an edge from each dependency to its dependent', () => {
    expect(g.nodes[0]).toEqual({ id: '005', name: 'task 005', status: 'pending' });
    expect(g.edges).toEqual([
      { from: '040', to: '005' },
      { from: '010', to: '020' },
      { from: '010', to: '030' },
      { from: '020', to: '030' },
    ]);
  });

  it('lists the tasks in dependency order, lowest id first among those ready, with their depth', () => {
    expect(topologicalOrder(g)).toEqual([
      { id: '010', depth: 0 },
      { id: '020', depth: 1 },
      { id: '030', depth: 2 },
      { id: '040', depth: 0 },
      { id: '005', depth: 1 },
    ]);
    // Were there a cycle (the workspace refuses one), its tasks are still listed.
    expect(
      topologicalOrder(taskGraph([task('010', 'pending', ['020']), task('020', 'pending', ['010'])])).map((o) => o.id),
    ).toEqual(['010', '020']);
  });

  it('text: indented by depth, the status in words, ← the dependencies', () => {
    expect(renderTasksText(g)).toBe(
      [
        '010 [completed] task 010',
        '  020 [in_progress] task 020 ← 010',
        '    030 [pending] task 030 ← 010, 020',
        '040 [abandoned] task 040',
        '  005 [pending] task 005 ← 040',
      ].join('\n'),
    );
    const painted = renderTasksText(g, (word, t) => `<${word}>${t}</>`);
    expect(painted).toContain('<in_progress>[in_progress]</>');
    // A long chain is indented no deeper than a few levels.
    const chain = taskGraph(
      Array.from({ length: 30 }, (_, i) =>
        task(String((i + 1) * 10).padStart(3, '0'), 'pending', i ? [String(i * 10).padStart(3, '0')] : []),
      ),
    );
    expect(
      Math.max(
        ...renderTasksText(chain)
          .split('\n')
          .map((l) => l.length - l.trimStart().length),
      ),
    ).toBe(16);
  });

  it(
    'mermaid: a flowchart TD, a node per task, ' + 'an arrow per dependency, a class per status; names cannot break it',
    () => {
      const text = renderTasksMermaid(taskGraph([...tasks, task('050', 'failed', [], 'say "hi" <b>#1</b>')]));
      const lines = text.split('\n');
      expect(lines[0]).toBe('flowchart TD');
      expect(lines).toContain('    t010["010 task 010 [completed]"]');
      expect(lines).toContain('    t010 --> t030');
      expect(lines).toContain('    t040 --> t005');
      expect(lines.some((l) => l.startsWith('    classDef in_progress '))).toBe(true);
      expect(lines).toContain('    class t030,t005 pending');
      expect(lines).toContain('    t050["050 say #quot;hi#quot; #lt;b#gt;#35;1#lt;/b#gt; [failed]"]');
    },
  );

  it('dot: a digraph, a box per task with its status, an arrow per dependency', () => {
    const text = renderTasksDot(taskGraph([...tasks, task('050', 'pending', [], 'a "quoted" \\ name')]));
    expect(text.startsWith('digraph tasks {')).toBe(true);
    expect(text).toContain('"010" [label="010 task 010\\n[completed]"');
    expect(text).toContain('"020" -> "030";');
    expect(text).toContain('label="050 a \\"quoted\\" \\\\ name\\n[pending]"');
    expect(renderTasks(g, 'dot')).toBe(renderTasksDot(g));
    expect(renderTasks(g, 'mermaid')).toBe(renderTasksMermaid(g));
    expect(renderTasks(g, 'text')).toBe(renderTasksText(g));
  });
});
