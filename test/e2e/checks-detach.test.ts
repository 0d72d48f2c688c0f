/**
 * Checks in the background, for an agent whose commands have a time limit: `check run --detach`
 * returns while the checks still run (they wait on a file the test creates, never on a clock),
 * the runner records evidence exactly as a foreground run does and leaves no process once the
 * checks end; `check wait` waits in slices (exit 124) and then reports the run as `check run`
 * would (exit 0, or CHECKS_FAILED); refusals start nothing. The MCP check_run tool does the same.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { expectFails, ok, PROJECT, SOW, TEST_ENV, toExecuting, useRepos, type Repo, running } from './harness.js';

const fresh = useRepos();
const temps: string[] = [];
afterEach(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});
/** A folder outside the repository, for what checks leave for the test (pids, markers). */
function scratch(): string {
  const d = mkdtempSync(join(tmpdir(), 'sow-checks-detach-'));
  temps.push(d);
  return d;
}

async function until(what: () => boolean, ms = 120_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (what()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return what();
}

function declare(repo: Repo, checks: { name: string; run: string }[], allow = true): void {
  repo.write(
    '.sow/config.yaml',
    `checks:\n${checks.map((c) => `  - name: ${c.name}\n    run: ${JSON.stringify(c.run)}\n`).join('')}`,
  );
  if (allow) ok(repo, ['check', 'allow', '--yes']);
}

/** A check that says it started, leaves a process in the background, and ends once the test says `go`. */
const gated = (marks: string, name: string, exit = 0) =>
  `touch ${marks}/${name}.started; sleep 600 & echo $! > ${marks}/${name}.bg; while [ ! -e ${marks}/go ]; do sleep ` +
  `0.05; done; echo ${name} done; exit ${exit}`;

function withProject(): Repo {
  const repo = fresh();
  toExecuting(repo, ['Only task']);
  return repo;
}

const runFolders = (repo: Repo) =>
  repo.exists('.git/sow/check-runs') ? readdirSync(join(repo.dir, '.git/sow/check-runs')) : [];
const evidence = (repo: Repo) => repo.yaml(PROJECT).phases.implementation.outputs as any[];

describe('sow check run --detach, sow check wait', () => {
  it(
    'returns while the checks run; wait runs out in slices (124), then reports them; the evidence is as a ' +
      'foreground run records it; no process is left',
    async () => {
      const repo = withProject();
      const marks = scratch();
      declare(repo, [{ name: 'unit', run: gated(marks, 'unit') }]);
      const r = ok(repo, ['check', 'run', '--detach', '--json']);
      const started = r.json!.data;
      expect(started).toMatchObject({
        detached: true,
        checks: ['unit'],
        pid: expect.any(Number),
        log: expect.stringMatching(/^\.git\/sow\/check-runs\/[\w-]+\/runner\.log$/),
      });
      // The command has returned; the check runs under the runner.
      expect(await until(() => existsSync(join(marks, 'unit.started')))).toBe(true);
      expect(running(started.pid)).toBe(true);
      expect(evidence(repo)).toEqual([]);
      // A wait whose time runs out says what still runs, with exit 124 and the command to wait again.
      const slice = expectFails(repo, ['check', 'wait', '--timeout', '1s'], 124, 'WAIT_TIMEOUT', { human: true });
      expect(slice).toContain(`the check unit still runs (pid ${started.pid})`);
      expect(slice).toContain('sow check wait --timeout 1s');
      // The same checks again, while they run: refused, nothing started.
      expect(expectFails(repo, ['check', 'run', 'unit', '--detach'], 1, 'CHECKS_RUNNING')).toContain(
        'sow check wait unit',
      );
      expect(runFolders(repo)).toHaveLength(1);
      writeFileSync(join(marks, 'go'), '');
      const waited = repo.sow(['check', 'wait']);
      expect(waited.code, waited.stderr).toBe(0);
      expect(waited.stdout).toBe('unit  passed\n');
      expect(waited.stderr).toContain(
        "The check passed; evidence recorded on the implementation phase ('sow output list')",
      );
      // Waiting again reports the same run again.
      const again = expectEnvelope(repo.sow(['check', 'wait', 'unit', '--json']));
      expect(again.data).toMatchObject({
        runs: [{ name: 'unit', passed: true, exit_code: 0 }],
        recorded: [{ owner: 'the implementation phase' }],
        running: [],
        timedOut: false,
      });
      // No process is left: the runner, and what the check left in the background.
      expect(await until(() => !running(started.pid)), 'the runner outlived its checks').toBe(true);
      const bg = Number(readFileSync(join(marks, 'unit.bg'), 'utf8'));
      expect(await until(() => !running(bg)), 'what the check started outlived it').toBe(true);
      // Evidence exactly as a foreground run records it: the same fields, the log with sow's notes.
      const detached = evidence(repo);
      expect(detached).toHaveLength(1);
      ok(repo, ['check', 'run']);
      const [, foreground] = evidence(repo);
      expect(Object.keys(detached[0]).sort()).toEqual(Object.keys(foreground).sort());
      expect(Object.keys(detached[0].metadata).sort()).toEqual(Object.keys(foreground.metadata).sort());
      expect(detached[0]).toMatchObject({
        type: 'evidence',
        metadata: { check: 'unit', exit_code: 0, tree: foreground.metadata.tree, commit: foreground.metadata.commit },
      });
      expect(repo.read(`.sow/project/${detached[0].path}`)).toMatch(
        /^# sow check unit: [\s\S]*unit done\n# sow: exit 0 after /,
      );
    },
  );

  it(
    'a failed check: wait exits 1 with CHECKS_FAILED and the runs, ' + 'as check run does; with names, only those',
    async () => {
      const repo = withProject();
      const marks = scratch();
      declare(repo, [
        { name: 'unit', run: gated(marks, 'unit') },
        { name: 'lint', run: 'echo lint says no; exit 3' },
      ]);
      ok(repo, ['check', 'run', '--detach']);
      writeFileSync(join(marks, 'go'), '');
      const failed = repo.sow(['check', 'wait', '--json']);
      expect(failed.code).toBe(1);
      expect(failed.json).toMatchObject({
        ok: false,
        error: {
          code: 'CHECKS_FAILED',
          message: '1 of 2 checks failed: lint (exit 3)',
          details: {
            runs: [
              { name: 'unit', passed: true },
              { name: 'lint', passed: false, exit_code: 3 },
            ],
          },
        },
      });
      expect(evidence(repo).map((a) => a.metadata.check)).toEqual(['unit', 'lint']);
      const unit = expectEnvelope(repo.sow(['check', 'wait', 'unit', '--json']));
      expect(unit.data.runs.map((c: any) => c.name)).toEqual(['unit']);
    },
  );

  it(
    'refusals start nothing: checks not allowed, an unknown check, ' + 'no run to wait for, a task that does not exist',
    () => {
      const repo = withProject();
      declare(repo, [{ name: 'unit', run: 'true' }], false);
      expect(expectFails(repo, ['check', 'run', '--detach'], 1, 'CHECKS_NOT_ALLOWED', { human: true })).toContain(
        'sow check allow',
      );
      ok(repo, ['check', 'allow', '--yes']);
      expectFails(repo, ['check', 'run', 'unti', '--detach'], 1, 'CHECK_NOT_FOUND');
      expectFails(repo, ['check', 'run', '--detach', '--task', '990'], 1, 'TASK_NOT_FOUND');
      expect(runFolders(repo)).toEqual([]);
      expect(expectFails(repo, ['check', 'wait'], 1, 'NO_CHECK_RUN', { human: true })).toContain(
        'sow check run --detach',
      );
      expectFails(repo, ['check', 'wait', 'unti'], 1, 'CHECK_NOT_FOUND');
      expectFails(repo, ['check', 'wait', '--timeout', 'soon'], 2, 'USAGE');
    },
  );

  it(
    'a runner killed before the checks ended: wait says so (CHECK_RUN_LOST) with the way on, and its check is ' +
      'stopped with it',
    async () => {
      const repo = withProject();
      const marks = scratch();
      declare(repo, [{ name: 'unit', run: gated(marks, 'unit') }]);
      const started = ok(repo, ['check', 'run', '--detach', '--json']).json!.data;
      expect(
        await until(
          () => existsSync(join(marks, 'unit.bg')) && readFileSync(join(marks, 'unit.bg'), 'utf8').trim() !== '',
        ),
      ).toBe(true);
      process.kill(started.pid, 'SIGTERM');
      expect(await until(() => !running(started.pid))).toBe(true);
      expect(expectFails(repo, ['check', 'wait'], 1, 'CHECK_RUN_LOST')).toContain('sow check run unit --detach');
      const bg = Number(readFileSync(join(marks, 'unit.bg'), 'utf8'));
      expect(await until(() => !running(bg)), 'the check outlived its runner').toBe(true);
      expect(evidence(repo)).toEqual([]);
    },
  );

  it('over MCP, check run detached returns at once; wait waits in slices (WAIT_TIMEOUT), then gives runs', async () => {
    const repo = withProject();
    const marks = scratch();
    declare(repo, [{ name: 'unit', run: gated(marks, 'unit') }]);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SOW, 'mcp'],
      cwd: repo.dir,
      env: { ...process.env, ...TEST_ENV } as Record<string, string>,
    });
    const client = new Client({ name: 'sow-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const start = await client.callTool({ name: 'check', arguments: { action: 'run', detach: true } });
      expect(start.isError, JSON.stringify(start.content)).toBeFalsy();
      expect(start.structuredContent).toMatchObject({ detached: true, checks: ['unit'] });
      // The time running out: the command line's refusal (exit 124 there), with what still runs.
      const slice = await client.callTool({ name: 'check', arguments: { action: 'wait', timeout: '1' } });
      expect(slice.isError).toBe(true);
      expect(JSON.parse((slice.content as { text: string }[])[0]!.text).error).toMatchObject({
        code: 'WAIT_TIMEOUT',
        details: { running: [{ checks: ['unit'] }] },
      });
      writeFileSync(join(marks, 'go'), '');
      const done = await client.callTool({ name: 'check', arguments: { action: 'wait', names: ['unit'] } });
      expect(done.structuredContent).toMatchObject({ runs: [{ name: 'unit', passed: true }], timedOut: false });
      const both = await client.callTool({ name: 'check', arguments: { action: 'wait', detach: true } });
      expect(both.isError).toBe(true);
      expect(JSON.parse((both.content as { text: string }[])[0]!.text).error).toMatchObject({
        code: 'USAGE',
        message: 'check wait does not take detach',
      });
    } finally {
      await client.close();
    }
    expect(evidence(repo).map((a) => a.metadata.check)).toEqual(['unit']);
  });
});

function expectEnvelope(r: { code: number; stdout: string; stderr: string; json?: any }): any {
  expect(r.code, r.stderr).toBe(0);
  return r.json;
}
