import type { Command } from 'commander';
import { cwd, respond } from './output.js';
import { UsageError } from '../domain/errors.js';

const CONFIG_HELP = `
Agent selection uses your configuration (run 'sow config path' to see where it is).
Run 'sow config init' to create a configuration file; SOW_AGENTS_<ROLE>=<executor> overrides it.`;

const say = (line: string) => process.stderr.write(`${line}\n`);

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
    .option('--prompt <text>', 'extra instructions added to the worker prompt')
    .option('-v, --verbose', 'show how the executor was chosen and the command run')
    .option('-q, --quiet', 'no progress view')
    .option('--force', 'start a new session even if one is recorded (the old one is forgotten)')
    .addHelpText('after', CONFIG_HELP)
    .action(async (agentName: string, taskId: string | undefined, opts: { prompt?: string; verbose?: boolean; quiet?: boolean; force?: boolean }) => {
      const { spawnAgent } = await import('../app/agents.js');
      const r = await spawnAgent(cwd(), agentName, taskId, { ...(opts.prompt !== undefined ? { prompt: opts.prompt } : {}), verbose: opts.verbose === true, quiet: opts.quiet === true, force: opts.force === true, say });
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
    .addHelpText('after', CONFIG_HELP)
    .action(async (first: string | undefined, second: string | undefined, opts: { agent?: string; verbose?: boolean; quiet?: boolean }) => {
      const { resumeAgent } = await import('../app/agents.js');
      // `resume <task-id> <prompt>` or `resume --agent <agent> <prompt>`.
      let target: { kind: 'task'; id: string } | { kind: 'project'; agent: string };
      let prompt: string | undefined;
      if (opts.agent !== undefined) {
        if (second !== undefined) throw new UsageError('give either a task id or --agent, not both', "sow agent resume --agent planner \"<prompt>\"");
        target = { kind: 'project', agent: opts.agent };
        prompt = first;
      } else {
        if (first === undefined || second === undefined) throw new UsageError('missing task id or prompt', 'sow agent resume <task-id> "<prompt>", or sow agent resume --agent <agent> "<prompt>"');
        target = { kind: 'task', id: first };
        prompt = second;
      }
      if (!prompt?.trim()) throw new UsageError('the prompt is empty', 'say what the worker should do next');
      const r = await resumeAgent(cwd(), target, prompt, { verbose: opts.verbose === true, quiet: opts.quiet === true, say });
      respond({ data: r, ...(r.status ? { text: r.status } : {}) });
    });
}
