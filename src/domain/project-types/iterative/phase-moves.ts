// The moves of a work phase: each takes the list and gives the changed list, the phase and its progress.md entry; a
// move the phase's status does not allow is refused with the way forward.
import { PROJECT_DIR } from '../../artifacts.js';
import { errorClass, SowError, UsageError } from '../../errors.js';
import {
  findPhase,
  progressEntry,
  replace,
  settle,
  waitingFor,
  WorkPhaseBlockedError,
  type WorkPhase,
  type WorkStatus,
} from './work-phases.js';

/** A verification that would pass a phase whose output file was never written (exit 3). */
export class WorkPhaseOutputMissingError extends errorClass('WORK_PHASE_OUTPUT_MISSING', 'blocked', (p: WorkPhase) => {
  const file = `${PROJECT_DIR}/${p.output}`;
  return [
    p.output ? `cannot pass ${p.id}: its output ${file} does not exist` : `cannot pass ${p.id}: it names no output`,
    p.output
      ? `write ${file} (what the criteria are checked against), then 'sow iter verify ${p.id} --pass'; if the ` +
        `output is another file, 'sow iter phase set ${p.id} output <path>'`
      : `name it: 'sow iter phase set ${p.id} output outputs/<file>.md', write it, then 'sow iter ` +
        `verify ${p.id} --pass'`,
    { phase: p.id, output: p.output ? file : null },
  ];
}) {}

const NONE = /^(none|nothing|n\/a|-)\.?$/i;
export const saysNothingLeft = (remaining: string) => NONE.test(remaining.trim());

/** `--signal` says the criteria are met: only with nothing remaining (a usage error, checked before the state). */
export function checkSignal(id: string, { signal, remaining }: Pick<LogInput, 'signal' | 'remaining'>): void {
  if (signal && !saysNothingLeft(remaining))
    throw new UsageError(
      `--signal says ${id} is done, but --remaining says '${remaining}'`,
      `log what is left without --signal, or '--remaining None --signal' when nothing is`,
    );
}

export function checkFailNote(id: string, pass: boolean, note: string | undefined): void {
  if (!pass && !note?.trim())
    throw new UsageError(
      'a failed verification says what is wrong',
      `sow iter verify ${id} --fail --note "<what does not meet the criteria>"`,
    );
}

export function checkBlockNote(id: string, note: string | undefined): void {
  if (!note?.trim())
    throw new UsageError('say what blocks the phase', `sow iter block ${id} --note "<what is in the way>"`);
}

type LogInput = { did: string; remaining: string; blockers?: string; signal: boolean };

/** A move's result: the changed list with the phase settled in it, the phase as moved, and what else it says. */
function moved<T extends object>(list: readonly WorkPhase[], p: WorkPhase, more: T) {
  const phase = settle(p);
  return { list: replace(list, phase), phase, ...more };
}

/** Refuses a move on a phase whose status does not allow it, saying what does. */
function refuseFor(p: WorkPhase, doing: string): never {
  const why: Record<WorkStatus, [string, string]> = {
    pending: [`${p.id} has not started`, `log its first iteration: 'sow iter log ${p.id} --did … --remaining …'`],
    in_progress: [
      `${p.id} is in progress`,
      `log iterations until nothing remains: 'sow iter log ${p.id} --did … --remaining None --signal'`,
    ],
    confirming: [
      `${p.id} is confirming`,
      `run one more iteration that checks nothing is left: 'sow iter log ${p.id} --did … --remaining None'`,
    ],
    verifying: [
      `${p.id} is verifying`,
      `review its output against the criteria: 'sow iter verify ${p.id} --pass' or 'sow iter verify ${p.id} --fail ` +
        `--note "<what is wrong>"'`,
    ],
    done: [`${p.id} is done`, "more work needs a new phase ('sow iter phase add'), or a failed review that reopens it"],
    blocked: [
      `${p.id} is blocked${p.note ? ` (${p.note})` : ''}`,
      `resolve the blocker, then 'sow iter unblock ${p.id}'`,
    ],
    timeout: [
      `${p.id} used its ${p.max} iterations without finishing (timeout)`,
      `raise the maximum ('sow iter extend ${p.id} --max ${p.max + 3}'), simplify its criteria ('sow iter phase ` +
        `set ${p.id} criteria …'), or step in yourself`,
    ],
  };
  const [message, hint] = why[p.status];
  throw new WorkPhaseBlockedError(`cannot ${doing}: ${message}`, hint, { phase: p.id, status: p.status });
}

/** Appends an iteration to the phase: the lifecycle move it makes, and the progress.md entry. */
export function logIteration(list: readonly WorkPhase[], id: string, input: LogInput, now: string) {
  let p = findPhase(list, id);
  checkSignal(id, input);
  if (p.status === 'pending') {
    const waiting = waitingFor(list, p);
    if (waiting.length)
      throw new WorkPhaseBlockedError(
        `cannot start ${id}: it comes after ${waiting.join(', ')}, ` +
          `which ${waiting.length === 1 ? 'is' : 'are'} not done`,
        `work on ${waiting[0]} first ('sow iter next' names the phase to work on)`,
        { phase: id, waiting },
      );
    p = { ...p, status: 'in_progress', started_at: p.started_at ?? now };
  }
  if (p.status !== 'in_progress' && p.status !== 'confirming') refuseFor(p, `log an iteration of ${id}`);
  let outcome: string;
  let heading: string;
  let confirmation: number | undefined;
  const more: Record<string, string> = {};
  if (p.status === 'in_progress') {
    p = { ...p, iterations: p.iterations + 1 };
    heading = `Iteration ${p.iterations}`;
    if (saysNothingLeft(input.remaining) && input.signal) {
      p = { ...p, status: 'confirming' };
      outcome =
        `${id} says it is done after iteration ${p.iterations} of ${p.max}: it is confirming. Run its ` +
        `confirmation, one more iteration that checks the criteria afresh and finds nothing left (it does not ` +
        `count against the maximum).`;
    } else if (p.iterations >= p.max) {
      outcome =
        `${id} used its ${p.max} iterations without finishing: it timed out. Raise the maximum ('sow iter ` +
        `extend ${id} --max ${p.max + 3}'), simplify its criteria, or step in.`;
    } else if (saysNothingLeft(input.remaining)) {
      outcome =
        `${id}: iteration ${p.iterations} of ${p.max} logged; nothing remains, but without --signal the ` +
        `phase stays in progress (log the signal when the criteria are met).`;
    } else {
      outcome = `${id}: iteration ${p.iterations} of ${p.max} logged; in progress.`;
    }
  } else {
    // The N+1 confirmation: it finds nothing left, or sends the phase back to work.
    p = { ...p, confirmations: p.confirmations + 1 };
    confirmation = p.confirmations;
    heading = `Confirmation ${p.confirmations}`;
    if (saysNothingLeft(input.remaining)) {
      p = { ...p, status: 'verifying' };
      more['Confirmation'] = 'nothing left';
      outcome =
        `${id} is confirmed: it is verifying. Review its output against the criteria: 'sow iter verify ${id} ` +
        `--pass' or '--fail --note …'.`;
    } else {
      p = { ...p, status: 'in_progress' };
      more['Confirmation'] = 'found more work';
      outcome =
        `${id}'s confirmation found more to do: it is in progress again.` +
        (p.iterations >= p.max
          ? ` It has used its ${p.max} iterations: it has timed out ('sow iter extend ${id} --max ${p.max + 3}').`
          : ` Next: iteration ${p.iterations + 1} of ${p.max}.`);
    }
  }
  // Back at work with its maximum used up: settle() makes it timeout.
  if (p.status === 'in_progress' && p.iterations >= p.max)
    more['Status'] = `timeout (${p.iterations} of ${p.max} iterations used)`;
  const entry = progressEntry(id, heading, now, {
    Did: oneLine(input.did),
    Remaining: oneLine(input.remaining),
    Blockers: oneLine(input.blockers ?? 'None'),
    ...(input.signal ? { Signal: `${id}_DONE` } : {}),
    ...more,
  });
  return moved(list, p, {
    iteration: p.iterations,
    ...(confirmation !== undefined ? { confirmation } : {}),
    entry,
    outcome,
  });
}

/** Entries keep to one paragraph each, so the log stays parseable line by line. */
const oneLine = (text: string) => text.trim().replace(/\s*\n\s*/g, ' ');

/** Records a verifying phase's verification; a pass vouches for the output, so its file must exist. */
export function verifyPhase(
  list: readonly WorkPhase[],
  id: string,
  pass: boolean,
  note: string | undefined,
  now: string,
  written: (output: string) => boolean,
) {
  let p = findPhase(list, id);
  if (p.status !== 'verifying') refuseFor(p, `verify ${id}`);
  checkFailNote(id, pass, note);
  if (pass && !(p.output && written(p.output))) throw new WorkPhaseOutputMissingError(p);
  if (pass) {
    p = { ...p, status: 'done', verification: 'passed', completed_at: now };
    delete p.note;
  } else {
    p = { ...p, status: 'in_progress', verification: 'failed', note: oneLine(note!) };
    delete p.completed_at;
  }
  const timedOut = p.status === 'in_progress' && p.iterations >= p.max;
  const entry = progressEntry(id, 'Verification', now, {
    Result: pass ? 'pass' : 'fail',
    ...(note?.trim() ? { Note: oneLine(note) } : {}),
  });
  const outcome = pass
    ? `${id} passed verification: it is done.`
    : `${id} failed verification: it is in progress again` +
      (timedOut ? `, and has used its ${p.max} iterations (timeout: 'sow iter extend ${id} --max ${p.max + 3}')` : '') +
      '.';
  return moved(list, p, { entry, outcome });
}

export function extendPhase(list: readonly WorkPhase[], id: string, max: number) {
  const p = findPhase(list, id);
  if (max <= p.iterations)
    throw new SowError(
      'MAX_TOO_LOW',
      'failed',
      `${id} has used ${p.iterations} iterations; --max must be more than that`,
      `sow iter extend ${id} --max ${p.iterations + 3}`,
      { phase: id, iterations: p.iterations },
    );
  return moved(list, { ...p, max, ...(p.status === 'timeout' ? { status: 'in_progress' as const } : {}) }, {});
}

export function blockPhase(list: readonly WorkPhase[], id: string, note: string, now: string) {
  const p = findPhase(list, id);
  if (p.status === 'done' || p.status === 'blocked') refuseFor(p, `block ${id}`);
  checkBlockNote(id, note);
  return moved(
    list,
    { ...p, status: 'blocked', blocked_from: p.status, note: oneLine(note) },
    { entry: progressEntry(id, 'Blocked', now, { Blockers: oneLine(note) }) },
  );
}

export function unblockPhase(list: readonly WorkPhase[], id: string, now: string) {
  let p = findPhase(list, id);
  if (p.status !== 'blocked')
    throw new WorkPhaseBlockedError(
      `${id} is not blocked (its status is ${p.status})`,
      "'sow iter status' shows each phase",
      { phase: id, status: p.status },
    );
  const note = p.note;
  p = { ...p, status: p.blocked_from ?? 'pending' };
  delete p.blocked_from;
  delete p.note;
  return moved(list, p, { entry: progressEntry(id, 'Unblocked', now, { 'Was blocked by': note ?? '(no note)' }) });
}
