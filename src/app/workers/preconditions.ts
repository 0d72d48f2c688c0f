/** What must hold before a worker starts, checked before anything starts (the record stage checks again under the
 * lock): the task or session can take a worker now, and the budget is not spent. */
import type { AppContext } from '../context.js';
import { findAgent } from '../../domain/agents.js';
import { BudgetSpentError, SowError, UsageError } from '../../domain/errors.js';
import { budgetReached, costOf } from '../../domain/usage.js';
import { readRepoConfig } from '../../adapters/repo-config.js';
import { requireExecuting } from '../ownership.js';
import { Reader } from '../workspace.js';
import { NoSessionError, SessionExistsError } from '../agent-errors.js';
import { checkResumable, checkSpawnable } from './plan.js';
import type { Handoff, Target } from './types.js';

/** Workers change the project, so they start only on its branch: refuse before any CLI runs. */
export const readForWorker = <T>(ctx: AppContext, fn: (reader: Reader) => Promise<T>) =>
  Reader.read(ctx, fn, { otherBranch: 'refuse' });

/** Refuses a new run when the project's workers have used what its budget allows. */
async function requireBudget(reader: Reader): Promise<void> {
  const { config } = await readRepoConfig(reader.root);
  if (!config.budget) return;
  const cost = costOf(reader.project.usage ?? [], 'task');
  const reached = budgetReached(config.budget, cost.total);
  if (!reached) return;
  const biggest = [...cost.rows].sort(
    (a, b) =>
      (b.cost_usd ?? 0) - (a.cost_usd ?? 0) ||
      (b.input_tokens ?? 0) + (b.output_tokens ?? 0) - ((a.input_tokens ?? 0) + (a.output_tokens ?? 0)),
  )[0];
  throw new BudgetSpentError(
    reached.spent,
    reached.limit,
    reached.field,
    biggest ? (biggest.key === '(project)' ? 'the project’s own workers' : `task ${biggest.key}`) : undefined,
  );
}
/** The task (or the project's session) can take a worker now, then the budget; the root, and the task when named. */
export async function spawnPreconditions(
  ctx: AppContext,
  agentName: string,
  taskId: string | undefined,
  opts: { force?: boolean; next?: boolean; iteration?: boolean; handoff?: Handoff },
): Promise<{ root: string; target?: Target }> {
  const agent = findAgent(agentName);
  const found = await readForWorker(ctx, async (reader): Promise<{ root: string; target?: Target }> => {
    const { root } = reader;
    if (taskId !== undefined) {
      const task = await reader.task(taskId);
      await checkSpawnable(reader, task, opts.force, opts.handoff !== undefined);
      return { root, target: { kind: 'task', id: task.id } };
    }
    if (opts.next) {
      if (!opts.force) requireExecuting(reader.type, await reader.view(), '(the next ready one)');
      return { root };
    }
    // A fresh worker for the next iteration: never a resume, so an earlier session does not matter.
    if (opts.iteration && !reader.type.iterationPrompt)
      throw new SowError(
        'NOT_ITERATIVE',
        'failed',
        `--iteration is for projects whose work runs in iterations, and this project is ${reader.project.type}`,
        `spawn a worker on a task ('sow agent spawn ${agent.name} <task-id>') or for the project ('sow agent ` +
          `spawn ${agent.name}')`,
      );
    if (!opts.iteration && !opts.force && reader.project.sessions?.[agent.name]?.session_id)
      throw new SessionExistsError(`agent ${agent.name}`, `sow agent resume --agent ${agent.name} "<prompt>"`);
    return { root, target: { kind: 'project', agent: agent.name } };
  });
  // After what the command names is found: a task that is not there is told as such, even over budget.
  await readForWorker(ctx, requireBudget);
  return found;
}

/** What a resume needs before anything starts: the session, not owned by a live worker (unless forced), a status that
 * may go back in progress; and, unless handed to a fresh session, the budget. */
export async function resumePreconditions(ctx: AppContext, target: Target, opts: { force?: boolean; fresh?: boolean }) {
  const found = await readForWorker(ctx, async (reader) => {
    if (target.kind === 'task') {
      const task = await reader.task(target.id);
      const agentName = task.session?.agent ?? task.assigned_agent ?? 'implementer';
      if (!task.session) throw new NoSessionError(`task ${task.id}`, `sow agent spawn ${agentName} ${task.id}`);
      await checkResumable(task, reader.ctx.now(), opts.force, (t) => reader.dependenciesOf(t));
      return {
        root: reader.root,
        target: { kind: 'task', id: task.id } as Target,
        session: task.session,
        sessionId: task.session_id,
        agentName,
      };
    }
    findAgent(target.agent);
    const recorded = reader.project.sessions?.[target.agent];
    if (!recorded) throw new NoSessionError(`agent ${target.agent}`, `sow agent spawn ${target.agent}`);
    return { root: reader.root, target, session: recorded, sessionId: recorded.session_id, agentName: target.agent };
  });
  if (opts.fresh && found.target.kind !== 'task')
    throw new UsageError(
      '--fresh hands a task over to a new session; a worker without a task starts afresh with sow agent spawn',
      `sow agent spawn ${found.agentName} --force`,
    );
  await readForWorker(ctx, requireBudget);
  return found;
}
