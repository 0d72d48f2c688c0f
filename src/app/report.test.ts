/**
 * What a spawned worker says about itself, in-process: `agent log`, `agent report` and the Stop
 * hook, each reading who the worker is from the context's environment (SOW_AGENT_ID,
 * SOW_TASK_ID, SOW_AGENT) — never from this process's.
 */
import { describe, expect, it } from 'vitest';
import { PROJECT, refused, said, T0, taskFile, toExecuting, worlds, type World } from '../../test/inproc.js';
import { fakes } from '../../test/inproc-fakes.js';
import { spawnAgent } from './workers/spawn.js';
import { stopHook } from './hook.js';
import { agentLog, agentReport } from './report.js';
import { setTaskField } from './task-change.js';

const world = worlds({
  executing: (w) => toExecuting(w),
  /** A planner spawned for the project (planner-1), whose worker reported nothing. */
  planner: async (w) => {
    await toExecuting(w);
    const f = fakes();
    await spawnAgent(w.ctx(f.env), 'planner', undefined, { verbose: false, quiet: true, say: () => undefined });
  },
});

const TASK_LOG = '.sow/project/phases/implementation/tasks/010/log.md';
const PROJECT_LOG = '.sow/project/log.md';
const task = (w: World, id = '010') => w.yaml(taskFile(id));

describe('agent log', () => {
  it(
    "a task worker's note goes to its task's log as the worker, stamped with the clock; without a task, to the " +
      'project log',
    async () => {
      const w = await world('executing');
      const r = await agentLog(w.as('implementer-1', '010'), { message: 'Wrote the parser', files: ['src/parse.ts'] });
      expect(r).toMatchObject({ task: '010', agent: 'implementer-1', files: ['src/parse.ts'] });
      const log = w.read(TASK_LOG);
      expect(log).toContain('agent: implementer-1');
      expect(log).toContain('action: note');
      expect(log).toContain(T0);
      expect(log).toContain('Wrote the parser');

      await agentLog(w.as('planner-1'), { message: 'Looked around', action: 'research', files: [] });
      const project = w.read(PROJECT_LOG);
      expect(project).toContain('agent: planner-1');
      expect(project).toContain('action: research');
      expect(project).toContain('Looked around');
    },
  );

  it(
    'refused for someone sow did not spawn (no SOW_AGENT_ID in the context), ' + 'an empty message, an unknown action',
    async () => {
      const w = await world('executing');
      const e = await refused(w, () => agentLog(w.ctx(), { message: 'hello', files: [] }), 'USAGE', 2);
      expect(said(e)).toContain('SOW_AGENT_ID');
      expect(e.hint).toContain('sow log --action');
      await refused(w, () => agentLog(w.as('implementer-1', '010'), { message: '  ', files: [] }), 'USAGE', 2);
      await refused(
        w,
        () => agentLog(w.as('implementer-1', '010'), { message: 'x', action: 'danced', files: [] }),
        'USAGE',
        2,
      );
    },
  );
});

describe('agent report', () => {
  it("a task worker sets its task's status, with a line in its log when it says why", async () => {
    const w = await world('executing');
    await setTaskField(w.ctx(), '010', 'status', 'in_progress');
    w.clock.advance(30);
    expect(await agentReport(w.as('implementer-1', '010'), 'needs_review', ' Done, see the tests ')).toEqual({
      agent_id: 'implementer-1',
      task: '010',
      status: 'needs_review',
      message: 'Done, see the tests',
    });
    expect(task(w)).toMatchObject({ status: 'needs_review' });
    const log = w.read(TASK_LOG);
    expect(log).toContain('action: reported_status');
    expect(log).toContain('Status needs_review: Done, see the tests');
    expect(log).toContain('2026-11-26T10:00:30.000Z');
  });

  it(
    'a task worker may report only what a worker ends with; ' + 'blocked by a dependency it is told to report paused',
    async () => {
      const w = await world('executing');
      const e = await refused(w, () => agentReport(w.as('implementer-1', '010'), 'completed', undefined), 'USAGE', 2);
      expect(e.hint).toBe('a worker on a task reports one of: in_progress, needs_review, paused, failed');
      // A worker started on 020 anyway (spawn --force), and 020 depends on 010.
      await setTaskField(w.ctx(), '020', 'status', 'in_progress');
      await setTaskField(w.ctx(), '020', 'dependencies', '010');
      const blocked = await refused(
        w,
        () => agentReport(w.as('implementer-2', '020'), 'needs_review', undefined),
        'TASK_BLOCKED',
        3,
      );
      expect(said(blocked)).toContain("report 'paused'");
      await agentReport(w.as('implementer-2', '020'), 'paused', 'waiting for 010');
      expect(task(w, '020').status).toBe('paused');
    },
  );

  it('a worker without a task records its report on its session and in the project log', async () => {
    const w = await world('planner');
    w.clock.advance(5);
    expect(await agentReport(w.as('planner-1'), 'blocked', 'Which database?')).toEqual({
      agent_id: 'planner-1',
      status: 'blocked',
      message: 'Which database?',
    });
    expect(w.yaml(PROJECT).sessions.planner.report).toEqual({
      status: 'blocked',
      message: 'Which database?',
      at: '2026-11-26T10:00:05.000Z',
    });
    expect(w.read(PROJECT_LOG)).toContain('Status blocked: Which database?');
  });

  it(
    'refused: a status a worker without a task does not report; a session that is not its own (NO_SESSION); no ' +
      'SOW_AGENT_ID',
    async () => {
      const w = await world('planner');
      const e = await refused(w, () => agentReport(w.as('planner-1'), 'needs_review', undefined), 'USAGE', 2);
      expect(e.hint).toMatch(/^a worker without a task reports one of: /);
      const other = await refused(w, () => agentReport(w.as('planner-7'), 'done', undefined), 'NO_SESSION', 1);
      expect(other.message).toBe(
        'planner-7 has no session of its own in this project (the planner session is planner-1)',
      );
      const none = await refused(w, () => agentReport(w.as('architect-1'), 'done', undefined), 'NO_SESSION', 1);
      expect(none.message).toContain('the architect session is not recorded');
      const user = await refused(w, () => agentReport(w.ctx(), 'done', undefined), 'USAGE', 2);
      expect(user.hint).toContain('sow task set --id <id> status <status>');
    },
  );
});

describe('the Stop hook', () => {
  it('lets anyone but a spawned worker stop, and never blocks twice in a row', async () => {
    const w = await world('executing');
    await setTaskField(w.ctx(), '010', 'status', 'in_progress');
    expect(await stopHook(w.ctx(), '{}')).toEqual({});
    expect(await stopHook(w.as('implementer-1', '010'), '{"stop_hook_active": true}')).toEqual({});
  });

  it(
    'blocks a task worker whose task is still in_progress, naming the command to report; lets it stop once ' +
      'it reported',
    async () => {
      const w = await world('executing');
      await setTaskField(w.ctx(), '010', 'status', 'in_progress');
      const d = await stopHook(w.as('implementer-1', '010'), '{"stop_hook_active": false}');
      expect(d.decision).toBe('block');
      expect(d.reason).toContain('You are implementer-1, working on sow task 010');
      expect(d.reason).toContain("'sow task set --id 010 status needs_review'");
      // Not the hook's JSON: decided as a first stop.
      expect((await stopHook(w.as('implementer-1', '010'), 'not json')).decision).toBe('block');
      await agentReport(w.as('implementer-1', '010'), 'needs_review', undefined);
      expect(await stopHook(w.as('implementer-1', '010'), '{}')).toEqual({});
    },
  );

  it(
    "blocks a worker without a task until it reported on its own session; another agent id's, or a broken state, " +
      'lets it stop',
    async () => {
      const w = await world('planner');
      const d = await stopHook(w.as('planner-1'), '');
      expect(d.decision).toBe('block');
      expect(d.reason).toContain("'sow agent report --status done");
      expect(await stopHook(w.as('planner-2'), '')).toEqual({});
      await agentReport(w.as('planner-1'), 'done', undefined);
      expect(await stopHook(w.as('planner-1'), '')).toEqual({});
      w.write(PROJECT, ': not yaml [');
      expect(await stopHook(w.as('implementer-1', '010'), '')).toEqual({});
    },
  );
});
