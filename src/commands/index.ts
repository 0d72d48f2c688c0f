/** The registry: every command group, each loaded only when asked for. A new command is a file here and a line. */
import type { CommandDef, GroupDef, TopicDef } from '../model/def.js';

type Module = Promise<readonly CommandDef[] | { readonly commands: readonly CommandDef[] }>;
const group = (
  name: string,
  description: string,
  load: () => Module,
  subgroups?: Readonly<Record<string, string>>,
): GroupDef => ({
  name,
  description,
  load: () => load().then((m) => ('commands' in m ? m.commands : m)),
  ...(subgroups ? { subgroups } : {}),
});
const artifacts = (direction: 'inputs' | 'outputs'): GroupDef =>
  group(direction.slice(0, -1), `Manage phase ${direction} (artifacts: type, path, approved, metadata)`, async () =>
    (await import('./artifacts.js')).artifactCommands(direction, 'phase'),
  );
const single = (name: string, load: () => Promise<CommandDef>): GroupDef => group(name, '', async () => [await load()]);

const topic = (name: string, description: string, load: TopicDef['load']): TopicDef => ({
  name,
  description,
  load,
});

// In the order `sow --help` lists them.
export const GROUPS: readonly GroupDef[] = [
  single('init', async () => (await import('./init.js')).init),
  group('project', 'Create, inspect and remove the project on this branch', () => import('./project.js')),
  single('status', async () => (await import('./project.js')).status),
  group('phase', 'Read and set fields of a phase (default: the phase in progress)', () => import('./phase.js')),
  group(
    'task',
    "Add, change and inspect the project's tasks (implementation tasks, exploration topics, …)",
    () => import('./task.js'),
    {
      input: 'Manage task inputs (artifacts: type, path, approved, metadata)',
      output: 'Manage task outputs (artifacts: type, path, approved, metadata)',
    },
  ),
  artifacts('inputs'),
  artifacts('outputs'),
  single('advance', async () => (await import('./advance.js')).advance),
  group('agent', 'Spawn and resume agent workers, and list the agents', () => import('./agent.js')),
  single('log', async () => (await import('./log.js')).log),
  single('cost', async () => (await import('./cost.js')).cost),
  single('prompt', async () => (await import('./prompt.js')).prompt),
  group('config', 'Your agent configuration (which agent CLI runs which role)', () => import('./config.js')),
  single('schema', async () => (await import('./schema.js')).schema),
  single('migrate', async () => (await import('./migrate.js')).migrate),
  group(
    'check',
    "Run the repository's declared checks (.sow/config.yaml) and record what they showed as evidence",
    () => import('./check.js'),
  ),
  group(
    'worktree',
    'Run another project beside this one: a git worktree of its branch under .sow/worktrees/',
    () => import('./worktree.js'),
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
    () => import('./refs.js'),
  ),
  single('mcp', async () => (await import('./mcp.js')).mcp),
  single('ui', async () => (await import('./ui.js')).ui),
  group(
    'graph',
    'Draw the lifecycle or the task dependencies: text, mermaid (renders on GitHub) or graphviz dot',
    () => import('./graph.js'),
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
  topic('environment', 'the environment variables sow reads', async () => (await import('./topics.js')).environment),
  topic(
    'exit-codes',
    'what each exit code means, and which of 1, 2 and 3 a refusal is',
    async () => (await import('./exit-codes.js')).exitCodes,
  ),
  topic('json', 'what --json prints', async () => (await import('./topics.js')).json),
  topic(
    'reference',
    'every command, with its arguments and options',
    async () => (await import('./topics.js')).reference,
  ),
];

/** Every command of sow's own groups and the project types' (help, completion and `sow mcp` need them all). */
export async function allCommands(): Promise<CommandDef[]> {
  const { typeGroups } = await import('./types.js');
  const groups = [...GROUPS, ...(await typeGroups())];
  return (await Promise.all(groups.map((g) => g.load()))).flat();
}
