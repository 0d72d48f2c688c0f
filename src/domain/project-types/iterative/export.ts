// The project as the iterative-work format's `state.json` (`sow iter export`), kept by the archive too so the export
// still answers once the project's folder is gone.
import { quoted } from '../../display.js';
import { SowError } from '../../errors.js';
import { isRecord } from '../../json.js';
import type { ReadDoc } from '../../project-type.js';
import type { ProjectState } from '../../schemas.js';
import type { TypeCommandContext, TypeCommandDef } from '../../type-commands.js';
import { domainOf } from './documents.js';
import { str } from './session.js';
import { currentPhase, workPhasesOf } from './work-phases.js';

/** spec 002's state.json phase: the state's name without Active (discover … deliver), else complete. */
const specPhase = (state: string) =>
  /^(Discover|Plan|Execute|Verify|Deliver)Active$/.exec(state)?.[1]?.toLowerCase() ?? 'complete';

/** Where completed projects are archived, each in a folder of its name. */
export const ARCHIVE_ROOT = '.sow/knowledge/iterative';

/** The file the archive writes beside the documents. */
export const ARCHIVED_STATE = 'state.json';

/** `project` in the format's terms; `completedAt` for the project as it completes. */
export function exportedState(project: ProjectState, readDoc: ReadDoc, completedAt?: string): Record<string, unknown> {
  const list = workPhasesOf(project);
  const cur = completedAt === undefined ? currentPhase(list) : undefined;
  return {
    task: project.description || project.name,
    slug: project.name,
    created: project.created_at,
    updated: completedAt ?? project.updated_at,
    domain: domainOf(project, readDoc) ?? null,
    phase: completedAt === undefined ? specPhase(project.statechart.current_state) : 'complete',
    current_phase: cur?.id ?? null,
    // The current phase's work iterations: the one count (confirmations are counted apart).
    current_iteration: cur ? cur.iterations : null,
    phases: Object.fromEntries(
      list.map((p) => [
        p.id,
        {
          status: p.status,
          ...(p.status !== 'pending' ? { iterations_used: p.iterations, confirmations_used: p.confirmations } : {}),
          ...(p.verification ? { verification_passed: p.verification === 'passed' } : {}),
          // Not set yet (while planning): null, not a maximum of 0.
          max_iterations: p.max > 0 ? p.max : null,
          ...(p.completed_at ? { completed_at: p.completed_at } : {}),
        },
      ]),
    ),
  };
}

export const exportState: TypeCommandDef = {
  name: 'export',
  writes: false,
  description:
    "The project as the iterative-work format's state.json (task, slug, phase, current_phase, phases…), for other " +
    'tools; a completed project from its archive',
  options: [
    {
      flags: '--name <name>',
      description: 'a completed (archived) project of this name, instead of the project on this branch',
    },
  ],
  help:
    'Without --name: the project on this branch, or, when there is none, the one this branch completed (from ' +
    '.sow/knowledge/).',
  async run(ctx, _args, opts) {
    const name = str(opts, 'name');
    let state: Record<string, unknown> | undefined;
    try {
      if (name === undefined)
        state = await ctx.read(async (s) => exportedState(await s.project(), (rel) => s.readFile(rel)));
    } catch (err) {
      // Completed here: the archive answers for it.
      if (!(err instanceof SowError) || err.code !== 'NO_PROJECT') throw err;
    }
    state ??= await archivedState(ctx, name);
    return { data: state, text: JSON.stringify(state, null, 2) };
  },
};

// The state.json archived for a project named `name`, else the newest this branch completed. The committed index is
// only a claim: only a file it lists in its own folder of the archive is read, and it must be a JSON object.
async function archivedState(ctx: TypeCommandContext, name: string | undefined): Promise<Record<string, unknown>> {
  const k = await ctx.knowledge();
  const archived = k.entries.filter(
    (e) => e['type'] === 'iterative' && typeof e['name'] === 'string' && typeof e['path'] === 'string',
  );
  // The newest wins: a name (or a branch) used again archived a later project.
  const entry = [...archived]
    .reverse()
    .find((e) => (name !== undefined ? e['name'] === name : k.branch !== undefined && e['branch'] === k.branch));
  const names = [...new Set(archived.map((e) => String(e['name'])))];
  if (!entry) {
    const listed = names.length
      ? `the archived ones: ${names.map((n) => quoted(n)).join(', ')} ('sow iter export --name <name>')`
      : 'none is archived in .sow/knowledge/';
    if (name !== undefined)
      throw new SowError(
        'ARCHIVE_NOT_FOUND',
        'failed',
        `no completed iterative project named ${quoted(name)} is archived here`,
        listed,
        { name },
      );
    throw new SowError(
      'NO_PROJECT',
      'failed',
      `there is no project on this branch, and none it completed is archived`,
      `${listed}; or start one: 'sow project new <name> --type iterative'`,
    );
  }
  const dir = String(entry['path']);
  const recorded = entry['files'];
  const files = Array.isArray(recorded) ? recorded.filter((f): f is string => typeof f === 'string') : [];
  const rel =
    dir.startsWith(`${ARCHIVE_ROOT}/`) && !dir.split('/').includes('..')
      ? files.find((f) => f.startsWith(`${dir}/`) && /^state(-\d+)?\.json$/.test(f.slice(dir.length + 1)))
      : undefined;
  const text = rel === undefined ? undefined : k.readFile(rel);
  if (text === undefined)
    throw new SowError(
      'ARCHIVED_STATE_MISSING',
      'failed',
      `${quoted(String(entry['name']))} was archived in ${dir} without its state (an older sow kept only its ` +
        `documents)`,
      `its documents are there; the index entry in .sow/knowledge/index.yaml lists its phases`,
      { path: dir },
    );
  let state: unknown;
  try {
    state = JSON.parse(text);
  } catch {} // not JSON: refused as not an object
  if (!isRecord(state))
    throw new SowError(
      'ARCHIVED_STATE_INVALID',
      'state',
      `${rel}: is not a JSON object`,
      `restore it ('git checkout -- ${rel}')`,
      { file: rel },
    );
  return state;
}
