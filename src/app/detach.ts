/** Workers in the background: `agent spawn --detach` starts a supervisor (adapters/supervisor.ts) and returns once it
 * has recorded the session; `agent wait` waits for workers to stop. Waits use the monotonic clock. */
import { SowError } from '../domain/errors.js';
import type { TaskState } from '../domain/schemas.js';
import {
  latestEventsFile,
  latestRun,
  markWaited,
  pruneSupervisedRuns,
  readEvents,
  READY_VARIABLE,
  readOwnJson,
  runId,
  startDetached,
  supervisedRuns,
  supervisorFiles,
} from '../adapters/supervisor.js';
import type { WorkerEvent } from '../adapters/agent-outputs.js';
import { activityOf, activityOfEvents } from './workers/events.js';
import { resumePreconditions, spawnPreconditions } from './workers/preconditions.js';
import { settleStopped } from './workers/settle.js';
import { checkoutsWithProject } from './worktree.js';
import type { AppContext } from './context.js';
import { liveOwner, workerNow } from './ownership.js';
import { groupAlive, proveOwnerNow, signalOwner } from '../adapters/signals.js';
import { NotSowsProcessError } from '../domain/signal-proof.js';
import { unattendedText } from '../domain/ownership.js';
import { Reader } from './workspace.js';
import { findWorkspaceRoot } from '../adapters/repo.js';
import type { RemoteClaims } from '../domain/claims.js';

export interface DetachedStart {
  detached: true;
  agent: string;
  agent_id: string;
  task?: string;
  session_id: string | null;
  /** The supervisor's pid: the task's owner while the worker runs. */
  pid: number;
  events_file: string;
  /** The supervisor's own output (the progress view of the worker). */
  log: string;
}

export async function spawnDetached(
  ctx: AppContext,
  agentName: string,
  taskId: string | undefined,
  opts: Partial<Record<(typeof SPAWN_FLAGS)[number], boolean>> & { prompt?: string; script?: string },
): Promise<DetachedStart> {
  // Refused here, with its own code, what the supervisor would refuse: nothing starts for a request that cannot run.
  const { root } = await spawnPreconditions(ctx, agentName, taskId, opts);
  return supervise(ctx, root, opts.script, [
    ...['agent', 'spawn', agentName, ...(taskId !== undefined ? [taskId] : [])],
    ...SPAWN_FLAGS.filter((f) => opts[f]).map((f) => `--${f}`),
    // `--prompt=<text>`: a prompt that begins with a dash is still the prompt.
    ...(opts.prompt !== undefined ? [`--prompt=${opts.prompt}`] : []),
    '--json',
  ]);
}

const SPAWN_FLAGS = ['next', 'iteration', 'force', 'verbose', 'worktree'] as const;
const RESUME_FLAGS = ['force', 'fresh', 'verbose'] as const;

/** `agent resume --detach`: the same session continued under a supervisor, as `agent spawn --detach` starts one. */
export async function resumeDetached(
  ctx: AppContext,
  target: { kind: 'task'; id: string } | { kind: 'project'; agent: string },
  prompt: string,
  opts: Partial<Record<(typeof RESUME_FLAGS)[number], boolean>> & { script?: string },
): Promise<DetachedStart> {
  const { root } = await resumePreconditions(ctx, target, opts);
  return supervise(ctx, root, opts.script, [
    ...['agent', 'resume', ...(target.kind === 'project' ? ['--agent', target.agent] : [])],
    ...RESUME_FLAGS.filter((f) => opts[f]).map((f) => `--${f}`),
    '--json',
    // After `--`, a prompt that begins with a dash is still the prompt.
    '--',
    ...(target.kind === 'task' ? [target.id] : []),
    prompt,
  ]);
}

/** Starts `sow <args>` under a supervisor of its own and returns once it has recorded the session (or refused). */
async function supervise(ctx: AppContext, root: string, script: string | undefined, args: string[]) {
  const files = supervisorFiles(root, runId(ctx.now()));
  const run = { script: script ?? process.argv[1] ?? 'sow', args, cwd: root, env: ctx.env, files };
  const ready = await startDetached(
    { ...run, variable: READY_VARIABLE },
    () => readOwnJson(files.ready) as Omit<DetachedStart, 'detached' | 'log'> | undefined,
    {
      who: "the worker's supervisor",
      code: 'SUPERVISOR',
      before: 'it started the worker',
      notYet: 'recorded a session',
      log: files.log,
      hint: "; 'sow task list' shows whether it started after all",
    },
    () => pruneSupervisedRuns(root, Date.parse(ctx.now())),
  );
  return { detached: true, ...ready, log: files.log } as DetachedStart;
}

/** Waits until the workers on `tasks` (or the first, with `any`) have stopped, or `timeoutMs`. Without names: the
 * detached workers no wait has reported yet (as a shell's `wait` reaps each child once). */
export async function waitForWorkers(
  ctx: AppContext,
  tasks: readonly string[],
  opts: { any?: boolean; timeoutMs?: number; pollMs?: number; signal?: AbortSignal },
) {
  const { root, watched } = await Reader.read(ctx, async (reader) => {
    if (tasks.length)
      return { root: reader.root, watched: await Promise.all(tasks.map(async (id) => (await reader.task(id)).id)) };
    const runs = supervisedRuns(reader.root).filter((r) => !r.waited && r.ready.task !== undefined);
    return { root: reader.root, watched: [...new Set(runs.map((r) => r.ready.task!))] };
  });
  const started = performance.now();
  for (;;) {
    const states = await Reader.read(ctx, async (reader) => Promise.all(watched.map((id) => reader.task(id))));
    const now = ctx.now();
    const live = states.filter((t) => t.owner?.kind === 'worker' && liveOwner(t, now));
    // unreported: the worker stopped while the task was still in progress, without saying how its work stands.
    const stopped = states
      .filter((t) => !live.includes(t))
      .map((t) => ({ task: t.id, name: t.name, status: t.status, unreported: t.status === 'in_progress' }));
    const running = live.map(({ id, owner: o }) => ({
      task: id,
      by: o!.by,
      ...(o!.pid !== undefined && { pid: o!.pid }),
    }));
    const done = live.length === 0 || (opts.any && stopped.length > 0);
    const out = opts.timeoutMs !== undefined && performance.now() - started >= opts.timeoutMs;
    if (done || out || opts.signal?.aborted) {
      // The detached runs of the stopped tasks are not reported again.
      const reported = new Set(stopped.map((t) => t.task));
      for (const run of supervisedRuns(root))
        if (!run.waited && run.ready.task !== undefined && reported.has(run.ready.task)) markWaited(run.dir);
      return { stopped, running, timedOut: !done };
    }
    await new Promise((r) => setTimeout(r, opts.pollMs ?? 200));
  }
}

/** Ends the worker on `taskId` and its process group (TERM, then KILL), pauses, lets go and counts the task. A claim or
 * an owner sow cannot prove it started here is refused: a state file may come from anyone. */
export async function stopWorker(ctx: AppContext, taskId: string, opts: { graceMs?: number } = {}) {
  const { root, task } = await Reader.read(ctx, async (r) => ({ root: r.root, task: await r.task(taskId) }));
  const owner = task.owner;
  if (!owner || owner.kind !== 'worker' || owner.pid === undefined || !liveOwner(task, ctx.now())) {
    if (owner?.kind === 'claim')
      throw new SowError(
        'NOT_A_WORKER',
        'failed',
        `task ${task.id} is claimed by ${owner.by}, not worked on by a worker sow started: there is no process to stop`,
        `the claim ends with its lease; to take the task over now, 'sow task next --claim' after it ends, or 'sow ` +
          `task set --id ${task.id} status paused --force'`,
      );
    throw new SowError(
      'NO_WORKER',
      'failed',
      `no worker runs on task ${task.id}`,
      `'sow agent wait' lists the workers that stopped; 'sow task list' shows who works on what`,
    );
  }
  const pid = owner.pid;
  const proof = proveOwnerNow(root, task.id, owner);
  if (!proof.ok && !proof.gone) throw new NotSowsProcessError(task.id, owner, proof.why, proof.here);
  // Over ACP, sow's process asks the agent to stop (session/cancel) before it ends it: TERM reaches it alone first.
  const how = proof.ok ? signalOwner(proof, 'SIGTERM', { leaderFirst: task.session?.transport === 'acp' }) : 'gone';
  const grace = opts.graceMs ?? 10_000;
  const gone = async (ms: number) => {
    const end = performance.now() + ms;
    for (;;) {
      const stillOwner = await Reader.read(ctx, async (reader) => liveOwner(await reader.task(task.id), ctx.now()));
      const rest = how === 'group' && groupAlive(pid);
      if ((!stillOwner || stillOwner.pid !== pid) && !rest) return true;
      if (performance.now() >= end) return false;
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  let killed = false;
  if (proof.ok && !(await gone(grace))) {
    signalOwner(proof, 'SIGKILL');
    killed = true;
    await gone(grace);
  }
  const run = supervisedRuns(root).find((r) => r.ready.task === task.id && r.ready.pid === pid);
  const status = await settleStopped(ctx, task.id, owner.by, pid, run?.ready.events_file);
  if (run) markWaited(run.dir);
  // how: its process group (a detached worker) or its process.
  return { task: task.id, stopped: { by: owner.by, pid, how, killed }, status };
}

/** Every worker running now on this checkout's tasks (with `all`, every checkout's), and every one gone from a task
 * still in progress, oldest first. */
export async function liveWorkers(ctx: AppContext, opts: { all?: boolean } = {}) {
  const checkouts = opts.all ? checkoutsWithProject(ctx.cwd) : [{ path: ctx.cwd, rel: '.' }];
  const out = [];
  for (const checkout of checkouts) {
    const found = await Reader.read({ ...ctx, cwd: checkout.path }, async (reader) => {
      const now = reader.ctx.now();
      const rows: { task: TaskState; root: string; advice?: string }[] = [];
      for (const s of await reader.tasks()) {
        if (s.owner?.kind !== 'worker') continue;
        const task = await reader.task(s.id);
        if (liveOwner(task, now)) rows.push({ task, root: reader.root });
        else if (task.status === 'in_progress') {
          // Nobody works on it silently: a worker that died (killed, a crash, a reboot) is shown as gone.
          const worker = workerNow(s, now);
          if (worker?.state === 'gone') rows.push({ task, root: reader.root, advice: unattendedText(task, worker) });
        }
      }
      return rows;
    });
    const runs = found.length ? supervisedRuns(found[0]!.root) : [];
    for (const { task, root, advice } of found) {
      const owner = task.owner!;
      const run = runs.find((r) => r.ready.task === task.id && r.ready.pid === owner.pid);
      const raw = run?.ready.events_file ?? latestEventsFile(root, task.id);
      // Over ACP the raw stream is JSON-RPC: what the worker does is read from sow's own events of it.
      const acp = task.session?.transport === 'acp';
      const file = raw && acp ? raw.replace(/\.jsonl$/, '.events.jsonl') : raw;
      const events = file ? readEvents(root, file) : undefined;
      const type = task.session?.type ?? '';
      const seen = !events ? { usage: {} } : acp ? activityOfEvents(events.lines) : activityOf(type, events.lines);
      out.push({
        // gone: the task is still in progress, but its worker (or its supervisor) is no more; advice says how to go on.
        state: advice === undefined ? ('running' as const) : ('gone' as const),
        ...(advice !== undefined ? { advice } : {}),
        // The checkout relative to the main one, and where the worker works (its own checkout, --worktree) in it.
        checkout: checkout.rel,
        worktree: task.worktree?.path ?? '.',
        task: task.id,
        name: task.name,
        agent_id: owner.by,
        role: task.session?.agent ?? task.assigned_agent ?? '',
        executor: task.session?.executor ?? '',
        pid: owner.pid!,
        detached: run !== undefined,
        started_at: owner.since,
        running_seconds: Math.max(0, Math.round((Date.parse(ctx.now()) - Date.parse(owner.since)) / 1000)),
        last_activity_at: events?.changed ? new Date(events.changed).toISOString() : null,
        last_activity: seen.last ?? null,
        ...seen.usage,
      });
    }
  }
  return out.sort((a, b) => a.started_at.localeCompare(b.started_at));
}

export type LiveWorker = Awaited<ReturnType<typeof liveWorkers>>[number];

/** The events of the newest run on a task, in sow's kinds; `raw` names the CLI's own stream (null before any run),
 * `live` whether a worker still runs on it. */
export async function taskEvents(ctx: AppContext, taskId: string) {
  return Reader.read(ctx, async (reader) => {
    const task = await reader.task(taskId);
    const run = latestRun(reader.root, task.id);
    const lines = run ? (readEvents(reader.root, run.events)?.lines ?? []) : [];
    const events: WorkerEvent[] = [];
    for (const line of lines) {
      try {
        events.push(JSON.parse(line) as WorkerEvent);
      } catch {
        // a line cut short while it was written: the next read has it whole
      }
    }
    return {
      task: task.id,
      raw: run?.raw ?? null,
      events,
      live: task.owner?.kind === 'worker' && liveOwner(task, reader.ctx.now()) !== undefined,
    };
  });
}

/** `--follow`: hands each event of the newest run to `onEvent` until the worker stopped and nothing new came (or
 * `signal` aborts), polling the events file. */
export async function followEvents(
  ctx: AppContext,
  taskId: string,
  onEvent: (e: WorkerEvent) => void,
  opts: { pollMs?: number; signal?: AbortSignal } = {},
): Promise<number> {
  let seen = 0;
  for (;;) {
    const r = await taskEvents(ctx, taskId);
    for (const e of r.events.slice(seen)) onEvent(e);
    const grew = r.events.length > seen;
    seen = r.events.length;
    if ((!r.live && !grew) || opts.signal?.aborted) return seen;
    await new Promise((res) => setTimeout(res, opts.pollMs ?? 200));
  }
}

/** The newest run's raw stream (the CLI's own lines), read confined; null before any run. */
export async function rawEvents(ctx: AppContext, taskId: string) {
  return Reader.read(ctx, async (reader) => {
    const task = await reader.task(taskId);
    const run = latestRun(reader.root, task.id);
    return { task: task.id, raw: run?.raw ?? null, lines: run ? (readEvents(reader.root, run.raw)?.lines ?? []) : [] };
  });
}

/** The remote's claims of the project here, for `agent ps` (which does not read the project otherwise); undefined
 * without a claims remote. */
export async function projectRemoteClaims(ctx: AppContext): Promise<RemoteClaims | undefined> {
  const { claimsRemote, remoteClaimsForReads } = await import('./remote-claims.js');
  if (!(await claimsRemote(findWorkspaceRoot(ctx.cwd)))) return undefined;
  const { root, branch } = await Reader.read(ctx, (reader) => ({ root: reader.root, branch: reader.project.branch }), {
    otherBranch: 'quiet',
  });
  return remoteClaimsForReads(root, branch, ctx.now());
}
