import { Command } from 'commander';
import { cwd, respond, taskIdOf, TASK_ID_OPTION } from '../output.js';
import { renderValue } from '../../domain/fields.js';
import registerArtifacts from '../artifacts.js';

export default function register(program: Command): void {
  const task = program.command('task').description('Add, change and inspect implementation tasks');

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
      const { addTask } = await import('../../app/task.js');
      const t = await addTask(cwd(), { name, ...opts });
      respond({ data: t, text: t.id, message: `Added task ${t.id} '${t.name}'` });
    });

  task
    .command('set')
    .description('Set a task field (status, name, iteration, assigned_agent, parallel, dependencies, description) or metadata')
    .option(...TASK_ID_OPTION)
    .option('--force', 'set the status even though an unfinished dependency or pending feedback blocks it')
    .argument('<field>')
    .argument('<value>')
    .action(async (field: string, value: string, opts: { id?: string; force?: boolean }) => {
      const { setTaskField } = await import('../../app/task.js');
      const r = await setTaskField(cwd(), taskIdOf(opts), field, value, { force: opts.force === true });
      respond({ data: { id: r.id, field: r.field, value: r.value }, message: `Set task ${r.id} ${r.field} = ${JSON.stringify(r.value)}` });
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
    .action(async (opts: { id?: string }) => {
      const { abandonTask } = await import('../../app/task.js');
      const t = await abandonTask(cwd(), taskIdOf(opts));
      respond({ data: t, message: `Abandoned task ${t.id} '${t.name}'` });
    });

  task
    .command('list')
    .description('List the tasks')
    .option('-s, --status <status>', 'only tasks with this status')
    .action(async (opts: { status?: string }) => {
      const { listTasks } = await import('../../app/task.js');
      const { formatTaskLine } = await import('../render.js');
      const tasks = await listTasks(cwd(), opts.status);
      respond({ data: tasks, text: tasks.map(formatTaskLine).join('\n'), ...(tasks.length ? {} : { message: opts.status ? `No ${opts.status} tasks` : 'No tasks yet' }) });
    });

  registerArtifacts(task, 'inputs', 'task');
  registerArtifacts(task, 'outputs', 'task');
}
