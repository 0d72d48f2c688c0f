/** The plan stage: what a spawn or resume will write and hand the worker, decided from the project as read, the
 * executor and the clock alone (no git, disk or process); the record stage writes it under the lock. */
import type { AgentDef } from '../../domain/agents.js';
import type { Owner, ProjectState, Session, TaskState, TaskSummary } from '../../domain/schemas.js';
import { TaskBlockedError } from '../../domain/errors.js';
import { TaskOwnedError } from '../../domain/ownership.js';
import { checkStatusChange, isFinished, withStatus } from '../../domain/tasks.js';
import { liveOwner, requireExecuting, takeOver } from '../ownership.js';
import { taskDir } from '../project-files.js';
import { SessionExistsError } from '../agent-errors.js';
import type { Reader } from '../workspace.js';
import type { Handoff, Resolution, Target } from './types.js';

/** What a spawn is asked, checked already. */
export interface SpawnRecord {
  agent: AgentDef;
  /** The target the command named; undefined: --next picks the first ready task. */
  named: Target | undefined;
  /** The executor as a session records it. */
  executor: Pick<Resolution, 'transport'> & { name: string; type: string };
  /** The session id sow chose or the CLI made before the run, if any (else the CLI reports it). */
  sessionId?: string | undefined;
  branch: string | undefined;
  /** --worktree, or .sow/config.yaml's `workers.worktree` ('parallel': for a parallel task). */
  checkout: boolean | 'parallel';
  force?: boolean | undefined;
  handoff?: Handoff | undefined;
  iteration?: boolean | undefined;
  now: string;
}

export type SpawnInput = Omit<SpawnRecord, 'named' | 'checkout' | 'force' | 'iteration'> & {
  project: ProjectState;
  root: string;
  task?: TaskState | undefined;
  /** The worker's own checkout, opened by the record stage when `wantsCheckout` said so. */
  opened?: { path: string; checkout: NonNullable<TaskState['worktree']> } | undefined;
  /** The owner a worker of this id is (this process, and its claim on the remote if one landed). */
  ownerOf: (agentId: string) => Owner;
};

/** Whether the worker works in a checkout of its own: a task with one keeps it; --worktree, or `workers.worktree` for
 * a parallel task, makes one. */
export const wantsCheckout = (task: TaskState, checkout: boolean | 'parallel') =>
  Boolean(task.worktree) || checkout === true || (checkout === 'parallel' && task.parallel === true);

export function nextAgentId(project: ProjectState, agent: string): { id: string; counts: Record<string, number> } {
  const n = (project.spawn_counts?.[agent] ?? 0) + 1;
  return { id: `${agent}-${n}`, counts: { ...project.spawn_counts, [agent]: n } };
}

/** A spawn, planned: the next id of the role, the project as the record writes it (the spawn counted; a worker without
 * a task's session), and the task as it starts, owned by the worker (`reopened`: it was finished). */
export function planSpawn(input: SpawnInput): {
  agentId: string;
  project: ProjectState;
  task?: TaskState;
  reopened?: TaskState['status'];
} {
  const { agent, executor, now, sessionId, handoff } = input;
  const { id, counts } = nextAgentId(input.project, agent.name);
  const session: Session = {
    executor: executor.name,
    type: executor.type,
    agent: agent.name,
    agent_id: id,
    cwd: input.opened?.path ?? input.root,
    ...(input.branch ? { branch: input.branch } : {}),
    ...(executor.transport === 'acp' ? { transport: 'acp' as const } : {}),
    started_at: now,
  };
  if (!input.task) {
    const recorded: Session = { ...(sessionId ? { session_id: sessionId } : {}), ...session };
    const sessions = { ...input.project.sessions, [agent.name]: recorded };
    return { agentId: id, project: { ...input.project, spawn_counts: counts, sessions } };
  }
  // A stale owner, or (with --force) a live one or an earlier session, no longer owns the task.
  let task = input.task.owner || input.task.session_id ? takeOver(input.task) : input.task;
  // Forced onto a finished task, the worker reopens it.
  const reopened = isFinished(task.status) ? task.status : undefined;
  if (reopened) task = withStatus(task, 'in_progress', now);
  if (input.opened) task = { ...task, worktree: input.opened.checkout };
  const started: TaskState = {
    ...task,
    ...(sessionId ? { session_id: sessionId } : {}),
    session,
    owner: input.ownerOf(id),
    ...(handoff ? { handoffs: [...(task.handoffs ?? []), { at: now, ...handoff, to_agent_id: id }] } : {}),
    // Taking over is carrying on, as a resume: in progress again, and a correction round after needs_review.
    ...(handoff && !isFinished(task.status)
      ? {
          status: 'in_progress' as const,
          iteration: task.status === 'needs_review' ? task.iteration + 1 : task.iteration,
        }
      : {}),
    ...(task.assigned_agent ? {} : { assigned_agent: agent.name }),
    ...(task.status === 'pending' ? { status: 'in_progress' as const, started_at: task.started_at ?? now } : {}),
  };
  if (!sessionId) delete started.session_id;
  const project = { ...input.project, spawn_counts: counts };
  return { agentId: id, project, task: started, ...(reopened ? { reopened } : {}) };
}

/** A resumed task: in progress again (unless finished), a correction round after needs_review, owned by `owner`. */
export function resumedTask(task: TaskState, now: string, owner: Owner): TaskState {
  return {
    ...task,
    iteration: task.status === 'needs_review' ? task.iteration + 1 : task.iteration,
    status: task.status === 'completed' || task.status === 'abandoned' ? task.status : 'in_progress',
    session: { ...task.session!, resumed_at: now, resumes: (task.session?.resumes ?? 0) + 1 },
    owner,
  };
}

/** A resumed project session: resumed once more. */
export function resumedSession(session: Session, now: string): Session {
  return { ...session, resumed_at: now, resumes: (session.resumes ?? 0) + 1 };
}

/** How a worker can run this very sow when a login shell has lost it from PATH (Codex runs `bash -lc`). */
export const sowCommand = (argv1 = process.argv[1]) => `node ${JSON.stringify(argv1 ?? 'sow')}`;

/** What a worker on a task is told it works on. */
export function taskAssignment(task: TaskState): string {
  const dir = taskDir(task.phase, task.id);
  return [
    `Task ${task.id}: ${task.name} (iteration ${task.iteration}).`,
    `Its context is in ${dir}/: state.yaml, description.md, log.md and feedback/.`,
    `Your task id is also in the environment as SOW_TASK_ID=${task.id}.`,
    `If \`sow\` is not found on PATH, run it as \`${sowCommand()}\` instead.`,
  ].join('\n');
}

/** What a worker without a task is told: the iteration's prompt, or the project and where it stands. */
export function projectAssignment(project: ProjectState, iteration: string | undefined): string {
  const where = `If \`sow\` is not found on PATH, run it as \`${sowCommand()}\` instead.`;
  return iteration !== undefined
    ? `${iteration}\n\n${where}`
    : `Project: ${project.name} — ${project.description}\nState: ${project.statechart.current_state}. Run \`sow ` +
        `project status\` to see where it stands.\n${where}`;
}

/** The worker's own variables: who it is, where the project is, its task and session. */
export const workerEnv = (
  agent: string,
  agentId: string,
  root: string,
  taskId?: string,
  sessionId?: string,
): Record<string, string> => ({
  SOW_BIN: process.argv[1] ?? '',
  SOW_AGENT: agent,
  SOW_AGENT_ID: agentId,
  SOW_PROJECT_ROOT: root,
  ...(taskId ? { SOW_TASK_ID: taskId } : {}),
  ...(sessionId ? { SOW_SESSION_ID: sessionId } : {}),
});

/** Whether a worker may start on the task now (--force overrides each reason); checked before anything starts and
 * again under the lock when the session is recorded. */
export async function checkSpawnable(
  at: Pick<Reader, 'type' | 'view' | 'dependenciesOf' | 'ctx'>,
  task: TaskState,
  force: boolean | undefined,
  handoff?: boolean,
): Promise<void> {
  if (force) return;
  // A handoff carries on a session, as a resume does: a finished task may be reopened, and its session is replaced.
  if (isFinished(task.status) && !handoff) {
    throw new TaskBlockedError(
      `task ${task.id} is ${task.status}; a worker would reopen it`,
      `add a new task for more work ('sow task add'), or pass --force to spawn on it anyway`,
      { task: task.id, status: task.status },
    );
  }
  const owner = liveOwner(task, at.ctx.now());
  if (owner) throw new TaskOwnedError(task.id, owner, 'a second worker would clobber its work');
  requireExecuting(at.type, await at.view(), task.id);
  if (task.session_id && !handoff)
    throw new SessionExistsError(`task ${task.id}`, `sow agent resume ${task.id} "<prompt>"`);
  if (!isFinished(task.status) || !handoff) checkStatusChange(task, 'in_progress', await at.dependenciesOf(task));
}

/** Whether a resume may go on: nobody else's worker is live on the task, and it may go back in progress (--force). */
export async function checkResumable(
  task: TaskState,
  now: string,
  force: boolean | undefined,
  dependenciesOf: (t: TaskState) => Promise<TaskSummary[]>,
): Promise<void> {
  const owner = liveOwner(task, now);
  if (owner && !force) throw new TaskOwnedError(task.id, owner, 'resuming its session now would run two workers on it');
  if (!force && !isFinished(task.status))
    checkStatusChange(task, 'in_progress', await dependenciesOf(task), {
      override: 'pass --force to resume it anyway',
    });
}
