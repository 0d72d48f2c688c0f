/**
 * `sow iter …`: the work phases of an iterative project, defined and moved through their
 * lifecycle by commands only (plan.md and progress.md are written from them, never read back
 * into them).
 */
import { PROJECT_DIR } from '../../artifacts.js';
import { DependencyCycleError, InvalidValueError, SowError, UsageError } from '../../errors.js';
import { phaseOf, withPhase } from '../../phases.js';
import type { ProjectState } from '../../schemas.js';
import { relativeInside } from '../../paths.js';
import { findCycle } from '../../tasks.js';
import type {
  TypeCommandContext,
  TypeCommandDef,
  TypeCommandGroup,
  TypeOptions,
  TypeSession,
} from '../../type-commands.js';
import { quoted } from '../../display.js';
import { ARCHIVE_ROOT, exportedState } from './export.js';
import {
  appendEntry,
  CONTEXT,
  DIR,
  domainOf,
  GUARDRAILS,
  GUARDRAILS_HEADER,
  guardrailEntry,
  PLAN,
  PROGRESS,
  PROGRESS_HEADER,
} from './documents.js';
import { iterationPrompt } from './prompt.js';
import {
  blockPhase,
  CONTEXT_WORDS,
  saysNothingLeft,
  currentPhase,
  extendPhase,
  findPhase,
  logIteration,
  replace,
  unblockPhase,
  verifyPhase,
  withWorkPhases,
  WORK_PHASE_ID,
  WorkPhaseBlockedError,
  wordCount,
  workPhasesOf,
  type WorkPhase,
} from './work-phases.js';

const str = (opts: TypeOptions, key: string): string | undefined =>
  typeof opts[key] === 'string' ? (opts[key] as string) : undefined;

/** `--max <n>` (a flag: not a number is exit 2), or the value of the field `max` (exit 1). */
function parseMax(raw: string, as: 'flag' | 'field' = 'flag'): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < 1) {
    if (as === 'field') throw new InvalidValueError('max', raw, 'a whole number ≥ 1', 'e.g. 5');
    throw new UsageError(`invalid --max '${raw}': expected a whole number ≥ 1`, 'for example --max 5');
  }
  return n;
}

/** A work phase id as typed (R1): its form is the command line's business, checked first. */
function checkPhaseId(id: string): void {
  if (!WORK_PHASE_ID.test(id))
    throw new UsageError(
      `invalid work phase id '${id}': expected an id such as R1 (a capital letter, then letters, digits, - or _)`,
      'for example: sow iter phase add R1 --title "…"',
    );
}

function parseAfter(raw: string, list: readonly WorkPhase[], self: string): string[] {
  const ids = raw.split(/[\s,]+/).filter(Boolean);
  for (const id of ids) {
    if (id === self) throw new InvalidValueError('after', raw, `phases other than ${self} itself`);
    if (!list.some((p) => p.id === id))
      throw new InvalidValueError(
        'after',
        raw,
        `ids of existing work phases (${list.map((p) => p.id).join(', ') || 'none yet'})`,
      );
  }
  return [...new Set(ids)];
}

/** The work phases with `after` for `id` must not form a cycle. */
function checkAcyclic(list: readonly WorkPhase[]): void {
  const cycle = findCycle(new Map(list.filter((p) => p.after.length).map((p) => [p.id, p.after])));
  if (cycle)
    throw new DependencyCycleError(
      cycle,
      `a work phase cannot come after itself; change what one of them comes after ('sow iter phase set ${cycle[0]} after <ids>')`,
    );
}

const STATE_HINTS: Record<string, string> = {
  DiscoverActive:
    "first the brief: fill in .sow/project/brief.md with the human, approve it ('sow output set --index 0 approved true') and run 'sow advance'",
  PlanActive:
    "approve the plan ('sow output set --index 0 approved true' once plan.md says what the human agreed) and run 'sow advance'",
  VerifyActive:
    "the work phases are finished; a failed review ('sow output add --type review --path review.md --assessment fail --phases R2') reopens the ones it names",
  DeliverActive: "the work is verified; write the outputs and run 'sow advance' to complete it",
};

async function requireState(s: TypeSession, allowed: readonly string[], doing: string): Promise<ProjectState> {
  const project = await s.project();
  const state = project.statechart.current_state;
  if (!allowed.includes(state)) {
    throw new WorkPhaseBlockedError(
      `cannot ${doing} in ${state}: it belongs to ${allowed.join(' or ')}`,
      STATE_HINTS[state] ?? "run 'sow project continue' to see the next step",
      {
        state,
        allowed: [...allowed],
      },
    );
  }
  return project;
}

/**
 * Stores changed work phases (plan.md is drawn from them as the project is written); in PlanActive
 * the plan output is recorded (once) and an approval it had is withdrawn, since the plan the
 * human approved changed.
 */
function storePlan(s: TypeSession, project: ProjectState, list: readonly WorkPhase[]): { reapprove: boolean } {
  const next = storePhases(s, project, list);
  let reapprove = false;
  if (next.statechart.current_state === 'PlanActive') {
    const plan = phaseOf(next, 'plan');
    const at = plan.outputs.findIndex((a) => a.type === 'plan' && a.path === PLAN);
    const outputs = [...plan.outputs];
    if (at < 0) outputs.push({ type: 'plan', path: PLAN, approved: false, created_at: s.now });
    else if (outputs[at]!.approved === true) {
      outputs[at] = { ...outputs[at]!, approved: false };
      reapprove = true;
    }
    s.setProject(withPhase(next, 'plan', { ...plan, outputs }));
  }
  return { reapprove };
}

const planIndex = (project: ProjectState) =>
  phaseOf(project, 'plan').outputs.findIndex((a) => a.type === 'plan' && a.path === PLAN);
const reapproveNote = (project: ProjectState) =>
  ` plan.md changed, so its approval was withdrawn: approve it again ('sow output set --phase plan --index ${planIndex(project)} approved true').`;

/** Stores the work phases; plan.md follows them as the project is written (its checkboxes follow the statuses). */
function storePhases(s: TypeSession, project: ProjectState, list: readonly WorkPhase[]): ProjectState {
  const next = withWorkPhases(project, list);
  s.setProject(next);
  return next;
}

function appendProgress(s: TypeSession, entry: string): void {
  s.writeFile(`${DIR}/${PROGRESS}`, appendEntry(s.readFile(`${DIR}/${PROGRESS}`), PROGRESS_HEADER, entry));
}

function contextWarning(s: TypeSession): string[] {
  const words = wordCount(s.readFile(`${DIR}/${CONTEXT}`) ?? '');
  return words > CONTEXT_WORDS
    ? [`${DIR}/${CONTEXT} has ${words} words; keep it under ${CONTEXT_WORDS}: every iteration reads it`]
    : [];
}

const EDITABLE = ['title', 'criteria', 'output', 'max', 'after'] as const;

/** A phase's output as given: a path inside .sow/project/, relative to it, normalised (empty: not set yet). */
function outputPath(raw: string): string {
  if (raw === '') return raw;
  const inside = relativeInside(PROJECT_DIR, raw);
  if (inside === undefined)
    throw new InvalidValueError(
      'output',
      raw,
      `a path inside ${PROJECT_DIR}/, relative to it (e.g. outputs/r1.md)`,
      "outputs live in the project's folder; name one there, e.g. --output outputs/r1.md",
    );
  return inside;
}

const phaseAdd: TypeCommandDef = {
  name: 'phase add',
  writes: true,
  description: 'Define a work phase (plan.md is rendered from the phases)',
  args: [{ name: 'id', description: 'R1, R2, …' }],
  options: [
    { flags: '--title <text>', description: 'what the phase produces', required: true },
    { flags: '--criteria <text>', description: 'measurable: when the phase is done' },
    { flags: '--output <path>', description: 'its deliverable, relative to .sow/project/ (outputs/x.md)' },
    { flags: '--max <n>', description: 'the most work iterations it may take' },
    { flags: '--after <ids>', description: 'the phases it comes after (R1,R2)' },
  ],
  help: 'Example:\n  sow iter phase add R1 --title "Find the sources" --criteria "10 sources, each summarised" --output outputs/sources.md --max 5',
  async run(ctx, [id], opts) {
    checkPhaseId(id!);
    if (str(opts, 'max') !== undefined) parseMax(str(opts, 'max')!);
    return ctx.update(async (s) => {
      const project = await requireState(s, ['PlanActive', 'ExecuteActive'], 'add a work phase');
      const list = workPhasesOf(project);
      if (list.some((p) => p.id === id))
        throw new SowError(
          'WORK_PHASE_EXISTS',
          'failed',
          `work phase ${id} exists already`,
          `change it with 'sow iter phase set ${id} <field> <value>'`,
          { phase: id },
        );
      const phase: WorkPhase = {
        id: id!,
        title: str(opts, 'title')!.trim(),
        criteria: str(opts, 'criteria')?.trim() ?? '',
        output: outputPath(str(opts, 'output')?.trim() ?? ''),
        max: str(opts, 'max') !== undefined ? parseMax(str(opts, 'max')!) : 0,
        after: str(opts, 'after') !== undefined ? parseAfter(str(opts, 'after')!, list, id!) : [],
        status: 'pending',
        iterations: 0,
        confirmations: 0,
      };
      const next = [...list, phase];
      checkAcyclic(next);
      const { reapprove } = storePlan(s, project, next);
      const missing = [!phase.criteria && 'criteria', !phase.output && 'output', !phase.max && 'max'].filter(Boolean);
      return {
        data: phase,
        text: `${phase.id}: ${phase.title}`,
        message: `Added ${phase.id} to plan.md.${missing.length ? ` Still to set before the plan can be approved: ${missing.join(', ')} ('sow iter phase set ${phase.id} <field> <value>').` : ''}${reapprove ? reapproveNote(project) : ''}`,
      };
    });
  },
};

const phaseSet: TypeCommandDef = {
  name: 'phase set',
  writes: true,
  description: `Change a field of a work phase: ${EDITABLE.join(', ')}`,
  args: [
    { name: 'id', description: 'the work phase' },
    { name: 'field', description: EDITABLE.join(', ') },
    { name: 'value', description: 'the new value' },
  ],
  async run(ctx, [id, field, value], _opts) {
    return ctx.update(async (s) => {
      const project = await requireState(s, ['PlanActive', 'ExecuteActive'], 'change a work phase');
      const list = workPhasesOf(project);
      let p = findPhase(list, id!);
      if (!(EDITABLE as readonly string[]).includes(field!)) {
        throw new InvalidValueError(
          'field',
          field!,
          EDITABLE.join(', '),
          "the status and counts follow the phase's lifecycle ('sow iter log|verify|extend|block|unblock')",
        );
      }
      if (p.status === 'done')
        throw new WorkPhaseBlockedError(
          `${p.id} is done; its definition is kept as it was`,
          "add a phase for more work ('sow iter phase add')",
          { phase: p.id },
        );
      switch (field) {
        case 'max': {
          const max = parseMax(value!, 'field');
          if (p.status !== 'pending' && max <= p.iterations)
            throw new InvalidValueError(
              'max',
              value!,
              `more than the ${p.iterations} iterations ${p.id} has used`,
              `sow iter extend ${p.id} --max ${p.iterations + 3}`,
            );
          p = extendPhase(list, p.id, max).phase;
          break;
        }
        case 'after':
          if (p.status !== 'pending')
            throw new WorkPhaseBlockedError(
              `${p.id} has started; what it comes after cannot change now`,
              "'sow iter status' shows the phases",
              { phase: p.id },
            );
          p = { ...p, after: parseAfter(value!, list, p.id) };
          break;
        default:
          if (!value!.trim()) throw new InvalidValueError(field!, value!, 'text that is not empty');
          p = { ...p, [field!]: field === 'output' ? outputPath(value!.trim()) : value!.trim() };
      }
      const next = replace(list, p);
      checkAcyclic(next);
      const { reapprove } = storePlan(s, project, next);
      return {
        data: p,
        text: `${p.id}.${field} = ${String(p[field as keyof WorkPhase])}`,
        ...(reapprove ? { message: reapproveNote(project).trim() } : {}),
      };
    });
  },
};

const phaseRemove: TypeCommandDef = {
  name: 'phase remove',
  writes: true,
  description: 'Remove a work phase while planning',
  args: [{ name: 'id', description: 'the work phase' }],
  async run(ctx, [id]) {
    return ctx.update(async (s) => {
      const project = await requireState(s, ['PlanActive'], 'remove a work phase');
      const list = workPhasesOf(project);
      const p = findPhase(list, id!);
      const dependents = list.filter((x) => x.after.includes(p.id)).map((x) => x.id);
      if (dependents.length)
        throw new SowError(
          'WORK_PHASE_NEEDED',
          'failed',
          `${dependents.join(', ')} ${dependents.length === 1 ? 'comes' : 'come'} after ${p.id}`,
          `change that first: 'sow iter phase set ${dependents[0]} after <ids>'`,
          { phase: p.id, dependents },
        );
      const { reapprove } = storePlan(
        s,
        project,
        list.filter((x) => x.id !== p.id),
      );
      return { data: p, message: `Removed ${p.id} from plan.md.${reapprove ? reapproveNote(project) : ''}` };
    });
  },
};

const log: TypeCommandDef = {
  name: 'log',
  writes: true,
  description: 'Append an iteration of a work phase to progress.md (and move the phase on)',
  args: [{ name: 'id', description: 'the work phase' }],
  options: [
    { flags: '--did <text>', description: 'what this iteration accomplished', required: true },
    { flags: '--remaining <text>', description: "what is left ('None' when nothing is)", required: true },
    { flags: '--blockers <text>', description: "what is in the way (default 'None')" },
    { flags: '--signal', description: 'the criteria are met (with --remaining None): the phase goes on to confirming' },
  ],
  help: 'Lifecycle: pending → in_progress → (--remaining None --signal) confirming → (one more iteration finding nothing) verifying → (sow iter verify --pass) done.',
  async run(ctx, [id], opts) {
    if (opts['signal'] === true && !saysNothingLeft(str(opts, 'remaining') ?? '')) {
      throw new UsageError(
        `--signal says ${id} is done, but --remaining says '${str(opts, 'remaining')}'`,
        `log what is left without --signal, or '--remaining None --signal' when nothing is`,
      );
    }
    return ctx.update(async (s) => {
      const project = await requireState(s, ['ExecuteActive'], 'log an iteration');
      const blockers = str(opts, 'blockers');
      const r = logIteration(
        workPhasesOf(project),
        id!,
        {
          did: str(opts, 'did')!,
          remaining: str(opts, 'remaining')!,
          ...(blockers !== undefined ? { blockers } : {}),
          signal: opts['signal'] === true,
        },
        s.now,
      );
      storePhases(s, project, r.list);
      appendProgress(s, r.entry);
      return {
        data: {
          phase: r.phase,
          iteration: r.iteration,
          ...(r.confirmation !== undefined ? { confirmation: r.confirmation } : {}),
        },
        text: r.outcome,
      };
    });
  },
};

const verify: TypeCommandDef = {
  name: 'verify',
  writes: true,
  description: "Record a confirmed phase's verification: --pass (done) or --fail --note (back to work)",
  args: [{ name: 'id', description: 'the work phase' }],
  options: [
    { flags: '--pass', description: 'its output meets the criteria' },
    { flags: '--fail', description: 'it does not' },
    { flags: '--note <text>', description: 'what is wrong (required with --fail)' },
  ],
  async run(ctx, [id], opts) {
    const pass = opts['pass'] === true;
    if (pass === (opts['fail'] === true))
      throw new UsageError(
        'say --pass or --fail',
        `'sow iter verify ${id} --pass', or 'sow iter verify ${id} --fail --note "<what is wrong>"'`,
      );
    if (!pass && !str(opts, 'note')?.trim())
      throw new UsageError(
        'a failed verification says what is wrong',
        `sow iter verify ${id} --fail --note "<what does not meet the criteria>"`,
      );
    return ctx.update(async (s) => {
      const project = await requireState(s, ['ExecuteActive'], 'verify a work phase');
      const r = verifyPhase(
        workPhasesOf(project),
        id!,
        pass,
        str(opts, 'note'),
        s.now,
        (output) => s.readFile(`${DIR}/${output}`) !== undefined,
      );
      storePhases(s, project, r.list);
      appendProgress(s, r.entry);
      return { data: r.phase, text: r.outcome };
    });
  },
};

const extend: TypeCommandDef = {
  name: 'extend',
  writes: true,
  description: 'Raise the maximum of iterations of a work phase (a timed-out phase goes back to work)',
  args: [{ name: 'id', description: 'the work phase' }],
  options: [{ flags: '--max <n>', description: 'the new maximum (more than the iterations used)', required: true }],
  async run(ctx, [id], opts) {
    const max = parseMax(str(opts, 'max')!);
    return ctx.update(async (s) => {
      const project = await requireState(s, ['PlanActive', 'ExecuteActive'], 'extend a work phase');
      const before = findPhase(workPhasesOf(project), id!);
      const r = extendPhase(workPhasesOf(project), id!, max);
      const { reapprove } = storePlan(s, project, r.list);
      return {
        data: r.phase,
        text: `${r.phase.id}: max ${r.phase.max}${before.status === 'timeout' ? `; its status is ${r.phase.status} again` : ''}`,
        ...(reapprove ? { message: reapproveNote(project).trim() } : {}),
      };
    });
  },
};

const block: TypeCommandDef = {
  name: 'block',
  writes: true,
  description: 'Mark a work phase blocked, with what blocks it (logged in progress.md)',
  args: [{ name: 'id', description: 'the work phase' }],
  options: [{ flags: '--note <text>', description: 'what is in the way', required: true }],
  async run(ctx, [id], opts) {
    if (!str(opts, 'note')?.trim())
      throw new UsageError('say what blocks the phase', `sow iter block ${id} --note "<what is in the way>"`);
    return ctx.update(async (s) => {
      const project = await requireState(s, ['ExecuteActive'], 'block a work phase');
      const r = blockPhase(workPhasesOf(project), id!, str(opts, 'note')!, s.now);
      storePhases(s, project, r.list);
      appendProgress(s, r.entry);
      const next = currentPhase(r.list);
      return { data: r.phase, text: `${r.phase.id} is blocked.${next ? ` Next unblocked phase: ${next.id}.` : ''}` };
    });
  },
};

const unblock: TypeCommandDef = {
  name: 'unblock',
  writes: true,
  description: 'A blocked work phase goes back to where it was',
  args: [{ name: 'id', description: 'the work phase' }],
  async run(ctx, [id]) {
    return ctx.update(async (s) => {
      const project = await requireState(s, ['ExecuteActive'], 'unblock a work phase');
      const r = unblockPhase(workPhasesOf(project), id!, s.now);
      storePhases(s, project, r.list);
      appendProgress(s, r.entry);
      return { data: r.phase, text: `${r.phase.id} is ${r.phase.status} again.` };
    });
  },
};

function statusLine(p: WorkPhase, width: number): string {
  const extras = [
    p.confirmations ? `${p.confirmations} confirmation${p.confirmations === 1 ? '' : 's'}` : '',
    p.verification ? `verification ${p.verification}` : '',
    p.note ? `note: ${p.note}` : '',
  ].filter(Boolean);
  return `${p.id.padEnd(width)}  ${p.status.padEnd(11)}  ${`${p.iterations}/${p.max || '?'}`.padEnd(5)}  ${p.title}${extras.length ? `  (${extras.join('; ')})` : ''}`;
}

const status: TypeCommandDef = {
  name: 'status',
  writes: false,
  description: 'Each work phase: status, iterations used/max, confirmations, verification',
  async run(ctx) {
    return ctx.read(async (s) => {
      const project = await s.project();
      const list = workPhasesOf(project);
      const cur = currentPhase(list);
      const words = wordCount(s.readFile(`${DIR}/${CONTEXT}`) ?? '');
      const width = Math.max(2, ...list.map((p) => p.id.length));
      const state = project.statechart.current_state;
      return {
        data: { state, current: cur?.id ?? null, phases: list, context_words: words },
        text: list.length
          ? [
              `${state}${cur ? ` — current: ${cur.id}` : ''}`,
              `${'ID'.padEnd(width)}  ${'STATUS'.padEnd(11)}  ${'ITER'.padEnd(5)}  TITLE`,
              ...list.map((p) => statusLine(p, width)),
            ].join('\n')
          : `${state} — no work phases yet ('sow iter phase add R1 --title …')`,
        warnings: contextWarning(s),
      };
    });
  },
};

const guardrailAdd: TypeCommandDef = {
  name: 'guardrail add',
  writes: true,
  description: 'Append a lesson to guardrails.md (every iteration reads it), with where it was learned',
  options: [
    { flags: '--pattern <name>', description: 'a short name for it', required: true },
    { flags: '--context <text>', description: 'when it applies', required: true },
    { flags: '--problem <text>', description: 'what went wrong', required: true },
    { flags: '--solution <text>', description: 'how to avoid it', required: true },
    { flags: '--phase <id>', description: 'the work phase it was learned in (default: the current one)' },
  ],
  async run(ctx, _args, opts) {
    return ctx.update(async (s) => {
      const project = await s.project();
      const list = workPhasesOf(project);
      const named = str(opts, 'phase');
      const p = named !== undefined ? findPhase(list, named) : currentPhase(list);
      // The phase's latest work iteration (its first, before any): the spec's "R{N} iteration {I}".
      const learned = p ? `${p.id} iteration ${Math.max(1, p.iterations)}` : project.statechart.current_state;
      const entry = guardrailEntry(
        {
          pattern: str(opts, 'pattern')!,
          context: str(opts, 'context')!,
          problem: str(opts, 'problem')!,
          solution: str(opts, 'solution')!,
        },
        learned,
      );
      s.writeFile(`${DIR}/${GUARDRAILS}`, appendEntry(s.readFile(`${DIR}/${GUARDRAILS}`), GUARDRAILS_HEADER, entry));
      return {
        data: { pattern: str(opts, 'pattern'), learned },
        message: `Added to ${DIR}/${GUARDRAILS} (learned: ${learned})`,
      };
    });
  },
};

const exportState: TypeCommandDef = {
  name: 'export',
  writes: false,
  description:
    "The project as the iterative-work format's state.json (task, slug, phase, current_phase, phases…), for other tools; a completed project from its archive",
  options: [
    {
      flags: '--name <name>',
      description: 'a completed (archived) project of this name, instead of the project on this branch',
    },
  ],
  help: 'Without --name: the project on this branch, or, when there is none, the one this branch completed (from .sow/knowledge/).',
  async run(ctx, _args, opts) {
    const name = str(opts, 'name');
    if (name === undefined) {
      try {
        return await ctx.read(async (s) => {
          const state = exportedState(await s.project(), (rel) => s.readFile(rel));
          return { data: state, text: JSON.stringify(state, null, 2) };
        });
      } catch (err) {
        // Completed here: the archive answers for it.
        if (!(err instanceof SowError) || err.code !== 'NO_PROJECT') throw err;
      }
    }
    const state = await archivedState(ctx, name);
    return { data: state, text: JSON.stringify(state, null, 2) };
  },
};

/**
 * The state.json the archive kept of a completed project: the newest one named `name`, else the
 * newest this branch completed. The index is committed, so its values are claims: only a file it
 * lists under its own folder of .sow/knowledge/iterative/ is read, and that must be a JSON object.
 */
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
  if (text === undefined) {
    throw new SowError(
      'ARCHIVED_STATE_MISSING',
      'failed',
      `${quoted(String(entry['name']))} was archived in ${dir} without its state (an older sow kept only its documents)`,
      `its documents are there; the index entry in .sow/knowledge/index.yaml lists its phases`,
      { path: dir },
    );
  }
  let state: unknown;
  try {
    state = JSON.parse(text);
  } catch {
    state = undefined;
  }
  if (typeof state !== 'object' || state === null || Array.isArray(state))
    throw new SowError(
      'ARCHIVED_STATE_INVALID',
      'state',
      `${rel}: is not a JSON object`,
      `restore it ('git checkout -- ${rel}')`,
      { file: rel },
    );
  return state as Record<string, unknown>;
}

const next: TypeCommandDef = {
  name: 'next',
  writes: false,
  description: 'Print the prompt of the next iteration of the current phase (all a zero-context worker needs)',
  async run(ctx) {
    return ctx.read(async (s) => {
      const project = await s.project();
      const prompt = iterationPrompt({ project, tasks: [] }, (rel) => s.readFile(rel));
      const cur = currentPhase(workPhasesOf(project))!;
      return { data: { phase: cur.id, status: cur.status, prompt }, text: prompt, warnings: contextWarning(s) };
    });
  },
};

export const iterCommands: TypeCommandGroup = {
  name: 'iter',
  description: 'Work phases of an iterative project: define, log iterations, confirm, verify, recover',
  commands: [
    phaseAdd,
    phaseSet,
    phaseRemove,
    log,
    verify,
    extend,
    block,
    unblock,
    status,
    next,
    guardrailAdd,
    exportState,
  ],
  subgroups: {
    phase: 'Define the work phases (plan.md is rendered from them): add, set, remove',
    guardrail: 'Lessons every iteration reads (guardrails.md): add',
  },
};
