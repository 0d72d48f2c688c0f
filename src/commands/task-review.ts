/** `sow task changes`: what a task's work changed, file by file (the read a task is reviewed with, here and in ui). */
import { taskIdOf, TASK_ID_OPTION } from '../model/args.js';
import { command, type CommandDef } from '../model/def.js';
import { shown } from '../domain/display.js';

const SOURCE: Readonly<Record<string, string>> = {
  'worker-checkout': "in its own checkout: its branch's commits and what is left uncommitted",
  'worker-branch': "on its branch (its checkout's folder is gone)",
  recorded: 'among the files it records as modified, in the project checkout',
  'project-checkout':
    'in the project checkout, where it records no file of its own: changes of other tasks there are in it too',
};

/** A card's line: "010 needs_review · iteration 2 · 1 pending feedback · $0.12". */
function cardLine(c: import('../app/task-board.js').BoardCard): string {
  const parts = [`${c.id} ${c.status}`, shown(c.name)];
  if (c.status === 'pending' || c.status === 'in_progress')
    parts.push(
      c.ready
        ? 'ready'
        : c.blocked_by.length
          ? `waits for ${c.blocked_by.map((b) => `${b.id} (${b.status})`).join(', ')}`
          : c.worker?.state === 'live'
            ? `${c.worker.kind === 'worker' ? 'worker' : 'claimed by'} ${shown(c.worker.by)}`
            : 'nobody works on it',
    );
  if (c.iteration > 1) parts.push(`iteration ${c.iteration}`);
  if (c.feedback_pending) parts.push(`${c.feedback_pending} pending feedback`);
  if (c.usage?.cost_usd !== undefined) parts.push(`$${c.usage.cost_usd.toFixed(2)}`);
  return parts.join(' · ');
}

export const commands: CommandDef[] = [
  command({
    name: 'task board',
    description:
      'The tasks as cards of a board: ready or waiting (for which tasks), who works on them, pending feedback, ' +
      'iteration, what their workers used, when they last changed',
    options: [
      {
        ...TASK_ID_OPTION,
        description: "only this task's card, with each run of its workers (tokens and cost of every spawn and resume)",
      },
    ],
    writes: false,
    help:
      "What 'sow ui' draws its board from. 'sow task list' stays the short list (for agents); this reads every " +
      "task's file.",
    async run(ctx, { opts }) {
      const { taskBoard } = await import('../app/task-board.js');
      const r = await taskBoard(ctx.app, opts.id === undefined ? undefined : taskIdOf(opts));
      return { data: r, text: r.cards.map(cardLine).join('\n'), message: r.cards.length ? undefined : 'No tasks yet' };
    },
  }),
  command({
    name: 'task changes',
    description:
      "What a task's work changed, file by file, from git: its own checkout against where its branch began, else " +
      'the project checkout against its base branch',
    options: [TASK_ID_OPTION],
    writes: false,
    help:
      "Whether or not the worker recorded the files ('sow task diff' shows the recorded ones only). New files " +
      "are shown whole; .sow/ is left out. With --json: each file's status and git's patch.",
    async run(ctx, { opts }) {
      const { taskChanges } = await import('../app/task-changes.js');
      const r = await taskChanges(ctx.app, taskIdOf(opts));
      const against = r.base
        ? `against ${r.base.branch ? `'${shown(r.base.branch)}' at ` : ''}${r.base.commit.slice(0, 12)}`
        : 'against its last commit';
      return {
        data: r,
        text: r.files.map((f) => f.patch || `${f.status} ${shown(f.path)}${f.binary ? ' (binary)' : ''}`).join('\n'),
        message:
          `Task ${r.task}: ${r.files.length} file${r.files.length === 1 ? '' : 's'} ` +
          `changed ${SOURCE[r.source]}; ${against}${r.truncated ? '; some patches were cut (too large)' : ''}`,
      };
    },
  }),
];
