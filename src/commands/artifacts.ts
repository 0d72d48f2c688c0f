/** input|output add|set|remove|show|list of a phase or a task: one definition for all twenty commands. */
import type { ArtifactHolder, Direction } from '../app/artifacts.js';
import { booleanArg, extraFlags, PHASE_OPTION, taskIdOf, textArg, TASK_ID_OPTION } from '../model/args.js';
import { command, type CommandDef, type McpExposure } from '../model/def.js';

type OwnerKind = 'phase' | 'task';

/** The commands of `<prefix> input|output`: `input` for a phase's, `task input` for a task's. */
export function artifactCommands(direction: Direction, kind: OwnerKind): CommandDef[] {
  const word = direction === 'inputs' ? 'input' : 'output';
  const prefix = kind === 'phase' ? word : `task ${word}`;
  const what = kind === 'phase' ? `phase ${direction}` : `task ${direction}`;
  const owner = kind === 'phase' ? PHASE_OPTION : TASK_ID_OPTION;
  const ownerOf = (opts: { phase?: string; id?: string }): ArtifactHolder =>
    kind === 'phase'
      ? { kind: 'phase', ...(opts.phase !== undefined ? { phase: opts.phase } : {}) }
      : { kind: 'task', id: taskIdOf(opts) };
  const index = async (raw: string) => (await import('../domain/artifacts.js')).parseIndex(raw);
  const formatArtifact = async () => (await import('../cli/render.js')).formatArtifact;
  const INDEX = { flags: '-i, --index <n>', description: 'artifact index (see list)', required: true } as const;
  const tool = (verb: string, more: Partial<McpExposure> = {}): McpExposure => ({
    tool: 'artifact',
    action: `${word} ${verb}`,
    ...more,
  });
  return [
    command({
      name: `${prefix} add`,
      description: `Add an artifact to the ${what}; extra --name value flags go to its metadata`,
      options: [
        owner,
        { flags: '-t, --type <type>', description: 'artifact type', required: true, complete: 'artifact-type' },
        {
          flags: '--path <path>',
          description: 'documents relative to .sow/project/, modified files to the repository root',
          required: true,
        },
        { flags: '--approved <bool>', description: 'true or false' },
      ],
      passThrough: { name: 'metadata', description: 'more fields, e.g. assessment: pass' },
      help:
        "Any other --name value goes to the artifact's metadata, e.g.\n" +
        '  --assessment pass|fail   (review)\n  --status pending|addressed   (feedback)\n' +
        '  --source human           (any type; metadata.a.b reaches nested keys)\n' +
        'An absolute --path inside the repository is converted.',
      mcp: tool('add', { description: "Add, set or list a phase's inputs or outputs, or a task's (id)." }),
      async run(ctx, { opts, rest }) {
        if (opts.approved !== undefined) booleanArg(opts.approved, '--approved');
        textArg(
          opts.path,
          '--path',
          `name the file: --path <path relative ` +
            `to ${kind === 'task' ? 'the repository root (modified) or .sow/project/' : '.sow/project/'}>`,
        );
        const extra = extraFlags(rest ?? []);
        const own = ownerOf(opts);
        const { addArtifact } = await import('../app/artifacts.js');
        const format = await formatArtifact();
        const r = await addArtifact(ctx.app, own, direction, {
          type: opts.type,
          path: opts.path,
          ...(opts.approved !== undefined ? { approved: opts.approved } : {}),
          extra,
        });
        return { data: r, text: format(r.index, r.artifact) };
      },
    }),
    command({
      name: `${prefix} set`,
      description: 'Set a field of an artifact: approved, path, or metadata (any other name, or metadata.a.b)',
      args: [
        { name: 'field', description: 'approved, path or a metadata name' },
        { name: 'value', description: 'its new value' },
      ],
      options: [owner, INDEX],
      mcp: tool('set'),
      async run(ctx, { args, opts }) {
        const { setArtifact } = await import('../app/artifacts.js');
        const format = await formatArtifact();
        const r = await setArtifact(
          ctx.app,
          ownerOf(opts),
          direction,
          await index(opts.index),
          args[0] as string,
          args[1] as string,
        );
        return { data: r, text: format(r.index, r.artifact) };
      },
    }),
    command({
      name: `${prefix} remove`,
      description: 'Remove an artifact (later indexes move down by one)',
      options: [owner, INDEX],
      async run(ctx, { opts }) {
        const { removeArtifact } = await import('../app/artifacts.js');
        const format = await formatArtifact();
        const r = await removeArtifact(ctx.app, ownerOf(opts), direction, await index(opts.index));
        return { data: r, message: `Removed ${format(r.index, r.artifact)}` };
      },
    }),
    command({
      name: `${prefix} show`,
      description:
        `Print the file of an artifact of the ${what}: the document to read before approving it, a log ` +
        `of evidence`,
      options: [owner, INDEX],
      writes: false,
      help:
        'Named by its index (see list), never by a path; read as every document is (inside the repository, at ' +
        'most 8 MB). With --json: the artifact, its file and its text (null when the file does not exist yet).',
      async run(ctx, { opts }) {
        const { showArtifact } = await import('../app/artifacts.js');
        const r = await showArtifact(ctx.app, ownerOf(opts), direction, await index(opts.index));
        return { data: r, text: r.text ?? '', message: r.text === null ? `${r.file} does not exist yet` : undefined };
      },
    }),
    command({
      name: `${prefix} list`,
      description: `List the ${what}`,
      options: [owner],
      writes: false,
      mcp: tool('list', { listKey: 'artifacts' }),
      async run(ctx, { opts }) {
        const { listArtifacts } = await import('../app/artifacts.js');
        const format = await formatArtifact();
        const { artifactListData } = await import('../app/results.js');
        const r = await listArtifacts(ctx.app, ownerOf(opts), direction);
        const lines = r.artifacts.map((a, i) => format(i, a));
        return {
          data: artifactListData(r.artifacts),
          // A task's inputs under a heading, as the command surface shows them.
          text: (kind === 'task' && direction === 'inputs' && lines.length ? ['Inputs:', ...lines] : lines).join('\n'),
          message: r.artifacts.length ? undefined : `No ${direction} on ${r.owner}`,
        };
      },
    }),
  ];
}
