/**
 * Who owns a task, in-process: a worker owner judged by its pid only in its own pid namespace,
 * the task such an owner holds (not ready, finished only with --force), and the tasks a worker may
 * be spawned on (not a finished one, not before the project executes tasks, --next past a claim).
 * Spawned workers, their late writes and claims raced by real processes are
 * test/e2e/ownership.test.ts.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { refused, said, taskFile, toExecuting, worlds, type World } from '../../test/inproc.js';
import { fakes } from '../../test/inproc-fakes.js';
import { BOOT, PIDNS } from '../adapters/liveness.js';
import type { Owner } from '../domain/schemas.js';
import { spawnAgent } from './workers/spawn.js';
import type { AgentRunOptions } from './workers/types.js';
import { heldBy, workerOwner, ownerLive } from './ownership.js';
import type { TaskState } from '../domain/schemas.js';
import { agentReport } from './report.js';
import { newProject } from './project.js';
import { addTask, claimNext, nextTasks } from './task.js';
import { abandonTask, setTaskField } from './task-change.js';

const linux = process.platform === 'linux';
const NOW = '2026-11-28T00:00:00.000Z';
const startOf = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19]);

const world = worlds({ two: (w) => toExecuting(w, ['A', 'B']) });

describe('a worker owner is judged by its pid only in its own pid namespace', () => {
  it('records the pid namespace with the pid', () => {
    const owner = workerOwner('implementer-1', undefined, '2026-11-28T00:00:00.000Z');
    expect(owner).toMatchObject({ kind: 'worker', pid: process.pid, host: hostname() });
    if (linux) expect(owner.pidns).toBe(PIDNS);
  });

  it.skipIf(!linux)('pid 1 of a sandbox (another namespace) is alive, though pid 1 out here is another process', () => {
    const sandboxed: Owner = {
      kind: 'worker',
      by: 'implementer-1',
      pid: 1,
      host: hostname(),
      boot: BOOT!,
      pstart: startOf(1) + 1,
      pidns: 'pid:[4026530000]',
      since: '2026-11-28T00:00:00.000Z',
    };
    expect(ownerLive(sandboxed, NOW), 'never looked up: alive until --force').toBe(true);
    const { pidns: _, ...withoutNamespace } = sandboxed;
    expect(ownerLive(withoutNamespace, NOW), 'looked up, pid 1 out here is another process: gone').toBe(false);
    expect(ownerLive({ ...sandboxed, pidns: PIDNS! }, NOW), 'in our namespace: looked up, gone').toBe(false);
  });

  it.skipIf(!linux)('its task is owned, not ready; finishing it needs --force, which retires the owner', async () => {
    const w = await world('two');
    const stat = readFileSync('/proc/1/stat', 'utf8');
    // Out here pid 1 is another process (another start time): looked up, the owner would read as gone.
    const pstart = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]) + 1;
    const text = w
      .read(taskFile('010'))
      .replace(
        'metadata: {}',
        `metadata: {}\nowner:\n  kind: worker\n  by: implementer-7\n  pid: 1\n  host: ${hostname()}\n  ` +
          `boot: ${BOOT}\n  pstart: ${pstart}\n  pidns: "pid:[4026530000]"\n  since: "2026-11-26T00:00:00.000Z"`,
      );
    w.write(taskFile('010'), text.replace('status: pending', 'status: in_progress'));
    expect(
      (await nextTasks(w.ctx())).map((t) => t.id),
      'owned, not ready',
    ).toEqual(['020']);
    expect(said(await refused(w, () => setTaskField(w.ctx(), '010', 'status', 'completed'), 'TASK_HELD', 3))).toContain(
      'implementer-7: a worker run by pid 1',
    );
    await setTaskField(w.ctx(), '010', 'status', 'completed', { force: true });
    expect(w.yaml(taskFile('010')).retired_owners).toEqual(['implementer-7']);
  });
});

describe('the tasks a worker may be spawned on', () => {
  const setup = async (w: World) => {
    const f = fakes();
    const opts: AgentRunOptions = { verbose: false, quiet: false, say: () => undefined };
    return { f, opts, ctx: () => w.ctx(f.env) };
  };

  it('not a completed or an abandoned one (a worker would reopen it); --force spawns anyway', async () => {
    const w = await world('two');
    const s = await setup(w);
    await setTaskField(w.ctx(), '010', 'status', 'completed');
    await abandonTask(w.ctx(), '020');
    for (const [id, status] of [
      ['010', 'completed'],
      ['020', 'abandoned'],
    ] as const) {
      const e = await refused(w, () => spawnAgent(s.ctx(), 'implementer', id, s.opts), 'TASK_BLOCKED', 3);
      expect(e.message).toBe(`task ${id} is ${status}; a worker would reopen it`);
      expect(e.hint).toContain('--force');
    }
    expect(s.f.calls(), 'no CLI ran').toEqual([]);
    await spawnAgent(s.ctx(), 'implementer', '010', { ...s.opts, force: true });
    expect(s.f.calls()).toHaveLength(1);
  });

  it(
    'not before the project executes tasks, also by --next, with the sow advance that gets there; --force ' +
      'spawns anyway',
    async () => {
      const w = await world('init');
      const s = await setup(w);
      await newProject(w.ctx(), { name: 'demo', description: 'd', planning: false });
      await addTask(w.ctx(), { name: 'A', agent: 'implementer' });
      const e = await refused(w, () => spawnAgent(s.ctx(), 'implementer', '010', s.opts), 'NOT_EXECUTING', 3);
      expect(e.message).toBe(
        'task 010 cannot get a worker now: the project is in ImplementationPlanning, and workers run tasks in ' +
          'ImplementationExecuting',
      );
      expect(e.hint).toContain("run 'sow advance' (ImplementationPlanning → ImplementationExecuting); first:");
      expect(e.hint).toContain('tasks_approved true');
      await refused(
        w,
        () => spawnAgent(s.ctx(), 'implementer', undefined, { ...s.opts, next: true }),
        'NOT_EXECUTING',
        3,
      );
      expect(s.f.calls()).toEqual([]);
      await spawnAgent(s.ctx(), 'implementer', '010', { ...s.opts, force: true });
      expect(s.f.calls()).toHaveLength(1);
    },
  );

  it('--next passes over a task claimed by someone, and with none ready it is NO_READY_TASK', async () => {
    const w = await world('two');
    const s = await setup(w);
    await claimNext(w.ctx(), { owner: 'human' });
    const r = await spawnAgent(s.ctx(), 'implementer', undefined, { ...s.opts, next: true });
    expect(r.task).toBe('020');
    expect(s.f.calls()[0]!.env['SOW_TASK_ID']).toBe('020');
    // What the fake worker of the command line does when it is done (here it cannot call sow).
    await agentReport(w.as('implementer-1', '020'), 'needs_review', undefined);
    await refused(
      w,
      () => spawnAgent(s.ctx(), 'implementer', undefined, { ...s.opts, next: true }),
      'NO_READY_TASK',
      1,
    );
  });
});

describe('who holds a task, if not the one acting: one rule for every change of it', () => {
  const LATER = '2026-11-28T01:00:00.000Z';
  const EARLIER = '2026-11-27T23:00:00.000Z';
  const claim = (by: string, extra: Partial<Owner> = {}): Owner => ({
    kind: 'claim',
    by,
    since: EARLIER,
    lease_until: LATER,
    ...extra,
  });
  const task = (owner?: Owner): TaskState =>
    ({
      id: '010',
      name: 'A',
      phase: 'implementation',
      status: 'in_progress',
      iteration: 1,
      parallel: false,
      dependencies: [],
      created_at: EARLIER,
      updated_at: EARLIER,
      inputs: [],
      outputs: [],
      metadata: {},
      ...(owner ? { owner } : {}),
    }) as TaskState;
  const remote = (sha: string, lease_until = LATER) => ({
    remote: 'origin',
    claim: { task: '010', sha, owner: 'ann', machine: 'laptop-3', since: EARLIER, lease_until },
  });
  const user = { by: 'user' };

  it('a live owner here that is someone else holds it; its owner does not; a lease that ran out holds nothing', () => {
    expect(heldBy(task(claim('w1')), user, NOW)).toMatchObject({ where: 'here', owner: { by: 'w1' } });
    expect(heldBy(task(claim('w1')), { by: 'user', owner: 'w1' }, NOW)).toBeUndefined();
    expect(heldBy(task(claim('w1', { lease_until: EARLIER })), user, NOW)).toBeUndefined();
    expect(heldBy(task(), user, NOW)).toBeUndefined();
  });

  it(
    "a live claim on the remote holds it unless this checkout's state records that claim; a claim there that ran " +
      'out does not',
    () => {
      expect(heldBy(task(), user, NOW, remote('a1'))).toMatchObject({
        where: 'remote',
        remote: 'origin',
        claim: { owner: 'ann' },
      });
      expect(heldBy(task(), user, NOW, remote('a1', EARLIER))).toBeUndefined();
      expect(heldBy(task(), user, NOW, { remote: 'origin' })).toBeUndefined();
      // This checkout's own claim: the owner here decides, live or gone (a worker whose process ended here).
      const ours = claim('w1', { remote: 'origin', remote_claim: 'a1' });
      expect(heldBy(task(ours), { by: 'user', owner: 'w1' }, NOW, remote('a1'))).toBeUndefined();
      expect(heldBy(task({ ...ours, lease_until: EARLIER }), user, NOW, remote('a1'))).toBeUndefined();
      // Taken over there since: someone else's, even for the owner here.
      expect(heldBy(task(ours), { by: 'user', owner: 'w1' }, NOW, remote('b2'))).toMatchObject({ where: 'remote' });
      // A claim recorded for another remote is not the claim on this one.
      expect(
        heldBy(task({ ...ours, remote: 'upstream' }), { by: 'user', owner: 'w1' }, NOW, remote('a1')),
      ).toMatchObject({ where: 'remote' });
    },
  );
});
