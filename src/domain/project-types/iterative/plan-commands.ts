/** `sow iter phase add|set|remove` and `extend`: in PlanActive a change withdraws the plan's approval. */
import { PROJECT_DIR } from '../../artifacts.js';
import { DependencyCycleError, InvalidValueError, SowError, UsageError } from '../../errors.js';
import { relativeInside } from '../../paths.js';
import { phaseOf, withPhase } from '../../phases.js';
import type { ProjectState } from '../../schemas.js';
import type { TypeCommandDef, TypeSession } from '../../type-commands.js';
import { PLAN } from './documents.js';
import { requireState, str } from './session.js';
import { extendPhase } from './phase-moves.js';
import {
  cycleOf,
  findPhase,
  replace,
  WORK_PHASE_ID,
  WorkPhaseBlockedError,
  withWorkPhases,
  type WorkPhase,
} from './work-phases.js';

/** `--max <n>` (a flag: not a number is exit 2), or the value of the field `max` (exit 1). */
function parseMax(raw: string, as: 'flag' | 'field' = 'flag'): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < 1) {
    if (as === 'field') throw new InvalidValueError('max', raw, 'a whole number ≥ 1', 'e.g. 5');
    throw new UsageError(`invalid --max '${raw}': expected a whole number ≥ 1`, 'for example --max 5');
  }
  return n;
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

// Stores the work phases (refused when they come after each other in a cycle); in PlanActive records the plan output
// (once) and withdraws its approval, since the plan the human approved changed: the note that says so, if it did.
function storePlan(s: TypeSession, project: ProjectState, list: readonly WorkPhase[]): string {
  const cycle = cycleOf(list);
  if (cycle)
    throw new DependencyCycleError(
      cycle,
      `a work phase cannot come after itself; change what one of them comes after ('sow iter phase set ${cycle[0]} ` +
        `after <ids>')`,
    );
  const next = withWorkPhases(project, list);
  s.setProject(next);
  if (next.statechart.current_state !== 'PlanActive') return '';
  const plan = phaseOf(next, 'plan');
  const at = plan.outputs.findIndex((a) => a.type === 'plan' && a.path === PLAN);
  const withdrawn = at >= 0 && plan.outputs[at]!.approved === true;
  const outputs =
    at < 0
      ? [...plan.outputs, { type: 'plan', path: PLAN, approved: false, created_at: s.now }]
      : plan.outputs.map((a, i) => (i === at && withdrawn ? { ...a, approved: false } : a));
  s.setProject(withPhase(next, 'plan', { ...plan, outputs }));
  return withdrawn
    ? ` plan.md changed, so its approval was withdrawn: approve it again ('sow output set --phase plan --index ${at} ` +
        `approved true').`
    : '';
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

export const phaseAdd: TypeCommandDef = {
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
  help:
    'Example:\n  sow iter phase add R1 --title "Find the sources" --criteria "10 sources, each summarised" ' +
    '--output outputs/sources.md --max 5',
  async run(ctx, [id], opts) {
    // The id's form is the command line's business, checked first.
    if (!WORK_PHASE_ID.test(id!))
      throw new UsageError(
        `invalid work phase id '${id}': expected an id such as R1 (a capital letter, then letters, digits, - or _)`,
        'for example: sow iter phase add R1 --title "…"',
      );
    const max = str(opts, 'max') === undefined ? 0 : parseMax(str(opts, 'max')!);
    return ctx.update(async (s) => {
      const { project, list } = await requireState(s, ['PlanActive', 'ExecuteActive'], 'add a work phase');
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
        max,
        after: str(opts, 'after') !== undefined ? parseAfter(str(opts, 'after')!, list, id!) : [],
        status: 'pending',
        iterations: 0,
        confirmations: 0,
      };
      const note = storePlan(s, project, [...list, phase]);
      const missing = [!phase.criteria && 'criteria', !phase.output && 'output', !phase.max && 'max'].filter(Boolean);
      const toSet = missing.length
        ? ` Still to set before the plan can be approved: ${missing.join(', ')} ` +
          `('sow iter phase set ${phase.id} <field> <value>').`
        : '';
      return {
        data: phase,
        text: `${phase.id}: ${phase.title}`,
        message: `Added ${phase.id} to plan.md.${toSet}${note}`,
      };
    });
  },
};

export const phaseSet: TypeCommandDef = {
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
      const { project, list } = await requireState(s, ['PlanActive', 'ExecuteActive'], 'change a work phase');
      let p = findPhase(list, id!);
      if (!(EDITABLE as readonly string[]).includes(field!))
        throw new InvalidValueError(
          'field',
          field!,
          EDITABLE.join(', '),
          "the status and counts follow the phase's lifecycle ('sow iter log|verify|extend|block|unblock')",
        );
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
      const note = storePlan(s, project, replace(list, p));
      return {
        data: p,
        text: `${p.id}.${field} = ${String(p[field as keyof WorkPhase])}`,
        ...(note ? { message: note.trim() } : {}),
      };
    });
  },
};

export const phaseRemove: TypeCommandDef = {
  name: 'phase remove',
  writes: true,
  description: 'Remove a work phase while planning',
  args: [{ name: 'id', description: 'the work phase' }],
  async run(ctx, [id]) {
    return ctx.update(async (s) => {
      const { project, list } = await requireState(s, ['PlanActive'], 'remove a work phase');
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
      const rest = list.filter((x) => x.id !== p.id);
      const note = storePlan(s, project, rest);
      return { data: p, message: `Removed ${p.id} from plan.md.${note}` };
    });
  },
};

export const extend: TypeCommandDef = {
  name: 'extend',
  writes: true,
  description: 'Raise the maximum of iterations of a work phase (a timed-out phase goes back to work)',
  args: [{ name: 'id', description: 'the work phase' }],
  options: [{ flags: '--max <n>', description: 'the new maximum (more than the iterations used)', required: true }],
  async run(ctx, [id], opts) {
    const max = parseMax(str(opts, 'max')!);
    return ctx.update(async (s) => {
      const { project, list } = await requireState(s, ['PlanActive', 'ExecuteActive'], 'extend a work phase');
      const before = findPhase(list, id!);
      const r = extendPhase(list, id!, max);
      const note = storePlan(s, project, r.list);
      return {
        data: r.phase,
        text:
          `${r.phase.id}: ` +
          `max ${r.phase.max}${before.status === 'timeout' ? `; its status is ${r.phase.status} again` : ''}`,
        ...(note ? { message: note.trim() } : {}),
      };
    });
  },
};
