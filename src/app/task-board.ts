/** `sow task board`: what `task list` leaves out (can it start, who works on it, feedback, usage); one task's runs. */
import { costOf } from '../domain/usage.js';
import { isFinished, normalizeTaskId, pendingFeedback } from '../domain/tasks.js';
import { readyNow, workerNow } from './ownership.js';
import type { AppContext } from './context.js';
import { Reader } from './workspace.js';

/** One task on the board: what `task list` leaves out. */
export type BoardCard = Awaited<ReturnType<typeof taskBoard>>['cards'][number];

export async function taskBoard(ctx: AppContext, id?: string) {
  return Reader.read(
    ctx,
    async (reader) => {
      const now = reader.ctx.now();
      const summaries = await reader.tasks();
      const statusOf = new Map(summaries.map((t) => [t.id, t.status]));
      const usage = reader.project.usage ?? [];
      const chosen = id === undefined ? summaries : summaries.filter((t) => t.id === normalizeTaskId(id));
      // A task the list does not hold is refused as every command refuses it.
      if (id !== undefined && chosen.length === 0) await reader.task(id);
      const cards = [];
      for (const summary of chosen) {
        const task = await reader.task(summary.id);
        const blocked = task.dependencies.flatMap((d) => {
          const st = statusOf.get(d);
          return st === undefined || !isFinished(st) ? [{ id: d, status: st ?? ('pending' as const) }] : [];
        });
        const runs = usage.filter((u) => u.task === task.id);
        const worker = workerNow(summary, now);
        cards.push({
          id: task.id,
          name: task.name,
          status: task.status,
          ready: blocked.length === 0 && readyNow(summary, now),
          blocked_by: blocked,
          ...(worker ? { worker } : {}),
          iteration: task.iteration,
          feedback_pending: pendingFeedback(task).length,
          changed_at: task.updated_at,
          ...(task.completed_at ? { completed_at: task.completed_at } : {}),
          ...(runs.length ? { usage: costOf(runs, 'task').total } : {}),
          ...(task.worktree ? { worktree: task.worktree.path } : {}),
        });
      }
      return id === undefined ? { cards } : { cards, runs: usage.filter((u) => u.task === chosen[0]?.id) };
    },
    { otherBranch: 'quiet' },
  );
}
