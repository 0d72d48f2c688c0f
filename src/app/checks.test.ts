/**
 * Checks in-process: the evidence a run records (the code it ran on, dirty or not), evidence no
 * one can forge, completions refused before any check runs, and the FinalizeChecks guard judging
 * evidence. The checks are shell one-liners (`true`, `exit 1`); the command line around them
 * (progress lines, exit codes, the words of a refusal) is test/e2e/checks.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT, refused, taskFile, toExecuting, worlds, type World } from '../../test/inproc.js';
import { advanceProject, listAdvanceOptions } from './advance.js';
import { addArtifact, setArtifact } from './artifacts.js';
import { allowChecks } from './check-allowance.js';
import { checkRun, evidenceInto, evidenceOutputs, evidenceTarget, type CheckRun } from './checks.js';
import { listChecks } from './check-list.js';
import { setTaskField } from './task-change.js';
import { setPhaseField } from './phase.js';
import { newProject } from './project.js';
import { continueProject, projectStatus } from './status.js';
import { claimNext } from './task.js';
import { update } from './workspace.js';

interface CheckDecl {
  name: string;
  run: string;
  when?: string[];
}

const when = (c: CheckDecl) => (c.when ? `    when: [${c.when.join(', ')}]\n` : '');

/** Declares the checks in .sow/config.yaml and allows them, as the person would after reading them. */
async function declare(w: World, checks: CheckDecl[]): Promise<void> {
  w.write(
    '.sow/config.yaml',
    `checks:\n${checks.map((c) => `  - name: ${c.name}\n    run: ${JSON.stringify(c.run)}\n${when(c)}`).join('')}`,
  );
  await allowChecks(w.ctx(), [], { yes: true, interactive: false, confirm: async () => true, show: () => undefined });
}

/** A committed source file and a project in ImplementationExecuting (task 010). */
async function withCode(w: World): Promise<void> {
  w.write('src/app.js', 'console.log("app")\n');
  w.git(['add', 'src']);
  w.git(['commit', '-q', '-m', 'app']);
  await toExecuting(w, ['Only task']);
}

const world = worlds({
  code: withCode,
  finalize: async (w) => {
    await withCode(w);
    const ctx = w.ctx();
    await setTaskField(ctx, '010', 'status', 'in_progress');
    await setTaskField(ctx, '010', 'status', 'completed');
    await advanceProject(ctx, undefined, false);
    w.write('.sow/project/review/report.md', '# Review\n\nPass.\n');
    await addArtifact(ctx, { kind: 'phase' }, 'outputs', {
      type: 'review',
      path: 'review/report.md',
      approved: 'true',
      extra: { assessment: 'pass' },
    });
    await advanceProject(ctx, undefined, false);
    await advanceProject(ctx, undefined, false);
    expect(w.yaml(PROJECT).statechart.current_state).toBe('FinalizeChecks');
  },
});

const temps: string[] = [];
afterEach(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});
/** A folder outside the repository, for what checks leave for the test. */
function scratch(): string {
  const d = mkdtempSync(join(tmpdir(), 'sow-inproc-checks-'));
  temps.push(d);
  return d;
}

/** The tree hash of the code outside .sow/, computed here independently of sow (a fresh temp index). */
function codeTree(w: World): string {
  const env = { ...process.env, GIT_INDEX_FILE: join(scratch(), 'index') };
  execFileSync('git', ['add', '-A', '--', '.', ':(exclude).sow'], { cwd: w.dir, env });
  return execFileSync('git', ['write-tree'], { cwd: w.dir, env, encoding: 'utf8' }).trim();
}

const EVIDENCE_DIR = '.sow/project/evidence';
const LOG = /^evidence\/\d{8}T\d{6}\.\d{3}Z-[a-z0-9_-]+(\.\d+)?\.log$/;
const said = (e: { message: string; hint?: string }) => `${e.message}\n${e.hint}`;
const logs = (w: World) => (w.exists(EVIDENCE_DIR) ? readdirSync(join(w.dir, EVIDENCE_DIR)).sort() : []);

describe('check run', () => {
  it('dirty and commit: changes outside .sow/ (untracked too, ignored not) against HEAD', async () => {
    const w = await world('code');
    await declare(w, [{ name: 'unit', run: 'true' }]);
    w.write('.gitignore', 'build/\n');
    w.git(['add', '.gitignore']);
    w.git(['commit', '-q', '-m', 'ignore build']);
    const meta = async () => {
      await checkRun(w.ctx(), []);
      return w.yaml(PROJECT).phases.implementation.outputs.at(-1).metadata;
    };
    // Changes in .sow/ (the state, the logs, the config) never count.
    expect(await meta()).toMatchObject({ dirty: false, commit: w.git(['rev-parse', 'HEAD']), tree: codeTree(w) });
    w.write('build/out.js', 'ignored\n');
    expect(await meta()).toMatchObject({ dirty: false });
    w.write('notes.txt', 'untracked\n');
    expect(await meta()).toMatchObject({ dirty: true, tree: codeTree(w) });
    w.git(['add', 'notes.txt']);
    w.git(['commit', '-q', '-m', 'notes']);
    expect(await meta()).toMatchObject({ dirty: false, commit: w.git(['rev-parse', 'HEAD']) });
    w.write('src/app.js', 'changed\n');
    expect(await meta()).toMatchObject({ dirty: true, tree: codeTree(w) });
  });

  it('stamps the evidence with the clock: when it started, and the log named after it', async () => {
    const w = await world('code');
    await declare(w, [{ name: 'unit', run: 'true' }]);
    w.clock.set('2026-12-24T18:30:05.123Z');
    const { runs, recorded } = await checkRun(w.ctx(), ['unit']);
    expect(runs[0]?.started_at).toBe('2026-12-24T18:30:05.123Z');
    expect(recorded?.outputs[0]?.artifact).toMatchObject({
      type: 'evidence',
      path: 'evidence/20261224T183005.123Z-unit.log',
      created_at: '2026-12-24T18:30:05.123Z',
    });
    // The same moment again: a log of its own.
    expect((await checkRun(w.ctx(), ['unit'])).recorded?.outputs[0]?.artifact.path).toBe(
      'evidence/20261224T183005.123Z-unit.2.log',
    );
  });

  it('evidence cannot be added or changed by hand', async () => {
    const w = await world('code');
    await declare(w, [{ name: 'lint', run: 'exit 1' }]);
    await expect(checkRun(w.ctx(), [])).rejects.toMatchObject({ code: 'CHECKS_FAILED' });
    expect(w.yaml(PROJECT).phases.implementation.outputs).toHaveLength(1);
    const e = await refused(
      w,
      () => setArtifact(w.ctx(), { kind: 'phase' }, 'outputs', 0, 'exit_code', '0'),
      'ARTIFACT_RECORDED_BY_SOW',
      1,
    );
    expect(`${e.message}\n${e.hint}`).toContain("run 'sow check run' to record a new one");
    await refused(
      w,
      () =>
        addArtifact(w.ctx(), { kind: 'phase' }, 'outputs', {
          type: 'evidence',
          path: 'evidence/fake.log',
          extra: { check: 'lint', exit_code: '0' },
        }),
      'ARTIFACT_RECORDED_BY_SOW',
      1,
    );
    await refused(
      w,
      () =>
        addArtifact(w.ctx(), { kind: 'task', id: '010' }, 'outputs', {
          type: 'evidence',
          path: 'evidence/fake.log',
          extra: {},
        }),
      'ARTIFACT_RECORDED_BY_SOW',
      1,
    );
  });
});

// Moved from test/e2e/checks.test.ts, which keeps one unknown name as stderr words it.
describe('check run: which checks run', () => {
  it(
    'the named ones, each once, in the order named; an unknown name is refused before any runs, with the declared ' +
      'names (and a did-you-mean when one is near)',
    async () => {
      const w = await world('code');
      const marks = scratch();
      await declare(w, [
        { name: 'unit', run: `echo unit >> ${marks}/ran` },
        { name: 'lint', run: `echo lint >> ${marks}/ran` },
        { name: 'types', run: `echo types >> ${marks}/ran` },
      ]);
      expect(said(await refused(w, () => checkRun(w.ctx(), ['unit', 'lnt']), 'CHECK_NOT_FOUND', 1))).toBe(
        "no check named 'lnt'; did you mean 'lint'?\nthe declared checks: unit, lint, types",
      );
      expect(said(await refused(w, () => checkRun(w.ctx(), ['e2e']), 'CHECK_NOT_FOUND', 1))).toBe(
        "no check named 'e2e'\nthe declared checks: unit, lint, types",
      );
      expect(existsSync(join(marks, 'ran'))).toBe(false);
      expect(logs(w)).toEqual([]);
      expect((await checkRun(w.ctx(), ['types', 'unit', 'types'])).runs.map((r) => r.name)).toEqual(['types', 'unit']);
      expect(readFileSync(join(marks, 'ran'), 'utf8')).toBe('types\nunit\n');
    },
  );

  it('none declared: nothing runs and nothing is recorded; a named one is unknown', async () => {
    const w = await world('code');
    const before = w.snapshot();
    expect(await checkRun(w.ctx(), [])).toEqual({ runs: [], recorded: null });
    expect(w.snapshot()).toEqual(before);
    const e = await refused(w, () => checkRun(w.ctx(), ['unit']), 'CHECK_NOT_FOUND', 1);
    expect(said(e)).toContain('.sow/config.yaml declares no checks');
  });
});

describe('where evidence goes', () => {
  it(
    'resolved before any check runs: a task, the phase in progress, or the phase named; a task or phase that is not ' +
      'there is refused',
    async () => {
      const w = await world('code');
      expect(await evidenceTarget(w.ctx(), { task: '10' })).toMatchObject({
        root: w.dir,
        target: { task: '010' },
        task: { id: '010' },
      });
      expect(await evidenceTarget(w.ctx(), {})).toEqual({ root: w.dir, target: { phase: 'implementation' } });
      expect((await evidenceTarget(w.ctx(), { phase: 'finalize' })).target).toEqual({ phase: 'finalize' });
      await refused(w, () => evidenceTarget(w.ctx(), { task: '090' }), 'TASK_NOT_FOUND', 1);
      await refused(w, () => evidenceTarget(w.ctx(), { phase: 'nosuch' }), 'PHASE_NOT_FOUND');
      // The project of another branch: nothing can be recorded there, so nothing runs.
      w.git(['checkout', '-q', '-b', 'elsewhere']);
      await refused(w, () => evidenceTarget(w.ctx(), {}), 'WRONG_BRANCH', 1);
    },
  );

  it('recorded on a task or a phase, at the context’s time, with what the run was and the code it ran on', async () => {
    const w = await world('code');
    const run = {
      name: 'unit',
      run: 'npm test',
      passed: true,
      exit_code: 0,
      duration_ms: 12,
      commit: 'abc',
      dirty: false,
      tree: 'def',
      log: 'evidence/x-unit.log',
    } as unknown as CheckRun;
    w.clock.advance(7);
    const at = '2026-11-26T10:00:07.000Z';
    const artifact = {
      type: 'evidence',
      path: 'evidence/x-unit.log',
      created_at: at,
      metadata: {
        check: 'unit',
        run: 'npm test',
        exit_code: 0,
        duration_ms: 12,
        commit: 'abc',
        dirty: false,
        tree: 'def',
      },
    };
    expect(evidenceOutputs([run], at)).toEqual([artifact]);
    // Run in a task's own checkout: the evidence names it.
    expect(evidenceOutputs([{ ...run, checkout: '.sow/worktrees/.workers/b--task-010' }], at)).toEqual([
      { ...artifact, metadata: { ...artifact.metadata, checkout: '.sow/worktrees/.workers/b--task-010' } },
    ]);
    expect(await update(w.ctx(), (uow) => evidenceInto(uow, [run], { task: '010' }))).toEqual({
      owner: 'task 010',
      task: '010',
      phase: null,
      outputs: [{ index: 0, artifact }],
    });
    expect(w.yaml(taskFile('010')).outputs).toEqual([artifact]);
    const onPhase = await update(w.ctx(), (uow) => evidenceInto(uow, [run, { ...run, skipped: true } as CheckRun], {}));
    expect(onPhase).toMatchObject({
      owner: 'the implementation phase',
      task: null,
      phase: 'implementation',
      outputs: [{ index: 0 }, { index: 1, artifact: { metadata: { skipped: true } } }],
    });
  });
});

// Moved from test/e2e/checks.test.ts: evidence is appended after the documents people approve by index.
describe('check list: each check’s evidence per phase, fresh or stale now', () => {
  it(
    'the newest run in each phase, judged against the code as it is: fresh, failed, stale; a task’s evidence is ' +
      'not a phase’s',
    async () => {
      const w = await world('code');
      await declare(w, [
        { name: 'unit', run: 'grep -q app src/app.js', when: ['finalize'] },
        { name: 'lint', run: 'exit 1' },
      ]);
      const evidenceOf = async () =>
        Object.fromEntries((await listChecks(w.ctx())).checks.map((c) => [c.name, c.evidence]));
      expect(await evidenceOf()).toEqual({ unit: undefined, lint: undefined });

      await checkRun(w.ctx(), ['unit']);
      await checkRun(w.ctx(), ['unit'], { task: '010' });
      await expect(checkRun(w.ctx(), ['lint'])).rejects.toMatchObject({ code: 'CHECKS_FAILED' });
      expect(await evidenceOf()).toEqual({
        unit: [
          {
            phase: 'implementation',
            name: 'unit',
            state: 'fresh-pass',
            evidence: expect.stringMatching(LOG),
            exit_code: 0,
          },
        ],
        lint: [
          {
            phase: 'implementation',
            name: 'lint',
            state: 'failed',
            evidence: expect.stringMatching(LOG),
            exit_code: 1,
          },
        ],
      });

      // The code changed since it passed: stale, until the code is back as it was.
      w.write('src/app.js', 'console.log("app, changed")\n');
      expect((await evidenceOf())['unit']).toEqual([
        expect.objectContaining({ phase: 'implementation', state: 'stale', changed: 'code' }),
      ]);
      w.write('src/app.js', 'console.log("app")\n');
      expect((await evidenceOf())['unit']).toEqual([expect.objectContaining({ state: 'fresh-pass' })]);
    },
  );
});

describe('evidence never moves the documents people approve by index', () => {
  it(
    'a check run while planning, before the task list: ' + 'the task list is still [0], and the evidence follows it',
    async () => {
      const w = await world();
      const ctx = w.ctx();
      await newProject(ctx, { name: 'demo', description: 'd', planning: true });
      await declare(w, [{ name: 'unit', run: 'true' }]);
      await checkRun(ctx, []);
      w.write('.sow/project/planning/tasks.md', '# Tasks\n');
      const added = await addArtifact(ctx, { kind: 'phase' }, 'outputs', {
        type: 'task_list',
        path: 'planning/tasks.md',
        extra: {},
      });
      expect(added).toMatchObject({
        index: 0,
        artifact: { type: 'task_list', path: 'planning/tasks.md', approved: false },
      });
      // What the README and the planning prompt tell people to run.
      await setArtifact(ctx, { kind: 'phase' }, 'outputs', 0, 'approved', 'true');
      expect(w.yaml(PROJECT).phases.planning.outputs.map((a: { type: string }) => a.type)).toEqual([
        'task_list',
        'evidence',
      ]);
      await checkRun(ctx, []);
      expect(w.yaml(PROJECT).phases.planning.outputs.map((a: { type: string }) => a.type)).toEqual([
        'task_list',
        'evidence',
        'evidence',
      ]);
      expect(await advanceProject(ctx, undefined, false)).toMatchObject({ to: 'ImplementationPlanning' });
    },
  );

  it('on a task too: an output added after a check run of the task comes first', async () => {
    const w = await world('code');
    await declare(w, [{ name: 'unit', run: 'true' }]);
    await setTaskField(w.ctx(), '010', 'status', 'in_progress');
    await checkRun(w.ctx(), [], { task: '010' });
    expect(
      await addArtifact(w.ctx(), { kind: 'task', id: '010' }, 'outputs', {
        type: 'modified',
        path: 'src/app.js',
        extra: {},
      }),
    ).toMatchObject({ index: 0, artifact: { type: 'modified' } });
    expect(w.yaml(taskFile('010')).outputs.map((a: { type: string }) => a.type)).toEqual(['modified', 'evidence']);
  });
});

describe('completing a task runs the task_complete checks', () => {
  it('a completion refused anyway (another owner holds the task) runs no check and writes nothing', async () => {
    const w = await world('code');
    await claimNext(w.ctx(), { owner: 'alice' });
    const marks = scratch();
    await declare(w, [{ name: 'unit', run: `touch ${marks}/ran`, when: ['task_complete'] }]);
    await refused(w, () => setTaskField(w.ctx(), '010', 'status', 'completed'), 'TASK_HELD', 3);
    expect(existsSync(join(marks, 'ran'))).toBe(false);
    expect(logs(w)).toEqual([]);
  });

  it('--force skips the checks and records, in the log, which worker skipped them and when', async () => {
    const w = await world('code');
    const marks = scratch();
    await declare(w, [{ name: 'unit', run: `touch ${marks}/ran; exit 1`, when: ['task_complete'] }]);
    await setTaskField(w.ctx(), '010', 'status', 'in_progress');
    w.clock.set('2026-12-01T09:00:00.000Z');
    const r = await setTaskField(w.as('implementer-1', '010'), '010', 'status', 'completed', { force: true });
    expect(existsSync(join(marks, 'ran'))).toBe(false);
    expect(r.checks).toEqual([
      expect.objectContaining({ name: 'unit', skipped: true, passed: false, started_at: '2026-12-01T09:00:00.000Z' }),
    ]);
    const task = w.yaml(taskFile('010'));
    expect(task).toMatchObject({ status: 'completed', completed_at: '2026-12-01T09:00:00.000Z' });
    expect(task.outputs).toEqual([
      {
        type: 'evidence',
        path: 'evidence/20261201T090000.000Z-unit-skipped.log',
        created_at: '2026-12-01T09:00:00.000Z',
        metadata: expect.objectContaining({ check: 'unit', exit_code: null, skipped: true, duration_ms: 0 }),
      },
    ]);
    expect(w.read(`.sow/project/${task.outputs[0].path}`)).toContain(
      '# sow: skipped 2026-12-01T09:00:00.000Z: the task was completed with --force by implementer-1',
    );
  });
});

describe('a task status other than completed', () => {
  it('runs no check, and a completion runs none when no check is declared for task_complete', async () => {
    const w = await world('code');
    const marks = scratch();
    await declare(w, [{ name: 'unit', run: `touch ${marks}/ran`, when: ['task_complete'] }]);
    for (const status of ['in_progress', 'needs_review'])
      expect((await setTaskField(w.ctx(), '010', 'status', status)).checks).toBeUndefined();
    expect(existsSync(join(marks, 'ran'))).toBe(false);
    await declare(w, [
      { name: 'unit', run: `touch ${marks}/ran`, when: ['finalize'] },
      { name: 'lint', run: `touch ${marks}/ran` },
    ]);
    const done = await setTaskField(w.ctx(), '010', 'status', 'completed');
    expect(done).toMatchObject({ checks: [], task: { status: 'completed', outputs: [] } });
    expect(existsSync(join(marks, 'ran'))).toBe(false);
  });
});

describe('FinalizeChecks: checked, not trusted', () => {
  it(
    'needs fresh passing evidence of every finalize check: missing, failed, stale blocked; a commit of .sow/ alone ' +
      'keeps it fresh',
    async () => {
      const w = await world('finalize');
      await declare(w, [
        { name: 'unit', run: 'grep -q app src/app.js', when: ['finalize'] },
        { name: 'lint', run: 'true', when: ['task_complete', 'finalize'] },
        { name: 'slow', run: 'exit 1' },
        { name: 'perf', run: 'exit 1', when: ['task_complete'] },
      ]);
      const blocked = async (dryRun = false) =>
        said(await refused(w, () => advanceProject(w.ctx(), undefined, dryRun), 'TRANSITION_BLOCKED', 3));
      const checksDone = async () =>
        (await listAdvanceOptions(w.ctx())).transitions.find((t) => t.event === 'checks_done')!;

      // Missing: named, with what to run.
      let text = await blocked();
      expect(text).toContain(
        'cannot advance from FinalizeChecks: blocked until every check declared for finalize in .sow/config.yaml has ' +
          'passed on the current code',
      );
      expect(text).toContain("unit: never run; lint: never run; run 'sow check run unit lint'");
      expect(text).not.toMatch(/slow|perf/);
      await blocked(true);

      // Failed: with the exit code and the log.
      w.write('src/app.js', 'nothing here\n');
      await expect(checkRun(w.ctx(), ['unit', 'lint'])).rejects.toMatchObject({ code: 'CHECKS_FAILED' });
      const failedLog = w.yaml(PROJECT).phases.finalize.outputs[0].path;
      expect(await blocked()).toContain(
        `unit: failed (exit 1; log .sow/project/${failedLog}); run 'sow check run unit'`,
      );

      // Fixed and run again: fresh, so the guard holds (the dry run, the list and the status agree).
      w.write('src/app.js', 'console.log("app")\n');
      await checkRun(w.ctx(), ['unit', 'lint']);
      expect(await advanceProject(w.ctx(), undefined, true)).toMatchObject({
        from: 'FinalizeChecks',
        to: 'FinalizeDelete',
        event: 'checks_done',
        dryRun: true,
      });
      expect(await checksDone()).toMatchObject({ to: 'FinalizeDelete', blocked: false });
      const status = await projectStatus(w.ctx());
      expect(status.checks).toEqual([
        { name: 'unit', state: 'fresh-pass', evidence: expect.stringMatching(LOG), exit_code: 0 },
        { name: 'lint', state: 'fresh-pass', evidence: expect.stringMatching(LOG), exit_code: 0 },
      ]);
      expect(status.next).toEqual([expect.objectContaining({ event: 'checks_done', blocked: false })]);

      // Stale: the code changed since the checks passed (not even committed).
      w.write('src/app.js', 'console.log("app, changed")\n');
      expect(await blocked()).toContain(
        "unit: stale (the code changed since it passed); lint: stale (the code changed since it passed); run 'sow " +
          "check run unit lint'",
      );
      const continued = (await continueProject(w.ctx())).prompt;
      expect(continued).toContain('sow check run');
      expect(continued).toContain(
        '`checks_done` → FinalizeDelete: every check declared for finalize in .sow/config.yaml has passed on the ' +
          "current code ('sow check run') — **not yet met**: unit: stale",
      );
      expect(await checksDone()).toMatchObject({ blocked: true });

      // The same code as when they passed: fresh again (the tree is the code, whatever happened between).
      w.write('src/app.js', 'console.log("app")\n');
      await advanceProject(w.ctx(), undefined, true);

      // A commit of sow's own state changes HEAD, not the code: still fresh.
      w.git(['add', '.sow']);
      w.git(['commit', '-q', '-m', 'sow state']);
      expect(w.git(['status', '--porcelain'])).toBe('');
      await setPhaseField(w.ctx(), 'metadata.note', 'after the commit');
      expect(await advanceProject(w.ctx(), undefined, false)).toMatchObject({ to: 'FinalizeDelete' });
    },
  );

  it('the command of a check changed since it passed: stale', async () => {
    const w = await world('finalize');
    await declare(w, [{ name: 'unit', run: 'true', when: ['finalize'] }]);
    await checkRun(w.ctx(), []);
    await advanceProject(w.ctx(), undefined, true);
    await declare(w, [{ name: 'unit', run: 'true # stricter now', when: ['finalize'] }]);
    const e = await refused(w, () => advanceProject(w.ctx(), undefined, false), 'TRANSITION_BLOCKED', 3);
    expect(`${e.message}\n${e.hint}`).toContain(
      'unit: stale (its command in .sow/config.yaml changed since it passed)',
    );
  });

  it(
    'only evidence of the finalize phase counts: ' + 'a pass recorded on a task or while implementing does not',
    async () => {
      const w = await world('code');
      await declare(w, [{ name: 'unit', run: 'true', when: ['finalize'] }]);
      await checkRun(w.ctx(), []);
      await checkRun(w.ctx(), [], { task: '010' });
      const ctx = w.ctx();
      await setTaskField(ctx, '010', 'status', 'in_progress');
      await setTaskField(ctx, '010', 'status', 'completed');
      await advanceProject(ctx, undefined, false);
      w.write('.sow/project/review/report.md', '# Review\n\nPass.\n');
      await addArtifact(ctx, { kind: 'phase' }, 'outputs', {
        type: 'review',
        path: 'review/report.md',
        approved: 'true',
        extra: { assessment: 'pass' },
      });
      await advanceProject(ctx, undefined, false);
      await advanceProject(ctx, undefined, false);
      expect(w.yaml(PROJECT).statechart.current_state).toBe('FinalizeChecks');
      const e = await refused(w, () => advanceProject(w.ctx(), undefined, false), 'TRANSITION_BLOCKED', 3);
      expect(`${e.message}\n${e.hint}`).toContain('unit: never run');
    },
  );

  it('with no finalize checks declared the guard holds, and nothing runs', async () => {
    const w = await world('finalize');
    const marks = scratch();
    await declare(w, [
      { name: 'unit', run: `touch ${marks}/ran`, when: ['task_complete'] },
      { name: 'lint', run: `touch ${marks}/ran` },
    ]);
    expect((await projectStatus(w.ctx())).checks).toEqual([]);
    expect(await advanceProject(w.ctx(), undefined, false)).toMatchObject({
      from: 'FinalizeChecks',
      to: 'FinalizeDelete',
    });
    expect(existsSync(join(marks, 'ran'))).toBe(false);
  });

  it('status reads no checks outside FinalizeChecks, not even a broken configuration', async () => {
    const w = await world('code');
    await declare(w, [{ name: 'unit', run: 'true', when: ['finalize'] }]);
    expect((await projectStatus(w.ctx())).checks).toBeUndefined();
    w.write('.sow/config.yaml', 'checks: [oops\n');
    expect(await projectStatus(w.ctx())).toMatchObject({ state: 'ImplementationExecuting' });
  });
});
