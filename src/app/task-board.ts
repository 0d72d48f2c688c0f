/** `sow task board`: what `task list` leaves out (can it start, who works on it, feedback, usage); one task's runs. */
import { costOf, type CostRow } from '../domain/usage.js';
import { isFinished, normalizeTaskId, pendingFeedback } from '../domain/tasks.js';
import type { TaskStatus, UsageEntry } from '../domain/schemas.js';
import { readyNow, workerNow } from './ownership.js';
import type { AppContext } from './context.js';
import { Reader } from './workspace.js';

export interface BoardCard {
  id: string;
  name: string;
  status: TaskStatus;
  /** Nobody works on it and it can start now (what `sow task next` would offer). */
  ready: boolean;
  /** The tasks it depends on that are not finished yet: what it waits for. */
  blocked_by: { id: string; status: TaskStatus }[];
  /** Who works on it: live, or gone (then nobody does any more); absent when sow knows of nobody. */
  worker?: ReturnType<typeof workerNow>;
  iteration: number;
  /** Feedback inputs still pending. */
  feedback_pending: number;
  /** When its state last changed (its file's updated_at); a finished task's completed_at is when it finished. */
  changed_at: string;
  completed_at?: string;
  /** What its workers used, summed; absent when none ran. */
  usage?: Omit<CostRow, 'key'>;
  /** It is worked in a checkout of its own (relative to the project checkout). */
  worktree?: string;
}

export interface TaskBoard {
  cards: BoardCard[];
  /** With a task id: each run of its workers, oldest first. */
  runs?: UsageEntry[];
}

export async function taskBoard(ctx: AppContext, id?: string): Promise<TaskBoard> {
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
      const cards: BoardCard[] = [];
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
      return id === undefined ? { cards } : { cards, runs: usage.filter((u) => u.task === cards[0]?.id) };
    },
    { otherBranch: 'quiet' },
  );
}
