/** `sow log`: an entry in a task's log (or the project's). */
import { LOG_RESULTS } from '../domain/agents.js';
import { taskIdArg } from '../cli/args.js';
import type { CommandDef } from '../cli/def.js';

const collect = (value: string, previous: unknown) => [...(previous as string[]), value];

export const log: CommandDef = {
  name: 'log',
  examples: [
    "sow log --action modified_file --result success --file src/auth.ts 'Added the login route'",
    "sow log --project --action research --result success 'Chose JWT over sessions'",
  ],
  description: "Append an entry to the task's log (or the project's): front matter + notes; files become task outputs",
  args: [{ name: 'notes', description: 'markdown notes for the entry body', optional: true, variadic: true }],
  options: [
    {
      flags: '--agent <id>',
      description: 'who is logging, e.g. implementer-1 (default: $SOW_AGENT_ID, else user)',
      complete: 'agent',
    },
    {
      flags: '--action <action>',
      description:
        'started_task, created_file, modified_file, deleted_file, implementation_attempt, test_run, refactor, debugging, research, completed_task, paused_task, started_phase, completed_phase',
      required: true,
    },
    { flags: '--result <result>', description: 'success, error or partial', required: true },
    { flags: '--file <path>', description: 'a file this entry is about (repeatable)', parse: collect, default: [] },
    { flags: '--files <a,b>', description: 'files, separated by commas' },
    { flags: '--task <id>', description: 'log to this task (default: $SOW_TASK_ID)', complete: 'task-id' },
    { flags: '--project', description: "log to the project's log" },
  ],
  writes: true,
  mcp: {
    tool: 'log',
    description: "Append to a task's log (or the project's); its files become the task's modified outputs.",
    // action and result default as `sow agent log`'s do; a wrong one is refused with the list.
    input: (z) =>
      z.strictObject({
        action: z.string().optional().describe('default note; e.g. test_run, modified_file, completed_task'),
        result: z
          .string()
          .optional()
          .describe(`${LOG_RESULTS.join(', ')} (default success)`),
        notes: z.string().optional().describe('markdown'),
        files: z.array(z.string()).optional().describe('relative to the served folder'),
        task: z.string().optional().describe('default: SOW_TASK_ID'),
        project: z.boolean().optional().describe("the project's log"),
        agent: z.string().optional().describe('default: SOW_AGENT_ID'),
      }),
    output: (z) =>
      z.looseObject({
        file: z.string().describe('the log written, relative to the repository root'),
        task: z.string().optional().describe('the task logged to'),
        agent: z.string().describe('who logged'),
        files: z.array(z.string()).describe('the files of the entry'),
        tracked: z.array(z.string()).describe("files that became the task's modified outputs by this entry"),
      }),
    async call(ctx, args) {
      const { appendLog } = await import('../app/log.js');
      return appendLog(ctx.app, {
        action: (args['action'] as string | undefined) ?? 'note',
        result: (args['result'] as string | undefined) ?? 'success',
        files: (args['files'] as string[] | undefined) ?? [],
        notes: (args['notes'] as string | undefined) ?? '',
        project: args['project'] === true,
        ...(args['task'] !== undefined ? { task: args['task'] as string } : {}),
        ...(args['agent'] !== undefined ? { agent: args['agent'] as string } : {}),
      });
    },
  },
  async run(ctx, { args, opts }) {
    const notes = (args[0] as string[] | undefined) ?? [];
    const o = opts as {
      agent?: string;
      action: string;
      result: string;
      file: string[];
      files?: string;
      task?: string;
      project?: boolean;
    };
    if (o.task !== undefined) taskIdArg(o.task, '--task');
    const { appendLog } = await import('../app/log.js');
    const r = await appendLog(ctx.app, {
      ...(o.agent !== undefined ? { agent: o.agent } : {}),
      action: o.action,
      result: o.result,
      files: [...o.file, ...(o.files ? [o.files] : [])],
      ...(o.task !== undefined ? { task: o.task } : {}),
      project: o.project === true,
      notes: notes.join(' '),
    });
    return {
      data: r,
      message: `Logged ${o.action} (${o.result}) to ${r.file}${r.tracked.length ? `; new outputs: ${r.tracked.join(', ')}` : ''}`,
    };
  },
};
