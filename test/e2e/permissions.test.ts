/**
 * Worker permissions end to end (docs/decisions/0017-permission-profiles.md): the built `sow` in
 * temp git repositories with the strict fake agent CLIs (test/fakes/fake-agent.mjs) on PATH, for
 * one or two CLIs per rule — the whole chain: the built sow, the fake CLI receiving the flags and
 * files, the worker calling `sow` back, what the user sees on stderr, exit codes and `--json`.
 *
 * - `settings.permissions: safe` (the default) gives each CLI its own flags: file edits in the
 *   repository, `sow`, and each check the repository declares in .sow/config.yaml; `yolo` (or
 *   `yolo_mode: true`) is each CLI's skip-all flag; the two disagreeing is a configuration error.
 * - Tool calls a CLI refused (FAKE_AGENT_DENY makes the fake report them in that CLI's real shape)
 *   are reported on stderr with how to allow them, in `--json` as data.denials, and in the error
 *   of a worker that failed.
 * - `--verbose` says what each CLI is allowed.
 *
 * Every CLI's flags, permission files, `--verbose` notes, yolo mapping and refusals (with the
 * advice said for them), the checks read again at a resume, and each disagreement of permissions
 * and yolo_mode are checked in-process: src/app/agent-permissions.test.ts (spawn and resume with
 * the fakes on the context's PATH), and each CLI's argv alone in src/adapters/executors.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT, taskFile } from './harness.js';
import { agentFixtures, show, type AgentFixture, type FakeCall } from './agent-world.js';
import {
  CLIS,
  CODEX_REASON,
  cliOf,
  DENIALS,
  declareTouch,
  expectExactCheckRules,
  expectPermissionFiles,
  openCodeEnv,
  REPO_CONFIG,
  yoloAdvice,
} from '../permission-cases.js';

const IS_ROOT = process.getuid?.() === 0;
/** Where a worker's events, prompts and permission files go: sow's runtime folder, never state. */
const OUTPUTS = '.git/sow/agent-outputs';

// ---------------------------------------------------------------------------------------------
// Fixtures: a template repo in ImplementationExecuting (tasks 010, 020) with the checks declared,
// cloned per test, and a world of fake CLIs with the executor `impl` bound to the implementer.
// ---------------------------------------------------------------------------------------------

const base = agentFixtures({
  tasks: ['First task', 'Second task'],
  prefix: 'sow-perm-',
  setup: (t) => t.write('.sow/config.yaml', REPO_CONFIG),
});

interface Fixture extends AgentFixture {
  /** The files in the task's runtime folder (names only). */
  outputs(id?: string): string[];
  /** The task's runtime folder. */
  dir(id?: string): string;
  call(): FakeCall;
}

function fixture(config?: string): Fixture {
  const f = base(config);
  // The checks are allowed here (these tests are about what each CLI is granted; allowing is
  // tested in checks-allowed.test.ts, with only the allowed checks granted).
  f.world.env['SOW_ALLOW_CHECKS'] = '1';
  const dir = (id = '010') => join(f.root, OUTPUTS, id);
  return {
    ...f,
    outputs: (id = '010') => (existsSync(dir(id)) ? readdirSync(dir(id)).sort() : []),
    dir,
    call() {
      const calls = f.world.calls();
      expect(calls, 'one run of the fake CLI').toHaveLength(1);
      return calls[0]!;
    },
  };
}

/** A config file with one executor `impl` of this type (with these settings lines) for the implementer. */
const configFor = (type: string, settings: string[] = []) =>
  `agents:\n  executors:\n    impl:\n      ` +
  `type: ${type}\n${settings.length ? `      settings:\n${settings.map((s) => `        ${s}\n`).join('')}` : ''}  ` +
  `bindings:\n    implementer: impl\n`;

/** The worker runs no sow command (faster; the task stays in_progress). */
const SILENT = { FAKE_AGENT_SCRIPT: '[]' };

// ---------------------------------------------------------------------------------------------
// What each CLI gets.
// ---------------------------------------------------------------------------------------------

const notesOf = (stderr: string) =>
  stderr
    .split('\n')
    .filter((l) => l.startsWith('  Note: '))
    .map((l) => l.slice('  Note: '.length));

// ---------------------------------------------------------------------------------------------

describe('the default is safe: each CLI gets its own flags, granting sow and the declared checks', () => {
  // The two CLIs that are given files beside the prompt (the others: src/app/agent-permissions.test.ts).
  it.each(CLIS.filter((c) => c.type === 'gemini' || c.type === 'opencode'))('$type', (c) => {
    const f = fixture(configFor(c.type));
    const r = f.ok(['agent', 'spawn', 'implementer', '010', '--verbose'], SILENT);
    expect(r.stdout).toBe('in_progress\n');
    expect(r.stderr).toMatch(/^ {2}Settings: permissions=safe \(default\)$/m);
    expect(r.stderr, 'nothing was refused').not.toContain('refused');
    const call = f.call();
    expect(call.cli).toBe(c.cli);
    const ctx = { sid: f.task().session_id, root: f.root, dir: f.dir() };
    expect(call.argv).toEqual(c.safe(ctx));

    // The permission files are written beside the prompt, only for the CLI that reads them.
    const files = f.outputs().filter((n) => !/-spawn\.(prompt\.md|jsonl|events\.jsonl)$/.test(n));
    expectPermissionFiles(c.type, files, ctx.dir, call);
    if (c.type === 'gemini') expectExactCheckRules(readFileSync(join(ctx.dir, 'gemini-sow-policy.toml'), 'utf8'));
    // Runtime files: neither state nor anything for git.
    expect(f.repo.git(['status', '--porcelain', '--untracked-files=all'])).not.toMatch(
      /gemini-sow-policy|opencode-sow|\.runtime/,
    );
  });

  it('without a config file: the built-in claude-code executor, safe, with the checks', () => {
    const f = fixture();
    const r = f.ok(['agent', 'spawn', 'implementer', '010', '--verbose'], SILENT);
    expect(r.stderr).toContain('(not found, using defaults)');
    expect(r.stderr).toMatch(/^ {2}Settings: permissions=safe \(default\)$/m);
    expect(f.call().argv).toEqual(cliOf('claude').safe({ sid: f.task().session_id, root: f.root, dir: f.dir() }));
  });
});

describe('permissions: yolo and yolo_mode: true give each CLI its skip-all flag', () => {
  // One CLI with each way of saying it (every CLI with both: src/app/agent-permissions.test.ts).
  const cases = [
    { ...cliOf('claude'), label: 'permissions: yolo', settings: ['permissions: yolo'] },
    { ...cliOf('codex'), label: 'yolo_mode: true', settings: ['yolo_mode: true'] },
  ];
  it.each(cases)('$type with $label', (c) => {
    const f = fixture(configFor(c.type, c.settings));
    const r = f.ok(['agent', 'spawn', 'implementer', '010', '--verbose'], SILENT);
    expect(r.stderr).toMatch(/^ {2}Settings: permissions=yolo \(from config file\)$/m);
    const call = f.call();
    expect(call.cli).toBe(c.cli);
    expect(call.argv).toEqual(c.yolo({ sid: f.task().session_id, root: f.root, dir: f.dir() }));
    expect(
      f.outputs().filter((n) => !/-spawn\.(prompt\.md|jsonl|events\.jsonl)$/.test(n)),
      'no permission files',
    ).toEqual([]);
    expect(openCodeEnv(call)).toEqual([]);
    // Claude Code refuses its skip-all flag as root unless IS_SANDBOX=1: sow sets it then, and says so.
    const root = c.type === 'claude' && IS_ROOT;
    expect(call.env['IS_SANDBOX']).toBe(root ? '1' : undefined);
    expect(notesOf(r.stderr)).toEqual(
      root
        ? ['running as root: Claude Code accepts --dangerously-skip-permissions only with IS_SANDBOX=1, so sow sets it']
        : [],
    );
  });

  // The other way round (permissions: yolo, yolo_mode: false): src/app/agent-permissions.test.ts.
  it.each([
    [
      ['permissions: safe', 'yolo_mode: true'],
      'permissions: safe and yolo_mode: true disagree; keep one (yolo_mode: true is permissions: yolo)',
    ],
  ])('%j disagree: a configuration error (exit 4), nothing started, state untouched', (settings, problem) => {
    const f = fixture(configFor('claude', settings));
    const before = f.repo.snapshot();
    const message = `${f.world.configPath}: agents.executors.impl.settings: ${problem}`;
    const hint =
      "fix it with 'sow config edit', check it with 'sow config validate', or start over with 'sow config reset'";
    const r = f.sow(['agent', 'spawn', 'implementer', '010']);
    expect(r.code, show(r)).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`error: ${message}\nhint: ${hint}\n`);
    const j = f.sow(['agent', 'spawn', 'implementer', '010', '--json']);
    expect(j.code, show(j)).toBe(4);
    expect(j.json).toEqual({
      ok: false,
      error: {
        code: 'CONFIG_INVALID',
        message,
        hint,
        details: { file: f.world.configPath, field: 'agents.executors.impl.settings' },
      },
    });
    expect(f.world.calls(), 'no CLI started').toEqual([]);
    expect(f.repo.snapshot(), 'state byte-identical').toEqual(before);
    expect(existsSync(join(f.root, OUTPUTS)), 'no worker files').toBe(false);
    // config show does not pick one silently.
    const shown = f.ok(['config', 'show']);
    expect(shown.stdout).toMatch(
      new RegExp(
        `^ {8}permissions: ${settings[0]!.includes('yolo') ? 'yolo' : 'safe'} {2}# \\(from config file\\); ` +
          `but ${settings[1]!} disagrees, so workers will not start: run 'sow config validate'$`,
        'm',
      ),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Refused tool calls.
// ---------------------------------------------------------------------------------------------

/** Claude Code refusing an undeclared command and a declared check (every CLI: src/app/agent-permissions.test.ts). */
const DENIED = DENIALS.find((c) => c.type === 'claude')!;

const block = (lines: string[]) => lines.map((l) => `${l}\n`).join('');
const count = (text: string, needle: string) => text.split(needle).length - 1;

describe('refused tool calls are reported with how to allow them', () => {
  it('claude (safe): on stderr before the outcome, in --json as data.denials; the worker still reported back', () => {
    const c = DENIED;
    const f = fixture(configFor('claude'));
    const r = f.ok(['agent', 'spawn', 'implementer', '010', '--json'], { FAKE_AGENT_DENY: JSON.stringify(c.deny) });
    // The worker still reported back: the task reached needs_review.
    expect(r.json?.data).toMatchObject({ task: '010', status: 'needs_review', denials: c.denials });
    expect(r.json?.data.denials).toEqual(c.denials);
    expect(f.task().status).toBe('needs_review');
    // On stderr (stdout is the JSON document), after the progress view, before the outcome.
    const advice = [...c.advice, ...yoloAdvice('claude', f.world.configPath)];
    expect(r.stderr.endsWith(`${block(advice)}Task 010 is now needs_review\n`), r.stderr).toBe(true);
    expect(count(r.stderr, 'refused'), 'said once').toBe(count(block(advice), 'refused'));
  });

  it(
    'several refused commands, one refused twice, on a resume with --quiet: said once each, and said even ' +
      'with --quiet',
    () => {
      const f = fixture(configFor('claude'));
      f.ok(['agent', 'spawn', 'implementer', '010', '-q']);
      const r = f.ok(['agent', 'resume', '010', 'Go on.', '--quiet'], {
        FAKE_AGENT_DENY: JSON.stringify(['touch /x', 'curl https://example.com', 'touch /x']),
      });
      expect(r.stdout).toBe('needs_review\n');
      expect(r.stderr).toBe(
        block([
          'Claude Code refused 2 tool calls (permissions: safe):',
          '  Bash: touch /x',
          '  Bash: curl https://example.com',
          'To let a worker run those commands, declare each as a check in .sow/config.yaml:',
          '  checks:',
          '    - name: allowed-1',
          '      run: "touch /x"',
          '    - name: allowed-2',
          '      run: "curl https://example.com"',
          "then allow them on this machine: 'sow check allow'.",
          ...yoloAdvice('claude', f.world.configPath),
        ]),
      );
      expect(f.task()).toMatchObject({ status: 'needs_review', iteration: 2 });
      // --json keeps every refusal the CLI reported, repeats too.
      const j = f.ok(['agent', 'resume', '010', 'Again.', '--json', '-q'], {
        FAKE_AGENT_DENY: JSON.stringify(['touch /x', 'touch /x']),
      });
      expect(j.json?.data.denials).toEqual([
        { tool: 'Bash', input: 'touch /x', kind: 'command' },
        { tool: 'Bash', input: 'touch /x', kind: 'command' },
      ]);
      expect(j.stderr).toBe(
        block([
          'Claude Code refused a tool call (permissions: safe):',
          '  Bash: touch /x',
          ...declareTouch,
          ...yoloAdvice('claude', f.world.configPath),
        ]),
      );
    },
  );

  // (codex the same: src/app/agent-permissions.test.ts)
  it.each([['claude', 'Claude Code', '  Bash: touch /x']])(
    '%s with permissions: yolo: its own configuration denies it (no advice to declare or to set yolo)',
    (type, title, line) => {
      const f = fixture(configFor(type, ['permissions: yolo']));
      const r = f.ok(['agent', 'spawn', 'implementer', '010', '-q'], { FAKE_AGENT_DENY: JSON.stringify(['touch /x']) });
      expect(r.stdout).toBe('needs_review\n');
      expect(r.stderr).toBe(
        block([
          `${title} refused a tool call (permissions: yolo):`,
          line,
          `${title} refused it even with permissions: yolo: its own configuration denies it.`,
        ]),
      );
    },
  );

  it('nothing refused: no denial text at all, and data.denials is empty', () => {
    const f = fixture(configFor('copilot'));
    const r = f.ok(['agent', 'spawn', 'implementer', '010']);
    expect(r.stdout).toBe('needs_review\n');
    expect(r.stderr).toContain('Task 010 is now needs_review');
    expect(r.stderr).not.toMatch(/refused|permissions: yolo|declare/);
    const j = f.ok(['agent', 'spawn', 'implementer', '020', '--json', '-q']);
    expect(j.json?.data).toMatchObject({ task: '020', status: 'needs_review', denials: [] });
    expect(j.stderr).toBe('');
  });
});

describe('a worker that fails after a refusal: the error carries the refused calls', () => {
  it(
    'claude: exit 5, the hint names the refused call and how to allow it; --json details.denials; only the ' +
      'session recorded',
    () => {
      const f = fixture(configFor('claude'));
      const before = f.repo.snapshot();
      const r = f.sow(['agent', 'spawn', 'implementer', '010'], {
        FAKE_AGENT_FAIL: '1',
        FAKE_AGENT_DENY: JSON.stringify(['touch /x']),
      });
      expect(r.code, show(r)).toBe(5);
      expect(r.stdout).toBe('');
      const events = join(
        f.dir(),
        f.outputs().find((n) => n.endsWith('-spawn.jsonl'))!,
      );
      const advice = [
        'Claude Code refused a tool call (permissions: safe):',
        '  Bash: touch /x',
        ...declareTouch,
        ...yoloAdvice('claude', f.world.configPath),
      ];
      const error = r.stderr.slice(r.stderr.indexOf('error: '));
      expect(error).toBe(
        `error: claude exited with code 1\nhint: its last error output:\nclaude: API Error: 529 overloaded ` +
          `(fake)\n${block(advice)}its events are in ${events}; the session is kept, so you can resume it\n`,
      );
      expect(count(r.stderr, 'refused a tool call'), 'said once, in the error').toBe(1);
      // The session was recorded before the worker started; nothing else changed.
      expect(f.task()).toMatchObject({ status: 'in_progress', outputs: [] });
      const after = f.repo.snapshot();
      expect([...after.keys()].filter((k) => after.get(k) !== before.get(k)).sort()).toEqual(
        [PROJECT, taskFile('010')].sort(),
      );

      const j = f.sow(['agent', 'spawn', 'implementer', '020', '--json', '-q'], {
        FAKE_AGENT_FAIL: '1',
        FAKE_AGENT_DENY: JSON.stringify(['touch /x']),
      });
      expect(j.code, show(j)).toBe(5);
      expect(j.json?.ok).toBe(false);
      expect(j.json?.error).toMatchObject({ code: 'WORKER_FAILED', message: 'claude exited with code 1' });
      expect((j.json?.error as any).details).toEqual({
        denials: [{ tool: 'Bash', input: 'touch /x', kind: 'command' }],
      });
      expect(j.json?.error?.hint).toContain(block(advice));
      expect(j.stderr).toBe('');
    },
  );

  it('codex (refusal read from its stderr) fails the same way; a failure without a refusal has no denials', () => {
    const f = fixture(configFor('codex'));
    const j = f.sow(['agent', 'spawn', 'implementer', '010', '--json', '-q'], {
      FAKE_AGENT_FAIL: '2',
      FAKE_AGENT_DENY: JSON.stringify(['touch /x']),
    });
    expect(j.code, show(j)).toBe(5);
    expect(j.json?.error).toMatchObject({ code: 'WORKER_FAILED', message: 'codex exited with code 2' });
    expect((j.json?.error as any).details).toEqual({
      denials: [{ tool: 'shell', input: null, kind: 'command', reason: CODEX_REASON }],
    });
    expect(j.json?.error?.hint).toContain('Codex CLI refused a tool call (permissions: safe):\n');
    expect(j.json?.error?.hint).toContain('Codex runs every command in its workspace-write sandbox');

    const plain = f.sow(['agent', 'spawn', 'implementer', '020', '--json', '-q'], { FAKE_AGENT_FAIL: '2' });
    expect(plain.code, show(plain)).toBe(5);
    expect(plain.json?.error?.code).toBe('WORKER_FAILED');
    expect((plain.json?.error as any).details).toBeUndefined();
    expect(plain.json?.error?.hint).not.toMatch(/refused|permissions: yolo/);
  });
});

describe('--verbose says what each CLI may do under safe', () => {
  /** How --verbose shows a command line: a word with anything but [\w@%+=:,./-] is JSON-quoted. */
  const shown = (argv: string[]) => argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a))).join(' ');
  // Claude Code (two notes) and Copilot CLI (the check it may not match); every CLI: src/app/agent-permissions.test.ts.
  it.each(CLIS.filter((c) => c.type === 'claude' || c.type === 'copilot'))('$type', (c) => {
    const f = fixture(configFor(c.type, ['permissions: safe']));
    const r = f.ok(['agent', 'spawn', 'implementer', '010', '--verbose'], SILENT);
    expect(r.stderr).toMatch(/^ {2}Settings: permissions=safe \(from config file\)$/m);
    const ctx = { sid: f.task().session_id, root: f.root, dir: f.dir() };
    expect(notesOf(r.stderr)).toEqual(c.notes(ctx));
    const argv = c.safe(ctx);
    expect(f.call().argv).toEqual(argv);
    expect(r.stderr).toContain(`\n  Command: ${c.cli} ${shown(argv)}\n`);
  });
});

describe('an invalid .sow/config.yaml stops spawn and resume before anything starts', () => {
  it('spawn: exit 4 naming the field, no CLI run, the state byte-identical; resume the same', () => {
    const f = fixture(configFor('claude'));
    f.ok(['agent', 'spawn', 'implementer', '010', '-q']);
    expect(f.task()).toMatchObject({ status: 'needs_review', iteration: 1 });
    f.repo.write('.sow/config.yaml', 'checks:\n  - name: unit\n    runn: npm test\n');
    const before = f.repo.snapshot();
    const spawn = f.sow(['agent', 'spawn', 'implementer', '020']);
    expect(spawn.code, show(spawn)).toBe(4);
    expect(spawn.stderr).toContain("error: .sow/config.yaml: checks.0.runn: unknown key 'runn'; did you mean 'run'?");
    const resume = f.sow(['agent', 'resume', '010', 'Once more']);
    expect(resume.code, show(resume)).toBe(4);
    expect(f.repo.snapshot(), 'state byte-identical').toEqual(before);
    expect(f.world.calls(), 'only the first spawn ran a CLI').toHaveLength(1);
    // Fixed, both work (nothing was left half-started).
    f.repo.write('.sow/config.yaml', REPO_CONFIG);
    f.ok(['agent', 'spawn', 'implementer', '020', '-q']);
    f.ok(['agent', 'resume', '010', 'Once more', '-q']);
    expect(f.task()).toMatchObject({ status: 'needs_review', iteration: 2 });
  });
});
