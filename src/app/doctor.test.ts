/**
 * `sow doctor` in-process. First what it looks up in an agent CLI's --help, checked against the
 * help texts of the pinned CLI versions (test/fixtures/agent-help): a CLI of that version is never
 * reported as lacking a flag, and a flag it does not have is. Then the checks, on a machine the
 * context describes.
 */
import { createHash } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { writeJournal } from '../../test/e2e/harness.js';
import { PROJECT, refused, said, taskFile, toExecuting, worlds, type World } from '../../test/inproc.js';
import { EXECUTORS } from '../adapters/executors/registry.js';
import type { ExecutorConfig, ExecutorType } from '../domain/config-schemas.js';
import { doctor, DoctorFoundProblemsError, type DoctorCheck, type DoctorReport } from './doctor.js';
import { helpChecks, helpListsFlag, invocationShape } from './doctor/machine.js';
import { validateUserConfig } from './config.js';
import { addRef } from './refs.js';
import { addWorktreeFor } from './worktree.js';
import { MERGE_DRIVER } from './merge-setup.js';

const FIXTURES = new URL('../../test/fixtures/agent-help/', import.meta.url);
/** The pinned help text of each subcommand path sow runs. */
const HELP: Record<string, Record<string, string>> = {
  claude: { '': 'claude@2.1.197__root.txt' },
  codex: { exec: 'codex@0.169.0__exec.txt', 'exec resume': 'codex@0.169.0__exec_resume.txt' },
  gemini: { '': 'gemini@0.61.0__root.txt' },
  copilot: { '': 'copilot@1.0.102__root.txt' },
  opencode: { run: 'opencode@1.18.33__run.txt' },
};
const help = (file: string) => readFileSync(new URL(file, FIXTURES), 'utf8');

describe('the flags doctor looks for', () => {
  it('the subcommand path and the flags of an argv', () => {
    expect(invocationShape(['exec', 'resume', '--json', '-m', 'M', 'SID', '-'])).toEqual({
      path: ['exec', 'resume'],
      flags: ['--json', '-m'],
    });
    expect(invocationShape(['--resume=SID', '--output-format', 'json'])).toEqual({
      path: [],
      flags: ['--resume', '--output-format'],
    });
  });

  const configs: Record<string, ExecutorConfig> = {};
  for (const type of Object.keys(HELP) as ExecutorType[]) {
    configs[`${type} safe`] = { type };
    configs[`${type} yolo, model`] = {
      type,
      settings: { permissions: 'yolo', model: 'M' },
      custom_args: ['--not-checked'],
    };
  }
  for (const [name, config] of Object.entries(configs)) {
    it(`${name}: every flag is in the pinned help of the command it goes to`, () => {
      const checks = helpChecks(EXECUTORS[config.type], config, '/repo');
      expect(checks.length).toBeGreaterThan(0);
      for (const { path, flags } of checks) {
        const file = HELP[config.type]![path.join(' ')];
        expect(file, `a pinned help for '${config.type} ${path.join(' ')}'`).toBeDefined();
        expect(flags).not.toContain('--not-checked');
        for (const flag of flags)
          expect(helpListsFlag(help(file!), flag), `${config.type} ${path.join(' ')} ${flag}`).toBe(true);
      }
    });
  }

  it('the check can fail', () => {
    expect(helpListsFlag(help('claude@2.1.197__root.txt'), '--session-idd')).toBe(false);
    expect(helpListsFlag(help('codex@0.169.0__exec_resume.txt'), '-C')).toBe(false);
    expect(helpListsFlag('  -m, --model <m>  the model', '--model')).toBe(true);
    expect(helpListsFlag('  --model-name <m>', '--model')).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------
// The checks in-process: the machine is the context's (its PATH, its configuration folder, its
// SOW_* variables) and the time is its clock.
// ---------------------------------------------------------------------------------------------

const GIT = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
const FAKE_AGENT = fileURLToPath(new URL('../../test/fakes/fake-agent.mjs', import.meta.url));
const FAKE_GH = fileURLToPath(new URL('../../test/fakes/fake-gh.mjs', import.meta.url));
const LOCK = '.git/sow/lock';

/** A pid no process has any more. */
function deadPid(): number {
  const pid = Number(spawnSync('sh', ['-c', 'echo $$'], { encoding: 'utf8' }).stdout.trim());
  expect(() => process.kill(pid, 0), 'the pid belongs to no process').toThrow();
  return pid;
}

const world = worlds({ executing: (w) => toExecuting(w) });
const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

/**
 * A machine for doctor: a PATH holding git and, unless left out, a fake claude and a fake gh —
 * nothing of this machine's own — and a configuration folder of its own.
 */
function machine(w: World, opts: { omit?: string[]; config?: string } = {}) {
  const base = mkdtempSync(join(tmpdir(), 'sow-inproc-doctor-'));
  temps.push(base);
  const bin = join(base, 'bin');
  mkdirSync(bin);
  symlinkSync(GIT, join(bin, 'git'));
  const add = (name: string, body: string) => writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  for (const cli of ['claude', 'codex'])
    if (!opts.omit?.includes(cli)) add(cli, `exec "${process.execPath}" "${FAKE_AGENT}" ${cli} "$@"`);
  if (!opts.omit?.includes('gh')) add('gh', `exec "${process.execPath}" "${FAKE_GH}" "$@"`);
  // git finds the merge driver by this name (doctor only looks whether it is there).
  if (!opts.omit?.includes('sow')) add('sow', 'exit 0');
  const env = { PATH: bin, XDG_CONFIG_HOME: join(base, 'xdg'), FAKE_AGENT_HOME: join(base, 'fake-home') };
  if (opts.config !== undefined) {
    mkdirSync(join(base, 'xdg', 'sow'), { recursive: true });
    writeFileSync(join(base, 'xdg', 'sow', 'config.yaml'), opts.config);
  }
  return { bin, ctx: (more: Record<string, string> = {}, cwd?: string) => w.ctx({ ...env, ...more }, cwd) };
}

/**
 * For the checks of the repository: no agent CLI and no gh to ask (each only a warning), so doctor starts no tool
 * but git.
 */
const REPO_ONLY = { omit: ['claude', 'codex', 'gh'] };

const find = (r: DoctorReport, id: string): DoctorCheck => {
  const c = r.checks.find((x) => x.id === id);
  expect(c, `a check '${id}' among ${r.checks.map((x) => x.id).join(', ')}`).toBeDefined();
  return c!;
};
const failing = (r: DoctorReport) => r.checks.filter((c) => c.status === 'fail').map((c) => c.id);

describe('doctor', () => {
  it(
    'a healthy repository: every check ok, ' + 'the agent CLI and gh found on the context’s PATH; --fix does nothing',
    async () => {
      const w = await world('executing');
      const m = machine(w);
      const before = w.snapshot();
      const r = await doctor(m.ctx(), { fix: false });
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
      expect(r.checks.filter((c) => c.status !== 'ok')).toEqual([]);
      expect(r.fixable).toEqual([]);
      expect(find(r, 'agent.claude-code').message).toMatch(/claude 0\.0\.0 \(fake\).*knows every flag sow passes/);
      expect(find(r, 'gh').message).toBe('gh version 2.23.0 (fake), logged in');
      expect(find(r, 'project').message).toBe("project 'demo' (standard), in ImplementationExecuting");
      const fixed = await doctor(m.ctx(), { fix: true });
      expect(fixed.checks.filter((c) => c.status !== 'ok' || c.fixed)).toEqual([]);
      expect(w.snapshot()).toEqual(before);
    },
  );

  it(
    'a state set by hand whose guard does not hold (ReviewActive with tasks pending): FAIL naming the state, the ' +
      'guard and the state to go back to; --fix leaves it',
    async () => {
      const w = await world('executing');
      const m = machine(w, REPO_ONLY);
      w.write(
        PROJECT,
        w.read(PROJECT).replace('current_state: ImplementationExecuting', 'current_state: ReviewActive'),
      );
      const before = w.snapshot();
      const r = await doctor(m.ctx(), { fix: true });
      expect(failing(r)).toEqual(['state']);
      expect(find(r, 'state').message).toBe(
        'the project is in ReviewActive, but its guard does not hold: every task is completed or abandoned, with at ' +
          'least one completed (allTasksComplete, the way in from ImplementationExecuting)',
      );
      expect(find(r, 'state').fix).toContain(
        'set it back to ImplementationExecuting, where its guard holds: in .sow/project/state.yaml, ' +
          "'statechart.current_state: ImplementationExecuting'",
      );
      expect(w.snapshot()).toEqual(before);
    },
  );

  it(
    'a project file sow cannot read: FAIL naming the file, with its fix; branch and tasks are not judged; nothing ' +
      'written, even with --fix',
    async () => {
      const w = await world('executing');
      const m = machine(w, REPO_ONLY);
      w.write(PROJECT, w.read(PROJECT).replace('current_state: ImplementationExecuting', 'current_state: Nowhere'));
      const before = w.snapshot();
      const r = await doctor(m.ctx(), { fix: true });
      expect(failing(r)).toEqual(['project']);
      expect(find(r, 'project')).toMatchObject({
        message: expect.stringContaining(`${PROJECT}: statechart.current_state`),
        fix: expect.stringContaining(`git checkout -- ${PROJECT}`),
      });
      expect(r.checks.map((c) => c.id)).not.toContain('branch');
      expect(r.checks.map((c) => c.id)).not.toContain('tasks');
      expect(w.snapshot()).toEqual(before);
      // What the command refuses with: exit 1, naming the failed checks, each FAIL line its own fix.
      const e = await refused(w, () => Promise.reject(new DoctorFoundProblemsError(r)), 'DOCTOR_FOUND_PROBLEMS', 1);
      expect(said(e)).toBe('1 check(s) failed: project\neach FAIL line says how to fix it');
      expect(e.details).toEqual({ checks: r.checks });
    },
  );

  it(
    'an agent CLI missing from the context’s PATH: a warning with how to install it, whether the file ' +
      'binds it or not',
    async () => {
      const w = await world('executing');
      const unbound = await doctor(machine(w, { omit: ['claude'] }).ctx(), { fix: false });
      expect(failing(unbound)).toEqual([]);
      expect(find(unbound, 'agent.claude-code')).toMatchObject({
        status: 'warn',
        message:
          "claude is not on PATH; the 'claude-code' executor (orchestrator, implementer, architect, reviewer, " +
          "planner, researcher, decomposer) needs it to spawn workers ('sow agent spawn')",
        fix: 'npm install -g @anthropic-ai/claude-code',
      });
      const bound = await doctor(
        machine(w, { omit: ['codex'], config: 'agents:\n  bindings:\n    implementer: codex\n' }).ctx(),
        { fix: false },
      );
      expect(find(bound, 'agent.codex')).toEqual({
        id: 'agent.codex',
        status: 'warn',
        message:
          "codex is not on PATH; the 'codex' executor (implementer) needs it to spawn workers ('sow agent spawn')",
        fix: 'npm install -g @openai/codex',
      });
      expect(find(bound, 'agent.claude-code').status).toBe('ok');
      // The verdict 'config validate' gives: valid, with the same warning.
      const boundCtx = machine(w, { omit: ['codex'], config: 'agents:\n  bindings:\n    implementer: codex\n' }).ctx();
      const validate = await validateUserConfig(boundCtx);
      expect(validate.valid).toBe(true);
      expect(validate.lines).toContainEqual({
        level: 'warning',
        text: expect.stringMatching(/^codex not found on PATH/),
      });
      // The environment's binding counts as the person's choice too, and a CLI that lacks a flag sow passes then fails.
      const lacking = await doctor(
        machine(w, { config: 'agents:\n  bindings:\n    implementer: claude-code\n' }).ctx({
          SOW_AGENTS_REVIEWER: 'codex',
          FAKE_AGENT_HELP_WITHOUT: '--allowedTools,-C',
        }),
        {
          fix: false,
        },
      );
      expect(failing(lacking)).toEqual(['agent.claude-code', 'agent.codex']);
      expect(find(lacking, 'agent.claude-code').message).toMatch(
        /^claude \(claude 0\.0\.0 \(fake\)\) does not list --allowedTools \(claude\) in its --help/,
      );
      // codex runs as `codex exec …`: its flags are looked up in `codex exec --help`.
      expect(find(lacking, 'agent.codex').message).toContain('does not list -C (codex exec)');
    },
  );

  it(
    'git and gh missing from the context’s PATH: git FAIL, gh a warning (the repository names no GitHub ' +
      'repository)',
    async () => {
      const w = await world('executing');
      const m = machine(w, { omit: ['gh'] });
      rmSync(join(m.bin, 'git'));
      const r = await doctor(m.ctx(), { fix: false });
      expect(find(r, 'git')).toMatchObject({
        status: 'fail',
        message: expect.stringContaining('git is not on PATH'),
        fix: expect.stringContaining('install git'),
      });
      expect(find(r, 'gh')).toMatchObject({
        status: 'warn',
        message: expect.stringContaining('gh (the GitHub CLI) is not on PATH'),
      });
    },
  );

  it(
    'an invalid user configuration (of the context’s folder) and an invalid .sow/config.yaml: FAIL each, with how ' +
      'to fix them, --fix leaves them; the agents not checked; a bad SOW_AGENTS_* names the variable',
    async () => {
      const w = await world('executing');
      w.write('.sow/config.yaml', 'checkz:\n  - name: unit\n    run: npm test\n');
      const before = w.snapshot();
      const m = machine(w, { config: 'agents:\n  executors:\n    mine:\n      typ: claude\n' });
      const r = await doctor(m.ctx(), { fix: true });
      expect(failing(r)).toEqual(['repo-config', 'config']);
      expect(find(r, 'config')).toMatchObject({
        message: expect.stringContaining("did you mean 'type'"),
        fix: 'sow config edit',
      });
      expect(find(r, 'repo-config')).toMatchObject({
        message: expect.stringContaining("did you mean 'checks'"),
        fix: expect.stringContaining('sow schema repo-config'),
      });
      expect(readFileSync(join(m.ctx().env['XDG_CONFIG_HOME']!, 'sow', 'config.yaml'), 'utf8')).toBe(
        'agents:\n  executors:\n    mine:\n      typ: claude\n',
      );
      expect(w.snapshot()).toEqual(before);
      w.write('.sow/config.yaml', '');
      expect(find(r, 'agents')).toMatchObject({
        status: 'warn',
        message: expect.stringContaining('the configuration is invalid'),
      });
      const env = await doctor(machine(w).ctx({ SOW_AGENTS_IMPLEMENTER: 'nosuch' }), { fix: false });
      expect(find(env, 'config')).toMatchObject({
        status: 'fail',
        message: expect.stringContaining('SOW_AGENTS_IMPLEMENTER'),
        fix: 'change or unset the environment variable named',
      });
    },
  );

  it(
    'declared checks: a warning until allowed; ' + 'SOW_ALLOW_CHECKS=1 in the context’s environment allows them',
    async () => {
      const w = await world('executing');
      const m = machine(w, REPO_ONLY);
      w.write('.sow/config.yaml', 'checks:\n  - name: unit\n    run: npm test\n');
      const r = await doctor(m.ctx(), { fix: false });
      expect(find(r, 'checks')).toMatchObject({
        status: 'warn',
        message: expect.stringContaining('1 of 1 declared check is not allowed to run on this machine: unit'),
      });
      expect(find(await doctor(m.ctx({ SOW_ALLOW_CHECKS: '1' }), { fix: false }), 'checks')).toEqual({
        id: 'checks',
        status: 'ok',
        message: 'SOW_ALLOW_CHECKS=1 lets the declared check run',
      });
    },
  );

  it(
    'refs are judged stale by the context’s clock: ok for 30 days after they were fetched, then a warning ' +
      'with their age',
    async () => {
      const w = await world('executing');
      const m = machine(w, REPO_ONLY);
      const source = mkdtempSync(join(tmpdir(), 'sow-inproc-doctor-ref-'));
      temps.push(source);
      writeFileSync(join(source, 'guide.md'), 'Use tabs.\n');
      await addRef(m.ctx(), source, { link: 'notes', semantic: 'knowledge', local: true, progress: false });
      w.clock.advance(30 * 86_400);
      expect(find(await doctor(m.ctx(), { fix: false }), 'refs')).toEqual({
        id: 'refs',
        status: 'ok',
        message: '1 ref(s), every link works',
      });
      w.clock.advance(2 * 86_400);
      expect(find(await doctor(m.ctx(), { fix: false }), 'refs')).toMatchObject({
        status: 'warn',
        message: '1 ref(s) linked; not fetched for over 30 days: notes (32 days)',
      });
    },
  );

  it('a missing line of .sow/.gitignore: FAIL, nothing written; --fix adds it and nothing else', async () => {
    const w = await world('executing');
    const m = machine(w, REPO_ONLY);
    w.write('.sow/.gitignore', '# mine\n.runtime/\n.backup/\n');
    const before = w.snapshot();
    const r = await doctor(m.ctx(), { fix: false });
    expect(failing(r)).toEqual(['gitignore']);
    expect(r.fixable).toEqual(['gitignore']);
    expect(find(r, 'gitignore')).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('lacks worktrees/'),
      fix: expect.stringContaining('sow doctor --fix'),
    });
    const e = new DoctorFoundProblemsError(r);
    expect(said(e)).toBe(
      "1 check(s) failed: gitignore\nrun 'sow doctor --fix' to fix gitignore; each other FAIL line says how to fix it",
    );
    expect(w.snapshot()).toEqual(before);

    const fixed = await doctor(m.ctx(), { fix: true });
    expect(failing(fixed)).toEqual([]);
    expect(find(fixed, 'gitignore')).toMatchObject({
      status: 'ok',
      fixed: true,
      message: 'fixed: added worktrees/ to .sow/.gitignore',
    });
    expect(w.read('.sow/.gitignore')).toBe('# mine\n.runtime/\n.backup/\nworktrees/\n');
    expect(w.git(['check-ignore', '.sow/worktrees/feat/x/a'])).toBe('.sow/worktrees/feat/x/a');
    before.set('.sow/.gitignore', '# mine\n.runtime/\n.backup/\nworktrees/\n');
    expect(w.snapshot()).toEqual(before);
  });

  it(
    'the merge driver: missing from git config and .sow/.gitattributes (a repository made before it): FAIL; --fix ' +
      'registers it and nothing else',
    async () => {
      const w = await world('executing');
      const m = machine(w, REPO_ONLY);
      w.git(['config', '--unset', 'merge.sow.driver']);
      w.git(['config', '--unset', 'merge.sow.name']);
      rmSync(join(w.dir, '.sow/.gitattributes'));
      const before = w.snapshot();
      const r = await doctor(m.ctx(), { fix: false });
      expect(failing(r)).toEqual(['merge-driver']);
      expect(r.fixable).toEqual(['merge-driver']);
      expect(find(r, 'merge-driver')).toMatchObject({
        message: expect.stringMatching(
          new RegExp(
            /^\.sow\/\.gitattributes lacks '\* merge=sow'; /.source +
              /git config has no merge\.sow\.driver: git merges \.sow\/ files as text/.source,
          ),
        ),
        fix: "sow doctor --fix (or 'sow init') registers it",
      });
      expect(w.snapshot()).toEqual(before);

      const fixed = await doctor(m.ctx(), { fix: true });
      expect(failing(fixed)).toEqual([]);
      expect(find(fixed, 'merge-driver')).toMatchObject({
        status: 'ok',
        fixed: true,
        message: 'fixed: wrote .sow/.gitattributes; set git config merge.sow.driver, merge.sow.name',
      });
      expect(w.git(['check-attr', 'merge', '--', '.sow/project/phases/implementation/tasks/010/state.yaml'])).toMatch(
        /: merge: sow$/,
      );
      expect(w.git(['config', '--get', 'merge.sow.driver'])).toBe(MERGE_DRIVER);
    },
  );

  it(
    'the merge driver: a command of the user’s own is kept (FAIL only when it is not sow’s); no sow on PATH ' +
      'is a warning',
    async () => {
      const w = await world('executing');
      w.git(['config', 'merge.sow.driver', '/opt/sow/bin/sow merge-driver %O %A %B %P']);
      expect(find(await doctor(machine(w, REPO_ONLY).ctx(), { fix: false }), 'merge-driver')).toMatchObject({
        status: 'ok',
        message: "git merges .sow/ files with '/opt/sow/bin/sow merge-driver %O %A %B %P'",
      });
      w.git(['config', 'merge.sow.driver', 'cat %A']);
      const other = await doctor(machine(w, REPO_ONLY).ctx(), { fix: true });
      expect(find(other, 'merge-driver')).toMatchObject({
        status: 'fail',
        message: expect.stringContaining("merge.sow.driver is 'cat %A'"),
        fix: `git config merge.sow.driver '${MERGE_DRIVER}'`,
      });
      expect(w.git(['config', '--get', 'merge.sow.driver'])).toBe('cat %A');
      w.git(['config', 'merge.sow.driver', MERGE_DRIVER]);
      expect(find(await doctor(machine(w, REPO_ONLY).ctx(), { fix: false }), 'merge-driver').status).toBe('ok');
      const noSow = await doctor(machine(w, { omit: [...REPO_ONLY.omit, 'sow'] }).ctx(), { fix: false });
      expect(find(noSow, 'merge-driver')).toMatchObject({
        status: 'warn',
        message: expect.stringContaining('no sow is on PATH'),
        fix: expect.stringContaining('npm install -g'),
      });
    },
  );

  it(
    'a merge left a file of .sow/ unmerged: FAIL naming the fields and both values the driver recorded, or the text ' +
      'merge’s markers; ok once git add',
    async () => {
      const w = await world('executing');
      const file = taskFile('010');
      const blob = (text: string) =>
        execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: w.dir, input: text, encoding: 'utf8' }).trim();
      const text = w.read(file);
      // The index as git leaves it after a stopped merge: stages 1, 2 and 3 of the file.
      const stages = [1, 2, 3]
        .map((n) => `100644 ${blob(text.replace('First task', `First task ${n}`))} ${n}\t${file}`)
        .join('\n');
      execFileSync('git', ['update-index', '--index-info'], {
        cwd: w.dir,
        input: `0 ${'0'.repeat(40)}\t${file}\n${stages}\n`,
      });
      const m = machine(w, REPO_ONLY);
      const plain = await doctor(m.ctx(), { fix: false });
      expect(find(plain, 'merge-conflicts')).toMatchObject({
        status: 'fail',
        message: `a merge stopped at 1 file(s) under .sow/: ${file}: git's text merge left conflict markers in it`,
      });
      w.write(
        `.git/sow/merge-conflicts/${createHash('sha256').update(file).digest('hex').slice(0, 32)}.json`,
        JSON.stringify({
          path: file,
          at: 'x',
          fields: [{ field: 'name', ours: 'First task 2', theirs: 'First task 3' }],
        }),
      );
      const recorded = await doctor(m.ctx(), { fix: true });
      expect(find(recorded, 'merge-conflicts')).toMatchObject({
        status: 'fail',
        message:
          `a merge stopped at 1 file(s) under .sow/: ${file}: 'name' is 'First task 2' here and 'First task 3' ` +
          `on the other branch; it holds this branch's values`,
        fix:
          `edit ${file} so each field named holds the value you want, then 'git add ${file}' (and so on for each ` +
          `file), then 'git commit'`,
      });
      w.git(['add', file]);
      expect(find(await doctor(m.ctx(), { fix: false }), 'merge-conflicts').status).toBe('ok');
    },
  );

  it(
    'runtime files git tracks: ' + 'FAIL with the git rm that untracks them (not fixed: it changes the index)',
    async () => {
      const w = await world('executing');
      // An older sow kept its backups in .sow/.backup/: one committed by mistake is still named.
      w.write('.sow/.backup/1/.version', '1\n');
      w.git(['add', '--force', '.sow/.backup/1/.version']);
      const r = await doctor(machine(w, REPO_ONLY).ctx(), { fix: true });
      expect(find(r, 'gitignore')).toMatchObject({
        status: 'fail',
        message: expect.stringContaining('.sow/.backup/1/.version'),
        fix: expect.stringContaining('git rm -r --cached'),
      });
      // And the folder itself, which sow no longer reads.
      expect(find(r, 'legacy-runtime')).toMatchObject({
        status: 'warn',
        message: expect.stringContaining('.sow/.backup is in the work tree'),
        fix: "look, then remove: 'rm -r .sow/.backup'",
      });
      expect(find(r, 'gitignore').fixed).toBeUndefined();
    },
  );

  it(
    'a stale lock left by a process that is gone: FAIL, ' + 'the lock kept; --fix removes it. A live holder is ok',
    async () => {
      const w = await world('executing');
      const m = machine(w, REPO_ONLY);
      const stale = JSON.stringify({
        pid: deadPid(),
        host: hostname(),
        started: Date.now() - 60_000,
        command: 'sow task set',
      });
      w.write(LOCK, stale);
      const before = w.snapshot();
      const r = await doctor(m.ctx(), { fix: false });
      expect(failing(r)).toEqual(['lock']);
      expect(find(r, 'lock').message).toMatch(/^a stale lock: pid \d+ \(sow task set\) took it since .* and is gone$/);
      expect(w.read(LOCK), 'doctor without --fix leaves the lock').toBe(stale);
      expect(w.snapshot()).toEqual(before);
      const fixed = await doctor(m.ctx(), { fix: true });
      expect(find(fixed, 'lock')).toMatchObject({
        status: 'ok',
        fixed: true,
        message: expect.stringMatching(/^fixed: removed the stale lock of pid \d+ \(sow task set\)$/),
      });
      expect(w.exists(LOCK)).toBe(false);
      expect(w.snapshot()).toEqual(before);
      // Held by a process that runs (this test): a command is writing, which is fine, and never removed.
      const live = JSON.stringify({ pid: process.pid, host: hostname(), started: Date.now(), command: 'sow task add' });
      w.write(LOCK, live);
      expect(find(await doctor(m.ctx(), { fix: true }), 'lock')).toMatchObject({
        status: 'ok',
        message: expect.stringMatching(/^held by pid \d+ \(sow task add\) since .*: a sow command is writing$/),
      });
      expect(w.read(LOCK)).toBe(live);
    },
  );

  it(
    'a write cut short after its commit point: FAIL, not replayed; --fix finishes it. A journal sow did not write ' +
      'is never applied',
    async () => {
      const w = await world('executing');
      const m = machine(w, REPO_ONLY);
      const project = w.read(PROJECT);
      const finished = project.replace('description: A demo project', 'description: Finished by doctor');
      expect(finished).not.toBe(project);
      writeJournal({ dir: w.dir } as never, [{ to: PROJECT, text: finished }]);
      const before = w.snapshot();
      const r = await doctor(m.ctx(), { fix: false });
      expect(failing(r)).toEqual(['journal']);
      expect(find(r, 'journal').message).toContain(
        'a write was cut short after its commit point (.git/sow/journal.json, 1 step(s) left)',
      );
      expect(w.read(PROJECT), 'doctor without --fix does not replay it').toBe(project);
      expect(w.exists('.git/sow/journal.json')).toBe(true);
      expect(w.snapshot()).toEqual(before);

      const fixed = await doctor(m.ctx(), { fix: true });
      expect(failing(fixed)).toEqual([]);
      expect(find(fixed, 'journal')).toMatchObject({
        status: 'ok',
        fixed: true,
        message: 'fixed: finished the interrupted write (1 step(s))',
      });
      expect(w.read(PROJECT)).toBe(finished);
      expect(w.exists('.git/sow/journal.json')).toBe(false);
      before.set(PROJECT, finished);
      expect(w.snapshot()).toEqual(before);

      // Whole, but naming a file outside .sow/: refused, with or without --fix.
      writeJournal({ dir: w.dir } as never, [{ to: PROJECT, text: project }], {
        edit: (body) => body.renames.push({ from: body.renames[0].from, to: 'README.md' }),
      });
      const refusedJournal = await doctor(m.ctx(), { fix: true });
      expect(find(refusedJournal, 'journal')).toMatchObject({
        status: 'fail',
        message: expect.stringContaining('names a target sow does not write through a journal'),
        fix: expect.stringContaining('rm .git/sow/journal.json'),
      });
      expect(find(refusedJournal, 'journal').fixed).toBeUndefined();
      expect(w.read(PROJECT)).toBe(finished);
      expect(w.exists('README.md')).toBe(false);
    },
  );

  it('a ref link that no longer works: FAIL; --fix makes it again', async () => {
    const w = await world('executing');
    const m = machine(w, REPO_ONLY);
    const notes = mkdtempSync(join(tmpdir(), 'sow-inproc-doctor-notes-'));
    temps.push(notes);
    writeFileSync(join(notes, 'guide.md'), 'Use tabs.\n');
    await addRef(m.ctx(), notes, { link: 'notes', semantic: 'knowledge', local: true, progress: false });
    unlinkSync(join(w.dir, '.sow/refs/notes'));
    const r = await doctor(m.ctx(), { fix: false });
    expect(failing(r)).toEqual(['refs']);
    expect(find(r, 'refs')).toMatchObject({
      message: '1 ref link(s) do not work: .sow/refs/notes (missing)',
      fix: expect.stringContaining('sow refs init'),
    });
    const fixed = await doctor(m.ctx(), { fix: true });
    expect(find(fixed, 'refs')).toMatchObject({
      status: 'ok',
      fixed: true,
      message: 'fixed: made the links again: notes',
    });
    expect(w.read('.sow/refs/notes/guide.md')).toBe('Use tabs.\n');
  });

  it('a worktree whose folder was deleted by hand: a warning; --fix prunes it', async () => {
    const w = await world('executing');
    const m = machine(w, REPO_ONLY);
    await addWorktreeFor(w.ctx(), 'feat/other');
    rmSync(join(w.dir, '.sow/worktrees/feat/other'), { recursive: true, force: true });
    const r = await doctor(m.ctx(), { fix: false });
    expect(failing(r)).toEqual([]);
    expect(find(r, 'worktrees')).toMatchObject({
      status: 'warn',
      message: 'git still records 1 worktree(s) whose folder is gone: feat/other',
      fix: expect.stringContaining('sow worktree prune'),
    });
    const fixed = await doctor(m.ctx(), { fix: true });
    expect(find(fixed, 'worktrees')).toMatchObject({ status: 'ok', fixed: true, message: 'fixed: forgot feat/other' });
    expect(w.git(['worktree', 'list']).split('\n')).toHaveLength(1);
  });

  it(
    'gh missing, or not logged in: FAIL when the repository is on GitHub, a warning when it names no GitHub ' +
      'repository',
    async () => {
      const w = await world('executing');
      const m = machine(w, { omit: ['gh'] });
      expect(find(await doctor(m.ctx(), { fix: false }), 'gh')).toMatchObject({
        status: 'warn',
        message: expect.stringContaining('gh (the GitHub CLI) is not on PATH'),
        fix: expect.stringContaining('https://cli.github.com'),
      });
      w.write('.sow/config.yaml', 'github:\n  repo: acme/api\n');
      const r = await doctor(m.ctx(), { fix: false });
      expect(failing(r)).toEqual(['gh']);
      expect(find(r, 'gh').message).toContain("sow needs it for acme/api ('sow issue list', 'sow pr create', …)");
      writeFileSync(join(m.bin, 'gh'), `#!/bin/sh\nexec "${process.execPath}" "${FAKE_GH}" "$@"\n`, { mode: 0o755 });
      expect(find(await doctor(m.ctx(), { fix: false }), 'gh')).toEqual({
        id: 'gh',
        status: 'ok',
        message: 'gh version 2.23.0 (fake), logged in; the repository is acme/api',
      });
      expect(find(await doctor(m.ctx({ FAKE_GH_FAIL: 'auth' }), { fix: false }), 'gh')).toMatchObject({
        status: 'fail',
        message: expect.stringContaining('not logged in to GitHub'),
        fix: 'gh auth login (or set GH_TOKEN)',
      });
    },
  );

  it(
    'the project belongs to another branch than the one checked out: FAIL with the checkout; --fix ' +
      'changes nothing',
    async () => {
      const w = await world('executing');
      w.git(['checkout', '-q', '-b', 'other']);
      const before = w.snapshot();
      const r = await doctor(machine(w, REPO_ONLY).ctx(), { fix: true });
      expect(failing(r)).toEqual(['branch']);
      expect(find(r, 'branch')).toMatchObject({
        message:
          "this project belongs to 'feat/demo', but 'other' is checked out; sow refuses to change the " +
          'project from here',
        fix: expect.stringContaining('git checkout feat/demo'),
      });
      expect(w.git(['branch', '--show-current'])).toBe('other');
      expect(w.snapshot()).toEqual(before);
    },
  );

  it(
    'a task folder without a state file, and one whose state file is not its task: FAIL naming both; --fix ' +
      'leaves them',
    async () => {
      const w = await world('executing');
      w.write('.sow/project/phases/implementation/tasks/030/description.md', 'A task without a state\n');
      w.write(taskFile('020'), w.read(taskFile('020')).replace(/^id: .*$/m, "id: '010'"));
      const before = w.snapshot();
      const r = await doctor(machine(w, REPO_ONLY).ctx(), { fix: true });
      expect(failing(r)).toEqual(['tasks']);
      const { message, fix } = find(r, 'tasks');
      expect(message).toMatch(/^2 problem\(s\) with the task files: /);
      expect(message).toContain(`${taskFile('020')}: id: says id '010', but it is the file of task 020`);
      expect(message).toContain(`${taskFile('030')}: is missing: the task folder has no state file`);
      expect(fix).toContain('git checkout --');
      expect(w.snapshot()).toEqual(before);
    },
  );

  it(
    'outside a workspace: not initialised, or not a git repository, is a FAIL; the machine checks still run and ' +
      'nothing is made',
    async () => {
      const w = await world('bare');
      const m = machine(w, REPO_ONLY);
      const r = await doctor(m.ctx(), { fix: true });
      expect(find(r, 'workspace')).toMatchObject({
        status: 'fail',
        message: expect.stringContaining('sow is not initialised'),
        fix: 'sow init',
      });
      expect(r.checks.map((c) => c.id)).toEqual([
        'node',
        'git',
        'workspace',
        'worktrees',
        'config',
        'agent.claude-code',
        'gh',
      ]);
      expect(w.exists('.sow')).toBe(false);
      const nowhere = mkdtempSync(join(tmpdir(), 'sow-inproc-doctor-nowhere-'));
      temps.push(nowhere);
      const outside = await doctor({ ...m.ctx(), cwd: nowhere }, { fix: false });
      expect(outside.checks.map((c) => c.id)).toEqual([
        'node',
        'git',
        'workspace',
        'config',
        'agent.claude-code',
        'gh',
      ]);
      expect(find(outside, 'workspace')).toMatchObject({
        status: 'fail',
        message: expect.stringContaining('is not inside a git repository'),
      });
    },
  );
});
