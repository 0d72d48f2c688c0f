/**
 * The iterative project type (spec 002, issue 11) through the CLI only: DiscoverActive (an
 * approved brief) → PlanActive (work phases R1…Rn defined by `sow iter phase add|set`, rendered to
 * plan.md, approved) → ExecuteActive (each work phase iterated pending → in_progress → confirming
 * → verifying → done, with blocked and timeout) → VerifyActive (a pass, or a fail that reopens the
 * phases it names) → DeliverActive (every phase's output written) → Complete (archived to
 * .sow/knowledge/iterative/<slug>/). Every refused move exits with the guard's code and leaves
 * .sow/ (state.yaml and progress.md above all) byte-identical.
 *
 * What the use cases decide (the work-phase lifecycle, status, export, guardrails, the context
 * check, iter next, project continue's recovery lines, the type's guards and their variants in
 * each state of the walk, plan.md as drawn, a failed review reopening what it names, the archive)
 * is tested in-process in src/app/type-iterative.test.ts; here, the walk start to finish with one
 * refusal per state, what only the command line does (stderr, exit codes, a missing required
 * option, a warning beside --json, export's printing) and the real workers of agent spawn
 * --iteration. The tests that start in ExecuteActive copy one project brought there once.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { makeWorld, runSow, show, type World } from './agent-world.js';
import { expectEnvelope, expectFails, ok, PROJECT, type Repo, useRepos } from './harness.js';
import { startingPoint } from './starting-points.js';

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
  expect(repo.exists(PROGRESS) ? repo.read(PROGRESS) : undefined, `sow ${args.join(' ')} changed progress.md`).toBe(
    progress,
  );
  return text;
}

const state = (repo: Repo) => repo.yaml(PROJECT);
const workPhases = (repo: Repo): any[] => state(repo).phases.execute.metadata.work_phases ?? [];
const wp = (repo: Repo, id: string) => workPhases(repo).find((p) => p.id === id);
/** The headings of progress.md's entries, without their timestamps ("R1 - Iteration 2"). */
const headings = (repo: Repo) =>
  (repo.read(PROGRESS).match(/^## .*$/gm) ?? []).map((h) => h.slice(3).replace(new RegExp(` - ${ISO}$`), ''));

const log = (repo: Repo, id: string, did: string, remaining: string, ...more: string[]) =>
  ok(repo, ['iter', 'log', id, '--did', did, '--remaining', remaining, ...more]);

/** brief.md as the human fills it in: every placeholder of the template replaced. */
const fillBrief = (repo: Repo, domain = 'research') =>
  repo.write(
    `${P}/brief.md`,
    `# Literature review\n\n**Domain:** ${domain}\n\n## Outcome Needed\nA review of X.\n\n## Done When\n- 10 ` +
      `sources\n\n## Constraints\n- two weeks\n`,
  );

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
    ok(repo, [
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
      String(d.max),
      ...(d.after ? ['--after', d.after] : []),
    ]);
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

/** ExecuteActive with the three phases above (made once, copied per test). */
const executingThree = startingPoint(fresh, (repo) => executing(repo, THREE));

// ---------------------------------------------------------------------------------------------
// 1. The whole walk.
// ---------------------------------------------------------------------------------------------

describe('iterative, start to finish through the CLI', () => {
  it('is listed; --type iterative makes iter/<name> with its documents', () => {
    const repo = fresh();
    expect(ok(repo, ['project', 'types']).stdout).toMatch(
      /^iterative +iter\/ +Iterative work: a brief, a plan of phases R1…Rn/m,
    );
    const r = ok(repo, ['project', 'new', 'lit', '--type', 'iterative', '--description', 'Literature review']);
    expect(r.stdout).toBe('DiscoverActive\n');
    expect(r.stderr).toContain("created and checked out branch 'iter/lit'");
    expect(repo.git(['branch', '--show-current'])).toBe('iter/lit');
    for (const f of ['brief.md', 'context.md', 'progress.md', 'guardrails.md'])
      expect(repo.exists(`${P}/${f}`), f).toBe(true);
    expect(repo.exists(PLAN)).toBe(false);
    // An iter/ branch implies the type: src/app/type-iterative.test.ts.
  });

  it(
    'brief → plan → execute → verify (fail reopens R2 only, ' + 'then pass) → deliver → Complete, archived and indexed',
    () => {
      const repo = fresh();
      ok(repo, ['project', 'new', 'lit-review', '--type', 'iterative', '--description', 'Literature review']);

      // ---- DiscoverActive: the brief, written from the template and recorded as the output ----
      const s0 = state(repo);
      expect(s0).toMatchObject({
        name: 'lit-review',
        type: 'iterative',
        branch: 'iter/lit-review',
        statechart: { current_state: 'DiscoverActive' },
      });
      expect(Object.fromEntries(Object.entries(s0.phases).map(([k, v]: [string, any]) => [k, v.status]))).toEqual({
        discover: 'in_progress',
        plan: 'pending',
        execute: 'pending',
        verify: 'pending',
        deliver: 'pending',
      });
      expect(s0.phases.discover.outputs).toEqual([
        { type: 'brief', path: 'brief.md', approved: false, created_at: AN_ISO },
      ]);
      const brief = repo.read(`${P}/brief.md`);
      expect(brief).toMatch(
        new RegExp(
          `^# Literature review\\n\\n\\*\\*Created:\\*\\* ${ISO}\\n\\*\\*Domain:\\*\\* ` +
            `\\{research\\|writing\\|analysis\\|planning\\|software\\}\\n\\n## Outcome Needed\\n`,
        ),
      );
      for (const h of ['## Done When', '## Constraints', '## Notes']) expect(brief).toContain(h);
      expect(repo.read(CONTEXT)).toMatch(
        /^# Literature review Context\n\n<!-- Keep it under 200 words: every iteration reads it. -->\n\n\*\*Goal:\*\*/,
      );
      expect(repo.read(PROGRESS)).toBe('# Progress Log\n');
      expect(repo.read(GUARDRAILS)).toBe(GUARDRAILS_HEADER);

      // Each state's guard and its variants, what `sow iter phase add|set` refuses, plan.md as drawn,
      // the failed review that reopens what it names, and the archive are also tested in-process
      // (src/app/type-iterative.test.ts, "the walk: …"); here, once each, as a person meets them.
      expect(ok(repo, ['advance', '--list']).stdout).toContain('blocked  brief_approved → PlanActive');
      const noBrief = refused(repo, ['advance'], 3, 'TRANSITION_BLOCKED', true);
      expect(noBrief).toContain('blocked until the brief (brief.md) is approved');
      expect(noBrief).toContain("approve it: 'sow output set --phase discover --index 0 approved true'");

      repo.write(
        `${P}/brief.md`,
        '# Literature review\n\n## Outcome Needed\nA review of X.\n\n## Done When\n- 10 sources\n',
      );
      repo.write(`${P}/context.md`, '# Context\n\n**Goal:** review X.\n');
      repo.write(`${P}/sources/seed.md`, '# Seed paper\n');
      ok(repo, ['input', 'add', '--type', 'source', '--path', 'sources/seed.md']);
      ok(repo, ['phase', 'set', 'domain', 'research']);
      ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
      expect(ok(repo, ['advance']).stdout).toBe('PlanActive\n');

      // ---- PlanActive: phases by command; plan.md rendered from them; the gaps named ----
      const added = ok(repo, ['iter', 'phase', 'add', 'R1', '--title', 'Collect sources']);
      expect(added.stdout).toBe('R1: Collect sources\n');
      expect(added.stderr).toContain(
        "Still to set before the plan can be approved: criteria, output, max ('sow iter phase set R1 <field> <value>')",
      );
      const gaps = refused(repo, ['advance'], 3, 'TRANSITION_BLOCKED');
      expect(gaps).toContain(
        `R1 has no criteria ('sow iter phase set R1 criteria "<measurable>"'); R1 has no output ('sow iter phase set ` +
          `R1 output outputs/<file>.md'); R1 has no maximum of iterations ('sow iter phase set R1 max 5')`,
      );
      expect(ok(repo, ['iter', 'phase', 'set', 'R1', 'criteria', '10 sources, each summarised']).stdout).toBe(
        'R1.criteria = 10 sources, each summarised\n',
      );
      ok(repo, ['iter', 'phase', 'set', 'R1', 'output', 'outputs/sources.md']);
      expect(refused(repo, ['iter', 'phase', 'set', 'R1', 'max', '0'], 1, 'INVALID_VALUE')).toContain(
        'a whole number ≥ 1',
      );
      ok(repo, ['iter', 'phase', 'set', 'R1', 'max', '3']);
      ok(repo, [
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
      ok(repo, [
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
        'R1',
      ]);
      expect(repo.read(PLAN)).toContain(
        '- [ ] **R2**: Write the review\n  - Criteria: 2000 words citing every source\n  - Output: ' +
          '`outputs/review.md`\n  - Max iterations: 4\n  - After: R1\n',
      );
      ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
      // Changing a phase after the approval withdraws it, and says so.
      const changed = ok(repo, ['iter', 'phase', 'set', 'R3', 'criteria', 'one page, no jargon']);
      expect(changed.stderr).toContain(
        "plan.md changed, so its approval was withdrawn: approve it again ('sow output set --phase plan --index 0 " +
          "approved true')",
      );
      expect(state(repo).phases.plan.outputs[0].approved).toBe(false);
      ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
      expect(ok(repo, ['advance']).stdout).toBe('ExecuteActive\n');
      expect(workPhases(repo).map((p) => [p.id, p.status, p.after])).toEqual([
        ['R1', 'pending', []],
        ['R2', 'pending', ['R1']],
        ['R3', 'pending', ['R1']],
      ]);

      // ---- ExecuteActive: every phase to done ----
      expect(log(repo, 'R1', 'found 4 sources', '6 more sources').stdout).toBe(
        'R1: iteration 1 of 3 logged; in progress.\n',
      );
      expect(wp(repo, 'R1')).toMatchObject({
        status: 'in_progress',
        iterations: 1,
        confirmations: 0,
        started_at: AN_ISO,
      });
      finish(repo, 'R1');
      expect(wp(repo, 'R1')).toMatchObject({
        status: 'done',
        iterations: 2,
        confirmations: 1,
        verification: 'passed',
        completed_at: AN_ISO,
      });
      finish(repo, 'R2');
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

      // ---- VerifyActive: a fail that names R2 reopens R2 only ----
      repo.write(`${P}/review/round1.md`, '# Review\n\nR2 cites only 8 sources.\n');
      ok(repo, [
        'output',
        'add',
        '--type',
        'review',
        '--path',
        'review/round1.md',
        '--assessment',
        'fail',
        '--phases',
        'R2',
        '--approved',
        'true',
      ]);
      expect(ok(repo, ['advance']).stdout).toBe('ExecuteActive\n');
      expect(wp(repo, 'R1')).toMatchObject({ status: 'done', verification: 'passed' });
      expect(wp(repo, 'R2')).toMatchObject({
        status: 'in_progress',
        verification: 'failed',
        note: 'reopened by a failed review',
      });
      log(repo, 'R2', 'added the 2 missing sources', 'None', '--signal');
      log(repo, 'R2', 're-checked R2', 'None');
      expect(headings(repo).slice(-2)).toEqual(['R2 - Iteration 2', 'R2 - Confirmation 2']);
      ok(repo, ['iter', 'verify', 'R2', '--pass']);
      expect(ok(repo, ['advance']).stdout).toBe('VerifyActive\n');

      // ---- the pass ----
      repo.write(`${P}/review/round2.md`, '# Review\n\nAll criteria met.\n');
      const pass = expectEnvelope(
        ok(repo, [
          'output',
          'add',
          '--type',
          'review',
          '--path',
          'review/round2.md',
          '--assessment',
          'pass',
          '--approved',
          'true',
          '--json',
        ]),
      );
      expect(pass.data.artifact).toMatchObject({ type: 'review', approved: true, metadata: { assessment: 'pass' } });
      expect(ok(repo, ['advance']).stdout).toBe('DeliverActive\n');

      // ---- DeliverActive: blocked until every output exists (each was there when it passed; these were deleted since)
      // ----
      for (const f of ['sources', 'review', 'summary']) rmSync(join(repo.dir, `${P}/outputs/${f}.md`));
      expect(refused(repo, ['advance'], 3, 'TRANSITION_BLOCKED')).toContain(
        'write .sow/project/outputs/sources.md (R1), .sow/project/outputs/review.md (R2), ' +
          '.sow/project/outputs/summary.md (R3)',
      );
      repo.write(`${P}/outputs/sources.md`, '# Sources\n\n1. Seed paper\n');
      repo.write(`${P}/outputs/review.md`, '# Review of X\n');
      repo.write(`${P}/outputs/summary.md`, '# Summary\n');
      repo.write(`${P}/scratch.txt`, 'not kept\n');
      const kept = Object.fromEntries(
        [
          'brief.md',
          'plan.md',
          'context.md',
          'progress.md',
          'guardrails.md',
          'sources/seed.md',
          'outputs/sources.md',
          'outputs/review.md',
          'outputs/summary.md',
        ].map((f) => [f, repo.read(`${P}/${f}`)]),
      );

      // ---- Complete: archived, indexed, .sow/project/ gone ----
      const done = expectEnvelope(ok(repo, ['advance', '--json']));
      expect(done.data).toMatchObject({
        from: 'DeliverActive',
        to: 'Complete',
        event: 'delivered',
        projectRemoved: true,
      });
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
            phase: 'complete',
            phases: [
              {
                id: 'R1',
                title: 'Collect sources',
                status: 'done',
                iterations: 2,
                confirmations: 1,
                verification: 'passed',
                max: 3,
                output: 'outputs/sources.md',
                completed_at: AN_ISO,
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
                completed_at: AN_ISO,
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
                completed_at: AN_ISO,
              },
            ],
            files: [...Object.keys(kept), 'state.json'].sort().map((f) => `${dir}/${f}`),
          },
        ],
      });
      expect(repo.sow(['project', 'status']).code).not.toBe(0);

      // ---- the archive keeps the state: iter export answers for the completed project ----
      const exported = ok(repo, ['iter', 'export']);
      const archived = JSON.parse(exported.stdout);
      expect(archived).toEqual(JSON.parse(repo.read(`${dir}/state.json`)));
      const phase = (iterations: number, confirmations: number, max: number) => ({
        status: 'done',
        iterations_used: iterations,
        confirmations_used: confirmations,
        verification_passed: true,
        max_iterations: max,
        completed_at: AN_ISO,
      });
      expect(archived).toEqual({
        task: 'Literature review',
        slug: 'lit-review',
        created: AN_ISO,
        updated: AN_ISO,
        domain: 'research',
        phase: 'complete',
        current_phase: null,
        current_iteration: null,
        phases: { R1: phase(2, 1, 3), R2: phase(2, 2, 4), R3: phase(1, 1, 2) },
      });
      // From another branch: by its name; without one, a refusal that lists the archived projects.
      repo.git(['checkout', '-q', 'main']);
      expect(JSON.parse(ok(repo, ['iter', 'export', '--name', 'lit-review']).stdout)).toEqual(archived);
      expect(expectFails(repo, ['iter', 'export'], 1, 'NO_PROJECT', { human: true })).toContain(
        "the archived ones: 'lit-review' ('sow iter export --name <name>')",
      );
      expect(
        expectFails(repo, ['iter', 'export', '--name', 'nope'], 1, 'ARCHIVE_NOT_FOUND', { human: true }),
      ).toContain("no completed iterative project named 'nope' is archived here");
    },
  );
});

// ---------------------------------------------------------------------------------------------
// 2. The work-phase lifecycle, and what it refuses.
// ---------------------------------------------------------------------------------------------

// The work-phase lifecycle itself (dependencies, signal, confirmation, verification, timeout,
// extend, block and unblock, progress.md only appended to) is tested in-process in
// src/app/type-iterative.test.ts; here, what only the command line does.
describe('the work-phase lifecycle on the command line', () => {
  it('a refusal on stderr (error and hint, exit 3); a missing required option is a usage error (exit 2)', () => {
    const repo = executingThree();
    const waiting = refused(
      repo,
      ['iter', 'log', 'R2', '--did', 'x', '--remaining', 'y'],
      3,
      'WORK_PHASE_BLOCKED',
      true,
    );
    expect(waiting).toBe(
      "cannot start R2: it comes after R1, which is not done\nwork on R1 first ('sow iter next' names the phase " +
        'to work on)',
    );
    expect(refused(repo, ['iter', 'log', 'R1', '--remaining', 'y'], 2, 'USAGE')).toContain(
      "required option '--did <text>'",
    );
    expect(refused(repo, ['iter', 'block', 'R1'], 2, 'USAGE')).toContain("required option '--note <text>'");
    expect(
      refused(repo, ['iter', 'guardrail', 'add', '--pattern', 'x', '--context', 'x', '--problem', 'x'], 2, 'USAGE'),
    ).toContain("required option '--solution <text>'");
    expect(log(repo, 'R1', 'summarised all 10', 'None', '--signal').stdout).toBe(
      'R1 says it is done after iteration 1 of 3: it is confirming. Run its confirmation, one more iteration that ' +
        'checks the criteria afresh and finds nothing left (it does not count against the maximum).\n',
    );
  });

  it('a warning goes to stderr, also beside --json; iter export prints its JSON without --json', () => {
    const repo = executingThree();
    repo.write(CONTEXT, `# Context\n\n${Array.from({ length: 199 }, (_, i) => `w${i}`).join(' ')}\n`);
    const r = ok(repo, ['iter', 'status', '--json']);
    expect(r.stderr).toContain(
      'warning: .sow/project/context.md has 201 words; keep it under 200: every iteration reads it\n',
    );
    expect(expectEnvelope(r).data.context_words).toBe(201);
    const plain = ok(repo, ['iter', 'next']);
    expect(plain.stderr).toContain('warning: .sow/project/context.md has 201 words');
    expect(plain.stdout).not.toContain('warning');
    const exported = ok(repo, ['iter', 'export']);
    const data = JSON.parse(exported.stdout);
    expect(exported.stdout).toBe(`${JSON.stringify(data, null, 2)}\n`);
    expect(data).toMatchObject({ slug: 'lit', phase: 'execute', current_phase: 'R1' });
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
    const repo = executingThree();
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

  it(
    '--iteration is refused outside ExecuteActive (exit 3), with a task id (exit 2), and in a standard project ' +
      '(exit 2); no worker starts',
    () => {
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
      expect(r.json?.error).toMatchObject({
        code: 'NOT_ITERATIVE',
        message: '--iteration is for projects whose work runs in iterations, and this project is standard',
      });
      expect(std.snapshot()).toEqual(stdBefore);
      expect(w.calls()).toEqual([]);
    },
  );
});

// ---------------------------------------------------------------------------------------------
// 6. The type's own guards on its state.
// ---------------------------------------------------------------------------------------------

// Which state each iter command belongs to, iter in a standard project, the work phases read-only
// to the generic commands, and an invalid work phase refused by every use case: in-process
// (src/app/type-iterative.test.ts). Here, how the command line says two of them.
describe("the type's guards", () => {
  it('sow iter in a standard project: exit 1 WRONG_PROJECT_TYPE, on stderr', () => {
    const repo = fresh();
    ok(repo, ['project', 'new', 'demo', '--description', 'A standard project']);
    expect(refused(repo, ['iter', 'status'], 1, 'WRONG_PROJECT_TYPE', true)).toContain(
      "'sow iter status' belongs to iterative projects, and this project is standard",
    );
  });

  it('a hand-edited state.yaml with an invalid work phase: exit 4 on any command, nothing overwritten', () => {
    const repo = executingThree();
    log(repo, 'R1', 'started', 'the rest');
    const good = repo.read(PROJECT);
    const doc = parse(good);
    doc.phases.execute.metadata.work_phases[0].status = 'finished';
    repo.write(PROJECT, stringify(doc));
    for (const args of [
      ['iter', 'status'],
      ['project', 'status'],
    ]) {
      expect(refused(repo, args, 4, 'STATE_FILE_INVALID', true), args.join(' ')).toContain(
        '.sow/project/state.yaml: phases.execute.metadata.work_phases.0.status:',
      );
    }
    repo.write(PROJECT, good);
    expect(ok(repo, ['iter', 'status']).stdout).toContain('R1  in_progress  1/3');
  });
});
