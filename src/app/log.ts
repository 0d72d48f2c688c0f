// `sow log`: an entry (front matter and a markdown body) appended to the task's or the project's log.md. With a task,
// every file becomes a `modified` output of it, once, named from the repository root: outputs are tracked by logging.
import type { AppContext } from './context.js';
import { isAbsolute, resolve, sep } from 'node:path';
import { LOG_ACTIONS, LOG_RESULTS } from '../domain/agents.js';
import { notOneOf, PathOutsideRepositoryError, UsageError } from '../domain/errors.js';
import { pathWithin } from '../adapters/confine.js';
import { realPath } from '../adapters/files.js';
import { findWorkspaceRoot } from '../adapters/repo.js';
import { renewLease } from '../domain/ownership.js';
import { refuseRetired } from '../domain/task-change.js';
import { writeLogEntry } from './log-entry.js';
import { update } from './workspace.js';

export type LogRequest = Partial<Record<'agent' | 'task', string>> &
  Record<'action' | 'result' | 'notes', string> & { files: string[]; project: boolean };

export type LogResult = Awaited<ReturnType<typeof appendLog>>;

/** A file named on the command line (relative to where the user stands) as a repository path. */
export function repositoryPath(root: string, cwd: string, file: string): string {
  const abs = realPath(isAbsolute(file) ? file : resolve(cwd, file));
  const rel = pathWithin(root, abs);
  const why = 'files are named relative to where you run sow (or absolute) and must be inside the repository';
  if (!rel) throw new PathOutsideRepositoryError(file, why);
  return rel.split(sep).join('/');
}

export async function appendLog(ctx: AppContext, req: LogRequest) {
  const env = ctx.env;
  if (!(LOG_ACTIONS as readonly string[]).includes(req.action))
    throw notOneOf('log action', req.action, LOG_ACTIONS, 'actions');
  if (!(LOG_RESULTS as readonly string[]).includes(req.result))
    throw notOneOf('log result', req.result, LOG_RESULTS, 'results');
  // A spawned worker logs as itself; anyone else as `user` unless they say who.
  const agent = req.agent ?? (env['SOW_AGENT_ID'] || 'user');
  if (req.project && req.task) {
    const hint = 'log to one place: the task (--task) or the whole project (--project)';
    throw new UsageError('--task and --project exclude each other', hint);
  }
  const taskId = req.project ? undefined : (req.task ?? env['SOW_TASK_ID']);
  if (!req.project && !taskId)
    throw new UsageError(
      'say where to log: --task <id> or --project',
      'spawned workers have their task in SOW_TASK_ID',
    );
  const root = findWorkspaceRoot(ctx.cwd);
  const named = req.files.flatMap((f) => f.split(',')).map((f) => f.trim());
  const files = [...new Set(named.filter(Boolean).map((f) => repositoryPath(root, ctx.cwd, f)))];
  return update({ ...ctx, cwd: root }, async (uow) => {
    const tracked: string[] = [];
    let id: string | undefined;
    if (taskId) {
      const task = await uow.task(taskId);
      id = task.id;
      const outputs = [...task.outputs];
      for (const path of files) {
        if (outputs.some((o) => o.type === 'modified' && o.path === path)) continue;
        outputs.push({ type: 'modified', path, created_at: uow.now });
        tracked.push(path);
      }
      // The task file is written only for new outputs or a lease the owner's entry renews; else the entry is the one
      // write (an append in place).
      if (tracked.length > 0 || renewLease(task, uow.actor, uow.now) !== task) uow.setTask({ ...task, outputs });
      else refuseRetired(task, uow.actor);
    }
    const logRel = await writeLogEntry(uow, id, { agent, action: req.action, result: req.result, files }, req.notes);
    return { file: logRel, ...(id ? { task: id } : {}), agent, files, tracked };
  });
}
