// What a spawned worker says about itself (`sow agent log`, `sow agent report`), who it is read from the environment
// sow gave it (SOW_AGENT_ID, SOW_TASK_ID, SOW_AGENT).
import type { AppContext } from './context.js';
import { notOneOf, SowError, UsageError } from '../domain/errors.js';
import { PROJECT_REPORT_STATUSES, type ProjectReportStatus, type TaskStatus } from '../domain/schemas.js';
import { appendLog, type LogResult } from './log.js';
import { setTaskField } from './task-change.js';
import { update } from './workspace.js';

type Env = AppContext['env'];

function worker(env: Env, command: string): { agentId: string; agent: string; task?: string } {
  const agentId = env['SOW_AGENT_ID'];
  if (!agentId)
    throw new UsageError(
      `'sow agent ${command}' is for spawned workers: it reads who they are from SOW_AGENT_ID`,
      command === 'log'
        ? 'to log as yourself, run \'sow log --action <a> --result <r> [--task <id>] "<notes>"\''
        : "to change a task, run 'sow task set --id <id> status <status>'",
    );
  const agent = env['SOW_AGENT'] || agentId.replace(/-\d+$/, '');
  const task = env['SOW_TASK_ID'] || undefined;
  return { agentId, agent, ...(task ? { task } : {}) };
}

/** `sow agent log "<message>"`: a note in the worker's task log (or the project log, without a task). */
export async function agentLog(
  ctx: AppContext,
  req: { message: string; action?: string; result?: string; files: string[] },
): Promise<LogResult> {
  const w = worker(ctx.env, 'log');
  if (!req.message.trim()) throw new UsageError('the message is empty', 'sow agent log "what you did"');
  return appendLog(ctx, {
    agent: w.agentId,
    action: req.action ?? 'note',
    result: req.result ?? 'success',
    files: req.files,
    ...(w.task ? { task: w.task } : {}),
    project: !w.task,
    notes: req.message,
  });
}

/** How a reported status reads in the log. */
const resultOf = (status: string) =>
  status === 'failed' ? 'error' : status === 'paused' || status === 'blocked' ? 'partial' : 'success';

/** Statuses a task worker may report: what the worker protocol ends with, or that it works on. */
const TASK_REPORT_STATUSES: readonly TaskStatus[] = ['in_progress', 'needs_review', 'paused', 'failed'];

export async function agentReport(
  ctx: AppContext,
  status: string,
  message: string | undefined,
): Promise<{ agent_id: string; task?: string; status: string; message?: string }> {
  const w = worker(ctx.env, 'report');
  const text = message?.trim() || undefined;
  const logReport = (task: string | undefined) =>
    appendLog(ctx, {
      agent: w.agentId,
      action: 'reported_status',
      result: resultOf(status),
      files: [],
      ...(task ? { task } : {}),
      project: !task,
      notes: `Status ${status}${text ? `: ${text}` : ''}`,
    });
  if (w.task) {
    if (!(TASK_REPORT_STATUSES as readonly string[]).includes(status))
      throw notOneOf('status', status, TASK_REPORT_STATUSES, `a worker on a task reports one of`);
    // A worker cannot pass --force: blocked, it says it paused (which is never blocked) and why.
    await setTaskField(ctx, w.task, 'status', status, {
      override: "report 'paused' with the reason until then",
      worker: true,
    });
    if (text) await logReport(w.task);
    return { agent_id: w.agentId, task: w.task, status, ...(text ? { message: text } : {}) };
  }
  if (!(PROJECT_REPORT_STATUSES as readonly string[]).includes(status))
    throw notOneOf('status', status, PROJECT_REPORT_STATUSES, 'a worker without a task reports one of');
  await update(ctx, async (uow) => {
    const project = await uow.project();
    const session = project.sessions?.[w.agent];
    if (!session || session.agent_id !== w.agentId)
      throw new SowError(
        'NO_SESSION',
        'failed',
        `${w.agentId} has no session of its own in this project (the ${w.agent} session ` +
          `is ${session?.agent_id ?? 'not recorded'})`,
        'a worker reports on the session sow spawned it with',
      );
    uow.setProject({
      ...project,
      sessions: {
        ...project.sessions,
        [w.agent]: {
          ...session,
          report: { status: status as ProjectReportStatus, ...(text ? { message: text } : {}), at: uow.now },
        },
      },
    });
  });
  await logReport(undefined);
  return { agent_id: w.agentId, status, ...(text ? { message: text } : {}) };
}
