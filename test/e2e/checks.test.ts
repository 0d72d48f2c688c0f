/**
 * Checked, not trusted: `sow check list|run`, the evidence each run records (log, exit code, the
 * code it ran on), and the FinalizeChecks guard that wants passing evidence for the code as it is
 * now. Checks are real shell commands in temp git repositories; timeouts and Ctrl-C are checked
 * by looking for the processes a check started. Allowing the checks and walking to FinalizeChecks,
 * which only set a test up, are checked in checks-allowed.test.ts and lifecycle.test.ts.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  expectEnvelope,
  expectFails,
  ok,
  PROJECT,
  SOW,
  taskFile,
  TEST_ENV,
  toExecuting,
  useRepos,
  type Repo,
  running,
} from './harness.js';

const fresh = useRepos();
const temps: string[] = [];
afterEach(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});
/** A folder outside the repository, for what checks leave for the test (pids, markers). */
function scratch(): string {
  const d = mkdtempSync(join(tmpdir(), 'sow-checks-'));
  temps.push(d);
  return d;
}

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z$/);
const SHA = expect.stringMatching(/^[0-9a-f]{40}$/);
const LOG = /^evidence\/\d{8}T\d{6}\.\d{3}Z-[a-z0-9_-]+(\.\d+)?\.log$/;
const EVIDENCE_DIR = '.sow/project/evidence';

interface CheckDecl {
  name: string;
  run: string;
  when?: string[];
  timeout?: number;
}

/**
 * Declares the checks in .sow/config.yaml and allows them (`sow check allow --yes`), as the person
 * would after reading them; what allowing takes is tested in checks-allowed.test.ts.
 */
function declare(repo: Repo, checks: CheckDecl[]): void {
  repo.write(
    '.sow/config.yaml',
    `checks:\n${checks
      .map(
        (c) =>
          `  - name: ${c.name}\n    ` +
          `run: ${JSON.stringify(c.run)}\n` +
          `${c.when ? `    when: [${c.when.join(', ')}]\n` : ''}${c.timeout ? `    timeout: ${c.timeout}\n` : ''}`,
      )
      .join('')}`,
  );
  ok(repo, ['check', 'allow', '--yes']);
}

/** The tree hash of the code outside .sow/, computed here independently of sow (a fresh temp index). */
function codeTree(repo: Repo): string {
  const dir = scratch();
  const env = { ...process.env, GIT_INDEX_FILE: join(dir, 'index') };
  execFileSync('git', ['add', '-A', '--', '.', ':(exclude).sow'], { cwd: repo.dir, env });
  return execFileSync('git', ['write-tree'], { cwd: repo.dir, env, encoding: 'utf8' }).trim();
}

/**
 * A repository with a project in ImplementationExecuting (task 010, from the harness's template)
 * and a committed source file.
 */
function withCode(): Repo {
  const repo = fresh();
  toExecuting(repo, ['Only task']);
  repo.write('src/app.js', 'console.log("app")\n');
  repo.git(['add', 'src']);
  repo.git(['commit', '-q', '-m', 'app']);
  return repo;
}

/** Walks a project to FinalizeChecks (each step of that walk is checked in lifecycle.test.ts). */
function toFinalizeChecks(repo: Repo): void {
  ok(repo, ['task', 'set', '--id', '010', 'status', 'in_progress']);
  ok(repo, ['task', 'set', '--id', '010', 'status', 'completed']);
  ok(repo, ['advance']);
  repo.write('.sow/project/review/report.md', '# Review\n\nPass.\n');
  ok(repo, [
    'output',
    'add',
    '--type',
    'review',
    '--path',
    'review/report.md',
    '--assessment',
    'pass',
    '--approved',
    'true',
  ]);
  ok(repo, ['advance']);
  ok(repo, ['advance']);
  expect(repo.yaml(PROJECT).statechart.current_state).toBe('FinalizeChecks');
}

async function until(what: () => boolean, ms = 120_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (what()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return what();
}

const logs = (repo: Repo) => (repo.exists(EVIDENCE_DIR) ? readdirSync(join(repo.dir, EVIDENCE_DIR)).sort() : []);

// In-process (src/app/checks.test.ts): the code a run records (dirty, commit, tree), which checks run (named ones each
// once, an unknown name with and without a did-you-mean, none declared), a status other than completed running none,
// evidence no one can forge, a completion refused before any check runs, evidence placed after the documents people
// approve by index, and the FinalizeChecks guard (missing, failed, stale, fresh again, a commit of .sow/ alone; a
// changed command, evidence of another phase, no finalize checks, outside FinalizeChecks).

describe('sow check list', () => {
  it('without checks: says how to declare them, with an example (exit 0, an empty list)', () => {
    const repo = fresh();
    const r = ok(repo, ['check', 'list']);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('No checks declared; add them to .sow/config.yaml, for example:');
    expect(r.stderr).toContain('checks:\n  - name: unit\n    run: npm test\n    when: [task_complete, finalize]');
    expect(expectEnvelope(ok(repo, ['check', 'list', '--json']))).toEqual({ ok: true, data: [] });
  });

  it('lists name, command, when and timeout (defaults filled in)', async () => {
    const repo = fresh();
    declare(repo, [
      { name: 'unit', run: 'npm test', when: ['task_complete', 'finalize'] },
      { name: 'lint', run: 'npm run lint', timeout: 30 },
    ]);
    expect(ok(repo, ['check', 'list']).stdout).toBe(
      'unit  npm test  (needed for task_complete, finalize; timeout 600 s; allowed)\n' +
        'lint  npm run lint  (run by hand; timeout 30 s; allowed)\n',
    );
    expect(expectEnvelope(ok(repo, ['check', 'list', '--json'])).data).toEqual([
      { name: 'unit', run: 'npm test', when: ['task_complete', 'finalize'], timeout: 600, allowed: true },
      { name: 'lint', run: 'npm run lint', when: [], timeout: 30, allowed: true },
    ]);
  });

  it('an invalid .sow/config.yaml is exit 4 naming the field', () => {
    const repo = fresh();
    repo.write('.sow/config.yaml', 'checks:\n  - name: unit\n    rum: npm test\n');
    const r = repo.sow(['check', 'list']);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('.sow/config.yaml');
  });
});

describe('sow check run', () => {
  it(
    'runs passing and failing checks in the repository root: a line each, exit 1, evidence with its ' +
      'metadata and log',
    async () => {
      const repo = withCode();
      declare(repo, [
        { name: 'unit', run: 'echo "unit says hi"; echo "to stderr" >&2; pwd' },
        { name: 'lint', run: 'echo "lint found 3 problems"; exit 2' },
      ]);
      const tree = codeTree(repo);
      const head = repo.git(['rev-parse', 'HEAD']);
      const r = repo.sow(['check', 'run'], { cwd: 'src' });
      expect(r.code, r.stderr).toBe(1);
      const lines = r.stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/^✓ unit {2}passed in \d+\.\d s$/);
      expect(lines[1]).toMatch(
        /^✗ lint {2}failed \(exit 2\) in \d+\.\d s — \.sow\/project\/evidence\/\d{8}T\d{6}\.\d{3}Z-lint\.log$/,
      );
      expect(r.stderr).toContain('error: 1 of 2 checks failed: lint (exit 2)');
      expect(r.stderr).toMatch(
        /hint: read the log \(\.sow\/project\/evidence\/\S+-lint\.log\), fix the cause, then run 'sow check run lint'/,
      );

      // Recorded on the phase in progress, in order, each with its log and what the code was.
      const outputs = repo.yaml(PROJECT).phases.implementation.outputs;
      expect(outputs).toEqual([
        {
          type: 'evidence',
          path: expect.stringMatching(LOG),
          created_at: ISO,
          metadata: {
            check: 'unit',
            run: 'echo "unit says hi"; echo "to stderr" >&2; pwd',
            exit_code: 0,
            duration_ms: expect.any(Number),
            commit: head,
            dirty: false,
            tree,
          },
        },
        {
          type: 'evidence',
          path: expect.stringMatching(LOG),
          created_at: ISO,
          metadata: {
            check: 'lint',
            run: 'echo "lint found 3 problems"; exit 2',
            exit_code: 2,
            duration_ms: expect.any(Number),
            commit: head,
            dirty: false,
            tree,
          },
        },
      ]);
      expect(lines[1]).toContain(outputs[1].path);
      // The logs: stdout and stderr, and the shell ran in the repository root (not in src/).
      const unitLog = repo.read(`.sow/project/${outputs[0].path}`);
      expect(unitLog).toContain('unit says hi\nto stderr\n');
      expect(unitLog).toContain(`\n${repo.dir}\n`);
      expect(unitLog.split('\n')[0]).toBe('# sow check unit: echo "unit says hi"; echo "to stderr" >&2; pwd');
      expect(unitLog).toMatch(/# sow: exit 0 after \d+\.\d s\n$/);
      expect(repo.read(`.sow/project/${outputs[1].path}`)).toMatch(/lint found 3 problems\n# sow: exit 2 after/);
      expect(logs(repo)).toHaveLength(2);
    },
  );

  it('all passing: exit 0 and a line each; only the named checks run, each once', async () => {
    const repo = withCode();
    declare(repo, [
      { name: 'unit', run: 'true' },
      { name: 'lint', run: 'exit 1' },
      { name: 'types', run: 'true' },
    ]);
    const r = ok(repo, ['check', 'run', 'types', 'unit', 'types']);
    expect(r.stdout).toMatch(/^✓ types {2}passed in \d+\.\d s\n✓ unit {3}passed in \d+\.\d s\n$/);
    expect(r.stderr).toContain(
      "All 2 checks passed; evidence recorded on the implementation phase ('sow output list')",
    );
    expect(repo.yaml(PROJECT).phases.implementation.outputs.map((a: any) => a.metadata.check)).toEqual([
      'types',
      'unit',
    ]);
  });

  it('--json: exactly one document; the runs and where they were recorded, or the failure with them', async () => {
    const repo = withCode();
    declare(repo, [
      { name: 'unit', run: 'true' },
      { name: 'lint', run: 'exit 3' },
    ]);
    const pass = expectEnvelope(ok(repo, ['check', 'run', 'unit', '--json']));
    const run = {
      name: 'unit',
      run: 'true',
      passed: true,
      exit_code: 0,
      signal: null,
      timed_out: false,
      timeout: 600,
      duration_ms: expect.any(Number),
      started_at: ISO,
      log: expect.stringMatching(LOG),
      commit: SHA,
      dirty: false,
      tree: codeTree(repo),
    };
    expect(pass).toEqual({
      ok: true,
      data: {
        runs: [run],
        recorded: {
          owner: 'the implementation phase',
          task: null,
          phase: 'implementation',
          outputs: [
            {
              index: 0,
              artifact: {
                type: 'evidence',
                path: pass.data.runs[0].log,
                created_at: ISO,
                metadata: expect.objectContaining({ check: 'unit', exit_code: 0 }),
              },
            },
          ],
        },
      },
    });
    const failed = repo.sow(['check', 'run', '--json']);
    expect(failed.code).toBe(1);
    const doc = expectEnvelope(failed);
    expect(doc).toMatchObject({
      ok: false,
      error: {
        code: 'CHECKS_FAILED',
        message: '1 of 2 checks failed: lint (exit 3)',
        hint: expect.stringContaining("'sow check run lint'"),
      },
    });
    expect(doc.error.details.runs.map((r: any) => [r.name, r.passed, r.exit_code])).toEqual([
      ['unit', true, 0],
      ['lint', false, 3],
    ]);
    expect(doc.error.details.recorded.outputs.map((o: any) => o.index)).toEqual([1, 2]);
    expect(failed.stderr).toBe('');
  });

  it(
    'a timeout stops the whole process group: ' + 'the check fails with "timed out", exit_code null, no process left',
    async () => {
      const repo = withCode();
      const pids = scratch();
      declare(repo, [
        { name: 'slow', run: `echo $$ > ${pids}/shell; sleep 60 & echo $! > ${pids}/grandchild; wait`, timeout: 1 },
      ]);
      const r = repo.sow(['check', 'run', 'slow']);
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/^✗ slow {2}timed out after 1 s — \.sow\/project\/evidence\/\S+-slow\.log\n$/);
      expect(r.stderr).toContain('1 of 1 check failed: slow (timed out after 1 s)');
      const [evidence] = repo.yaml(PROJECT).phases.implementation.outputs;
      expect(evidence.metadata).toMatchObject({ check: 'slow', exit_code: null });
      expect(evidence.metadata.duration_ms).toBeGreaterThanOrEqual(1000);
      expect(repo.read(`.sow/project/${evidence.path}`)).toContain(
        '# sow: timed out after 1 s; its processes were stopped',
      );
      for (const who of ['shell', 'grandchild']) {
        const pid = Number(readFileSync(join(pids, who), 'utf8'));
        expect(await until(() => !running(pid)), `${who} ${pid} still runs`).toBe(true);
      }
    },
  );

  it(
    'Ctrl-C stops the running check and its children and exits 130, saying what it stopped; nothing is recorded and ' +
      'no log is left half-written',
    async () => {
      const repo = withCode();
      const pids = scratch();
      declare(repo, [
        { name: 'unit', run: 'echo unit ran' },
        { name: 'slow', run: `echo compiling; sleep 60 & echo $! > ${pids}/grandchild; wait` },
      ]);
      const before = repo.snapshot();
      const child = spawn(process.execPath, [SOW, 'check', 'run'], {
        cwd: repo.dir,
        env: { ...process.env, ...TEST_ENV },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      expect(
        await until(
          () => existsSync(join(pids, 'grandchild')) && readFileSync(join(pids, 'grandchild'), 'utf8').trim() !== '',
        ),
      ).toBe(true);
      const grandchild = Number(readFileSync(join(pids, 'grandchild'), 'utf8'));
      expect(running(grandchild)).toBe(true);
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      expect(await until(() => !running(grandchild)), 'the check outlived sow').toBe(true);
      expect(stdout).toMatch(/^✓ unit  passed in .*\n$/);
      expect(stderr).toMatch(
        new RegExp(
          /^error: interrupted: the check slow was stopped after \d+\.\d s \(unit had passed\); /.source +
            /nothing was recorded, and this run's logs were removed; its last lines:\n {2}\| compiling\n/.source +
            /hint: run the command again when you are ready: the checks start over\n$/.source,
        ),
      );
      expect(repo.yaml(PROJECT).phases.implementation.outputs).toEqual([]);
      expect(existsSync(join(repo.dir, EVIDENCE_DIR)) ? readdirSync(join(repo.dir, EVIDENCE_DIR)) : []).toEqual([]);
      expect(repo.snapshot()).toEqual(before);
    },
  );

  it('holds no lock while a check runs: other commands write meanwhile, and both changes stay', async () => {
    const repo = withCode();
    const marks = scratch();
    declare(repo, [{ name: 'slow', run: `touch ${marks}/started; while [ ! -e ${marks}/go ]; do sleep 0.05; done` }]);
    const run = repo.sowAsync(['check', 'run']);
    expect(await until(() => existsSync(join(marks, 'started')))).toBe(true);
    // Without waiting for a lock at all: a lock held by the check would fail this at once.
    ok(repo, ['phase', 'set', 'metadata.note', 'written meanwhile'], { env: { SOW_LOCK_TIMEOUT: '0' } });
    ok(repo, ['task', 'add', 'Added meanwhile'], { env: { SOW_LOCK_TIMEOUT: '0' } });
    execFileSync('touch', [join(marks, 'go')]);
    const r = await run;
    expect(r.code, r.stderr).toBe(0);
    const implementation = repo.yaml(PROJECT).phases.implementation;
    expect(implementation.metadata.note).toBe('written meanwhile');
    expect(implementation.outputs.map((a: any) => a.metadata.check)).toEqual(['slow']);
    expect(repo.exists(taskFile('020'))).toBe(true);
  });

  it(
    'an unknown name: exit 1 with the declared names and a did-you-mean; ' + 'nothing runs, nothing is written',
    async () => {
      const repo = withCode();
      const marks = scratch();
      declare(repo, [
        { name: 'unit', run: `touch ${marks}/ran` },
        { name: 'lint', run: `touch ${marks}/ran` },
      ]);
      const said = expectFails(repo, ['check', 'run', 'unit', 'lnt'], 1, 'CHECK_NOT_FOUND', { human: true });
      expect(said).toBe("no check named 'lnt'; did you mean 'lint'?\nthe declared checks: unit, lint");
      expect(existsSync(join(marks, 'ran'))).toBe(false);
      expect(logs(repo)).toEqual([]);
    },
  );

  it('no checks declared: says how to declare them (exit 0)', () => {
    const repo = withCode();
    const r = ok(repo, ['check', 'run']);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('No checks declared; add them to .sow/config.yaml');
    expect(expectEnvelope(ok(repo, ['check', 'run', '--json'])).data).toEqual({ runs: [], recorded: null });
  });

  it('--task records the evidence on the task; an unknown task is refused before anything runs', async () => {
    const repo = withCode();
    const marks = scratch();
    declare(repo, [{ name: 'unit', run: `touch ${marks}/ran` }]);
    const r = ok(repo, ['check', 'run', '--task', '10']);
    expect(r.stderr).toContain("evidence recorded on task 010 ('sow task output list --id 010')");
    expect(repo.yaml(taskFile('010')).outputs).toEqual([
      {
        type: 'evidence',
        path: expect.stringMatching(LOG),
        created_at: ISO,
        metadata: expect.objectContaining({ check: 'unit', exit_code: 0, tree: codeTree(repo) }),
      },
    ]);
    expect(repo.yaml(PROJECT).phases.implementation.outputs).toEqual([]);
    expect(ok(repo, ['task', 'output', 'list', '--id', '010']).stdout).toMatch(
      /^\[0\] evidence: evidence\/\S+-unit\.log \(check: unit, run: touch \S+, exit_code: 0, /,
    );
    rmSync(join(marks, 'ran'));
    expectFails(repo, ['check', 'run', '--task', '990'], 1, 'TASK_NOT_FOUND');
    expect(existsSync(join(marks, 'ran'))).toBe(false);
  });
});

describe('task set … status completed runs the task_complete checks', () => {
  it(
    'passing: the task is completed and the evidence recorded on it in the same write; finalize-only checks ' +
      'do not run',
    async () => {
      const repo = withCode();
      const marks = scratch();
      declare(repo, [
        { name: 'unit', run: `echo unit >> ${marks}/ran`, when: ['task_complete', 'finalize'] },
        { name: 'e2e', run: `echo e2e >> ${marks}/ran`, when: ['finalize'] },
      ]);
      ok(repo, ['task', 'set', '--id', '010', 'status', 'in_progress']);
      const r = ok(repo, ['task', 'set', '--id', '010', 'status', 'completed']);
      expect(readFileSync(join(marks, 'ran'), 'utf8')).toBe('unit\n');
      expect(r.stderr).toMatch(/^✓ unit {2}passed in /m);
      expect(r.stderr).toContain('Set task 010 status = "completed" (its check passed)');
      const task = repo.yaml(taskFile('010'));
      expect(task.status).toBe('completed');
      expect(task.outputs).toEqual([
        {
          type: 'evidence',
          path: expect.stringMatching(LOG),
          created_at: ISO,
          metadata: expect.objectContaining({ check: 'unit', exit_code: 0, commit: SHA, tree: codeTree(repo) }),
        },
      ]);
      expect(repo.read(`.sow/project/${task.outputs[0].path}`)).toContain('unit');
    },
  );

  it('planned again after the checks: a task completed by someone else meanwhile stays so, runs recorded', async () => {
    const repo = withCode();
    const marks = scratch();
    const slow = `touch ${marks}/started; while [ ! -e ${marks}/go ]; do sleep 0.05; done`;
    declare(repo, [{ name: 'slow', run: slow, when: ['task_complete'] }]);
    ok(repo, ['task', 'set', '--id', '010', 'status', 'in_progress']);
    const run = repo.sowAsync(['task', 'set', '--id', '010', 'status', 'completed']);
    expect(await until(() => existsSync(join(marks, 'started')))).toBe(true);
    // No lock is held while the check runs: someone else completes the task (skipping its checks).
    ok(repo, ['task', 'set', '--id', '010', 'status', 'completed', '--force'], { env: { SOW_LOCK_TIMEOUT: '0' } });
    const meanwhile = repo.yaml(taskFile('010'));
    execFileSync('touch', [join(marks, 'go')]);
    const r = await run;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Task 010 is already completed (since ${meanwhile.completed_at}); nothing changed`);
    const task = repo.yaml(taskFile('010'));
    expect(task.completed_at).toBe(meanwhile.completed_at);
    expect(task.outputs.map((a: any) => [a.metadata.check, a.metadata.skipped === true])).toEqual([
      ['slow', true],
      ['slow', false],
    ]);
  });

  it(
    'failing: exit 3 naming the check, its log and its last lines; ' + 'the status stays, the failed run is recorded',
    async () => {
      const repo = withCode();
      declare(repo, [
        {
          name: 'unit',
          run: 'echo "ok so far"; echo "AssertionError: expected 2 to be 3" >&2; exit 2',
          when: ['task_complete'],
        },
        { name: 'lint', run: 'true', when: ['task_complete'] },
      ]);
      ok(repo, ['task', 'set', '--id', '010', 'status', 'in_progress']);
      const r = repo.sow(['task', 'set', '--id', '010', 'status', 'completed']);
      expect(r.code, r.stderr).toBe(3);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^✗ unit {2}failed \(exit 2\) in /m);
      expect(r.stderr).toMatch(/^✓ lint {2}passed in /m);
      expect(r.stderr).toContain(
        'error: task 010 was not completed: 1 of 2 checks declared for task_complete failed: unit (exit 2), log ' +
          '.sow/project/evidence/',
      );
      expect(r.stderr).toContain('  | ok so far\n  | AssertionError: expected 2 to be 3');
      expect(r.stderr).toContain(
        "hint: fix the cause and complete it again (the checks run again); 'sow task set --id 010 status " +
          "completed --force'",
      );
      expect(r.stderr).not.toMatch(/^\s+at /m);
      const task = repo.yaml(taskFile('010'));
      expect(task.status).toBe('in_progress');
      expect(
        task.outputs.map((o: { metadata: Record<string, unknown> }) => [o.metadata['check'], o.metadata['exit_code']]),
      ).toEqual([
        ['unit', 2],
        ['lint', 0],
      ]);
      // --json: one document, the runs in the error's details.
      const j = repo.sow(['task', 'set', '--id', '010', 'status', 'completed', '--json']);
      expect(j.code).toBe(3);
      const doc = expectEnvelope(j);
      expect(doc.error).toMatchObject({ code: 'TASK_CHECKS_FAILED', details: { task: '010', failed: ['unit'] } });
      expect(repo.yaml(taskFile('010')).outputs).toHaveLength(4);
    },
  );

  it('--force skips the checks and records that they were skipped, by whom', async () => {
    const repo = withCode();
    const marks = scratch();
    declare(repo, [{ name: 'unit', run: `touch ${marks}/ran; exit 1`, when: ['task_complete'] }]);
    ok(repo, ['task', 'set', '--id', '010', 'status', 'in_progress']);
    const r = ok(repo, ['task', 'set', '--id', '010', 'status', 'completed', '--force'], {
      env: { SOW_AGENT_ID: 'implementer-1' },
    });
    expect(existsSync(join(marks, 'ran'))).toBe(false);
    expect(r.stderr).toContain('(its checks skipped with --force: unit)');
    const task = repo.yaml(taskFile('010'));
    expect(task.status).toBe('completed');
    expect(task.outputs).toEqual([
      {
        type: 'evidence',
        path: expect.stringMatching(/-unit-skipped\.log$/),
        created_at: ISO,
        metadata: expect.objectContaining({ check: 'unit', exit_code: null, skipped: true, duration_ms: 0 }),
      },
    ]);
    expect(repo.read(`.sow/project/${task.outputs[0].path}`)).toMatch(
      /# sow: skipped .*: the task was completed with --force by implementer-1/,
    );
  });

  it('a completion with no task_complete check declared runs nothing and says so plainly', async () => {
    const repo = withCode();
    const marks = scratch();
    declare(repo, [{ name: 'unit', run: `touch ${marks}/ran`, when: ['finalize'] }]);
    ok(repo, ['task', 'set', '--id', '010', 'status', 'in_progress']);
    const r = ok(repo, ['task', 'set', '--id', '010', 'status', 'completed']);
    expect(r.stderr.trim()).toBe('Set task 010 status = "completed"');
    expect(existsSync(join(marks, 'ran'))).toBe(false);
    expect(repo.yaml(taskFile('010')).outputs).toEqual([]);
  });
});

describe('progress', () => {
  it('without a terminal: the result lines only, no spinner or control characters', async () => {
    const repo = withCode();
    declare(repo, [{ name: 'slow', run: 'sleep 1.5' }]);
    const r = ok(repo, ['check', 'run'], { env: { CI: '' } });
    expect(r.stdout).toMatch(/^✓ slow {2}passed in 1\.\d s\n$/);
    expect(r.stderr).not.toMatch(/[\r\x1b⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
    expect(r.stderr).not.toContain('slow');
  });

  it('on a terminal: a spinner with the check and the time so far, cleared before the line', async () => {
    const repo = withCode();
    declare(repo, [{ name: 'slow', run: 'sleep 1.6' }]);
    const command = [process.execPath, SOW, 'check', 'run'].map((a) => `'${a}'`).join(' ');
    // script(1) gives sow a pseudo-terminal (util-linux and BSD spell it differently).
    const args =
      process.platform === 'darwin' ? ['-q', '/dev/null', 'sh', '-c', command] : ['-qefc', command, '/dev/null'];
    const r = spawnSync('script', args, {
      cwd: repo.dir,
      env: { ...process.env, ...TEST_ENV, CI: '', TERM: 'xterm' },
      encoding: 'utf8',
    });
    expect(r.error, 'script(1) is needed to give sow a terminal').toBeUndefined();
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\r[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] slow {2}1 s\x1b\[K/);
    expect(r.stdout).toMatch(/\r\x1b\[K✓ slow {2}passed in 1\.\d s/);
  });
});

// Which evidence the guard takes (missing, failed, stale, fresh again, a commit of .sow/ alone)
// and where evidence goes among the documents people approve by index: in-process. Here, the
// guard on the command line, with real checks run by sow check run.
describe('FinalizeChecks: checked, not trusted', () => {
  it(
    'blocks until the finalize checks have passed on the current code (exit 3, on stderr); after sow check run, ' +
      'advance goes on',
    async () => {
      const repo = withCode();
      toFinalizeChecks(repo);
      declare(repo, [
        { name: 'unit', run: 'grep -q app src/app.js', when: ['finalize'] },
        { name: 'slow', run: 'exit 1' },
      ]);
      const said = expectFails(repo, ['advance'], 3, 'TRANSITION_BLOCKED', { human: true });
      expect(said).toContain(
        'cannot advance from FinalizeChecks: blocked until every check declared for finalize in .sow/config.yaml has ' +
          'passed on the current code',
      );
      expect(said).toContain("unit: never run; run 'sow check run unit'");
      ok(repo, ['check', 'run', 'unit']);
      expect(ok(repo, ['advance']).stdout).toBe('FinalizeDelete\n');
    },
  );
});
