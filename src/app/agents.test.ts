/**
 * `agent spawn` and `agent resume` in-process: the fake agent CLIs of test/fakes on the PATH of
 * the context the test passes (this process's PATH has none of them), the user configuration
 * under the context's XDG_CONFIG_HOME, a fixed clock. The worker is a real process; here it
 * reports back only when its script makes the test do it in-process (sow is not on its PATH).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT, refused, said, T0, taskFile, toExecuting, worlds, type World } from '../../test/inproc.js';
import { fakes, type Fakes } from '../../test/inproc-fakes.js';
import { spawnAgent } from './workers/spawn.js';
import { resumeAgent } from './workers/resume.js';
import type { AgentRunOptions } from './workers/types.js';
import { agentReport } from './report.js';
import { setTaskField } from './task-change.js';
import { CLAUDE_OWN_SETTINGS, UUID } from '../../test/executor-cases.js';

const world = worlds({ executing: (w) => toExecuting(w) });

const CLAUDE_SPAWN = (sid: string) => [
  '--print',
  '--output-format',
  'stream-json',
  '--verbose',
  '--session-id',
  sid,
  ...CLAUDE_OWN_SETTINGS,
  '--permission-mode',
  'acceptEdits',
  '--allowedTools',
  'Bash(sow *)',
];
const CLAUDE_RESUME = (sid: string) => [
  '--print',
  '--output-format',
  'stream-json',
  '--verbose',
  '--resume',
  sid,
  ...CLAUDE_OWN_SETTINGS,
  '--permission-mode',
  'acceptEdits',
  '--allowedTools',
  'Bash(sow *)',
];

interface Setup {
  w: World;
  f: Fakes;
  /** What the use case said on stderr. */
  lines: string[];
  opts: AgentRunOptions;
  /** The user's context, with the fakes' environment (and `env`) added. */
  ctx(env?: Record<string, string>): ReturnType<World['ctx']>;
}

async function setup(opts: { omit?: string[]; config?: string; from?: 'executing' | 'init' } = {}): Promise<Setup> {
  const w = await world(opts.from ?? 'executing');
  const f = fakes(opts.omit ? { omit: opts.omit } : {});
  if (opts.config !== undefined) f.writeConfig(opts.config);
  const lines: string[] = [];
  return {
    w,
    f,
    lines,
    opts: { verbose: false, quiet: false, say: (l) => lines.push(l) },
    ctx: (env = {}) => w.ctx({ ...f.env, ...env }),
  };
}

const task = (w: World, id = '010') => w.yaml(taskFile(id));

describe('agent spawn on a task', () => {
  it(
    "finds the CLI on the context's PATH, runs it in the context's environment, records the session before it " +
      'starts and lets the task go after',
    async () => {
      const s = await setup();
      const r = await spawnAgent(s.ctx({ SOW_INPROC_MARK: 'from the context' }), 'implementer', '010', s.opts);
      const [call, ...more] = s.f.calls();
      expect(more, 'one run').toEqual([]);
      const t = task(s.w);
      expect(t.session_id).toMatch(UUID);
      expect(call!.cli).toBe('claude');
      expect(call!.argv).toEqual(CLAUDE_SPAWN(t.session_id));
      expect(call!.cwd).toBe(s.w.dir);
      // The context's environment reached the worker (the fake's log is named only there), under what sow adds.
      expect(call!.env).toMatchObject({
        SOW_INPROC_MARK: 'from the context',
        SOW_AGENT: 'implementer',
        SOW_AGENT_ID: 'implementer-1',
        SOW_TASK_ID: '010',
        SOW_SESSION_ID: t.session_id,
        SOW_PROJECT_ROOT: s.w.dir,
      });
      expect(call!.stdin).toContain('# You are implementer-1');
      expect(call!.stdin).toContain('Task 010: First task (iteration 1).');
      // Recorded at the context's time; the owner is gone once the worker exited.
      expect(t).toMatchObject({ status: 'in_progress', started_at: T0, assigned_agent: 'implementer' });
      expect(t.session).toMatchObject({
        executor: 'claude-code',
        type: 'claude',
        agent: 'implementer',
        agent_id: 'implementer-1',
        cwd: s.w.dir,
        branch: 'feat/demo',
        started_at: T0,
      });
      expect(t.owner).toBeUndefined();
      expect(s.w.yaml(PROJECT).spawn_counts).toEqual({ implementer: 1 });
      expect(r).toMatchObject({
        agent: 'implementer',
        agent_id: 'implementer-1',
        task: '010',
        executor: 'claude-code',
        session_id: t.session_id,
        status: 'in_progress',
        denials: [],
      });
      expect(existsSync(r.events_file)).toBe(true);
      expect(s.lines).toContain('Spawning implementer-1 with claude-code (task 010)…');
      expect(s.lines).toContain('Task 010 is now in_progress');
      expect(s.lines.some((l) => l.startsWith('Warning: implementer-1 exited without reporting a status'))).toBe(true);
    },
  );

  it(
    'a worker that reports while it runs: ' + 'the result is the status it set, and the owner it had is released',
    async () => {
      const s = await setup();
      const started = join(s.f.dir, 'started');
      const go = join(s.f.dir, 'go');
      const script = JSON.stringify([{ touch: started }, { wait: go }]);
      const running = spawnAgent(s.ctx({ FAKE_AGENT_SCRIPT: script }), 'implementer', '010', {
        ...s.opts,
        quiet: true,
      });
      await until(() => existsSync(started), 'the worker to start');
      // While it runs, the task is owned by the worker (this process).
      expect(task(s.w).owner).toMatchObject({ kind: 'worker', by: 'implementer-1', pid: process.pid });
      await agentReport(s.w.as('implementer-1', '010'), 'needs_review', 'done');
      writeFileSync(go, '');
      const r = await running;
      expect(r.status).toBe('needs_review');
      expect(task(s.w)).toMatchObject({ status: 'needs_review' });
      expect(task(s.w).owner).toBeUndefined();
      expect(s.lines, 'quiet: only what the user must hear').toEqual([]);
    },
  );

  it(
    'the executor bound in the user configuration of the context, and SOW_AGENTS_<ROLE> of its ' +
      'environment over it',
    async () => {
      const s = await setup({
        config: 'agents:\n  executors:\n    cur:\n      type: cursor\n  bindings:\n    implementer: cur\n',
      });
      await spawnAgent(s.ctx(), 'implementer', '010', { ...s.opts, verbose: true });
      expect(s.f.calls().map((c) => c.cli)).toEqual(['cursor-agent']);
      expect(s.lines).toContain(`  Config file: ${s.f.configPath} (found)`);
      expect(s.lines.some((l) => /^\s*Executor: cur \(.*from config file\)$/.test(l))).toBe(true);
      expect(s.lines).toContain(`  Binary: ${join(s.f.bin, 'cursor-agent')}`);

      await spawnAgent(s.ctx({ SOW_AGENTS_IMPLEMENTER: 'codex' }), 'implementer', '020', { ...s.opts, verbose: true });
      expect(s.f.calls().map((c) => c.cli)).toEqual(['cursor-agent', 'codex']);
      expect(s.lines.some((l) => /^\s*Executor: codex \(.*from environment: SOW_AGENTS_IMPLEMENTER\)$/.test(l))).toBe(
        true,
      );
      expect(task(s.w, '020').session).toMatchObject({ executor: 'codex', type: 'codex' });
    },
  );

  it('--next takes the first ready task; with none ready it is refused', async () => {
    const s = await setup();
    const r = await spawnAgent(s.ctx(), 'implementer', undefined, { ...s.opts, next: true });
    expect(r.task).toBe('010');
    // 010 has reported (no longer to be picked up), and 020 waits for it.
    await agentReport(s.w.as('implementer-1', '010'), 'needs_review', undefined);
    await setTaskField(s.w.ctx(), '020', 'dependencies', '010');
    await refused(
      s.w,
      () => spawnAgent(s.ctx(), 'implementer', undefined, { ...s.opts, next: true }),
      'NO_READY_TASK',
      1,
    );
  });

  it(
    'a worker that exits non-zero: WORKER_FAILED (exit 5) with the tail of its stderr and its events file; the ' +
      'session stays recorded',
    async () => {
      const s = await setup();
      const e = await refusedLoosely(
        () => spawnAgent(s.ctx({ FAKE_AGENT_FAIL: '1' }), 'implementer', '010', s.opts),
        'WORKER_FAILED',
        5,
      );
      expect(e.message).toBe('claude exited with code 1');
      expect(said(e)).toContain('claude: API Error: 529 overloaded (fake)');
      const t = task(s.w);
      expect(t.session_id).toBe(s.f.calls()[0]!.session);
      expect(t.status).toBe('in_progress');
      expect(t.owner).toBeUndefined();
      expect(e.hint).toContain(`its events are in ${join(s.w.dir, '.git/sow/agent-outputs/010')}/`);
    },
  );
});

describe('agent spawn: refusals before any CLI starts, state untouched', () => {
  it("the CLI is not on the context's PATH: EXECUTOR_NOT_FOUND (exit 5) with how to install it", async () => {
    const s = await setup({
      omit: ['cursor-agent'],
      config: 'agents:\n  executors:\n    cur:\n      type: cursor\n  bindings:\n    implementer: cur\n',
    });
    const e = await refused(s.w, () => spawnAgent(s.ctx(), 'implementer', '010', s.opts), 'EXECUTOR_NOT_FOUND', 5);
    expect(e.message).toBe('executor binary not found: cursor-agent');
    expect(e.hint).toMatch(/Install cursor-agent: \S/);
    // Nothing else on the context's PATH: the process's PATH is not looked at either.
    const bare = await setup();
    await refused(
      bare.w,
      () => spawnAgent(bare.w.ctx({ ...bare.f.env, PATH: '/nonexistent' }), 'implementer', '010', bare.opts),
      'EXECUTOR_NOT_FOUND',
      5,
    );
    expect(bare.f.calls()).toEqual([]);
  });

  it(
    'an unknown executor in the configuration: ' + 'UNKNOWN_EXECUTOR (exit 4), naming the file of the context',
    async () => {
      const s = await setup({
        config: 'agents:\n  executors:\n    cur:\n      type: cursor\n  bindings:\n    implementer: copilot-pro\n',
      });
      const e = await refused(s.w, () => spawnAgent(s.ctx(), 'implementer', '010', s.opts), 'UNKNOWN_EXECUTOR', 4);
      expect(e.message).toBe('unknown executor: copilot-pro');
      expect(e.hint).toContain('Available executors:\n  - claude-code\n  - cur\n');
      expect(e.hint).toContain(`Check your configuration at ${s.f.configPath}`);
      expect(s.f.calls()).toEqual([]);
    },
  );

  it(
    "an unknown executor named by SOW_AGENTS_<ROLE> in the context's environment: UNKNOWN_EXECUTOR naming the " +
      'variable; a session recorded with a type this sow lacks',
    async () => {
      const s = await setup();
      const e = await refused(
        s.w,
        () => spawnAgent(s.ctx({ SOW_AGENTS_IMPLEMENTER: 'codx' }), 'implementer', '010', s.opts),
        'UNKNOWN_EXECUTOR',
        4,
      );
      expect(e.message).toBe(
        "unknown executor: codx (from the environment variable SOW_AGENTS_IMPLEMENTER); did you mean 'codex'?",
      );
      expect(e.hint).toContain('unset SOW_AGENTS_IMPLEMENTER');
      await spawnAgent(s.ctx(), 'implementer', '010', s.opts);
      s.w.write(
        taskFile('010'),
        s.w
          .read(taskFile('010'))
          .replace('executor: claude-code', 'executor: mind')
          .replace('type: claude', 'type: telepathy'),
      );
      const session = await refused(
        s.w,
        () => resumeAgent(s.ctx(), { kind: 'task', id: '010' }, 'go on', s.opts),
        'UNKNOWN_EXECUTOR',
        4,
      );
      expect(session.message).toBe('unknown executor type: telepathy (recorded with the session)');
      expect(session.hint).toContain("start a new session with --force on 'sow agent spawn'");
    },
  );

  it('a task that already has a session: SESSION_EXISTS; --force starts a new one as the next agent id', async () => {
    const s = await setup();
    await spawnAgent(s.ctx(), 'implementer', '010', s.opts);
    const first = task(s.w).session_id;
    const e = await refused(s.w, () => spawnAgent(s.ctx(), 'implementer', '010', s.opts), 'SESSION_EXISTS', 1);
    expect(e.message).toBe('task 010 already has a session');
    expect(e.hint).toContain('sow agent resume 010');
    s.w.clock.advance(60);
    await spawnAgent(s.ctx(), 'implementer', '010', { ...s.opts, force: true });
    const t = task(s.w);
    expect(t.session_id).toMatch(UUID);
    expect(t.session_id).not.toBe(first);
    expect(t.session).toMatchObject({ agent_id: 'implementer-2', started_at: '2026-11-26T10:01:00.000Z' });
    expect(s.f.calls().map((c) => c.resuming)).toEqual([false, false]);
  });

  it('a task with an unfinished dependency: TASK_BLOCKED (exit 3) naming it', async () => {
    const s = await setup();
    await setTaskField(s.w.ctx(), '020', 'dependencies', '010');
    const e = await refused(s.w, () => spawnAgent(s.ctx(), 'implementer', '020', s.opts), 'TASK_BLOCKED', 3);
    expect(e.message).toBe('task 020 cannot start: it depends on 010 (pending)');
    expect(e.hint).toContain('--force');
    expect(s.f.calls()).toEqual([]);
  });

  it('a finished task: TASK_BLOCKED; a task of another branch: WRONG_BRANCH; an unknown task or agent', async () => {
    const s = await setup();
    await setTaskField(s.w.ctx(), '010', 'status', 'abandoned');
    expect(
      said(await refused(s.w, () => spawnAgent(s.ctx(), 'implementer', '010', s.opts), 'TASK_BLOCKED', 3)),
    ).toContain('a worker would reopen it');
    await refused(s.w, () => spawnAgent(s.ctx(), 'implementer', '999', s.opts), 'TASK_NOT_FOUND', 1);
    // (The command line refuses an unknown agent name before the use case: exit 2 there.)
    await refused(s.w, () => spawnAgent(s.ctx(), 'nobody', '020', s.opts), 'UNKNOWN_AGENT');
    s.w.git(['checkout', '-q', '-b', 'other']);
    const e = await refused(
      s.w,
      () => spawnAgent(s.ctx(), 'implementer', '020', { ...s.opts, force: true }),
      'WRONG_BRANCH',
      1,
    );
    expect(e.message).toBe("this project belongs to 'feat/demo', but 'other' is checked out");
    await refused(s.w, () => spawnAgent(s.ctx(), 'planner', undefined, s.opts), 'WRONG_BRANCH', 1);
    expect(s.f.calls()).toEqual([]);
  });

  it('--iteration on a project that does not run in iterations: NOT_ITERATIVE', async () => {
    const s = await setup();
    await refused(
      s.w,
      () => spawnAgent(s.ctx(), 'implementer', undefined, { ...s.opts, iteration: true }),
      'NOT_ITERATIVE',
      1,
    );
  });
});

describe('agent resume', () => {
  it('continues the recorded session with the prompt; after needs_review it is a new iteration', async () => {
    const s = await setup();
    await spawnAgent(s.ctx(), 'implementer', '010', s.opts);
    const sid = task(s.w).session_id;
    await agentReport(s.w.as('implementer-1', '010'), 'needs_review', undefined);
    s.w.clock.advance(120);
    const r = await resumeAgent(s.ctx(), { kind: 'task', id: '010' }, 'Use RS256', s.opts);
    const call = s.f.calls()[1]!;
    expect(call).toMatchObject({ resuming: true, session: sid, stdin: 'Use RS256' });
    expect(call.argv).toEqual(CLAUDE_RESUME(sid));
    expect(call.env).toMatchObject({ SOW_AGENT_ID: 'implementer-1', SOW_TASK_ID: '010' });
    const t = task(s.w);
    expect(t).toMatchObject({ status: 'in_progress', iteration: 2, session_id: sid });
    expect(t.session).toMatchObject({ resumed_at: '2026-11-26T10:02:00.000Z', resumes: 1 });
    expect(t.owner).toBeUndefined();
    expect(r).toMatchObject({ agent_id: 'implementer-1', session_id: sid, status: 'in_progress' });
  });

  it(
    'refusals: no session (NO_SESSION), the CLI gone from PATH (EXECUTOR_NOT_FOUND), a CLI that cannot resume ' +
      '(RESUME_NOT_SUPPORTED)',
    async () => {
      const s = await setup();
      const none = await refused(
        s.w,
        () => resumeAgent(s.ctx(), { kind: 'task', id: '010' }, 'go on', s.opts),
        'NO_SESSION',
        1,
      );
      expect(none.message).toBe('no session found for task 010');
      expect(none.hint).toContain('`sow agent spawn implementer 010`');
      expect(s.f.calls(), 'no CLI started').toEqual([]);
      await spawnAgent(s.ctx(), 'implementer', '010', s.opts);
      await refused(
        s.w,
        () => resumeAgent(s.ctx({ PATH: '/nonexistent' }), { kind: 'task', id: '010' }, 'go on', s.opts),
        'EXECUTOR_NOT_FOUND',
        5,
      );

      const ws = await setup({
        config:
          'agents:\n  executors:\n    windsurf:\n      type: windsurf\n      custom_args: [--cascade]\n  ' +
          'bindings:\n    implementer: windsurf\n',
      });
      await spawnAgent(ws.ctx(), 'implementer', '010', ws.opts);
      expect(ws.f.calls()[0]!.argv).toEqual(['--cascade']);
      const e = await refused(
        ws.w,
        () => resumeAgent(ws.ctx(), { kind: 'task', id: '010' }, 'Use RS256', ws.opts),
        'RESUME_NOT_SUPPORTED',
        1,
      );
      expect(e.message).toBe('executor "windsurf" does not support session resumption');
      expect(e.hint).toContain('Cannot resume task 010. Consider:');
      expect(ws.f.calls()).toHaveLength(1);
    },
  );
});

describe('a worker without a task (sessions.<agent> on the project)', () => {
  it(
    'spawn planner records the session on the project; a second is refused; resume --agent continues it; a planner ' +
      'it never spawned has no session',
    async () => {
      const s = await setup();
      const r = await spawnAgent(s.ctx(), 'planner', undefined, { ...s.opts, prompt: 'Draft the task list.' });
      const session = s.w.yaml(PROJECT).sessions.planner;
      expect(session).toEqual({
        session_id: expect.stringMatching(UUID),
        executor: 'claude-code',
        type: 'claude',
        agent: 'planner',
        agent_id: 'planner-1',
        cwd: s.w.dir,
        branch: 'feat/demo',
        started_at: T0,
      });
      const call = s.f.calls()[0]!;
      expect(call.env['SOW_TASK_ID']).toBeUndefined();
      expect(call.stdin.endsWith('## Instructions from the orchestrator\n\nDraft the task list.\n')).toBe(true);
      expect(r).toMatchObject({ agent_id: 'planner-1', session_id: session.session_id });
      expect(r.report).toBeUndefined();
      expect(s.lines).toContain('planner-1 finished');
      expect(task(s.w).session_id, 'tasks untouched').toBeUndefined();

      const again = await refused(s.w, () => spawnAgent(s.ctx(), 'planner', undefined, s.opts), 'SESSION_EXISTS', 1);
      expect(again.hint).toContain('sow agent resume --agent planner');

      await resumeAgent(s.ctx(), { kind: 'project', agent: 'planner' }, 'Split task 3 in two.', s.opts);
      expect(s.f.calls()[1]).toMatchObject({
        resuming: true,
        session: session.session_id,
        stdin: 'Split task 3 in two.',
      });
      expect(s.w.yaml(PROJECT).sessions.planner).toMatchObject({
        session_id: session.session_id,
        resumes: 1,
        resumed_at: T0,
      });

      const none = await refused(
        s.w,
        () => resumeAgent(s.ctx(), { kind: 'project', agent: 'architect' }, 'Go on.', s.opts),
        'NO_SESSION',
        1,
      );
      expect(none.message).toBe('no session found for agent architect');
      expect(none.hint).toContain('sow agent spawn architect');
      expect(s.f.calls(), 'the spawn and the resume only').toHaveLength(2);
    },
  );

  it('what the worker reported during this run is in the result', async () => {
    const s = await setup();
    const started = join(s.f.dir, 'started');
    const go = join(s.f.dir, 'go');
    const running = spawnAgent(
      s.ctx({ FAKE_AGENT_SCRIPT: JSON.stringify([{ touch: started }, { wait: go }]) }),
      'planner',
      undefined,
      s.opts,
    );
    await until(() => existsSync(started), 'the worker to start');
    await agentReport(s.w.as('planner-1'), 'done', 'Tasks drafted');
    writeFileSync(go, '');
    const r = await running;
    expect(r.report).toEqual({ status: 'done', message: 'Tasks drafted' });
    expect(s.lines).toContain('planner-1 finished and reported done: Tasks drafted');
  });
});

/** Waits until `check` holds (the worker is a real process); fails naming `what` after a generous limit. */
async function until(check: () => boolean, what: string, ms = 120_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A SowError with this code and exit code, and a hint (the state may have changed). */
async function refusedLoosely(run: () => Promise<unknown>, code: string, exitCode: number) {
  const { exitCodeFor, SowError } = await import('../domain/errors.js');
  const e = await run().then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(SowError);
  const err = e as InstanceType<typeof SowError>;
  expect(err.code, err.message).toBe(code);
  expect(exitCodeFor(err.kind)).toBe(exitCode);
  expect(err.hint).toMatch(/\S/);
  return err;
}
