/**
 * input|output add|set|remove|show|list, for a phase (`sow input …`) or a task (`sow task input …`):
 * one definition for all twenty commands. The `artifact` tool of `sow mcp` does add, set and list
 * for both, and is declared here, on `input add`.
 */
import type { ArtifactHolder, Direction } from '../app/artifacts.js';
import { booleanArg, textArg } from '../cli/args.js';
import { extraFlags, taskIdOf, TASK_ID_OPTION } from '../cli/output.js';
import { UsageError } from '../domain/errors.js';
import type { CommandContext, CommandDef, McpExposure, OptionDef } from '../cli/def.js';

type OwnerKind = 'phase' | 'task';
interface OwnerOpts {
  phase?: string;
  id?: string;
}

/** Which arguments each action of the tool takes, besides action, direction, task and phase. */
const ARTIFACT_ARGS = {
  add: { needs: ['type', 'path'], takes: ['approved', 'metadata'] },
  set: { needs: ['index', 'field', 'value'], takes: [] },
  list: { needs: [], takes: [] },
} as const;
const ARTIFACT_OWN_ARGS = ['type', 'path', 'approved', 'metadata', 'index', 'field', 'value'] as const;
const word = (v: unknown): string => String(v);

const artifactTool: McpExposure = {
  tool: 'artifact',
  listKey: 'artifacts',
  description:
    "Add, set or list a phase's or task's inputs or outputs (documents from .sow/project/, modified files from the root).",
  input: (z) => {
    const scalar = z.union([z.string(), z.number(), z.boolean()]);
    return z.strictObject({
      action: z.enum(['add', 'set', 'list']).describe('add: type, path; set: index, field, value'),
      direction: z.enum(['input', 'output']).describe('inputs or outputs'),
      task: z.string().optional().describe("e.g. 010 (default: a phase's)"),
      phase: z.string().optional().describe('default: the current one'),
      type: z.string().optional().describe('add: e.g. review, modified'),
      path: z.string().optional().describe('add'),
      approved: z.boolean().optional().describe('add'),
      metadata: z.record(z.string(), scalar).optional().describe('add'),
      index: z.number().optional().describe('set: as list shows it'),
      field: z.string().optional().describe('set: approved, path or a metadata name'),
      value: scalar.optional().describe('set'),
    });
  },
  output: (z) => {
    const artifact = z.looseObject({ type: z.string(), path: z.string(), approved: z.boolean() });
    return z.looseObject({
      index: z.number().optional().describe('add, set: the artifact index'),
      artifact: artifact.optional().describe('add, set: the artifact as it is now'),
      artifacts: z
        .array(artifact.extend({ index: z.number() }))
        .optional()
        .describe('list: each artifact with its index'),
    });
  },
  async call(ctx, args) {
    const action = args['action'] as keyof typeof ARTIFACT_ARGS;
    const wanted = ARTIFACT_ARGS[action];
    const missing = wanted.needs.filter((k) => args[k] === undefined);
    if (missing.length)
      throw new UsageError(
        `artifact ${action} needs ${missing.join(' and ')}`,
        `pass ${missing.join(', ')} (see the artifact tool's input schema)`,
      );
    const extra = ARTIFACT_OWN_ARGS.filter(
      (k) =>
        args[k] !== undefined &&
        !(wanted.needs as readonly string[]).includes(k) &&
        !(wanted.takes as readonly string[]).includes(k),
    );
    if (extra.length)
      throw new UsageError(
        `artifact ${action} does not take ${extra.join(', ')}`,
        `leave ${extra.join(', ')} out, or use the action they go with (add: type, path, approved, metadata; set: index, field, value)`,
      );
    if (args['task'] !== undefined && args['phase'] !== undefined)
      throw new UsageError(
        'task and phase exclude each other',
        "name the task for a task's artifacts, or the phase for a phase's",
      );
    const owner: ArtifactHolder =
      args['task'] !== undefined
        ? { kind: 'task', id: args['task'] as string }
        : { kind: 'phase', ...(args['phase'] !== undefined ? { phase: args['phase'] as string } : {}) };
    const direction: Direction = args['direction'] === 'input' ? 'inputs' : 'outputs';
    const app = await import('../app/artifacts.js');
    switch (action) {
      case 'add': {
        // As the command line's extra --name value flags: no prototype, so '__proto__' arrives as a name.
        const flags = Object.create(null) as Record<string, string>;
        for (const [k, v] of Object.entries((args['metadata'] as Record<string, unknown> | undefined) ?? {}))
          flags[k] = word(v);
        return app.addArtifact(ctx.app, owner, direction, {
          type: args['type'] as string,
          path: args['path'] as string,
          ...(args['approved'] !== undefined ? { approved: word(args['approved']) } : {}),
          extra: flags,
        });
      }
      case 'set': {
        const { parseIndex } = await import('../domain/artifacts.js');
        return app.setArtifact(
          ctx.app,
          owner,
          direction,
          parseIndex(word(args['index'])),
          args['field'] as string,
          word(args['value']),
        );
      }
      case 'list': {
        const { artifactListData } = await import('../app/results.js');
        return artifactListData((await app.listArtifacts(ctx.app, owner, direction)).artifacts);
      }
    }
  },
};

/** The commands of `<prefix> input|output`: `input` for a phase's, `task input` for a task's. */
export function artifactCommands(
  direction: Direction,
  kind: OwnerKind,
): { name: string; description: string; commands: CommandDef[] } {
  const word = direction === 'inputs' ? 'input' : 'output';
  const prefix = kind === 'phase' ? word : `task ${word}`;
  const what = kind === 'phase' ? `phase ${direction}` : `task ${direction}`;
  const owner: OptionDef =
    kind === 'phase'
      ? { flags: '-p, --phase <name>', description: 'the phase (default: the one in progress)', complete: 'phase' }
      : { flags: TASK_ID_OPTION[0], description: TASK_ID_OPTION[1], complete: 'task-id' };
  const ownerOf = (opts: OwnerOpts): ArtifactHolder =>
    kind === 'phase'
      ? { kind: 'phase', ...(opts.phase !== undefined ? { phase: opts.phase } : {}) }
      : { kind: 'task', id: taskIdOf(opts) };
  const index = async (raw: string) => (await import('../domain/artifacts.js')).parseIndex(raw);
  const formatArtifact = async () => (await import('../cli/render.js')).formatArtifact;
  const INDEX: OptionDef = { flags: '-i, --index <n>', description: 'artifact index (see list)', required: true };
  const commands: CommandDef[] = [
    {
      name: `${prefix} add`,
      description: `Add an artifact to the ${what}; extra --name value flags go to its metadata`,
      options: [
        owner,
        { flags: '-t, --type <type>', description: 'artifact type', required: true, complete: 'artifact-type' },
        {
          flags: '--path <path>',
          description:
            'documents: relative to .sow/project/; files of the code base (modified): relative to the repository root; absolute paths inside the repository are converted',
          required: true,
        },
        { flags: '--approved <bool>', description: 'true or false' },
      ],
      passThrough: true,
      help: `Any other --name value goes to the artifact's metadata, e.g.\n  --assessment pass|fail   (review)\n  --status pending|addressed   (feedback)\n  --source human           (any type; metadata.a.b reaches nested keys)`,
      writes: true,
      ...(kind === 'phase' && direction === 'inputs' ? { mcp: artifactTool } : {}),
      async run(ctx: CommandContext, { opts: o, rest }) {
        const opts = o as unknown as OwnerOpts & { type: string; path: string; approved?: string };
        if (opts.approved !== undefined) booleanArg(opts.approved, '--approved');
        textArg(
          opts.path,
          '--path',
          `name the file: --path <path relative to ${kind === 'task' ? 'the repository root (modified) or .sow/project/' : '.sow/project/'}>`,
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
    },
    {
      name: `${prefix} set`,
      description: 'Set a field of an artifact: approved, path, or metadata (any other name, or metadata.a.b)',
      args: [{ name: 'field' }, { name: 'value' }],
      options: [owner, INDEX],
      writes: true,
      async run(ctx, { args, opts }) {
        const { setArtifact } = await import('../app/artifacts.js');
        const format = await formatArtifact();
        const r = await setArtifact(
          ctx.app,
          ownerOf(opts),
          direction,
          await index(opts['index'] as string),
          args[0] as string,
          args[1] as string,
        );
        return { data: r, text: format(r.index, r.artifact) };
      },
    },
    {
      name: `${prefix} remove`,
      description: 'Remove an artifact (later indexes move down by one)',
      options: [owner, INDEX],
      writes: true,
      async run(ctx, { opts }) {
        const { removeArtifact } = await import('../app/artifacts.js');
        const format = await formatArtifact();
        const r = await removeArtifact(ctx.app, ownerOf(opts), direction, await index(opts['index'] as string));
        return { data: r, message: `Removed ${format(r.index, r.artifact)}` };
      },
    },
    {
      name: `${prefix} show`,
      description: `Print the file of an artifact of the ${what}: the document to read before approving it, a log of evidence`,
      options: [owner, INDEX],
      writes: false,
      help: 'Named by its index (see list), never by a path; read as every document is (inside the repository, at most 8 MB). With --json: the artifact, its file and its text (null when the file does not exist yet).',
      async run(ctx, { opts }) {
        const { showArtifact } = await import('../app/documents.js');
        const r = await showArtifact(ctx.app, ownerOf(opts), direction, await index(opts['index'] as string));
        return { data: r, text: r.text ?? '', ...(r.text === null ? { message: `${r.file} does not exist yet` } : {}) };
      },
    },
    {
      name: `${prefix} list`,
      description: `List the ${what}`,
      options: [owner],
      writes: false,
      async run(ctx, { opts }) {
        const { listArtifacts } = await import('../app/artifacts.js');
        const format = await formatArtifact();
        const { artifactListData } = await import('../app/results.js');
        const r = await listArtifacts(ctx.app, ownerOf(opts), direction);
        const lines = r.artifacts.map((a, i) => format(i, a));
        return {
          data: artifactListData(r.artifacts),
          // A task's inputs under their heading, as the command surface shows them (its feedback sits among references).
          text: (kind === 'task' && direction === 'inputs' && lines.length ? ['Inputs:', ...lines] : lines).join('\n'),
          ...(r.artifacts.length ? {} : { message: `No ${direction} on ${r.owner}` }),
        };
      },
    },
  ];
  return { name: prefix, description: `Manage ${what} (artifacts: type, path, approved, metadata)`, commands };
}
