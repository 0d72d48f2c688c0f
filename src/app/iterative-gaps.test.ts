/**
 * The iterative type's gaps in-process: one iteration count in every view (the log, status,
 * export, next and continue), a review's --phases naming only work phases, the export of a
 * maximum not set yet, plan.md following the domain and the description, the variants of an
 * unfinished brief and of a pass without its output, and the notes of a failed review that
 * reopens a phase with no iteration left. One of each refusal as the command line words it (error
 * and hint on stderr) is test/e2e/iterative-gaps.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { PROJECT, refused, said, typeCommand, worlds, type World } from '../../test/inproc.js';
import { advanceProject } from './advance.js';
import { addArtifact, setArtifact } from './artifacts.js';
import { setPhaseField } from './phase.js';
import { newProject, setProjectField } from './project.js';
import { continueProject } from './status.js';

const P = '.sow/project';
const BRIEF = `${P}/brief.md`;
const PLAN = `${P}/plan.md`;
const PROGRESS = `${P}/progress.md`;

const FILLED =
  '# Survey\n\n**Domain:** research\n\n## Outcome Needed\nA pick.\n\n## Done When\n- 3 libraries compared\n\n## ' +
  'Constraints\n- a week\n';

const phase = { kind: 'phase' } as const;

/** A type command that succeeds: what it prints on stdout, and its data. */
async function ok(w: World, argv: string[]): Promise<{ stdout: string; data: any }> {
  const r = await typeCommand(w.ctx(), argv);
  return { stdout: r.text === undefined ? '' : `${r.text}\n`, data: r.data };
}

const log = (w: World, id: string, remaining: string, ...more: string[]) =>
  ok(w, ['iter', 'log', id, '--did', 'work', '--remaining', remaining, ...more]);
const wp = (w: World, id: string) =>
  (w.yaml(PROJECT).phases.execute.metadata.work_phases as any[]).find((p) => p.id === id);
const headings = (w: World) =>
  (w.read(PROGRESS).match(/^## .*$/gm) ?? []).map((h) => h.slice(3).replace(/ - \S+$/, ''));

async function started(w: World): Promise<void> {
  await newProject(w.ctx(), { name: 'survey', description: 'Survey', type: 'iterative', planning: true });
}

/** The brief filled in and approved: PlanActive. */
async function planning(w: World, brief = FILLED): Promise<void> {
  await started(w);
  w.write(BRIEF, brief);
  await setArtifact(w.ctx(), phase, 'outputs', 0, 'approved', 'true');
  expect((await advanceProject(w.ctx(), undefined, false)).to).toBe('PlanActive');
}

/** R1 (max `max`) and `more` defined and the plan approved: ExecuteActive. */
async function executing(w: World, max = 4, more: string[][] = []): Promise<void> {
  await planning(w);
  await ok(w, [
    'iter',
    'phase',
    'add',
    'R1',
    '--title',
    'Compare',
    '--criteria',
    'a table',
    '--output',
    'outputs/compare.md',
    '--max',
    String(max),
  ]);
  for (const args of more) await ok(w, ['iter', 'phase', 'add', ...args]);
  await setArtifact(w.ctx(), phase, 'outputs', 0, 'approved', 'true');
  expect((await advanceProject(w.ctx(), undefined, false)).to).toBe('ExecuteActive');
}

const world = worlds({
  started,
  planning: (w) => planning(w),
  executing: (w) => executing(w, 4),
  executingTwo: (w) =>
    executing(w, 4, [['R2', '--title', 'Pick', '--criteria', 'one', '--output', 'outputs/pick.md', '--max', '2']]),
});

describe('one iteration count everywhere', () => {
  it(
    'the log, status, export, next and continue agree: ' + 'work iterations count, confirmations are counted apart',
    async () => {
      const w = await world('executing');
      await log(w, 'R1', 'two more');
      await log(w, 'R1', 'one more');
      expect((await log(w, 'R1', 'None', '--signal')).stdout).toBe(
        'R1 says it is done after iteration 3 of 4: it is confirming. Run its confirmation, one more iteration that ' +
          'checks the criteria afresh and finds nothing left (it does not count against the maximum).\n',
      );
      expect((await log(w, 'R1', 'a missing row')).stdout).toBe(
        "R1's confirmation found more to do: it is in progress again. Next: iteration 4 of 4.\n",
      );
      expect((await log(w, 'R1', 'None', '--signal')).stdout).toBe(
        'R1 says it is done after iteration 4 of 4: it is confirming. Run its confirmation, one more iteration that ' +
          'checks the criteria afresh and finds nothing left (it does not count against the maximum).\n',
      );
      expect(headings(w)).toEqual([
        'R1 - Iteration 1',
        'R1 - Iteration 2',
        'R1 - Iteration 3',
        'R1 - Confirmation 1',
        'R1 - Iteration 4',
      ]);
      // The same 4 in every view.
      expect((await ok(w, ['iter', 'status'])).stdout).toContain('R1  confirming   4/4    Compare  (1 confirmation)\n');
      expect((await ok(w, ['iter', 'export'])).data).toMatchObject({
        current_phase: 'R1',
        current_iteration: 4,
        phases: { R1: { status: 'confirming', iterations_used: 4, confirmations_used: 1, max_iterations: 4 } },
      });
      const next = (await ok(w, ['iter', 'next'])).stdout;
      expect(next).toMatch(/^# Survey: R1, its confirmation after iteration 4\n/);
      expect(next).toContain(
        '- Status: confirming; 4 of 4 iterations used, 1 confirmation (confirmations do not count against the ' +
          'maximum)\n',
      );
      const cont = (await continueProject(w.ctx())).prompt;
      expect(cont).toContain(
        '- Current work phase: **R1** (confirming) — Compare; 4 of 4 iterations used, next: its confirmation after ' +
          'iteration 4.\n',
      );
      expect(cont).toMatch(/- Its last entry \(iteration 4, \S+\) left Remaining: None\n/);
      // The confirmation's entry is its own; the phase keeps its count.
      const confirmed = (await ok(w, ['iter', 'log', 'R1', '--did', 'checked', '--remaining', 'None'])).data;
      expect(confirmed).toMatchObject({
        iteration: 4,
        confirmation: 2,
        phase: { status: 'verifying', iterations: 4, confirmations: 2 },
      });
      expect(headings(w).at(-1)).toBe('R1 - Confirmation 2');
      expect((await ok(w, ['iter', 'next'])).stdout).toMatch(/^# Survey: R1, its verification after iteration 4\n/);
    },
  );
});

describe('approvals vouch only for finished content', () => {
  it(
    "a review's --phases must name work phases, at output add and output set (did you mean, the list), " +
      'changing nothing',
    async () => {
      const w = await world('executingTwo');
      const ctx = w.ctx();
      for (const id of ['R1', 'R2']) {
        await log(w, id, 'None', '--signal');
        await log(w, id, 'None');
        w.write(`${P}/${wp(w, id).output}`, 'x\n');
        await ok(w, ['iter', 'verify', id, '--pass']);
      }
      expect((await advanceProject(ctx, undefined, false)).to).toBe('VerifyActive');
      w.write(`${P}/review/r.md`, '# Review\n');
      const review = (phases: string) =>
        addArtifact(ctx, phase, 'outputs', {
          type: 'review',
          path: 'review/r.md',
          extra: { assessment: 'fail', phases },
        });
      expect(said(await refused(w, () => review('R1,r2'), 'WORK_PHASE_NOT_FOUND', 1))).toBe(
        "the review names 'r2', which is not a work phase; did you mean 'R2'?\nthe work phases are R1, R2 ('sow " +
          "iter status')",
      );
      expect(said(await refused(w, () => review('R9'), 'WORK_PHASE_NOT_FOUND', 1))).toContain(
        'the work phases are R1, R2',
      );
      await review('R2');
      expect(
        said(
          await refused(w, () => setArtifact(ctx, phase, 'outputs', 0, 'phases', 'R2,R7'), 'WORK_PHASE_NOT_FOUND', 1),
        ),
      ).toContain("the review names 'R7', which is not a work phase");
      expect(
        said(
          await refused(
            w,
            () => setArtifact(ctx, phase, 'outputs', 0, 'metadata.phases', 'R7'),
            'WORK_PHASE_NOT_FOUND',
            1,
          ),
        ),
      ).toContain("'R7'");
      await setArtifact(ctx, phase, 'outputs', 0, 'phases', 'R1,R2');
      expect(w.yaml(PROJECT).phases.verify.outputs[0].metadata).toEqual({ assessment: 'fail', phases: 'R1,R2' });
    },
  );
});

describe('what the iterative-work format asks for', () => {
  it('max_iterations not set yet exports as null, not 0', async () => {
    const w = await world('planning');
    await ok(w, ['iter', 'phase', 'add', 'R1', '--title', 'Compare']);
    await ok(w, ['iter', 'phase', 'add', 'R2', '--title', 'Pick', '--max', '2']);
    expect((await ok(w, ['iter', 'export'])).data.phases).toEqual({
      R1: { status: 'pending', max_iterations: null },
      R2: { status: 'pending', max_iterations: 2 },
    });
  });

  it("plan.md follows the domain: the brief's Domain line, and a domain set later, at once", async () => {
    const w = await world('started');
    const ctx = w.ctx();
    w.write(BRIEF, FILLED.replace('**Domain:** research', '**Domain:** writing'));
    await setArtifact(ctx, phase, 'outputs', 0, 'approved', 'true');
    await advanceProject(ctx, undefined, false);
    expect(w.exists(PLAN)).toBe(false);
    await ok(w, ['iter', 'phase', 'add', 'R1', '--title', 'Compare']);
    expect(w.read(PLAN)).toContain('**Domain:** writing\n');
    expect((await ok(w, ['iter', 'export'])).data.domain).toBe('writing');
    // Set by a command after plan.md was drawn: plan.md follows in the same write.
    await setPhaseField(ctx, 'domain', 'analysis', 'discover');
    expect(w.read(PLAN)).toContain('**Domain:** analysis\n');
    expect((await ok(w, ['iter', 'export'])).data.domain).toBe('analysis');
    // So does the title.
    await setProjectField(ctx, 'description', 'Survey of JWT libraries');
    expect(w.read(PLAN)).toMatch(/^# Survey of JWT libraries - Phases\n/);
  });
});

// Moved from test/e2e/iterative-gaps.test.ts, which keeps one refusal of each as the command line
// words it.

describe('approvals vouch only for finished content: the variants', () => {
  it(
    'a brief half filled in names only the placeholders left, also when recorded again approved; braces of the ' +
      "person's own are no placeholders",
    async () => {
      const w = await world('started');
      const ctx = w.ctx();
      w.write(BRIEF, `${FILLED}- {Criterion 2}\n`);
      expect(
        said(
          await refused(w, () => setArtifact(ctx, phase, 'outputs', 0, 'approved', 'true'), 'ARTIFACT_UNFINISHED', 1),
        ),
      ).toContain("still holds the template's placeholder '{Criterion 2}'\n");
      await refused(
        w,
        () => addArtifact(ctx, phase, 'outputs', { type: 'brief', path: 'brief.md', approved: 'true', extra: {} }),
        'ARTIFACT_UNFINISHED',
        1,
      );
      w.write(BRIEF, `${FILLED}\n## Notes\nTokens look like {"alg": "ES256"}.\n`);
      await setArtifact(ctx, phase, 'outputs', 0, 'approved', 'true');
      expect(w.yaml(PROJECT).phases.discover.outputs[0].approved).toBe(true);
      expect(await advanceProject(ctx, undefined, false)).toEqual({
        from: 'DiscoverActive',
        to: 'PlanActive',
        event: 'brief_approved',
        dryRun: false,
        projectRemoved: false,
      });
    },
  );

  it(
    "iter verify --pass is refused while the phase's output does not exist, the phase still verifying; --fail is " +
      'not; written, it passes',
    async () => {
      const w = await world('executing');
      await log(w, 'R1', 'None', '--signal');
      await log(w, 'R1', 'None');
      expect(wp(w, 'R1').status).toBe('verifying');
      expect(
        said(
          await refused(
            w,
            () => typeCommand(w.ctx(), ['iter', 'verify', 'R1', '--pass']),
            'WORK_PHASE_OUTPUT_MISSING',
            3,
          ),
        ),
      ).toContain('cannot pass R1: its output .sow/project/outputs/compare.md does not exist');
      expect(wp(w, 'R1').status).toBe('verifying');
      await ok(w, ['iter', 'verify', 'R1', '--fail', '--note', 'there is no table yet']);
      await log(w, 'R1', 'None', '--signal');
      await log(w, 'R1', 'None');
      w.write(`${P}/outputs/compare.md`, '| lib |\n');
      expect((await ok(w, ['iter', 'verify', 'R1', '--pass'])).stdout).toBe('R1 passed verification: it is done.\n');
    },
  );
});

describe('a failed review that reopens a phase with no iteration left', () => {
  it(
    'the advance notes it needs iter extend, and the next phase its next iteration; continue says so; extend puts ' +
      'it back in progress',
    async () => {
      const w = await world();
      await executing(w, 1, [
        ['R2', '--title', 'Pick', '--criteria', 'one', '--output', 'outputs/pick.md', '--max', '3'],
      ]);
      const ctx = w.ctx();
      for (const id of ['R1', 'R2']) {
        await log(w, id, 'None', '--signal');
        await log(w, id, 'None');
        w.write(`${P}/${wp(w, id).output}`, 'x\n');
        await ok(w, ['iter', 'verify', id, '--pass']);
      }
      await advanceProject(ctx, undefined, false);
      w.write(`${P}/review/r.md`, '# Review\n');
      await addArtifact(ctx, phase, 'outputs', {
        type: 'review',
        path: 'review/r.md',
        approved: 'true',
        extra: { assessment: 'fail', phases: 'R1,R2' },
      });
      expect(await advanceProject(ctx, undefined, false)).toEqual({
        from: 'VerifyActive',
        to: 'ExecuteActive',
        event: 'verify_fail',
        dryRun: false,
        projectRemoved: false,
        notes: [
          'R1 was reopened by the failed review, but it has used its 1 of 1 iterations: raise its maximum before ' +
            "work on it can go on ('sow iter extend R1 --max 4').",
          "R2 is in progress again: iteration 2 of 3 is next ('sow iter next').",
        ],
      });
      expect([wp(w, 'R1').status, wp(w, 'R2').status]).toEqual(['timeout', 'in_progress']);
      const cont = (await continueProject(ctx)).prompt;
      expect(cont).toContain(
        '- R1 was reopened by the failed review, but it has used its 1 of 1 iterations: raise its maximum before ' +
          "work on it can go on ('sow iter extend R1 --max 4'). Ask the human to raise it, or to simplify its " +
          'criteria (\'sow iter phase set R1 criteria "…"\').',
      );
      expect(cont).not.toContain('R1 timed out');
      await ok(w, ['iter', 'extend', 'R1', '--max', '4']);
      expect(wp(w, 'R1').status).toBe('in_progress');
    },
  );
});
