/** `sow log`: an entry in a task's log (or the project's). */
import { LOG_ACTIONS, LOG_RESULTS } from '../domain/agents.js';
import { collect, taskIdArg } from '../model/args.js';
import { command } from '../model/def.js';

export const log = command({
  name: 'log',
  examples: [
    "sow log --action modified_file --result success --file src/auth.ts 'Added the login route'",
    "sow log --project --action research --result success 'Chose JWT over sessions'",
  ],
  description: "Append an entry to the task's log (or the project's): front matter + notes; files become task outputs",
  args: [{ name: 'notes', description: 'the entry, in markdown', optional: true, variadic: true }],
  options: [
    { flags: '--agent <id>', description: 'who logs (default: $SOW_AGENT_ID)' },
    { flags: '--action <action>', description: 'what was done, e.g. modified_file, test_run', required: true },
    { flags: '--result <result>', description: LOG_RESULTS.join(', '), required: true },
    { flags: '--file <path>', description: 'a file of the entry (repeatable)', parse: collect, default: [] },
    { flags: '--files <a,b>', description: 'files, comma-separated' },
    { flags: '--task <id>', description: 'log to this task (default: $SOW_TASK_ID)', complete: 'task-id' },
    { flags: '--project', description: "log to the project's log" },
  ],
  help: `The actions: ${LOG_ACTIONS.join(', ')}.`,
  mcp: {
    tool: 'log',
    description: "Append to a task's log (or the project's); its files become task outputs.",
    defaults: { action: 'note', result: 'success' },
    omit: ['files'],
  },
  async run(ctx, { args, opts: o }) {
    const notes = (args[0] as string[] | undefined) ?? [];
    if (o.task !== undefined) taskIdArg(o.task, '--task');
    const { appendLog } = await import('../app/log.js');
    const r = await appendLog(ctx.app, {
      agent: o.agent,
      action: o.action,
      result: o.result,
      files: [...o.file, ...(o.files ? [o.files] : [])],
      task: o.task,
      project: o.project === true,
      notes: notes.join(' '),
    });
    return {
      data: r,
      message:
        `Logged ${o.action} (${o.result}) ` +
        `to ${r.file}${r.tracked.length ? `; new outputs: ${r.tracked.join(', ')}` : ''}`,
    };
  },
});
