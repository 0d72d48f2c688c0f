import type { Command } from 'commander';
import { cwd, respond, writeText } from './output.js';
import { UsageError } from '../domain/errors.js';
import { agentArg, taskIdArg } from './args.js';
// Only the path: user-config.ts loads its schema and YAML reader on first read, so help stays cheap.
import { userConfigExists, userConfigPath } from '../adapters/user-config.js';

/** Computed when the help is shown: the path in use (the file is never read for --help). */
const configHelp = (): string => {
  const path = userConfigPath();
  return `
Agent selection uses configuration from ${path}${userConfigExists(path) ? '' : ' (not found: the built-in defaults are used)'}
Run 'sow config init' to create a configuration file; SOW_AGENTS_<ROLE>=<executor> overrides it.
Run 'sow config validate' to check it.`;
};

const say = (line: string) => writeText(process.stderr, line);

export default function register(program: Command): void {
  const agent = program.command('agent').description('Spawn and resume agent workers, and list the agents');

  agent
    .command('list')
    .description('List the agents: what each does, what its CLI must be able to do, its prompt')
    .action(async () => {
      const { AGENTS, ORCHESTRATOR } = await import('../domain/agents.js');
      const all = [...AGENTS, ORCHESTRATOR];
      respond({
        data: all.map((a) => ({ name: a.name, description: a.description, capabilities: a.capabilities, prompt: a.template, guidance: a.guidance, scope: a.scope })),
        text: all.map((a) => `${a.name.padEnd(12)} ${a.description}\n${' '.repeat(13)}needs: ${a.capabilities}\n${' '.repeat(13)}prompt: templates/${a.template}, then 'sow ${a.guidance === 'orchestrator' ? 'project continue' : `prompt ${a.guidance}`}'`).join('\n'),
      });
    });

  agent
    .command('spawn')
    .description('Start a worker: with a task id it works on that task, without one on the project')
    .argument('<agent>', 'implementer, architect, reviewer, planner, researcher, decomposer or orchestrator')
    .argument('[task-id]', 'the task to work on')
    .option('--next', 'work on the next ready task (the one `sow task next --claim` would take), chosen atomically')
    .option('--iteration', 'a fresh worker for the next iteration of the current work phase (projects that work in iterations; never a resume)')
    .option('--prompt <text>', 'extra instructions added to the worker prompt')
    .option('-v, --verbose', 'show how the executor was chosen and the command run')
    .option('-q, --quiet', 'no progress view')
    .option('--force', 'start anyway: on a finished task, outside the executing state, over a live worker or a recorded session (those lose the task)')
    .addHelpText('after', configHelp)
    .action(async (agentName: string, taskId: string | undefined, opts: { next?: boolean; iteration?: boolean; prompt?: string; verbose?: boolean; quiet?: boolean; force?: boolean }) => {
      if (opts.next && taskId !== undefined) throw new UsageError('give a task id or --next, not both', `sow agent spawn ${agentName} --next`);
      if (opts.iteration && (taskId !== undefined || opts.next)) throw new UsageError('--iteration spawns a worker for the project\'s next iteration, not for a task', `sow agent spawn ${agentName} --iteration`);
      await agentArg(agentName);
      if (taskId !== undefined) taskIdArg(taskId, 'task id');
      const { spawnAgent } = await import('../app/agents.js');
      const r = await spawnAgent(cwd(), agentName, taskId, { ...(opts.prompt !== undefined ? { prompt: opts.prompt } : {}), verbose: opts.verbose === true, quiet: opts.quiet === true, force: opts.force === true, next: opts.next === true, iteration: opts.iteration === true, say });
      respond({ data: r, ...(r.status ? { text: r.status } : {}) });
    });

  agent
    .command('resume')
    .description('Continue a worker session with a new prompt (feedback, an answer, corrections)')
    .argument('[task-id]', 'the task whose session to resume (omit with --agent)')
    .argument('[prompt]', 'what to tell the worker')
    .option('-a, --agent <agent>', 'resume the project-level session of this agent instead of a task')
    .option('-v, --verbose', 'show how the executor was chosen and the command run')
    .option('-q, --quiet', 'no progress view')
    .option('--force', 'resume even though another worker still owns the task (it loses the task)')
    .addHelpText('after', configHelp)
    .action(async (first: string | undefined, second: string | undefined, opts: { agent?: string; verbose?: boolean; quiet?: boolean; force?: boolean }) => {
      const { resumeAgent } = await import('../app/agents.js');
      // `resume <task-id> <prompt>` or `resume --agent <agent> <prompt>`.
      let target: { kind: 'task'; id: string } | { kind: 'project'; agent: string };
      let prompt: string | undefined;
      if (opts.agent !== undefined) {
        if (second !== undefined) throw new UsageError('give either a task id or --agent, not both', "sow agent resume --agent planner \"<prompt>\"");
        await agentArg(opts.agent);
        target = { kind: 'project', agent: opts.agent };
        prompt = first;
      } else {
        if (first === undefined || second === undefined) throw new UsageError('missing task id or prompt', 'sow agent resume <task-id> "<prompt>", or sow agent resume --agent <agent> "<prompt>"');
        target = { kind: 'task', id: taskIdArg(first, 'task id') };
        prompt = second;
      }
      if (!prompt?.trim()) throw new UsageError('the prompt is empty', 'say what the worker should do next');
      const r = await resumeAgent(cwd(), target, prompt, { verbose: opts.verbose === true, quiet: opts.quiet === true, force: opts.force === true, say });
      respond({ data: r, ...(r.status ? { text: r.status } : {}) });
    });

  agent
    .command('log')
    .description("For workers: add a note to your task's log (your task and agent id come from the environment sow gave you)")
    .argument('<message...>', 'what you did, found or decided')
    .option('--action <action>', 'the kind of entry (default note; see sow log --help)')
    .option('--result <result>', 'success, error or partial (default success)')
    .option('--file <path>', 'a file the note is about (repeatable; becomes a task output)', (v: string, prev: string[]) => [...prev, v], [] as string[])
    .action(async (message: string[], opts: { action?: string; result?: string; file: string[] }) => {
      const { agentLog } = await import('../app/report.js');
      const r = await agentLog(cwd(), { message: message.join(' '), files: opts.file, ...(opts.action !== undefined ? { action: opts.action } : {}), ...(opts.result !== undefined ? { result: opts.result } : {}) });
      respond({ data: r, message: `Logged to ${r.file}` });
    });

  agent
    .command('report')
    .description('For workers: say how your work stands. On a task: in_progress, needs_review, paused or failed (sets its status); without a task: working, done, blocked or failed')
    .requiredOption('--status <status>', 'how the work stands')
    .argument('[message...]', 'why, in a sentence (goes to the log)')
    .action(async (message: string[], opts: { status: string }) => {
      const { agentReport } = await import('../app/report.js');
      const r = await agentReport(cwd(), opts.status, message.join(' '));
      respond({ data: r, message: `${r.agent_id} reported ${r.status}${r.task ? ` on task ${r.task}` : ''}` });
    });
}
