/** `sow task add|set|get|abandon|list`. */
import type { AppContext } from './context.js';
import { findAgent } from '../domain/agents.js';
import { NoReadyTaskError, UsageError } from '../domain/errors.js';
import { claimantOf, DEFAULT_LEASE_SECONDS, remoteLeaseFrom, retiredIdentity } from '../domain/ownership.js';
import { lookupField, own } from '../domain/fields.js';
import { requirePhaseActive } from '../domain/phases.js';
import type { Owner, TaskState, TaskSummary } from '../domain/schemas.js';
import {
  checkNewTaskId,
  checkTaskName,
  nextTaskId,
  parseDependencies,
  pendingFeedback,
  TASK_FIELD_ALIASES,
  TASK_FIELDS,
  withStatus,
} from '../domain/tasks.js';
import { DESCRIPTION_PLACEHOLDER, descriptionDoc } from '../domain/task-change.js';
import { candidateIds, isReady, readyNow, requireExecuting, takeOver, taskRow, type TaskRow } from './ownership.js';
import { Reader, update } from './workspace.js';
import { taskDir } from './project-files.js';
import { gitRun, isTracked, val } from '../adapters/git.js';
import { pushClaim } from '../adapters/remote-claims.js';
import { remoteClaimRows } from '../domain/claims.js';
import { claimsRemote, ourClaim, remoteClaimer, remoteClaimsForReads } from './remote-claims.js';

type AddTaskOptions = Partial<Record<'agent' | 'description' | 'id' | 'dependsOn', string>> & {
  name: string;
  parallel?: boolean;
};

export async function addTask(ctx: AppContext, opts: AddTaskOptions): Promise<TaskState> {
  return update(ctx, async (uow) => {
    const project = await uow.project();
    const phase = await uow.taskPhase();
    requirePhaseActive(project, phase, 'adding a task');
    const tasks = await uow.tasks();
    const name = checkTaskName(opts.name);
    const id = opts.id !== undefined ? checkNewTaskId(opts.id, tasks) : nextTaskId(tasks);
    const agent = opts.agent !== undefined ? findAgent(opts.agent.trim()).name : undefined;
    const task: TaskState = {
      id,
      name,
      phase,
      status: 'pending',
      iteration: 1,
      ...(agent !== undefined ? { assigned_agent: agent } : {}),
      parallel: opts.parallel ?? false,
      dependencies: opts.dependsOn !== undefined ? parseDependencies(opts.dependsOn, tasks, id) : [],
      created_at: uow.now,
      updated_at: uow.now,
      inputs: [],
      outputs: [],
      metadata: {},
    };
    uow.createTask(task, {
      'description.md': descriptionDoc(name, opts.description),
      'log.md': `# Task log: ${id} ${name}\n\n`,
      'feedback/.gitkeep': '',
    });
    return task;
  });
}

/** The tasks a worker could start now: pending, dependencies finished, nobody working on them here or remotely. */
export async function nextTasks(ctx: AppContext, opts: { withoutPendingFeedback?: boolean } = {}): Promise<TaskRow[]> {
  const { rows, root, branch } = await Reader.read(ctx, async (reader) => {
    const tasks = await reader.tasks();
    const candidates = candidatesOf(tasks);
    const out: TaskRow[] = [];
    const now = reader.ctx.now();
    for (const t of tasks) {
      if (!candidates.has(t.id) || !readyNow(t, now)) continue;
      // A task sent back with feedback waits for its worker to take it up again (read: only the few ready ones).
      if (opts.withoutPendingFeedback && pendingFeedback(await reader.task(t.id)).length) continue;
      out.push(taskRow(t, now));
    }
    return { rows: out, root: reader.root, branch: reader.project.branch };
  });
  const onRemote = remoteClaimRows(await remoteClaimsForReads(root, branch, ctx.now()), ctx.now());
  return onRemote.size ? rows.filter((r) => !onRemote.get(r.id)?.live) : rows;
}

/** The candidates, once per frozen list (a long-lived process gets the same list while no task changed). */
const candidateSets = new WeakMap<readonly TaskSummary[], ReadonlySet<string>>();
function candidatesOf(tasks: readonly TaskSummary[]): ReadonlySet<string> {
  let set = candidateSets.get(tasks);
  if (set) return set;
  set = new Set(candidateIds(tasks));
  if (Object.isFrozen(tasks)) candidateSets.set(tasks, set);
  return set;
}

// Claims the first ready task under the lock, with a lease (default 30 minutes): two claimers never get the same task.
// With a claims remote (`remote`, else claims.remote of .sow/config.yaml) it is claimed there first (one push only the
// first claimer wins); a lost race moves on to the next task.
export async function claimNext(
  ctx: AppContext,
  opts: Partial<Record<'agent' | 'owner' | 'remote', string>> & { leaseSeconds?: number } = {},
): Promise<{ task: TaskState; owner: Owner }> {
  let pushed: { root: string; remote: string; ref: string; sha: string } | undefined;
  try {
    return await update(
      ctx,
      async (uow) => {
        if (claimantOf(uow.actor) === undefined) await uow.knowPerson();
        const who = claimantOf(uow.actor);
        if (!who)
          throw new UsageError(
            'say who claims the task: --owner <name>',
            'workers and sessions claim under their own names (SOW_AGENT_ID, SOW_SESSION_ID), and a person at a ' +
              'terminal under theirs; a script passes --owner <name> or sets SOW_OWNER',
          );
        const agent = opts.agent !== undefined ? findAgent(opts.agent.trim()).name : undefined;
        requireExecuting(await uow.type(), await uow.view(), undefined);
        const tasks = await uow.tasks();
        const seconds = opts.leaseSeconds ?? DEFAULT_LEASE_SECONDS;
        const leaseUntil = remoteLeaseFrom(uow.now, seconds);
        const remote = await claimsRemote(uow.root, opts.remote);
        const onRemote = remote && (await remoteClaimer(uow.root, remote, (await uow.project()).branch));
        for (const id of candidateIds(tasks)) {
          let task = await uow.task(id);
          if (!isReady(task, uow.now) || retiredIdentity(task, uow.actor) !== undefined) continue;
          let claimed: { remote: string; remote_claim: string; remote_lease_until: string } | undefined;
          if (onRemote) {
            const record = { task: id, owner: who, machine: onRemote.machine, since: uow.now, lease_until: leaseUntil };
            const sha = await onRemote.claim(id, record, uow.now, { ours: ourClaim(task, onRemote.remote) });
            if (sha === undefined) continue;
            pushed = { root: uow.root, remote: onRemote.remote, ref: onRemote.ref(id), sha };
            claimed = { remote: onRemote.remote, remote_claim: sha, remote_lease_until: leaseUntil };
          }
          task = withStatus(takeOver(task), 'in_progress', uow.now);
          const owner: Owner = {
            kind: 'claim',
            by: who,
            ...(uow.actor.session ? { session: uow.actor.session } : {}),
            since: uow.now,
            lease_until: leaseUntil,
            lease_seconds: seconds,
            ...claimed,
          };
          task = { ...task, owner, ...(agent ? { assigned_agent: agent } : {}) };
          uow.setTask(task);
          return { task, owner };
        }
        throw new NoReadyTaskError(tasks);
      },
      opts.owner !== undefined ? { owner: opts.owner } : {},
    );
  } catch (err) {
    // The claim landed on the remote but not here: give it back rather than leave it held until the lease ends.
    if (pushed) await pushClaim(pushed.root, pushed.remote, pushed.ref, null, pushed.sha);
    throw err;
  }
}

type TaskRead = { task: TaskState; field?: string; value?: unknown; description?: string };

export async function getTask(ctx: AppContext, rawId: string, field?: string): Promise<TaskRead> {
  return Reader.read(ctx, async (reader) => {
    const task = await reader.task(rawId);
    // A dependency whose folder is gone is said here too, not first when the task is changed.
    await reader.dependenciesOf(task);
    const doc = (file: string) => reader.readDoc(`${taskDir(reader.taskPhase, task.id)}/${file}`);
    if (field === undefined) {
      const description = descriptionBody(doc('description.md'), task.name);
      return { task, ...(description !== undefined ? { description } : {}) };
    }
    const name = own(TASK_FIELD_ALIASES, field) ?? field;
    // Its description and log are files of the task's folder, not fields of its state.
    if (name === 'description' || name === 'log') return { task, field: name, value: doc(`${name}.md`) ?? '' };
    const aliases = Object.keys(TASK_FIELD_ALIASES);
    const { field: label, value } = lookupField(task, name, TASK_FIELDS, {}, `task ${task.id}`, aliases);
    return { task, field: label, value };
  });
}

/** What a task changed, as a diff (its modified files against the project's base branch; new files whole). */
export async function taskDiff(ctx: AppContext, rawId: string) {
  return Reader.read(ctx, async (reader) => {
    const task = await reader.task(rawId);
    return {
      task: task.id,
      files: task.outputs.filter((a) => a.type === 'modified').map((a) => a.path),
      diff: diffOfTask(reader, task) ?? '',
    };
  });
}

export async function listTasks(ctx: AppContext): Promise<TaskRow[]> {
  const { tasks, root, branch } = await Reader.read(ctx, async (reader) => ({
    tasks: await reader.tasks(),
    root: reader.root,
    branch: reader.project.branch,
  }));
  const now = ctx.now();
  const rows = tasks.map((t) => taskRow(t, now));
  // Each task claimed on the remote with its claim there (a list copied only when there is one).
  const onRemote = remoteClaimRows(await remoteClaimsForReads(root, branch, now), now);
  if (onRemote.size === 0) return rows;
  return rows.map((r) => (onRemote.has(r.id) ? { ...r, remote_claim: onRemote.get(r.id)! } : r));
}

// What a task changed: its tracked modified files as a diff against the base branch, the others whole (as git diff
// shows a file added); undefined when there is nothing to show.
export function diffOfTask(reader: Reader, task: TaskState): string | undefined {
  const files = task.outputs.filter((a) => a.type === 'modified').map((a) => a.path);
  const base = reader.project.base_branch;
  const tracked = files.filter((f) => isTracked(reader.root, f));
  const diffs = (base ? tracked : []).flatMap((f) => {
    const r = gitRun(reader.root, [
      'diff',
      '--no-color',
      val(base!, "the project's base branch"),
      '--',
      val(f, 'a modified file'),
    ]);
    return r.ok && r.out ? [r.out] : [];
  });
  const added = files
    .filter((f) => !tracked.includes(f))
    .flatMap((f) => {
      const text = reader.readDoc(f);
      return text === undefined ? [] : [`new file ${f}\n+${text.replaceAll('\n', '\n+')}`];
    });
  return [...diffs, ...added].join('\n') || undefined;
}

/** A task's description.md without the title line (its name) or sow's placeholder; undefined when nothing is left. */
export function descriptionBody(text: string | undefined, name: string): string | undefined {
  if (text === undefined) return undefined;
  let body = text.replace(/^\uFEFF/, '');
  const title = /^# (.*)\r?\n/.exec(body);
  if (title && title[1]!.trim() === name.trim()) body = body.slice(title[0].length);
  body = body.replace(DESCRIPTION_PLACEHOLDER, '').trim();
  return body === '' ? undefined : body;
}

/** A finished dependency's outcome, and where its outputs are; a pending feedback with its text. */
export type TaskNeeds = Awaited<ReturnType<typeof taskNeeds>>;

/** A feedback longer than this is named by its path only. */
const FEEDBACK_INLINE = 2000;
/** The outputs of a dependency a brief names at most. */
const OUTPUTS_SHOWN = 20;

// What a worker starting on `id` needs besides its description: each dependency with where its outputs are (not its
// evidence), and its pending feedback with the text. Read after a claim, so `task next --claim` is one call.
export async function taskNeeds(ctx: AppContext, id: string) {
  return Reader.read(ctx, async (reader) => {
    const task = await reader.task(id);
    const rootOf = (type: string) => reader.type.taskOutputs.find((t) => t.name === type)?.root ?? 'project';
    const dependencies = [];
    for (const d of await reader.dependenciesOf(task)) {
      const dep = await reader.task(d.id);
      const outputs = dep.outputs
        .filter((a) => a.type !== 'evidence')
        .map((a) => (rootOf(a.type) === 'project' ? `.sow/project/${a.path}` : a.path));
      dependencies.push({
        id: dep.id,
        name: dep.name,
        status: dep.status,
        folder: `${taskDir(reader.taskPhase, dep.id)}/`,
        ...(outputs.length ? { outputs: outputs.slice(0, OUTPUTS_SHOWN) } : {}),
      });
    }
    const feedback = pendingFeedback(task).map(({ index, artifact }) => {
      const path = `.sow/project/${artifact.path}`;
      const text = reader.readDoc(path)?.trim();
      return { index, path, ...(text !== undefined && text.length <= FEEDBACK_INLINE ? { text } : {}) };
    });
    return { ...(dependencies.length ? { dependencies } : {}), ...(feedback.length ? { feedback } : {}) };
  });
}
