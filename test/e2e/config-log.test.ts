/**
 * `sow config init | path | validate | show | edit | reset` and
 * `sow log` (ADR-011: markdown entries with YAML front matter; spec 000: files logged by a task
 * become its `modified` outputs), end to end with the built CLI. Every call runs with its own
 * XDG_CONFIG_HOME and HOME, and a PATH holding the fake agent CLIs (for the binary checks).
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { taskFile } from './harness.js';
import { agentFixtures, makeWorld, runSow, show, type World, parseLog } from './agent-world.js';

const ROLES = ['orchestrator', 'implementer', 'architect', 'reviewer', 'planner', 'researcher', 'decomposer'];
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

/** A world for the config commands; they run outside any repository. */
function configWorld(opts: { omit?: string[] } = {}) {
  const world = makeWorld(opts);
  cleanups.push(() => world.cleanup());
  const cwd = join(world.root, 'home');
  return {
    world,
    sow: (args: string[], env: Record<string, string> = {}, unset: string[] = []) =>
      runSow(cwd, world, ['config', ...args], env, unset),
  };
}

const VALID = `agents:
  executors:
    claude-code:
      type: claude
      settings:
        model: sonnet
    cur:
      type: cursor
      settings:
        yolo_mode: true
  bindings:
    implementer: cur
    reviewer: claude-code
`;

// ---------------------------------------------------------------------------------------------
// sow config
// ---------------------------------------------------------------------------------------------

describe('sow config path', () => {
  it('prints $XDG_CONFIG_HOME/sow/config.yaml; --exists prints false, then true', () => {
    const { world, sow } = configWorld();
    const r = sow(['path']);
    expect(r.code, show(r)).toBe(0);
    expect(r.stdout).toBe(`${world.xdg}/sow/config.yaml\n`);
    expect(sow(['path', '--exists']).stdout).toBe('false\n');
    world.writeConfig(VALID);
    expect(sow(['path', '--exists']).stdout).toBe('true\n');
  });

  it('uses ~/.config/sow/config.yaml (from HOME) when XDG_CONFIG_HOME is unset', () => {
    const { world, sow } = configWorld();
    const r = sow(['path'], {}, ['XDG_CONFIG_HOME']);
    expect(r.code, show(r)).toBe(0);
    expect(r.stdout).toBe(`${world.home}/.config/sow/config.yaml\n`);
    const e = sow(['path', '--exists'], {}, ['XDG_CONFIG_HOME']);
    expect(e.stdout).toBe('false\n');
  });
});

describe('sow config init', () => {
  it(
    'creates the commented template at the path; never overwrites without --yes (no TTY → exit 2 naming --yes, as ' +
      'every question); --force is gone',
    () => {
      const { world, sow } = configWorld();
      const r = sow(['init']);
      expect(r.code, show(r)).toBe(0);
      expect(r.stdout).toBe(`${world.configPath}\n`);
      const template = world.readConfig();
      expect(template).toContain(`# Location: ${world.configPath}`);
      expect(template).toMatch(/SOW_AGENTS_IMPLEMENTER/);
      for (const role of ROLES) expect(template).toMatch(new RegExp(`^    ${role}: "?claude-code"?`, 'm'));

      const mine = '# my own configuration\nagents:\n  bindings:\n    implementer: claude-code\n';
      world.writeConfig(mine);
      const again = sow(['init']);
      expect(again.code, show(again)).toBe(2);
      expect(again.stdout).toBe('');
      expect(again.stderr).toContain(`replacing ${world.configPath} with the template needs confirmation`);
      expect(again.stderr).toMatch(/^hint: .*--yes/m);
      expect(again.stderr).not.toContain('--force');
      expect(world.readConfig(), 'untouched').toBe(mine);

      // --force no longer exists on init: a usage error, and the file is left alone.
      const forced = sow(['init', '--force']);
      expect(forced.code, show(forced)).toBe(2);
      expect(forced.stdout).toBe('');
      expect(forced.stderr).toContain("unknown option '--force'");
      expect(world.readConfig(), 'untouched by --force').toBe(mine);

      const yes = sow(['init', '--yes']);
      expect(yes.code, show(yes)).toBe(0);
      expect(yes.stdout).toBe(`${world.configPath}\n`);
      expect(world.readConfig()).toBe(template);

      // -y is the short form.
      world.writeConfig(mine);
      const y = sow(['init', '-y']);
      expect(y.code, show(y)).toBe(0);
      expect(world.readConfig()).toBe(template);
    },
  );

  it('the template it writes is a valid configuration (validate and show can read it)', () => {
    const { world, sow } = configWorld();
    expect(sow(['init']).code).toBe(0);
    const v = sow(['validate']);
    expect(v.code, `${show(v)}\n--- template:\n${world.readConfig()}`).toBe(0);
    expect(v.stdout).toContain('✓ YAML syntax valid');
    expect(v.stdout).not.toContain('✗');
    const s = sow(['show']);
    expect(s.code, show(s)).toBe(0);
    expect(s.stdout).toMatch(/^ {4}implementer: "?claude-code"? {2}# \(from config file\)$/m);
  });
});

describe('sow config validate', () => {
  it('a valid file: exit 0 with ✓ lines', () => {
    const { world, sow } = configWorld();
    world.writeConfig(VALID);
    const r = sow(['validate']);
    expect(r.code, show(r)).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual([
      `Validating configuration at ${world.configPath}...`,
      '',
      '✓ YAML syntax valid',
      '✓ schema valid',
      '✓ executor types valid (claude, cursor)',
      '✓ all bindings reference defined executors',
      '',
      'Configuration is valid.',
    ]);
  });

  it('a binding to an undefined executor: exit 4 naming it', () => {
    const { world, sow } = configWorld();
    world.writeConfig('agents:\n  executors:\n    cur:\n      type: cursor\n  bindings:\n    implementer: nosuch\n');
    const r = sow(['validate']);
    expect(r.code, show(r)).toBe(4);
    expect(r.stdout).toMatch(/^✗ .*implementer.*'nosuch'/m);
    // The refusal names the file and the field, like every command that reads the file, and says how to fix it.
    expect(
      r.stderr
        .split('\n')[0]!
        .startsWith(`error: ${world.configPath}: agents.bindings.implementer: executor 'nosuch' is not defined`),
      r.stderr,
    ).toBe(true);
    expect(r.stderr).toMatch(/^hint: fix .* with 'sow config edit'; then run 'sow config validate' again$/m);
    const j = sow(['validate', '--json']);
    expect(j.code).toBe(4);
    expect(j.json?.ok).toBe(false);
    expect(j.json?.error?.code).toBe('CONFIG_INVALID');
    expect(j.stdout.trim().split('\n'), 'one JSON document').toHaveLength(1);
  });

  it('an environment override naming an undefined executor is an error, with or without a file', () => {
    // `sow agent spawn implementer` would fail with "unknown executor: nosuch" either way.
    const { world, sow } = configWorld();
    world.writeConfig(VALID);
    const withFile = sow(['validate'], { SOW_AGENTS_IMPLEMENTER: 'nosuch' });
    expect(withFile.code, `with a file\n${show(withFile)}`).toBe(4);
    expect(withFile.stdout).toMatch(/^✗ .*SOW_AGENTS_IMPLEMENTER.*'nosuch'/m);
    rmSync(world.configPath);
    const without = sow(['validate'], { SOW_AGENTS_IMPLEMENTER: 'nosuch' });
    expect(without.code, `no file\n${show(without)}`).toBe(4);
    expect(without.stdout).toMatch(/^✗ .*SOW_AGENTS_IMPLEMENTER.*'nosuch'/m);
  });

  it('bad YAML: exit 4', () => {
    const { world, sow } = configWorld();
    world.writeConfig('agents:\n  bindings: [\n    implementer: cur\n');
    const r = sow(['validate']);
    expect(r.code, show(r)).toBe(4);
    expect(r.stdout).toMatch(/^✗ YAML syntax/m);
    expect(r.stdout).not.toContain('✓ YAML syntax valid');
  });

  it('an unknown executor type: exit 4 naming it', () => {
    const { world, sow } = configWorld();
    world.writeConfig('agents:\n  executors:\n    x:\n      type: vim-agent\n');
    const r = sow(['validate']);
    expect(r.code, show(r)).toBe(4);
    expect(r.stdout).toMatch(/^✗ .*vim-agent/m);
  });

  it('a binary missing from PATH: ⚠ warning, still exit 0', () => {
    const { world, sow } = configWorld({ omit: ['cursor-agent'] });
    world.writeConfig(VALID);
    const r = sow(['validate']);
    expect(r.code, show(r)).toBe(0);
    expect(r.stdout).toMatch(/^⚠ Warning: cursor-agent not found on PATH$/m);
    expect(r.stdout).not.toMatch(/claude not found/);
    expect(r.stdout).toContain('Configuration is valid with 1 warning');
  });
});

describe('sow config edit', () => {
  function editor(world: World) {
    const script = join(world.root, 'editor.mjs');
    const record = join(world.root, 'editor-argv.jsonl');
    writeFileSync(
      script,
      [
        "import { appendFileSync } from 'node:fs';",
        'const args = process.argv.slice(2);',
        `appendFileSync(${JSON.stringify(record)}, JSON.stringify(args) + '\\n');`,
        "appendFileSync(args.at(-1), process.env.EDITOR_APPEND ?? '');",
        '',
      ].join('\n'),
    );
    return {
      EDITOR: `${process.execPath} ${script} --flag`,
      argv: () =>
        existsSync(record)
          ? readFileSync(record, 'utf8')
              .trim()
              .split('\n')
              .map((l) => JSON.parse(l))
          : [],
    };
  }

  it('runs $EDITOR with its arguments and the file, then validates', () => {
    const { world, sow } = configWorld();
    world.writeConfig(VALID);
    const ed = editor(world);
    const r = sow(['edit'], { EDITOR: ed.EDITOR, EDITOR_APPEND: '    planner: cur\n' });
    expect(r.code, show(r)).toBe(0);
    expect(ed.argv()).toEqual([['--flag', world.configPath]]);
    expect(world.readConfig()).toBe(`${VALID}    planner: cur\n`);
    expect(r.stderr).toContain('✓ all bindings reference defined executors');
  });

  it('invalid after the edit: exit 4 naming the problem', () => {
    const { world, sow } = configWorld();
    world.writeConfig(VALID);
    const ed = editor(world);
    const r = sow(['edit'], { EDITOR: ed.EDITOR, EDITOR_APPEND: '    planner: nosuch\n' });
    expect(r.code, show(r)).toBe(4);
    expect(ed.argv()).toHaveLength(1);
    expect(r.stderr).toContain('nosuch');
  });

  it('creates the file from the template when there is none, then validates it', () => {
    const { world, sow } = configWorld();
    const ed = editor(world);
    const r = sow(['edit'], { EDITOR: ed.EDITOR });
    expect(ed.argv()).toEqual([['--flag', world.configPath]]);
    expect(existsSync(world.configPath)).toBe(true);
    expect(world.readConfig()).toContain(`# Location: ${world.configPath}`);
    expect(r.code, show(r)).toBe(0);
  });
});

describe('sow config reset', () => {
  it(
    'without a TTY and without --yes: refused (exit 2 naming --yes); --force is a usage error; --yes removes it and ' +
      'keeps a backup',
    () => {
      const { world, sow } = configWorld();
      world.writeConfig(VALID);
      const r = sow(['reset']);
      expect(r.code, show(r)).toBe(2);
      expect(r.stderr).toMatch(/^hint: .*--yes/m);
      expect(r.stderr).not.toContain('--force');
      expect(world.readConfig()).toBe(VALID);
      expect(existsSync(`${world.configPath}.backup`)).toBe(false);
      const j = sow(['reset', '--json']);
      expect(j.code, show(j)).toBe(2);
      expect(j.json?.error?.code).toBe('CONFIRMATION_REQUIRED');
      expect(j.json?.error?.hint).toContain('--yes');

      // --force no longer exists on reset.
      const forced = sow(['reset', '--force']);
      expect(forced.code, show(forced)).toBe(2);
      expect(forced.stderr).toContain("unknown option '--force'");
      expect(world.readConfig(), 'untouched by --force').toBe(VALID);
      expect(existsSync(`${world.configPath}.backup`)).toBe(false);

      const yes = sow(['reset', '--yes']);
      expect(yes.code, show(yes)).toBe(0);
      expect(existsSync(world.configPath)).toBe(false);
      expect(readFileSync(`${world.configPath}.backup`, 'utf8')).toBe(VALID);
      expect(sow(['path', '--exists']).stdout).toBe('false\n');
      expect(sow(['show']).stdout).toMatch(/^ {4}implementer: "?claude-code"? {2}# \(default\)$/m);

      // -y is the short form.
      const mine = '# mine\nagents:\n  bindings:\n    planner: claude-code\n';
      world.writeConfig(mine);
      const y = sow(['reset', '-y']);
      expect(y.code, show(y)).toBe(0);
      expect(existsSync(world.configPath)).toBe(false);
      expect(readFileSync(`${world.configPath}.backup`, 'utf8')).toBe(mine);
    },
  );
});

// ---------------------------------------------------------------------------------------------
// sow log
// ---------------------------------------------------------------------------------------------

/** Log tests run in a copy of a repository in ImplementationExecuting (tasks 010, 020). */
const logFixture = agentFixtures({ tasks: ['First task', 'Second task'] });

const TASK_LOG = '.sow/project/phases/implementation/tasks/010/log.md';

function logRepo() {
  const { repo, root, world } = logFixture();
  return {
    repo,
    root,
    world,
    sow: (args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}) =>
      runSow(opts.cwd ? join(root, opts.cwd) : root, world, ['log', ...args], opts.env ?? {}),
    entries: (rel: string) => (repo.exists(rel) ? parseLog(repo.read(rel)) : []),
    outputs: (id = '010') => repo.yaml(taskFile(id)).outputs.map((o: any) => [o.type, o.path]),
  };
}

describe('sow log', () => {
  it(
    'appends an entry with YAML front matter and a markdown body to the task log; files become modified ' +
      'outputs once',
    () => {
      const t = logRepo();
      const before = t.entries(TASK_LOG).length;
      const r = t.sow([
        '--agent',
        'implementer-1',
        '--action',
        'modified_file',
        '--result',
        'success',
        '--file',
        'src/a.ts',
        '--file',
        'src/b.ts',
        '--files',
        'src/b.ts,lib/c.ts',
        '--task',
        '010',
        'Changed',
        'the **parser**',
      ]);
      expect(r.code, show(r)).toBe(0);
      const entries = t.entries(TASK_LOG);
      expect(entries).toHaveLength(before + 1);
      const e = entries.at(-1)!;
      expect(e.front).toEqual({
        timestamp: expect.stringMatching(ISO),
        agent: 'implementer-1',
        action: 'modified_file',
        result: 'success',
        files: ['src/a.ts', 'src/b.ts', 'lib/c.ts'],
      });
      expect(e.body).toBe('Changed the **parser**');
      expect(t.outputs()).toEqual([
        ['modified', 'src/a.ts'],
        ['modified', 'src/b.ts'],
        ['modified', 'lib/c.ts'],
      ]);

      // Again with an overlap: only the new file is added; the entry still lists what it names.
      const again = t.sow([
        '--agent',
        'implementer-1',
        '--action',
        'refactor',
        '--result',
        'partial',
        '--files',
        'lib/c.ts,src/d.ts',
        '--file',
        './src/a.ts',
        '--task',
        '010',
      ]);
      expect(again.code, show(again)).toBe(0);
      expect(t.entries(TASK_LOG).at(-1)!.front).toMatchObject({
        action: 'refactor',
        result: 'partial',
        files: ['src/a.ts', 'lib/c.ts', 'src/d.ts'],
      });
      expect(t.outputs()).toEqual([
        ['modified', 'src/a.ts'],
        ['modified', 'src/b.ts'],
        ['modified', 'lib/c.ts'],
        ['modified', 'src/d.ts'],
      ]);
      // The other task is untouched.
      expect(t.outputs('020')).toEqual([]);
    },
  );

  it(
    'appends: the log file is written at its end, never rewritten (same file, every byte before kept), ' +
      'also past 8 MB',
    () => {
      const t = logRepo();
      const file = join(t.root, TASK_LOG);
      const first = t.sow(['--action', 'research', '--result', 'success', '--task', '010', 'one']);
      expect(first.code, show(first)).toBe(0);
      // A long log: more than sow reads of a document (8 MB), which rewriting it would have had to read.
      appendFileSync(file, `${'---\nagent: user\n---\n\nold entry\n\n'.repeat(300_000)}`);
      const before = readFileSync(file);
      const ino = statSync(file).ino;
      const r = t.sow(['--action', 'research', '--result', 'success', '--task', '010', 'two']);
      expect(r.code, show(r)).toBe(0);
      const after = readFileSync(file);
      expect(statSync(file).ino, 'the same file, not a new one renamed over it').toBe(ino);
      expect(after.subarray(0, before.length).equals(before)).toBe(true);
      expect(after.subarray(before.length).toString()).toMatch(/^---\ntimestamp: .*\n(?:.*\n)*---\n\ntwo\n\n$/);
      // With a file (the task's outputs change too: two files, through the journal), still appended.
      const r2 = t.sow([
        '--action',
        'modified_file',
        '--result',
        'success',
        '--task',
        '010',
        '--file',
        'src/z.ts',
        'three',
      ]);
      expect(r2.code, show(r2)).toBe(0);
      expect(statSync(file).ino).toBe(ino);
      expect(readFileSync(file).toString().endsWith('three\n\n')).toBe(true);
      expect(t.outputs()).toContainEqual(['modified', 'src/z.ts']);
    },
  );

  it(
    'modified outputs are repository paths: log and `task output add` name a file alike; approving one ' +
      'needs that file',
    () => {
      const t = logRepo();
      const task = (args: string[], cwd?: string) =>
        runSow(cwd ? join(t.root, cwd) : t.root, t.world, ['task', ...args]);
      expect(
        t.sow([
          '--agent',
          'implementer-1',
          '--action',
          'modified_file',
          '--result',
          'success',
          '--task',
          '010',
          '--file',
          'src/a.ts',
        ]).code,
      ).toBe(0);

      // Added by hand: a path from the repository root, stored as given; a missing file is allowed, with a warning.
      const added = task(['output', 'add', '--id', '010', '--type', 'modified', '--path', 'src/e.ts']);
      expect(added.code, show(added)).toBe(0);
      expect(added.stderr).toMatch(/^warning: src\/e\.ts does not exist yet; /m);
      // From a subdirectory it is still a path from the repository root (only `sow log --file` follows the cwd).
      mkdirSync(join(t.root, 'pkg'), { recursive: true });
      const fromPkg = task(['output', 'add', '--id', '010', '--type', 'modified', '--path', 'src/f.ts'], 'pkg');
      expect(fromPkg.code, show(fromPkg)).toBe(0);
      // Logging a file already there adds nothing: both commands name it the same way.
      expect(
        t.sow([
          '--agent',
          'implementer-1',
          '--action',
          'modified_file',
          '--result',
          'success',
          '--task',
          '010',
          '--file',
          'src/e.ts',
          '--file',
          'src/f.ts',
        ]).code,
      ).toBe(0);
      expect(t.outputs()).toEqual([
        ['modified', 'src/a.ts'],
        ['modified', 'src/e.ts'],
        ['modified', 'src/f.ts'],
      ]);

      // The old spelling, relative to .sow/project/, now points outside the repository.
      const before = t.repo.snapshot();
      const old = task(['output', 'add', '--id', '010', '--type', 'modified', '--path', '../../src/a.ts']);
      expect(old.code, show(old)).toBe(1);
      expect(old.stderr.split('\n')[0]).toContain('outside the repository');

      // Approving needs the file, found from the repository root.
      const missing = task(['output', 'set', '--id', '010', '--index', '0', 'approved', 'true', '--json']);
      expect(missing.code, show(missing)).toBe(1);
      expect(missing.json?.error?.code).toBe('ARTIFACT_FILE_MISSING');
      expect(missing.json?.error?.message).toContain('src/a.ts');
      expect(t.repo.snapshot(), 'refusals leave the state byte-identical').toEqual(before);
      t.repo.write('src/a.ts', 'export const a = 1;\n');
      const approved = task(['output', 'set', '--id', '010', '--index', '0', 'approved', 'true']);
      expect(approved.code, show(approved)).toBe(0);
      expect(t.repo.yaml(taskFile('010')).outputs[0]).toMatchObject({
        type: 'modified',
        path: 'src/a.ts',
        approved: true,
      });
    },
  );

  it(
    'defaults to SOW_TASK_ID and SOW_AGENT_ID (as a spawned worker has them); ' + 'paths are relative to where it runs',
    () => {
      const t = logRepo();
      mkdirSync(join(t.root, 'pkg'), { recursive: true });
      const r = t.sow(
        ['--action', 'test_run', '--result', 'error', '--file', 'index.ts', '--file', '../src/x.ts', 'Tests fail'],
        {
          cwd: 'pkg',
          env: { SOW_TASK_ID: '010', SOW_AGENT_ID: 'implementer-7' },
        },
      );
      expect(r.code, show(r)).toBe(0);
      expect(t.entries(TASK_LOG).at(-1)!.front).toMatchObject({
        agent: 'implementer-7',
        action: 'test_run',
        result: 'error',
        files: ['pkg/index.ts', 'src/x.ts'],
      });
      expect(t.outputs()).toEqual([
        ['modified', 'pkg/index.ts'],
        ['modified', 'src/x.ts'],
      ]);
    },
  );
});
