/**
 * `sow doctor [--fix]` end to end: a healthy repository is all ok (exit 0, in JSON and as text),
 * several problems at once are one line each with exit 1 and `--fix` fixes only the safe one, and
 * outside a workspace the machine checks still run. PATH holds only the fake CLIs, node, git and sow,
 * so what this machine has installed (a real gh) plays no part. Each finding itself — and what
 * `--fix` does about it — is judged in-process (src/app/doctor.test.ts).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { agentFixtures, runSow, show, type AgentFixture, type Run } from './agent-world.js';
import { SOW } from './harness.js';

const FAKE_GH = fileURLToPath(new URL('../fakes/fake-gh.mjs', import.meta.url));
const GIT = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();

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
  if (opts.gh !== false)
    writeFileSync(join(f.world.bin, 'gh'), `#!/bin/sh\nexec "${process.execPath}" "${FAKE_GH}" "$@"\n`, {
      mode: 0o755,
    });
  // git runs the merge driver as 'sow', found on PATH.
  writeFileSync(join(f.world.bin, 'sow'), `#!/bin/sh\nexec "${process.execPath}" "${SOW}" "$@"\n`, { mode: 0o755 });
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
      'merge-driver',
      'merge-conflicts',
      'lock',
      'journal',
      'legacy-runtime',
      'project',
      'branch',
      'tasks',
      'state',
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
  it(
    "after 'sow config init', on a machine without the default agent CLI, doctor and config validate agree: valid, " +
      'with a warning',
    () => {
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
    },
  );

  it(
    'several problems at once: the text report has one line per check, FAIL lines with their fix, exit 1; --fix ' +
      'fixes only the safe one',
    () => {
      const d = setup();
      d.repo.write('.sow/.gitignore', '.runtime/\n');
      d.repo.git(['checkout', '-q', '-b', 'other']);
      const before = d.repo.snapshot();
      const r = d.sow(['doctor'], { PATH: d.world.bin });
      expect(r.code, show(r)).toBe(1);
      const lines = r.stdout.trim().split('\n');
      expect(lines.find((l) => l.startsWith('FAIL  gitignore'))).toMatch(
        /lacks \.backup\/, worktrees\/.* — fix: sow doctor --fix/,
      );
      expect(lines.find((l) => l.startsWith('FAIL  branch'))).toMatch(/ — fix: run 'git checkout feat\/demo'/);
      expect(lines.filter((l) => /^(ok  |warn|FAIL)  \S/.test(l))).toHaveLength(lines.length);
      expect(r.stderr).toContain('error: 2 check(s) failed: gitignore, branch');
      expect(r.stderr).toContain(
        "hint: run 'sow doctor --fix' to fix gitignore; each other FAIL line says how to fix it",
      );
      expectUnchanged(d, before);

      const fixed = d.sow(['doctor', '--fix'], { PATH: d.world.bin });
      expect(fixed.code, show(fixed)).toBe(1);
      expect(fixed.stdout).toMatch(/^ok {4}gitignore +fixed: added \.backup\/, worktrees\/ to \.sow\/\.gitignore$/m);
      expect(fixed.stdout).toMatch(/^FAIL {2}branch/m);
      expect(fixed.stderr).toContain('Fixed: gitignore');
      expect(fixed.stderr).toContain('error: 1 check(s) failed: branch');
      expect(fixed.stderr).toContain('hint: each FAIL line says how to fix it');
      expectUnchanged(d, before, ['.sow/.gitignore']);
    },
  );
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
    expect(checks.find((c) => c.id === 'workspace')).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('sow is not initialised'),
      fix: 'sow init',
    });
    expect(checks.map((c) => c.id)).toEqual([
      'node',
      'git',
      'workspace',
      'worktrees',
      'config',
      'agent.claude-code',
      'gh',
    ]);
    expect(existsSync(join(bare, '.sow')), 'doctor initialises nothing, even with --fix').toBe(false);
    expect(spawnDoctor(d, bare, ['--fix']).code).toBe(1);
    expect(existsSync(join(bare, '.sow'))).toBe(false);

    const nowhere = mkdtempSync(join(tmpdir(), 'sow-doctor-nowhere-'));
    temps.push(nowhere);
    mkdirSync(join(nowhere, 'sub'));
    const outside = spawnDoctor(d, join(nowhere, 'sub'));
    expect(outside.code).toBe(1);
    expect(outside.json.error.details.checks.map((c: Check) => c.id)).toEqual([
      'node',
      'git',
      'workspace',
      'config',
      'agent.claude-code',
      'gh',
    ]);
    expect(outside.json.error.details.checks.find((c: Check) => c.id === 'workspace')).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('is not inside a git repository'),
    });
  });
});

/** `sow doctor --json` in a folder outside the fixture's repository. */
function spawnDoctor(d: Doctor, cwd: string, args: string[] = []): { code: number; json: any } {
  const r = runSow(cwd, d.world, ['doctor', '--json', ...args], { PATH: d.world.bin });
  expect(r.json, show(r)).toBeDefined();
  return { code: r.code, json: r.json };
}
