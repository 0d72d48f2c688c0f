/** `sow task …`: add, change and inspect the project's tasks, and their inputs and outputs. */
import { agentArg, taskIdArg, taskIdOf, taskIdsArg, textArg, TASK_ID_OPTION } from '../model/args.js';
import { shown } from '../domain/display.js';
import { UsageError } from '../domain/errors.js';
import { toJson } from '../domain/json.js';
import { taskSetData } from '../app/results.js';
import { artifactCommands } from './artifacts.js';
import { command, type CommandDef } from '../model/def.js';
import { taskGet, taskList, taskNext } from './task-read.js';
import { commands as review } from './task-review.js';

/** A status write that found the task so already: what it is, since when, and that nothing changed. */
function unchangedText(t: { id: string; status: string; completed_at?: string; updated_at: string }): string {
  const since = t.status === 'completed' || t.status === 'abandoned' ? t.completed_at : undefined;
  return `Task ${t.id} is already ${t.status}${since ? ` (since ${since})` : ''}; nothing changed`;
}

export const commands: readonly CommandDef[] = [
  command({
    name: 'task add',
    description: 'Add a task (ids are gap-numbered: 010, 020, …)',
    args: [{ name: 'name', description: 'what the task does' }],
    options: [
      { flags: '-a, --agent <agent>', description: 'the agent role, e.g. implementer' },
      { flags: '-d, --description <text>', description: 'requirements, acceptance criteria (description.md)' },
      { flags: '--id <id>', description: 'this id (10 means 010), not the next free one', complete: 'task-id' },
      { flags: '--parallel', description: 'may run beside others' },
      { flags: '--depends-on <ids>', description: 'ids that must finish first, e.g. 010,020', complete: 'task-id' },
    ],
    mcp: { tool: 'task', action: 'add', omit: ['id'] },
    async run(ctx, { args, opts }) {
      const name = args[0] as string;
      textArg(name, 'the task name', 'say what the task does: sow task add "Add the login form"');
      const { TASK_NAME_MAX } = await import('../domain/tasks.js');
      if (name.trim().length > TASK_NAME_MAX)
        throw new UsageError(
          `the task name has ${name.trim().length} characters, and a name has at most ${TASK_NAME_MAX}`,
          'put the details in --description',
        );
      if (opts.id !== undefined) taskIdArg(opts.id);
      if (opts.dependsOn !== undefined) taskIdsArg(opts.dependsOn, '--depends-on');
      if (opts.agent !== undefined) await agentArg(opts.agent.trim());
      const { addTask } = await import('../app/task.js');
      const t = await addTask(ctx.app, { name, ...opts });
      return { data: t, text: t.id, message: `Added task ${t.id} '${shown(t.name)}'` };
    },
  }),
  command({
    name: 'task set',
    description:
      'Set a task field (status, name, iteration, assigned_agent, parallel, dependencies, description) or metadata',
    args: [
      { name: 'field', description: 'a field or a metadata name' },
      { name: 'value', description: 'its new value' },
    ],
    options: [
      TASK_ID_OPTION,
      { flags: '--force', description: "override an owner's hold, a block or the checks (recorded)" },
      { flags: '--owner <name>', description: 'act as this owner (default: SOW_OWNER)' },
    ],
    help:
      'With --force another owner (a worker or a claim, here or on the claims remote) is taken over, ' +
      'noted in its log; the status is set although an unfinished dependency, pending feedback or its ' +
      'being completed blocks it; completing skips the declared task_complete checks (recorded).\n' +
      'Setting status completed first runs the checks .sow/config.yaml declares for task_complete ' +
      "('sow check list');\nwhen one fails the task is not completed (exit 3). " +
      'Either way their runs are recorded as evidence on the task.',
    mcp: { tool: 'task_update', description: "Set a task's field or metadata; completing runs its checks." },
    async run(ctx, { args, opts }) {
      const [field, value] = args as [string, string];
      const { setTaskField } = await import('../app/task-change.js');
      // Only a completion runs checks: then their progress goes out, and Ctrl-C or a cancel stops them.
      let watch: { release(): void } | undefined;
      const checking = async () => (watch = await (await import('../cli/check.js')).checkWatch(ctx, process.stderr));
      const r = await setTaskField(ctx.app, taskIdOf(opts), field, value, {
        force: opts.force === true,
        owner: opts.owner,
        checking,
      }).finally(() => watch?.release());
      const ran = (r.checks ?? []).filter((c) => !c.skipped);
      const first = ran[0];
      const place =
        first?.checkout !== undefined
          ? ` in its checkout ${first.checkout} at ${first.commit?.slice(0, 12) ?? 'no commit'}` +
            (first.dirty ? ' with uncommitted changes' : '')
          : '';
      const checks = !r.checks?.length
        ? ''
        : ran.length
          ? ` (${ran.length === 1 ? 'its check passed' : `its ${ran.length} checks passed`}${place})`
          : ` (its checks skipped with --force: ${r.checks.map((c) => c.name).join(', ')})`;
      return {
        data: taskSetData(r),
        message: r.unchanged ? unchangedText(r.task) : `Set task ${r.id} ${r.field} = ${toJson(r.value)}${checks}`,
      };
    },
  }),
  taskGet,
  command({
    name: 'task abandon',
    description: 'Abandon a task (it no longer blocks review)',
    options: [
      TASK_ID_OPTION,
      {
        flags: '--force',
        description:
          'abandon it even though another owner holds it (a worker or a claim, here or on the claims remote: taken ' +
          'over), or it is completed (noted in its log)',
      },
      { flags: '--owner <name>', description: 'act as this owner; default: SOW_OWNER' },
    ],
    async run(ctx, { opts }) {
      const { abandonTask } = await import('../app/task-change.js');
      const r = await abandonTask(ctx.app, taskIdOf(opts), { force: opts.force === true, owner: opts.owner });
      return {
        data: r.task,
        message: r.unchanged ? unchangedText(r.task) : `Abandoned task ${r.task.id} '${shown(r.task.name)}'`,
      };
    },
  }),
  taskList,
  taskNext,
  command({
    name: 'task feedback',
    description:
      'Send a task back with feedback: the next feedback/<nnn>.md of its folder, registered as a pending ' +
      'feedback input',
    args: [{ name: 'text', description: 'the findings: what to change, and why' }],
    options: [TASK_ID_OPTION],
    help:
      "What the orchestrator prompts describe in two steps (write the file, then 'sow task input add --type " +
      "feedback'), in one. Then set the task in_progress and resume its worker: sow agent resume <id> " +
      '"<prompt>" --detach.',
    async run(ctx, { args, opts }) {
      const text = args[0] as string;
      textArg(text, 'the feedback', 'say what to change: sow task feedback --id 010 "The form needs a label"');
      const { addFeedback } = await import('../app/artifacts.js');
      const r = await addFeedback(ctx.app, taskIdOf(opts), text);
      return {
        data: r,
        text: r.artifact.path,
        message: `Added feedback ${r.artifact.path} (input ${r.index}, pending)`,
      };
    },
  }),
  command({
    name: 'task diff',
    description:
      "What a task changed: its modified files as a diff against the project's base branch (new files whole)",
    options: [TASK_ID_OPTION],
    writes: false,
    async run(ctx, { opts }) {
      const { taskDiff } = await import('../app/task.js');
      const r = await taskDiff(ctx.app, taskIdOf(opts));
      return {
        data: r,
        text: r.diff,
        message: r.diff
          ? undefined
          : r.files.length
            ? `Task ${r.task}'s files show no change against the base branch`
            : `Task ${r.task} records no modified file yet`,
      };
    },
  }),
  command({
    name: 'task merge',
    description:
      "Merge a completed task's own checkout (sow agent spawn --worktree) into the project branch, then remove the " +
      'checkout and its branch',
    args: [{ name: 'task-id', description: 'the task (or --id)', optional: true }],
    options: [
      TASK_ID_OPTION,
      {
        flags: '--force',
        description:
          'merge although the task_complete checks have no fresh passing evidence for the code merged (noted in ' +
          "the task's log)",
      },
    ],
    help:
      'Only code the checks passed on is merged: each check declared for task_complete needs passing evidence, ' +
      "recorded in the task's checkout, for exactly the code merged (else exit 3; 'sow check run --task <id>' runs " +
      'them there); the output names the evidence it relied on. What its worker left uncommitted (outside .sow/) ' +
      'is committed on its branch first. A conflict stops the merge before the project checkout is touched: the ' +
      "files are named, and the worker's checkout is kept to resolve it there.",
    async run(ctx, { args, opts }) {
      const given = args[0] === undefined ? undefined : taskIdArg(args[0] as string, 'task id');
      if (given !== undefined && opts.id !== undefined && given !== taskIdArg(opts.id, '--id'))
        throw new UsageError('give the task id once: as an argument or with --id', `sow task merge ${given}`);
      const id = given ?? taskIdOf(opts);
      const { mergeTask, mergeChecksSentence } = await import('../app/worker-checkout.js');
      const r = await mergeTask(ctx.app, id, { force: opts.force === true });
      const what = r.merge
        ? `Merged task ${r.task}'s branch '${r.branch}' into '${r.into}' (${r.files.length} ` +
          `file${r.files.length === 1 ? '' : 's'})`
        : `Task ${r.task}'s branch '${r.branch}' had nothing to merge into '${r.into}'`;
      return {
        data: r,
        message:
          `${what}${r.committed ? '; what its worker left uncommitted was committed on its branch first' : ''}; ` +
          `its checkout and branch were removed\n${mergeChecksSentence(r.checked)}`,
      };
    },
  }),
  ...artifactCommands('inputs', 'task'),
  ...artifactCommands('outputs', 'task'),
  ...review,
];
