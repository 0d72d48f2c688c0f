/**
 * `sow agent list | spawn | resume` end to end (spec 003, "Session Management Protocol", "Error
 * Handling", "Configuration"): the built CLI in temp git repositories, with the strict fake agent
 * CLIs (test/fakes/fake-agent.mjs) on PATH. The executor is configured through a real
 * $XDG_CONFIG_HOME/sow/config.yaml; the worker reports back by calling `sow` itself. Each test
 * checks the exact argv the CLI received, the session written to the task state, the prompt, the
 * environment and the working directory the worker saw, and what the user sees (stdout, stderr,
 * exit codes, `--json`).
 *
 * Two executor types (claude, codex) go the whole way here; every type's spawn and resume, and
 * how yolo_mode and model map to each CLI's flags, are checked in-process with the same fakes:
 * src/app/agent-executors.test.ts (also a resume while paused, a resume from another branch, and
 * the types named when no executor can resume). Refusals and the executor chosen by the
 * configuration: src/app/agents.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PROJECT, taskFile } from './harness.js';
import { agentFixtures, show, type AgentFixture, parseLog } from './agent-world.js';
import {
  CASES,
  CLAUDE_OWN_SETTINGS,
  configFor,
  expectResumeCall,
  expectSpawnCall,
  UUID,
  type ArgvContext,
} from '../executor-cases.js';

const TEMPLATES = fileURLToPath(new URL('../../templates/', import.meta.url));
const IS_ROOT = process.getuid?.() === 0;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
/** Where a worker's events and prompt files go: sow's runtime folder, never state. */
const OUTPUTS = '.git/sow/agent-outputs';

// ---------------------------------------------------------------------------------------------
// Fixtures: a template repo in ImplementationExecuting with tasks 010 and 020, cloned per test.
// ---------------------------------------------------------------------------------------------

const base = agentFixtures({ tasks: ['First task', 'Second task'] });

interface Fixture extends AgentFixture {
  branch: string;
  project(): any;
  outputs(sub?: string): string[];
}

function fixture(opts: { omit?: string[]; config?: string } = {}): Fixture {
  const f = base(opts.config, opts.omit ? { omit: opts.omit } : {});
  return {
    ...f,
    branch: f.repo.git(['rev-parse', '--abbrev-ref', 'HEAD']),
    project: () => f.repo.yaml(PROJECT),
    outputs(sub = '010') {
      const dir = join(f.root, OUTPUTS, sub);
      return existsSync(dir)
        ? readdirSync(dir)
            .sort()
            .map((n) => join(dir, n))
        : [];
    },
  };
}

const only = <T>(items: T[], what: string): T => {
  expect(items, what).toHaveLength(1);
  return items[0]!;
};

/** Every file named like `needle` under dir (recursively, skipping .git). */
function findNamed(dir: string, needle: RegExp): string[] {
  if (!existsSync(dir)) return [];
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === '.git' || name === 'node_modules') continue;
    const p = join(dir, name);
    if (needle.test(name)) found.push(p);
    let isDir = false;
    try {
      isDir = statSync(p).isDirectory();
    } catch {
      // dangling link
    }
    if (isDir) found.push(...findNamed(p, needle));
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// The argv table under test: every executor type, spawn and resume.
// ---------------------------------------------------------------------------------------------

/** The worker runs no sow command (the task stays in_progress): for a session that is only the setup of a test. */
const SILENT = { FAKE_AGENT_SCRIPT: '[]' };

/** The fake logs the feature file at spawn; this resume logs it again plus a new one. */
const RESUME_SCRIPT = JSON.stringify([
  [
    'log',
    '--action',
    'modified_file',
    '--result',
    'success',
    '--file',
    'src/feature.ts',
    '--file',
    'src/fix.ts',
    'Addressed the feedback',
  ],
  ['task', 'set', 'status', 'needs_review'],
]);

describe('an executor type: spawn → needs_review → resume (correction round) → completed', () => {
  // A session id sow chooses (claude) and one the CLI reports in its events (codex); every type:
  // src/app/agent-executors.test.ts.
  it.each(CASES.filter((c) => c.type === 'claude' || c.type === 'codex'))('$type', (c) => {
    const f = fixture({ config: configFor(c) });
    const spawnNote = `Spawn note for the ${c.type} executor.`;

    // ---- spawn ----
    const spawned = f.ok(['agent', 'spawn', 'implementer', '010', '--prompt', spawnNote]);
    expect(spawned.stdout).toBe('needs_review\n');

    const afterSpawn = f.task();
    const sid: string = afterSpawn.session_id;
    expect(sid, 'session_id in the task state').toMatch(c.idPattern);
    expect(afterSpawn.status).toBe('needs_review');
    expect(afterSpawn.iteration).toBe(1);
    expect(afterSpawn.session).toEqual({
      executor: 'impl',
      type: c.type,
      agent: 'implementer',
      agent_id: 'implementer-1',
      cwd: f.root,
      branch: f.branch,
      started_at: expect.stringMatching(ISO),
    });

    const spawnCall = only(f.world.calls(), 'one fake CLI run after spawn');
    expect(spawnCall.cli).toBe(c.cli);
    expect(spawnCall.resuming, 'spawn starts a new session').toBe(false);
    expect(spawnCall.session, 'the session the CLI used is the one recorded').toBe(sid);
    expect(spawnCall.cwd).toBe(f.root);
    const spawnPromptFile = only(
      f.outputs().filter((p) => p.endsWith('-spawn.prompt.md')),
      'spawn prompt file',
    );
    expect(spawnPromptFile.startsWith(join(f.root, OUTPUTS, '010') + '/'), spawnPromptFile).toBe(true);
    expect(spawnCall.argv, 'spawn argv').toEqual(c.spawnArgv({ sid, root: f.root, promptFile: spawnPromptFile }));

    // Where the session id came from.
    const events = only(
      f.outputs().filter((p) => p.endsWith('-spawn.jsonl')),
      'spawn events file',
    );
    const firstEvent = JSON.parse(readFileSync(events, 'utf8').split('\n')[0]!);
    if (c.ids === 'caller') expect(spawnCall.argv, 'caller-chosen id is passed to the CLI').toContain(sid);
    else expect(firstEvent).toEqual({ type: 'thread.started', thread_id: sid });

    expectSpawnCall(c, spawnCall, spawnPromptFile, spawnNote, sid);

    // ---- resume after needs_review: a correction round ----
    const feedback = `Feedback for ${c.type}: passwords are logged on line 42; remove that.`;
    const resumed = f.ok(['agent', 'resume', '010', feedback], { FAKE_AGENT_SCRIPT: RESUME_SCRIPT });
    expect(resumed.stdout).toBe('needs_review\n');
    const calls = f.world.calls();
    expect(calls).toHaveLength(2);
    const resumePromptFile = only(
      f.outputs().filter((p) => p.endsWith('-resume.prompt.md')),
      'resume prompt file',
    );
    expectResumeCall(c, calls[1]!, {
      sid,
      root: f.root,
      cwd: afterSpawn.session.cwd,
      promptFile: resumePromptFile,
      feedback,
    });

    const afterResume = f.task();
    expect(afterResume.status).toBe('needs_review');
    expect(afterResume.iteration, 'a resume after needs_review is a correction round').toBe(2);
    expect(afterResume.session_id).toBe(sid);
    expect(afterResume.session).toMatchObject({
      ...afterSpawn.session,
      resumes: 1,
      resumed_at: expect.stringMatching(ISO),
    });
    expect(
      afterResume.outputs.map((o: any) => [o.type, o.path]),
      'modified outputs, once each',
    ).toEqual([
      ['modified', 'src/feature.ts'],
      ['modified', 'src/fix.ts'],
    ]);
    // The worker's log entries carry its agent id (from SOW_AGENT_ID).
    const log = parseLog(f.repo.read('.sow/project/phases/implementation/tasks/010/log.md'));
    expect(log.map((e) => [e.front.agent, e.front.action])).toEqual([
      ['implementer-1', 'started_task'],
      ['implementer-1', 'modified_file'],
    ]);

    // ---- approval clears the session ----
    f.ok(['task', 'set', '--id', '010', 'status', 'completed']);
    const done = f.task();
    expect(done.status).toBe('completed');
    expect(done.session_id).toBeUndefined();
    expect(done.session).toBeUndefined();
    // Tasks live in their own files only: the project file holds no task list.
    expect(f.project().phases.implementation.tasks).toBeUndefined();
    expect(f.ok(['task', 'list', '--json']).json?.data.map((t: any) => [t.id, t.status])).toEqual([
      ['010', 'completed'],
      ['020', 'pending'],
    ]);
    // Worker files are runtime files: nothing at the old place under the project, nothing for git.
    expect(existsSync(join(f.root, '.sow/project/agent-outputs'))).toBe(false);
    expect(f.repo.git(['status', '--porcelain', '--untracked-files=all'])).not.toContain('.runtime');
  });
});

describe("yolo_mode and model map to the CLI's own flags", () => {
  // Codex's (every CLI's: src/app/agent-executors.test.ts).
  const cases: [string, string, (c: ArgvContext) => string[]][] = [
    [
      'codex',
      'codex',
      ({ root }) => ['exec', '--json', '-C', root, '-m', 'm1', '--dangerously-bypass-approvals-and-sandbox', '-'],
    ],
  ];
  it.each(cases)('%s', (type, cli, argv) => {
    const f = fixture({
      config:
        `agents:\n  executors:\n    impl:\n      type: ${type}\n      settings:\n        yolo_mode: ` +
        `true\n        model: m1\n  bindings:\n    implementer: impl\n`,
    });
    // The worker runs no sow command: the task stays in_progress.
    const r = f.ok(['agent', 'spawn', 'implementer', '010', '-q'], { FAKE_AGENT_SCRIPT: '[]' });
    expect(r.stdout).toBe('in_progress\n');
    const call = only(f.world.calls(), 'one run');
    expect(call.cli).toBe(cli);
    expect(call.argv).toEqual(argv({ sid: f.task().session_id, root: f.root, promptFile: '' }));
  });
});

// ---------------------------------------------------------------------------------------------

describe('sow agent list', () => {
  it('lists every agent and the orchestrator with description, capabilities and prompt', () => {
    const f = fixture();
    const names = ['implementer', 'architect', 'reviewer', 'planner', 'researcher', 'decomposer', 'orchestrator'];
    const json = f.ok(['agent', 'list', '--json']).json!;
    expect(json.ok).toBe(true);
    expect(json.data.map((a: any) => a.name)).toEqual(names);
    const text = f.ok(['agent', 'list']).stdout;
    for (const a of json.data) {
      expect(a.description, a.name).toMatch(/\S{3}/);
      expect(a.capabilities, a.name).toMatch(/\S{3}/);
      expect(existsSync(join(TEMPLATES, a.prompt)), `${a.name}: prompt ${a.prompt} is shipped`).toBe(true);
      // The text view shows the same three things.
      expect(text).toContain(`${a.name.padEnd(12)} ${a.description}`);
      expect(text).toContain(`needs: ${a.capabilities}`);
      expect(text).toContain(`prompt: templates/${a.prompt}`);
    }
    expect(json.data.find((a: any) => a.name === 'implementer').capabilities).toMatch(/write files.*shell commands/);
  });
});

describe('sessions without a task (sessions.<agent> in the project state)', () => {
  it('spawn planner records the session on the project; a second spawn is refused; resume --agent continues it', () => {
    const f = fixture();
    const r = f.ok(['agent', 'spawn', 'planner', '--prompt', 'Draft the task list for the auth work.']);
    expect(r.stdout).toBe('');
    const project = f.project();
    const s = project.sessions.planner;
    expect(s).toEqual({
      session_id: expect.stringMatching(UUID),
      executor: 'claude-code',
      type: 'claude',
      agent: 'planner',
      agent_id: 'planner-1',
      cwd: f.root,
      branch: f.branch,
      started_at: expect.stringMatching(ISO),
    });
    const call = only(f.world.calls(), 'one run');
    expect(call.argv).toEqual([
      '--print',
      '--output-format',
      'stream-json',
      '--verbose',
      '--session-id',
      s.session_id,
      ...CLAUDE_OWN_SETTINGS,
      '--permission-mode',
      'acceptEdits',
      '--allowedTools',
      'Bash(sow *)',
    ]);
    expect(call.env['SOW_TASK_ID']).toBeUndefined();
    expect(call.env['SOW_AGENT_ID']).toBe('planner-1');
    expect(call.env['SOW_SESSION_ID']).toBe(s.session_id);
    expect(call.stdin).toContain('# You are planner-1');
    expect(
      call.stdin.endsWith('## Instructions from the orchestrator\n\nDraft the task list for the auth work.\n'),
    ).toBe(true);
    // The worker logged to the project log (it has no task).
    const entries = parseLog(f.repo.read('.sow/project/log.md'));
    expect(entries.at(-1)!.front).toMatchObject({ agent: 'planner-1', action: 'research', result: 'success' });
    // Task states are untouched.
    expect(f.task('010').session_id).toBeUndefined();

    const before = f.repo.snapshot();
    const again = f.sow(['agent', 'spawn', 'planner', '--json']);
    expect(again.code, show(again)).toBe(1);
    expect(again.json?.error?.code).toBe('SESSION_EXISTS');
    expect(again.json?.error?.hint).toContain('sow agent resume --agent planner');
    expect(again.json?.error?.hint).toContain('--force');
    expect(f.repo.snapshot()).toEqual(before);

    const resumed = f.sow(['agent', 'resume', '--agent', 'planner', 'Split task 3 in two.']);
    expect(resumed.code, show(resumed)).toBe(0);
    const calls = f.world.calls();
    expect(calls).toHaveLength(2);
    expect(calls[1]!.resuming).toBe(true);
    expect(calls[1]!.session).toBe(s.session_id);
    expect(calls[1]!.argv).toEqual([
      '--print',
      '--output-format',
      'stream-json',
      '--verbose',
      '--resume',
      s.session_id,
      ...CLAUDE_OWN_SETTINGS,
      '--permission-mode',
      'acceptEdits',
      '--allowedTools',
      'Bash(sow *)',
    ]);
    expect(calls[1]!.stdin).toBe('Split task 3 in two.');
    expect(calls[1]!.env['SOW_AGENT_ID']).toBe('planner-1');
    expect(f.project().sessions.planner).toMatchObject({ session_id: s.session_id, resumes: 1 });
  });
});

describe('--verbose shows how the executor was chosen', () => {
  it('without a config file: defaults', () => {
    const f = fixture();
    const r = f.ok(['agent', 'spawn', 'implementer', '010', '--verbose']);
    expect(r.stdout).toBe('needs_review\n');
    expect(r.stderr).toContain('Loading agent configuration...');
    expect(r.stderr).toContain(`Config file: ${f.world.configPath} (not found, using defaults)`);
    expect(r.stderr).toMatch(/^\s*Agent: implementer$/m);
    expect(r.stderr).toMatch(/^\s*Executor: claude-code \(.*\bdefault\)$/m);
    expect(r.stderr).toMatch(/^\s*Settings: permissions=safe \(default\)$/m);
  });

  it('SOW_AGENTS_IMPLEMENTER beats the file binding', () => {
    const f = fixture({
      config: 'agents:\n  executors:\n    cur:\n      type: cursor\n  bindings:\n    implementer: cur\n',
    });
    const r = f.ok(['agent', 'spawn', 'implementer', '010', '--verbose'], { SOW_AGENTS_IMPLEMENTER: 'codex' });
    expect(r.stdout).toBe('needs_review\n');
    expect(r.stderr).toMatch(/^\s*Executor: codex \(.*from environment: SOW_AGENTS_IMPLEMENTER\)$/m);
    const call = only(f.world.calls(), 'one run');
    expect(call.cli).toBe('codex');
    expect(f.task().session).toMatchObject({ executor: 'codex', type: 'codex' });
    expect(f.task().session_id).toBe(call.session);
  });
});

describe('Claude Code yolo mode', () => {
  const config =
    'agents:\n  executors:\n    claude-code:\n      type: claude\n      settings:\n        yolo_mode: true\n  ' +
    'bindings:\n    implementer: claude-code\n';

  it('passes --dangerously-skip-permissions and says so with --verbose', () => {
    const f = fixture({ config });
    const r = f.ok(['agent', 'spawn', 'implementer', '010', '--verbose']);
    const call = only(f.world.calls(), 'one run');
    expect(call.argv).toEqual([
      '--print',
      '--output-format',
      'stream-json',
      '--verbose',
      '--session-id',
      f.task().session_id,
      '--dangerously-skip-permissions',
    ]);
    expect(r.stderr).toMatch(/^\s*Settings: permissions=yolo \(from config file\)$/m);
    if (!IS_ROOT) expect(call.env['IS_SANDBOX'], 'IS_SANDBOX only as root').toBeUndefined();
  });

  it.skipIf(!IS_ROOT)(
    'as root it passes IS_SANDBOX=1, which Claude Code needs (root only: skipped when the tests do not run as root)',
    () => {
      const f = fixture({ config });
      // The fake, like claude, refuses --dangerously-skip-permissions as root unless IS_SANDBOX=1.
      const r = f.ok(['agent', 'spawn', 'implementer', '010', '--verbose'], { IS_SANDBOX: '' });
      expect(r.stdout).toBe('needs_review\n');
      expect(only(f.world.calls(), 'one run').env['IS_SANDBOX']).toBe('1');
      expect(r.stderr).toMatch(/root.*IS_SANDBOX=1/);
      // Resume too.
      f.ok(['agent', 'resume', '010', 'again'], { IS_SANDBOX: '' });
      expect(f.world.calls()[1]!.env['IS_SANDBOX']).toBe('1');
      expect(f.world.calls()[1]!.argv).toContain('--dangerously-skip-permissions');
    },
  );
});

describe('windsurf (no session resumption)', () => {
  it("spawn works; resume is refused with the spec's error", () => {
    const f = fixture({
      config:
        'agents:\n  executors:\n    windsurf:\n      type: windsurf\n      custom_args: [--cascade]\n  ' +
        'bindings:\n    implementer: windsurf\n',
    });
    const r = f.ok(['agent', 'spawn', 'implementer', '010']);
    expect(r.stdout).toBe('needs_review\n');
    const call = only(f.world.calls(), 'one run');
    expect(call.cli).toBe('windsurf');
    expect(call.argv).toEqual(['--cascade']);
    expect(call.stdin).toContain('Task 010: First task (iteration 1).');
    expect(call.env['SOW_AGENT_ID']).toBe('implementer-1');
    expect(f.task().session).toMatchObject({ executor: 'windsurf', type: 'windsurf', agent_id: 'implementer-1' });

    const before = f.repo.snapshot();
    const resumed = f.sow(['agent', 'resume', '010', 'Use RS256']);
    expect(resumed.code, show(resumed)).toBe(1);
    expect(resumed.stdout).toBe('');
    expect(resumed.stderr.split('\n')[0]).toBe('error: executor "windsurf" does not support session resumption');
    expect(resumed.stderr).toContain('Cannot resume task 010. Consider:');
    expect(resumed.stderr).toContain('Spawning a new worker instance');
    expect(resumed.stderr).toContain('Switching to an executor with session support');
    expect(f.world.calls()).toHaveLength(1);
    expect(f.repo.snapshot()).toEqual(before);
  });
  // When no executor defined can resume, the types that can are named: src/app/agent-executors.test.ts.
});

describe('errors (spec 003, "Error Handling"): exact texts, state untouched', () => {
  it('unknown executor', () => {
    const f = fixture({
      config: 'agents:\n  executors:\n    cur:\n      type: cursor\n  bindings:\n    implementer: copilot-pro\n',
    });
    const before = f.repo.snapshot();
    const r = f.sow(['agent', 'spawn', 'implementer', '010']);
    // A configuration mistake: exit 4, like every configuration error.
    expect(r.code, show(r)).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toBe('error: unknown executor: copilot-pro');
    expect(r.stderr).toContain('Available executors:\n  - claude-code\n  - cur\n');
    expect(r.stderr).toContain(`Check your configuration at ${f.world.configPath}`);
    expect(r.stderr).toContain("Run 'sow config path' to see the full path.");
    expect(r.stderr).toContain("Run 'sow config init' to create a default configuration.");
    expect(f.repo.snapshot()).toEqual(before);
    expect(f.world.calls()).toEqual([]);
    const j = f.sow(['agent', 'spawn', 'implementer', '010', '--json']);
    expect(j.code).toBe(4);
    expect(j.json?.error?.code).toBe('UNKNOWN_EXECUTOR');
    expect(j.json?.error?.message).toBe('unknown executor: copilot-pro');
  });

  it('executor binary not on PATH (spawn and resume): exit 5 with how to install it', () => {
    const f = fixture({
      omit: ['cursor-agent'],
      config: 'agents:\n  executors:\n    cur:\n      type: cursor\n  bindings:\n    implementer: cur\n',
    });
    const before = f.repo.snapshot();
    const r = f.sow(['agent', 'spawn', 'implementer', '010']);
    expect(r.code, show(r)).toBe(5);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toBe('error: executor binary not found: cursor-agent');
    expect(r.stderr).toContain('Executor "cur" requires the cursor-agent CLI to be installed and available on PATH.');
    expect(r.stderr).toMatch(/Install cursor-agent: \S/);
    expect(f.repo.snapshot()).toEqual(before);

    // A session whose CLI has gone away: resume fails the same way, before touching the state.
    const g = fixture();
    g.ok(['agent', 'spawn', 'implementer', '010', '-q'], SILENT);
    rmSync(join(g.world.bin, 'claude'));
    const snap = g.repo.snapshot();
    const resumed = g.sow(['agent', 'resume', '010', 'feedback']);
    expect(resumed.code, show(resumed)).toBe(5);
    expect(resumed.stderr.split('\n')[0]).toBe('error: executor binary not found: claude');
    expect(g.repo.snapshot(), 'iteration and status unchanged').toEqual(snap);
  });

  it(
    "a session id that begins with '-' (a hostile commit) is refused before any CLI starts: it would be read " +
      'as an option',
    () => {
      const f = fixture();
      f.ok(['agent', 'spawn', 'implementer', '010', '-q'], SILENT);
      const file = '.sow/project/phases/implementation/tasks/010/state.yaml';
      const sid = f.task().session_id as string;
      f.repo.write(file, f.repo.read(file).replace(sid, '--dangerously-skip-permissions'));
      const before = f.repo.snapshot();
      const r = f.sow(['agent', 'resume', '010', 'go on']);
      expect(r.code, show(r)).toBe(4);
      expect(r.stderr).toContain("session_id: must not begin with '-' (an agent CLI would read it as an option)");
      expect(f.repo.snapshot()).toEqual(before);
      expect(f.world.calls()).toHaveLength(1);
    },
  );

  it('a second spawn of a task with a session is refused; --force starts a new one', () => {
    const f = fixture();
    f.ok(['agent', 'spawn', 'implementer', '010', '-q'], SILENT);
    const first = f.task().session_id;
    const before = f.repo.snapshot();
    const r = f.sow(['agent', 'spawn', 'implementer', '010']);
    expect(r.code, show(r)).toBe(1);
    expect(r.stderr.split('\n')[0]).toBe('error: task 010 already has a session');
    expect(r.stderr).toContain('sow agent resume 010');
    expect(r.stderr).toContain('--force');
    expect(f.sow(['agent', 'spawn', 'implementer', '010', '--json']).json?.error?.code).toBe('SESSION_EXISTS');
    expect(f.repo.snapshot()).toEqual(before);
    expect(f.world.calls()).toHaveLength(1);

    const forced = f.ok(['agent', 'spawn', 'implementer', '010', '--force', '-q']);
    expect(forced.stdout).toBe('needs_review\n');
    const task = f.task();
    expect(task.session_id).toMatch(UUID);
    expect(task.session_id).not.toBe(first);
    expect(task.session.agent_id).toBe('implementer-2');
    const calls = f.world.calls();
    expect(calls).toHaveLength(2);
    expect(calls[1]!.resuming).toBe(false);
    expect(calls[1]!.argv).toEqual([
      '--print',
      '--output-format',
      'stream-json',
      '--verbose',
      '--session-id',
      task.session_id,
      ...CLAUDE_OWN_SETTINGS,
      '--permission-mode',
      'acceptEdits',
      '--allowedTools',
      'Bash(sow *)',
    ]);
  });

  it('a worker that fails after its CLI printed a successful result is never shown as finished', () => {
    const f = fixture();
    const r = f.sow(['agent', 'spawn', 'implementer', '010'], { FAKE_AGENT_EXIT_AFTER: '1' });
    expect(r.code, show(r)).toBe(5);
    // The CLI's closing event comes before sow knows the exit code: it is told neutrally, then the failure.
    expect(r.stderr).not.toContain('✓');
    expect(r.stderr).not.toMatch(/\bfinished\b/);
    expect(r.stderr).toMatch(/■ the CLI ended its run after \d+ turn\(s\)\n[^]*error: claude exited with code 1/);
  });

  it('a worker that exits non-zero: exit 5 with the tail of its stderr; the session is kept', () => {
    const f = fixture();
    const before = f.repo.snapshot();
    const r = f.sow(['agent', 'spawn', 'implementer', '010'], { FAKE_AGENT_FAIL: '1' });
    expect(r.code, show(r)).toBe(5);
    expect(r.stdout).toBe('');
    const error = r.stderr.slice(r.stderr.indexOf('error: '));
    expect(error.split('\n')[0]).toBe('error: claude exited with code 1');
    expect(error).toContain('claude: API Error: 529 overloaded (fake)');
    const eventsFile = only(
      f.outputs().filter((p) => p.endsWith('-spawn.jsonl')),
      'events of the failed run',
    );
    expect(eventsFile.startsWith(join(f.root, OUTPUTS, '010') + '/'), eventsFile).toBe(true);
    expect(error, 'the hint names the events file').toContain(`its events are in ${eventsFile}`);
    const j = f.sow(['agent', 'spawn', 'implementer', '020', '--json', '-q'], { FAKE_AGENT_FAIL: '1' });
    expect(j.code).toBe(5);
    expect(j.json?.error?.code).toBe('WORKER_FAILED');
    expect(`${j.json?.error?.message}\n${j.json?.error?.hint}`).toContain('claude: API Error: 529 overloaded (fake)');
    expect(j.json?.error?.hint).toContain(
      only(
        f.outputs('020').filter((p) => p.endsWith('-spawn.jsonl')),
        '020 events',
      ),
    );
    // The session was recorded before the worker started (spec: persist before spawning); nothing else changed.
    const task = f.task();
    expect(task.session_id).toBe(f.world.calls()[0]!.session);
    expect(task.status).toBe('in_progress');
    expect(task.outputs).toEqual([]);
    const after = f.repo.snapshot();
    const changed = [...after.keys()].filter((k) => after.get(k) !== before.get(k));
    expect(changed.sort(), 'worker files are runtime files, not state').toEqual(
      [PROJECT, taskFile('010'), taskFile('020')].sort(),
    );
  });

  it(
    'a task with an unfinished dependency is not spawned (exit 3, TASK_BLOCKED, blockers named); --force ' +
      'starts it anyway',
    () => {
      const f = fixture();
      f.ok(['task', 'set', '--id', '020', 'dependencies', '010']);
      const before = f.repo.snapshot();
      const r = f.sow(['agent', 'spawn', 'implementer', '020']);
      expect(r.code, show(r)).toBe(3);
      expect(r.stdout).toBe('');
      expect(r.stderr.split('\n')[0]).toBe('error: task 020 cannot start: it depends on 010 (pending)');
      expect(r.stderr).toMatch(/^hint: .*--force/m);
      const j = f.sow(['agent', 'spawn', 'implementer', '020', '--json']);
      expect(j.code, show(j)).toBe(3);
      expect(j.json?.error?.code).toBe('TASK_BLOCKED');
      expect(j.json?.error?.message).toContain('010');
      expect(f.world.calls(), 'no CLI started').toEqual([]);
      expect(f.repo.snapshot(), 'state untouched').toEqual(before);
      expect(f.task('020').status).toBe('pending');

      // Started anyway, the worker still cannot say it is done while 010 is pending: it says it paused.
      const forced = f.ok(['agent', 'spawn', 'implementer', '020', '--force', '-q'], {
        FAKE_AGENT_SCRIPT: JSON.stringify([['agent', 'report', '--status', 'paused', 'waiting for 010']]),
      });
      expect(forced.stdout).toBe('paused\n');
      const call = only(f.world.calls(), 'one run');
      expect(call.env['SOW_TASK_ID']).toBe('020');
      expect(f.task('020')).toMatchObject({ status: 'paused', session_id: call.session });
      expect(f.task('010').status, 'the dependency is left alone').toBe('pending');
    },
  );

  // (--force and a worker without a task refused the same way: src/app/agents.test.ts; resume:
  // src/app/agent-executors.test.ts.)
  it("on a branch other than the project's: spawn is refused (WRONG_BRANCH) before any CLI starts", () => {
    const f = fixture();
    f.repo.git(['checkout', '-q', '-b', 'other']);
    const before = f.repo.snapshot();
    const r = f.sow(['agent', 'spawn', 'implementer', '010']);
    expect(r.code, show(r)).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toBe(`error: this project belongs to '${f.branch}', but 'other' is checked out`);
    expect(r.stderr).toContain(`git checkout ${f.branch}`);
    const j = f.sow(['agent', 'spawn', 'implementer', '010', '--json']);
    expect(j.code, show(j)).toBe(1);
    expect(j.json?.error?.code).toBe('WRONG_BRANCH');
    expect(f.world.calls(), 'the fake agent was never started').toEqual([]);
    expect(f.repo.snapshot(), 'state byte-identical').toEqual(before);
    expect(f.task('010').status).toBe('pending');
    expect(f.task('010').session_id).toBeUndefined();
  });

  it('unknown agent and unknown task', () => {
    const f = fixture();
    const before = f.repo.snapshot();
    const a = f.sow(['agent', 'spawn', 'nobody', '010']);
    expect(a.code, show(a)).toBe(2);
    expect(a.stderr.split('\n')[0]).toBe("error: unknown agent 'nobody'");
    const t = f.sow(['agent', 'spawn', 'implementer', '999']);
    expect(t.code, show(t)).toBe(1);
    expect(t.stderr.split('\n')[0]).toBe("error: no task with id '999'");
    expect(f.repo.snapshot()).toEqual(before);
    expect(f.world.calls()).toEqual([]);
  });
});

describe('prompts are data, never shell', () => {
  it('a prompt full of shell metacharacters reaches the agent verbatim and runs nothing', () => {
    const f = fixture();
    const P = [
      'Do $(touch pwned) and `touch pwned2`; touch pwned3 | touch pwned4 && touch pwned5 || true',
      `it's "quoted" and 'single' > pwned6 < /dev/null $HOME \${PATH} * ? ~ # ! \\n \\`,
      '\ttabbed line; rm -rf "$FAKE_AGENT_HOME"',
    ].join('\n');
    // The workers run no sow command: what they were given is the test.
    f.ok(['agent', 'spawn', 'implementer', '010', '--prompt', P, '-q'], SILENT);
    const spawnCall = f.world.calls()[0]!;
    expect(spawnCall.stdin.endsWith(`## Instructions from the orchestrator\n\n${P}\n`), spawnCall.stdin).toBe(true);
    f.ok(['agent', 'resume', '010', P, '-q'], SILENT);
    expect(f.world.calls()[1]!.stdin).toBe(P);
    // And with an executor that gets the prompt as a file.
    const g = fixture({ config: configFor(CASES.find((c) => c.type === 'command')!) });
    g.ok(['agent', 'spawn', 'implementer', '010', '--prompt', P, '-q'], SILENT);
    g.ok(['agent', 'resume', '010', P, '-q'], SILENT);
    expect(g.world.calls()[1]!.prompt).toBe(P);
    for (const dir of [f.root, g.root, f.world.root, g.world.root, process.cwd()])
      expect(findNamed(dir, /^pwned/), dir).toEqual([]);
    expect(existsSync(f.world.fakeHome)).toBe(true);
  });
});

describe('raw events and the progress view', () => {
  it(
    "saves the raw events under .git/sow/agent-outputs/ (in git's folder, out of every commit); shows progress on " +
      'stderr; --quiet silences it',
    () => {
      const f = fixture();
      const r = f.ok(['agent', 'spawn', 'implementer', '010']);
      expect(r.stderr).toContain('Spawning implementer-1 with claude-code (task 010)');
      expect(r.stderr).toContain('sow task set status needs_review');
      expect(r.stderr).toContain('Task 010 is now needs_review');
      const sid = f.task().session_id;
      // The CLI's raw stream, and beside it sow's reading of it (agent events).
      const events = only(
        f.outputs().filter((p) => p.endsWith('.jsonl') && !p.endsWith('.events.jsonl')),
        'one raw events file',
      );
      expect(f.outputs().filter((p) => p.endsWith('.events.jsonl'))).toEqual([
        events.replace(/\.jsonl$/, '.events.jsonl'),
      ]);
      const lines = readFileSync(events, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines[0]).toMatchObject({ type: 'system', subtype: 'init', session_id: sid });
      expect(lines.at(-1)).toMatchObject({ type: 'result', is_error: false });
      expect(lines.filter((e) => e.type === 'assistant')).toHaveLength(3);
      expect(events.startsWith(join(f.root, OUTPUTS, '010') + '/'), events).toBe(true);
      // In git's own folder, which git never lists: git status shows nothing of the runtime folder.
      const status = f.repo.git(['status', '--porcelain', '--untracked-files=all']);
      expect(status).not.toContain('agent-outputs');
      expect(status).not.toContain('.runtime');
      expect(existsSync(join(f.root, '.sow/project/agent-outputs')), 'nothing at the old place').toBe(false);

      const q = f.ok(['agent', 'resume', '010', 'more', '--quiet']);
      expect(q.stdout).toBe('needs_review\n');
      expect(q.stderr).toBe('');
      const q2 = f.ok(['agent', 'spawn', 'implementer', '020', '-q']);
      expect(q2.stdout).toBe('needs_review\n');
      expect(q2.stderr).toBe('');
      expect(f.outputs().filter((p) => p.endsWith('.jsonl') && !p.endsWith('.events.jsonl'))).toHaveLength(2);
      expect(f.outputs('020').filter((p) => p.endsWith('.jsonl') && !p.endsWith('.events.jsonl'))).toHaveLength(1);

      // --json: one document on stdout, the progress view stays on stderr.
      const j = f.ok(['agent', 'resume', '020', 'again', '--json']);
      expect(j.stdout.trim().split('\n')).toHaveLength(1);
      expect(j.json).toEqual({
        ok: true,
        data: {
          agent: 'implementer',
          agent_id: 'implementer-2',
          task: '020',
          executor: 'claude-code',
          session_id: f.task('020').session_id,
          status: 'needs_review',
          events_file: only(
            f.outputs('020').filter((p) => p.endsWith('-resume.jsonl')),
            '020 resume events',
          ),
          denials: [],
        },
      });
      expect(j.json?.data.events_file.startsWith(`${f.root}/.git/sow/agent-outputs/020/`), j.stdout).toBe(true);
      expect(j.stderr).toContain('Task 020 is now needs_review');
    },
  );
  // A resume while the task is paused is not a new iteration: src/app/agent-executors.test.ts.

  it('a worker that leaves a process running in the background (holding its output) does not keep sow waiting', () => {
    const f = fixture();
    const pidFile = join(f.world.root, 'left.pid');
    const r = f.ok(['agent', 'spawn', 'implementer', '010'], {
      FAKE_AGENT_SCRIPT: JSON.stringify([{ leave: pidFile }, ['task', 'set', 'status', 'needs_review']]),
    });
    const pid = Number(readFileSync(pidFile, 'utf8'));
    try {
      // sow came back while the process the worker left still runs (not a zombie): it did not wait for it.
      expect(() => process.kill(pid, 0)).not.toThrow();
      if (process.platform === 'linux')
        expect(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]![0]).not.toBe('Z');
      expect(f.task().status).toBe('needs_review');
      expect(r.stderr).toContain(
        'Note: implementer-1 left processes running that still held its output (a server started in the ' +
          'background?); sow went on without them',
      );
      expect(r.stderr).toContain('Task 010 is now needs_review');
      // The worker's own events were all read (its result is the last thing it printed), and its end says what
      // happened.
      const raw = only(
        f.outputs().filter((p) => p.endsWith('.jsonl') && !p.endsWith('.events.jsonl')),
        'one raw events file',
      );
      expect(JSON.parse(readFileSync(raw, 'utf8').trim().split('\n').at(-1)!)).toMatchObject({
        type: 'result',
        is_error: false,
      });
      const events = readFileSync(raw.replace(/\.jsonl$/, '.events.jsonl'), 'utf8')
        .trim()
        .split('\n');
      expect(JSON.parse(events.at(-1)!)).toMatchObject({
        kind: 'exit',
        code: 0,
        text: 'exited with code 0; something it left running still held its output, which sow no longer reads',
      });
    } finally {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  });
});
