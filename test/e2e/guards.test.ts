/**
 * The task guards without holes: every status that says work started or is done needs the
 * dependencies finished, through every path a status changes by (task set, agent report, the MCP
 * task_update tool, agent resume); claims only where tasks are worked on, in every project type;
 * who a claim is made by (a session alone, the person at a terminal); a finished task's history
 * (no-op writes, leaving completed only with --force, logged); tasks in progress that nobody
 * works on any more, said in task list, status and continue; and a deleted task folder named as
 * the thing that is missing.
 */
import { spawnSync } from 'node:child_process';
import { realpathSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  expectEnvelope,
  expectFails,
  ok,
  SOW,
  taskFile,
  TEST_ENV,
  toExecuting,
  useRepos,
  type Repo,
} from './harness.js';
import { makeWorld, parseLog, runSow, show, type World } from './agent-world.js';

// In-process (src/app/guards.test.ts): a worker that started may say it stopped but not that it
// is done; agent report and agent resume past a pending dependency; claims refused in every
// project type's non-executing states (standard's PlanningActive and ImplementationPlanning with
// the sow advance that gets there); a session alone as a claimant; leaving completed only with
// --force, logged; writes that find the task so already (unchanged, byte-identical, checks not
// run again); the rows, status and continue of a task whose worker is gone, whose claim ran out
// (by the clock), or whose worker is alive; and the deleted task folder named by task list,
// status, task get and task set. Here, one of each as a person sees it.

const fresh = useRepos();
const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const TASKS_DIR = '.sow/project/phases/implementation/tasks';
const taskLog = (id: string) => `${TASKS_DIR}/${id}/log.md`;

/** ImplementationExecuting with 010 and 020, where 020 depends on 010. */
function chained(): Repo {
  const repo = fresh();
  toExecuting(repo);
  // Dependencies are set while the tasks are being planned in real use; a hand edit of the plan here.
  ok(repo, ['task', 'set', '--id', '020', 'dependencies', '010']);
  return repo;
}

/** A world of fake agent CLIs for `repo`, removed after the test. */
function agents(repo: Repo): {
  world: World;
  sow: (args: string[], env?: Record<string, string>) => ReturnType<typeof runSow>;
} {
  const world = makeWorld();
  cleanups.push(() => world.cleanup());
  const root = realpathSync(repo.dir);
  return { world, sow: (args, env) => runSow(root, world, args, env) };
}

/** The pid of a process that has exited: an owner recorded with it is gone. */
const exitedPid = () => Number(spawnSync('sh', ['-c', 'echo $$'], { encoding: 'utf8' }).stdout.trim());

/**
 * Writes an owner (and optionally a worker's session) into a task file, as a killed `sow agent spawn` or a lapsed
 * claim leaves it.
 */
function forgeOwner(repo: Repo, id: string, owner: string, opts: { status?: string; session?: string } = {}): void {
  let text = repo.read(taskFile(id)).replace('metadata: {}', `metadata: {}\nowner:\n${owner.replace(/^/gm, '  ')}`);
  if (opts.session)
    text +=
      `session:\n  executor: claude-code\n  type: claude\n  agent: implementer\n  agent_id: ${opts.session}\n  ` +
      `cwd: /tmp\n  started_at: "2026-11-26T00:00:00.000Z"\n`;
  repo.write(taskFile(id), text.replace(/^status: \w+$/m, `status: ${opts.status ?? 'in_progress'}`));
}

const hasScript = process.platform === 'linux' && spawnSync('script', ['--version']).status === 0;

/** Runs sow at a terminal (a pseudo-terminal from `script`): stdout and stderr arrive together. */
function atTerminal(repo: Repo, args: string[], env: Record<string, string> = {}): { code: number; out: string } {
  const cmd = [process.execPath, SOW, ...args].map((a) => `'${a}'`).join(' ');
  const r = spawnSync('script', ['-qec', cmd, '/dev/null'], {
    cwd: repo.dir,
    encoding: 'utf8',
    env: { ...process.env, ...TEST_ENV, ...env },
  });
  return { code: r.status ?? -1, out: r.stdout };
}

// ---------------------------------------------------------------------------------------------

describe('work on a task starts and ends only after its dependencies', () => {
  // needs_review, in_progress, paused and failed as well: in-process (src/app/task.test.ts).
  it('task set: completed is refused while 010 is pending (exit 3, naming it); --force overrides', () => {
    const repo = chained();
    const text = expectFails(repo, ['task', 'set', '--id', '020', 'status', 'completed'], 3, 'TASK_BLOCKED', {
      human: true,
    });
    expect(text).toContain('task 020 cannot be completed: it depends on 010 (pending)');
    expect(text).toContain('finish or abandon 010 first');
    expect(text).toContain('--force');
    const refused = repo.sow(['task', 'set', '--id', '020', 'status', 'completed', '--json']);
    expect(refused.json?.error).toMatchObject({
      details: { task: '020', status: 'completed', blocked_by: [{ id: '010', status: 'pending' }] },
    });
    // Abandoning is not work; and once 010 is finished, 020 may be done.
    ok(repo, ['task', 'set', '--id', '020', 'status', 'completed', '--force']);
    expect(repo.yaml(taskFile('020')).status).toBe('completed');
  });

  // agent report and agent resume (a worker's fake CLI never started): in-process.
  it('the MCP task_update tool: refused as the CLI refuses (TASK_BLOCKED); force sets it', async () => {
    const repo = chained();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SOW, 'mcp'],
      cwd: repo.dir,
      env: mcpEnv(),
      stderr: 'pipe',
    });
    const client = new Client({ name: 'guards-test', version: '1.0.0' });
    cleanups.push(() => client.close().catch(() => undefined));
    await client.connect(transport);
    const before = repo.snapshot();
    const refused = await client.callTool({
      name: 'task_update',
      arguments: { id: '020', field: 'status', value: 'needs_review' },
    });
    expect(refused.isError).toBe(true);
    const body = JSON.parse((refused.content as { text: string }[])[0]!.text);
    expect(body).toEqual(expectEnvelope(repo.sow(['task', 'set', '--id', '020', 'status', 'needs_review', '--json'])));
    expect(body.error.code).toBe('TASK_BLOCKED');
    expect(repo.snapshot()).toEqual(before);
    const forced = await client.callTool({
      name: 'task_update',
      arguments: { id: '020', field: 'status', value: 'needs_review', force: true },
    });
    expect(forced.isError, JSON.stringify(forced.content)).toBeFalsy();
    expect(repo.yaml(taskFile('020')).status).toBe('needs_review');
  });
});

function mcpEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('SOW_')) env[k] = v;
  return { ...env, ...TEST_ENV };
}

// ---------------------------------------------------------------------------------------------

describe('claims only where tasks are worked on', () => {
  it('standard: before the tasks are approved, a claim is refused (exit 3), saying where tasks are worked on', () => {
    const repo = fresh();
    ok(repo, ['project', 'new', 'demo', '--description', 'd']);
    const planning = expectFails(repo, ['task', 'next', '--claim', '--owner', 'w1'], 3, 'NOT_EXECUTING', {
      human: true,
    });
    expect(planning).toContain('the project is in PlanningActive, and tasks are worked on in ImplementationExecuting');
  });
});

// ---------------------------------------------------------------------------------------------

describe('who claims', () => {
  it('without a terminal, nobody named is refused (exit 2): a script says who it is', () => {
    const repo = fresh();
    toExecuting(repo, ['A']);
    repo.git(['config', 'user.name', 'Ada Lovelace']);
    const text = expectFails(repo, ['task', 'next', '--claim'], 2, 'USAGE', { human: true });
    expect(text).toContain('say who claims the task: --owner <name>');
    expect(text).toContain('a person at a terminal');
    expect(text).toContain('SOW_OWNER');
  });

  it.skipIf(!hasScript)(
    "at a terminal the person claims under git's user.name (else $USER), and may finish their own claim",
    () => {
      const repo = fresh();
      toExecuting(repo, ['A', 'B']);
      repo.git(['config', 'user.name', 'Ada Lovelace']);
      const r = atTerminal(repo, ['task', 'next', '--claim']);
      expect(r.code, r.out).toBe(0);
      expect(r.out).toContain("Claimed task 010 'A' for Ada Lovelace");
      expect(repo.yaml(taskFile('010')).owner).toMatchObject({ kind: 'claim', by: 'Ada Lovelace' });
      // Without a terminal the same person is nobody in particular: finishing needs --force.
      expectFails(repo, ['task', 'set', '--id', '010', 'status', 'completed'], 3, 'TASK_HELD');
      const done = atTerminal(repo, ['task', 'set', '--id', '010', 'status', 'completed']);
      expect(done.code, done.out).toBe(0);
      expect(repo.yaml(taskFile('010')).status).toBe('completed');
      repo.git(['config', '--unset', 'user.name']);
      const byLogin = atTerminal(repo, ['task', 'next', '--claim'], {
        USER: 'ada',
        GIT_CONFIG_GLOBAL: '/dev/null',
        GIT_CONFIG_NOSYSTEM: '1',
      });
      expect(byLogin.code, byLogin.out).toBe(0);
      expect(repo.yaml(taskFile('020')).owner.by).toBe('ada');
    },
  );
});

// ---------------------------------------------------------------------------------------------

describe("a finished task's history is a fact", () => {
  it(
    'a status write that finds the task so already changes nothing and says so (exit 0): since when, for a ' +
      'finished one',
    () => {
      const repo = fresh();
      toExecuting(repo, ['A', 'B']);
      ok(repo, ['task', 'set', '--id', '010', 'status', 'completed']);
      ok(repo, ['task', 'set', '--id', '020', 'status', 'in_progress']);
      const completedAt = repo.yaml(taskFile('010')).completed_at;
      let before = repo.snapshot();
      expect(ok(repo, ['task', 'set', '--id', '010', 'status', 'completed']).stderr).toBe(
        `Task 010 is already completed (since ${completedAt}); nothing changed\n`,
      );
      const json = ok(repo, ['task', 'set', '--id', '010', 'status', 'completed', '--json']);
      expect(expectEnvelope(json).data).toEqual({
        id: '010',
        field: 'status',
        value: 'completed',
        checks: [],
        unchanged: true,
      });
      expect(ok(repo, ['task', 'set', '--id', '020', 'status', 'in_progress']).stderr).toBe(
        'Task 020 is already in_progress; nothing changed\n',
      );
      expect(repo.snapshot(), 'byte-identical: completed_at kept').toEqual(before);
      ok(repo, ['task', 'abandon', '--id', '020']);
      before = repo.snapshot();
      expect(ok(repo, ['task', 'abandon', '--id', '020']).stderr).toMatch(
        /^Task 020 is already abandoned \(since \d{4}-.*\); nothing changed\n$/,
      );
      expect(repo.snapshot()).toEqual(before);
    },
  );

  it('spawning on a completed task with --force reopens it, and its log says so', () => {
    const repo = fresh();
    toExecuting(repo, ['A']);
    const s = agents(repo);
    ok(repo, ['task', 'set', '--id', '010', 'status', 'completed']);
    const r = s.sow(['agent', 'spawn', 'implementer', '010', '--force']);
    expect(r.code, show(r)).toBe(0);
    expect(repo.yaml(taskFile('010')).status, 'the worker reported needs_review on the reopened task').toBe(
      'needs_review',
    );
    expect(parseLog(repo.read(taskLog('010'))).map((e) => e.body)).toContainEqual(
      expect.stringContaining(
        'Reopened with --force (a worker was spawned on it: sow agent spawn implementer 010 --force)',
      ),
    );
  });
});

// ---------------------------------------------------------------------------------------------

describe('a task in progress that nobody works on any more', () => {
  // The rows (--json worker), a claim run out and a live worker: in-process.
  it("its worker's sow process is gone: task list, status and continue say so and what to do", () => {
    const repo = fresh();
    toExecuting(repo, ['A', 'B']);
    forgeOwner(
      repo,
      '010',
      `kind: worker\nby: implementer-7\npid: ${exitedPid()}\nhost: ${hostname()}\nsince: "2026-11-26T00:00:00.000Z"`,
      { session: 'implementer-7' },
    );
    const advice =
      `Nobody works on task 010 any more: its worker implementer-7 is gone (the sow process that ran it ` +
      `ended). To go on, resume its session ('sow agent resume 010 "<prompt>"'), or let the next claim take it ` +
      `('sow task next --claim').`;

    const list = ok(repo, ['task', 'list']);
    expect(list.stdout).toBe('pending (1):\n020 B\nin_progress (1):\n010 A — nobody works on it\n');
    expect(list.stderr).toBe(`${advice}\n`);
    expect(ok(repo, ['status']).stdout).toContain(`Tasks    2 (1 in_progress, 1 pending)\n  ! ${advice}\n`);
    expect(ok(repo, ['project', 'continue', '--full']).stdout).toContain(
      `- Tasks: 2 (1 in_progress, 1 pending)\n- ${advice}\n`,
    );
    // The state card of a session's start says it too.
    expect(ok(repo, ['project', 'continue']).stdout).toContain(`Tasks: 2 (1 in_progress, 1 pending)\n- ${advice}\n`);
  });

  it('a worker that ended without reporting: nobody works on it; it can be resumed or claimed', () => {
    const repo = fresh();
    toExecuting(repo, ['A']);
    const s = agents(repo);
    const r = s.sow(['agent', 'spawn', 'implementer', '010'], {
      FAKE_AGENT_SCRIPT: JSON.stringify([['agent', 'log', 'looked around']]),
    });
    expect(r.code, show(r)).toBe(0);
    expect(repo.yaml(taskFile('010')).status).toBe('in_progress');
    const list = ok(repo, ['task', 'list']);
    expect(list.stdout).toBe('in_progress (1):\n010 A — nobody works on it\n');
    expect(list.stderr).toContain('its worker implementer-1 ended without saying how the work stands');
    expect(list.stderr).toContain(`'sow agent resume 010 "<prompt>"'`);
    expect(ok(repo, ['task', 'list', '--json']).json!.data[0].worker).toEqual({
      state: 'gone',
      kind: 'worker',
      by: 'implementer-1',
      why: 'run_ended',
    });
    expect(
      ok(repo, ['task', 'next', '--json']).json!.data.map((t: { id: string }) => t.id),
      'ready for the next claim',
    ).toEqual(['010']);
    const resumed = s.sow(['agent', 'resume', '010', 'go on']);
    expect(resumed.code, show(resumed)).toBe(0);
    expect(repo.yaml(taskFile('010')).status).toBe('needs_review');
    expect(ok(repo, ['task', 'list']).stderr).toBe('');
  });
});

// ---------------------------------------------------------------------------------------------

describe('a deleted task folder', () => {
  // By status and task get as well: in-process.
  it(
    'is named, with the git checkout that restores it, by a read and a write of a task that depends on ' +
      'it (exit 4)',
    () => {
      const repo = chained();
      repo.git(['add', '-A']);
      repo.git(['commit', '-q', '-m', 'the plan']);
      const folder = `${TASKS_DIR}/010`;
      rmSync(join(repo.dir, folder), { recursive: true });
      const before = repo.snapshot();
      for (const args of [
        ['task', 'list'],
        ['task', 'set', '--id', '020', 'status', 'in_progress'],
      ]) {
        const r = repo.sow([...args, '--json']);
        expect(r.code, `sow ${args.join(' ')}: ${r.stdout}`).toBe(4);
        expect(r.json?.error).toMatchObject({
          code: 'TASK_FOLDER_MISSING',
          message: `task 010 is missing: its folder ${folder} does not exist, and task 020 depends on it`,
          details: { folder, task: '010', needed_by: '020' },
        });
        expect(r.json?.error?.hint).toContain(`restore it with 'git checkout -- ${folder}'`);
        const human = repo.sow(args);
        expect(human.code).toBe(4);
        expect(human.stderr).toContain(`git checkout -- ${folder}'`);
        expect(human.stderr, 'does not blame the file of 020').not.toContain(`git checkout -- ${taskFile('020')}`);
        expect(repo.snapshot()).toEqual(before);
      }
      // The hint works.
      repo.git(['checkout', '--', folder]);
      expect(ok(repo, ['task', 'list', '--json']).json!.data.map((t: { id: string }) => t.id)).toEqual(['010', '020']);
    },
  );
});
