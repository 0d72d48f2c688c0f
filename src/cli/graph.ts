import { Option, type Command } from 'commander';
import { cwd, respond } from './output.js';
import { choiceOf } from './args.js';

/** Text for a person at a terminal; mermaid where output goes to a file or a pipe (a README, an issue). */
const FORMAT_HELP = 'text, mermaid or dot (graphviz); default: text on a terminal, mermaid when piped or redirected';

const FORMATS = ['text', 'mermaid', 'dot'] as const;
const formatOption = () => new Option('-f, --format <format>', FORMAT_HELP).choices(FORMATS).argParser(choiceOf('graph format', FORMATS));

type Format = 'text' | 'mermaid' | 'dot';
const formatOf = (opts: { format?: Format }): Format => opts.format ?? (process.stdout.isTTY ? 'text' : 'mermaid');

export default function register(program: Command): void {
  const graph = program.command('graph').description('Draw the lifecycle or the task dependencies: text, mermaid (renders on GitHub) or graphviz dot');

  graph
    .command('lifecycle')
    .description("The project type's states and transitions, each labelled with its event and guard; in a project, its current state marked and each guard out of it met or blocked")
    .addOption(formatOption())
    .option('-t, --type <type>', "draw this project type's lifecycle, nothing marked ('sow project types' lists them); default: the project's type")
    .action(async (opts: { format?: Format; type?: string }) => {
      const { lifecycleOf } = await import('../app/graph.js');
      const { renderLifecycle } = await import('../domain/graph.js');
      const { paintFor } = await import('./colour.js');
      const g = await lifecycleOf(cwd(), opts.type);
      const note = g.current === null && opts.type === undefined
        ? `No project here: the ${g.type} lifecycle, nothing marked (pass --type for another type)`
        : undefined;
      respond({ data: g, text: renderLifecycle(g, formatOf(opts), paintFor()), ...(note ? { message: note } : {}) });
    });

  graph
    .command('tasks')
    .description("The project's tasks, each with its status, and their dependencies")
    .addOption(formatOption())
    .action(async (opts: { format?: Format }) => {
      const { tasksGraphOf } = await import('../app/graph.js');
      const { renderTasks } = await import('../domain/graph.js');
      const { paintFor } = await import('./colour.js');
      const g = await tasksGraphOf(cwd());
      if (g.nodes.length === 0) {
        respond({ data: g, message: 'No tasks yet, so there is nothing to draw; add one with \'sow task add "<name>"\'' });
        return;
      }
      respond({ data: g, text: renderTasks(g, formatOf(opts), paintFor()) });
    });
}
