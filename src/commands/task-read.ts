/** `sow task get`, `task list` and `task next`: the task reads, apart from the writes so that the executable can run
 * them from a pack without the writes' code (scripts/build.mjs). */
import { agentArg, oneOf, taskIdOf } from '../model/args.js';
import { TASK_ID_OPTION, WATCH_OPTION } from '../model/args.js';
import { shown } from '../domain/display.js';
import { UsageError } from '../domain/errors.js';
import { renderValue } from '../cli/value.js';
import { paintFor } from '../cli/colour.js';
import { claimData, taskData } from '../app/results.js';
import { nearMiss } from '../domain/suggest.js';
import { command, type CommandDef } from '../model/def.js';

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

export const taskGet = command({
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
});

export const taskList = command({
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
});

export const taskNext = command({
  name: 'task next',
  description:
    'List the tasks ready to start (pending, dependencies finished, nobody on them); --claim takes the first',
  options: [
    { flags: '--claim', description: 'claim the first (in_progress, yours)' },
    { flags: '-a, --agent <agent>', description: 'the agent role' },
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
    const remote = opts.remote !== undefined ? (await import('../domain/claims.js')).remoteArg(opts.remote) : undefined;
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
});

/** The task group as the read pack holds it. */
export const commands: readonly CommandDef[] = [taskGet, taskList, taskNext];
