/** `sow task …`: add, change and inspect the project's tasks, and their inputs and outputs. */
import { agentArg, oneOf, taskIdArg, taskIdOf, taskIdsArg, textArg } from '../model/args.js';
import { TASK_ID_OPTION, WATCH_OPTION } from '../model/args.js';
import { shown } from '../domain/display.js';
import { UsageError } from '../domain/errors.js';
import { renderValue } from '../cli/value.js';
import { paintFor } from '../cli/colour.js';
import { toJson } from '../domain/json.js';
import { claimData, taskData, taskSetData } from '../app/results.js';
import { artifactCommands } from './artifacts.js';
import { nearMiss } from '../domain/suggest.js';
import { command, type CommandContext, type CommandDef } from '../model/def.js';
import type { AddTaskOptions } from '../app/task.js';

/** The fields `task list --fields` takes: its JSON's names, and `agent` for assigned_agent. */
const LIST_FIELDS = 'id name status agent assigned_agent parallel dependencies worker remote_claim'.split(' ');
const LIST_FIELDS_HELP = LIST_FIELDS.filter((f) => f !== 'assigned_agent').join(', ');

function fieldsArg(raw: string): string[] {
  const names = raw
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  if (names.length === 0)
    throw new UsageError('--fields names no field', `for example --fields id,name,status (${LIST_FIELDS_HELP})`);
  return [
    ...new Set(
      names.map((n) => {
        if (!LIST_FIELDS.includes(n)) {
          const guess = nearMiss(n, LIST_FIELDS);
          throw new UsageError(
            `--fields: no field '${shown(n)}'${guess ? `; did you mean '${guess}'?` : ''}`,
            `the fields: ${LIST_FIELDS_HELP}`,
          );
        }
        return n === 'agent' ? 'assigned_agent' : n;
      }),
    ),
  ];
}

function limitArg(raw: string): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < 1)
    throw new UsageError(`invalid --limit '${shown(raw)}': expected a whole number from 1`, 'for example --limit 10');
  return n;
}

/** A row of only `fields`, in their order (a field it does not have, or an empty one, is left out). */
function pick(row: object, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = (row as Record<string, unknown>)[f];
    if (v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0)) out[f] = v;
  }
  return out;
}

/** A status write that found the task so already: what it is, since when, and that nothing changed. */
function unchangedText(t: { id: string; status: string; completed_at?: string; updated_at: string }): string {
  const since = t.status === 'completed' || t.status === 'abandoned' ? t.completed_at : undefined;
  return `Task ${t.id} is already ${t.status}${since ? ` (since ${since})` : ''}; nothing changed`;
}

/** `task add` as the command line and the task tool check it: the name, the id, the dependencies, the agent. */
async function checkedAdd(ctx: CommandContext, name: string, opts: Omit<AddTaskOptions, 'name'>) {
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
  return addTask(ctx.app, { name, ...opts });
}

export const commands: readonly CommandDef[] = [
  command({
    name: 'task add',
    description: 'Add a task (ids are gap-numbered: 010, 020, …)',
    args: [{ name: 'name', description: 'what the task does' }],
    options: [
      { flags: '-a, --agent <agent>', description: 'the agent role, e.g. implementer', complete: 'agent' },
      { flags: '-d, --description <text>', description: 'requirements, acceptance criteria (description.md)' },
      { flags: '--id <id>', description: 'this id (10 means 010), not the next free one', complete: 'task-id' },
      { flags: '--parallel', description: 'may run beside others' },
      { flags: '--depends-on <ids>', description: 'ids that must finish first, e.g. 010,020', complete: 'task-id' },
    ],
    writes: true,
    mcp: { tool: 'task', action: 'add', omit: ['id'] },
    async run(ctx, { args, opts }) {
      const t = await checkedAdd(ctx, args[0] as string, opts);
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
    writes: true,
    mcp: { tool: 'task_update', description: "Set a task's field or metadata; completing runs its checks." },
    async run(ctx, { args, opts }) {
      const [field, value] = args as [string, string];
      const { setTaskField } = await import('../app/task-change.js');
      // Only a completion runs checks: then their progress goes out, and Ctrl-C or a cancel stops them.
      let watch: { release(): void } | undefined;
      const checking = async () => {
        const w = await (await import('../cli/check.js')).checkWatch(ctx, process.stderr);
        watch = w;
        return { onProgress: w.onProgress, signal: w.signal };
      };
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
  command({
    name: 'task get',
    description: 'Print a task, or one field of it (bare, for scripts)',
    args: [{ name: 'field', description: 'only this field', optional: true }],
    options: [TASK_ID_OPTION],
    writes: false,
    mcp: { tool: 'task', action: 'get', description: 'List tasks, get one whole (id), or add one.', omit: ['field'] },
    async run(ctx, { args, opts }) {
      const field = args[0] as string | undefined;
      const { getTask } = await import('../app/task.js');
      const r = await getTask(ctx.app, taskIdOf(opts), field);
      if (field === undefined) {
        const { renderTask } = await import('../cli/render.js');
        const data = taskData(r.task, r.description);
        return { data, text: renderTask(data) };
      }
      return { data: { id: r.task.id, field: r.field, value: r.value ?? null }, text: renderValue(r.value) };
    },
  }),
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
    writes: true,
    async run(ctx, { opts }) {
      const { abandonTask } = await import('../app/task-change.js');
      const r = await abandonTask(ctx.app, taskIdOf(opts), {
        force: opts.force === true,
        owner: opts.owner,
      });
      return {
        data: r.task,
        message: r.unchanged ? unchangedText(r.task) : `Abandoned task ${r.task.id} '${shown(r.task.name)}'`,
      };
    },
  }),
  command({
    name: 'task list',
    description: 'List the tasks',
    options: [
      { flags: '-s, --status <status>', description: 'only tasks with this status', complete: 'task-status' },
      { flags: '-r, --ready', description: 'only tasks that can start now' },
      { flags: '-n, --limit <n>', description: 'at most this many tasks', parse: limitArg },
      { flags: '-f, --fields <names>', description: 'only these fields, e.g. id,name,status', parse: fieldsArg },
      WATCH_OPTION,
    ],
    help:
      `--fields takes ${LIST_FIELDS_HELP}, in the order given.\n` +
      'Not on a terminal (an agent, a script) the list is compact: the tasks under one heading per status, ' +
      '"blocked" where a dependency is not finished, the default role (implementer) not said, and completed ' +
      'and abandoned tasks as ids alone (--status completed names them). --json leaves out what is empty.',
    writes: false,
    mcp: { tool: 'task', action: 'list', listKey: 'tasks', omit: ['limit', 'fields'] },
    async run(ctx, { opts }) {
      const status = opts.status;
      const ready = opts.ready === true;
      const limit = opts.limit;
      const fields = opts.fields;
      if (status !== undefined)
        oneOf('task status', status, (await import('../domain/schemas.js')).TASK_STATUSES, 'statuses');
      if (ready && status !== undefined)
        throw new UsageError(
          '--ready lists the tasks that can start now, whatever their status; give --ready or --status, not both',
          'sow task list --ready',
        );
      const view = async () => {
        const { listTasks, nextTasks } = await import('../app/task.js');
        const { formatTaskFields, formatTaskList, unattendedLines } = await import('../cli/render.js');
        const paint = paintFor();
        // Every task, also under --status: whether a dependency is finished says what is blocked.
        const every = ready ? await nextTasks(ctx.app, { withoutPendingFeedback: true }) : await listTasks(ctx.app);
        const all = status !== undefined ? every.filter((t) => t.status === status) : every;
        const tasks = limit !== undefined ? all.slice(0, limit) : all;
        const unattended = unattendedLines(tasks);
        const more = all.length - tasks.length;
        const notes = [...(more > 0 ? [`${more} more not shown (--limit ${limit})`] : []), ...unattended];
        const text = fields
          ? tasks.map((t) => formatTaskFields(t, fields, paint)).join('\n')
          : formatTaskList(tasks, {
              paint,
              ...(ready ? {} : { statusOf: new Map(every.map((t) => [t.id, t.status])) }),
              finishedAsIds: status === undefined,
            });
        return {
          data: fields ? tasks.map((t) => pick(t, fields)) : tasks,
          text,
          ...(all.length === 0
            ? { message: ready ? 'No task can start now' : status ? `No ${status} tasks` : 'No tasks yet' }
            : notes.length
              ? { message: notes.join('\n') }
              : {}),
        };
      };
      if (!opts.watch) return view();
      const { watchView } = await import('../cli/watch.js');
      return watchView(
        ctx,
        ['sow task list', ...(status ? ['--status', status] : []), ...(ready ? ['--ready'] : [])].join(' '),
        view,
      );
    },
  }),
  command({
    name: 'task next',
    description:
      'List the tasks ready to start (pending, dependencies finished, nobody on them); --claim takes the first',
    options: [
      { flags: '--claim', description: 'claim the first (in_progress, yours)' },
      { flags: '-a, --agent <agent>', description: 'the agent role', complete: 'agent' },
      { flags: '--owner <name>', description: 'who claims it (default: SOW_OWNER)' },
      { flags: '--lease <duration>', description: 'how long the claim holds (30m, 2h)', default: '30m' },
      { flags: '--remote <name>', description: 'also claim it on this git remote' },
      { flags: '-n, --limit <n>', description: 'list at most this many', parse: limitArg },
    ],
    help:
      '--agent, --owner, --lease and --remote go with --claim; --limit with the list (an MCP client gets 10). ' +
      "The owner by default: SOW_OWNER, else a worker's or session's own name, " +
      'else at a terminal your git user.name. ' +
      'A claim holds for its lease after your last write. A claim on a remote (default: claims.remote of ' +
      '.sow/config.yaml) keeps every other machine from taking the task.',
    writes: true,
    mcp: {
      tool: 'task_next',
      description: 'Tasks ready to start (first 10); claim takes the first, with its description and needs.',
      listKey: 'tasks',
      // At 1,000 pending tasks the whole list is hundreds of KB an agent never reads.
      omit: ['limit'],
      defaults: { limit: '10' },
    },
    async run(ctx, { opts }) {
      const app = await import('../app/task.js');
      if (!opts.claim) {
        if (opts.agent !== undefined || opts.owner !== undefined || opts.remote !== undefined)
          throw new UsageError(
            `${opts.agent !== undefined ? '--agent' : opts.owner !== undefined ? '--owner' : '--remote'} goes with ` +
              `--claim: without it, 'sow task next' only lists the ready tasks`,
            "run 'sow task next --claim --owner <name>' to claim one",
          );
        const { formatTaskList } = await import('../cli/render.js');
        const ready = await app.nextTasks(ctx.app);
        const tasks = opts.limit !== undefined ? ready.slice(0, opts.limit) : ready;
        const more = ready.length - tasks.length;
        return {
          data: tasks,
          text: formatTaskList(tasks),
          message:
            ready.length === 0
              ? 'No task is ready to start'
              : more > 0
                ? `${more} more not shown (--limit ${opts.limit})`
                : undefined,
        };
      }
      const { parseLease } = await import('../domain/ownership.js');
      if (opts.agent !== undefined) await agentArg(opts.agent.trim());
      const remote =
        opts.remote !== undefined ? (await import('../domain/claims.js')).remoteArg(opts.remote) : undefined;
      const claim = { leaseSeconds: parseLease(opts.lease), remote, agent: opts.agent, owner: opts.owner };
      const r = await app.claimNext(ctx.app, claim);
      const where = typeof r.owner.remote === 'string' ? ` on ${shown(r.owner.remote)} and here` : '';
      const data = claimData(r, {
        ...(await app.getTask(ctx.app, r.task.id)),
        needs: await app.taskNeeds(ctx.app, r.task.id),
      });
      const { renderClaim } = await import('../cli/render.js');
      return {
        data,
        text: renderClaim(data),
        message:
          `Claimed task ${r.task.id} '${shown(r.task.name)}'${where} for ${shown(r.owner.by)} (lease ` +
          `until ${r.owner.lease_until})`,
      };
    },
  }),
  command({
    name: 'task feedback',
    description:
      'Send a task back with feedback: the next feedback/<nnn>.md of its folder, registered as a pending ' +
      'feedback input',
    args: [{ name: 'text', description: 'the findings: what to change, and why' }],
    options: [TASK_ID_OPTION],
    writes: true,
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
    args: [{ name: 'task-id', description: 'the task (or --id)', optional: true, complete: 'task-id' }],
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
    writes: true,
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
];
