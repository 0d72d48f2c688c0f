import type { Command } from 'commander';
import { cwd, respond } from './output.js';
import { taskIdArg } from './args.js';

const collect = (value: string, previous: string[]) => [...previous, value];

export default function register(program: Command): void {
  program
    .command('log')
    .description("Append an entry to the task's log (or the project's): front matter + notes; files become task outputs")
    .argument('[notes...]', 'markdown notes for the entry body')
    .option('--agent <id>', 'who is logging, e.g. implementer-1 (default: $SOW_AGENT_ID, else user)')
    .requiredOption('--action <action>', 'started_task, created_file, modified_file, deleted_file, implementation_attempt, test_run, refactor, debugging, research, completed_task, paused_task, started_phase, completed_phase')
    .requiredOption('--result <result>', 'success, error or partial')
    .option('--file <path>', 'a file this entry is about (repeatable)', collect, [])
    .option('--files <a,b>', 'files, separated by commas')
    .option('--task <id>', 'log to this task (default: $SOW_TASK_ID)')
    .option('--project', "log to the project's log")
    .action(async (notes: string[], opts: { agent?: string; action: string; result: string; file: string[]; files?: string; task?: string; project?: boolean }) => {
      if (opts.task !== undefined) taskIdArg(opts.task, '--task');
      const { appendLog } = await import('../app/log.js');
      const r = await appendLog(cwd(), {
        ...(opts.agent !== undefined ? { agent: opts.agent } : {}),
        action: opts.action,
        result: opts.result,
        files: [...opts.file, ...(opts.files ? [opts.files] : [])],
        ...(opts.task !== undefined ? { task: opts.task } : {}),
        project: opts.project === true,
        notes: notes.join(' '),
      });
      respond({ data: r, message: `Logged ${opts.action} (${opts.result}) to ${r.file}${r.tracked.length ? `; new outputs: ${r.tracked.join(', ')}` : ''}` });
    });
}
