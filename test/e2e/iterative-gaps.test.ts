/**
 * The iterative type's guards and gaps, through the CLI: approvals that would vouch for unfinished
 * content (a brief still holding its template's placeholders, a phase passed without its output,
 * a review naming a phase that does not exist), one iteration count everywhere, and what the
 * iterative-work format asks for from the start (the folders, the context template's phase
 * signals, a domain plan.md follows, state.json's null maximum). Also `sow prompt` filling the
 * variables a project knows.
 */
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { expectEnvelope, expectFails, ok, PROJECT, type Repo, SOW, TEST_ENV, useRepos } from './harness.js';

const fresh = useRepos();

const P = '.sow/project';
const BRIEF = `${P}/brief.md`;
const PLAN = `${P}/plan.md`;
const PROGRESS = `${P}/progress.md`;

const FILLED = '# Survey\n\n**Domain:** research\n\n## Outcome Needed\nA pick.\n\n## Done When\n- 3 libraries compared\n\n## Constraints\n- a week\n';

const state = (repo: Repo) => repo.yaml(PROJECT);
const wp = (repo: Repo, id: string) => (state(repo).phases.execute.metadata.work_phases as any[]).find((p) => p.id === id);
const log = (repo: Repo, id: string, remaining: string, ...more: string[]) => ok(repo, ['iter', 'log', id, '--did', 'work', '--remaining', remaining, ...more]);
const headings = (repo: Repo) => (repo.read(PROGRESS).match(/^## .*$/gm) ?? []).map((h) => h.slice(3).replace(/ - \S+$/, ''));

function started(repo: Repo): void {
  ok(repo, ['project', 'new', 'survey', '--type', 'iterative', '--description', 'Survey']);
}

/** A new project with the brief filled in and approved, R1 (max `max`) defined and approved: ExecuteActive. */
function executing(repo: Repo, max = 4, more: string[][] = []): void {
  started(repo);
  repo.write(BRIEF, FILLED);
  ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
  ok(repo, ['advance']);
  ok(repo, ['iter', 'phase', 'add', 'R1', '--title', 'Compare', '--criteria', 'a table', '--output', 'outputs/compare.md', '--max', String(max)]);
  for (const args of more) ok(repo, ['iter', 'phase', 'add', ...args]);
  ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
  expect(ok(repo, ['advance']).stdout).toBe('ExecuteActive\n');
}

describe('approvals vouch only for finished content', () => {
  it("a brief that still holds the template's placeholders cannot be approved (exit 1, each one named); filled in, it can", () => {
    const repo = fresh();
    started(repo);
    const all = expectFails(repo, ['output', 'set', '--index', '0', 'approved', 'true'], 1, 'ARTIFACT_UNFINISHED', { human: true });
    expect(all).toBe(
      [
        "cannot approve 'brief.md': '.sow/project/brief.md' still holds the template's placeholders '{research|writing|analysis|planning|software}', '{What the user wants to achieve}', '{Criterion 1}', '{Criterion 2}', '{Time, format, scope constraints}', '{Additional context}'",
        'replace each one with what was agreed (or delete the lines that do not apply), then approve it',
      ].join('\n'),
    );
    // Half done: only what is left is named.
    repo.write(BRIEF, `${FILLED}- {Criterion 2}\n`);
    expect(expectFails(repo, ['output', 'set', '--index', '0', 'approved', 'true'], 1, 'ARTIFACT_UNFINISHED')).toContain("still holds the template's placeholder '{Criterion 2}'\n");
    // Recorded again, approved at once: the same check.
    expectFails(repo, ['output', 'add', '--type', 'brief', '--path', 'brief.md', '--approved', 'true'], 1, 'ARTIFACT_UNFINISHED');
    // Braces of the person's own are no placeholders.
    repo.write(BRIEF, `${FILLED}\n## Notes\nTokens look like {"alg": "ES256"}.\n`);
    ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
    expect(state(repo).phases.discover.outputs[0].approved).toBe(true);
    expect(ok(repo, ['advance']).stdout).toBe('PlanActive\n');
  });

  it("iter verify --pass is refused while the phase's output does not exist (exit 3, the file named); --fail is not", () => {
    const repo = fresh();
    executing(repo);
    log(repo, 'R1', 'None', '--signal');
    log(repo, 'R1', 'None');
    expect(wp(repo, 'R1').status).toBe('verifying');
    const progress = repo.read(PROGRESS);
    const refused = expectFails(repo, ['iter', 'verify', 'R1', '--pass'], 3, 'WORK_PHASE_OUTPUT_MISSING', { human: true });
    expect(refused).toBe(
      "cannot pass R1: its output .sow/project/outputs/compare.md does not exist\nwrite .sow/project/outputs/compare.md (what the criteria are checked against), then 'sow iter verify R1 --pass'; if the output is another file, 'sow iter phase set R1 output <path>'",
    );
    expect(repo.read(PROGRESS)).toBe(progress);
    expect(wp(repo, 'R1').status).toBe('verifying');
    // A failed verification needs no output: it says what is wrong with it.
    ok(repo, ['iter', 'verify', 'R1', '--fail', '--note', 'there is no table yet']);
    log(repo, 'R1', 'None', '--signal');
    log(repo, 'R1', 'None');
    repo.write(`${P}/outputs/compare.md`, '| lib |\n');
    expect(ok(repo, ['iter', 'verify', 'R1', '--pass']).stdout).toBe('R1 passed verification: it is done.\n');
  });

  it("a review's --phases must name work phases, at output add and output set (exit 1, did you mean, the list)", () => {
    const repo = fresh();
    executing(repo, 4, [['R2', '--title', 'Pick', '--criteria', 'one', '--output', 'outputs/pick.md', '--max', '2']]);
    for (const id of ['R1', 'R2']) {
      log(repo, id, 'None', '--signal');
      log(repo, id, 'None');
      repo.write(`${P}/${wp(repo, id).output}`, 'x\n');
      ok(repo, ['iter', 'verify', id, '--pass']);
    }
    expect(ok(repo, ['advance']).stdout).toBe('VerifyActive\n');
    repo.write(`${P}/review/r.md`, '# Review\n');
    const add = expectFails(repo, ['output', 'add', '--type', 'review', '--path', 'review/r.md', '--assessment', 'fail', '--phases', 'R1,r2'], 1, 'WORK_PHASE_NOT_FOUND', { human: true });
    expect(add).toBe("the review names 'r2', which is not a work phase; did you mean 'R2'?\nthe work phases are R1, R2 ('sow iter status')");
    expect(expectFails(repo, ['output', 'add', '--type', 'review', '--path', 'review/r.md', '--assessment', 'fail', '--phases', 'R9'], 1, 'WORK_PHASE_NOT_FOUND')).toContain(
      'the work phases are R1, R2',
    );
    ok(repo, ['output', 'add', '--type', 'review', '--path', 'review/r.md', '--assessment', 'fail', '--phases', 'R2']);
    expect(expectFails(repo, ['output', 'set', '--index', '0', 'phases', 'R2,R7'], 1, 'WORK_PHASE_NOT_FOUND')).toContain("the review names 'R7', which is not a work phase");
    expect(expectFails(repo, ['output', 'set', '--index', '0', 'metadata.phases', 'R7'], 1, 'WORK_PHASE_NOT_FOUND')).toContain("'R7'");
    ok(repo, ['output', 'set', '--index', '0', 'phases', 'R1,R2']);
    expect(state(repo).phases.verify.outputs[0].metadata).toEqual({ assessment: 'fail', phases: 'R1,R2' });
  });
});

describe('one iteration count everywhere', () => {
  it('the log, status, export, next and continue agree: work iterations count, confirmations are counted apart', () => {
    const repo = fresh();
    executing(repo, 4);
    log(repo, 'R1', 'two more');
    log(repo, 'R1', 'one more');
    expect(log(repo, 'R1', 'None', '--signal').stdout).toBe(
      'R1 says it is done after iteration 3 of 4: it is confirming. Run its confirmation, one more iteration that checks the criteria afresh and finds nothing left (it does not count against the maximum).\n',
    );
    expect(log(repo, 'R1', 'a missing row').stdout).toBe("R1's confirmation found more to do: it is in progress again. Next: iteration 4 of 4.\n");
    const signalled = log(repo, 'R1', 'None', '--signal');
    expect(signalled.stdout).toBe(
      'R1 says it is done after iteration 4 of 4: it is confirming. Run its confirmation, one more iteration that checks the criteria afresh and finds nothing left (it does not count against the maximum).\n',
    );
    expect(headings(repo)).toEqual(['R1 - Iteration 1', 'R1 - Iteration 2', 'R1 - Iteration 3', 'R1 - Confirmation 1', 'R1 - Iteration 4']);
    // The same 4 in every view.
    expect(ok(repo, ['iter', 'status']).stdout).toContain('R1  confirming   4/4    Compare  (1 confirmation)\n');
    const exported = expectEnvelope(ok(repo, ['iter', 'export', '--json'])).data;
    expect(exported).toMatchObject({ current_phase: 'R1', current_iteration: 4, phases: { R1: { status: 'confirming', iterations_used: 4, confirmations_used: 1, max_iterations: 4 } } });
    const next = ok(repo, ['iter', 'next']).stdout;
    expect(next).toMatch(/^# Survey: R1, its confirmation after iteration 4\n/);
    expect(next).toContain('- Status: confirming; 4 of 4 iterations used, 1 confirmation (confirmations do not count against the maximum)\n');
    const cont = ok(repo, ['project', 'continue']).stdout;
    expect(cont).toContain('- Current work phase: **R1** (confirming) — Compare; 4 of 4 iterations used, next: its confirmation after iteration 4.\n');
    expect(cont).toMatch(/- Its last entry \(iteration 4, \S+\) left Remaining: None\n/);
    // The confirmation's entry is its own; the phase keeps its count.
    const confirmed = expectEnvelope(ok(repo, ['iter', 'log', 'R1', '--did', 'checked', '--remaining', 'None', '--json'])).data;
    expect(confirmed).toMatchObject({ iteration: 4, confirmation: 2, phase: { status: 'verifying', iterations: 4, confirmations: 2 } });
    expect(headings(repo).at(-1)).toBe('R1 - Confirmation 2');
    expect(ok(repo, ['iter', 'next']).stdout).toMatch(/^# Survey: R1, its verification after iteration 4\n/);
  });

  it('a failed review that reopens a phase with no iteration left says at once that it needs iter extend, in advance and in continue', () => {
    const repo = fresh();
    executing(repo, 1, [['R2', '--title', 'Pick', '--criteria', 'one', '--output', 'outputs/pick.md', '--max', '3']]);
    for (const id of ['R1', 'R2']) {
      log(repo, id, 'None', '--signal');
      log(repo, id, 'None');
      repo.write(`${P}/${wp(repo, id).output}`, 'x\n');
      ok(repo, ['iter', 'verify', id, '--pass']);
    }
    ok(repo, ['advance']);
    repo.write(`${P}/review/r.md`, '# Review\n');
    ok(repo, ['output', 'add', '--type', 'review', '--path', 'review/r.md', '--assessment', 'fail', '--phases', 'R1,R2', '--approved', 'true']);
    const r = ok(repo, ['advance']);
    expect(r.stdout).toBe('ExecuteActive\n');
    expect(r.stderr).toBe(
      [
        'Advanced: VerifyActive → ExecuteActive (verify_fail)',
        "R1 was reopened by the failed review, but it has used its 1 of 1 iterations: raise its maximum before work on it can go on ('sow iter extend R1 --max 4').",
        "R2 is in progress again: iteration 2 of 3 is next ('sow iter next').",
        'Next: sow project continue',
        '',
      ].join('\n'),
    );
    expect([wp(repo, 'R1').status, wp(repo, 'R2').status]).toEqual(['timeout', 'in_progress']);
    const cont = ok(repo, ['project', 'continue']).stdout;
    expect(cont).toContain(
      "- R1 was reopened by the failed review, but it has used its 1 of 1 iterations: raise its maximum before work on it can go on ('sow iter extend R1 --max 4'). Ask the human to raise it, or to simplify its criteria ('sow iter phase set R1 criteria \"…\"').",
    );
    expect(cont).not.toContain('R1 timed out');
    ok(repo, ['iter', 'extend', 'R1', '--max', '4']);
    expect(wp(repo, 'R1').status).toBe('in_progress');
  });

  it('advance --json carries the notes; a move with nothing to say has none', () => {
    const repo = fresh();
    started(repo);
    repo.write(BRIEF, FILLED);
    ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
    expect(expectEnvelope(ok(repo, ['advance', '--json'])).data).toEqual({ from: 'DiscoverActive', to: 'PlanActive', event: 'brief_approved', dryRun: false, projectRemoved: false });
    ok(repo, ['iter', 'phase', 'add', 'R1', '--title', 'Compare', '--criteria', 'a table', '--output', 'outputs/compare.md', '--max', '1']);
    ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
    ok(repo, ['advance']);
    log(repo, 'R1', 'None', '--signal');
    log(repo, 'R1', 'None');
    repo.write(`${P}/outputs/compare.md`, 'x\n');
    ok(repo, ['iter', 'verify', 'R1', '--pass']);
    ok(repo, ['advance']);
    repo.write(`${P}/review/r.md`, '# Review\n');
    ok(repo, ['output', 'add', '--type', 'review', '--path', 'review/r.md', '--assessment', 'fail', '--phases', 'R1', '--approved', 'true']);
    expect(expectEnvelope(ok(repo, ['advance', '--json'])).data).toEqual({
      from: 'VerifyActive',
      to: 'ExecuteActive',
      event: 'verify_fail',
      dryRun: false,
      projectRemoved: false,
      notes: ["R1 was reopened by the failed review, but it has used its 1 of 1 iterations: raise its maximum before work on it can go on ('sow iter extend R1 --max 4')."],
    });
  });
});

describe('what the iterative-work format asks for', () => {
  it('a new project has sources/ and outputs/ (kept in git), and context.md has the Phase signals section', () => {
    const repo = fresh();
    started(repo);
    for (const dir of ['sources', 'outputs']) expect(repo.read(`${P}/${dir}/.gitkeep`), dir).toBe('');
    repo.git(['add', '-A']);
    expect(repo.git(['ls-files', P]).split('\n')).toEqual(expect.arrayContaining([`${P}/sources/.gitkeep`, `${P}/outputs/.gitkeep`]));
    expect(repo.read(`${P}/context.md`)).toMatch(/\n\*\*Phase signals:\*\*\n- \{R1: what shows it is complete\}\n$/);
  });

  it('max_iterations not set yet exports as null, not 0', () => {
    const repo = fresh();
    started(repo);
    repo.write(BRIEF, FILLED);
    ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
    ok(repo, ['advance']);
    ok(repo, ['iter', 'phase', 'add', 'R1', '--title', 'Compare']);
    ok(repo, ['iter', 'phase', 'add', 'R2', '--title', 'Pick', '--max', '2']);
    expect(expectEnvelope(ok(repo, ['iter', 'export', '--json'])).data.phases).toEqual({ R1: { status: 'pending', max_iterations: null }, R2: { status: 'pending', max_iterations: 2 } });
  });

  it("plan.md follows the domain: the brief's Domain line, and a domain set later, at once", () => {
    const repo = fresh();
    started(repo);
    repo.write(BRIEF, FILLED.replace('**Domain:** research', '**Domain:** writing'));
    ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
    ok(repo, ['advance']);
    expect(repo.exists(PLAN)).toBe(false);
    ok(repo, ['iter', 'phase', 'add', 'R1', '--title', 'Compare']);
    expect(repo.read(PLAN)).toContain('**Domain:** writing\n');
    expect(expectEnvelope(ok(repo, ['iter', 'export', '--json'])).data.domain).toBe('writing');
    // Set by a command after plan.md was drawn: plan.md follows in the same write.
    ok(repo, ['phase', 'set', '--phase', 'discover', 'domain', 'analysis']);
    expect(repo.read(PLAN)).toContain('**Domain:** analysis\n');
    expect(expectEnvelope(ok(repo, ['iter', 'export', '--json'])).data.domain).toBe('analysis');
    // So does the title.
    ok(repo, ['project', 'set', 'description', 'Survey of JWT libraries']);
    expect(repo.read(PLAN)).toMatch(/^# Survey of JWT libraries - Phases\n/);
  });
});

describe('sow prompt fills what the project knows', () => {
  const outside = (...args: string[]) => spawnSync(process.execPath, [SOW, ...args], { cwd: tmpdir(), encoding: 'utf8', env: { ...process.env, ...TEST_ENV } });

  it("inside a project every variable gets the project's value, for every type; outside, each one left is named", () => {
    const repo = fresh();
    started(repo);
    const iterative = ok(repo, ['prompt', 'orchestrator/iterative/DiscoverActive']);
    expect(iterative.stdout).toContain('You are starting iterative work on "Survey" with the human on branch `iter/survey`.');
    expect(iterative.stdout).not.toContain('{{');
    expect(iterative.stderr).toBe('');
    // Another type's prompt in this project: its variables are the project's too ({{iteration}}: the round of its work).
    const review = expectEnvelope(ok(repo, ['prompt', 'orchestrator/standard/ReviewActive', '--json'])).data;
    expect(review).toMatchObject({ path: 'orchestrator/standard/ReviewActive', unfilled: [], filled_from: 'project' });
    expect(review.text).toContain('report-1.md');
    expect(review.text).not.toContain('{{');

    const std = fresh();
    ok(std, ['project', 'new', 'auth', '--description', 'Add auth']);
    for (const name of ['PlanningActive', 'ImplementationPlanning', 'ReviewActive']) {
      const r = ok(std, ['prompt', `orchestrator/standard/${name}`]);
      expect(r.stdout, name).not.toContain('{{');
    }
    expect(ok(std, ['prompt', 'orchestrator/standard/ImplementationPlanning']).stdout).toContain('This is iteration 1 of the implementation phase; 0 task(s) exist so far.');

    const bare = outside('prompt', 'orchestrator/iterative/DiscoverActive');
    expect(bare.status).toBe(0);
    expect(bare.stdout).toContain('"{{description}}" with the human on branch `{{branch}}`');
    expect(bare.stderr).toBe('Left unfilled: {{description}}, {{branch}} (there is no project here; inside one, sow fills them from it)\n');
    const json = JSON.parse(outside('prompt', 'orchestrator/iterative/DiscoverActive', '--json').stdout);
    expect(json.data).toMatchObject({ unfilled: ['description', 'branch'], filled_from: null });
    // Guidance has no variables: printed as it is, nothing said.
    expect(outside('prompt', 'guidance/implementer/base').stderr).toBe('');
  });

  it("on a branch without a project, the NoProject prompt's branch is the branch checked out", () => {
    const repo = fresh();
    const r = ok(repo, ['prompt', 'orchestrator/NoProject']);
    expect(r.stdout).toMatch(/^# sow: no project on `main`\n/);
    expect(r.stderr).toBe('');
  });
});
