/**
 * The iterative project type (spec 002, issue 11) through the CLI only: DiscoverActive (an
 * approved brief) → PlanActive (work phases R1…Rn defined by `sow iter phase add|set`, rendered to
 * plan.md, approved) → ExecuteActive (each work phase iterated pending → in_progress → confirming
 * → verifying → done, with blocked and timeout) → VerifyActive (a pass, or a fail that reopens the
 * phases it names) → DeliverActive (every phase's output written) → Complete (archived to
 * .sow/knowledge/iterative/<slug>/). Every refused move exits with the guard's code and leaves
 * .sow/ (state.yaml and progress.md above all) byte-identical.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { makeWorld, runSow, show, type World } from './agent-world.js';
import { expectEnvelope, expectFails, ok, PROJECT, type Repo, useRepos } from './harness.js';

const fresh = useRepos();

const P = '.sow/project';
const PROGRESS = `${P}/progress.md`;
const GUARDRAILS = `${P}/guardrails.md`;
const CONTEXT = `${P}/context.md`;
const PLAN = `${P}/plan.md`;
const ISO = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z';
const AN_ISO = expect.stringMatching(new RegExp(`^${ISO}$`));
const DATE = expect.stringMatching(/^\d{4}-\d\d-\d\d$/);
const GUARDRAILS_HEADER = '# Guardrails\n\nRead before starting any iteration. Append when issues discovered.\n';

/**
 * A refusal (see expectFails: exit code, error code, a hint, .sow/ unchanged), and, said once
 * more where it matters most, state.yaml and progress.md byte-identical.
 */
function refused(repo: Repo, args: string[], exit: number, code: string, human = false): string {
  const state = repo.read(PROJECT);
  const progress = repo.exists(PROGRESS) ? repo.read(PROGRESS) : undefined;
  const text = expectFails(repo, args, exit, code, { human });
  expect(repo.read(PROJECT), `sow ${args.join(' ')} changed state.yaml`).toBe(state);
  expect(repo.exists(PROGRESS) ? repo.read(PROGRESS) : undefined, `sow ${args.join(' ')} changed progress.md`).toBe(progress);
  return text;
}

const state = (repo: Repo) => repo.yaml(PROJECT);
const current = (repo: Repo) => state(repo).statechart.current_state;
const workPhases = (repo: Repo): any[] => state(repo).phases.execute.metadata.work_phases ?? [];
const wp = (repo: Repo, id: string) => workPhases(repo).find((p) => p.id === id);
/** The headings of progress.md's entries, without their timestamps ("R1 - Iteration 2"). */
const headings = (repo: Repo) => (repo.read(PROGRESS).match(/^## .*$/gm) ?? []).map((h) => h.slice(3).replace(new RegExp(` - ${ISO}$`), ''));

const log = (repo: Repo, id: string, did: string, remaining: string, ...more: string[]) => ok(repo, ['iter', 'log', id, '--did', did, '--remaining', remaining, ...more]);

/** brief.md as the human fills it in: every placeholder of the template replaced. */
const fillBrief = (repo: Repo, domain = 'research') =>
  repo.write(`${P}/brief.md`, `# Literature review\n\n**Domain:** ${domain}\n\n## Outcome Needed\nA review of X.\n\n## Done When\n- 10 sources\n\n## Constraints\n- two weeks\n`);

/** A new iterative project, its brief filled in and approved: PlanActive. */
function planning(repo: Repo, name = 'lit', description = 'Literature review'): void {
  ok(repo, ['project', 'new', name, '--type', 'iterative', '--description', description]);
  fillBrief(repo);
  ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
  expect(ok(repo, ['advance']).stdout).toBe('PlanActive\n');
}

interface Def {
  id: string;
  title: string;
  criteria: string;
  output: string;
  max: number;
  after?: string;
}

/** Defines the work phases, approves the plan: ExecuteActive. */
function executing(repo: Repo, defs: Def[], name?: string, description?: string): void {
  planning(repo, name, description);
  for (const d of defs) {
    ok(repo, ['iter', 'phase', 'add', d.id, '--title', d.title, '--criteria', d.criteria, '--output', d.output, '--max', String(d.max), ...(d.after ? ['--after', d.after] : [])]);
  }
  ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
  expect(ok(repo, ['advance']).stdout).toBe('ExecuteActive\n');
}

/** An in_progress (or pending) phase through signal → confirmation → verification to done, its output written. */
function finish(repo: Repo, id: string): void {
  log(repo, id, `finished ${id}`, 'None', '--signal');
  expect(wp(repo, id).status).toBe('confirming');
  log(repo, id, `re-checked ${id}`, 'None');
  expect(wp(repo, id).status).toBe('verifying');
  const output = `${P}/${wp(repo, id).output}`;
  if (!repo.exists(output)) repo.write(output, `# ${id}\n`);
  ok(repo, ['iter', 'verify', id, '--pass']);
  expect(wp(repo, id).status).toBe('done');
}

const THREE: Def[] = [
  { id: 'R1', title: 'Collect sources', criteria: '10 sources, each summarised', output: 'outputs/sources.md', max: 3 },
  { id: 'R2', title: 'Write the review', criteria: '2000 words citing every source', output: 'outputs/review.md', max: 4, after: 'R1' },
  { id: 'R3', title: 'Executive summary', criteria: 'one page', output: 'outputs/summary.md', max: 2 },
];

// ---------------------------------------------------------------------------------------------
// 1. The whole walk.
// ---------------------------------------------------------------------------------------------

describe('iterative, start to finish through the CLI', () => {
  it('is listed; --type iterative makes iter/<name> with its documents; an iter/ branch implies the type', () => {
    const repo = fresh();
    expect(ok(repo, ['project', 'types']).stdout).toMatch(/^iterative +iter\/ +Iterative work: a brief, a plan of phases R1…Rn/m);
    const r = ok(repo, ['project', 'new', 'lit', '--type', 'iterative', '--description', 'Literature review']);
    expect(r.stdout).toBe('DiscoverActive\n');
    expect(r.stderr).toContain("created and checked out branch 'iter/lit'");
    expect(repo.git(['branch', '--show-current'])).toBe('iter/lit');
    for (const f of ['brief.md', 'context.md', 'progress.md', 'guardrails.md']) expect(repo.exists(`${P}/${f}`), f).toBe(true);
    expect(repo.exists(PLAN)).toBe(false);
    ok(repo, ['project', 'delete', '--yes']);
    repo.git(['checkout', '-q', '-b', 'iter/x']);
    expect(ok(repo, ['project', 'new', 'x']).stdout).toBe('DiscoverActive\n');
    expect(state(repo)).toMatchObject({ type: 'iterative', branch: 'iter/x', statechart: { current_state: 'DiscoverActive' } });
    expect(state(repo).phases.discover.outputs).toEqual([{ type: 'brief', path: 'brief.md', approved: false, created_at: AN_ISO }]);
    expect(repo.exists(`${P}/brief.md`)).toBe(true);
  });

  it('brief → plan → execute → verify (fail reopens R2 only, then pass) → deliver → Complete, archived and indexed', () => {
    const repo = fresh();
    ok(repo, ['project', 'new', 'lit-review', '--type', 'iterative', '--description', 'Literature review']);

    // ---- DiscoverActive: the brief, written from the template and recorded as the output ----
    const s0 = state(repo);
    expect(s0).toMatchObject({ name: 'lit-review', type: 'iterative', branch: 'iter/lit-review', statechart: { current_state: 'DiscoverActive' } });
    expect(Object.fromEntries(Object.entries(s0.phases).map(([k, v]: [string, any]) => [k, v.status]))).toEqual({
      discover: 'in_progress',
      plan: 'pending',
      execute: 'pending',
      verify: 'pending',
      deliver: 'pending',
    });
    expect(s0.phases.discover.outputs).toEqual([{ type: 'brief', path: 'brief.md', approved: false, created_at: AN_ISO }]);
    const brief = repo.read(`${P}/brief.md`);
    expect(brief).toMatch(
      new RegExp(`^# Literature review\\n\\n\\*\\*Created:\\*\\* ${ISO}\\n\\*\\*Domain:\\*\\* \\{research\\|writing\\|analysis\\|planning\\|software\\}\\n\\n## Outcome Needed\\n`),
    );
    for (const h of ['## Done When', '## Constraints', '## Notes']) expect(brief).toContain(h);
    expect(repo.read(CONTEXT)).toMatch(/^# Literature review Context\n\n<!-- Keep it under 200 words: every iteration reads it. -->\n\n\*\*Goal:\*\*/);
    expect(repo.read(PROGRESS)).toBe('# Progress Log\n');
    expect(repo.read(GUARDRAILS)).toBe(GUARDRAILS_HEADER);

    expect(ok(repo, ['advance', '--list']).stdout).toContain('blocked  brief_approved → PlanActive');
    const noBrief = refused(repo, ['advance'], 3, 'TRANSITION_BLOCKED', true);
    expect(noBrief).toContain('blocked until the brief (brief.md) is approved');
    expect(noBrief).toContain("approve it: 'sow output set --phase discover --index 0 approved true'");
    // Work phases belong to planning.
    expect(refused(repo, ['iter', 'phase', 'add', 'R1', '--title', 'x'], 3, 'WORK_PHASE_BLOCKED')).toContain('cannot add a work phase in DiscoverActive');

    repo.write(`${P}/brief.md`, '# Literature review\n\n## Outcome Needed\nA review of X.\n\n## Done When\n- 10 sources\n');
    repo.write(`${P}/context.md`, '# Context\n\n**Goal:** review X.\n');
    repo.write(`${P}/sources/seed.md`, '# Seed paper\n');
    ok(repo, ['input', 'add', '--type', 'source', '--path', 'sources/seed.md']);
    ok(repo, ['phase', 'set', 'domain', 'research']);
    ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
    expect(ok(repo, ['advance']).stdout).toBe('PlanActive\n');
    expect(state(repo).phases.discover.status).toBe('completed');
    expect(state(repo).phases.plan.status).toBe('in_progress');

    // ---- PlanActive: phases by command; plan.md rendered from them; the gaps named ----
    const noPhases = refused(repo, ['advance'], 3, 'TRANSITION_BLOCKED');
    expect(noPhases).toContain("no work phases yet: 'sow iter phase add R1");
    const added = ok(repo, ['iter', 'phase', 'add', 'R1', '--title', 'Collect sources']);
    expect(added.stdout).toBe('R1: Collect sources\n');
    expect(added.stderr).toContain("Still to set before the plan can be approved: criteria, output, max ('sow iter phase set R1 <field> <value>')");
    // sow records plan.md as the plan phase's output, not approved.
    expect(state(repo).phases.plan.outputs).toEqual([{ type: 'plan', path: 'plan.md', approved: false, created_at: AN_ISO }]);
    const gaps = refused(repo, ['advance'], 3, 'TRANSITION_BLOCKED');
    expect(gaps).toContain(
      `R1 has no criteria ('sow iter phase set R1 criteria "<measurable>"'); R1 has no output ('sow iter phase set R1 output outputs/<file>.md'); R1 has no maximum of iterations ('sow iter phase set R1 max 5')`,
    );
    // Approving a plan with gaps does not get past the guard: the gaps are still named.
    ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
    expect(refused(repo, ['advance'], 3, 'TRANSITION_BLOCKED')).toContain('R1 has no criteria');
    expect(ok(repo, ['iter', 'phase', 'set', 'R1', 'criteria', '10 sources, each summarised']).stdout).toBe('R1.criteria = 10 sources, each summarised\n');
    // Changing a phase withdrew the approval it had.
    expect(state(repo).phases.plan.outputs[0].approved).toBe(false);
    ok(repo, ['iter', 'phase', 'set', 'R1', 'output', 'outputs/sources.md']);
    expect(refused(repo, ['advance'], 3, 'TRANSITION_BLOCKED')).toMatch(/has no maximum of iterations \('sow iter phase set R1 max 5'\)$/m);
    expect(refused(repo, ['iter', 'phase', 'set', 'R1', 'max', '0'], 1, 'INVALID_VALUE')).toContain('a whole number ≥ 1');
    expect(refused(repo, ['iter', 'phase', 'set', 'R1', 'status', 'done'], 1, 'INVALID_VALUE')).toContain('title, criteria, output, max, after');
    ok(repo, ['iter', 'phase', 'set', 'R1', 'max', '3']);
    ok(repo, ['iter', 'phase', 'add', 'R2', '--title', 'Write the review', '--criteria', '2000 words citing every source', '--output', 'outputs/review.md', '--max', '4', '--after', 'R1']);
    ok(repo, ['iter', 'phase', 'add', 'R3', '--title', 'Executive summary', '--criteria', 'one page', '--output', 'outputs/summary.md', '--max', '2', '--after', 'R2']);
    expect(refused(repo, ['iter', 'phase', 'add', 'R2', '--title', 'again'], 1, 'WORK_PHASE_EXISTS')).toContain('work phase R2 exists already');
    expect(refused(repo, ['iter', 'phase', 'add', 'R4', '--title', 'x', '--after', 'R9'], 1, 'INVALID_VALUE')).toContain('ids of existing work phases (R1, R2, R3)');
    // A cycle is refused where it would be made.
    expect(refused(repo, ['iter', 'phase', 'set', 'R1', 'after', 'R3'], 1, 'DEPENDENCY_CYCLE')).toContain('the dependencies would form a cycle: R1 → R3 → R2 → R1');
    expect(refused(repo, ['iter', 'phase', 'set', 'R1', 'after', 'R1'], 1, 'INVALID_VALUE')).toContain('phases other than R1 itself');

    const plan = repo.read(PLAN);
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
    repo.write(PLAN, '# hand-edited\n');
    expect(refused(repo, ['advance'], 3, 'TRANSITION_BLOCKED')).toContain("show the human .sow/project/plan.md; when they agree, approve it: 'sow output set --phase plan --index 0 approved true'");
    ok(repo, ['iter', 'phase', 'set', 'R3', 'after', 'R1']);
    expect(repo.read(PLAN)).toContain('## Dependencies\n\nR1 (can start at once)\nR1 → R2\nR1 → R3\n');

    ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
    expect(state(repo).phases.plan.outputs[0].approved).toBe(true);
    // Changing a phase after the approval withdraws it, and says so.
    const changed = ok(repo, ['iter', 'phase', 'set', 'R3', 'criteria', 'one page, no jargon']);
    expect(changed.stderr).toContain("plan.md changed, so its approval was withdrawn: approve it again ('sow output set --phase plan --index 0 approved true')");
    expect(state(repo).phases.plan.outputs[0].approved).toBe(false);
    expect(repo.read(PLAN)).toContain('  - Criteria: one page, no jargon\n');
    expect(refused(repo, ['advance'], 3, 'TRANSITION_BLOCKED')).toContain("approve it: 'sow output set --phase plan --index 0 approved true'");
    ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
    expect(ok(repo, ['advance']).stdout).toBe('ExecuteActive\n');
    expect(state(repo).phases.plan.status).toBe('completed');
    expect(state(repo).phases.execute.status).toBe('in_progress');
    expect(workPhases(repo)).toEqual([
      { id: 'R1', title: 'Collect sources', criteria: '10 sources, each summarised', output: 'outputs/sources.md', max: 3, after: [], status: 'pending', iterations: 0, confirmations: 0 },
      { id: 'R2', title: 'Write the review', criteria: '2000 words citing every source', output: 'outputs/review.md', max: 4, after: ['R1'], status: 'pending', iterations: 0, confirmations: 0 },
      { id: 'R3', title: 'Executive summary', criteria: 'one page, no jargon', output: 'outputs/summary.md', max: 2, after: ['R1'], status: 'pending', iterations: 0, confirmations: 0 },
    ]);
    // Planning is over: phases can no longer be removed.
    expect(refused(repo, ['iter', 'phase', 'remove', 'R3'], 3, 'WORK_PHASE_BLOCKED')).toContain('it belongs to PlanActive');

    // ---- ExecuteActive: every phase to done ----
    expect(refused(repo, ['advance'], 3, 'TRANSITION_BLOCKED')).toContain("not done: R1 (pending), R2 (pending), R3 (pending); next: 'sow iter next' (R1)");
    expect(log(repo, 'R1', 'found 4 sources', '6 more sources').stdout).toBe('R1: iteration 1 of 3 logged; in progress.\n');
    expect(wp(repo, 'R1')).toMatchObject({ status: 'in_progress', iterations: 1, confirmations: 0, started_at: AN_ISO });
    finish(repo, 'R1');
    expect(wp(repo, 'R1')).toMatchObject({ status: 'done', iterations: 2, confirmations: 1, verification: 'passed', completed_at: AN_ISO });
    finish(repo, 'R2');
    expect(refused(repo, ['advance'], 3, 'TRANSITION_BLOCKED')).toContain("not done: R3 (pending); next: 'sow iter next' (R3)");
    finish(repo, 'R3');
    // A confirmation is numbered apart: only work iterations take an iteration's number.
    expect(headings(repo)).toEqual([
      'R1 - Iteration 1',
      'R1 - Iteration 2',
      'R1 - Confirmation 1',
      'R1 - Verification',
      'R2 - Iteration 1',
      'R2 - Confirmation 1',
      'R2 - Verification',
      'R3 - Iteration 1',
      'R3 - Confirmation 1',
      'R3 - Verification',
    ]);
    expect(ok(repo, ['advance']).stdout).toBe('VerifyActive\n');
    expect(state(repo).phases.execute.status).toBe('completed');

    // ---- VerifyActive: a fail that names R2 reopens R2 only ----
    const noReview = refused(repo, ['advance'], 3, 'TRANSITION_BLOCKED');
    expect(noReview).toContain("the latest approved review of this round has assessment 'pass'");
    repo.write(`${P}/review/round1.md`, '# Review\n\nR2 cites only 8 sources.\n');
    ok(repo, ['output', 'add', '--type', 'review', '--path', 'review/round1.md', '--assessment', 'fail', '--phases', 'R2']);
    // Not approved yet: still blocked.
    refused(repo, ['advance'], 3, 'TRANSITION_BLOCKED');
    ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
    expect(ok(repo, ['advance']).stdout).toBe('ExecuteActive\n');
    const reopened = state(repo);
    expect(reopened.phases.verify.status).toBe('failed');
    expect(reopened.phases.execute).toMatchObject({ status: 'in_progress', iteration: 2 });
    expect(reopened.phases.execute.completed_at).toBeUndefined();
    expect(wp(repo, 'R1')).toMatchObject({ status: 'done', verification: 'passed' });
    expect(wp(repo, 'R3')).toMatchObject({ status: 'done', verification: 'passed' });
    expect(wp(repo, 'R2')).toMatchObject({ status: 'in_progress', iterations: 1, confirmations: 1, verification: 'failed', note: 'reopened by a failed review' });
    expect(wp(repo, 'R2').completed_at).toBeUndefined();
    expect(refused(repo, ['advance'], 3, 'TRANSITION_BLOCKED')).toContain("not done: R2 (in_progress); next: 'sow iter next' (R2)");
    // The reopened phase's iterations go on counting: no entry number is used twice.
    log(repo, 'R2', 'added the 2 missing sources', 'None', '--signal');
    expect(headings(repo).at(-1)).toBe('R2 - Iteration 2');
    log(repo, 'R2', 're-checked R2', 'None');
    expect(headings(repo).at(-1)).toBe('R2 - Confirmation 2');
    ok(repo, ['iter', 'verify', 'R2', '--pass']);
    // plan.md is redrawn as the phases move: every phase done, every box ticked; its Created stays.
    expect(repo.read(PLAN).match(/^- \[x\] \*\*R\d\*\*/gm)).toHaveLength(3);
    expect(repo.read(PLAN)).toContain(`**Created:** ${state(repo).phases.plan.started_at}`);
    const numbered = headings(repo).filter((h) => /Iteration|Confirmation/.test(h));
    expect(new Set(numbered).size, numbered.join(', ')).toBe(numbered.length);
    expect(ok(repo, ['advance']).stdout).toBe('VerifyActive\n');
    expect(state(repo).phases.verify.iteration).toBe(2);

    // ---- the pass ----
    repo.write(`${P}/review/round2.md`, '# Review\n\nAll criteria met.\n');
    const pass = expectEnvelope(ok(repo, ['output', 'add', '--type', 'review', '--path', 'review/round2.md', '--assessment', 'pass', '--approved', 'true', '--json']));
    expect(pass.data.artifact).toMatchObject({ type: 'review', approved: true, metadata: { assessment: 'pass' } });
    expect(ok(repo, ['advance']).stdout).toBe('DeliverActive\n');
    expect(state(repo).phases.verify.status).toBe('completed');

    // ---- DeliverActive: blocked until every output exists (each was there when it passed; these were deleted since) ----
    for (const f of ['sources', 'review', 'summary']) rmSync(join(repo.dir, `${P}/outputs/${f}.md`));
    expect(refused(repo, ['advance'], 3, 'TRANSITION_BLOCKED')).toContain('write .sow/project/outputs/sources.md (R1), .sow/project/outputs/review.md (R2), .sow/project/outputs/summary.md (R3)');
    repo.write(`${P}/outputs/sources.md`, '# Sources\n\n1. Seed paper\n');
    repo.write(`${P}/outputs/review.md`, '# Review of X\n');
    const one = refused(repo, ['advance'], 3, 'TRANSITION_BLOCKED');
    expect(one).toMatch(/write \.sow\/project\/outputs\/summary\.md \(R3\)$/);
    repo.write(`${P}/outputs/summary.md`, '# Summary\n');
    repo.write(`${P}/scratch.txt`, 'not kept\n');
    const kept = Object.fromEntries(
      ['brief.md', 'plan.md', 'context.md', 'progress.md', 'guardrails.md', 'sources/seed.md', 'outputs/sources.md', 'outputs/review.md', 'outputs/summary.md'].map((f) => [f, repo.read(`${P}/${f}`)]),
    );

    // ---- Complete: archived, indexed, .sow/project/ gone ----
    const done = expectEnvelope(ok(repo, ['advance', '--json']));
    expect(done.data).toMatchObject({ from: 'DeliverActive', to: 'Complete', event: 'delivered', projectRemoved: true });
    expect(repo.exists(P)).toBe(false);
    const dir = '.sow/knowledge/iterative/lit-review';
    for (const [f, text] of Object.entries(kept)) expect(repo.read(`${dir}/${f}`), f).toBe(text);
    expect(repo.exists(`${dir}/scratch.txt`)).toBe(false);
    expect(repo.exists(`${dir}/review`)).toBe(false);
    expect(parse(repo.read('.sow/knowledge/index.yaml'))).toEqual({
      entries: [
        {
          type: 'iterative',
          topic: 'Literature review',
          name: 'lit-review',
          branch: 'iter/lit-review',
          date: DATE,
          path: dir,
          phases: [
            { id: 'R1', title: 'Collect sources', iterations: 2, output: 'outputs/sources.md' },
            { id: 'R2', title: 'Write the review', iterations: 2, output: 'outputs/review.md' },
            { id: 'R3', title: 'Executive summary', iterations: 1, output: 'outputs/summary.md' },
          ],
          files: Object.keys(kept)
            .sort()
            .map((f) => `${dir}/${f}`),
        },
      ],
    });
    expect(repo.sow(['project', 'status']).code).not.toBe(0);
  });

  it('a cycle made by hand in state.yaml is named by the plan guard', () => {
    const repo = fresh();
    planning(repo);
    ok(repo, ['iter', 'phase', 'add', 'R1', '--title', 'A', '--criteria', 'a', '--output', 'outputs/a.md', '--max', '2']);
    ok(repo, ['iter', 'phase', 'add', 'R2', '--title', 'B', '--criteria', 'b', '--output', 'outputs/b.md', '--max', '2', '--after', 'R1']);
    ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
    const doc = state(repo);
    doc.phases.execute.metadata.work_phases[0].after = ['R2'];
    repo.write(PROJECT, stringify(doc));
    expect(refused(repo, ['advance'], 3, 'TRANSITION_BLOCKED')).toContain('the work phases depend on each other in a cycle: R1 → R2 → R1');
    expect(current(repo)).toBe('PlanActive');
  });
});

// ---------------------------------------------------------------------------------------------
// 2. The work-phase lifecycle, and what it refuses.
// ---------------------------------------------------------------------------------------------

// The work-phase lifecycle itself (dependencies, signal, confirmation, verification, timeout,
// extend, block and unblock, progress.md only appended to) is tested in-process in
// src/app/type-iterative.test.ts; here, what only the command line does.
describe('the work-phase lifecycle on the command line', () => {
  it('a refusal on stderr (error and hint, exit 3); a missing required option is a usage error (exit 2)', () => {
    const repo = fresh();
    executing(repo, THREE);
    const waiting = refused(repo, ['iter', 'log', 'R2', '--did', 'x', '--remaining', 'y'], 3, 'WORK_PHASE_BLOCKED', true);
    expect(waiting).toBe("cannot start R2: it comes after R1, which is not done\nwork on R1 first ('sow iter next' names the phase to work on)");
    expect(refused(repo, ['iter', 'log', 'R1', '--remaining', 'y'], 2, 'USAGE')).toContain("required option '--did <text>'");
    expect(refused(repo, ['iter', 'block', 'R1'], 2, 'USAGE')).toContain("required option '--note <text>'");
    expect(log(repo, 'R1', 'summarised all 10', 'None', '--signal').stdout).toBe(
      'R1 says it is done after iteration 1 of 3: it is confirming. Run its confirmation, one more iteration that checks the criteria afresh and finds nothing left (it does not count against the maximum).\n',
    );
  });
});

// ---------------------------------------------------------------------------------------------
// 3. status, export, guardrails, the context check.
// ---------------------------------------------------------------------------------------------

describe('iter status, export, guardrail add, the context check', () => {
  it('status: each phase with its status, iterations used/max, confirmations, verification (text and --json)', () => {
    const repo = fresh();
    planning(repo);
    expect(ok(repo, ['iter', 'status']).stdout).toBe("PlanActive — no work phases yet ('sow iter phase add R1 --title …')\n");
    for (const d of THREE)
      ok(repo, ['iter', 'phase', 'add', d.id, '--title', d.title, '--criteria', d.criteria, '--output', d.output, '--max', String(d.max), ...(d.after ? ['--after', d.after] : [])]);
    ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
    ok(repo, ['advance']);
    finish(repo, 'R1');
    log(repo, 'R2', 'outlined', 'the body');
    ok(repo, ['iter', 'block', 'R3', '--note', 'waiting for data']);
    expect(ok(repo, ['iter', 'status']).stdout).toBe(
      [
        'ExecuteActive — current: R2',
        'ID  STATUS       ITER   TITLE',
        'R1  done         1/3    Collect sources  (1 confirmation; verification passed)',
        'R2  in_progress  1/4    Write the review',
        'R3  blocked      0/2    Executive summary  (note: waiting for data)',
        '',
      ].join('\n'),
    );
    const j = expectEnvelope(ok(repo, ['iter', 'status', '--json']));
    expect(j).toEqual({
      ok: true,
      data: {
        state: 'ExecuteActive',
        current: 'R2',
        context_words: expect.any(Number),
        phases: [
          { ...THREE[0], after: [], status: 'done', iterations: 1, confirmations: 1, verification: 'passed', started_at: AN_ISO, completed_at: AN_ISO },
          { ...THREE[1], after: ['R1'], status: 'in_progress', iterations: 1, confirmations: 0, started_at: AN_ISO },
          { ...THREE[2], after: [], status: 'blocked', iterations: 0, confirmations: 0, blocked_from: 'pending', note: 'waiting for data' },
        ],
      },
    });
    expect(j.data.phases).toEqual(workPhases(repo));
  });

  it("export: spec 002's state.json shape", () => {
    const repo = fresh();
    ok(repo, ['project', 'new', 'lit', '--type', 'iterative', '--description', 'Literature review']);
    ok(repo, ['phase', 'set', 'domain', 'research']);
    fillBrief(repo);
    const created = state(repo).created_at;
    expect(expectEnvelope(ok(repo, ['iter', 'export', '--json'])).data).toEqual({
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
    ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
    ok(repo, ['advance']);
    for (const d of THREE)
      ok(repo, ['iter', 'phase', 'add', d.id, '--title', d.title, '--criteria', d.criteria, '--output', d.output, '--max', String(d.max), ...(d.after ? ['--after', d.after] : [])]);
    expect(expectEnvelope(ok(repo, ['iter', 'export', '--json'])).data).toMatchObject({ phase: 'plan', current_phase: 'R1', current_iteration: 0 });
    ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
    ok(repo, ['advance']);
    finish(repo, 'R1');
    log(repo, 'R2', 'outlined', 'the body');
    log(repo, 'R2', 'wrote', 'None', '--signal');
    log(repo, 'R2', 'checked', 'a missing citation');
    const exported = ok(repo, ['iter', 'export']);
    const data = JSON.parse(exported.stdout);
    expect(exported.stdout).toBe(`${JSON.stringify(data, null, 2)}\n`);
    const s = state(repo);
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
        R1: { status: 'done', iterations_used: 1, confirmations_used: 1, verification_passed: true, max_iterations: 3, completed_at: wp(repo, 'R1').completed_at },
        R2: { status: 'in_progress', iterations_used: 2, confirmations_used: 1, max_iterations: 4 },
        R3: { status: 'pending', max_iterations: 2 },
      },
    });
    expect(Object.keys(data)).toEqual(['task', 'slug', 'created', 'updated', 'domain', 'phase', 'current_phase', 'current_iteration', 'phases']);
  });

  it("guardrail add appends the spec's entry with where it was learned; earlier entries stay as they were", () => {
    const repo = fresh();
    planning(repo);
    ok(repo, ['iter', 'guardrail', 'add', '--pattern', 'Plan small', '--context', 'planning', '--problem', 'phases too big', '--solution', 'split them']);
    expect(repo.read(GUARDRAILS)).toBe(`${GUARDRAILS_HEADER}\n## Plan small\n- **Context:** planning\n- **Problem:** phases too big\n- **Solution:** split them\n- **Learned:** PlanActive\n`);
    const first = repo.read(GUARDRAILS);
    for (const d of THREE)
      ok(repo, ['iter', 'phase', 'add', d.id, '--title', d.title, '--criteria', d.criteria, '--output', d.output, '--max', String(d.max), ...(d.after ? ['--after', d.after] : [])]);
    ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
    ok(repo, ['advance']);
    log(repo, 'R1', 'found 4', '6 more');
    log(repo, 'R1', 'found 3', '3 more');
    const r = ok(repo, ['iter', 'guardrail', 'add', '--pattern', 'Cite DOIs', '--context', 'writing\nsummaries', '--problem', 'links rot', '--solution', 'use DOIs, not URLs']);
    expect(r.stderr).toContain('Added to .sow/project/guardrails.md (learned: R1 iteration 2)');
    const second = repo.read(GUARDRAILS);
    expect(second).toBe(`${first}\n## Cite DOIs\n- **Context:** writing summaries\n- **Problem:** links rot\n- **Solution:** use DOIs, not URLs\n- **Learned:** R1 iteration 2\n`);
    // --phase: learned in another phase (one without an entry yet counts as its first iteration).
    ok(repo, ['iter', 'guardrail', 'add', '--pattern', 'One page', '--context', 'summaries', '--problem', 'too long', '--solution', 'cut', '--phase', 'R3']);
    expect(repo.read(GUARDRAILS)).toBe(`${second}\n## One page\n- **Context:** summaries\n- **Problem:** too long\n- **Solution:** cut\n- **Learned:** R3 iteration 1\n`);
    expect(refused(repo, ['iter', 'guardrail', 'add', '--pattern', 'x', '--context', 'x', '--problem', 'x'], 2, 'USAGE')).toContain("required option '--solution <text>'");
    refused(repo, ['iter', 'guardrail', 'add', '--pattern', 'x', '--context', 'x', '--problem', 'x', '--solution', 'x', '--phase', 'R9'], 1, 'WORK_PHASE_NOT_FOUND');
  });

  it('context.md above 200 words: a warning on stderr from iter status, iter next and project continue; 200 is fine', () => {
    const repo = fresh();
    executing(repo, THREE);
    const words = (n: number) => `# Context\n\n${Array.from({ length: n - 2 }, (_, i) => `w${i}`).join(' ')}\n`;
    repo.write(CONTEXT, words(200));
    for (const args of [
      ['iter', 'status'],
      ['iter', 'next'],
      ['iter', 'status', '--json'],
    ])
      expect(ok(repo, args).stderr, args.join(' ')).not.toContain('warning');
    expect(ok(repo, ['project', 'continue']).stdout).not.toContain('context.md has');
    repo.write(CONTEXT, words(201));
    const warning = 'warning: .sow/project/context.md has 201 words; keep it under 200: every iteration reads it\n';
    for (const args of [
      ['iter', 'status'],
      ['iter', 'next'],
      ['iter', 'status', '--json'],
      ['iter', 'next', '--json'],
    ]) {
      const r = ok(repo, args);
      expect(r.stderr, args.join(' ')).toContain(warning);
      expect(r.stdout, args.join(' ')).not.toContain('warning');
    }
    expect(expectEnvelope(ok(repo, ['iter', 'status', '--json'])).data.context_words).toBe(201);
    expect(ok(repo, ['project', 'continue']).stdout).toContain('- .sow/project/context.md has 201 words: keep it under 200, every iteration reads it.');
  });
});

// ---------------------------------------------------------------------------------------------
// 4. iter next, and project continue after an interruption, a timeout, a block.
// ---------------------------------------------------------------------------------------------

describe('iter next and recovery', () => {
  it('iter next: context.md, the guardrails, the criteria and the last Remaining — all a zero-context worker needs', () => {
    const repo = fresh();
    executing(repo, THREE);
    repo.write(CONTEXT, '# Context\n\n**Goal:** a review of caching papers for the platform team.\n');
    // The first iteration: no entry yet.
    const firstPrompt = ok(repo, ['iter', 'next']).stdout;
    expect(firstPrompt).toMatch(/^# Literature review: R1, iteration 1\n\nYou are a fresh worker with no memory of earlier iterations\./);
    expect(firstPrompt).toContain('## Where the last iteration stopped\n\nThis is the first iteration of the phase.\n');
    expect(firstPrompt).toContain('## Guardrails (.sow/project/guardrails.md): read them before you start\n\n(none yet)\n');

    log(repo, 'R1', 'found 4 sources', '6 more sources, from 2020 on', '--blockers', 'two are paywalled');
    ok(repo, ['iter', 'guardrail', 'add', '--pattern', 'Cite DOIs', '--context', 'summaries', '--problem', 'links rot', '--solution', 'use DOIs']);
    const r = ok(repo, ['iter', 'next']);
    const prompt = r.stdout;
    expect(prompt).toMatch(/^# Literature review: R1, iteration 2\n/);
    expect(prompt).toContain('## Context (.sow/project/context.md)\n\n# Context\n\n**Goal:** a review of caching papers for the platform team.\n');
    expect(prompt).toContain('## Cite DOIs\n- **Context:** summaries\n- **Problem:** links rot\n- **Solution:** use DOIs\n- **Learned:** R1 iteration 1\n');
    expect(prompt).not.toContain('Read before starting any iteration. Append when issues discovered.');
    expect(prompt).toContain(
      '## The phase: R1 — Collect sources\n\n- Criteria: 10 sources, each summarised\n- Output: `.sow/project/outputs/sources.md`\n- Status: in_progress; 1 of 3 iterations used\n',
    );
    expect(prompt).toContain('## Where the last iteration stopped\n\nRemaining: 6 more sources, from 2020 on\nBlockers: two are paywalled\n');
    expect(prompt).toContain('sow iter log R1 --did "<what you did>" --remaining "<what is left, or None>"');
    expect(r.stderr).toBe('');
    expect(expectEnvelope(ok(repo, ['iter', 'next', '--json'])).data).toEqual({ phase: 'R1', status: 'in_progress', prompt: prompt.replace(/\n$/, '') });
    // iter next only reads.
    const snap = repo.snapshot();
    ok(repo, ['iter', 'next']);
    expect(repo.snapshot()).toEqual(snap);

    // Confirming: the prompt asks for the N+1 check; verifying: for the verification.
    log(repo, 'R1', 'found the rest', 'None', '--signal');
    const confirm = ok(repo, ['iter', 'next']).stdout;
    expect(confirm).toMatch(/^# Literature review: R1, its confirmation after iteration 2\n/);
    expect(confirm).toContain('R1 was declared done. This iteration confirms it');
    expect(confirm).toContain('`sow iter log R1 --did "<what you checked>" --remaining None`');
    log(repo, 'R1', 'checked', 'None');
    expect(ok(repo, ['iter', 'next']).stdout).toContain('run `sow iter verify R1 --pass` or `sow iter verify R1 --fail --note "<what does not meet them>"`');
    ok(repo, ['iter', 'verify', 'R1', '--fail', '--note', 'summaries lack years']);
    expect(ok(repo, ['iter', 'next']).stdout).toContain('- Note: summaries lack years\n');
  });

  it('iter next is refused outside ExecuteActive, and when every phase is done, blocked or timed out', () => {
    const repo = fresh();
    planning(repo);
    expect(refused(repo, ['iter', 'next'], 3, 'WORK_PHASE_BLOCKED')).toContain('iterations run in ExecuteActive, and the project is in PlanActive');
    for (const d of THREE.slice(0, 1)) ok(repo, ['iter', 'phase', 'add', d.id, '--title', d.title, '--criteria', d.criteria, '--output', d.output, '--max', '1']);
    ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
    ok(repo, ['advance']);
    log(repo, 'R1', 'tried', 'all of it');
    expect(refused(repo, ['iter', 'next'], 3, 'WORK_PHASE_BLOCKED')).toBe("no work phase can go on: R1 is timeout\n'sow project continue' says how to get each going again");
    ok(repo, ['iter', 'extend', 'R1', '--max', '2']);
    finish(repo, 'R1');
    expect(refused(repo, ['iter', 'next'], 3, 'WORK_PHASE_BLOCKED')).toBe("every work phase is done\nrun 'sow advance' to verify the whole work");
  });

  it('project continue names the phase, the iteration and what was Remaining; the ways out of a timeout; the next unblocked phase', () => {
    const repo = fresh();
    executing(repo, THREE);
    log(repo, 'R1', 'found 4 sources', '6 more sources');
    // An interruption: a new session starts from project continue.
    const cont = ok(repo, ['project', 'continue']).stdout;
    expect(cont).toContain('## Where the work stands\n\n- Current work phase: **R1** (in_progress) — Collect sources; 1 of 3 iterations used, next: iteration 2.\n');
    const at = repo.read(PROGRESS).match(/^## R1 - Iteration 1 - (\S+)$/m)![1]!;
    expect(cont).toContain(`- Its last entry (iteration 1, ${at}) left Remaining: 6 more sources\n`);
    expect(cont).toContain("- Next: 'sow iter next' prints the iteration's prompt; 'sow agent spawn <agent> --iteration' gives it to a fresh worker.");

    // A timeout: raise the maximum, simplify the criteria, or intervene.
    log(repo, 'R1', 'found 2 more', '4 more sources');
    log(repo, 'R1', 'found 1 more', '3 more sources');
    expect(wp(repo, 'R1').status).toBe('timeout');
    const timedOut = ok(repo, ['project', 'continue']).stdout;
    expect(timedOut).toContain(
      "- R1 timed out after 3 of 3 iterations. Ask the human: raise the maximum ('sow iter extend R1 --max 6'), simplify its criteria ('sow iter phase set R1 criteria \"…\"'), or intervene by hand.",
    );
    // R2 waits for R1: the phase to work on is R3.
    expect(timedOut).toContain(
      '- Current work phase: **R3** (pending) — Executive summary; 0 of 2 iterations used, next: iteration 1.\n- It has no entry in progress.md yet: its first iteration starts it.\n',
    );

    // A block: ask the human, or go on with the next unblocked phase.
    ok(repo, ['iter', 'extend', 'R1', '--max', '6']);
    ok(repo, ['iter', 'block', 'R1', '--note', 'the library is closed']);
    const blocked = ok(repo, ['project', 'continue']).stdout;
    expect(blocked).toContain("- R1 is blocked: the library is closed. Ask the human for input, or go on with the next unblocked phase, R3; 'sow iter unblock R1' when it is resolved.");
    expect(blocked).toContain('- Current work phase: **R3** (pending)');
    expect(blocked).not.toContain('timed out');
  });
});

// ---------------------------------------------------------------------------------------------
// 5. agent spawn --iteration: a fresh worker with the iteration's prompt.
// ---------------------------------------------------------------------------------------------

describe('agent spawn <agent> --iteration', () => {
  const worlds: World[] = [];
  const world = () => {
    const w = makeWorld({ prefix: 'sow-iter-' });
    worlds.push(w);
    return w;
  };
  afterEach(() => {
    for (const w of worlds.splice(0)) w.cleanup();
  });

  it('gives the iteration prompt to a fresh worker each time, never a resume, though a session is recorded', () => {
    const repo = fresh();
    executing(repo, THREE);
    log(repo, 'R1', 'found 4 sources', '6 more sources');
    const expected = ok(repo, ['iter', 'next']).stdout.trimEnd();
    const w = world();
    const script = JSON.stringify([['iter', 'log', 'R1', '--did', 'worker found 3', '--remaining', '3 more sources']]);
    const first = runSow(repo.dir, w, ['agent', 'spawn', 'implementer', '--iteration'], { FAKE_AGENT_SCRIPT: script });
    expect(first.code, show(first)).toBe(0);
    expect(first.stdout).toBe('');
    const calls1 = w.calls();
    expect(calls1).toHaveLength(1);
    const c1 = calls1[0]!;
    expect(c1.cli).toBe('claude');
    expect(c1.resuming).toBe(false);
    expect(c1.prompt).toContain('# You are implementer-1');
    expect(c1.prompt).toContain('# Literature review: R1, iteration 2\n');
    expect(c1.prompt).toContain('- Criteria: 10 sources, each summarised\n');
    expect(c1.prompt).toContain('## Where the last iteration stopped\n\nRemaining: 6 more sources\n');
    // The whole prompt `sow iter next` printed before the spawn reached the worker.
    expect(c1.prompt).toContain(`${expected}\n\n`);
    expect(c1.env['SOW_TASK_ID']).toBeUndefined();
    // The worker called sow back: its iteration is logged.
    expect(headings(repo)).toEqual(['R1 - Iteration 1', 'R1 - Iteration 2']);
    expect(wp(repo, 'R1')).toMatchObject({ status: 'in_progress', iterations: 2 });
    const s1 = state(repo).sessions.implementer;
    expect(s1).toMatchObject({ agent: 'implementer', agent_id: 'implementer-1', session_id: c1.session });

    // A session is recorded, yet --iteration starts a fresh worker with the next iteration's prompt.
    const second = runSow(repo.dir, w, ['agent', 'spawn', 'implementer', '--iteration'], { FAKE_AGENT_SCRIPT: '[]' });
    expect(second.code, show(second)).toBe(0);
    const c2 = w.calls()[1]!;
    expect(c2.resuming).toBe(false);
    expect(c2.session).not.toBe(c1.session);
    expect(c2.argv).toContain('--session-id');
    expect(c2.argv).not.toContain('--resume');
    expect(c2.prompt).toContain('# You are implementer-2');
    expect(c2.prompt).toContain('# Literature review: R1, iteration 3\n');
    expect(c2.prompt).toContain('Remaining: 3 more sources\n');
    expect(c2.prompt).not.toContain('Remaining: 6 more sources');
    expect(state(repo).sessions.implementer).toMatchObject({ agent_id: 'implementer-2', session_id: c2.session });
    // Without --iteration the recorded session stands in the way, as for any project session.
    const plain = runSow(repo.dir, w, ['agent', 'spawn', 'implementer', '--json']);
    expect(plain.code, show(plain)).toBe(1);
    expect(plain.json?.error?.code).toBe('SESSION_EXISTS');
    expect(w.calls()).toHaveLength(2);
  });

  it('--iteration is refused outside ExecuteActive (exit 3), with a task id (exit 2), and in a standard project (exit 2); no worker starts', () => {
    const repo = fresh();
    planning(repo);
    const w = world();
    const before = repo.snapshot();
    const notYet = runSow(repo.dir, w, ['agent', 'spawn', 'implementer', '--iteration', '--json']);
    expect(notYet.code, show(notYet)).toBe(3);
    expect(notYet.json?.error?.code).toBe('WORK_PHASE_BLOCKED');
    const withTask = runSow(repo.dir, w, ['agent', 'spawn', 'implementer', '010', '--iteration', '--json']);
    expect(withTask.code, show(withTask)).toBe(2);
    expect(withTask.json?.error?.code).toBe('USAGE');
    expect(repo.snapshot()).toEqual(before);

    const std = fresh();
    ok(std, ['project', 'new', 'demo', '--description', 'A standard project']);
    const stdBefore = std.snapshot();
    const r = runSow(std.dir, w, ['agent', 'spawn', 'implementer', '--iteration', '--json']);
    expect(r.code, show(r)).toBe(1);
    expect(r.json?.error).toMatchObject({ code: 'NOT_ITERATIVE', message: '--iteration is for projects whose work runs in iterations, and this project is standard' });
    expect(std.snapshot()).toEqual(stdBefore);
    expect(w.calls()).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// 6. The type's own guards on its state.
// ---------------------------------------------------------------------------------------------

describe("the type's guards", () => {
  it('iter log, verify, block and phase changes belong to their states (exit 3)', () => {
    const repo = fresh();
    ok(repo, ['project', 'new', 'lit', '--type', 'iterative', '--description', 'Literature review']);
    const discover = refused(repo, ['iter', 'log', 'R1', '--did', 'x', '--remaining', 'y'], 3, 'WORK_PHASE_BLOCKED', true);
    expect(discover).toBe(
      "cannot log an iteration in DiscoverActive: it belongs to ExecuteActive\nfirst the brief: fill in .sow/project/brief.md with the human, approve it ('sow output set --index 0 approved true') and run 'sow advance'",
    );
    fillBrief(repo);
    ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
    ok(repo, ['advance']);
    ok(repo, ['iter', 'phase', 'add', 'R1', '--title', 'A', '--criteria', 'a', '--output', 'outputs/a.md', '--max', '2']);
    expect(refused(repo, ['iter', 'log', 'R1', '--did', 'x', '--remaining', 'y'], 3, 'WORK_PHASE_BLOCKED')).toContain('cannot log an iteration in PlanActive');
    expect(refused(repo, ['iter', 'verify', 'R1', '--pass'], 3, 'WORK_PHASE_BLOCKED')).toContain('cannot verify a work phase in PlanActive');
    expect(refused(repo, ['iter', 'block', 'R1', '--note', 'x'], 3, 'WORK_PHASE_BLOCKED')).toContain('cannot block a work phase in PlanActive');
    ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
    ok(repo, ['advance']);
    finish(repo, 'R1');
    ok(repo, ['advance']);
    expect(current(repo)).toBe('VerifyActive');
    for (const args of [
      ['iter', 'log', 'R1', '--did', 'x', '--remaining', 'y'],
      ['iter', 'phase', 'add', 'R2', '--title', 'B'],
      ['iter', 'phase', 'set', 'R1', 'title', 'x'],
      ['iter', 'extend', 'R1', '--max', '9'],
      ['iter', 'unblock', 'R1'],
    ]) {
      expect(refused(repo, args, 3, 'WORK_PHASE_BLOCKED'), args.join(' ')).toContain('in VerifyActive');
    }
  });

  it('sow iter in a standard project: exit 1 WRONG_PROJECT_TYPE', () => {
    const repo = fresh();
    ok(repo, ['project', 'new', 'demo', '--description', 'A standard project']);
    for (const args of [
      ['iter', 'status'],
      ['iter', 'next'],
      ['iter', 'export'],
      ['iter', 'log', 'R1', '--did', 'x', '--remaining', 'y'],
    ]) {
      expect(refused(repo, args, 1, 'WRONG_PROJECT_TYPE', true), args.join(' ')).toContain(`'sow ${args.slice(0, 2).join(' ')}' belongs to iterative projects, and this project is standard`);
    }
  });

  it('the work phases are read-only to the generic commands (READ_ONLY_FIELD, exit 1)', () => {
    const repo = fresh();
    executing(repo, THREE);
    for (const field of ['work_phases.0.status', 'metadata.work_phases.0.status', 'work_phases']) {
      const text = refused(repo, ['phase', 'set', '--phase', 'execute', field, 'done'], 1, 'READ_ONLY_FIELD', true);
      expect(text, field).toContain('the work phases change only through their commands');
      expect(text, field).toContain("use 'sow iter phase add|set', 'sow iter log|verify|extend|block|unblock'");
    }
    expect(wp(repo, 'R1').status).toBe('pending');
  });

  it('a hand-edited state.yaml with an invalid work phase: exit 4 on any command, nothing overwritten', () => {
    const repo = fresh();
    executing(repo, THREE);
    log(repo, 'R1', 'started', 'the rest');
    const good = repo.read(PROJECT);
    const edits: [string, (p: any[]) => void][] = [
      ['work_phases.0.status', (p) => (p[0].status = 'finished')],
      ['work_phases.1.max', (p) => (p[1].max = -1)],
      ['work_phases.2.id', (p) => (p[2].id = 'R1')],
      ['work_phases.0.after', (p) => (p[0].after = 'R2')],
    ];
    for (const [field, edit] of edits) {
      const doc = parse(good);
      edit(doc.phases.execute.metadata.work_phases);
      repo.write(PROJECT, stringify(doc));
      for (const args of [['iter', 'status'], ['iter', 'log', 'R1', '--did', 'x', '--remaining', 'y'], ['project', 'status'], ['project', 'continue'], ['advance'], ['output', 'list']]) {
        const text = refused(repo, args, 4, 'STATE_FILE_INVALID');
        expect(text, `${field}: ${args.join(' ')}`).toContain(`.sow/project/state.yaml: phases.execute.metadata.${field}:`);
      }
    }
    repo.write(PROJECT, good);
    expect(ok(repo, ['iter', 'status']).stdout).toContain('R1  in_progress  1/3');
  });
});
