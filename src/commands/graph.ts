/** `sow graph …`: the lifecycle and the task dependencies, drawn. */
import { choiceOf } from '../model/args.js';
import { command, type CommandDef, type OptionDef } from '../model/def.js';
import { GRAPH_FORMATS, renderLifecycle, renderTasks, type GraphFormat } from '../cli/graph.js';
import { paintFor } from '../cli/colour.js';

const FORMAT = {
  flags: '-f, --format <format>',
  description: 'text, mermaid or dot (graphviz); default: text on a terminal, mermaid when piped or redirected',
  choices: GRAPH_FORMATS,
  parse: choiceOf('graph format', GRAPH_FORMATS),
} as const satisfies OptionDef;

/** Text for a person at a terminal; mermaid where output goes to a file or a pipe (a README, an issue). */
const formatOf = (opts: { format?: unknown }): GraphFormat =>
  (opts.format as GraphFormat | undefined) ?? (process.stdout.isTTY ? 'text' : 'mermaid');

export const commands: readonly CommandDef[] = [
  command({
    name: 'graph lifecycle',
    description:
      "The project type's states and transitions, each labelled with its event and guard; in a project, its " +
      'current state marked and each guard out of it met or blocked',
    options: [
      FORMAT,
      {
        flags: '-t, --type <type>',
        description:
          "draw this project type's lifecycle, nothing marked ('sow project types' lists them); default: the " +
          "project's type",
      },
    ],
    writes: false,
    async run(ctx, { opts }) {
      const type = opts.type;
      const { lifecycleOf } = await import('../app/graph.js');
      const g = await lifecycleOf(ctx.app, type);
      const note = `No project here: the ${g.type} lifecycle, nothing marked (pass --type for another type)`;
      return {
        data: g,
        text: renderLifecycle(g, formatOf(opts), paintFor()),
        message: g.current === null && type === undefined ? note : undefined,
      };
    },
  }),
  command({
    name: 'graph tasks',
    description: "The project's tasks, each with its status, and their dependencies",
    options: [FORMAT],
    writes: false,
    async run(ctx, { opts }) {
      const { tasksGraphOf } = await import('../app/graph.js');
      const g = await tasksGraphOf(ctx.app);
      if (g.nodes.length === 0)
        return {
          data: g,
          message: 'No tasks yet, so there is nothing to draw; add one with \'sow task add "<name>"\'',
        };
      return { data: g, text: renderTasks(g, formatOf(opts), paintFor()) };
    },
  }),
];
