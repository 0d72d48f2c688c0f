/** `sow task add|set|get|abandon|list`. */
import { contextOf, type Where } from './context.js';
import { findAgent } from '../domain/agents.js';
import { InvalidValueError, NoReadyTaskError, UsageError } from '../domain/errors.js';
import {
  claimantOf,
  DEFAULT_LEASE_SECONDS,
  describeHolder,
  isOwnedBy,
  retiredIdentity,
  TaskHeldError,
} from '../domain/ownership.js';
import { coerceField, lookupField, own, parseValue, resolveField, setAtPath } from '../domain/fields.js';
import { requirePhaseActive } from '../domain/phases.js';
import { TASK_STATUSES, type Artifact, type Owner, type TaskState, type TaskStatus } from '../domain/schemas.js';
import {
  checkNewTaskId,
  checkStatusChange,
  checkTaskName,
  isFinished,
  nextTaskId,
  parseDependencies,
  pendingFeedback,
  TASK_FIELD_ALIASES,
  TASK_FIELDS,
  withStatus,
  type StatusChangeOptions,
} from '../domain/tasks.js';
import {
  candidateIds,
  heldBy,
  isReady,
  readyNow,
  requireExecuting,
  takeOver,
  taskRow,
  type TaskRow,
} from './ownership.js';
import { Reader, taskDir, update, type UnitOfWork } from './workspace.js';
import { gitRun, isTracked, val } from '../adapters/git.js';
import {
  claimSeenForChange,
  claimsRemote,
  dropOverriddenClaim,
  giveBackRemoteClaim,
  ourClaim,
  remoteClaimer,
  remoteClaimRows,
  remoteClaimsForReads,
  type ClaimSeen,
} from './remote-claims.js';
import { thisMachine } from '../adapters/remote-claims.js';
import type { RemoteClaims } from '../domain/claims.js';

export interface AddTaskOptions {
  name: string;
  agent?: string;
  description?: string;
  id?: string;
  parallel?: boolean;
  dependsOn?: string;
}

function descriptionDoc(name: string, description: string | undefined): string {
  return `# ${name}\n\n${description?.trim() ? `${description.trim()}\n` : '<!-- Requirements and acceptance criteria for this task. -->\n'}`;
}

export async function addTask(where: Where, opts: AddTaskOptions): Promise<TaskState> {
  return update(where, async (uow) => {
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

export interface SetTaskOptions {
  /** Override a refusal: a status change the dependencies, pending feedback or a live owner block. */
  force?: boolean;
  /** The name this command acts under (renews its claim's lease); else SOW_OWNER. */
  owner?: string;
  /** Outputs appended to the task in the same write (the evidence of the checks a completion ran). */
  outputs?: readonly Artifact[];
  /** Validate only: refuse as the real change would, write nothing. */
  dryRun?: boolean;
  /** The one asking is a spawned worker reporting (it has no --force): a refusal tells it to stop. */
  worker?: boolean;
}

/** Whether `task set <field> <value>` asks to complete the task (the field by any of its names). */
export function asksCompletion(field: string, raw: string): boolean {
  return (own(TASK_FIELD_ALIASES, field) ?? field) === 'status' && raw.trim() === 'completed';
}

export interface SetTaskResult {
  id: string;
  field: string;
  value: unknown;
  task: TaskState;
  /** The task had that status already: nothing was written. */
  unchanged?: true;
}

/**
 * A change of a task, guarded: the task's claim on the remote is read first, outside the lock
 * (never under it); then `change` runs under the lock, and what a forced change took over is given
 * back on the remote once the change is written.
 */
async function changeTask<R>(
  where: Where,
  rawId: string,
  opts: SetTaskOptions,
  change: (uow: UnitOfWork, guard: Guard) => Promise<R>,
): Promise<R> {
  const seen = await claimSeenForChange(where, rawId);
  const after: (() => Promise<void>)[] = [];
  const result = await update(
    where,
    (uow) => change(uow, { seen, after }),
    opts.owner !== undefined ? { owner: opts.owner } : {},
  );
  for (const step of after) await step();
  return result;
}

/** What a change knows of the task's claim on the remote, and the steps to run once it is written. */
interface Guard {
  seen: ClaimSeen | undefined;
  after: (() => Promise<void>)[];
}

/**
 * The one rule for a change of a task: refused (TASK_HELD, exit 3) while someone else holds it —
 * a live worker or claim here, a live claim on the claims remote that is not this checkout's.
 * With --force the change takes the task over: it is noted in the task's log (by whom, from whom),
 * a holder here is retired (its later writes are refused), and once the change is written the
 * claim held on the remote is deleted. `what` says the change ("set status completed").
 */
async function guardHeld(
  uow: UnitOfWork,
  task: TaskState,
  guard: Guard,
  opts: SetTaskOptions,
  what: string,
): Promise<TaskState> {
  // Who no longer owns the task hears that first: it is told to stop, not to wait.
  uow.checkWriter(task);
  const holder = heldBy(task, uow.actor, uow.now, guard.seen);
  if (!holder) return task;
  if (!opts.force) throw new TaskHeldError(task.id, holder, opts.worker);
  if (opts.dryRun) return task;
  // Who forced it, as well as sow can tell: the name it acts under, else git's user.name (else $USER).
  await uow.knowPerson();
  const { personName } = await import('../adapters/person.js');
  const who = claimantOf(uow.actor) ?? (await personName(uow.root)) ?? uow.actor.by;
  const { writeLogEntry } = await import('./log.js');
  const root = uow.root;
  const branch = (await uow.project()).branch;
  if (holder.where === 'remote') {
    const seen = { ...guard.seen!, claim: holder.claim };
    guard.after.push(() => dropOverriddenClaim(root, seen));
  } else if (holder.owner.remote !== undefined) {
    const owner = holder.owner;
    guard.after.push(() => giveBackRemoteClaim(root, task.id, branch, owner));
  }
  await writeLogEntry(
    uow,
    task.id,
    { agent: who, action: 'note', result: 'success' },
    `Taken over with --force (${what}) by ${who} on ${thisMachine()}, from ${describeHolder(holder)}. ${holder.where === 'remote' ? `Their claim on the remote is deleted once this change is written (a failure is said then).` : `Their later writes to this task are refused.`}`,
  );
  return holder.where === 'here' ? takeOver(task) : task;
}

/**
 * The status change of a task, under the lock: refused as the guards say (unless --force); a
 * task that has the status already is left as it is (`unchanged`), so a finished task keeps its
 * history; a completed task left with --force says so in its log.
 */
async function changeStatus(
  uow: UnitOfWork,
  guard: Guard,
  task: TaskState,
  status: TaskStatus,
  opts: SetTaskOptions & StatusChangeOptions,
  what: string,
): Promise<{ task: TaskState; unchanged?: true }> {
  // Who no longer owns the task hears that first, even about a change that would change nothing.
  uow.checkWriter(task);
  if (task.status === status) return { task, unchanged: true };
  const before = await guardHeld(uow, task, guard, opts, what);
  if (!opts.force) checkStatusChange(before, status, await uow.dependenciesOf(before), opts);
  let next = withStatus(before, status, uow.now);
  // Its claimant setting it back to pending or paused lets it go: here, and on the remote below.
  const lets =
    (status === 'pending' || status === 'paused') &&
    before.owner?.kind === 'claim' &&
    isOwnedBy(before.owner, uow.actor);
  if (lets) {
    next = { ...next };
    delete next.owner;
  }
  // Last, once nothing here refuses the change: the claim on the remote is given back (letting go
  // never fails for the remote: the claim there then runs out with its lease).
  if ((isFinished(status) || lets) && before.owner?.remote !== undefined && !opts.dryRun) {
    const { releaseRemoteClaim } = await import('./remote-claims.js');
    await releaseRemoteClaim(uow.root, before.id, (await uow.project()).branch, before.owner, opts.force || lets);
  }
  if (before.status === 'completed' && !opts.dryRun) {
    const { logLeftCompleted } = await import('./log.js');
    await logLeftCompleted(uow, before, status, claimantOf(uow.actor) ?? uow.actor.by);
  }
  return { task: next };
}

export async function setTaskField(
  where: Where,
  rawId: string,
  field: string,
  raw: string,
  opts: SetTaskOptions & StatusChangeOptions = {},
): Promise<SetTaskResult> {
  return changeTask(where, rawId, opts, async (uow, guard) => {
    let task = await uow.task(rawId);
    const id = task.id;
    const resolved = resolveField(
      own(TASK_FIELD_ALIASES, field) ?? field,
      TASK_FIELDS,
      `task ${id}`,
      Object.keys(TASK_FIELD_ALIASES),
    );
    let label: string;
    let value: unknown;
    if (resolved.where === 'field' && resolved.name === 'status') {
      label = 'status';
      value = coerceField('status', raw, resolved.spec);
      const changed = await changeStatus(uow, guard, task, value as TaskStatus, opts, `set status ${value as string}`);
      if (changed.unchanged) return { id, field: label, value, task, unchanged: true };
      task = changed.task;
    } else {
      // Checked before the value: whoever may not change the task hears that first.
      const guarded = await guardHeld(
        uow,
        task,
        guard,
        opts,
        `set ${resolved.where === 'field' ? resolved.name : `metadata.${resolved.path.join('.')}`}`,
      );
      const tookOver = guarded !== task;
      task = guarded;
      if (resolved.where === 'field') {
        label = resolved.name;
        switch (resolved.name) {
          case 'name':
            value = checkTaskName(raw);
            task = { ...task, name: value as string };
            break;
          case 'assigned_agent':
            value = findAgent(raw.trim()).name;
            task = { ...task, assigned_agent: value as string };
            break;
          case 'dependencies':
            value = raw.trim() === '' ? [] : parseDependencies(raw, await uow.tasks(), id);
            task = { ...task, dependencies: value as string[] };
            break;
          case 'description':
            if (opts.dryRun) return { id, field: 'description', value: raw, task };
            uow.tx.write(`${taskDir(await uow.taskPhase(), id)}/description.md`, descriptionDoc(task.name, raw));
            // A forced change took the task over: its owner is gone from the state too.
            if (tookOver) uow.setTask(task);
            return { id, field: 'description', value: raw, task };
          default:
            value = coerceField(resolved.name, raw, resolved.spec);
            task = { ...task, [resolved.name]: value };
        }
      } else {
        label = `metadata.${resolved.path.join('.')}`;
        value = parseValue(raw);
        task = { ...task, metadata: setAtPath({ ...task.metadata }, resolved.path, value) };
      }
    }
    if (opts.dryRun) return { id, field: label, value, task };
    if (opts.outputs?.length) task = { ...task, outputs: [...task.outputs, ...opts.outputs] };
    uow.setTask(task);
    return { id, field: label, value, task };
  });
}

export async function abandonTask(
  where: Where,
  rawId: string,
  opts: SetTaskOptions = {},
): Promise<{ task: TaskState; unchanged?: true }> {
  return changeTask(where, rawId, opts, async (uow, guard) => {
    const r = await changeStatus(uow, guard, await uow.task(rawId), 'abandoned', opts, 'abandoned');
    if (!r.unchanged) uow.setTask(r.task);
    return r;
  });
}

/**
 * The tasks a worker could start now: pending, every dependency finished, nobody working on them
 * — here, nor, with a claims remote, on the remote.
 */
export async function nextTasks(where: Where, opts: { withoutPendingFeedback?: boolean } = {}): Promise<TaskRow[]> {
  const ctx = contextOf(where);
  const { rows, root, branch } = await Reader.read(ctx, async (reader) => {
    const tasks = await reader.tasks();
    const candidates = new Set(candidateIds(tasks));
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

export interface ClaimOptions {
  agent?: string;
  owner?: string;
  /** The lease, in seconds (default 30 minutes). */
  leaseSeconds?: number;
  /** Claim on this git remote too (else the claims.remote of .sow/config.yaml, if any). */
  remote?: string;
}

/**
 * Claims the first ready task, atomically (under the lock): in_progress, owned by this session or
 * name with a lease. Two claimers never get the same task, and none skips a ready one. With a
 * claims remote, the task is claimed on the remote first (one push that only the first claimer
 * wins); a task claimed there by another checkout is passed over, and a push that lost the race
 * moves on to the next ready task.
 */
export async function claimNext(where: Where, opts: ClaimOptions = {}): Promise<{ task: TaskState; owner: Owner }> {
  let pushed: { root: string; remote: string; ref: string; sha: string } | undefined;
  try {
    return await update(
      where,
      async (uow) => {
        if (claimantOf(uow.actor) === undefined) await uow.knowPerson();
        const who = claimantOf(uow.actor);
        if (!who)
          throw new UsageError(
            'say who claims the task: --owner <name>',
            'workers and sessions claim under their own names (SOW_AGENT_ID, SOW_SESSION_ID), and a person at a terminal under theirs; a script passes --owner <name> or sets SOW_OWNER',
          );
        const agent = opts.agent !== undefined ? findAgent(opts.agent.trim()).name : undefined;
        await requireExecuting(await uow.type(), () => uow.view(), undefined);
        const tasks = await uow.tasks();
        const seconds = opts.leaseSeconds ?? DEFAULT_LEASE_SECONDS;
        const leaseUntil = new Date(Date.parse(uow.now) + seconds * 1000).toISOString();
        const remote = await claimsRemote(uow.root, opts.remote);
        const onRemote = remote && (await remoteClaimer(uow.root, remote, (await uow.project()).branch));
        for (const id of candidateIds(tasks)) {
          let task = await uow.task(id);
          if (!isReady(task, uow.now) || retiredIdentity(task, uow.actor) !== undefined) continue;
          let claimed: { remote: string; remote_claim: string; remote_lease_until: string } | undefined;
          if (onRemote) {
            const sha = await onRemote.claim(
              id,
              { task: id, owner: who, machine: onRemote.machine, since: uow.now, lease_until: leaseUntil },
              uow.now,
              { ours: ourClaim(task, onRemote.remote) },
            );
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
    // The claim landed on the remote but not here: give it back, so the task is not held by nobody until the lease runs out.
    if (pushed) {
      const { pushClaim } = await import('../adapters/remote-claims.js');
      await pushClaim(pushed.root, pushed.remote, pushed.ref, null, pushed.sha);
    }
    throw err;
  }
}

export async function getTask(
  where: Where,
  rawId: string,
  field?: string,
): Promise<{ task: TaskState; field?: string; value?: unknown; description?: string }> {
  return Reader.read(where, async (reader) => {
    const task = await reader.task(rawId);
    // A dependency whose folder is gone is said here too, not first when the task is changed.
    await reader.dependenciesOf(task);
    if (field === undefined) {
      const description = descriptionBody(
        reader.readDoc(`${taskDir(reader.taskPhase, task.id)}/description.md`),
        task.name,
      );
      return { task, ...(description !== undefined ? { description } : {}) };
    }
    const name = own(TASK_FIELD_ALIASES, field) ?? field;
    if (name === 'description') {
      return {
        task,
        field: 'description',
        value: reader.readDoc(`${taskDir(reader.taskPhase, task.id)}/description.md`) ?? '',
      };
    }
    // Its log, as the worker and sow wrote it (log.md): read, not a field of the state.
    if (name === 'log')
      return { task, field: 'log', value: reader.readDoc(`${taskDir(reader.taskPhase, task.id)}/log.md`) ?? '' };
    const { field: label, value } = lookupField(
      task,
      name,
      TASK_FIELDS,
      {},
      `task ${task.id}`,
      Object.keys(TASK_FIELD_ALIASES),
    );
    return { task, field: label, value };
  });
}

/** What a task changed, as a diff (its modified files against the project's base branch; new files whole). */
export async function taskDiff(where: Where, rawId: string): Promise<{ task: string; files: string[]; diff: string }> {
  return Reader.read(where, async (reader) => {
    const task = await reader.task(rawId);
    return {
      task: task.id,
      files: task.outputs.filter((a) => a.type === 'modified').map((a) => a.path),
      diff: diffOfTask(reader, task) ?? '',
    };
  });
}

export async function listTasks(where: Where, status?: string): Promise<TaskRow[]> {
  if (status !== undefined && !(TASK_STATUSES as readonly string[]).includes(status)) {
    throw new InvalidValueError('status', status, `one of ${TASK_STATUSES.join(', ')}`);
  }
  const ctx = contextOf(where);
  const { tasks, root, branch } = await Reader.read(ctx, async (reader) => ({
    tasks: await reader.tasks(),
    root: reader.root,
    branch: reader.project.branch,
  }));
  const now = ctx.now();
  const rows = (status === undefined ? tasks : tasks.filter((t) => t.status === status)).map((t) => taskRow(t, now));
  return withRemoteClaims(rows, await remoteClaimsForReads(root, branch, now), now);
}

/** The rows, each task claimed on the remote with its claim there (`remote_claim`). */
function withRemoteClaims(rows: TaskRow[], read: RemoteClaims | undefined, now: string): TaskRow[] {
  const onRemote = remoteClaimRows(read, now);
  if (onRemote.size === 0) return rows;
  return rows.map((r) => {
    const claim = onRemote.get(r.id);
    return claim ? { ...r, remote_claim: claim } : r;
  });
}

/**
 * What a task changed: its modified files — tracked ones as a diff against the project's base
 * branch, files git does not know yet whole (as git diff would show them added); undefined when
 * there is nothing to show.
 */
export function diffOfTask(reader: Reader, task: TaskState): string | undefined {
  const files = task.outputs.filter((a) => a.type === 'modified').map((a) => a.path);
  const base = reader.project.base_branch;
  const tracked = files.filter((f) => isTracked(reader.root, f));
  const added = files.filter((f) => !tracked.includes(f)).map((f) => ({ f, text: reader.readDoc(f) }));
  return (
    [
      base && tracked.length ? diffOf(reader.root, base, tracked) : undefined,
      ...added
        .filter((a) => a.text !== undefined)
        .map(
          (a) =>
            `new file ${a.f}\n${a
              .text!.split('\n')
              .map((l) => `+${l}`)
              .join('\n')}`,
        ),
    ]
      .filter(Boolean)
      .join('\n') || undefined
  );
}

/** The working tree's changes to `files` against the base branch. */
function diffOf(root: string, base: string, files: readonly string[]): string | undefined {
  const diffs = files
    .map((f) =>
      gitRun(root, ['diff', '--no-color', val(base, "the project's base branch"), '--', val(f, 'a modified file')]),
    )
    .filter((r) => r.ok && r.out);
  return diffs.length ? diffs.map((r) => r.out).join('\n') : undefined;
}

/** What sow writes into the description of a task added without one. */
const DESCRIPTION_PLACEHOLDER = '<!-- Requirements and acceptance criteria for this task. -->';

/**
 * A task's description.md as its worker needs it: without the title line sow writes (the task's
 * name, said already) and without the placeholder of a task added without a description;
 * undefined when nothing is left.
 */
export function descriptionBody(text: string | undefined, name: string): string | undefined {
  if (text === undefined) return undefined;
  let body = text.replace(/^\uFEFF/, '');
  const title = /^# (.*)\r?\n/.exec(body);
  if (title && title[1]!.trim() === name.trim()) body = body.slice(title[0].length);
  body = body.replace(DESCRIPTION_PLACEHOLDER, '').trim();
  return body === '' ? undefined : body;
}

/** A finished dependency's outcome, and where its outputs are; a pending feedback with its text. */
export interface TaskNeeds {
  dependencies?: { id: string; name: string; status: TaskStatus; folder: string; outputs?: string[] }[];
  feedback?: { index: number; path: string; text?: string }[];
}

/** A feedback longer than this is named by its path only. */
const FEEDBACK_INLINE = 2000;
/** The outputs of a dependency a brief names at most. */
const OUTPUTS_SHOWN = 20;

/**
 * What a worker starting on `id` needs besides its description: each dependency's name and status
 * with where its outputs are (the evidence of its checks left out), and the feedback still pending
 * on it, with its text. Read after a claim, so `task next --claim` is one call.
 */
export async function taskNeeds(where: Where, id: string): Promise<TaskNeeds> {
  return Reader.read(where, async (reader) => {
    const task = await reader.task(id);
    const rootOf = (type: string) => reader.type.taskOutputs.find((t) => t.name === type)?.root ?? 'project';
    const dependencies: NonNullable<TaskNeeds['dependencies']> = [];
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
