/**
 * The iterative type's work phases in-process: `sow iter …` as the use case runs it, from the
 * words a user types (test/inproc.ts's typeCommand), with a clock the test sets. Every refused
 * move is checked to leave .sow/ (state.yaml and progress.md above all) byte-identical. The rest
 * of the type through the command line is test/e2e/type-iterative.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { PROJECT, refused as refusedBy, said, typeCommand, worlds, type World } from '../../test/inproc.js';
import { advanceProject } from './advance.js';
import { setArtifact } from './artifacts.js';
import { newProject } from './project.js';

const P = '.sow/project';
const PROGRESS = `${P}/progress.md`;
const PLAN = `${P}/plan.md`;
const ISO = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z';
const AN_ISO = expect.stringMatching(new RegExp(`^${ISO}$`));

interface Def {
  id: string;
  title: string;
  criteria: string;
  output: string;
  max: number;
  after?: string;
}

const THREE: Def[] = [
  { id: 'R1', title: 'Collect sources', criteria: '10 sources, each summarised', output: 'outputs/sources.md', max: 3 },
  { id: 'R2', title: 'Write the review', criteria: '2000 words citing every source', output: 'outputs/review.md', max: 4, after: 'R1' },
  { id: 'R3', title: 'Executive summary', criteria: 'one page', output: 'outputs/summary.md', max: 2 },
];

/** A type command that succeeds, with what it prints on stdout. */
async function ok(w: World, argv: string[]): Promise<{ stdout: string }> {
  const r = await typeCommand(w.ctx(), argv);
  return { stdout: r.text === undefined ? '' : `${r.text}\n` };
}

/** A refused type command: its exit code and error code, a hint, .sow/ unchanged; "message\nhint". */
async function refused(w: World, argv: string[], exit: number, code: string): Promise<string> {
  return said(await refusedBy(w, () => typeCommand(w.ctx(), argv), code, exit));
}

const log = (w: World, id: string, did: string, remaining: string, ...more: string[]) => ok(w, ['iter', 'log', id, '--did', did, '--remaining', remaining, ...more]);
const workPhases = (w: World): any[] => w.yaml(PROJECT).phases.execute.metadata.work_phases ?? [];
const wp = (w: World, id: string) => workPhases(w).find((p) => p.id === id);
/** The headings of progress.md's entries, without their timestamps ("R1 - Iteration 2"). */
const headings = (w: World) => (w.read(PROGRESS).match(/^## .*$/gm) ?? []).map((h) => h.slice(3).replace(new RegExp(` - ${ISO}$`), ''));

/** An in_progress (or pending) phase through signal → confirmation → verification to done, its output written. */
async function finish(w: World, id: string): Promise<void> {
  await log(w, id, `finished ${id}`, 'None', '--signal');
  expect(wp(w, id).status).toBe('confirming');
  await log(w, id, `re-checked ${id}`, 'None');
  expect(wp(w, id).status).toBe('verifying');
  const output = `${P}/${wp(w, id).output}`;
  if (!w.exists(output)) w.write(output, `# ${id}\n`);
  await ok(w, ['iter', 'verify', id, '--pass']);
  expect(wp(w, id).status).toBe('done');
}

/** A new iterative project, its brief filled in and approved, these work phases defined and the plan approved: ExecuteActive. */
async function executing(w: World, defs: Def[]): Promise<void> {
  const ctx = w.ctx();
  await newProject(ctx, { name: 'lit', description: 'Literature review', type: 'iterative', planning: true });
  w.write(`${P}/brief.md`, '# Literature review\n\n**Domain:** research\n\n## Outcome Needed\nA review of X.\n\n## Done When\n- 10 sources\n\n## Constraints\n- two weeks\n');
  await setArtifact(ctx, { kind: 'phase' }, 'outputs', 0, 'approved', 'true');
  expect((await advanceProject(ctx, undefined, false)).to).toBe('PlanActive');
  for (const d of defs) {
    await ok(w, ['iter', 'phase', 'add', d.id, '--title', d.title, '--criteria', d.criteria, '--output', d.output, '--max', String(d.max), ...(d.after ? ['--after', d.after] : [])]);
  }
  await setArtifact(ctx, { kind: 'phase' }, 'outputs', 0, 'approved', 'true');
  expect((await advanceProject(ctx, undefined, false)).to).toBe('ExecuteActive');
}

const world = worlds({ three: (w) => executing(w, THREE) });

describe('the work-phase lifecycle', () => {
  it('dependencies, --signal, confirmation that finds work, verify, timeout and extend; progress.md only appended to', async () => {
    const w = await world('three');

    // A phase cannot start before the phases it comes after are done.
    const waiting = await refused(w, ['iter', 'log', 'R2', '--did', 'x', '--remaining', 'y'], 3, 'WORK_PHASE_BLOCKED');
    expect(waiting).toBe("cannot start R2: it comes after R1, which is not done\nwork on R1 first ('sow iter next' names the phase to work on)");
    expect(wp(w, 'R2').status).toBe('pending');
    // --signal says done: Remaining must say None.
    expect(await refused(w, ['iter', 'log', 'R1', '--did', 'x', '--remaining', 'two more', '--signal'], 2, 'USAGE')).toContain("--signal says R1 is done, but --remaining says 'two more'");
    expect(await refused(w, ['iter', 'log', 'R9', '--did', 'x', '--remaining', 'y'], 1, 'WORK_PHASE_NOT_FOUND')).toContain('the work phases are R1, R2, R3');
    // verify belongs to a verifying phase.
    expect(await refused(w, ['iter', 'verify', 'R1', '--pass'], 3, 'WORK_PHASE_BLOCKED')).toContain('cannot verify R1: R1 has not started');

    // Iteration 1: pending → in_progress.
    await log(w, 'R1', 'found 4 sources\n(in the library)', '6 more sources', '--blockers', 'paywalls');
    const first = w.read(PROGRESS);
    expect(first).toMatch(
      new RegExp(
        `^# Progress Log\\n\\n## R1 - Iteration 1 - ${ISO}\\n\\*\\*Did:\\*\\* found 4 sources \\(in the library\\)\\n\\*\\*Remaining:\\*\\* 6 more sources\\n\\*\\*Blockers:\\*\\* paywalls\\n$`,
      ),
    );
    expect(wp(w, 'R1')).toMatchObject({ status: 'in_progress', iterations: 1, confirmations: 0 });
    // Nothing remains but no signal: still in progress.
    expect((await log(w, 'R1', 'found 6 more', 'None')).stdout).toContain('without --signal the phase stays in progress');
    expect(wp(w, 'R1')).toMatchObject({ status: 'in_progress', iterations: 2 });
    const second = w.read(PROGRESS);
    expect(second.startsWith(first)).toBe(true);
    expect(second.slice(first.length)).toMatch(new RegExp(`^\\n## R1 - Iteration 2 - ${ISO}\\n\\*\\*Did:\\*\\* found 6 more\\n\\*\\*Remaining:\\*\\* None\\n\\*\\*Blockers:\\*\\* None\\n$`));

    // Iteration 3: the signal → confirming.
    expect((await log(w, 'R1', 'summarised all 10', 'None', '--signal')).stdout).toBe(
      'R1 says it is done after iteration 3 of 3: it is confirming. Run its confirmation, one more iteration that checks the criteria afresh and finds nothing left (it does not count against the maximum).\n',
    );
    expect(wp(w, 'R1')).toMatchObject({ status: 'confirming', iterations: 3, confirmations: 0 });
    const third = w.read(PROGRESS);
    expect(third.startsWith(second)).toBe(true);
    expect(third.slice(second.length)).toMatch(
      new RegExp(`^\\n## R1 - Iteration 3 - ${ISO}\\n\\*\\*Did:\\*\\* summarised all 10\\n\\*\\*Remaining:\\*\\* None\\n\\*\\*Blockers:\\*\\* None\\n\\*\\*Signal:\\*\\* R1_DONE\\n$`),
    );
    expect(await refused(w, ['iter', 'verify', 'R1', '--pass'], 3, 'WORK_PHASE_BLOCKED')).toContain('cannot verify R1: R1 is confirming');

    // The N+1 confirmation (numbered apart) finds something: back to in_progress — and R1 has used its 3.
    const back = await log(w, 'R1', 're-read the summaries', 'one summary is missing its DOI');
    expect(back.stdout).toBe("R1's confirmation found more to do: it is in progress again. It has used its 3 iterations: it has timed out ('sow iter extend R1 --max 6').\n");
    expect(wp(w, 'R1')).toMatchObject({ status: 'timeout', iterations: 3, confirmations: 1 });
    const fourth = w.read(PROGRESS);
    expect(fourth.startsWith(third)).toBe(true);
    expect(fourth.slice(third.length)).toMatch(
      new RegExp(
        `^\\n## R1 - Confirmation 1 - ${ISO}\\n\\*\\*Did:\\*\\* re-read the summaries\\n\\*\\*Remaining:\\*\\* one summary is missing its DOI\\n\\*\\*Blockers:\\*\\* None\\n\\*\\*Confirmation:\\*\\* found more work\\n\\*\\*Status:\\*\\* timeout \\(3 of 3 iterations used\\)\\n$`,
      ),
    );

    // Timeout: no more iterations until the maximum is raised above what was used.
    const timedOut = await refused(w, ['iter', 'log', 'R1', '--did', 'x', '--remaining', 'y'], 3, 'WORK_PHASE_BLOCKED');
    expect(timedOut).toBe(
      "cannot log an iteration of R1: R1 used its 3 iterations without finishing (timeout)\nraise the maximum ('sow iter extend R1 --max 6'), simplify its criteria ('sow iter phase set R1 criteria …'), or step in yourself",
    );
    expect(await refused(w, ['iter', 'extend', 'R1', '--max', '3'], 1, 'MAX_TOO_LOW')).toBe('R1 has used 3 iterations; --max must be more than that\nsow iter extend R1 --max 6');
    expect(await refused(w, ['iter', 'extend', 'R1', '--max', '2'], 1, 'MAX_TOO_LOW')).toContain('--max must be more than that');
    expect(await refused(w, ['iter', 'extend', 'R1', '--max', 'many'], 2, 'USAGE')).toContain('a whole number ≥ 1');
    expect((await ok(w, ['iter', 'extend', 'R1', '--max', '5'])).stdout).toBe('R1: max 5; its status is in_progress again\n');
    expect(wp(w, 'R1')).toMatchObject({ status: 'in_progress', max: 5, iterations: 3 });
    expect(w.read(PROGRESS)).toBe(fourth);

    // Iteration 4: done again; confirmation 2 finds nothing → verifying.
    await log(w, 'R1', 'added the DOI', 'None', '--signal');
    expect((await log(w, 'R1', 'checked every criterion', 'nothing')).stdout).toBe(
      "R1 is confirmed: it is verifying. Review its output against the criteria: 'sow iter verify R1 --pass' or '--fail --note …'.\n",
    );
    expect(wp(w, 'R1')).toMatchObject({ status: 'verifying', iterations: 4, confirmations: 2 });
    const sixth = w.read(PROGRESS);
    expect(sixth.slice(fourth.length)).toMatch(
      new RegExp(
        `^\\n## R1 - Iteration 4 - ${ISO}\\n(.+\\n){3}\\*\\*Signal:\\*\\* R1_DONE\\n\\n## R1 - Confirmation 2 - ${ISO}\\n\\*\\*Did:\\*\\* checked every criterion\\n\\*\\*Remaining:\\*\\* nothing\\n\\*\\*Blockers:\\*\\* None\\n\\*\\*Confirmation:\\*\\* nothing left\\n$`,
      ),
    );
    // A verifying phase takes no more iterations; a failed verification says what is wrong.
    expect(await refused(w, ['iter', 'log', 'R1', '--did', 'x', '--remaining', 'None'], 3, 'WORK_PHASE_BLOCKED')).toContain('cannot log an iteration of R1: R1 is verifying');
    expect(await refused(w, ['iter', 'verify', 'R1', '--fail'], 2, 'USAGE')).toBe('a failed verification says what is wrong\nsow iter verify R1 --fail --note "<what does not meet the criteria>"');
    await refused(w, ['iter', 'verify', 'R1', '--fail', '--note', '  '], 2, 'USAGE');
    expect(await refused(w, ['iter', 'verify', 'R1'], 2, 'USAGE')).toContain('say --pass or --fail');
    await refused(w, ['iter', 'verify', 'R1', '--pass', '--fail'], 2, 'USAGE');

    // --fail --note: back to work.
    expect((await ok(w, ['iter', 'verify', 'R1', '--fail', '--note', 'two summaries are too short'])).stdout).toBe('R1 failed verification: it is in progress again.\n');
    expect(wp(w, 'R1')).toMatchObject({ status: 'in_progress', verification: 'failed', note: 'two summaries are too short', iterations: 4, confirmations: 2 });
    expect(w.read(PROGRESS).slice(sixth.length)).toMatch(new RegExp(`^\\n## R1 - Verification - ${ISO}\\n\\*\\*Result:\\*\\* fail\\n\\*\\*Note:\\*\\* two summaries are too short\\n$`));
    await finish(w, 'R1');
    expect(wp(w, 'R1')).toMatchObject({ status: 'done', verification: 'passed', iterations: 5, confirmations: 3, completed_at: AN_ISO });
    expect(wp(w, 'R1').note).toBeUndefined();
    expect(w.read(PROGRESS).startsWith(sixth)).toBe(true);
    expect(w.read(PROGRESS)).toMatch(new RegExp(`\\n## R1 - Verification - ${ISO}\\n\\*\\*Result:\\*\\* pass\\n$`));
    expect(headings(w)).toEqual([
      'R1 - Iteration 1',
      'R1 - Iteration 2',
      'R1 - Iteration 3',
      'R1 - Confirmation 1',
      'R1 - Iteration 4',
      'R1 - Confirmation 2',
      'R1 - Verification',
      'R1 - Iteration 5',
      'R1 - Confirmation 3',
      'R1 - Verification',
    ]);

    // done is final: no more iterations, no block, no definition change.
    expect(await refused(w, ['iter', 'log', 'R1', '--did', 'x', '--remaining', 'y'], 3, 'WORK_PHASE_BLOCKED')).toContain('R1 is done');
    expect(await refused(w, ['iter', 'block', 'R1', '--note', 'x'], 3, 'WORK_PHASE_BLOCKED')).toContain('cannot block R1: R1 is done');
    expect(await refused(w, ['iter', 'phase', 'set', 'R1', 'criteria', 'other'], 3, 'WORK_PHASE_BLOCKED')).toContain('R1 is done');
    // R2 may start now.
    await log(w, 'R2', 'outlined', 'the body');
    expect(wp(w, 'R2').status).toBe('in_progress');
    expect(await refused(w, ['iter', 'phase', 'set', 'R2', 'after', ''], 3, 'WORK_PHASE_BLOCKED')).toContain('R2 has started');
  });

  it('a plain timeout at the maximum, extend, and the signal on the last allowed iteration', async () => {
    const w = await world('three');
    await log(w, 'R3', 'drafted', 'the conclusion');
    expect((await log(w, 'R3', 'wrote more', 'polish')).stdout).toBe(
      "R3 used its 2 iterations without finishing: it timed out. Raise the maximum ('sow iter extend R3 --max 5'), simplify its criteria, or step in.\n",
    );
    expect(wp(w, 'R3')).toMatchObject({ status: 'timeout', iterations: 2, max: 2 });
    expect(w.read(PROGRESS)).toMatch(
      new RegExp(
        `## R3 - Iteration 2 - ${ISO}\\n\\*\\*Did:\\*\\* wrote more\\n\\*\\*Remaining:\\*\\* polish\\n\\*\\*Blockers:\\*\\* None\\n\\*\\*Status:\\*\\* timeout \\(2 of 2 iterations used\\)\\n$`,
      ),
    );
    await refused(w, ['iter', 'log', 'R3', '--did', 'x', '--remaining', 'None', '--signal'], 3, 'WORK_PHASE_BLOCKED');
    // Raising it with phase set works like extend, and must also exceed the iterations used.
    expect(await refused(w, ['iter', 'phase', 'set', 'R3', 'max', '2'], 1, 'INVALID_VALUE')).toContain('more than the 2 iterations R3 has used');
    await ok(w, ['iter', 'phase', 'set', 'R3', 'max', '3']);
    expect(wp(w, 'R3')).toMatchObject({ status: 'in_progress', max: 3 });
    expect(w.read(PLAN)).toContain('- [ ] **R3**: Executive summary\n  - Criteria: one page\n  - Output: `outputs/summary.md`\n  - Max iterations: 3\n');
    // The last allowed iteration may still signal: it goes to confirming, not timeout.
    await log(w, 'R3', 'polished', 'None', '--signal');
    expect(wp(w, 'R3')).toMatchObject({ status: 'confirming', iterations: 3, max: 3 });
    // A confirmation does not count against the maximum.
    await log(w, 'R3', 'checked', 'None');
    expect(wp(w, 'R3')).toMatchObject({ status: 'verifying', iterations: 3, confirmations: 1 });
    // A failed verification at the maximum is a timeout.
    expect((await ok(w, ['iter', 'verify', 'R3', '--fail', '--note', 'too long'])).stdout).toBe(
      "R3 failed verification: it is in progress again, and has used its 3 iterations (timeout: 'sow iter extend R3 --max 6').\n",
    );
    expect(wp(w, 'R3')).toMatchObject({ status: 'timeout', verification: 'failed', note: 'too long' });
  });

  it('block (with a note) and unblock: logged, the phase goes back to where it was', async () => {
    const w = await world('three');
    await log(w, 'R1', 'started', 'most of it');
    expect(await refused(w, ['iter', 'block', 'R1', '--note', ' '], 2, 'USAGE')).toBe('say what blocks the phase\nsow iter block R1 --note "<what is in the way>"');
    expect(await refused(w, ['iter', 'unblock', 'R1'], 3, 'WORK_PHASE_BLOCKED')).toBe("R1 is not blocked (its status is in_progress)\n'sow iter status' shows each phase");
    const before = w.read(PROGRESS);
    expect((await ok(w, ['iter', 'block', 'R1', '--note', 'the library is closed'])).stdout).toBe('R1 is blocked. Next unblocked phase: R3.\n');
    expect(wp(w, 'R1')).toMatchObject({ status: 'blocked', blocked_from: 'in_progress', note: 'the library is closed', iterations: 1 });
    const blocked = w.read(PROGRESS);
    expect(blocked.slice(before.length)).toMatch(new RegExp(`^\\n## R1 - Blocked - ${ISO}\\n\\*\\*Blockers:\\*\\* the library is closed\\n$`));
    expect(await refused(w, ['iter', 'log', 'R1', '--did', 'x', '--remaining', 'y'], 3, 'WORK_PHASE_BLOCKED')).toBe(
      "cannot log an iteration of R1: R1 is blocked (the library is closed)\nresolve the blocker, then 'sow iter unblock R1'",
    );
    expect(await refused(w, ['iter', 'block', 'R1', '--note', 'again'], 3, 'WORK_PHASE_BLOCKED')).toContain('cannot block R1: R1 is blocked');
    // A pending phase can be blocked too, and goes back to pending.
    await ok(w, ['iter', 'block', 'R3', '--note', 'needs the review first']);
    expect(wp(w, 'R3')).toMatchObject({ status: 'blocked', blocked_from: 'pending' });
    await ok(w, ['iter', 'unblock', 'R3']);
    expect(wp(w, 'R3')).toEqual({ ...THREE[2], after: [], status: 'pending', iterations: 0, confirmations: 0 });
    const unblockedR3 = w.read(PROGRESS);
    expect((await ok(w, ['iter', 'unblock', 'R1'])).stdout).toBe('R1 is in_progress again.\n');
    expect(wp(w, 'R1')).toMatchObject({ status: 'in_progress', iterations: 1 });
    expect(wp(w, 'R1').note).toBeUndefined();
    expect(wp(w, 'R1').blocked_from).toBeUndefined();
    expect(w.read(PROGRESS).slice(unblockedR3.length)).toMatch(new RegExp(`^\\n## R1 - Unblocked - ${ISO}\\n\\*\\*Was blocked by:\\*\\* the library is closed\\n$`));
    // The iteration count goes on where it was.
    await log(w, 'R1', 'went on', 'a little');
    expect(headings(w)).toEqual(['R1 - Iteration 1', 'R1 - Blocked', 'R3 - Blocked', 'R3 - Unblocked', 'R1 - Unblocked', 'R1 - Iteration 2']);
  });
});
