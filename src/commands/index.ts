/** The registry: every command group, each loaded only when asked for. A new command is a file here and a line. */
import type { CommandDef, GroupDef, TopicDef } from '../model/def.js';

const group = (
  name: string,
  description: string,
  load: () => Promise<readonly CommandDef[]>,
  subgroups?: Readonly<Record<string, string>>,
): GroupDef => ({ name, description, load, ...(subgroups ? { subgroups } : {}) });
const artifacts = (direction: 'inputs' | 'outputs'): GroupDef => {
  const word = direction === 'inputs' ? 'input' : 'output';
  return {
    name: word,
    description: `Manage phase ${direction} (artifacts: type, path, approved, metadata)`,
    load: async () => (await import('./artifacts.js')).artifactCommands(direction, 'phase').commands,
  };
};
const single = (name: string, load: () => Promise<CommandDef>): GroupDef => ({
  name,
  description: '',
  load: async () => [await load()],
});

// In the order `sow --help` lists them.
export const GROUPS: readonly GroupDef[] = [
  single('init', async () => (await import('./init.js')).init),
  group(
    'project',
    'Create, inspect and remove the project on this branch',
    async () => (await import('./project.js')).commands,
  ),
  single('status', async () => (await import('./project.js')).status),
  group(
    'phase',
    'Read and set fields of a phase (default: the phase in progress)',
    async () => (await import('./phase.js')).commands,
  ),
  group(
    'task',
    "Add, change and inspect the project's tasks (implementation tasks, exploration topics, …)",
    async () => [...(await import('./task.js')).commands, ...(await import('./task-review.js')).commands],
    {
      input: 'Manage task inputs (artifacts: type, path, approved, metadata)',
      output: 'Manage task outputs (artifacts: type, path, approved, metadata)',
    },
  ),
  artifacts('inputs'),
  artifacts('outputs'),
  single('advance', async () => (await import('./advance.js')).advance),
  group(
    'agent',
    'Spawn and resume agent workers, and list the agents',
    async () => (await import('./agent.js')).commands,
  ),
  single('log', async () => (await import('./log.js')).log),
  single('cost', async () => (await import('./cost.js')).cost),
  single('prompt', async () => (await import('./prompt.js')).prompt),
  group(
    'config',
    'Your agent configuration (which agent CLI runs which role)',
    async () => (await import('./config.js')).commands,
  ),
  single('schema', async () => (await import('./schema.js')).schema),
  single('migrate', async () => (await import('./migrate.js')).migrate),
  group(
    'check',
    "Run the repository's declared checks (.sow/config.yaml) and record what they showed as evidence",
    async () => (await import('./check.js')).commands,
  ),
  group(
    'worktree',
    'Run another project beside this one: a git worktree of its branch under .sow/worktrees/',
    async () => (await import('./worktree.js')).commands,
  ),
  group(
    'issue',
    'GitHub issues of this repository (through gh), to start projects from',
    async () => (await import('./github.js')).issue,
  ),
  group('pr', "The project's pull request on GitHub (through gh)", async () => (await import('./github.js')).pr),
  group(
    'refs',
    'Shared references for agents: repositories and folders cloned once into your cache, linked as .sow/refs/<link>',
    async () => (await import('./refs.js')).commands,
  ),
  single('mcp', async () => (await import('./mcp.js')).mcp),
  single('ui', async () => (await import('./ui.js')).ui),
  group(
    'graph',
    'Draw the lifecycle or the task dependencies: text, mermaid (renders on GitHub) or graphviz dot',
    async () => (await import('./graph.js')).commands,
  ),
  single('install', async () => (await import('./install.js')).install),
  single('uninstall', async () => (await import('./install.js')).uninstall),
  group('hook', 'Hooks the agent CLIs run (installed by sow install)', async () => (await import('./install.js')).hook),
  single('merge-driver', async () => (await import('./merge-driver.js')).mergeDriver),
  single('doctor', async () => (await import('./doctor.js')).doctor),
  single('completion', async () => (await import('./completion.js')).completion),
  single('exit-codes', async () => (await import('./exit-codes.js')).exitCodes),
];

/** The help topics that are not commands, in the order `sow --help` lists them. */
export const TOPICS: readonly TopicDef[] = [
  {
    name: 'environment',
    description: 'the environment variables sow reads',
    load: async () => (await import('./topics.js')).environment,
  },
  {
    name: 'exit-codes',
    description: 'what each exit code means, and which of 1, 2 and 3 a refusal is',
    load: async () => (await import('./exit-codes.js')).exitCodes,
  },
  { name: 'json', description: 'what --json prints', load: async () => (await import('./topics.js')).json },
  {
    name: 'reference',
    description: 'every command, with its arguments and options',
    load: async () => (await import('./topics.js')).reference,
  },
];

/** Every command of sow's own groups and the project types' (help, completion and `sow mcp` need them all). */
export async function allCommands(): Promise<CommandDef[]> {
  const { typeGroups } = await import('./types.js');
  const groups = [...GROUPS, ...(await typeGroups())];
  return (await Promise.all(groups.map((g) => g.load()))).flat();
}
