/**
 * The iterative type's guards and gaps, through the CLI: approvals that would vouch for unfinished
 * content (a brief still holding its template's placeholders, a phase passed without its output,
 * a review naming a phase that does not exist), one iteration count everywhere, and what the
 * iterative-work format asks for from the start (the folders, the context template's phase
 * signals, a domain plan.md follows, state.json's null maximum). Also `sow prompt` filling the
 * variables a project knows. In-process (src/app/iterative-gaps.test.ts): one iteration count in
 * the log, status, export, next and continue; a review's --phases; the null maximum; plan.md
 * following the domain; the variants of each refusal here and the notes of a failed review as
 * data. The projects in ExecuteActive and VerifyActive here are made once and copied.
 */
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { expectEnvelope, expectFails, ok, PROJECT, type Repo, SOW, TEST_ENV, useRepos } from './harness.js';
import { startingPoint } from './starting-points.js';

const fresh = useRepos();

const P = '.sow/project';
const BRIEF = `${P}/brief.md`;
const PROGRESS = `${P}/progress.md`;

const FILLED =
  '# Survey\n\n**Domain:** research\n\n## Outcome Needed\nA pick.\n\n## Done When\n- 3 libraries compared\n\n## ' +
  'Constraints\n- a week\n';

const state = (repo: Repo) => repo.yaml(PROJECT);
const wp = (repo: Repo, id: string) =>
  (state(repo).phases.execute.metadata.work_phases as any[]).find((p) => p.id === id);
const log = (repo: Repo, id: string, remaining: string, ...more: string[]) =>
  ok(repo, ['iter', 'log', id, '--did', 'work', '--remaining', remaining, ...more]);

function started(repo: Repo): void {
  ok(repo, ['project', 'new', 'survey', '--type', 'iterative', '--description', 'Survey']);
}

/**
 * ExecuteActive: the brief filled in and approved, R1 (max 1) and R2 (max 3) defined and approved (made once, copied
 * per test).
 */
const executing = startingPoint(fresh, (repo) => {
  started(repo);
  repo.write(BRIEF, FILLED);
  ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
  ok(repo, ['advance']);
  ok(repo, [
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
    '1',
  ]);
  ok(repo, [
    'iter',
    'phase',
    'add',
    'R2',
    '--title',
    'Pick',
    '--criteria',
    'one',
    '--output',
    'outputs/pick.md',
    '--max',
    '3',
  ]);
  ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
  expect(ok(repo, ['advance']).stdout).toBe('ExecuteActive\n');
});

/**
 * VerifyActive after both phases passed, an approved review that fails R1 and R2 recorded: the advance reopens them,
 * R1 with no iteration left.
 */
const failedReview = startingPoint(
  fresh,
  (repo) => {
    for (const id of ['R1', 'R2']) {
      log(repo, id, 'None', '--signal');
      log(repo, id, 'None');
      repo.write(`${P}/${wp(repo, id).output}`, 'x\n');
      ok(repo, ['iter', 'verify', id, '--pass']);
    }
    ok(repo, ['advance']);
    repo.write(`${P}/review/r.md`, '# Review\n');
    ok(repo, [
      'output',
      'add',
      '--type',
      'review',
      '--path',
      'review/r.md',
      '--assessment',
      'fail',
      '--phases',
      'R1,R2',
      '--approved',
      'true',
    ]);
  },
  executing,
);

// The variants (a brief half filled in, recorded again approved, braces of the person's own; the
// output written after a --fail; the notes as data, continue's line, iter extend): in-process,
// src/app/iterative-gaps.test.ts. Here, each as the command line says it.
describe('approvals vouch only for finished content', () => {
  it(
    "a brief that still holds the template's placeholders cannot be approved (exit 1, each one named); filled " +
      'in, it can',
    () => {
      const repo = fresh();
      started(repo);
      const all = expectFails(repo, ['output', 'set', '--index', '0', 'approved', 'true'], 1, 'ARTIFACT_UNFINISHED', {
        human: true,
      });
      expect(all).toBe(
        [
          "cannot approve 'brief.md': '.sow/project/brief.md' still holds the template's placeholders " +
            "'{research|writing|analysis|planning|software}', '{What the user wants to achieve}', '{Criterion 1}', " +
            "'{Criterion 2}', '{Time, format, scope constraints}', '{Additional context}'",
          'replace each one with what was agreed (or delete the lines that do not apply), then approve it',
        ].join('\n'),
      );
      repo.write(BRIEF, FILLED);
      ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
      // A move with nothing to say has no notes.
      expect(expectEnvelope(ok(repo, ['advance', '--json'])).data).toEqual({
        from: 'DiscoverActive',
        to: 'PlanActive',
        event: 'brief_approved',
        dryRun: false,
        projectRemoved: false,
      });
    },
  );

  it("iter verify --pass is refused while the phase's output does not exist (exit 3, the file named)", () => {
    const repo = executing();
    log(repo, 'R1', 'None', '--signal');
    log(repo, 'R1', 'None');
    expect(wp(repo, 'R1').status).toBe('verifying');
    const progress = repo.read(PROGRESS);
    const refused = expectFails(repo, ['iter', 'verify', 'R1', '--pass'], 3, 'WORK_PHASE_OUTPUT_MISSING', {
      human: true,
    });
    expect(refused).toBe(
      'cannot pass R1: its output .sow/project/outputs/compare.md does not exist\nwrite ' +
        ".sow/project/outputs/compare.md (what the criteria are checked against), then 'sow iter verify R1 " +
        "--pass'; if the output is another file, 'sow iter phase set R1 output <path>'",
    );
    expect(repo.read(PROGRESS)).toBe(progress);
  });
});

describe('one iteration count everywhere', () => {
  it('a failed review that reopens a phase with no iteration left says at once that it needs iter extend', () => {
    const repo = failedReview();
    const r = ok(repo, ['advance']);
    expect(r.stdout).toBe('ExecuteActive\n');
    expect(r.stderr).toBe(
      [
        'Advanced: VerifyActive → ExecuteActive (verify_fail)',
        'R1 was reopened by the failed review, but it has used its 1 of 1 iterations: raise its maximum before ' +
          "work on it can go on ('sow iter extend R1 --max 4').",
        "R2 is in progress again: iteration 2 of 3 is next ('sow iter next').",
        'Next: sow project continue',
        '',
      ].join('\n'),
    );
    expect([wp(repo, 'R1').status, wp(repo, 'R2').status]).toEqual(['timeout', 'in_progress']);
  });

  it('advance --json carries the notes', () => {
    const repo = failedReview();
    expect(expectEnvelope(ok(repo, ['advance', '--json'])).data).toEqual({
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
  });
});

describe('what the iterative-work format asks for', () => {
  it('a new project has sources/ and outputs/ (kept in git), and context.md has the Phase signals section', () => {
    const repo = fresh();
    started(repo);
    for (const dir of ['sources', 'outputs']) expect(repo.read(`${P}/${dir}/.gitkeep`), dir).toBe('');
    repo.git(['add', '-A']);
    expect(repo.git(['ls-files', P]).split('\n')).toEqual(
      expect.arrayContaining([`${P}/sources/.gitkeep`, `${P}/outputs/.gitkeep`]),
    );
    expect(repo.read(`${P}/context.md`)).toMatch(/\n\*\*Phase signals:\*\*\n- \{R1: what shows it is complete\}\n$/);
  });
});

describe('sow prompt fills what the project knows', () => {
  const outside = (...args: string[]) =>
    spawnSync(process.execPath, [SOW, ...args], {
      cwd: tmpdir(),
      encoding: 'utf8',
      env: { ...process.env, ...TEST_ENV },
    });

  it(
    "inside a project every variable gets the project's value, " + 'for every type; outside, each one left is named',
    () => {
      const repo = fresh();
      started(repo);
      const iterative = ok(repo, ['prompt', 'orchestrator/iterative/DiscoverActive']);
      expect(iterative.stdout).toContain(
        'You are starting iterative work on "Survey" with the human on branch `iter/survey`.',
      );
      expect(iterative.stdout).not.toContain('{{');
      expect(iterative.stderr).toBe('');
      // Another type's prompt in this project: its variables are the project's too ({{iteration}}: the round of its
      // work).
      const review = expectEnvelope(ok(repo, ['prompt', 'orchestrator/standard/ReviewActive', '--json'])).data;
      expect(review).toMatchObject({
        path: 'orchestrator/standard/ReviewActive',
        unfilled: [],
        filled_from: 'project',
      });
      expect(review.text).toContain('report-1.md');
      expect(review.text).not.toContain('{{');

      const std = fresh();
      ok(std, ['project', 'new', 'auth', '--description', 'Add auth']);
      for (const name of ['PlanningActive', 'ImplementationPlanning', 'ReviewActive']) {
        const r = ok(std, ['prompt', `orchestrator/standard/${name}`]);
        expect(r.stdout, name).not.toContain('{{');
      }
      expect(ok(std, ['prompt', 'orchestrator/standard/ImplementationPlanning']).stdout).toContain(
        'This is iteration 1 of the implementation phase; 0 task(s) exist so far.',
      );

      const bare = outside('prompt', 'orchestrator/iterative/DiscoverActive');
      expect(bare.status).toBe(0);
      expect(bare.stdout).toContain('"{{description}}" with the human on branch `{{branch}}`');
      expect(bare.stderr).toBe(
        'Left unfilled: {{description}}, {{branch}} (there is no project here; inside one, sow fills them from it)\n',
      );
      const json = JSON.parse(outside('prompt', 'orchestrator/iterative/DiscoverActive', '--json').stdout);
      expect(json.data).toMatchObject({ unfilled: ['description', 'branch'], filled_from: null });
      // Guidance has no variables: printed as it is, nothing said.
      expect(outside('prompt', 'guidance/implementer/base').stderr).toBe('');
    },
  );

  it("on a branch without a project, the NoProject prompt's branch is the branch checked out", () => {
    const repo = fresh();
    const r = ok(repo, ['prompt', 'orchestrator/NoProject']);
    expect(r.stdout).toMatch(/^# sow: no project on `main`\n/);
    expect(r.stderr).toBe('');
  });
});
