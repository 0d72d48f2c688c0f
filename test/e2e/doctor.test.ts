/**
 * `sow doctor [--fix]` end to end: a healthy repository is all ok (exit 0); problems sow can meet
 * — a missing ignore line, a stale lock, a write cut short, a broken ref link, a worktree whose
 * folder is gone — are the right finding with exit 1 (or a warning, exit 0), and `--fix` fixes the
 * safe ones and leaves every other file as it was. PATH holds only the fake CLIs, node and git,
 * so what this machine has installed (a real gh) plays no part. The findings about the
 * configuration, the agent CLIs, gh, the branch, the task files and the project file are judged
 * in-process (src/app/doctor.test.ts).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { agentFixtures, runSow, show, type AgentFixture, type Run } from './agent-world.js';
import { PROJECT, writeJournal } from './harness.js';

const FAKE_GH = fileURLToPath(new URL('../fakes/fake-gh.mjs', import.meta.url));
const GIT = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
const LOCK = '.sow/.runtime/lock';

const fixture = agentFixtures({ tasks: ['First task', 'Second task'], prefix: 'sow-doctor-' });
const temps: string[] = [];
afterEach(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});

interface Check {
  id: string;
  status: 'ok' | 'warn' | 'fail';
  message: string;
  fix?: string;
  fixed?: boolean;
}

interface Doctor extends AgentFixture {
  /** `sow doctor --json [args]`: the run and its checks (the data, or the error's details). */
  doctor(args?: string[], env?: Record<string, string>): Run & { checks: Check[]; check(id: string): Check };
}

/**
 * A copy of a repository in ImplementationExecuting (tasks 010, 020, on feat/demo) whose PATH has
 * the fake agent CLIs (but `omit`), a fake gh (unless `gh: false`), node and git — nothing else.
 */
function setup(config?: string, opts: { omit?: string[]; gh?: boolean } = {}): Doctor {
  const f = fixture(config, { omit: opts.omit ?? [] });
  symlinkSync(process.execPath, join(f.world.bin, 'node'));
  symlinkSync(GIT, join(f.world.bin, 'git'));
  if (opts.gh !== false) writeFileSync(join(f.world.bin, 'gh'), `#!/bin/sh\nexec "${process.execPath}" "${FAKE_GH}" "$@"\n`, { mode: 0o755 });
  return {
    ...f,
    doctor(args = [], env = {}) {
      const r = f.sow(['doctor', '--json', ...args], { PATH: f.world.bin, ...env });
      expect(r.json, `one JSON document\n${show(r)}`).toBeDefined();
      const checks: Check[] = r.json!.ok ? r.json!.data.checks : (r.json!.error as any).details.checks;
      expect(r.code, show(r)).toBe(r.json!.ok ? 0 : 1);
      return {
        ...r,
        checks,
        check(id: string) {
          const found = checks.find((c) => c.id === id);
          expect(found, `a check '${id}' among ${checks.map((c) => c.id).join(', ')}`).toBeDefined();
          return found!;
        },
      };
    },
  };
}

const failing = (checks: readonly Check[]) => checks.filter((c) => c.status === 'fail').map((c) => c.id);

/** Every file under .sow/ but `except` (and the runtime folder) is as it was. */
function expectUnchanged(d: Doctor, before: Map<string, string>, except: string[] = []): void {
  const after = d.repo.snapshot();
  for (const rel of except) {
    before.delete(rel);
    after.delete(rel);
  }
  expect(after).toEqual(before);
}

/** A pid no process has any more. */
function deadPid(): number {
  const pid = Number(spawnSync('sh', ['-c', 'echo $$'], { encoding: 'utf8' }).stdout.trim());
  expect(() => process.kill(pid, 0), 'the pid belongs to no process').toThrow();
  return pid;
}

describe('sow doctor: a healthy repository', () => {
  it('every check is ok and it exits 0, in JSON and as text; --fix finds nothing to do', () => {
    const d = setup();
    const before = d.repo.snapshot();
    const r = d.doctor();
    expect(r.json!.ok).toBe(true);
    expect(r.checks.map((c) => c.id)).toEqual([
      'node',
      'git',
      'workspace',
      'gitignore',
      'lock',
      'journal',
      'project',
      'branch',
      'tasks',
      'repo-config',
      'refs',
      'worktrees',
      'config',
      'agent.claude-code',
      'gh',
    ]);
    expect(
      r.checks.filter((c) => c.status !== 'ok'),
      'nothing but ok',
    ).toEqual([]);
    for (const c of r.checks) expect(Object.keys(c).sort(), c.id).toEqual(['id', 'message', 'status']);
    expect(r.check('agent.claude-code').message).toMatch(/claude 0\.0\.0 \(fake\).*knows every flag sow passes/);
    expect(r.check('gh').message).toMatch(/gh version 2\.23\.0 \(fake\), logged in/);
    expect(r.check('project').message).toContain("project 'demo' (standard), in ImplementationExecuting");

    const text = d.sow(['doctor'], { PATH: d.world.bin });
    expect(text.code, show(text)).toBe(0);
    const lines = text.stdout.trim().split('\n');
    expect(lines).toHaveLength(r.checks.length);
    for (const line of lines) expect(line).toMatch(/^ok {4}\S/);
    expect(text.stderr).toContain(`All ${r.checks.length} checks passed`);

    const fix = d.doctor(['--fix']);
    expect(fix.checks.filter((c) => c.status !== 'ok' || c.fixed)).toEqual([]);
    expectUnchanged(d, before);
  });
});

describe('sow doctor: each problem is found, and --fix fixes the safe ones', () => {
  it('a missing line of .sow/.gitignore: FAIL, nothing written; --fix adds it and nothing else', () => {
    const d = setup();
    d.repo.write('.sow/.gitignore', '# mine\n.runtime/\n.backup/\n');
    const before = d.repo.snapshot();
    const r = d.doctor();
    expect(failing(r.checks)).toEqual(['gitignore']);
    expect(r.check('gitignore')).toMatchObject({ status: 'fail', message: expect.stringContaining('lacks worktrees/'), fix: expect.stringContaining('sow doctor --fix') });
    expect(r.json!.error).toMatchObject({
      code: 'DOCTOR_FOUND_PROBLEMS',
      message: '1 check(s) failed: gitignore',
      hint: "run 'sow doctor --fix' to fix gitignore; each other FAIL line says how to fix it",
    });
    expectUnchanged(d, before);

    const fixed = d.doctor(['--fix']);
    expect(fixed.json!.ok).toBe(true);
    expect(fixed.check('gitignore')).toMatchObject({ status: 'ok', fixed: true, message: 'fixed: added worktrees/ to .sow/.gitignore' });
    expect(d.repo.read('.sow/.gitignore')).toBe('# mine\n.runtime/\n.backup/\nworktrees/\n');
    expect(d.repo.git(['check-ignore', '.sow/worktrees/feat/x/a']).trim()).toBe('.sow/worktrees/feat/x/a');
    expectUnchanged(d, before, ['.sow/.gitignore']);
  });

  it('runtime files git tracks: FAIL with the git rm that untracks them (not fixed: it changes the index)', () => {
    const d = setup();
    d.repo.write('.sow/.backup/1/.version', '1\n');
    d.repo.git(['add', '--force', '.sow/.backup/1/.version']);
    const r = d.doctor(['--fix']);
    expect(r.check('gitignore')).toMatchObject({ status: 'fail', message: expect.stringContaining('.sow/.backup/1/.version'), fix: expect.stringContaining('git rm -r --cached') });
    expect(r.check('gitignore').fixed).toBeUndefined();
  });

  it('a stale lock left by a process that is gone: FAIL, the lock kept; --fix removes it. A live holder is ok', () => {
    const d = setup();
    const stale = JSON.stringify({ pid: deadPid(), host: hostname(), started: Date.now() - 60_000, command: 'sow task set' });
    d.repo.write(LOCK, stale);
    const before = d.repo.snapshot();
    const r = d.doctor();
    expect(failing(r.checks)).toEqual(['lock']);
    expect(r.check('lock').message).toMatch(/^a stale lock: pid \d+ \(sow task set\) took it since .* and is gone$/);
    expect(d.repo.read(LOCK), 'doctor without --fix leaves the lock').toBe(stale);
    expectUnchanged(d, before);

    const fixed = d.doctor(['--fix']);
    expect(fixed.check('lock')).toMatchObject({ status: 'ok', fixed: true, message: expect.stringMatching(/^fixed: removed the stale lock of pid \d+ \(sow task set\)$/) });
    expect(d.repo.exists(LOCK)).toBe(false);
    expectUnchanged(d, before);

    // Held by a process that runs (this test): a command is writing, which is fine, and never removed.
    const live = JSON.stringify({ pid: process.pid, host: hostname(), started: Date.now(), command: 'sow task add' });
    d.repo.write(LOCK, live);
    const busy = d.doctor(['--fix']);
    expect(busy.check('lock')).toMatchObject({ status: 'ok', message: expect.stringMatching(/^held by pid \d+ \(sow task add\) since .*: a sow command is writing$/) });
    expect(d.repo.read(LOCK)).toBe(live);
  });

  it('a write cut short after its commit point: FAIL, not replayed; --fix finishes it. A journal sow did not write is never applied', () => {
    const d = setup();
    const project = d.repo.read(PROJECT);
    const finished = project.replace('description: A demo project', 'description: Finished by doctor');
    expect(finished).not.toBe(project);
    writeJournal(d.repo, [{ to: PROJECT, text: finished }]);
    const before = d.repo.snapshot();
    const r = d.doctor();
    expect(failing(r.checks)).toEqual(['journal']);
    expect(r.check('journal').message).toContain('a write was cut short after its commit point (.sow/.runtime/journal.json, 1 step(s) left)');
    expect(d.repo.read(PROJECT), 'doctor without --fix does not replay it').toBe(project);
    expect(d.repo.exists('.sow/.runtime/journal.json')).toBe(true);
    expectUnchanged(d, before);

    const fixed = d.doctor(['--fix']);
    expect(fixed.json!.ok).toBe(true);
    expect(fixed.check('journal')).toMatchObject({ status: 'ok', fixed: true, message: 'fixed: finished the interrupted write (1 step(s))' });
    expect(d.repo.read(PROJECT)).toBe(finished);
    expect(d.repo.exists('.sow/.runtime/journal.json')).toBe(false);
    expectUnchanged(d, before, [PROJECT]);

    // Whole, but naming a file outside .sow/: refused, with or without --fix.
    writeJournal(d.repo, [{ to: PROJECT, text: project }], { edit: (body) => body.renames.push({ from: body.renames[0].from, to: 'README.md' }) });
    const refused = d.doctor(['--fix']);
    expect(refused.check('journal')).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('names a target sow does not write through a journal'),
      fix: expect.stringContaining('rm .sow/.runtime/journal.json'),
    });
    expect(refused.check('journal').fixed).toBeUndefined();
    expect(d.repo.read(PROJECT)).toBe(finished);
    expect(d.repo.exists('README.md')).toBe(false);
  });

  it("after 'sow config init', on a machine without the default agent CLI, doctor and config validate agree: valid, with a warning", () => {
    const d = setup(undefined, { omit: ['claude'] });
    const env = { PATH: d.world.bin };
    expect(d.sow(['config', 'init'], env).code).toBe(0);
    const validate = d.sow(['config', 'validate'], env);
    expect(validate.code, show(validate)).toBe(0);
    expect(validate.stdout).toMatch(/^Configuration is valid with 1 warning\(s\)\.$/m);
    expect(validate.stdout).toContain('⚠ Warning: claude not found on PATH');
    const r = d.doctor();
    expect(failing(r.checks)).toEqual([]);
    expect(r.check('config').status).toBe('ok');
    expect(r.check('agent.claude-code').status).toBe('warn');
  });

  it('a ref link that no longer works: FAIL; --fix makes it again', () => {
    const d = setup();
    const notes = mkdtempSync(join(tmpdir(), 'sow-doctor-notes-'));
    temps.push(notes);
    writeFileSync(join(notes, 'guide.md'), 'Use tabs.\n');
    d.ok(['refs', 'add', notes, '--link', 'notes']);
    unlinkSync(join(d.root, '.sow/refs/notes'));
    const r = d.doctor();
    expect(failing(r.checks)).toEqual(['refs']);
    expect(r.check('refs')).toMatchObject({ message: '1 ref link(s) do not work: .sow/refs/notes (missing)', fix: expect.stringContaining('sow refs init') });
    const fixed = d.doctor(['--fix']);
    expect(fixed.check('refs')).toMatchObject({ status: 'ok', fixed: true, message: 'fixed: made the links again: notes' });
    expect(readFileSync(join(d.root, '.sow/refs/notes/guide.md'), 'utf8')).toBe('Use tabs.\n');
  });

  it('a worktree whose folder was deleted by hand: a warning (exit 0); --fix prunes it', () => {
    const d = setup();
    d.ok(['worktree', 'add', 'feat/other']);
    rmSync(join(d.root, '.sow/worktrees/feat/other'), { recursive: true, force: true });
    const r = d.doctor();
    expect(r.check('worktrees')).toMatchObject({ status: 'warn', message: 'git still records 1 worktree(s) whose folder is gone: feat/other', fix: expect.stringContaining('sow worktree prune') });
    const fixed = d.doctor(['--fix']);
    expect(fixed.check('worktrees')).toMatchObject({ status: 'ok', fixed: true, message: 'fixed: forgot feat/other' });
    expect(d.repo.git(['worktree', 'list']).split('\n')).toHaveLength(1);
  });

  it('several problems at once: the text report has one line per check, FAIL lines with their fix, exit 1; --fix fixes only the safe one', () => {
    const d = setup();
    d.repo.write('.sow/.gitignore', '.runtime/\n');
    d.repo.git(['checkout', '-q', '-b', 'other']);
    const before = d.repo.snapshot();
    const r = d.sow(['doctor'], { PATH: d.world.bin });
    expect(r.code, show(r)).toBe(1);
    const lines = r.stdout.trim().split('\n');
    expect(lines.find((l) => l.startsWith('FAIL  gitignore'))).toMatch(/lacks \.backup\/, worktrees\/.* — fix: sow doctor --fix/);
    expect(lines.find((l) => l.startsWith('FAIL  branch'))).toMatch(/ — fix: run 'git checkout feat\/demo'/);
    expect(lines.filter((l) => /^(ok  |warn|FAIL)  \S/.test(l))).toHaveLength(lines.length);
    expect(r.stderr).toContain('error: 2 check(s) failed: gitignore, branch');
    expect(r.stderr).toContain("hint: run 'sow doctor --fix' to fix gitignore; each other FAIL line says how to fix it");
    expectUnchanged(d, before);

    const fixed = d.sow(['doctor', '--fix'], { PATH: d.world.bin });
    expect(fixed.code, show(fixed)).toBe(1);
    expect(fixed.stdout).toMatch(/^ok {4}gitignore +fixed: added \.backup\/, worktrees\/ to \.sow\/\.gitignore$/m);
    expect(fixed.stdout).toMatch(/^FAIL {2}branch/m);
    expect(fixed.stderr).toContain('Fixed: gitignore');
    expect(fixed.stderr).toContain('error: 1 check(s) failed: branch');
    expect(fixed.stderr).toContain('hint: each FAIL line says how to fix it');
    expectUnchanged(d, before, ['.sow/.gitignore']);
  });
});

describe('sow doctor outside a workspace', () => {
  it('not initialised: FAIL with sow init; not a git repository: FAIL; the machine checks still run', () => {
    const d = setup();
    const bare = mkdtempSync(join(tmpdir(), 'sow-doctor-bare-'));
    temps.push(bare);
    execFileSync('git', ['init', '-q', bare]);
    const inBare = spawnDoctor(d, bare);
    expect(inBare.code).toBe(1);
    const checks: Check[] = inBare.json.error.details.checks;
    expect(checks.find((c) => c.id === 'workspace')).toMatchObject({ status: 'fail', message: expect.stringContaining('sow is not initialised'), fix: 'sow init' });
    expect(checks.map((c) => c.id)).toEqual(['node', 'git', 'workspace', 'worktrees', 'config', 'agent.claude-code', 'gh']);
    expect(existsSync(join(bare, '.sow')), 'doctor initialises nothing, even with --fix').toBe(false);
    expect(spawnDoctor(d, bare, ['--fix']).code).toBe(1);
    expect(existsSync(join(bare, '.sow'))).toBe(false);

    const nowhere = mkdtempSync(join(tmpdir(), 'sow-doctor-nowhere-'));
    temps.push(nowhere);
    mkdirSync(join(nowhere, 'sub'));
    const outside = spawnDoctor(d, join(nowhere, 'sub'));
    expect(outside.code).toBe(1);
    expect(outside.json.error.details.checks.map((c: Check) => c.id)).toEqual(['node', 'git', 'workspace', 'config', 'agent.claude-code', 'gh']);
    expect(outside.json.error.details.checks.find((c: Check) => c.id === 'workspace')).toMatchObject({ status: 'fail', message: expect.stringContaining('is not inside a git repository') });
  });
});

/** `sow doctor --json` in a folder outside the fixture's repository. */
function spawnDoctor(d: Doctor, cwd: string, args: string[] = []): { code: number; json: any } {
  const r = runSow(cwd, d.world, ['doctor', '--json', ...args], { PATH: d.world.bin });
  expect(r.json, show(r)).toBeDefined();
  return { code: r.code, json: r.json };
}
