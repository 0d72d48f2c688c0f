/**
 * Pictures and colour: `sow graph lifecycle` and `sow graph tasks` in text, mermaid and dot (mermaid
 * when piped, text on a terminal), the lifecycle map of `sow project status` on a terminal, and
 * colour only on a terminal — never piped, never with NO_COLOR, TERM=dumb or --no-color. The
 * terminal is a real pseudo-terminal, made by util-linux's `script`. What the graphs hold (the
 * guard judged as the project moves, a type named, no tasks, no project) is tested in-process in
 * src/app/graph.test.ts; the project with tasks here is made once and copied for each test.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ok, SOW, TEST_ENV, toExecuting, useRepos, type Repo } from './harness.js';
import { startingPoint } from './starting-points.js';

const fresh = useRepos();
const ESC = '\x1b[';

/**
 * A standard project in ImplementationExecuting: 010 completed, 020 (after 010) in progress, 030 after both (made
 * once, copied per test).
 */
const withTasks = startingPoint(fresh, (repo) => {
  toExecuting(repo, ['Schema']);
  ok(repo, ['task', 'add', 'Parser', '--agent', 'implementer', '--depends-on', '010']);
  ok(repo, ['task', 'add', 'CLI', '--agent', 'implementer', '--depends-on', '010,020']);
  ok(repo, ['task', 'set', '--id', '010', 'status', 'completed']);
  ok(repo, ['task', 'set', '--id', '020', 'status', 'in_progress']);
});

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Runs sow on a pseudo-terminal (stdout and stderr both the terminal); returns what the terminal showed. */
function onTerminal(repo: Repo, args: string[], env: Record<string, string> = {}): { code: number; screen: string } {
  const command = [process.execPath, SOW, ...args].map(shellQuote).join(' ');
  const r = spawnSync('script', ['-qec', command, '/dev/null'], {
    cwd: repo.dir,
    encoding: 'utf8',
    env: { ...process.env, ...TEST_ENV, NO_COLOR: '', TERM: 'xterm-256color', ...env },
  });
  expect(r.error).toBeUndefined();
  return { code: r.status ?? -1, screen: r.stdout.replace(/\r\n/g, '\n') };
}

describe('sow graph lifecycle', () => {
  it('piped, in a standard project: mermaid, the current state in class current and its guard judged', () => {
    const repo = withTasks();
    const r = ok(repo, ['graph', 'lifecycle']);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('stateDiagram-v2');
    expect(lines).toContain('    [*] --> NoProject');
    expect(lines).toContain(
      '    ImplementationExecuting --> ReviewActive : all_tasks_complete [allTasksComplete] (blocked)',
    );
    expect(lines).toContain('    ReviewActive --> FinalizeDocumentation : review_pass [reviewPassed]');
    expect(lines).toContain('    FinalizeDelete --> NoProject : project_delete [projectDeleted]');
    expect(lines).toContain('    NoProject --> [*]');
    expect(lines).toContain('    class ImplementationExecuting current');
    expect(r.stderr).toBe('');
    // An explicit --format mermaid is the same. (The guard follows the project, blocked then met:
    // src/app/graph.test.ts.)
    expect(ok(repo, ['graph', 'lifecycle', '--format', 'mermaid']).stdout).toBe(r.stdout);
  });

  it('--format text: a line per transition, the current state marked ▶, blocked in words', () => {
    const repo = withTasks();
    const text = ok(repo, ['graph', 'lifecycle', '--format', 'text']).stdout;
    expect(text).toMatch(
      /^▶ ImplementationExecuting --all_tasks_complete \[allTasksComplete: blocked\]--> ReviewActive$/m,
    );
    expect(text).toMatch(/^ {2}PlanningActive +--complete_planning \[planningComplete\]--> ImplementationPlanning$/m);
    expect(text).toContain('current state, ImplementationExecuting');
    expect(text).toMatch(/^ {2}allTasksComplete +every task is completed or abandoned/m);
    expect(text).not.toContain(ESC);
  });

  it('--format dot: a graphviz digraph, the current state labelled (current)', () => {
    const repo = withTasks();
    const dot = ok(repo, ['graph', 'lifecycle', '-f', 'dot']).stdout;
    expect(dot).toMatch(/^digraph "standard" \{\n/);
    expect(dot.trimEnd().endsWith('}')).toBe(true);
    expect(dot).toContain('"ImplementationExecuting" [label="ImplementationExecuting\\n(current)"');
    expect(dot).toContain(
      '"ImplementationExecuting" -> "ReviewActive" [label="all_tasks_complete [allTasksComplete] (blocked)", ' +
        'style=dashed];',
    );
  });

  it('--type draws a type without a project, nothing marked; outside any project the default type, with a note', () => {
    const repo = fresh();
    const r = ok(repo, ['graph', 'lifecycle', '--type', 'exploration']);
    expect(r.stdout.split('\n')[0]).toBe('stateDiagram-v2');
    expect(r.stdout).toContain('    Active --> Summarizing : topics_done [topicsDone]');
    expect(r.stdout).toContain('    Completed --> [*]');
    expect(r.stdout).not.toContain('current');
    expect(r.stderr).toBe('');
    const text = ok(repo, ['graph', 'lifecycle', '--type', 'exploration', '--format', 'text']).stdout;
    expect(text).toContain('Lifecycle of exploration projects, from NoProject');
    expect(text).not.toContain('▶');

    const none = ok(repo, ['graph', 'lifecycle']);
    expect(none.stdout).toContain('PlanningActive --> ImplementationPlanning');
    expect(none.stderr).toContain('No project here');
    // A type named in a project draws that type, nothing marked.
    const project = withTasks();
    expect(ok(project, ['graph', 'lifecycle', '--type', 'design']).stdout).not.toContain('class ');
  });

  it('--json: the graph as data; an unknown format or type is a usage error (exit 2)', () => {
    const repo = withTasks();
    const data = ok(repo, ['graph', 'lifecycle', '--json']).json!.data;
    expect(data.type).toBe('standard');
    expect(data.current).toBe('ImplementationExecuting');
    expect(data.states).toContainEqual({ name: 'ReviewActive', phase: 'review', final: false });
    expect(data.transitions).toContainEqual(
      expect.objectContaining({
        from: 'ImplementationExecuting',
        event: 'all_tasks_complete',
        to: 'ReviewActive',
        guard: 'allTasksComplete',
        automatic: true,
        blocked: true,
      }),
    );
    expect(data.transitions.filter((t: { blocked?: boolean }) => t.blocked !== undefined)).toHaveLength(1);
    // A type named: nothing marked (current null) is src/app/graph.test.ts.

    const before = repo.snapshot();
    const bad = repo.sow(['graph', 'lifecycle', '--format', 'png']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("unknown graph format 'png'");
    expect(bad.stderr).toContain('text, mermaid, dot');
    expect(bad.stdout).toBe('');
    const badJson = repo.sow(['graph', 'tasks', '--format', 'svg', '--json']);
    expect(badJson.code).toBe(2);
    expect(badJson.json?.error?.code).toBe('USAGE');
    const badType = repo.sow(['graph', 'lifecycle', '--type', 'nope']);
    expect(badType.code).toBe(2);
    expect(badType.stderr).toContain("unknown project type 'nope'");
    expect(repo.snapshot()).toEqual(before);
  });
});

describe('sow graph tasks', () => {
  it('text, mermaid and dot: each task with its status, an edge per dependency', () => {
    const repo = withTasks();
    expect(ok(repo, ['graph', 'tasks', '--format', 'text']).stdout.trimEnd()).toBe(
      ['010 [completed] Schema', '  020 [in_progress] Parser ← 010', '    030 [pending] CLI ← 010, 020'].join('\n'),
    );
    const mermaid = ok(repo, ['graph', 'tasks']).stdout.trimEnd().split('\n');
    expect(mermaid[0]).toBe('flowchart TD');
    expect(mermaid).toContain('    t020["020 Parser [in_progress]"]');
    expect(mermaid).toContain('    t010 --> t020');
    expect(mermaid).toContain('    t020 --> t030');
    expect(mermaid).toContain('    class t010 completed');
    const dot = ok(repo, ['graph', 'tasks', '--format', 'dot']).stdout;
    expect(dot.startsWith('digraph tasks {')).toBe(true);
    expect(dot).toContain('"010" -> "030";');
    expect(dot).toContain('"030" [label="030 CLI\\n[pending]"];');
  });

  it('--json: nodes and edges (from must finish before to)', () => {
    const repo = withTasks();
    expect(ok(repo, ['graph', 'tasks', '--json']).json!.data).toEqual({
      nodes: [
        { id: '010', name: 'Schema', status: 'completed' },
        { id: '020', name: 'Parser', status: 'in_progress' },
        { id: '030', name: 'CLI', status: 'pending' },
      ],
      edges: [
        { from: '010', to: '020' },
        { from: '010', to: '030' },
        { from: '020', to: '030' },
      ],
    });
  });

  it('no tasks: says so, exit 0; no project: exit 1', () => {
    const repo = fresh();
    ok(repo, ['project', 'new', 'demo', '--description', 'x']);
    const r = ok(repo, ['graph', 'tasks']);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('No tasks yet');
    // The data of no tasks ({ nodes: [], edges: [] }) is src/app/graph.test.ts.
    const none = fresh();
    const missing = none.sow(['graph', 'tasks', '--json']);
    expect(missing.code).toBe(1);
    expect(missing.json?.error?.code).toBe('NO_PROJECT');
  });
});

describe('colour and the lifecycle map', () => {
  it('piped output has no escape codes, with NO_COLOR unset too; piped status has no map', () => {
    const repo = withTasks();
    const env = { NO_COLOR: '', TERM: 'xterm-256color' };
    for (const args of [
      ['task', 'list'],
      ['status'],
      ['advance', '--list'],
      ['graph', 'lifecycle', '--format', 'text'],
      ['graph', 'tasks', '--format', 'text'],
      ['task', 'next'],
    ]) {
      const r = ok(repo, args, { env });
      expect(r.stdout + r.stderr, args.join(' ')).not.toContain(ESC);
    }
    const status = ok(repo, ['status'], { env }).stdout;
    expect(status).not.toContain('Lifecycle');
    expect(status).toContain('(blocked)');
    const err = repo.sow(['task', 'set', '--id', '999', 'status', 'completed'], { env });
    expect(err.code).toBe(1);
    expect(err.stderr).toMatch(/^error: no task with id '999'\nhint: /);
  });

  it(
    'on a terminal: colour, the words still there; status shows where the project is on its lifecycle; graph ' +
      'defaults to text',
    () => {
      const repo = withTasks();
      const list = onTerminal(repo, ['task', 'list']);
      expect(list.code).toBe(0);
      expect(list.screen).toContain(`${ESC}32mcompleted   ${ESC}39m Schema`);
      expect(list.screen).toContain(`${ESC}33min_progress ${ESC}39m Parser`);

      const status = onTerminal(repo, ['project', 'status']).screen;
      expect(status).toContain(
        `Lifecycle\n  PlanningActive ${ESC}32m✓${ESC}39m → ImplementationPlanning ${ESC}32m✓${ESC}39m ` +
          `→ ${ESC}1;36m[ImplementationExecuting]${ESC}22;39m → ReviewActive → FinalizeDocumentation`,
      );
      expect(status).toContain(`(${ESC}31mblocked${ESC}39m)`);

      const graph = onTerminal(repo, ['graph', 'lifecycle']).screen;
      expect(graph).toContain('--all_tasks_complete [allTasksComplete: ');
      expect(graph).toContain(`${ESC}31mblocked${ESC}39m]--> ReviewActive`);
      expect(graph).not.toContain('stateDiagram-v2');

      const err = onTerminal(repo, ['task', 'set', '--id', '999', 'status', 'completed']);
      expect(err.code).toBe(1);
      expect(err.screen).toContain(`${ESC}1;31merror:${ESC}22;39m no task with id '999'`);
    },
  );

  it('on a terminal, NO_COLOR, TERM=dumb and --no-color (anywhere on the line) turn colour off; the map stays', () => {
    const repo = withTasks();
    const map =
      'Lifecycle\n  PlanningActive ✓ → ImplementationPlanning ✓ → [ImplementationExecuting] → ReviewActive → ' +
      'FinalizeDocumentation → FinalizeChecks → FinalizeDelete\n';
    const runs = [
      onTerminal(repo, ['status'], { NO_COLOR: '1' }),
      onTerminal(repo, ['status'], { TERM: 'dumb' }),
      onTerminal(repo, ['status', '--no-color']),
      onTerminal(repo, ['--no-color', 'project', 'status']),
    ];
    for (const r of runs) {
      expect(r.code).toBe(0);
      expect(r.screen).not.toContain(ESC);
      expect(r.screen).toContain(map);
    }
    for (const args of [
      ['task', 'list', '--no-color'],
      ['--no-color', 'graph', 'tasks'],
      ['advance', '--list', '--no-color'],
      ['task', 'set', '--id', '999', 'status', 'completed', '--no-color'],
    ]) {
      expect(onTerminal(repo, args).screen, args.join(' ')).not.toContain(ESC);
    }
    // --json on a terminal: the data as always, no map, no colour.
    const json = onTerminal(repo, ['status', '--json']);
    expect(json.screen).not.toContain(ESC);
    expect(JSON.parse(json.screen).data.map).toBeUndefined();
  });
});
