/**
 * `sow iter …`: the work phases of an iterative project, defined and moved through their
 * lifecycle by commands only (plan.md and progress.md are written from them, never read back
 * into them).
 */
import { UsageError } from '../../errors.js';
import type { TypeCommandDef, TypeCommandGroup } from '../../type-commands.js';
import { appendEntry, CONTEXT, DIR, GUARDRAILS, GUARDRAILS_HEADER, guardrailEntry } from './documents.js';
import { exportState } from './export.js';
import { extend, phaseAdd, phaseRemove, phaseSet } from './plan-commands.js';
import { iterationPrompt } from './prompt.js';
import { appendProgress, contextWarning, requireState, storePhases, str } from './session.js';
import { blockPhase, logIteration, saysNothingLeft, unblockPhase, verifyPhase } from './phase-moves.js';
import { currentPhase, findPhase, wordCount, workPhasesOf, type WorkPhase } from './work-phases.js';

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
  help:
    'Lifecycle: pending → in_progress → (--remaining None --signal) confirming → (one more iteration finding ' +
    'nothing) verifying → (sow iter verify --pass) done.',
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
  const used = `${p.iterations}/${p.max || '?'}`;
  const notes = extras.length ? `  (${extras.join('; ')})` : '';
  return `${p.id.padEnd(width)}  ${p.status.padEnd(11)}  ${used.padEnd(5)}  ${p.title}${notes}`;
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
