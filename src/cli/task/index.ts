import { Command } from 'commander';
import { cwd, respond, taskIdOf, TASK_ID_OPTION } from '../output.js';
import { renderValue } from '../../domain/fields.js';
import { UsageError } from '../../domain/errors.js';
import { agentArg, oneOf, taskIdArg, taskIdsArg, textArg } from '../args.js';
import registerArtifacts from '../artifacts.js';
import { claimData, taskSetData } from '../../app/results.js';
import { toJson } from '../../domain/json.js';
import { shown } from '../../domain/display.js';

/** A status write that found the task so already: what it is, since when, and that nothing changed. */
function unchangedText(t: { id: string; status: string; completed_at?: string; updated_at: string }): string {
  const since = t.status === 'completed' || t.status === 'abandoned' ? t.completed_at : undefined;
  return `Task ${t.id} is already ${t.status}${since ? ` (since ${since})` : ''}; nothing changed`;
}

export default function register(program: Command): void {
  const task = program.command('task').description("Add, change and inspect the project's tasks (implementation tasks, exploration topics, …)");

  task
    .command('add')
    .description('Add a task (ids are gap-numbered: 010, 020, …)')
    .argument('<name>', 'what the task does')
    .option('-a, --agent <agent>', 'the agent role that will do it, e.g. implementer')
    .option('-d, --description <text>', 'requirements and acceptance criteria (written to description.md)')
    .option('--id <id>', 'use this id (three or more digits; 10 means 010) instead of the next free one')
    .option('--parallel', 'the task may run in parallel with others')
    .option('--depends-on <ids>', 'ids of tasks that must finish first, e.g. 010,020')
    .action(async (name: string, opts: { agent?: string; description?: string; id?: string; parallel?: boolean; dependsOn?: string }) => {
      textArg(name, 'the task name', 'say what the task does: sow task add "Add the login form"');
      const { TASK_NAME_MAX } = await import('../../domain/tasks.js');
      if (name.trim().length > TASK_NAME_MAX) throw new UsageError(`the task name has ${name.trim().length} characters, and a name has at most ${TASK_NAME_MAX}`, 'put the details in --description');
      if (opts.id !== undefined) taskIdArg(opts.id);
      if (opts.dependsOn !== undefined) taskIdsArg(opts.dependsOn, '--depends-on');
      if (opts.agent !== undefined) await agentArg(opts.agent.trim());
      const { addTask } = await import('../../app/task.js');
      const t = await addTask(cwd(), { name, ...opts });
      respond({ data: t, text: t.id, message: `Added task ${t.id} '${shown(t.name)}'` });
    });

  task
    .command('set')
    .description('Set a task field (status, name, iteration, assigned_agent, parallel, dependencies, description) or metadata')
    .option(...TASK_ID_OPTION)
    .option('--force', 'set the status even though an unfinished dependency, pending feedback, another owner or its being completed blocks it; completing, skip the declared task_complete checks (recorded)')
    .option('--owner <name>', 'act as this owner (renews its claim); default: SOW_OWNER')
    .addHelpText('after', "\nSetting status completed first runs the checks .sow/config.yaml declares for task_complete ('sow check list');\nwhen one fails the task is not completed (exit 3). Either way their runs are recorded as evidence on the task.")
    .argument('<field>')
    .argument('<value>')
    .action(async (field: string, value: string, opts: { id?: string; force?: boolean; owner?: string }) => {
      const { asksCompletion, setTaskField } = await import('../../app/task.js');
      const setOpts = { force: opts.force === true, ...(opts.owner !== undefined ? { owner: opts.owner } : {}) };
      if (!asksCompletion(field, value)) {
        const r = await setTaskField(cwd(), taskIdOf(opts), field, value, setOpts);
        respond({ data: taskSetData(r), message: r.unchanged ? unchangedText(r.task) : `Set task ${r.id} ${r.field} = ${toJson(r.value)}` });
        return;
      }
      // Completing runs the checks declared for task_complete first (sow check list).
      const { setTaskFieldChecked } = await import('../../app/checks.js');
      const { checkProgress } = await import('../check.js');
      const r = await setTaskFieldChecked(cwd(), taskIdOf(opts), field, value, { ...setOpts, onProgress: await checkProgress(process.stderr) });
      const ran = r.checks.filter((c) => !c.skipped);
      const checks = r.checks.length === 0 ? '' : ran.length ? ` (${ran.length === 1 ? 'its check passed' : `its ${ran.length} checks passed`})` : ` (its checks skipped with --force: ${r.checks.map((c) => c.name).join(', ')})`;
      respond({ data: taskSetData(r), message: r.unchanged ? unchangedText(r.task) : `Set task ${r.id} ${r.field} = ${toJson(r.value)}${checks}` });
    });

  task
    .command('get')
    .description('Print a task, or one field of it (bare, for scripts)')
    .option(...TASK_ID_OPTION)
    .argument('[field]')
    .action(async (field: string | undefined, opts: { id?: string }) => {
      const { getTask } = await import('../../app/task.js');
      const r = await getTask(cwd(), taskIdOf(opts), field);
      if (field === undefined) {
        const { emitYaml } = await import('../../adapters/yaml/emit.js');
        respond({ data: r.task, text: emitYaml(r.task).trimEnd() });
      } else {
        respond({ data: { id: r.task.id, field: r.field, value: r.value ?? null }, text: renderValue(r.value) });
      }
    });

  task
    .command('abandon')
    .description('Abandon a task (it no longer blocks review)')
    .option(...TASK_ID_OPTION)
    .option('--force', 'abandon it even though a worker or a claim still owns it, or it is completed (noted in its log)')
    .option('--owner <name>', 'act as this owner; default: SOW_OWNER')
    .action(async (opts: { id?: string; force?: boolean; owner?: string }) => {
      const { abandonTask } = await import('../../app/task.js');
      const r = await abandonTask(cwd(), taskIdOf(opts), { force: opts.force === true, ...(opts.owner !== undefined ? { owner: opts.owner } : {}) });
      respond({ data: r.task, message: r.unchanged ? unchangedText(r.task) : `Abandoned task ${r.task.id} '${shown(r.task.name)}'` });
    });

  task
    .command('list')
    .description('List the tasks')
    .option('-s, --status <status>', 'only tasks with this status')
    .action(async (opts: { status?: string }) => {
      if (opts.status !== undefined) oneOf('task status', opts.status, (await import('../../domain/schemas.js')).TASK_STATUSES, 'statuses');
      const { listTasks } = await import('../../app/task.js');
      const { formatTaskLine } = await import('../render.js');
      const paint = (await import('../colour.js')).paintFor();
      const { unattendedLines } = await import('../render.js');
      const tasks = await listTasks(cwd(), opts.status);
      const unattended = unattendedLines(tasks);
      respond({
        data: tasks,
        text: tasks.map((t) => formatTaskLine(t, paint)).join('\n'),
        ...(tasks.length === 0 ? { message: opts.status ? `No ${opts.status} tasks` : 'No tasks yet' } : unattended.length ? { message: unattended.join('\n') } : {}),
      });
    });

  task
    .command('next')
    .description('List the tasks ready to start (pending, dependencies finished, nobody on them); --claim takes the first')
    .option('--claim', 'claim the first ready task: in_progress, owned by you, and print its id')
    .option('-a, --agent <agent>', 'with --claim: the agent role that works on it')
    .option('--owner <name>', 'with --claim: who claims it (default: SOW_OWNER, a worker\'s or session\'s own name, at a terminal your git user.name)')
    .option('--lease <duration>', 'with --claim: how long the claim holds without a write from you (30m, 2h, 90s)', '30m')
    .action(async (opts: { claim?: boolean; agent?: string; owner?: string; lease: string }) => {
      const app = await import('../../app/task.js');
      if (!opts.claim) {
        if (opts.agent !== undefined || opts.owner !== undefined) throw new UsageError(`${opts.agent !== undefined ? '--agent' : '--owner'} goes with --claim: without it, 'sow task next' only lists the ready tasks`, "run 'sow task next --claim --owner <name>' to claim one");
        const { formatTaskLine } = await import('../render.js');
        const paint = (await import('../colour.js')).paintFor();
        const tasks = await app.nextTasks(cwd());
        respond({ data: tasks, text: tasks.map((t) => formatTaskLine(t, paint)).join('\n'), ...(tasks.length ? {} : { message: 'No task is ready to start' }) });
        return;
      }
      const { parseLease } = await import('../../domain/ownership.js');
      if (opts.agent !== undefined) await agentArg(opts.agent.trim());
      const r = await app.claimNext(cwd(), { leaseSeconds: parseLease(opts.lease), ...(opts.agent !== undefined ? { agent: opts.agent } : {}), ...(opts.owner !== undefined ? { owner: opts.owner } : {}) });
      respond({ data: claimData(r), text: r.task.id, message: `Claimed task ${r.task.id} '${shown(r.task.name)}' for ${shown(r.owner.by)} (lease until ${r.owner.lease_until})` });
    });

  registerArtifacts(task, 'inputs', 'task');
  registerArtifacts(task, 'outputs', 'task');
}
