/**
 * Every executor type through `agent spawn` and `agent resume` in-process: the strict fake agent
 * CLIs of test/fakes (they refuse a flag the real CLI lacks and keep sessions like it) on the PATH
 * of the context, the executor `impl` of each type bound to the implementer in the user
 * configuration. Per CLI: the argv of spawn and resume, where the session id comes from (chosen by
 * sow, created by the CLI beforehand, or reported in its events), the prompt as the CLI received
 * it, the worker's environment and folder, the session recorded and continued; and how yolo_mode
 * and model map to each CLI's flags.
 *
 * test/e2e/agents.test.ts keeps two types (claude, codex) through the built binary, with the
 * worker calling `sow` back (its log entries and outputs, the approval that clears the session).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { refused, T0, taskFile, toExecuting, worlds, type World } from '../../test/inproc.js';
import { fakes, type Fakes } from '../../test/inproc-fakes.js';
import { spawnAgent } from './workers/spawn.js';
import { resumeAgent } from './workers/resume.js';
import type { AgentRunOptions } from './workers/types.js';
import { agentReport } from './report.js';
import { CASES, configFor, expectResumeCall, expectSpawnCall, type ArgvContext } from '../../test/executor-cases.js';

const world = worlds({ executing: (w) => toExecuting(w) });

/** Where a worker's events and prompt files go: sow's runtime folder, never state. */
const OUTPUTS = '.git/sow/agent-outputs';

interface Setup {
  w: World;
  f: Fakes;
  lines: string[];
  opts: AgentRunOptions;
  ctx(env?: Record<string, string>): ReturnType<World['ctx']>;
  /** The files of a task's runtime folder (full paths). */
  outputs(id?: string): string[];
}

async function setup(config?: string): Promise<Setup> {
  const w = await world('executing');
  const f = fakes();
  if (config !== undefined) f.writeConfig(config);
  const lines: string[] = [];
  return {
    w,
    f,
    lines,
    opts: { verbose: false, quiet: true, say: (l) => lines.push(l) },
    ctx: (env = {}) => w.ctx({ ...f.env, ...env }),
    outputs: (id = '010') => {
      const dir = join(w.dir, OUTPUTS, id);
      try {
        return readdirSync(dir)
          .sort()
          .map((n) => join(dir, n));
      } catch {
        return [];
      }
    },
  };
}

const task = (w: World, id = '010') => w.yaml(taskFile(id));
const only = <T>(items: T[], what: string): T => {
  expect(items, what).toHaveLength(1);
  return items[0]!;
};

describe('every executor type: spawn → needs_review → resume (a correction round), on its own session', () => {
  it.each(CASES)('$type', async (c) => {
    const s = await setup(configFor(c));
    const spawnNote = `Spawn note for the ${c.type} executor.`;

    // ---- spawn ----
    await spawnAgent(s.ctx(), 'implementer', '010', { ...s.opts, prompt: spawnNote });
    const afterSpawn = task(s.w);
    const sid: string = afterSpawn.session_id;
    expect(sid, 'session_id in the task state').toMatch(c.idPattern);
    expect(afterSpawn).toMatchObject({ status: 'in_progress', iteration: 1 });
    expect(afterSpawn.session).toEqual({
      executor: 'impl',
      type: c.type,
      agent: 'implementer',
      agent_id: 'implementer-1',
      cwd: s.w.dir,
      branch: 'feat/demo',
      started_at: T0,
    });

    const spawnCall = only(s.f.calls(), 'one fake CLI run after spawn');
    expect(spawnCall.cli).toBe(c.cli);
    expect(spawnCall.resuming, 'spawn starts a new session').toBe(false);
    expect(spawnCall.session, 'the session the CLI used is the one recorded').toBe(sid);
    expect(spawnCall.cwd).toBe(s.w.dir);
    const spawnPromptFile = only(
      s.outputs().filter((p) => p.endsWith('-spawn.prompt.md')),
      'spawn prompt file',
    );
    expect(spawnCall.argv, 'spawn argv').toEqual(c.spawnArgv({ sid, root: s.w.dir, promptFile: spawnPromptFile }));

    // Where the session id came from.
    const events = only(
      s.outputs().filter((p) => p.endsWith('-spawn.jsonl')),
      'spawn events file',
    );
    const firstEvent = JSON.parse(readFileSync(events, 'utf8').split('\n')[0]!);
    if (c.ids === 'caller') {
      expect(spawnCall.argv, 'caller-chosen id is passed to the CLI').toContain(sid);
    } else if (c.ids === 'precreated') {
      // The fake accepts --resume only for ids `cursor-agent create-chat` printed, and reports
      // resuming:false only for a chat created but never used: so sid is create-chat's id.
      const chats = readdirSync(join(s.f.env['FAKE_AGENT_HOME']!, 'cursor-agent-sessions')).map((n) =>
        decodeURIComponent(n.replace(/\.json$/, '')),
      );
      expect(chats).toEqual([sid]);
    } else if (c.type === 'codex') {
      expect(firstEvent).toEqual({ type: 'thread.started', thread_id: sid });
    } else {
      expect(firstEvent.sessionID).toBe(sid);
    }

    expectSpawnCall(c, spawnCall, spawnPromptFile, spawnNote, sid);

    // ---- the worker asks for review; resume with feedback: a correction round ----
    await agentReport(s.w.as('implementer-1', '010'), 'needs_review', undefined);
    s.w.clock.advance(60);
    const feedback = `Feedback for ${c.type}: passwords are logged on line 42; remove that.`;
    await resumeAgent(s.ctx(), { kind: 'task', id: '010' }, feedback, s.opts);
    const calls = s.f.calls();
    expect(calls).toHaveLength(2);
    const resumePromptFile = only(
      s.outputs().filter((p) => p.endsWith('-resume.prompt.md')),
      'resume prompt file',
    );
    expectResumeCall(c, calls[1]!, {
      sid,
      root: s.w.dir,
      cwd: afterSpawn.session.cwd,
      promptFile: resumePromptFile,
      feedback,
    });

    const afterResume = task(s.w);
    expect(afterResume.iteration, 'a resume after needs_review is a correction round').toBe(2);
    expect(afterResume.session_id).toBe(sid);
    expect(afterResume.session).toEqual({ ...afterSpawn.session, resumes: 1, resumed_at: '2026-11-26T10:01:00.000Z' });
  });
});

describe("yolo_mode and model map to each CLI's own flags", () => {
  const cases: [string, string, (c: ArgvContext) => string[]][] = [
    [
      'claude',
      'claude',
      ({ sid }) => [
        '--print',
        '--output-format',
        'stream-json',
        '--verbose',
        '--session-id',
        sid,
        '--model',
        'm1',
        '--dangerously-skip-permissions',
      ],
    ],
    [
      'cursor',
      'cursor-agent',
      ({ sid }) => ['-p', '--output-format', 'stream-json', '--resume', sid, '--model', 'm1', '--force'],
    ],
    [
      'codex',
      'codex',
      ({ root }) => ['exec', '--json', '-C', root, '-m', 'm1', '--dangerously-bypass-approvals-and-sandbox', '-'],
    ],
    ['gemini', 'gemini', ({ sid }) => ['--output-format', 'stream-json', '--session-id', sid, '-m', 'm1', '--yolo']],
    [
      'copilot',
      'copilot',
      ({ sid, root }) => [
        '--session-id',
        sid,
        '--output-format',
        'json',
        '-C',
        root,
        '--model',
        'm1',
        '--allow-all-tools',
      ],
    ],
    ['opencode', 'opencode', ({ root }) => ['run', '--format', 'json', '--dir', root, '-m', 'm1', '--auto']],
  ];
  it.each(cases)('%s', async (type, cli, argv) => {
    const s = await setup(
      `agents:\n  executors:\n    impl:\n      type: ${type}\n      settings:\n        yolo_mode: true\n        ` +
        `model: m1\n  bindings:\n    implementer: impl\n`,
    );
    const r = await spawnAgent(s.ctx(), 'implementer', '010', s.opts);
    expect(r.status).toBe('in_progress');
    const call = only(s.f.calls(), 'one run');
    expect(call.cli).toBe(cli);
    expect(call.argv).toEqual(argv({ sid: task(s.w).session_id, root: s.w.dir, promptFile: '' }));
    // yolo_mode: true is permissions: yolo: no permission files, no opencode permissions, and as
    // root Claude Code gets IS_SANDBOX=1 (without which it refuses its skip-all flag).
    expect(s.outputs().filter((p) => !/-spawn\.(prompt\.md|jsonl|events\.jsonl)$/.test(p))).toEqual([]);
    expect(Object.keys(call.env).filter((k) => k.startsWith('OPENCODE_'))).toEqual([]);
    expect(call.env['IS_SANDBOX']).toBe(type === 'claude' && process.getuid?.() === 0 ? '1' : undefined);
  });
});

describe('resume: which round it is, and where it may run', () => {
  it('a resume while the task is paused answers a question: not a new iteration', async () => {
    const s = await setup();
    await spawnAgent(s.ctx(), 'implementer', '010', s.opts);
    await agentReport(s.w.as('implementer-1', '010'), 'paused', 'Which algorithm?');
    expect(task(s.w)).toMatchObject({ status: 'paused', iteration: 1 });
    await resumeAgent(s.ctx(), { kind: 'task', id: '010' }, 'Use RS256 algorithm for JWT signing', s.opts);
    expect(s.f.calls()[1]).toMatchObject({ resuming: true, stdin: 'Use RS256 algorithm for JWT signing' });
    expect(task(s.w)).toMatchObject({ status: 'in_progress', iteration: 1 });
  });

  it('a task with a session, resumed from a branch not the project’s: WRONG_BRANCH before any CLI starts', async () => {
    const s = await setup();
    await spawnAgent(s.ctx(), 'implementer', '020', s.opts);
    s.w.git(['checkout', '-q', '-b', 'other']);
    const e = await refused(
      s.w,
      () => resumeAgent(s.ctx(), { kind: 'task', id: '020' }, 'more', s.opts),
      'WRONG_BRANCH',
      1,
    );
    expect(e.message).toBe("this project belongs to 'feat/demo', but 'other' is checked out");
    expect(s.f.calls(), 'only the spawn on the project branch ran').toHaveLength(1);
  });

  it(
    'when no executor defined can resume, the refusal names the types that can, usable by name (not claude-code, ' +
      'which is windsurf here)',
    async () => {
      const s = await setup(
        'agents:\n  executors:\n    claude-code:\n      type: windsurf\n    windsurf:\n      type: windsurf\n  ' +
          'bindings:\n    implementer: windsurf\n',
      );
      await spawnAgent(s.ctx(), 'implementer', '010', s.opts);
      const e = await refused(
        s.w,
        () => resumeAgent(s.ctx(), { kind: 'task', id: '010' }, 'Use RS256', s.opts),
        'RESUME_NOT_SUPPORTED',
        1,
      );
      expect(e.hint).toContain(
        'Switching to an executor with session support (claude, cursor, codex, gemini, copilot, opencode)',
      );
      expect(s.f.calls()).toHaveLength(1);
    },
  );
});
