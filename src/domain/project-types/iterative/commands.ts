// `sow iter …`: the only way work phases change; plan.md and progress.md are written, never read back.
import { UsageError } from '../../errors.js';
import type { TypeCommandContext, TypeCommandDef, TypeCommandGroup, TypeSession } from '../../type-commands.js';
import { appendEntry, CONTEXT, DIR, GUARDRAILS, guardrailEntry, PROGRESS, type Guardrail } from './documents.js';
import { exportState } from './export.js';
import { extend, phaseAdd, phaseRemove, phaseSet } from './plan-commands.js';
import { iterationPrompt } from './prompt.js';
import { contextWarning, requireState, str } from './session.js';
import {
  blockPhase,
  checkBlockNote,
  checkFailNote,
  checkSignal,
  logIteration,
  unblockPhase,
  verifyPhase,
} from './phase-moves.js';
import { currentPhase, findPhase, withWorkPhases, wordCount, workPhasesOf, type WorkPhase } from './work-phases.js';

/** A move of a work phase, in ExecuteActive only: the phases stored, the move's entry appended to progress.md. */
function move<R extends { list: WorkPhase[]; entry: string }>(
  ctx: TypeCommandContext,
  doing: string,
  fn: (list: WorkPhase[], s: TypeSession) => R,
): Promise<R> {
  return ctx.update(async (s) => {
    const { project, list } = await requireState(s, ['ExecuteActive'], doing);
    const r = fn(list, s);
    // plan.md follows the phases as the project is written (its checkboxes follow the statuses).
    s.setProject(withWorkPhases(project, r.list));
    appendTo(s, PROGRESS, r.entry);
    return r;
  });
}

/** Appends an entry to a log of the project (progress.md, guardrails.md): earlier entries are never rewritten. */
const appendTo = (s: TypeSession, file: string, entry: string) =>
  s.writeFile(`${DIR}/${file}`, appendEntry(s.readFile(`${DIR}/${file}`), file, entry));

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
    const input = {
      did: str(opts, 'did')!,
      remaining: str(opts, 'remaining')!,
      blockers: str(opts, 'blockers'),
      signal: opts['signal'] === true,
    };
    checkSignal(id!, input);
    const r = await move(ctx, 'log an iteration', (list, s) => logIteration(list, id!, input, s.now));
    const confirmation = r.confirmation !== undefined ? { confirmation: r.confirmation } : {};
    return { data: { phase: r.phase, iteration: r.iteration, ...confirmation }, text: r.outcome };
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
    checkFailNote(id!, pass, str(opts, 'note'));
    const r = await move(ctx, 'verify a work phase', (list, s) =>
      verifyPhase(list, id!, pass, str(opts, 'note'), s.now, (output) => s.readFile(`${DIR}/${output}`) !== undefined),
    );
    return { data: r.phase, text: r.outcome };
  },
};

const block: TypeCommandDef = {
  name: 'block',
  writes: true,
  description: 'Mark a work phase blocked, with what blocks it (logged in progress.md)',
  args: [{ name: 'id', description: 'the work phase' }],
  options: [{ flags: '--note <text>', description: 'what is in the way', required: true }],
  async run(ctx, [id], opts) {
    checkBlockNote(id!, str(opts, 'note'));
    const r = await move(ctx, 'block a work phase', (list, s) => blockPhase(list, id!, str(opts, 'note')!, s.now));
    const next = currentPhase(r.list);
    return { data: r.phase, text: `${r.phase.id} is blocked.${next ? ` Next unblocked phase: ${next.id}.` : ''}` };
  },
};

const unblock: TypeCommandDef = {
  name: 'unblock',
  writes: true,
  description: 'A blocked work phase goes back to where it was',
  args: [{ name: 'id', description: 'the work phase' }],
  async run(ctx, [id]) {
    const r = await move(ctx, 'unblock a work phase', (list, s) => unblockPhase(list, id!, s.now));
    return { data: r.phase, text: `${r.phase.id} is ${r.phase.status} again.` };
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
      // The four are required options: commander gives each its text.
      const entry = guardrailEntry(opts as Guardrail, learned);
      appendTo(s, GUARDRAILS, entry);
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
