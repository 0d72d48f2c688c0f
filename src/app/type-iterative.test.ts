/**
 * The iterative type's work phases in-process: `sow iter …` as the use case runs it, from the
 * words a user types (test/inproc.ts's typeCommand), with a clock the test sets. Every refused
 * move is checked to leave .sow/ (state.yaml and progress.md above all) byte-identical. The rest
 * of the type through the command line is test/e2e/type-iterative.test.ts.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { PROJECT, refused as refusedBy, said, typeCommand, worlds, type World } from '../../test/inproc.js';
import { advanceProject } from './advance.js';
import { addArtifact, listArtifacts, setArtifact } from './artifacts.js';
import { setPhaseField } from './phase.js';
import { newProject } from './project.js';
import { continueProject, projectStatus } from './status.js';

const P = '.sow/project';
const PROGRESS = `${P}/progress.md`;
const PLAN = `${P}/plan.md`;
const GUARDRAILS = `${P}/guardrails.md`;
const CONTEXT = `${P}/context.md`;
const GUARDRAILS_HEADER = '# Guardrails\n\nRead before starting any iteration. Append when issues discovered.\n';
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
  {
    id: 'R2',
    title: 'Write the review',
    criteria: '2000 words citing every source',
    output: 'outputs/review.md',
    max: 4,
    after: 'R1',
  },
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

const log = (w: World, id: string, did: string, remaining: string, ...more: string[]) =>
  ok(w, ['iter', 'log', id, '--did', did, '--remaining', remaining, ...more]);
const workPhases = (w: World): any[] => w.yaml(PROJECT).phases.execute.metadata.work_phases ?? [];
const wp = (w: World, id: string) => workPhases(w).find((p) => p.id === id);
/** The headings of progress.md's entries, without their timestamps ("R1 - Iteration 2"). */
const headings = (w: World) =>
  (w.read(PROGRESS).match(/^## .*$/gm) ?? []).map((h) => h.slice(3).replace(new RegExp(` - ${ISO}$`), ''));

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

/** brief.md as the human fills it in: every placeholder of the template replaced. */
const fillBrief = (w: World) =>
  w.write(
    `${P}/brief.md`,
    '# Literature review\n\n**Domain:** research\n\n## Outcome Needed\nA review of X.\n\n## Done When\n- 10 ' +
      'sources\n\n## Constraints\n- two weeks\n',
  );

/** A new iterative project, its brief filled in and approved: PlanActive. */
async function planning(w: World): Promise<void> {
  const ctx = w.ctx();
  await newProject(ctx, { name: 'lit', description: 'Literature review', type: 'iterative', planning: true });
  fillBrief(w);
  await setArtifact(ctx, { kind: 'phase' }, 'outputs', 0, 'approved', 'true');
  expect((await advanceProject(ctx, undefined, false)).to).toBe('PlanActive');
}

const addPhase = (w: World, d: Def, max = d.max) =>
  ok(w, [
    'iter',
    'phase',
    'add',
    d.id,
    '--title',
    d.title,
    '--criteria',
    d.criteria,
    '--output',
    d.output,
    '--max',
    String(max),
    ...(d.after ? ['--after', d.after] : []),
  ]);

/** The plan approved: ExecuteActive. */
async function approvePlan(w: World): Promise<void> {
  await setArtifact(w.ctx(), { kind: 'phase' }, 'outputs', 0, 'approved', 'true');
  expect((await advanceProject(w.ctx(), undefined, false)).to).toBe('ExecuteActive');
}

/**
 * A new iterative project, its brief filled in and approved, these work phases defined and the plan approved:
 * ExecuteActive.
 */
async function executing(w: World, defs: Def[]): Promise<void> {
  await planning(w);
  for (const d of defs) await addPhase(w, d);
  await approvePlan(w);
}

const world = worlds({
  three: (w) => executing(w, THREE),
  planning,
  standard: async (w) =>
    void (await newProject(w.ctx(), { name: 'demo', description: 'A standard project', planning: true })),
});

describe('the work-phase lifecycle', () => {
  it(
    'dependencies, --signal, confirmation that finds work, verify, timeout and extend; progress.md only ' +
      'appended to',
    async () => {
      const w = await world('three');

      // A phase cannot start before the phases it comes after are done.
      const waiting = await refused(
        w,
        ['iter', 'log', 'R2', '--did', 'x', '--remaining', 'y'],
        3,
        'WORK_PHASE_BLOCKED',
      );
      expect(waiting).toBe(
        "cannot start R2: it comes after R1, which is not done\nwork on R1 first ('sow iter next' names the phase " +
          'to work on)',
      );
      expect(wp(w, 'R2').status).toBe('pending');
      // --signal says done: Remaining must say None.
      expect(
        await refused(w, ['iter', 'log', 'R1', '--did', 'x', '--remaining', 'two more', '--signal'], 2, 'USAGE'),
      ).toContain("--signal says R1 is done, but --remaining says 'two more'");
      expect(
        await refused(w, ['iter', 'log', 'R9', '--did', 'x', '--remaining', 'y'], 1, 'WORK_PHASE_NOT_FOUND'),
      ).toContain('the work phases are R1, R2, R3');
      // verify belongs to a verifying phase.
      expect(await refused(w, ['iter', 'verify', 'R1', '--pass'], 3, 'WORK_PHASE_BLOCKED')).toContain(
        'cannot verify R1: R1 has not started',
      );

      // Iteration 1: pending → in_progress.
      await log(w, 'R1', 'found 4 sources\n(in the library)', '6 more sources', '--blockers', 'paywalls');
      const first = w.read(PROGRESS);
      expect(first).toMatch(
        new RegExp(
          `^# Progress Log\\n\\n## R1 - Iteration 1 - ${ISO}\\n\\*\\*Did:\\*\\* found 4 sources \\(in the ` +
            `library\\)\\n\\*\\*Remaining:\\*\\* 6 more sources\\n\\*\\*Blockers:\\*\\* paywalls\\n$`,
        ),
      );
      expect(wp(w, 'R1')).toMatchObject({ status: 'in_progress', iterations: 1, confirmations: 0 });
      // Nothing remains but no signal: still in progress.
      expect((await log(w, 'R1', 'found 6 more', 'None')).stdout).toContain(
        'without --signal the phase stays in progress',
      );
      expect(wp(w, 'R1')).toMatchObject({ status: 'in_progress', iterations: 2 });
      const second = w.read(PROGRESS);
      expect(second.startsWith(first)).toBe(true);
      expect(second.slice(first.length)).toMatch(
        new RegExp(
          `^\\n## R1 - Iteration 2 - ${ISO}\\n\\*\\*Did:\\*\\* found 6 more\\n\\*\\*Remaining:\\*\\* ` +
            `None\\n\\*\\*Blockers:\\*\\* None\\n$`,
        ),
      );

      // Iteration 3: the signal → confirming.
      expect((await log(w, 'R1', 'summarised all 10', 'None', '--signal')).stdout).toBe(
        'R1 says it is done after iteration 3 of 3: it is confirming. Run its confirmation, one more iteration that ' +
          'checks the criteria afresh and finds nothing left (it does not count against the maximum).\n',
      );
      expect(wp(w, 'R1')).toMatchObject({ status: 'confirming', iterations: 3, confirmations: 0 });
      const third = w.read(PROGRESS);
      expect(third.startsWith(second)).toBe(true);
      expect(third.slice(second.length)).toMatch(
        new RegExp(
          `^\\n## R1 - Iteration 3 - ${ISO}\\n\\*\\*Did:\\*\\* summarised all 10\\n\\*\\*Remaining:\\*\\* ` +
            `None\\n\\*\\*Blockers:\\*\\* None\\n\\*\\*Signal:\\*\\* R1_DONE\\n$`,
        ),
      );
      expect(await refused(w, ['iter', 'verify', 'R1', '--pass'], 3, 'WORK_PHASE_BLOCKED')).toContain(
        'cannot verify R1: R1 is confirming',
      );

      // The N+1 confirmation (numbered apart) finds something: back to in_progress — and R1 has used its 3.
      const back = await log(w, 'R1', 're-read the summaries', 'one summary is missing its DOI');
      expect(back.stdout).toBe(
        "R1's confirmation found more to do: it is in progress again. It has used its 3 iterations: it has timed out " +
          "('sow iter extend R1 --max 6').\n",
      );
      expect(wp(w, 'R1')).toMatchObject({ status: 'timeout', iterations: 3, confirmations: 1 });
      const fourth = w.read(PROGRESS);
      expect(fourth.startsWith(third)).toBe(true);
      expect(fourth.slice(third.length)).toMatch(
        new RegExp(
          `^\\n## R1 - Confirmation 1 - ${ISO}\\n\\*\\*Did:\\*\\* re-read the summaries\\n\\*\\*Remaining:\\*\\* one ` +
            `summary is missing its DOI\\n\\*\\*Blockers:\\*\\* None\\n\\*\\*Confirmation:\\*\\* found more ` +
            `work\\n\\*\\*Status:\\*\\* timeout \\(3 of 3 iterations used\\)\\n$`,
        ),
      );

      // Timeout: no more iterations until the maximum is raised above what was used.
      const timedOut = await refused(
        w,
        ['iter', 'log', 'R1', '--did', 'x', '--remaining', 'y'],
        3,
        'WORK_PHASE_BLOCKED',
      );
      expect(timedOut).toBe(
        'cannot log an iteration of R1: R1 used its 3 iterations without finishing (timeout)\nraise the maximum ' +
          "('sow iter extend R1 --max 6'), simplify its criteria ('sow iter phase set R1 criteria …'), or step " +
          'in yourself',
      );
      expect(await refused(w, ['iter', 'extend', 'R1', '--max', '3'], 1, 'MAX_TOO_LOW')).toBe(
        'R1 has used 3 iterations; --max must be more than that\nsow iter extend R1 --max 6',
      );
      expect(await refused(w, ['iter', 'extend', 'R1', '--max', '2'], 1, 'MAX_TOO_LOW')).toContain(
        '--max must be more than that',
      );
      expect(await refused(w, ['iter', 'extend', 'R1', '--max', 'many'], 2, 'USAGE')).toContain('a whole number ≥ 1');
      expect((await ok(w, ['iter', 'extend', 'R1', '--max', '5'])).stdout).toBe(
        'R1: max 5; its status is in_progress again\n',
      );
      expect(wp(w, 'R1')).toMatchObject({ status: 'in_progress', max: 5, iterations: 3 });
      expect(w.read(PROGRESS)).toBe(fourth);

      // Iteration 4: done again; confirmation 2 finds nothing → verifying.
      await log(w, 'R1', 'added the DOI', 'None', '--signal');
      expect((await log(w, 'R1', 'checked every criterion', 'nothing')).stdout).toBe(
        "R1 is confirmed: it is verifying. Review its output against the criteria: 'sow iter verify R1 --pass' or " +
          "'--fail --note …'.\n",
      );
      expect(wp(w, 'R1')).toMatchObject({ status: 'verifying', iterations: 4, confirmations: 2 });
      const sixth = w.read(PROGRESS);
      expect(sixth.slice(fourth.length)).toMatch(
        new RegExp(
          `^\\n## R1 - Iteration 4 - ${ISO}\\n(.+\\n){3}\\*\\*Signal:\\*\\* R1_DONE\\n\\n## R1 - Confirmation 2 ` +
            `- ${ISO}\\n\\*\\*Did:\\*\\* checked every criterion\\n\\*\\*Remaining:\\*\\* ` +
            `nothing\\n\\*\\*Blockers:\\*\\* None\\n\\*\\*Confirmation:\\*\\* nothing left\\n$`,
        ),
      );
      // A verifying phase takes no more iterations; a failed verification says what is wrong.
      expect(
        await refused(w, ['iter', 'log', 'R1', '--did', 'x', '--remaining', 'None'], 3, 'WORK_PHASE_BLOCKED'),
      ).toContain('cannot log an iteration of R1: R1 is verifying');
      expect(await refused(w, ['iter', 'verify', 'R1', '--fail'], 2, 'USAGE')).toBe(
        'a failed verification says what is wrong\nsow iter verify R1 --fail --note "<what does not meet the ' +
          'criteria>"',
      );
      await refused(w, ['iter', 'verify', 'R1', '--fail', '--note', '  '], 2, 'USAGE');
      expect(await refused(w, ['iter', 'verify', 'R1'], 2, 'USAGE')).toContain('say --pass or --fail');
      await refused(w, ['iter', 'verify', 'R1', '--pass', '--fail'], 2, 'USAGE');

      // --fail --note: back to work.
      expect((await ok(w, ['iter', 'verify', 'R1', '--fail', '--note', 'two summaries are too short'])).stdout).toBe(
        'R1 failed verification: it is in progress again.\n',
      );
      expect(wp(w, 'R1')).toMatchObject({
        status: 'in_progress',
        verification: 'failed',
        note: 'two summaries are too short',
        iterations: 4,
        confirmations: 2,
      });
      expect(w.read(PROGRESS).slice(sixth.length)).toMatch(
        new RegExp(
          `^\\n## R1 - Verification - ${ISO}\\n\\*\\*Result:\\*\\* fail\\n\\*\\*Note:\\*\\* two summaries are ` +
            `too short\\n$`,
        ),
      );
      await finish(w, 'R1');
      expect(wp(w, 'R1')).toMatchObject({
        status: 'done',
        verification: 'passed',
        iterations: 5,
        confirmations: 3,
        completed_at: AN_ISO,
      });
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
      expect(
        await refused(w, ['iter', 'log', 'R1', '--did', 'x', '--remaining', 'y'], 3, 'WORK_PHASE_BLOCKED'),
      ).toContain('R1 is done');
      expect(await refused(w, ['iter', 'block', 'R1', '--note', 'x'], 3, 'WORK_PHASE_BLOCKED')).toContain(
        'cannot block R1: R1 is done',
      );
      expect(await refused(w, ['iter', 'phase', 'set', 'R1', 'criteria', 'other'], 3, 'WORK_PHASE_BLOCKED')).toContain(
        'R1 is done',
      );
      // R2 may start now.
      await log(w, 'R2', 'outlined', 'the body');
      expect(wp(w, 'R2').status).toBe('in_progress');
      expect(await refused(w, ['iter', 'phase', 'set', 'R2', 'after', ''], 3, 'WORK_PHASE_BLOCKED')).toContain(
        'R2 has started',
      );
    },
  );

  it('a plain timeout at the maximum, extend, and the signal on the last allowed iteration', async () => {
    const w = await world('three');
    await log(w, 'R3', 'drafted', 'the conclusion');
    expect((await log(w, 'R3', 'wrote more', 'polish')).stdout).toBe(
      "R3 used its 2 iterations without finishing: it timed out. Raise the maximum ('sow iter extend R3 --max 5'), " +
        'simplify its criteria, or step in.\n',
    );
    expect(wp(w, 'R3')).toMatchObject({ status: 'timeout', iterations: 2, max: 2 });
    expect(w.read(PROGRESS)).toMatch(
      new RegExp(
        `## R3 - Iteration 2 - ${ISO}\\n\\*\\*Did:\\*\\* wrote more\\n\\*\\*Remaining:\\*\\* ` +
          `polish\\n\\*\\*Blockers:\\*\\* None\\n\\*\\*Status:\\*\\* timeout \\(2 of 2 iterations used\\)\\n$`,
      ),
    );
    await refused(w, ['iter', 'log', 'R3', '--did', 'x', '--remaining', 'None', '--signal'], 3, 'WORK_PHASE_BLOCKED');
    // Raising it with phase set works like extend, and must also exceed the iterations used.
    expect(await refused(w, ['iter', 'phase', 'set', 'R3', 'max', '2'], 1, 'INVALID_VALUE')).toContain(
      'more than the 2 iterations R3 has used',
    );
    await ok(w, ['iter', 'phase', 'set', 'R3', 'max', '3']);
    expect(wp(w, 'R3')).toMatchObject({ status: 'in_progress', max: 3 });
    expect(w.read(PLAN)).toContain(
      '- [ ] **R3**: Executive summary\n  - Criteria: one page\n  - Output: `outputs/summary.md`\n  - Max ' +
        'iterations: 3\n',
    );
    // The last allowed iteration may still signal: it goes to confirming, not timeout.
    await log(w, 'R3', 'polished', 'None', '--signal');
    expect(wp(w, 'R3')).toMatchObject({ status: 'confirming', iterations: 3, max: 3 });
    // A confirmation does not count against the maximum.
    await log(w, 'R3', 'checked', 'None');
    expect(wp(w, 'R3')).toMatchObject({ status: 'verifying', iterations: 3, confirmations: 1 });
    // A failed verification at the maximum is a timeout.
    expect((await ok(w, ['iter', 'verify', 'R3', '--fail', '--note', 'too long'])).stdout).toBe(
      "R3 failed verification: it is in progress again, and has used its 3 iterations (timeout: 'sow iter extend " +
        "R3 --max 6').\n",
    );
    expect(wp(w, 'R3')).toMatchObject({ status: 'timeout', verification: 'failed', note: 'too long' });
  });

  it('block (with a note) and unblock: logged, the phase goes back to where it was', async () => {
    const w = await world('three');
    await log(w, 'R1', 'started', 'most of it');
    expect(await refused(w, ['iter', 'block', 'R1', '--note', ' '], 2, 'USAGE')).toBe(
      'say what blocks the phase\nsow iter block R1 --note "<what is in the way>"',
    );
    expect(await refused(w, ['iter', 'unblock', 'R1'], 3, 'WORK_PHASE_BLOCKED')).toBe(
      "R1 is not blocked (its status is in_progress)\n'sow iter status' shows each phase",
    );
    const before = w.read(PROGRESS);
    expect((await ok(w, ['iter', 'block', 'R1', '--note', 'the library is closed'])).stdout).toBe(
      'R1 is blocked. Next unblocked phase: R3.\n',
    );
    expect(wp(w, 'R1')).toMatchObject({
      status: 'blocked',
      blocked_from: 'in_progress',
      note: 'the library is closed',
      iterations: 1,
    });
    const blocked = w.read(PROGRESS);
    expect(blocked.slice(before.length)).toMatch(
      new RegExp(`^\\n## R1 - Blocked - ${ISO}\\n\\*\\*Blockers:\\*\\* the library is closed\\n$`),
    );
    expect(await refused(w, ['iter', 'log', 'R1', '--did', 'x', '--remaining', 'y'], 3, 'WORK_PHASE_BLOCKED')).toBe(
      "cannot log an iteration of R1: R1 is blocked (the library is closed)\nresolve the blocker, then 'sow iter " +
        "unblock R1'",
    );
    expect(await refused(w, ['iter', 'block', 'R1', '--note', 'again'], 3, 'WORK_PHASE_BLOCKED')).toContain(
      'cannot block R1: R1 is blocked',
    );
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
    expect(w.read(PROGRESS).slice(unblockedR3.length)).toMatch(
      new RegExp(`^\\n## R1 - Unblocked - ${ISO}\\n\\*\\*Was blocked by:\\*\\* the library is closed\\n$`),
    );
    // The iteration count goes on where it was.
    await log(w, 'R1', 'went on', 'a little');
    expect(headings(w)).toEqual([
      'R1 - Iteration 1',
      'R1 - Blocked',
      'R3 - Blocked',
      'R3 - Unblocked',
      'R1 - Unblocked',
      'R1 - Iteration 2',
    ]);
  });
});

// Moved from test/e2e/type-iterative.test.ts: what `sow iter …` and the generic commands say and
// write is the use cases' doing; the command line keeps its own test there (stderr, exit codes,
// a missing required option, a warning beside --json).

describe('the plan guard', () => {
  it('a cycle made by hand in state.yaml is named by the plan guard', async () => {
    const w = await world('planning');
    await ok(w, [
      'iter',
      'phase',
      'add',
      'R1',
      '--title',
      'A',
      '--criteria',
      'a',
      '--output',
      'outputs/a.md',
      '--max',
      '2',
    ]);
    await ok(w, [
      'iter',
      'phase',
      'add',
      'R2',
      '--title',
      'B',
      '--criteria',
      'b',
      '--output',
      'outputs/b.md',
      '--max',
      '2',
      '--after',
      'R1',
    ]);
    await setArtifact(w.ctx(), { kind: 'phase' }, 'outputs', 0, 'approved', 'true');
    const doc = w.yaml(PROJECT);
    doc.phases.execute.metadata.work_phases[0].after = ['R2'];
    w.write(PROJECT, stringify(doc));
    expect(
      said(await refusedBy(w, () => advanceProject(w.ctx(), undefined, false), 'TRANSITION_BLOCKED', 3)),
    ).toContain('the work phases depend on each other in a cycle: R1 → R2 → R1');
    expect(w.yaml(PROJECT).statechart.current_state).toBe('PlanActive');
  });
});

describe('iter status, export, guardrail add, the context check', () => {
  it(
    'status: each phase with its status, iterations used/max, ' + 'confirmations, verification (text and data)',
    async () => {
      const w = await world('planning');
      expect((await ok(w, ['iter', 'status'])).stdout).toBe(
        "PlanActive — no work phases yet ('sow iter phase add R1 --title …')\n",
      );
      for (const d of THREE) await addPhase(w, d);
      await approvePlan(w);
      await finish(w, 'R1');
      await log(w, 'R2', 'outlined', 'the body');
      await ok(w, ['iter', 'block', 'R3', '--note', 'waiting for data']);
      const r = await typeCommand(w.ctx(), ['iter', 'status']);
      expect(`${r.text}\n`).toBe(
        [
          'ExecuteActive — current: R2',
          'ID  STATUS       ITER   TITLE',
          'R1  done         1/3    Collect sources  (1 confirmation; verification passed)',
          'R2  in_progress  1/4    Write the review',
          'R3  blocked      0/2    Executive summary  (note: waiting for data)',
          '',
        ].join('\n'),
      );
      expect(r.data).toEqual({
        state: 'ExecuteActive',
        current: 'R2',
        context_words: expect.any(Number),
        phases: [
          {
            ...THREE[0],
            after: [],
            status: 'done',
            iterations: 1,
            confirmations: 1,
            verification: 'passed',
            started_at: AN_ISO,
            completed_at: AN_ISO,
          },
          { ...THREE[1], after: ['R1'], status: 'in_progress', iterations: 1, confirmations: 0, started_at: AN_ISO },
          {
            ...THREE[2],
            after: [],
            status: 'blocked',
            iterations: 0,
            confirmations: 0,
            blocked_from: 'pending',
            note: 'waiting for data',
          },
        ],
      });
      expect((r.data as { phases: unknown }).phases).toEqual(workPhases(w));
    },
  );

  it("export: spec 002's state.json shape", async () => {
    const w = await world();
    const ctx = w.ctx();
    await newProject(ctx, { name: 'lit', description: 'Literature review', type: 'iterative', planning: true });
    await setPhaseField(ctx, 'domain', 'research');
    fillBrief(w);
    const created = w.yaml(PROJECT).created_at;
    const exported = async () => (await typeCommand(w.ctx(), ['iter', 'export'])).data as Record<string, unknown>;
    expect(await exported()).toEqual({
      task: 'Literature review',
      slug: 'lit',
      created,
      updated: AN_ISO,
      domain: 'research',
      phase: 'discover',
      current_phase: null,
      current_iteration: null,
      phases: {},
    });
    await setArtifact(ctx, { kind: 'phase' }, 'outputs', 0, 'approved', 'true');
    await advanceProject(ctx, undefined, false);
    for (const d of THREE) await addPhase(w, d);
    expect(await exported()).toMatchObject({ phase: 'plan', current_phase: 'R1', current_iteration: 0 });
    await approvePlan(w);
    await finish(w, 'R1');
    await log(w, 'R2', 'outlined', 'the body');
    await log(w, 'R2', 'wrote', 'None', '--signal');
    await log(w, 'R2', 'checked', 'a missing citation');
    const data = await exported();
    const s = w.yaml(PROJECT);
    expect(data).toEqual({
      task: 'Literature review',
      slug: 'lit',
      created,
      updated: s.updated_at,
      domain: 'research',
      phase: 'execute',
      current_phase: 'R2',
      // R2's work iterations: its confirmation is counted apart (confirmations_used).
      current_iteration: 2,
      phases: {
        R1: {
          status: 'done',
          iterations_used: 1,
          confirmations_used: 1,
          verification_passed: true,
          max_iterations: 3,
          completed_at: wp(w, 'R1').completed_at,
        },
        R2: { status: 'in_progress', iterations_used: 2, confirmations_used: 1, max_iterations: 4 },
        R3: { status: 'pending', max_iterations: 2 },
      },
    });
    expect(Object.keys(data)).toEqual([
      'task',
      'slug',
      'created',
      'updated',
      'domain',
      'phase',
      'current_phase',
      'current_iteration',
      'phases',
    ]);
  });

  it(
    "guardrail add appends the spec's entry with where it was learned; " + 'earlier entries stay as they were',
    async () => {
      const w = await world('planning');
      await ok(w, [
        'iter',
        'guardrail',
        'add',
        '--pattern',
        'Plan small',
        '--context',
        'planning',
        '--problem',
        'phases too big',
        '--solution',
        'split them',
      ]);
      expect(w.read(GUARDRAILS)).toBe(
        `${GUARDRAILS_HEADER}\n## Plan small\n- **Context:** planning\n- **Problem:** phases too big\n- ` +
          `**Solution:** split them\n- **Learned:** PlanActive\n`,
      );
      const first = w.read(GUARDRAILS);
      for (const d of THREE) await addPhase(w, d);
      await approvePlan(w);
      await log(w, 'R1', 'found 4', '6 more');
      await log(w, 'R1', 'found 3', '3 more');
      const r = await typeCommand(w.ctx(), [
        'iter',
        'guardrail',
        'add',
        '--pattern',
        'Cite DOIs',
        '--context',
        'writing\nsummaries',
        '--problem',
        'links rot',
        '--solution',
        'use DOIs, not URLs',
      ]);
      expect(r.message).toContain('Added to .sow/project/guardrails.md (learned: R1 iteration 2)');
      const second = w.read(GUARDRAILS);
      expect(second).toBe(
        `${first}\n## Cite DOIs\n- **Context:** writing summaries\n- **Problem:** links rot\n- **Solution:** use ` +
          `DOIs, not URLs\n- **Learned:** R1 iteration 2\n`,
      );
      // --phase: learned in another phase (one without an entry yet counts as its first iteration).
      await ok(w, [
        'iter',
        'guardrail',
        'add',
        '--pattern',
        'One page',
        '--context',
        'summaries',
        '--problem',
        'too long',
        '--solution',
        'cut',
        '--phase',
        'R3',
      ]);
      expect(w.read(GUARDRAILS)).toBe(
        `${second}\n## One page\n- **Context:** summaries\n- **Problem:** too long\n- **Solution:** cut\n- ` +
          `**Learned:** R3 iteration 1\n`,
      );
      await refused(
        w,
        [
          'iter',
          'guardrail',
          'add',
          '--pattern',
          'x',
          '--context',
          'x',
          '--problem',
          'x',
          '--solution',
          'x',
          '--phase',
          'R9',
        ],
        1,
        'WORK_PHASE_NOT_FOUND',
      );
    },
  );

  it(
    'context.md above 200 words: a warning from iter status and iter next, and a line in project continue; ' +
      '200 is fine',
    async () => {
      const w = await world('three');
      const words = (n: number) => `# Context\n\n${Array.from({ length: n - 2 }, (_, i) => `w${i}`).join(' ')}\n`;
      w.write(CONTEXT, words(200));
      for (const argv of [
        ['iter', 'status'],
        ['iter', 'next'],
      ])
        expect((await typeCommand(w.ctx(), argv)).warnings ?? [], argv.join(' ')).toEqual([]);
      expect((await continueProject(w.ctx())).prompt).not.toContain('context.md has');
      w.write(CONTEXT, words(201));
      const warning = '.sow/project/context.md has 201 words; keep it under 200: every iteration reads it';
      for (const argv of [
        ['iter', 'status'],
        ['iter', 'next'],
      ]) {
        const r = await typeCommand(w.ctx(), argv);
        expect(r.warnings, argv.join(' ')).toEqual([warning]);
        expect(r.text, argv.join(' ')).not.toContain('warning');
        expect(JSON.stringify(r.data), argv.join(' ')).not.toContain('warning');
      }
      expect(((await typeCommand(w.ctx(), ['iter', 'status'])).data as { context_words: number }).context_words).toBe(
        201,
      );
      expect((await continueProject(w.ctx())).prompt).toContain(
        '- .sow/project/context.md has 201 words: keep it under 200, every iteration reads it.',
      );
    },
  );
});

describe('iter next and recovery', () => {
  it(
    'iter next: context.md, the guardrails, ' + 'the criteria and the last Remaining — all a zero-context worker needs',
    async () => {
      const w = await world('three');
      w.write(CONTEXT, '# Context\n\n**Goal:** a review of caching papers for the platform team.\n');
      // The first iteration: no entry yet.
      const firstPrompt = (await ok(w, ['iter', 'next'])).stdout;
      expect(firstPrompt).toMatch(
        /^# Literature review: R1, iteration 1\n\nYou are a fresh worker with no memory of earlier iterations\./,
      );
      expect(firstPrompt).toContain(
        '## Where the last iteration stopped\n\nThis is the first iteration of the phase.\n',
      );
      expect(firstPrompt).toContain(
        '## Guardrails (.sow/project/guardrails.md): read them before you start\n\n(none yet)\n',
      );

      await log(w, 'R1', 'found 4 sources', '6 more sources, from 2020 on', '--blockers', 'two are paywalled');
      await ok(w, [
        'iter',
        'guardrail',
        'add',
        '--pattern',
        'Cite DOIs',
        '--context',
        'summaries',
        '--problem',
        'links rot',
        '--solution',
        'use DOIs',
      ]);
      const r = await typeCommand(w.ctx(), ['iter', 'next']);
      const prompt = `${r.text}\n`;
      expect(prompt).toMatch(/^# Literature review: R1, iteration 2\n/);
      expect(prompt).toContain(
        '## Context (.sow/project/context.md)\n\n# Context\n\n**Goal:** a review of caching papers for the ' +
          'platform team.\n',
      );
      expect(prompt).toContain(
        '## Cite DOIs\n- **Context:** summaries\n- **Problem:** links rot\n- **Solution:** use DOIs\n- **Learned:** ' +
          'R1 iteration 1\n',
      );
      expect(prompt).not.toContain('Read before starting any iteration. Append when issues discovered.');
      expect(prompt).toContain(
        '## The phase: R1 — Collect sources\n\n- Criteria: 10 sources, each summarised\n- Output: ' +
          '`.sow/project/outputs/sources.md`\n- Status: in_progress; 1 of 3 iterations used\n',
      );
      expect(prompt).toContain(
        '## Where the last iteration stopped\n\nRemaining: 6 more sources, from 2020 on\nBlockers: two are paywalled\n',
      );
      expect(prompt).toContain('sow iter log R1 --did "<what you did>" --remaining "<what is left, or None>"');
      expect(r.warnings ?? []).toEqual([]);
      expect(r.data).toEqual({ phase: 'R1', status: 'in_progress', prompt: prompt.replace(/\n$/, '') });
      // iter next only reads.
      const snap = w.snapshot();
      await ok(w, ['iter', 'next']);
      expect(w.snapshot()).toEqual(snap);

      // Confirming: the prompt asks for the N+1 check; verifying: for the verification.
      await log(w, 'R1', 'found the rest', 'None', '--signal');
      const confirm = (await ok(w, ['iter', 'next'])).stdout;
      expect(confirm).toMatch(/^# Literature review: R1, its confirmation after iteration 2\n/);
      expect(confirm).toContain('R1 was declared done. This iteration confirms it');
      expect(confirm).toContain('`sow iter log R1 --did "<what you checked>" --remaining None`');
      await log(w, 'R1', 'checked', 'None');
      expect((await ok(w, ['iter', 'next'])).stdout).toContain(
        'run `sow iter verify R1 --pass` or `sow iter verify R1 --fail --note "<what does not meet them>"`',
      );
      await ok(w, ['iter', 'verify', 'R1', '--fail', '--note', 'summaries lack years']);
      expect((await ok(w, ['iter', 'next'])).stdout).toContain('- Note: summaries lack years\n');
    },
  );

  it('iter next is refused outside ExecuteActive, and when every phase is done, blocked or timed out', async () => {
    const w = await world('planning');
    expect(await refused(w, ['iter', 'next'], 3, 'WORK_PHASE_BLOCKED')).toContain(
      'iterations run in ExecuteActive, and the project is in PlanActive',
    );
    await addPhase(w, THREE[0]!, 1);
    await approvePlan(w);
    await log(w, 'R1', 'tried', 'all of it');
    expect(await refused(w, ['iter', 'next'], 3, 'WORK_PHASE_BLOCKED')).toBe(
      "no work phase can go on: R1 is timeout\n'sow project continue' says how to get each going again",
    );
    await ok(w, ['iter', 'extend', 'R1', '--max', '2']);
    await finish(w, 'R1');
    expect(await refused(w, ['iter', 'next'], 3, 'WORK_PHASE_BLOCKED')).toBe(
      "every work phase is done\nrun 'sow advance' to verify the whole work",
    );
  });

  it(
    'project continue names the phase, the iteration and what was Remaining; the ways out of a timeout; the next ' +
      'unblocked phase',
    async () => {
      const w = await world('three');
      await log(w, 'R1', 'found 4 sources', '6 more sources');
      // An interruption: a new session starts from project continue.
      const cont = (await continueProject(w.ctx())).prompt;
      expect(cont).toContain(
        '## Where the work stands\n\n- Current work phase: **R1** (in_progress) — Collect sources; 1 of 3 iterations ' +
          'used, next: iteration 2.\n',
      );
      const at = w.read(PROGRESS).match(/^## R1 - Iteration 1 - (\S+)$/m)![1]!;
      expect(cont).toContain(`- Its last entry (iteration 1, ${at}) left Remaining: 6 more sources\n`);
      expect(cont).toContain(
        "- Next: 'sow iter next' prints the iteration's prompt; 'sow agent spawn <agent> --iteration' gives it to a " +
          'fresh worker.',
      );

      // A timeout: raise the maximum, simplify the criteria, or intervene.
      await log(w, 'R1', 'found 2 more', '4 more sources');
      await log(w, 'R1', 'found 1 more', '3 more sources');
      expect(wp(w, 'R1').status).toBe('timeout');
      const timedOut = (await continueProject(w.ctx())).prompt;
      expect(timedOut).toContain(
        "- R1 timed out after 3 of 3 iterations. Ask the human: raise the maximum ('sow iter extend R1 --max 6'), " +
          'simplify its criteria (\'sow iter phase set R1 criteria "…"\'), or intervene by hand.',
      );
      // R2 waits for R1: the phase to work on is R3.
      expect(timedOut).toContain(
        '- Current work phase: **R3** (pending) — Executive summary; 0 of 2 iterations used, next: iteration 1.\n- ' +
          'It has no entry in progress.md yet: its first iteration starts it.\n',
      );

      // A block: ask the human, or go on with the next unblocked phase.
      await ok(w, ['iter', 'extend', 'R1', '--max', '6']);
      await ok(w, ['iter', 'block', 'R1', '--note', 'the library is closed']);
      const blocked = (await continueProject(w.ctx())).prompt;
      expect(blocked).toContain(
        '- R1 is blocked: the library is closed. Ask the human for input, or go on with the next unblocked phase, ' +
          "R3; 'sow iter unblock R1' when it is resolved.",
      );
      expect(blocked).toContain('- Current work phase: **R3** (pending)');
      expect(blocked).not.toContain('timed out');
    },
  );
});

// Moved from the walk of test/e2e/type-iterative.test.ts: the type's guards in each state, what
// `sow iter phase add|set` refuses, plan.md as sow draws it, a failed review that reopens the
// phases it names, and the archive. The walk there keeps one refusal per state.

/** The advance, refused by the guard out of the current state: "message\nhint". */
const blockedAdvance = async (w: World) =>
  said(await refusedBy(w, () => advanceProject(w.ctx(), undefined, false), 'TRANSITION_BLOCKED', 3));

describe('the walk: brief and plan', () => {
  it(
    'an iter/ branch implies the type: its documents, ' + 'the brief recorded as the output of discover, not approved',
    async () => {
      const w = await world();
      w.git(['checkout', '-q', '-b', 'iter/x']);
      await newProject(w.ctx(), { name: 'x', description: 'X', planning: true });
      expect(w.yaml(PROJECT)).toMatchObject({
        type: 'iterative',
        branch: 'iter/x',
        statechart: { current_state: 'DiscoverActive' },
      });
      expect(w.yaml(PROJECT).phases.discover.outputs).toEqual([
        { type: 'brief', path: 'brief.md', approved: false, created_at: AN_ISO },
      ]);
      for (const f of ['brief.md', 'context.md', 'progress.md', 'guardrails.md'])
        expect(w.exists(`${P}/${f}`), f).toBe(true);
    },
  );

  it(
    'DiscoverActive: the brief approved or the advance names the command; ' + 'work phases belong to planning',
    async () => {
      const w = await world();
      const ctx = w.ctx();
      await newProject(ctx, { name: 'lit', description: 'Literature review', type: 'iterative', planning: true });
      const noBrief = await blockedAdvance(w);
      expect(noBrief).toContain('blocked until the brief (brief.md) is approved');
      expect(noBrief).toContain("approve it: 'sow output set --phase discover --index 0 approved true'");
      expect(await refused(w, ['iter', 'phase', 'add', 'R1', '--title', 'x'], 3, 'WORK_PHASE_BLOCKED')).toContain(
        'cannot add a work phase in DiscoverActive',
      );
      fillBrief(w);
      w.write(`${P}/sources/seed.md`, '# Seed paper\n');
      await addArtifact(ctx, { kind: 'phase' }, 'inputs', { type: 'source', path: 'sources/seed.md', extra: {} });
      await setPhaseField(ctx, 'domain', 'research');
      await setArtifact(ctx, { kind: 'phase' }, 'outputs', 0, 'approved', 'true');
      expect((await advanceProject(ctx, undefined, false)).to).toBe('PlanActive');
      expect(w.yaml(PROJECT).phases.discover.status).toBe('completed');
      expect(w.yaml(PROJECT).phases.plan.status).toBe('in_progress');
    },
  );

  it(
    'PlanActive: every gap named, bad values and cycles refused where made, plan.md drawn from the phases and never ' +
      'read back, a change withdraws the approval',
    async () => {
      const w = await world('planning');
      const ctx = w.ctx();
      const approve = () => setArtifact(ctx, { kind: 'phase' }, 'outputs', 0, 'approved', 'true');
      expect(await blockedAdvance(w)).toContain("no work phases yet: 'sow iter phase add R1");
      await ok(w, ['iter', 'phase', 'add', 'R1', '--title', 'Collect sources']);
      expect(w.yaml(PROJECT).phases.plan.outputs).toEqual([
        { type: 'plan', path: 'plan.md', approved: false, created_at: AN_ISO },
      ]);
      expect(await blockedAdvance(w)).toContain(
        `R1 has no criteria ('sow iter phase set R1 criteria "<measurable>"'); R1 has no output ('sow iter phase set ` +
          `R1 output outputs/<file>.md'); R1 has no maximum of iterations ('sow iter phase set R1 max 5')`,
      );
      // Approving a plan with gaps does not get past the guard.
      await approve();
      expect(await blockedAdvance(w)).toContain('R1 has no criteria');
      expect((await ok(w, ['iter', 'phase', 'set', 'R1', 'criteria', '10 sources, each summarised'])).stdout).toBe(
        'R1.criteria = 10 sources, each summarised\n',
      );
      expect(w.yaml(PROJECT).phases.plan.outputs[0].approved).toBe(false);
      await ok(w, ['iter', 'phase', 'set', 'R1', 'output', 'outputs/sources.md']);
      expect(await blockedAdvance(w)).toMatch(/has no maximum of iterations \('sow iter phase set R1 max 5'\)$/m);
      expect(await refused(w, ['iter', 'phase', 'set', 'R1', 'max', '0'], 1, 'INVALID_VALUE')).toContain(
        'a whole number ≥ 1',
      );
      expect(await refused(w, ['iter', 'phase', 'set', 'R1', 'status', 'done'], 1, 'INVALID_VALUE')).toContain(
        'title, criteria, output, max, after',
      );
      await ok(w, ['iter', 'phase', 'set', 'R1', 'max', '3']);
      await ok(w, [
        'iter',
        'phase',
        'add',
        'R2',
        '--title',
        'Write the review',
        '--criteria',
        '2000 words citing every source',
        '--output',
        'outputs/review.md',
        '--max',
        '4',
        '--after',
        'R1',
      ]);
      await ok(w, [
        'iter',
        'phase',
        'add',
        'R3',
        '--title',
        'Executive summary',
        '--criteria',
        'one page',
        '--output',
        'outputs/summary.md',
        '--max',
        '2',
        '--after',
        'R2',
      ]);
      expect(await refused(w, ['iter', 'phase', 'add', 'R2', '--title', 'again'], 1, 'WORK_PHASE_EXISTS')).toContain(
        'work phase R2 exists already',
      );
      expect(
        await refused(w, ['iter', 'phase', 'add', 'R4', '--title', 'x', '--after', 'R9'], 1, 'INVALID_VALUE'),
      ).toContain('ids of existing work phases (R1, R2, R3)');
      expect(await refused(w, ['iter', 'phase', 'set', 'R1', 'after', 'R3'], 1, 'DEPENDENCY_CYCLE')).toContain(
        'the dependencies would form a cycle: R1 → R3 → R2 → R1',
      );
      expect(await refused(w, ['iter', 'phase', 'set', 'R1', 'after', 'R1'], 1, 'INVALID_VALUE')).toContain(
        'phases other than R1 itself',
      );

      const plan = w.read(PLAN);
      expect(plan).toMatch(new RegExp(`^# Literature review - Phases\\n\\n\\*\\*Created:\\*\\* ${ISO}\\n`));
      expect(plan.slice(plan.indexOf('**Domain:**'))).toBe(
        [
          '**Domain:** research',
          '**Total:** 3 phases',
          '',
          '<!-- Written by sow from the work phases (sow iter phase add|set); edits here are overwritten. -->',
          '',
          '## Phases',
          '',
          '- [ ] **R1**: Collect sources',
          '  - Criteria: 10 sources, each summarised',
          '  - Output: `outputs/sources.md`',
          '  - Max iterations: 3',
          '',
          '- [ ] **R2**: Write the review',
          '  - Criteria: 2000 words citing every source',
          '  - Output: `outputs/review.md`',
          '  - Max iterations: 4',
          '  - After: R1',
          '',
          '- [ ] **R3**: Executive summary',
          '  - Criteria: one page',
          '  - Output: `outputs/summary.md`',
          '  - Max iterations: 2',
          '  - After: R2',
          '',
          '## Dependencies',
          '',
          'R1 → R2 → R3 (sequential)',
          '',
        ].join('\n'),
      );
      // plan.md is never read back: an edit of it changes nothing, and the next change overwrites it.
      w.write(PLAN, '# hand-edited\n');
      expect(await blockedAdvance(w)).toContain(
        "show the human .sow/project/plan.md; when they agree, approve it: 'sow output set --phase plan --index 0 " +
          "approved true'",
      );
      await ok(w, ['iter', 'phase', 'set', 'R3', 'after', 'R1']);
      expect(w.read(PLAN)).toContain('## Dependencies\n\nR1 (can start at once)\nR1 → R2\nR1 → R3\n');

      await approve();
      expect(w.yaml(PROJECT).phases.plan.outputs[0].approved).toBe(true);
      const changed = await typeCommand(ctx, ['iter', 'phase', 'set', 'R3', 'criteria', 'one page, no jargon']);
      expect([...(changed.warnings ?? []), changed.message ?? ''].join('\n')).toContain(
        "plan.md changed, so its approval was withdrawn: approve it again ('sow output set --phase plan --index 0 " +
          "approved true')",
      );
      expect(w.yaml(PROJECT).phases.plan.outputs[0].approved).toBe(false);
      expect(w.read(PLAN)).toContain('  - Criteria: one page, no jargon\n');
      expect(await blockedAdvance(w)).toContain("approve it: 'sow output set --phase plan --index 0 approved true'");
      await approve();
      expect((await advanceProject(ctx, undefined, false)).to).toBe('ExecuteActive');
      expect(w.yaml(PROJECT).phases.plan.status).toBe('completed');
      expect(workPhases(w)).toEqual([
        {
          id: 'R1',
          title: 'Collect sources',
          criteria: '10 sources, each summarised',
          output: 'outputs/sources.md',
          max: 3,
          after: [],
          status: 'pending',
          iterations: 0,
          confirmations: 0,
        },
        {
          id: 'R2',
          title: 'Write the review',
          criteria: '2000 words citing every source',
          output: 'outputs/review.md',
          max: 4,
          after: ['R1'],
          status: 'pending',
          iterations: 0,
          confirmations: 0,
        },
        {
          id: 'R3',
          title: 'Executive summary',
          criteria: 'one page, no jargon',
          output: 'outputs/summary.md',
          max: 2,
          after: ['R1'],
          status: 'pending',
          iterations: 0,
          confirmations: 0,
        },
      ]);
      // Planning is over: phases can no longer be removed.
      expect(await refused(w, ['iter', 'phase', 'remove', 'R3'], 3, 'WORK_PHASE_BLOCKED')).toContain(
        'it belongs to PlanActive',
      );
    },
  );
});

describe('the walk: execute, verify, deliver', () => {
  it(
    'the phases not done named; a failed review reopens only the phases it names, whose iterations go on counting; ' +
      'deliver waits for every output; Complete archives and indexes',
    async () => {
      const w = await world('three');
      const ctx = w.ctx();
      expect(await blockedAdvance(w)).toContain(
        "not done: R1 (pending), R2 (pending), R3 (pending); next: 'sow iter next' (R1)",
      );
      await finish(w, 'R1');
      await finish(w, 'R2');
      expect(await blockedAdvance(w)).toContain("not done: R3 (pending); next: 'sow iter next' (R3)");
      await finish(w, 'R3');
      expect((await advanceProject(ctx, undefined, false)).to).toBe('VerifyActive');
      expect(w.yaml(PROJECT).phases.execute.status).toBe('completed');

      expect(await blockedAdvance(w)).toContain("the latest approved review of this round has assessment 'pass'");
      w.write(`${P}/review/round1.md`, '# Review\n\nR2 cites only 8 sources.\n');
      await addArtifact(ctx, { kind: 'phase' }, 'outputs', {
        type: 'review',
        path: 'review/round1.md',
        extra: { assessment: 'fail', phases: 'R2' },
      });
      // Not approved yet: still blocked.
      await blockedAdvance(w);
      await setArtifact(ctx, { kind: 'phase' }, 'outputs', 0, 'approved', 'true');
      expect((await advanceProject(ctx, undefined, false)).to).toBe('ExecuteActive');
      const reopened = w.yaml(PROJECT);
      expect(reopened.phases.verify.status).toBe('failed');
      expect(reopened.phases.execute).toMatchObject({ status: 'in_progress', iteration: 2 });
      expect(reopened.phases.execute.completed_at).toBeUndefined();
      expect(wp(w, 'R1')).toMatchObject({ status: 'done', verification: 'passed' });
      expect(wp(w, 'R3')).toMatchObject({ status: 'done', verification: 'passed' });
      expect(wp(w, 'R2')).toMatchObject({
        status: 'in_progress',
        iterations: 1,
        confirmations: 1,
        verification: 'failed',
        note: 'reopened by a failed review',
      });
      expect(wp(w, 'R2').completed_at).toBeUndefined();
      expect(await blockedAdvance(w)).toContain("not done: R2 (in_progress); next: 'sow iter next' (R2)");
      await log(w, 'R2', 'added the 2 missing sources', 'None', '--signal');
      expect(headings(w).at(-1)).toBe('R2 - Iteration 2');
      await log(w, 'R2', 're-checked R2', 'None');
      expect(headings(w).at(-1)).toBe('R2 - Confirmation 2');
      await ok(w, ['iter', 'verify', 'R2', '--pass']);
      // plan.md is redrawn as the phases move: every box ticked; its Created stays.
      expect(w.read(PLAN).match(/^- \[x\] \*\*R\d\*\*/gm)).toHaveLength(3);
      expect(w.read(PLAN)).toContain(`**Created:** ${w.yaml(PROJECT).phases.plan.started_at}`);
      const numbered = headings(w).filter((h) => /Iteration|Confirmation/.test(h));
      expect(new Set(numbered).size, numbered.join(', ')).toBe(numbered.length);
      expect((await advanceProject(ctx, undefined, false)).to).toBe('VerifyActive');
      expect(w.yaml(PROJECT).phases.verify.iteration).toBe(2);

      w.write(`${P}/review/round2.md`, '# Review\n\nAll criteria met.\n');
      await addArtifact(ctx, { kind: 'phase' }, 'outputs', {
        type: 'review',
        path: 'review/round2.md',
        approved: 'true',
        extra: { assessment: 'pass' },
      });
      expect((await advanceProject(ctx, undefined, false)).to).toBe('DeliverActive');
      expect(w.yaml(PROJECT).phases.verify.status).toBe('completed');

      for (const f of ['sources', 'review', 'summary']) rmSync(join(w.dir, `${P}/outputs/${f}.md`));
      expect(await blockedAdvance(w)).toContain(
        'write .sow/project/outputs/sources.md (R1), .sow/project/outputs/review.md (R2), ' +
          '.sow/project/outputs/summary.md (R3)',
      );
      w.write(`${P}/outputs/sources.md`, '# Sources\n');
      w.write(`${P}/outputs/review.md`, '# Review of X\n');
      expect(await blockedAdvance(w)).toMatch(/write \.sow\/project\/outputs\/summary\.md \(R3\)$/);
      w.write(`${P}/outputs/summary.md`, '# Summary\n');
      w.write(`${P}/scratch.txt`, 'not kept\n');
      const kept = Object.fromEntries(
        [
          'brief.md',
          'plan.md',
          'context.md',
          'progress.md',
          'guardrails.md',
          'outputs/sources.md',
          'outputs/review.md',
          'outputs/summary.md',
        ].map((f) => [f, w.read(`${P}/${f}`)]),
      );
      w.clock.set('2026-12-02T12:00:00.000Z');
      expect(await advanceProject(ctx, undefined, false)).toMatchObject({
        from: 'DeliverActive',
        to: 'Complete',
        event: 'delivered',
        projectRemoved: true,
      });
      expect(w.exists(P)).toBe(false);
      const dir = '.sow/knowledge/iterative/lit';
      for (const [f, text] of Object.entries(kept)) expect(w.read(`${dir}/${f}`), f).toBe(text);
      expect(w.exists(`${dir}/scratch.txt`)).toBe(false);
      expect(w.exists(`${dir}/review`)).toBe(false);
      expect(parse(w.read('.sow/knowledge/index.yaml'))).toEqual({
        entries: [
          {
            type: 'iterative',
            topic: 'Literature review',
            name: 'lit',
            branch: 'iter/lit',
            date: '2026-12-02',
            path: dir,
            phase: 'complete',
            phases: [
              {
                id: 'R1',
                title: 'Collect sources',
                status: 'done',
                iterations: 1,
                confirmations: 1,
                verification: 'passed',
                max: 3,
                output: 'outputs/sources.md',
                completed_at: expect.any(String),
              },
              {
                id: 'R2',
                title: 'Write the review',
                status: 'done',
                iterations: 2,
                confirmations: 2,
                verification: 'passed',
                max: 4,
                output: 'outputs/review.md',
                completed_at: expect.any(String),
              },
              {
                id: 'R3',
                title: 'Executive summary',
                status: 'done',
                iterations: 1,
                confirmations: 1,
                verification: 'passed',
                max: 2,
                output: 'outputs/summary.md',
                completed_at: expect.any(String),
              },
            ],
            files: [...Object.keys(kept), 'state.json'].sort().map((f) => `${dir}/${f}`),
          },
        ],
      });
    },
  );
});

describe("the type's guards", () => {
  it('iter log, verify, block and phase changes belong to their states (exit 3)', async () => {
    const w = await world();
    const ctx = w.ctx();
    await newProject(ctx, { name: 'lit', description: 'Literature review', type: 'iterative', planning: true });
    const discover = await refused(w, ['iter', 'log', 'R1', '--did', 'x', '--remaining', 'y'], 3, 'WORK_PHASE_BLOCKED');
    expect(discover).toBe(
      'cannot log an iteration in DiscoverActive: it belongs to ExecuteActive\nfirst the brief: fill in ' +
        ".sow/project/brief.md with the human, approve it ('sow output set --index 0 approved true') and run " +
        "'sow advance'",
    );
    fillBrief(w);
    await setArtifact(ctx, { kind: 'phase' }, 'outputs', 0, 'approved', 'true');
    await advanceProject(ctx, undefined, false);
    await ok(w, [
      'iter',
      'phase',
      'add',
      'R1',
      '--title',
      'A',
      '--criteria',
      'a',
      '--output',
      'outputs/a.md',
      '--max',
      '2',
    ]);
    expect(
      await refused(w, ['iter', 'log', 'R1', '--did', 'x', '--remaining', 'y'], 3, 'WORK_PHASE_BLOCKED'),
    ).toContain('cannot log an iteration in PlanActive');
    expect(await refused(w, ['iter', 'verify', 'R1', '--pass'], 3, 'WORK_PHASE_BLOCKED')).toContain(
      'cannot verify a work phase in PlanActive',
    );
    expect(await refused(w, ['iter', 'block', 'R1', '--note', 'x'], 3, 'WORK_PHASE_BLOCKED')).toContain(
      'cannot block a work phase in PlanActive',
    );
    await approvePlan(w);
    await finish(w, 'R1');
    await advanceProject(ctx, undefined, false);
    expect(w.yaml(PROJECT).statechart.current_state).toBe('VerifyActive');
    for (const argv of [
      ['iter', 'log', 'R1', '--did', 'x', '--remaining', 'y'],
      ['iter', 'phase', 'add', 'R2', '--title', 'B'],
      ['iter', 'phase', 'set', 'R1', 'title', 'x'],
      ['iter', 'extend', 'R1', '--max', '9'],
      ['iter', 'unblock', 'R1'],
    ]) {
      expect(await refused(w, argv, 3, 'WORK_PHASE_BLOCKED'), argv.join(' ')).toContain('in VerifyActive');
    }
  });

  it('sow iter in a standard project: WRONG_PROJECT_TYPE (exit 1)', async () => {
    const w = await world('standard');
    for (const argv of [
      ['iter', 'status'],
      ['iter', 'next'],
      ['iter', 'export'],
      ['iter', 'log', 'R1', '--did', 'x', '--remaining', 'y'],
    ]) {
      expect(await refused(w, argv, 1, 'WRONG_PROJECT_TYPE'), argv.join(' ')).toContain(
        `'sow ${argv.slice(0, 2).join(' ')}' belongs to iterative projects, and this project is standard`,
      );
    }
  });

  it('the work phases are read-only to the generic commands (READ_ONLY_FIELD, exit 1)', async () => {
    const w = await world('three');
    for (const field of ['work_phases.0.status', 'metadata.work_phases.0.status', 'work_phases']) {
      const text = said(
        await refusedBy(w, () => setPhaseField(w.ctx(), field, 'done', 'execute'), 'READ_ONLY_FIELD', 1),
      );
      expect(text, field).toContain('the work phases change only through their commands');
      expect(text, field).toContain("use 'sow iter phase add|set', 'sow iter log|verify|extend|block|unblock'");
    }
    expect(wp(w, 'R1').status).toBe('pending');
  });

  it(
    'a hand-edited state.yaml with an invalid work phase: ' + 'refused (exit 4) by every use case, nothing overwritten',
    async () => {
      const w = await world('three');
      await log(w, 'R1', 'started', 'the rest');
      const good = w.read(PROJECT);
      const edits: [string, (p: any[]) => void][] = [
        ['work_phases.0.status', (p) => (p[0].status = 'finished')],
        ['work_phases.1.max', (p) => (p[1].max = -1)],
        ['work_phases.2.id', (p) => (p[2].id = 'R1')],
        ['work_phases.0.after', (p) => (p[0].after = 'R2')],
      ];
      const runs: [string, () => Promise<unknown>][] = [
        ['iter status', () => typeCommand(w.ctx(), ['iter', 'status'])],
        ['iter log', () => typeCommand(w.ctx(), ['iter', 'log', 'R1', '--did', 'x', '--remaining', 'y'])],
        ['project status', () => projectStatus(w.ctx())],
        ['project continue', () => continueProject(w.ctx())],
        ['advance', () => advanceProject(w.ctx(), undefined, false)],
        ['output list', () => listArtifacts(w.ctx(), { kind: 'phase' }, 'outputs')],
      ];
      for (const [field, edit] of edits) {
        const doc = parse(good);
        edit(doc.phases.execute.metadata.work_phases);
        w.write(PROJECT, stringify(doc));
        for (const [what, run] of runs) {
          const text = said(await refusedBy(w, run, 'STATE_FILE_INVALID', 4));
          expect(text, `${field}: ${what}`).toContain(`.sow/project/state.yaml: phases.execute.metadata.${field}:`);
        }
      }
      w.write(PROJECT, good);
      expect((await ok(w, ['iter', 'status'])).stdout).toContain('R1  in_progress  1/3');
    },
  );
});
