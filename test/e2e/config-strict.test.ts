/**
 * Configuration that catches typos, end to end with the built CLI: an unknown key or a mistyped
 * role in the user configuration is refused by every command that reads it (exit 4,
 * CONFIG_INVALID, naming the file and the field, with did-you-mean); `config validate` reports it
 * among its lines, and inside a sow workspace checks `.sow/config.yaml` too; settings an executor
 * type does not take are errors naming the type (validate; spawn refuses such an executor); an
 * unknown executor says where its name came from (the environment variable, or the file's field)
 * and exits 4 like every configuration error; `agent spawn|resume --help` shows the file in use
 * without reading it; the template and `config show` present `permissions: safe | yolo`.
 */
import { chmodSync, mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeRepo, taskFile } from './harness.js';
import { agentFixtures, makeWorld, runSow, show, type Run } from './agent-world.js';

const IS_ROOT = process.getuid?.() === 0;

/** A sow workspace in ImplementationExecuting (tasks 010, 020), with its own config home and the fake CLIs. */
const fixture = agentFixtures({ tasks: ['First task', 'Second task'], prefix: 'sow-cfg-strict-' });

/** What a test made outside the fixtures, removed after it. */
const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

/** The config commands outside any repository. */
function outside(config?: string) {
  const world = makeWorld({ prefix: 'sow-cfg-strict-' });
  if (config !== undefined) world.writeConfig(config);
  cleanups.push(() => world.cleanup());
  const cwd = join(world.root, 'home');
  return {
    world,
    sow: (args: string[], env: Record<string, string> = {}, unset: string[] = []) =>
      runSow(cwd, world, args, env, unset),
  };
}

const lines = (r: Run) => r.stdout.split('\n');
/** Lines of stderr that contain `needle`. */
const stderrLines = (r: Run, needle: string) => r.stderr.split('\n').filter((l) => l.includes(needle));

const TYPO_BINDINGS = 'agents:\n  executors:\n    cur:\n      type: cursor\n  bindngs:\n    implementer: cur\n';
const TYPO_SETTINGS =
  'agents:\n  executors:\n    claude-code:\n      type: claude\n      settings:\n        yolo: true\n';
const TYPO_TOP = 'agent:\n  bindings:\n    implementer: claude-code\n';
const TYPO_ROLE = 'agents:\n  executors:\n    cur:\n      type: cursor\n  bindings:\n    implementr: cur\n';

// ---------------------------------------------------------------------------------------------
// Unknown keys and mistyped roles
// ---------------------------------------------------------------------------------------------

describe('an unknown key in the user configuration', () => {
  it(
    'config validate: a ✗ line with did-you-mean for agents.bindngs, settings.yolo, a top-level key and a mistyped ' +
      'role; exit 4 naming the file and the field',
    () => {
      const cases: [string, string][] = [
        [TYPO_BINDINGS, "✗ agents.bindngs: unknown key 'bindngs'; did you mean 'bindings'?"],
        [
          TYPO_SETTINGS,
          "✗ agents.executors.claude-code.settings.yolo: unknown key 'yolo' (known here: permissions, " +
            'yolo_mode, model)',
        ],
        [TYPO_TOP, "✗ agent: unknown key 'agent'; did you mean 'agents'?"],
        [TYPO_ROLE, "✗ agents.bindings.implementr: 'implementr' is not an agent role; did you mean 'implementer'?"],
      ];
      for (const [config, line] of cases) {
        const { world, sow } = outside(config);
        const r = sow(['config', 'validate']);
        expect(r.code, `${config}\n${show(r)}`).toBe(4);
        expect(lines(r), config).toContain(line);
        expect(lines(r), 'the schema is not called valid').not.toContain('✓ schema valid');
        expect(r.stdout).toMatch(/^Configuration is invalid: 1 error\(s\)/m);
        // The refusal names the file and the field, as every other command that reads it does.
        expect(r.stderr.split('\n')[0]).toBe(`error: ${world.configPath}: ${line.slice(2)}`);
        expect(r.stderr).toMatch(/^hint: .*'sow config edit'.*'sow config validate'/m);

        const j = sow(['config', 'validate', '--json']);
        expect(j.code).toBe(4);
        expect(j.stdout.trim().split('\n'), 'one JSON document').toHaveLength(1);
        expect(j.json?.ok).toBe(false);
        expect(j.json?.error?.code).toBe('CONFIG_INVALID');
        expect(j.json?.error?.message).toBe(`${world.configPath}: ${line.slice(2)}`);
      }
    },
  );

  it(
    'config validate reports every problem at once: a typo, then the other checks (an undefined executor, a setting ' +
      'the type does not take)',
    () => {
      const { sow } = outside(
        'agents:\n  executors:\n    ws:\n      type: windsurf\n      settings:\n        model: m\n  bindngs: {}\n  ' +
          'bindings:\n    implementer: nosuch\n',
      );
      const r = sow(['config', 'validate']);
      expect(r.code, show(r)).toBe(4);
      expect(r.stdout).toContain("✗ agents.bindngs: unknown key 'bindngs'; did you mean 'bindings'?");
      expect(r.stdout).toMatch(/^✗ agents\.bindings\.implementer: executor 'nosuch' is not defined/m);
      expect(r.stdout).toMatch(
        /^✗ agents\.executors\.ws\.settings\.model: the windsurf executor type does not take 'model'/m,
      );
      expect(r.stdout).toMatch(/^Configuration is invalid: 3 error\(s\)/m);
    },
  );

  it('a typo is reported before the schema problem it causes (typ: → did you mean type)', () => {
    const { sow } = outside('agents:\n  executors:\n    mine:\n      typ: claude\n');
    const r = sow(['config', 'validate']);
    expect(r.code, show(r)).toBe(4);
    expect(r.stdout).toContain("✗ agents.executors.mine.typ: unknown key 'typ'; did you mean 'type'?");
    const s = sow(['config', 'show', '--json']);
    expect(s.code, show(s)).toBe(4);
    expect(s.json?.error?.message).toMatch(/: agents\.executors\.mine\.typ: unknown key 'typ'; did you mean 'type'\?$/);
  });

  it('config show: exit 4, CONFIG_INVALID naming the file and the field, with a hint; nothing on stdout', () => {
    for (const [config, field] of [
      [TYPO_BINDINGS, 'agents.bindngs'],
      [TYPO_SETTINGS, 'agents.executors.claude-code.settings.yolo'],
      [TYPO_TOP, 'agent'],
      [TYPO_ROLE, 'agents.bindings.implementr'],
    ] as const) {
      const { world, sow } = outside(config);
      const r = sow(['config', 'show']);
      expect(r.code, `${field}\n${show(r)}`).toBe(4);
      expect(r.stdout).toBe('');
      expect(r.stderr.split('\n')[0]!.startsWith(`error: ${world.configPath}: ${field}: `), r.stderr).toBe(true);
      expect(r.stderr).toMatch(/^hint: fix it with 'sow config edit'/m);
      const j = sow(['config', 'show', '--json']);
      expect(j.code).toBe(4);
      expect(j.json?.error).toMatchObject({ code: 'CONFIG_INVALID', details: { file: world.configPath, field } });
    }
  });

  it('agent spawn and agent resume: exit 4 before any CLI runs, state untouched', () => {
    const f = fixture();
    f.ok(['agent', 'spawn', 'implementer', '010', '-q']);
    expect(f.world.calls()).toHaveLength(1);
    for (const [config, field] of [
      [TYPO_BINDINGS, 'agents.bindngs'],
      [TYPO_SETTINGS, 'agents.executors.claude-code.settings.yolo'],
      [TYPO_TOP, 'agent'],
      [TYPO_ROLE, 'agents.bindings.implementr'],
    ] as const) {
      f.world.writeConfig(config);
      const before = f.repo.snapshot();
      const spawn = f.sow(['agent', 'spawn', 'implementer', '020', '--json']);
      expect(spawn.code, `${field}\n${show(spawn)}`).toBe(4);
      expect(spawn.json?.error).toMatchObject({ code: 'CONFIG_INVALID', details: { file: f.world.configPath, field } });
      expect(spawn.json?.error?.message.startsWith(`${f.world.configPath}: ${field}: `), spawn.stdout).toBe(true);
      expect(spawn.json?.error?.hint).toContain('sow config edit');
      const resume = f.sow(['agent', 'resume', '010', 'Go on']);
      expect(resume.code, `${field}\n${show(resume)}`).toBe(4);
      expect(resume.stderr.split('\n')[0]).toContain(`${f.world.configPath}: ${field}: `);
      expect(f.repo.snapshot(), field).toEqual(before);
    }
    expect(f.world.calls(), 'no CLI ran after the first spawn').toHaveLength(1);
  });

  it('the same file without the typo is accepted by all of them', () => {
    const f = fixture(TYPO_BINDINGS.replace('bindngs', 'bindings'));
    f.ok(['config', 'validate']);
    f.ok(['config', 'show']);
    f.ok(['agent', 'spawn', 'implementer', '010', '-q']);
    expect(f.world.calls()[0]!.cli).toBe('cursor-agent');
  });
});

// ---------------------------------------------------------------------------------------------
// The repository configuration in config validate
// ---------------------------------------------------------------------------------------------

describe('config validate inside a sow workspace also checks .sow/config.yaml', () => {
  it('none: a ✓ line saying so; valid: a ✓ line naming its checks; from a subdirectory too', () => {
    const f = fixture();
    const none = f.ok(['config', 'validate']);
    expect(lines(none)).toContain('✓ .sow/config.yaml: none in this repository (it declares no checks)');
    expect(none.stdout).toContain('Configuration is valid.');
    const nj = f.ok(['config', 'validate', '--json']);
    expect(nj.json?.data?.repository).toEqual({ root: f.root, path: '.sow/config.yaml', exists: false, valid: true });

    f.repo.write(
      '.sow/config.yaml',
      'checks:\n  - name: unit\n    run: npm test\n  - name: lint\n    run: npm run lint\n    when: [finalize]\n',
    );
    const valid = f.ok(['config', 'validate']);
    expect(lines(valid)).toContain('✓ .sow/config.yaml valid (checks: unit, lint)');
    mkdirSync(join(f.root, 'src', 'deep'), { recursive: true });
    const sub = f.sow(['config', 'validate'], {}, 'src/deep');
    expect(sub.code, show(sub)).toBe(0);
    expect(lines(sub)).toContain('✓ .sow/config.yaml valid (checks: unit, lint)');
  });

  it(
    'an unknown key there: a ✗ line naming the field with did-you-mean, exit 4, the hint names the file; the user ' +
      'configuration can be fine',
    () => {
      const f = fixture('agents:\n  bindings:\n    implementer: claude-code\n');
      f.repo.write('.sow/config.yaml', 'checks:\n  - name: unit\n    run: npm test\n    timout: 60\n');
      const before = f.repo.snapshot();
      const r = f.sow(['config', 'validate']);
      expect(r.code, show(r)).toBe(4);
      expect(lines(r)).toContain('✓ schema valid');
      expect(lines(r)).toContain("✗ .sow/config.yaml: checks.0.timout: unknown key 'timout'; did you mean 'timeout'?");
      expect(r.stderr.split('\n')[0]).toBe(
        "error: .sow/config.yaml: checks.0.timout: unknown key 'timout'; did you mean 'timeout'?",
      );
      expect(r.stderr).toMatch(/^hint: fix \.sow\/config\.yaml \(its fields: 'sow schema repo-config'\)/m);
      expect(r.stderr, 'the user configuration is not blamed').not.toContain("'sow config edit'");
      const j = f.sow(['config', 'validate', '--json']);
      expect(j.code).toBe(4);
      expect(j.json?.error?.code).toBe('CONFIG_INVALID');
      expect(j.json?.error).toMatchObject({ details: { repository: { exists: true, valid: false } } });
      expect(f.repo.snapshot()).toEqual(before);
    },
  );

  it(
    'outside a workspace (a plain folder, or a git repository without sow) no repository line appears and nothing ' +
      'is required',
    () => {
      const { sow } = outside();
      const plain = sow(['config', 'validate']);
      expect(plain.code, show(plain)).toBe(0);
      expect(plain.stdout).not.toContain('.sow/config.yaml');
      const git = makeRepo({ init: false });
      cleanups.push(() => git.cleanup());
      // A .sow/config.yaml in a repository where sow is not initialised is not read.
      git.write('.sow/config.yaml', 'bogus: 1\n');
      const world = makeWorld();
      cleanups.push(() => world.cleanup());
      const r = runSow(realpathSync(git.dir), world, ['config', 'validate']);
      expect(r.code, show(r)).toBe(0);
      expect(r.stdout).not.toContain('.sow/config.yaml');
    },
  );
});

// ---------------------------------------------------------------------------------------------
// Settings an executor type does not take
// ---------------------------------------------------------------------------------------------

const UNFIT = `agents:
  executors:
    ws:
      type: windsurf
      settings:
        model: big
        permissions: yolo
    mine:
      type: command
      spawn: [my-agent, --session, "{session_id}", --prompt-file, "{prompt_file}"]
      resume: [my-agent, --resume, "{session_id}", --prompt-file, "{prompt_file}"]
      settings:
        yolo_mode: true
    cx:
      type: codex
      spawn: [codex]
  bindings:
    implementer: ws
    reviewer: mine
    planner: cx
`;

describe('a setting the executor type does not take is a configuration error naming the type', () => {
  it(
    'config validate: ✗ lines for model and permissions on windsurf, ' + 'yolo_mode on command, spawn on codex; exit 4',
    () => {
      const { world, sow } = outside(UNFIT);
      const r = sow(['config', 'validate']);
      expect(r.code, show(r)).toBe(4);
      const errors = lines(r).filter((l) => l.startsWith('✗ agents.'));
      const remove = '; remove it, or pick a type that does';
      expect(errors).toEqual([
        `✗ agents.executors.ws.settings.permissions: the windsurf executor type does not take 'permissions' (sow ` +
          `passes windsurf no permission flags; its custom_args decide)${remove}`,
        `✗ agents.executors.ws.settings.model: the windsurf executor type does not take 'model' (sow passes windsurf ` +
          `no model flag)${remove}`,
        `✗ agents.executors.mine.settings.yolo_mode: the command executor type does not take 'yolo_mode' (your own ` +
          `spawn/resume argv decides what the agent may do)${remove}`,
        `✗ agents.executors.cx.spawn: the codex executor type does not take 'spawn' (only type 'command' runs an ` +
          `argv of your own)${remove}`,
      ]);
      expect(r.stdout).toMatch(/^Configuration is invalid: 4 error\(s\)/m);
      expect(r.stderr.split('\n')[0]).toContain(
        `error: ${world.configPath}: agents.executors.ws.settings.permissions: the windsurf executor type does not ` +
          `take 'permissions'`,
      );
      // doctor gives the same verdict.
      const doctor = sow(['doctor', '--json']);
      expect(doctor.code).toBe(1);
      expect(
        (doctor.json?.error as any)?.details?.checks?.find((c: { id: string }) => c.id === 'config'),
      ).toMatchObject({
        status: 'fail',
        message: expect.stringContaining("the windsurf executor type does not take 'model'"),
      });
    },
  );

  it(
    'agent spawn and resume refuse such an executor (exit 4, naming the field) and start nothing; other ' +
      'executors still run',
    () => {
      const f = fixture(UNFIT);
      const before = f.repo.snapshot();
      const refused = f.sow(['agent', 'spawn', 'implementer', '010', '--json']);
      expect(refused.code, show(refused)).toBe(4);
      expect(refused.json?.error).toMatchObject({
        code: 'CONFIG_INVALID',
        details: { file: f.world.configPath, field: 'agents.executors.ws.settings.permissions' },
      });
      expect((f.sow(['agent', 'spawn', 'reviewer', '020', '--json']).json?.error as any)?.details?.field).toBe(
        'agents.executors.mine.settings.yolo_mode',
      );
      expect(f.world.calls()).toEqual([]);
      expect(f.repo.snapshot()).toEqual(before);

      // Without the settings windsurf does not take, the same executor runs.
      const fixed = fixture('agents:\n  executors:\n    ws:\n      type: windsurf\n  bindings:\n    implementer: ws\n');
      fixed.ok(['agent', 'spawn', 'implementer', '010', '-q']);
      expect(fixed.world.calls()[0]).toMatchObject({ cli: 'windsurf', argv: [] });
    },
  );
});

describe('errors of the executor in use refuse the run with exit 4 (they are configuration errors)', () => {
  it('permissions and yolo_mode that disagree: CONFIG_INVALID naming the file and the field', () => {
    const f = fixture(
      'agents:\n  executors:\n    claude-code:\n      type: claude\n      settings:\n        permissions: ' +
        'safe\n        yolo_mode: true\n',
    );
    const before = f.repo.snapshot();
    const r = f.sow(['agent', 'spawn', 'implementer', '010', '--json']);
    expect(r.code, show(r)).toBe(4);
    expect(r.json?.error).toMatchObject({
      code: 'CONFIG_INVALID',
      details: { file: f.world.configPath, field: 'agents.executors.claude-code.settings' },
    });
    expect(r.json?.error?.message).toContain('permissions: safe and yolo_mode: true disagree');
    expect(f.world.calls()).toEqual([]);
    expect(f.repo.snapshot()).toEqual(before);
  });

  it("a 'command' executor without a spawn argv: exit 4 (not 'binary not found')", () => {
    const f = fixture('agents:\n  executors:\n    mine:\n      type: command\n  bindings:\n    implementer: mine\n');
    const r = f.sow(['agent', 'spawn', 'implementer', '010', '--json']);
    expect(r.code, show(r)).toBe(4);
    expect(r.json?.error).toMatchObject({ code: 'CONFIG_INVALID', details: { field: 'agents.executors.mine' } });
    expect(r.json?.error?.message).toContain("a 'command' executor needs a 'spawn' argv list");
  });
});

// ---------------------------------------------------------------------------------------------
// Unknown executors: where the name came from; exit 4
// ---------------------------------------------------------------------------------------------

describe('an unknown executor', () => {
  it(
    'named by the environment: the error names the variable, not the file; exit 4; the list has the ' +
      'built-in types',
    () => {
      const f = fixture('agents:\n  executors:\n    cur:\n      type: cursor\n  bindings:\n    implementer: cur\n');
      const before = f.repo.snapshot();
      const r = f.sow(['agent', 'spawn', 'implementer', '010'], { SOW_AGENTS_IMPLEMENTER: 'nope' });
      expect(r.code, show(r)).toBe(4);
      expect(r.stdout).toBe('');
      expect(r.stderr.split('\n')[0]).toBe(
        'error: unknown executor: nope (from the environment variable SOW_AGENTS_IMPLEMENTER)',
      );
      expect(r.stderr).toContain(
        'hint: Available executors:\n  - claude-code\n  - cur\n  - claude (built-in type)\n  - cursor ' +
          '(built-in type)\n',
      );
      for (const type of ['windsurf', 'codex', 'gemini', 'copilot', 'opencode'])
        expect(r.stderr).toContain(`  - ${type} (built-in type)\n`);
      expect(r.stderr, "'command' cannot be named without a definition").not.toContain('  - command');
      expect(r.stderr).toContain(
        'SOW_AGENTS_IMPLEMENTER=nope is set in your environment, and the environment overrides the configuration file.',
      );
      expect(r.stderr).toContain('unset SOW_AGENTS_IMPLEMENTER');
      expect(r.stderr, 'the file is not blamed').not.toContain('Check your configuration at');
      expect(f.world.calls()).toEqual([]);
      expect(f.repo.snapshot()).toEqual(before);

      const j = f.sow(['agent', 'spawn', 'implementer', '010', '--json'], { SOW_AGENTS_IMPLEMENTER: 'nope' });
      expect(j.code).toBe(4);
      expect(j.json?.error).toMatchObject({
        code: 'UNKNOWN_EXECUTOR',
        details: { executor: 'nope', variable: 'SOW_AGENTS_IMPLEMENTER' },
      });
      expect((j.json?.error as { details?: object } | undefined)?.details).not.toHaveProperty('file');
    },
  );

  it('named by the file: the field and the file are named; exit 4; a near miss gets did-you-mean', () => {
    const f = fixture('agents:\n  executors:\n    cur:\n      type: cursor\n  bindings:\n    implementer: codx\n');
    const r = f.sow(['agent', 'spawn', 'implementer', '010']);
    expect(r.code, show(r)).toBe(4);
    expect(r.stderr.split('\n')[0]).toBe("error: unknown executor: codx; did you mean 'codex'?");
    expect(r.stderr).toContain('  - codex (built-in type)\n');
    expect(r.stderr).toContain(
      `agents.bindings.implementer names it.\nCheck your configuration at ${f.world.configPath}`,
    );
    const j = f.sow(['agent', 'spawn', 'implementer', '010', '--json']);
    expect(j.json?.error).toMatchObject({
      code: 'UNKNOWN_EXECUTOR',
      details: { executor: 'codx', file: f.world.configPath, field: 'agents.bindings.implementer' },
    });
    expect(f.world.calls()).toEqual([]);
  });

  it('a built-in type the list offers really works by name', () => {
    const f = fixture();
    f.ok(['agent', 'spawn', 'implementer', '010', '-q'], { SOW_AGENTS_IMPLEMENTER: 'gemini' });
    expect(f.world.calls()[0]!.cli).toBe('gemini');
  });

  it('config validate names the variable too', () => {
    const { sow } = outside();
    const r = sow(['config', 'validate'], { SOW_AGENTS_IMPLEMENTER: 'nope' });
    expect(r.code, show(r)).toBe(4);
    expect(r.stdout).toMatch(
      new RegExp(
        /^✗ SOW_AGENTS_IMPLEMENTER \(environment variable\): executor 'nope' is not defined /.source +
          /\(defined: claude-code; built-in types, usable by name: claude, cursor, /.source,
        'm',
      ),
    );
    expect(r.stderr).toMatch(
      /^hint: change or unset the environment variable named; then run 'sow config validate' again$/m,
    );
  });

  it('a SOW_AGENTS_ variable that names no role: a warning with did-you-mean at spawn (once) and in validate', () => {
    const f = fixture();
    const r = f.ok(['agent', 'spawn', 'implementer', '010', '-q'], { SOW_AGENTS_IMPLEMENTR: 'codex' });
    expect(stderrLines(r, 'SOW_AGENTS_IMPLEMENTR')).toEqual([
      "warning: SOW_AGENTS_IMPLEMENTR (environment variable): 'implementr' is not an agent role, so nothing reads " +
        'it; did you mean SOW_AGENTS_IMPLEMENTER?',
    ]);
    expect(f.world.calls()[0]!.cli, 'the default ran: the variable was not read').toBe('claude');
    const v = f.ok(['config', 'validate'], { SOW_AGENTS_IMPLEMENTR: 'codex' });
    expect(v.stdout).toContain(
      "⚠ Warning: SOW_AGENTS_IMPLEMENTR (environment variable): 'implementr' is not an agent role, so nothing " +
        'reads it; did you mean SOW_AGENTS_IMPLEMENTER?',
    );
  });

  it('sow help exit-codes says that 4 covers the configuration', () => {
    const { sow } = outside();
    const r = sow(['help', 'exit-codes']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\s*4\s+.*configuration.*invalid/m);
  });
});

// ---------------------------------------------------------------------------------------------
// --help shows the file in use, without reading it
// ---------------------------------------------------------------------------------------------

describe('agent spawn --help and agent resume --help', () => {
  it('show the path of the configuration file in use (XDG, then ~/.config), and whether it exists', () => {
    const { world, sow } = outside();
    for (const command of ['spawn', 'resume']) {
      const r = sow(['agent', command, '--help']);
      expect(r.code, show(r)).toBe(0);
      expect(lines(r)).toContain(
        `Agent selection uses configuration from ${world.configPath} (not found: the built-in defaults are used)`,
      );
      const home = sow(['agent', command, '--help'], {}, ['XDG_CONFIG_HOME']);
      expect(lines(home)).toContain(
        `Agent selection uses configuration from ${world.home}/.config/sow/config.yaml (not found: the built-in ` +
          `defaults are used)`,
      );
    }
    world.writeConfig('agents:\n  bindings:\n    implementer: claude-code\n');
    expect(lines(sow(['agent', 'spawn', '--help']))).toContain(
      `Agent selection uses configuration from ${world.configPath}`,
    );
  });

  it('never parse it: an invalid or unreadable file still gives the help, exit 0', () => {
    const { world, sow } = outside('agents: [\n  bindngs: {\n');
    for (const command of ['spawn', 'resume']) {
      const r = sow(['agent', command, '--help']);
      expect(r.code, show(r)).toBe(0);
      expect(lines(r)).toContain(`Agent selection uses configuration from ${world.configPath}`);
    }
    if (!IS_ROOT) {
      chmodSync(world.configPath, 0o000);
      const r = sow(['agent', 'spawn', '--help']);
      chmodSync(world.configPath, 0o600);
      expect(r.code, show(r)).toBe(0);
      expect(lines(r)).toContain(`Agent selection uses configuration from ${world.configPath}`);
    }
    // The same file is refused by a command that reads it.
    expect(sow(['config', 'show']).code).toBe(4);
  });
});

// ---------------------------------------------------------------------------------------------
// permissions: safe | yolo in the template and in config show
// ---------------------------------------------------------------------------------------------

describe('permissions: safe | yolo is the knob the template and config show present', () => {
  it(
    'the template explains permissions (safe is the default; yolo: anything) and keeps yolo_mode as the older ' +
      'spelling only',
    () => {
      const { world, sow } = outside();
      expect(sow(['config', 'init']).code).toBe(0);
      const text = world.readConfig();
      expect(text).toMatch(/^ *# +permissions: safe +# /m);
      expect(text).toMatch(/safe \(the default\): read and edit files in the repository, run sow/);
      expect(text).toMatch(/yolo: anything/);
      expect(text).toMatch(/^ *# +permissions: yolo/m);
      expect(text, 'yolo_mode is not offered as a setting to uncomment').not.toMatch(/^ *# +yolo_mode:/m);
      expect(text).toContain('yolo_mode: true, the older spelling, means the same');
      // The template, uncommented where it shows settings, is a valid configuration.
      const at = text.split('\n');
      const from = at.findIndex((l) => /^ *# claude-code:$/.test(l));
      const to = at.findIndex((l, i) => i > from && /^ *# +custom_args: \[\]/.test(l));
      expect(from).toBeGreaterThan(0);
      expect(to).toBeGreaterThan(from);
      const uncommented = at
        .map((l, i) => (i >= from && i <= to ? l.replace(/^( *)# /, '$1').replace(/ +#.*$/, '') : l))
        .join('\n');
      world.writeConfig(uncommented);
      const v = sow(['config', 'validate']);
      expect(v.code, `${show(v)}\n${uncommented}`).toBe(0);
      expect(sow(['config', 'show']).stdout).toMatch(/^ {8}permissions: safe {2}# \(from config file\)$/m);
    },
  );

  it(
    'config show prints the permission profile with its source: default, permissions, or yolo_mode: true; and where ' +
      'it does not apply',
    () => {
      const { sow } = outside(`agents:
  executors:
    a:
      type: claude
      settings:
        permissions: yolo
    b:
      type: cursor
      settings:
        yolo_mode: true
    c:
      type: codex
    d:
      type: command
      spawn: [my-agent]
      settings:
        permissions: yolo
  bindings:
    implementer: a
`);
      const r = sow(['config', 'show']);
      expect(r.code, show(r)).toBe(0);
      const block = (name: string) => {
        const all = lines(r);
        const start = all.indexOf(all.find((l) => l.startsWith(`    ${name}:`))!);
        const end = all.findIndex((l, i) => i > start && /^ {4}\S/.test(l));
        return all.slice(start, end);
      };
      expect(block('claude-code')).toContain('        permissions: safe  # (default)');
      expect(block('a')).toContain('        permissions: yolo  # (from config file)');
      expect(block('b')).toContain('        permissions: yolo  # (from config file: yolo_mode: true)');
      expect(block('c')).toContain('        permissions: safe  # (default)');
      expect(block('d')).toContain(
        "        permissions: yolo  # (from config file), the command executor type does not take it: run 'sow " +
          "config validate'",
      );
      expect(block('d')).toContain(
        '        # permissions do not apply: your own spawn/resume argv decides what the agent may do',
      );
      expect(r.stdout).toMatch(/^# permissions: safe \(the default\) reads and edits files in the repository/m);
      expect(r.stdout, 'yolo_mode is no longer printed as the knob').not.toMatch(/^ {8}yolo_mode:/m);
    },
  );
});

describe('yolo_mode: true stays accepted as permissions: yolo', () => {
  it('validate accepts it; spawn passes the yolo flag, as with permissions: yolo', () => {
    for (const settings of ['yolo_mode: true', 'permissions: yolo']) {
      const f = fixture(
        `agents:\n  executors:\n    claude-code:\n      type: claude\n      settings:\n        ${settings}\n`,
      );
      f.ok(['config', 'validate']);
      f.ok(['agent', 'spawn', 'implementer', '010', '-q']);
      expect(f.world.calls()[0]!.argv, settings).toContain('--dangerously-skip-permissions');
      expect(f.repo.yaml(taskFile('010')).status).toBe('needs_review');
    }
  });
});
