/**
 * input|output add|set|remove|list, for a phase (`sow input …`) or a task (`sow task input …`).
 * One definition for all sixteen leaf commands.
 */
import type { Command } from 'commander';
import { cwd, extraFlags, respond, taskIdOf, TASK_ID_OPTION } from './output.js';
import { booleanArg, textArg } from './args.js';
import type { Direction, Owner } from '../app/artifacts.js';

type OwnerKind = 'phase' | 'task';
interface OwnerOpts { phase?: string; id?: string }

export default function register(parent: Command, direction: Direction, kind: OwnerKind): void {
  const word = direction === 'inputs' ? 'input' : 'output';
  const what = kind === 'phase' ? `phase ${direction}` : `task ${direction}`;
  const group = parent.command(word).description(`Manage ${what} (artifacts: type, path, approved, metadata)`);
  const withOwner = (cmd: Command) =>
    kind === 'phase' ? cmd.option('-p, --phase <name>', 'the phase (default: the one in progress)') : cmd.option(...TASK_ID_OPTION);
  const ownerOf = (opts: OwnerOpts): Owner =>
    kind === 'phase' ? { kind: 'phase', ...(opts.phase !== undefined ? { phase: opts.phase } : {}) } : { kind: 'task', id: taskIdOf(opts) };
  const index = async (raw: string) => (await import('../domain/artifacts.js')).parseIndex(raw);

  withOwner(group.command('add'))
    .description(`Add an artifact to the ${what}; extra --name value flags go to its metadata`)
    .requiredOption('-t, --type <type>', 'artifact type')
    .requiredOption('--path <path>', 'documents: relative to .sow/project/; files of the code base (modified): relative to the repository root; absolute paths inside the repository are converted')
    .option('--approved <bool>', 'true or false')
    .allowUnknownOption()
    .allowExcessArguments()
    .addHelpText('after', `\nAny other --name value goes to the artifact's metadata, e.g.\n  --assessment pass|fail   (review)\n  --status pending|addressed   (feedback)\n  --source human           (any type; metadata.a.b reaches nested keys)`)
    .action(async (opts: OwnerOpts & { type: string; path: string; approved?: string }, cmd: Command) => {
      if (opts.approved !== undefined) booleanArg(opts.approved, '--approved');
      textArg(opts.path, '--path', `name the file: --path <path relative to ${kind === 'task' ? 'the repository root (modified) or .sow/project/' : '.sow/project/'}>`);
      const extra = extraFlags(cmd.args);
      const owner = ownerOf(opts);
      const { addArtifact } = await import('../app/artifacts.js');
      const { formatArtifact } = await import('./render.js');
      const r = await addArtifact(cwd(), owner, direction, {
        type: opts.type,
        path: opts.path,
        ...(opts.approved !== undefined ? { approved: opts.approved } : {}),
        extra,
      });
      respond({ data: r, text: formatArtifact(r.index, r.artifact) });
    });

  withOwner(group.command('set'))
    .description('Set a field of an artifact: approved, path, or metadata (any other name, or metadata.a.b)')
    .requiredOption('-i, --index <n>', 'artifact index (see list)')
    .argument('<field>')
    .argument('<value>')
    .action(async (field: string, value: string, opts: OwnerOpts & { index: string }) => {
      const { setArtifact } = await import('../app/artifacts.js');
      const { formatArtifact } = await import('./render.js');
      const r = await setArtifact(cwd(), ownerOf(opts), direction, await index(opts.index), field, value);
      respond({ data: r, text: formatArtifact(r.index, r.artifact) });
    });

  withOwner(group.command('remove'))
    .description('Remove an artifact (later indexes move down by one)')
    .requiredOption('-i, --index <n>', 'artifact index (see list)')
    .action(async (opts: OwnerOpts & { index: string }) => {
      const { removeArtifact } = await import('../app/artifacts.js');
      const { formatArtifact } = await import('./render.js');
      const r = await removeArtifact(cwd(), ownerOf(opts), direction, await index(opts.index));
      respond({ data: r, message: `Removed ${formatArtifact(r.index, r.artifact)}` });
    });

  withOwner(group.command('list'))
    .description(`List the ${what}`)
    .action(async (opts: OwnerOpts) => {
      const { listArtifacts } = await import('../app/artifacts.js');
      const { formatArtifact } = await import('./render.js');
      const { artifactListData } = await import('../app/results.js');
      const r = await listArtifacts(cwd(), ownerOf(opts), direction);
      respond({
        data: artifactListData(r.artifacts),
        text: r.artifacts.map((a, i) => formatArtifact(i, a)).join('\n'),
        ...(r.artifacts.length ? {} : { message: `No ${direction} on ${r.owner}` }),
      });
    });
}
