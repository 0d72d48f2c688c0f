import { describe, expect, it } from 'vitest';
import { SowError } from '../../errors.js';
import { blockPhase, extendPhase, logIteration, saysNothingLeft, unblockPhase, verifyPhase } from './phase-moves.js';
import {
  checkPhasesNamed,
  currentPhase,
  dependencyProblem,
  lastIteration,
  nextStep,
  parseProgress,
  planGaps,
  renderPlan,
  reopenPhases,
  WorkPhaseNotFoundError,
  workPhasesProblem,
  type WorkPhase,
} from './work-phases.js';
import type { ProjectState } from '../../schemas.js';

const T = '2026-11-26T10:00:00.000Z';
const phase = (id: string, over: Partial<WorkPhase> = {}): WorkPhase => ({
  id,
  title: `Phase ${id}`,
  criteria: 'measurable',
  output: `outputs/${id}.md`,
  max: 3,
  after: [],
  status: 'pending',
  iterations: 0,
  confirmations: 0,
  ...over,
});
const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err instanceof SowError ? `${err.code}/${err.kind}` : String(err);
  }
  return 'no error';
};
const log = (list: WorkPhase[], id: string, remaining: string, signal = false) =>
  logIteration(list, id, { did: 'work', remaining, signal }, T);
const written = () => true;

describe('the work-phase lifecycle (spec 002)', () => {
  it('pending → in_progress → confirming → verifying → done', () => {
    let list = [phase('R1')];
    let r = log(list, 'R1', 'two sections');
    expect([r.phase.status, r.phase.iterations, r.iteration]).toEqual(['in_progress', 1, 1]);
    expect(r.phase.started_at).toBe(T);
    list = r.list;
    r = log(list, 'R1', 'None', true);
    expect([r.phase.status, r.phase.iterations, r.iteration]).toEqual(['confirming', 2, 2]);
    expect(r.entry).toBe(
      `## R1 - Iteration 2 - ${T}\n**Did:** work\n**Remaining:** None\n**Blockers:** None\n**Signal:** R1_DONE`,
    );
    expect(r.outcome).toContain('R1 says it is done after iteration 2 of 3: it is confirming. Run its confirmation');
    expect(nextStep(r.phase)).toBe('its confirmation after iteration 2');
    list = r.list;
    r = log(list, 'R1', 'none');
    // The confirmation is numbered apart: it takes no work iteration's number.
    expect([r.phase.status, r.phase.iterations, r.phase.confirmations, r.iteration, r.confirmation]).toEqual([
      'verifying',
      2,
      1,
      2,
      1,
    ]);
    expect(r.entry).toMatch(/^## R1 - Confirmation 1 - /);
    expect(nextStep(r.phase)).toBe('its verification after iteration 2');
    list = r.list;
    expect(codeOf(() => log(list, 'R1', 'None'))).toBe('WORK_PHASE_BLOCKED/blocked');
    const v = verifyPhase(list, 'R1', true, undefined, T, written);
    expect([v.phase.status, v.phase.verification, v.phase.completed_at]).toEqual(['done', 'passed', T]);
    expect(codeOf(() => log(v.list, 'R1', 'x'))).toBe('WORK_PHASE_BLOCKED/blocked');
  });

  it(
    'Remaining None without the signal stays in progress; ' + 'the signal with something remaining is a usage error',
    () => {
      expect(log([phase('R1')], 'R1', 'None').phase.status).toBe('in_progress');
      expect(codeOf(() => log([phase('R1')], 'R1', 'a table', true))).toBe('USAGE/usage');
    },
  );

  it('a confirmation that finds work sends the phase back; a failed verification too, with its note', () => {
    const confirming = [phase('R1', { status: 'confirming', iterations: 1 })];
    const back = log(confirming, 'R1', 'a typo');
    expect([back.phase.status, back.phase.confirmations]).toEqual(['in_progress', 1]);
    expect(back.entry).toContain('**Confirmation:** found more work');
    expect(back.outcome).toBe("R1's confirmation found more to do: it is in progress again. Next: iteration 2 of 3.");
    expect(nextStep(back.phase)).toBe('iteration 2');
    expect(log(back.list, 'R1', 'b').entry).toMatch(/^## R1 - Iteration 2 - /);
    const verifying = [phase('R1', { status: 'verifying', iterations: 1, confirmations: 1 })];
    expect(codeOf(() => verifyPhase(verifying, 'R1', false, ' ', T, written))).toBe('USAGE/usage');
    const failed = verifyPhase(verifying, 'R1', false, 'the table lacks a row', T, () => false);
    expect([failed.phase.status, failed.phase.verification, failed.phase.note]).toEqual([
      'in_progress',
      'failed',
      'the table lacks a row',
    ]);
    expect(failed.entry).toBe(`## R1 - Verification - ${T}\n**Result:** fail\n**Note:** the table lacks a row`);
  });

  it('a pass vouches for the output: refused while its file does not exist, naming it', () => {
    const verifying = [phase('R1', { status: 'verifying', iterations: 1, confirmations: 1 })];
    const asked: string[] = [];
    const missing = (output: string) => {
      asked.push(output);
      return false;
    };
    expect(codeOf(() => verifyPhase(verifying, 'R1', true, undefined, T, missing))).toBe(
      'WORK_PHASE_OUTPUT_MISSING/blocked',
    );
    expect(asked).toEqual(['outputs/R1.md']);
    expect(() => verifyPhase(verifying, 'R1', true, undefined, T, missing)).toThrow(
      'cannot pass R1: its output .sow/project/outputs/R1.md does not exist',
    );
    expect(() =>
      verifyPhase([phase('R1', { status: 'verifying', output: '' })], 'R1', true, undefined, T, written),
    ).toThrow('cannot pass R1: it names no output');
    // The status is checked first: a phase that is not verifying says so, whatever its output.
    expect(codeOf(() => verifyPhase([phase('R1', { status: 'in_progress' })], 'R1', true, undefined, T, missing))).toBe(
      'WORK_PHASE_BLOCKED/blocked',
    );
    expect(verifyPhase(verifying, 'R1', true, undefined, T, written).phase.status).toBe('done');
  });

  it('the max-th iteration without finishing is timeout; more are refused until extend raises the max', () => {
    let list = [phase('R1', { max: 2 })];
    list = log(list, 'R1', 'a').list;
    const second = log(list, 'R1', 'b');
    expect(second.phase.status).toBe('timeout');
    expect(second.entry).toContain('**Status:** timeout (2 of 2 iterations used)');
    expect(codeOf(() => log(second.list, 'R1', 'c'))).toBe('WORK_PHASE_BLOCKED/blocked');
    // A maximum the phase has already used is refused by what the phase is (exit 1), not by its form.
    expect(codeOf(() => extendPhase(second.list, 'R1', 2))).toBe('MAX_TOO_LOW/failed');
    const extended = extendPhase(second.list, 'R1', 4);
    expect([extended.phase.status, extended.phase.max]).toEqual(['in_progress', 4]);
    expect(log(extended.list, 'R1', 'c').phase.iterations).toBe(3);
    // A signal on the last allowed iteration is confirming, not timeout.
    expect(log([phase('R1', { max: 1 })], 'R1', 'None', true).phase.status).toBe('confirming');
  });

  it('a phase cannot start before the phases it comes after are done', () => {
    const list = [phase('R1'), phase('R2', { after: ['R1'] })];
    expect(codeOf(() => log(list, 'R2', 'x'))).toBe('WORK_PHASE_BLOCKED/blocked');
    expect(currentPhase(list)?.id).toBe('R1');
    const done = [phase('R1', { status: 'done' }), phase('R2', { after: ['R1'] })];
    expect(log(done, 'R2', 'x').phase.status).toBe('in_progress');
    expect(currentPhase(done)?.id).toBe('R2');
    expect(codeOf(() => log(done, 'R9', 'x'))).toBe('WORK_PHASE_NOT_FOUND/failed');
  });

  it('block and unblock return to where the phase was; the current phase skips blocked ones', () => {
    const list = [phase('R1', { status: 'in_progress', iterations: 1 }), phase('R2')];
    const b = blockPhase(list, 'R1', 'needs the API key', T);
    expect([b.phase.status, b.phase.blocked_from, b.phase.note]).toEqual([
      'blocked',
      'in_progress',
      'needs the API key',
    ]);
    expect(currentPhase(b.list)?.id).toBe('R2');
    expect(codeOf(() => log(b.list, 'R1', 'x'))).toBe('WORK_PHASE_BLOCKED/blocked');
    const u = unblockPhase(b.list, 'R1', T);
    expect([u.phase.status, u.phase.note, u.phase.blocked_from]).toEqual(['in_progress', undefined, undefined]);
    expect(codeOf(() => unblockPhase(u.list, 'R1', T))).toBe('WORK_PHASE_BLOCKED/blocked');
  });

  it('a failed review reopens only the phases it names', () => {
    const list = reopenPhases(
      [
        phase('R1', { status: 'done', iterations: 1, confirmations: 1, completed_at: T }),
        phase('R2', { status: 'done', iterations: 1, completed_at: T }),
      ],
      ['R2'],
    );
    expect(list.map((p) => p.status)).toEqual(['done', 'in_progress']);
    expect(list[1]).toMatchObject({ confirmations: 0, verification: 'failed' });
    expect(list[1]!.completed_at).toBeUndefined();
    // A reopened phase whose iterations are used up is timeout at once (it needs extend).
    expect(reopenPhases([phase('R1', { status: 'done', iterations: 3, max: 3 })], ['R1'])[0]!.status).toBe('timeout');
  });

  it("a review's phases must be work phases: the first unknown one named, with the nearest and the list", () => {
    const list = [phase('R1'), phase('R2')];
    for (const ok of [undefined, 'R1', 'R1, R2', ['R2'], '']) expect(() => checkPhasesNamed(list, ok)).not.toThrow();
    expect(codeOf(() => checkPhasesNamed(list, 'R1,R9'))).toBe('WORK_PHASE_NOT_FOUND/failed');
    const err = (() => {
      try {
        checkPhasesNamed(list, 'R1,r2');
      } catch (e) {
        return e as WorkPhaseNotFoundError;
      }
      return undefined;
    })();
    expect(err?.message).toBe("the review names 'r2', which is not a work phase; did you mean 'R2'?");
    expect(err?.hint).toBe("the work phases are R1, R2 ('sow iter status')");
    expect(() => checkPhasesNamed(list, 2)).toThrow("the review names '2', which is not a work phase");
  });
});

describe('the plan', () => {
  it('names what is missing, unknown dependencies and cycles', () => {
    expect(planGaps([])).toEqual([expect.stringContaining('no work phases yet')]);
    expect(planGaps([phase('R1', { criteria: '', output: '', max: 0 })])).toEqual([
      expect.stringContaining('R1 has no criteria'),
      expect.stringContaining('R1 has no output'),
      expect.stringContaining('R1 has no maximum'),
    ]);
    expect(dependencyProblem([phase('R1', { after: ['R0'] })])).toBe('R1 comes after R0, which is not a work phase');
    expect(dependencyProblem([phase('R1', { after: ['R2'] }), phase('R2', { after: ['R1'] })])).toMatch(
      /cycle: R1 → R2 → R1|cycle: R2 → R1 → R2/,
    );
    expect(planGaps([phase('R1'), phase('R2', { after: ['R1'] })])).toEqual([]);
  });

  it("plan.md follows spec 002's template, rendered from the phases", () => {
    const project = {
      name: 'survey',
      description: 'Survey JWT libraries',
      created_at: '2026-11-25T00:00:00.000Z',
      phases: { plan: { started_at: T } },
    } as unknown as ProjectState;
    const text = renderPlan(project, [phase('R1', { status: 'done' }), phase('R2', { after: ['R1'] })], 'research');
    expect(text).toContain(
      '# Survey JWT libraries - Phases\n\n**Created:** 2026-11-26T10:00:00.000Z\n**Domain:** ' +
        'research\n**Total:** 2 phases',
    );
    expect(text).toContain(
      '- [x] **R1**: Phase R1\n  - Criteria: measurable\n  - Output: `outputs/R1.md`\n  - Max iterations: 3',
    );
    expect(text).toContain('- [ ] **R2**: Phase R2');
    expect(text).toContain('## Dependencies\n\nR1 → R2 (sequential)');
    expect(renderPlan(project, [phase('R1'), phase('R2'), phase('R3', { after: ['R1', 'R2'] })], undefined)).toContain(
      'R1 (can start at once)\nR2 (can start at once)\nR1, R2 → R3',
    );
  });
});

describe('progress.md and the stored phases', () => {
  it('reads entries back: the last iteration and its Remaining', () => {
    const text =
      `# Progress Log\n\n## R1 - Iteration 1 - ${T}\n**Did:** a\n**Remaining:** b and c\n**Blockers:** ` +
      `None\n\n## R1 - Verification - ${T}\n**Result:** fail\n`;
    const entries = parseProgress(text);
    expect(entries.map((e) => e.label)).toEqual(['Iteration 1', 'Verification']);
    expect(lastIteration(entries, 'R1')?.fields['Remaining']).toBe('b and c');
    // A confirmation that found more work is what its worker left last.
    const confirmed = parseProgress(
      `${text}\n## R1 - Confirmation 1 - ${T}\n**Did:** checked\n**Remaining:** one row\n`,
    );
    expect(lastIteration(confirmed, 'R1')).toMatchObject({ label: 'Confirmation 1', fields: { Remaining: 'one row' } });
    expect(lastIteration(entries, 'R2')).toBeUndefined();
    expect(['None', 'none.', 'nothing', ' N/A '].every(saysNothingLeft)).toBe(true);
    expect(saysNothingLeft('None of the tables')).toBe(false);
  });

  it('a hand-edited list is named precisely', () => {
    expect(workPhasesProblem(undefined)).toBeUndefined();
    expect(workPhasesProblem([phase('R1')])).toBeUndefined();
    expect(workPhasesProblem('R1')?.message).toBe('must be a list of work phases');
    expect(workPhasesProblem([{ ...phase('R1'), status: 'finished' }])).toEqual({
      path: 'phases.execute.metadata.work_phases.0.status',
      message: expect.stringContaining('must be one of pending'),
    });
    expect(workPhasesProblem([phase('R1'), phase('R1')])?.message).toBe("'R1' is used twice");
    expect(workPhasesProblem([{ ...phase('R1'), max: -1 }])?.path).toBe('phases.execute.metadata.work_phases.0.max');
  });
});
