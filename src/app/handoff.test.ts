/**
 * Sessions that survive, in-process: when the agent CLI cannot resume a session (the fake says
 * what the real one says: "No conversation found with session ID: …"), or with --fresh, a fresh
 * session of the same role takes the task over, its prompt a brief of where the task stands, and
 * the handoff is recorded in the task. The fake CLIs are on the context's PATH.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { taskFile, toExecuting, worlds } from '../../test/inproc.js';
import { fakes } from '../../test/inproc-fakes.js';
import { addArtifact } from './artifacts.js';
import { spawnAgent } from './workers/spawn.js';
import { resumeAgent } from './workers/resume.js';
import type { AgentRunOptions } from './workers/types.js';
import { appendLog } from './log.js';
import { setTaskField } from './task-change.js';

const world = worlds({ executing: (w) => toExecuting(w) });

async function setup() {
  const w = await world('executing');
  const f = fakes();
  const lines: string[] = [];
  const opts: AgentRunOptions = { verbose: false, quiet: true, say: (l) => lines.push(l) };
  const ctx = () => w.ctx(f.env);
  await spawnAgent(ctx(), 'implementer', '010', opts);
  // Where the task stands: a description, a log entry, a changed file, feedback.
  w.write(
    '.sow/project/phases/implementation/tasks/010/description.md',
    '# Parse the config\n\nRead config.yaml strictly.\n',
  );
  w.write('src/config.ts', 'export const strict = true;\n');
  await appendLog(w.as('implementer-1', '010'), {
    action: 'modified_file',
    result: 'success',
    files: [join(w.dir, 'src/config.ts')],
    notes: 'Added the strict flag',
    project: false,
  });
  w.write(
    '.sow/project/phases/implementation/tasks/010/feedback/001.md',
    'Unknown keys must be refused, not ignored.\n',
  );
  await addArtifact(w.ctx(), { kind: 'task', id: '010' }, 'inputs', {
    type: 'feedback',
    path: 'phases/implementation/tasks/010/feedback/001.md',
    extra: {},
  });
  return { w, f, lines, opts, ctx };
}

describe('a session the agent CLI cannot resume', () => {
  it('hands the task to a fresh session with a brief, records the handoff, and says so', async () => {
    const s = await setup();
    const old = s.w.yaml(taskFile('010')).session_id;
    // The session is gone, as on another machine or after an upgrade.
    rmSync(join(s.f.env['FAKE_AGENT_HOME']!, 'claude-sessions'), { recursive: true, force: true });
    const r = await resumeAgent(s.ctx(), { kind: 'task', id: '010' }, 'Refuse unknown keys', s.opts);
    const calls = s.f.calls();
    // The resume was refused by the CLI before it logged a call; then a fresh session started.
    expect(calls.map((c) => [c.resuming, c.session === old])).toEqual([
      [false, true],
      [false, false],
    ]);
    const brief = calls[1]!.stdin;
    expect(brief).toContain(
      'You take over task 010 from implementer-1, whose session could not be resumed (the agent CLI said: claude: ' +
        'No conversation found with session ID: ' +
        old +
        ')',
    );
    expect(brief).toContain('## The task\n\n# Parse the config\n\nRead config.yaml strictly.');
    expect(brief).toContain(
      '## Feedback on its work\n\n### phases/implementation/tasks/010/feedback/001.md\n\nUnknown keys must be ' +
        'refused, not ignored.',
    );
    expect(brief).toContain('Added the strict flag');
    expect(brief).toContain('## Files it changed\n\n- src/config.ts');
    expect(brief).toContain('+export const strict = true;');
    expect(brief).toContain('## What you are asked now\n\nRefuse unknown keys');
    const t = s.w.yaml(taskFile('010'));
    expect(t.session_id).not.toBe(old);
    expect(t.session.agent_id).toBe('implementer-2');
    expect(t.handoffs).toEqual([
      {
        at: expect.any(String),
        from_agent_id: 'implementer-1',
        from_session: old,
        reason: 'session_gone',
        cli_said: `claude: No conversation found with session ID: ${old}`,
        to_agent_id: 'implementer-2',
      },
    ]);
    expect(r).toMatchObject({ agent_id: 'implementer-2', task: '010' });
    expect(s.lines.some((l) => l.startsWith(`Claude Code could not resume session ${old}`))).toBe(true);
  });

  it('--fresh does it on purpose: no resume is tried; a worker that failed otherwise is not handed over', async () => {
    const s = await setup();
    const old = s.w.yaml(taskFile('010')).session_id;
    await setTaskField(s.w.ctx(), '010', 'status', 'needs_review');
    await resumeAgent(s.ctx(), { kind: 'task', id: '010' }, 'Start over from the plan', { ...s.opts, fresh: true });
    const calls = s.f.calls();
    expect(calls).toHaveLength(2);
    expect(calls[1]!.resuming).toBe(false);
    expect(calls[1]!.stdin).toContain('whose session is not to be continued');
    const t = s.w.yaml(taskFile('010'));
    expect(t.handoffs).toEqual([
      expect.objectContaining({ reason: 'asked', from_session: old, to_agent_id: 'implementer-2' }),
    ]);
    // A correction round, as a resume after needs_review.
    expect(t.iteration).toBe(2);
    expect(t.status).toBe('in_progress');
    // A failure that is not a lost session stays a failure.
    await expect(
      resumeAgent(s.w.ctx({ ...s.f.env, FAKE_AGENT_FAIL: '1' }), { kind: 'task', id: '010' }, 'go on', s.opts),
    ).rejects.toMatchObject({ code: 'WORKER_FAILED' });
    expect(s.w.yaml(taskFile('010')).handoffs).toHaveLength(1);
  });
});
