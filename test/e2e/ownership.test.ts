/**
 * One owner per task: `task next [--claim]`, claims with leases, spawned workers owned by the
 * `sow agent spawn` process that waits for them, --force takeovers, and late writes of an identity
 * that no longer owns its task. The built CLI in temp git repositories, with the strict fake agent
 * CLIs on PATH (test/fakes/fake-agent.mjs), which can wait for the test and try late writes.
 *
 * In-process: which tasks are ready, a claim's lease and its running out, SOW_OWNER, finishing a
 * claimed task (src/app/task.test.ts); an owner in another pid namespace, and the tasks a worker
 * may be spawned on — not a finished one, not before the project executes tasks, --next past a
 * claim (src/app/ownership.test.ts).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { expectFails, ok, SOW, taskFile, toExecuting, useRepos, type Repo, type RunResult } from './harness.js';
import { cleanEnv, makeWorld, runSow, show, type World, until } from './agent-world.js';

const fresh = useRepos();
const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

/** A project in ImplementationExecuting with these tasks (ids 010, 020, …). */
function executing(names: string[]): Repo {
  const repo = fresh();
  toExecuting(repo, names);
  return repo;
}

/**
 * A project in ImplementationExecuting with `n` tasks (ids 010, 020, …): the one task of the
 * template copied as files, as `task add` would have written them (a walk of n commands less).
 */
function executingMany(n: number): Repo {
  const repo = executing(['A']);
  const dir = '.sow/project/phases/implementation/tasks';
  const state = repo.read(`${dir}/010/state.yaml`);
  for (let i = 2; i <= n; i++) {
    const id = String(i * 10).padStart(3, '0');
    repo.write(
      `${dir}/${id}/state.yaml`,
      state.replace('id: "010"', `id: "${id}"`).replace(/^name: A$/m, `name: Task ${i}`),
    );
    repo.write(`${dir}/${id}/description.md`, `# Task ${i}\n`);
    repo.write(`${dir}/${id}/log.md`, `# Task log: ${id} Task ${i}\n`);
    repo.write(`${dir}/${id}/feedback/.gitkeep`, '');
  }
  return repo;
}

const ids = (r: RunResult): string[] => (r.json!.data as { id: string }[]).map((t) => t.id);

function sowAsync(repo: Repo, args: string[], env: Record<string, string> = {}): Promise<RunResult> {
  return repo.sowAsync(args, { env });
}

describe('sow task next', () => {
  // Which tasks are ready (dependencies, abandoned ones, tasks in progress): in-process,
  // src/app/task.test.ts. Here what the command prints.
  it('lists the ready tasks in id order: a line each, and the rows as data with --json', () => {
    const repo = executing(['A', 'B']);
    ok(repo, ['task', 'set', '--id', '010', 'status', 'in_progress']);
    expect(ids(ok(repo, ['task', 'next', '--json']))).toEqual(['020']);
    expect(ok(repo, ['task', 'next']).stdout).toBe('pending (1):\n020 B\n');
  });

  it('says so when nothing is ready (exit 0), and --agent/--owner without --claim is a usage error', () => {
    const repo = executing(['A']);
    ok(repo, ['task', 'set', '--id', '010', 'status', 'in_progress']);
    const r = ok(repo, ['task', 'next']);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('No task is ready to start');
    expectFails(repo, ['task', 'next', '--owner', 'me'], 2, 'USAGE');
  });
});

describe('sow task next --claim', () => {
  it(
    'claims the first ready task: in progress, owned with a lease, its id on stdout; the next claim ' +
      'takes the next',
    () => {
      const repo = executing(['A', 'B']);
      const r = ok(repo, ['task', 'next', '--claim', '--owner', 'w1', '--agent', 'implementer']);
      expect(r.stdout.trim()).toBe('010');
      expect(r.stderr).toMatch(/^Claimed task 010 'A' for w1 \(lease until \d{4}-/);
      const task = repo.yaml(taskFile('010'));
      expect(task.status).toBe('in_progress');
      expect(task.owner).toMatchObject({ kind: 'claim', by: 'w1', lease_seconds: 1800 });
      expect(Date.parse(task.owner.lease_until) - Date.parse(task.owner.since)).toBe(1_800_000);
      expect(ok(repo, ['task', 'next', '--claim', '--owner', 'w2', '--json']).json!.data.id).toBe('020');
      const none = expectFails(repo, ['task', 'next', '--claim', '--owner', 'w3'], 1, 'NO_READY_TASK');
      expect(none).toContain('2 in progress');
    },
  );

  it(
    'needs to know who claims: without --owner (or SOW_OWNER, or a worker of its own) exit 2; --lease is ' +
      'a duration',
    () => {
      const repo = executing(['A', 'B']);
      const text = expectFails(repo, ['task', 'next', '--claim'], 2, 'USAGE', { human: true });
      expect(text).toContain('--owner <name>');
      // SOW_OWNER, and a worker of its own: in-process.
      expectFails(repo, ['task', 'next', '--claim', '--owner', 'x', '--lease', 'soon'], 2, 'USAGE');
    },
  );

  it('16 processes claiming at once: no task claimed twice, none skipped', async () => {
    const repo = executingMany(20);
    expect(ids(ok(repo, ['task', 'next', '--json'])), 'the tasks written as files are read as tasks').toHaveLength(20);
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) => sowAsync(repo, ['task', 'next', '--claim', '--owner', `w${i}`, '--json'])),
    );
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const claimed = results.map((r) => r.json!.data.id as string).sort();
    expect(new Set(claimed).size, 'no task claimed twice').toBe(16);
    expect(claimed, 'the first 16 ready tasks, none skipped').toEqual(
      Array.from({ length: 16 }, (_, i) => String((i + 1) * 10).padStart(3, '0')),
    );
    const owners = claimed.map((id) => repo.yaml(taskFile(id)).owner.by as string);
    expect(new Set(owners).size, 'each task has the owner that claimed it').toBe(16);
    for (const r of results) expect(repo.yaml(taskFile(r.json!.data.id)).owner.by).toBe(r.json!.data.owner.by);
    // Fewer tasks than claimers: the rest are told there is nothing to claim.
    const more = await Promise.all(
      Array.from({ length: 8 }, (_, i) => sowAsync(repo, ['task', 'next', '--claim', '--owner', `v${i}`, '--json'])),
    );
    expect(
      more
        .filter((r) => r.code === 0)
        .map((r) => r.json!.data.id)
        .sort(),
    ).toEqual(['170', '180', '190', '200']);
    expect(more.filter((r) => r.code !== 0).map((r) => r.json?.error?.code)).toEqual([
      'NO_READY_TASK',
      'NO_READY_TASK',
      'NO_READY_TASK',
      'NO_READY_TASK',
    ]);
  });
  // The lease running out, finishing a claimed task and the owner's own finish: src/app/task.test.ts.
});

// ---------------------------------------------------------------------------------------------

interface Spawned {
  world: World;
  root: string;
  sow(args: string[], env?: Record<string, string>): ReturnType<typeof runSow>;
}

/** The repo with a fake claude bound to every role, and a way to run sow in the fakes' world. */
function agents(repo: Repo): Spawned {
  const world = makeWorld();
  cleanups.push(() => world.cleanup());
  const root = realpathSync(repo.dir);
  return { world, root, sow: (args, env) => runSow(root, world, args, env) };
}

/** Starts `sow agent spawn …` in the background with a fake worker script. */
function spawnInBackground(
  s: Spawned,
  args: string[],
  script: unknown[],
): Promise<{ code: number | null; stdout: string; stderr: string; pid: number }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [SOW, ...args], {
      cwd: s.root,
      env: cleanEnv({ ...s.world.env, FAKE_AGENT_SCRIPT: JSON.stringify(script) }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr, pid: child.pid! }));
  });
}

describe('spawned workers own their task', () => {
  it(
    'while the worker runs: the task is owned by the spawn process; a second spawn and a completion by someone else ' +
      'are refused',
    async () => {
      const repo = executing(['A', 'B']);
      const s = agents(repo);
      const go = join(s.world.root, 'go');
      const started = join(s.world.root, 'started');
      const run = spawnInBackground(
        s,
        ['agent', 'spawn', 'implementer', '010'],
        [{ touch: started }, { wait: go }, ['task', 'set', 'status', 'needs_review']],
      );
      await until(() => existsSync(started), 'the worker to start');
      const owner = repo.yaml(taskFile('010')).owner;
      expect(owner).toMatchObject({ kind: 'worker', by: 'implementer-1' });
      expect(owner.pid, 'owned by the sow agent spawn process that waits for the worker').toBeGreaterThan(0);
      const again = s.sow(['agent', 'spawn', 'implementer', '010', '--json']);
      expect(again.code, show(again)).toBe(1);
      expect(again.json?.error?.code).toBe('TASK_OWNED');
      expect(again.json?.error?.message).toContain('implementer-1 (a worker run by pid');
      const done = s.sow(['task', 'set', '--id', '010', 'status', 'completed', '--json']);
      expect(done.code, show(done)).toBe(3);
      expect(done.json?.error?.code, show(done)).toBe('TASK_HELD');
      // Another task is free to work on.
      expect(s.sow(['task', 'next', '--json']).json!.data.map((t: { id: string }) => t.id)).toEqual(['020']);
      writeFileSync(go, '');
      const result = await run;
      expect(result.code, result.stderr).toBe(0);
      const task = repo.yaml(taskFile('010'));
      expect(task.status).toBe('needs_review');
      expect(task.owner, 'released when the worker is done').toBeUndefined();
      // Now the orchestrator may complete it.
      expect(s.sow(['task', 'set', '--id', '010', 'status', 'completed']).code).toBe(0);
    },
  );

  it(
    'a late worker after a forced completion cannot reopen the task: its write is refused, the task ' +
      'stays completed',
    async () => {
      const repo = executing(['A']);
      const s = agents(repo);
      const go = join(s.world.root, 'go');
      const started = join(s.world.root, 'started');
      const late = join(s.world.root, 'late.json');
      const run = spawnInBackground(
        s,
        ['agent', 'spawn', 'implementer', '010'],
        [
          { touch: started },
          { wait: go },
          { try: ['task', 'set', 'status', 'needs_review'], out: late },
          { try: ['agent', 'log', 'still here'], out: `${late}.log` },
        ],
      );
      await until(() => existsSync(started), 'the worker to start');
      const forced = s.sow(['task', 'set', '--id', '010', 'status', 'completed', '--force']);
      expect(forced.code, show(forced)).toBe(0);
      const done = repo.yaml(taskFile('010'));
      expect(done.status).toBe('completed');
      expect(done.owner).toBeUndefined();
      expect(done.retired_owners).toEqual(expect.arrayContaining(['implementer-1']));
      writeFileSync(go, '');
      const result = await run;
      const refused = JSON.parse(readFileSync(late, 'utf8'));
      expect(refused.code, refused.stderr).toBe(1);
      expect(refused.stderr).toMatch(/^error: session .+ no longer owns task 010 \(its status is completed\)/);
      expect(JSON.parse(readFileSync(`${late}.log`, 'utf8')).code).toBe(1);
      expect(repo.yaml(taskFile('010')).status, 'the task stays completed').toBe('completed');
      expect(repo.read('.sow/project/phases/implementation/tasks/010/log.md')).not.toContain('still here');
      expect(result.stdout + result.stderr).toContain('Task 010 is now completed');
    },
  );

  it('a worker whose spawn process died leaves a stale owner: the next spawn takes over without --force', () => {
    const repo = executing(['A']);
    const s = agents(repo);
    // As a SIGKILLed `sow agent spawn` leaves it: an owner whose pid has exited.
    const gone = Number(spawnSync('sh', ['-c', 'echo $$'], { encoding: 'utf8' }).stdout.trim());
    const text = repo
      .read(taskFile('010'))
      .replace(
        'metadata: {}',
        `metadata: {}\nowner:\n  kind: worker\n  by: implementer-7\n  pid: ${gone}\n  host: ${hostname()}\n  ` +
          `since: "2026-11-26T00:00:00.000Z"`,
      );
    repo.write(taskFile('010'), text.replace('status: pending', 'status: in_progress'));
    expect(
      ok(repo, ['task', 'next', '--json']).json!.data.map((t: { id: string }) => t.id),
      'a stale owner: ready again',
    ).toEqual(['010']);
    const r = s.sow(['agent', 'spawn', 'implementer', '010']);
    expect(r.code, show(r)).toBe(0);
    const task = repo.yaml(taskFile('010'));
    expect(task.status).toBe('needs_review');
    expect(task.retired_owners).toContain('implementer-7');
  });
  // A worker in another pid namespace (pid 1 of its sandbox): in-process.
});

describe('agent spawn refuses what a worker cannot do well', () => {
  // An abandoned task as well, NOT_EXECUTING by --next, --force, and --next past a claim: in-process.
  it('a completed task: exit 3, and no CLI runs', () => {
    const repo = executing(['A']);
    const s = agents(repo);
    ok(repo, ['task', 'set', '--id', '010', 'status', 'completed']);
    const r = s.sow(['agent', 'spawn', 'implementer', '010', '--json']);
    expect(r.code, show(r)).toBe(3);
    expect(r.json?.error?.code).toBe('TASK_BLOCKED');
    expect(r.json?.error?.message).toBe('task 010 is completed; a worker would reopen it');
    expect(r.json?.error?.hint).toContain('--force');
    expect(s.world.calls(), 'no CLI ran').toEqual([]);
  });

  it('a project that is not executing tasks: exit 3 with the sow advance that gets there', () => {
    const repo = fresh();
    ok(repo, ['project', 'new', 'demo', '--description', 'd', '--no-planning']);
    ok(repo, ['task', 'add', 'A', '--agent', 'implementer']);
    const s = agents(repo);
    const r = s.sow(['agent', 'spawn', 'implementer', '010', '--json']);
    expect(r.code, show(r)).toBe(3);
    expect(r.json?.error).toMatchObject({ code: 'NOT_EXECUTING' });
    expect(r.json?.error?.hint).toContain(
      "run 'sow advance' (ImplementationPlanning → ImplementationExecuting); first:",
    );
    expect(s.world.calls()).toEqual([]);
  });

  it(
    '--next spawns a worker on the task a claim would take; with none ready, NO_READY_TASK; a task id and --next is ' +
      'a usage error',
    () => {
      const repo = executing(['A']);
      const s = agents(repo);
      const r = s.sow(['agent', 'spawn', 'implementer', '--next', '--json']);
      expect(r.code, show(r)).toBe(0);
      expect(r.json!.data.task).toBe('010');
      expect(s.world.calls()[0]!.env['SOW_TASK_ID']).toBe('010');
      const none = s.sow(['agent', 'spawn', 'implementer', '--next', '--json']);
      expect(none.code, show(none)).toBe(1);
      expect(none.json?.error?.code).toBe('NO_READY_TASK');
      expect(s.sow(['agent', 'spawn', 'implementer', '010', '--next']).code, 'a task id and --next').toBe(2);
    },
  );
});

describe('workers report back', () => {
  it('sow agent log: a note in the worker’s task log; outside a worker a usage error naming sow log', () => {
    const repo = executing(['A']);
    const s = agents(repo);
    const r = s.sow(['agent', 'spawn', 'implementer', '010'], {
      FAKE_AGENT_SCRIPT: JSON.stringify([
        ['agent', 'log', 'Implemented', 'the', 'parser'],
        ['agent', 'log', '--file', 'src/p.ts', 'Changed a file'],
        ['task', 'set', 'status', 'needs_review'],
      ]),
    });
    expect(r.code, show(r)).toBe(0);
    const log = repo.read('.sow/project/phases/implementation/tasks/010/log.md');
    expect(log).toMatch(/agent: implementer-1\naction: note\nresult: success\n---\n\nImplemented the parser\n/);
    expect(repo.yaml(taskFile('010')).outputs.map((o: { path: string }) => o.path)).toEqual(['src/p.ts']);
    const outside = expectFails(repo, ['agent', 'log', 'hello'], 2, 'USAGE', { human: true });
    expect(outside).toContain('sow log --action');
  });

  it('sow log outside a worker logs as user without --agent', () => {
    const repo = executing(['A']);
    ok(repo, ['log', '--task', '010', '--action', 'note', '--result', 'success', 'By hand']);
    expect(repo.read('.sow/project/phases/implementation/tasks/010/log.md')).toContain('agent: user\n');
  });

  it(
    'sow agent report: a task worker sets its status; ' + 'a worker without a task records its report on its session',
    () => {
      const repo = executing(['A']);
      const s = agents(repo);
      const onTask = s.sow(['agent', 'spawn', 'implementer', '010'], {
        FAKE_AGENT_SCRIPT: JSON.stringify([['agent', 'report', '--status', 'paused', 'Which', 'algorithm?']]),
      });
      expect(onTask.code, show(onTask)).toBe(0);
      expect(repo.yaml(taskFile('010')).status).toBe('paused');
      expect(repo.read('.sow/project/phases/implementation/tasks/010/log.md')).toContain(
        'Status paused: Which algorithm?',
      );
      const planner = s.sow(['agent', 'spawn', 'planner', '--json'], {
        FAKE_AGENT_SCRIPT: JSON.stringify([['agent', 'report', '--status', 'done', 'Plan', 'drafted']]),
      });
      expect(planner.code, show(planner)).toBe(0);
      const session = repo.yaml('.sow/project/state.yaml').sessions.planner;
      expect(session.report).toMatchObject({ status: 'done', message: 'Plan drafted' });
      expect(repo.read('.sow/project/log.md')).toContain('Status done: Plan drafted');
      // agent spawn says what the worker reported, and --json has it.
      expect(planner.stderr).toMatch(/^planner-1 finished and reported done: Plan drafted$/m);
      expect(JSON.parse(planner.stdout).data.report).toEqual({ status: 'done', message: 'Plan drafted' });
      const bad = s.sow(['agent', 'spawn', 'planner', '--force'], {
        FAKE_AGENT_SCRIPT: JSON.stringify([
          { try: ['agent', 'report', '--status', 'needs_review'], out: join(s.world.root, 'bad.json') },
        ]),
      });
      expect(bad.code, show(bad)).toBe(0);
      // The earlier run's report is not this run's.
      expect(bad.stderr).toMatch(/^planner-\d finished$/m);
      expect(bad.stderr).not.toContain('reported done');
      const refused = JSON.parse(readFileSync(join(s.world.root, 'bad.json'), 'utf8'));
      // --status outside the list a worker without a task reports from: the command line (exit 2).
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain("unknown status 'needs_review'");
      expect(refused.stderr).toContain('a worker without a task reports one of: working, done, blocked, failed');
      expectFails(repo, ['agent', 'report', '--status', 'done'], 2, 'USAGE');
    },
  );
});
