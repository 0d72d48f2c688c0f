/**
 * Worker permissions in-process, for every agent CLI (docs/decisions/0017-permission-profiles.md):
 * `agent spawn` and `agent resume` called with a context whose PATH has the strict fake agent CLIs
 * of test/fakes (they refuse a flag the real CLI lacks), a user configuration binding the executor
 * `impl` of each type to the implementer, and a repository declaring two checks. The whole chain
 * below the command line: the configuration read, the profile chosen, the checks granted, the
 * permission files written beside the prompt, the argv and environment the CLI received, the
 * refusals read from what it printed, and the lines said on stderr (through `say`).
 *
 * test/e2e/permissions.test.ts keeps one or two CLIs per rule through the built binary (the fake
 * calling `sow` back, stderr as printed, exit codes, `--json`).
 */
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { refused, taskFile, toExecuting, worlds, type World } from '../../test/inproc.js';
import { fakes, type FakeCall, type Fakes } from '../../test/inproc-fakes.js';
import { showConfig } from './config.js';
import { spawnAgent } from './workers/spawn.js';
import { resumeAgent } from './workers/resume.js';
import type { AgentRunOptions } from './workers/types.js';
import { agentReport } from './report.js';
import { CLAUDE_OWN_SETTINGS, CLAUDE_SETTINGS_NOTE } from '../../test/executor-cases.js';
import {
  CLIS,
  CODEX_REASON,
  DENIALS,
  expectPermissionFiles,
  GEMINI_POLICY,
  openCodeEnv,
  REPO_CONFIG,
  yoloAdvice,
} from '../../test/permission-cases.js';

const IS_ROOT = process.getuid?.() === 0;
/** Where a worker's events, prompts and permission files go: sow's runtime folder, never state. */
const OUTPUTS = '.git/sow/agent-outputs';

const world = worlds({
  executing: async (w) => {
    await toExecuting(w);
    w.write('.sow/config.yaml', REPO_CONFIG);
  },
});

/** A config file with one executor `impl` of this type (with these settings lines) for the implementer. */
const configFor = (type: string, settings: string[] = []) =>
  `agents:\n  executors:\n    impl:\n      ` +
  `type: ${type}\n${settings.length ? `      settings:\n${settings.map((s) => `        ${s}\n`).join('')}` : ''}  ` +
  `bindings:\n    implementer: impl\n`;

interface Setup {
  w: World;
  f: Fakes;
  /** What the use cases said on stderr. */
  lines: string[];
  /** The user's context with the fakes on its PATH; the checks are allowed (allowing is tested in check-allowance). */
  ctx(env?: Record<string, string>): ReturnType<World['ctx']>;
  opts(more?: Partial<AgentRunOptions>): AgentRunOptions;
  /** The task's runtime folder. */
  dir: string;
  /** The files in it that are neither the prompt nor the events. */
  permissionFiles(): string[];
  call(): FakeCall;
  sid(): string;
}

async function setup(config?: string): Promise<Setup> {
  const w = await world('executing');
  const f = fakes();
  if (config !== undefined) f.writeConfig(config);
  const lines: string[] = [];
  const dir = join(w.dir, OUTPUTS, '010');
  return {
    w,
    f,
    lines,
    ctx: (env = {}) => w.ctx({ ...f.env, SOW_ALLOW_CHECKS: '1', ...env }),
    opts: (more = {}) => ({ verbose: false, quiet: false, say: (l) => lines.push(l), ...more }),
    dir,
    permissionFiles: () =>
      (existsSync(dir) ? readdirSync(dir).sort() : []).filter(
        (n) => !/-(spawn|resume)\.(prompt\.md|jsonl|events\.jsonl)$/.test(n),
      ),
    call() {
      const calls = f.calls();
      expect(calls, 'one run of the fake CLI').toHaveLength(1);
      return calls[0]!;
    },
    sid: () => w.yaml(taskFile('010')).session_id,
  };
}

// ---------------------------------------------------------------------------------------------
// What each CLI gets.
// ---------------------------------------------------------------------------------------------

const notesOf = (lines: string[]) =>
  lines.filter((l) => l.startsWith('  Note: ')).map((l) => l.slice('  Note: '.length));
/** How --verbose shows a command line: a word with anything but [\w@%+=:,./-] is JSON-quoted. */
const shown = (argv: string[]) => argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a))).join(' ');

describe('the default is safe: each CLI gets its own flags, granting sow and the declared checks', () => {
  it.each(CLIS)('$type: its argv, its permission files, what --verbose says', async (c) => {
    const s = await setup(configFor(c.type));
    const r = await spawnAgent(s.ctx(), 'implementer', '010', s.opts({ verbose: true }));
    expect(r.status).toBe('in_progress');
    expect(s.lines).toContain('  Settings: permissions=safe (default)');
    expect(s.lines.join('\n'), 'nothing was refused').not.toContain('refused');
    const call = s.call();
    expect(call.cli).toBe(c.cli);
    const ctx = { sid: s.sid(), root: s.w.dir, dir: s.dir };
    expect(call.argv).toEqual(c.safe(ctx));
    expect(notesOf(s.lines)).toEqual(c.notes(ctx));
    expect(s.lines).toContain(`  Command: ${c.cli} ${shown(c.safe(ctx))}`);

    // The permission files are written beside the prompt, only for the CLI that reads them.
    expectPermissionFiles(c.type, s.permissionFiles(), s.dir, call);
  });

  it('permissions: safe set in the file: said to come from the config file', async () => {
    const s = await setup(configFor('codex', ['permissions: safe']));
    await spawnAgent(s.ctx(), 'implementer', '010', s.opts({ verbose: true }));
    expect(s.lines).toContain('  Settings: permissions=safe (from config file)');
    expect(s.call().argv).toEqual(CLIS[2]!.safe({ sid: '', root: s.w.dir, dir: '' }));
  });

  it('without declared checks only sow is granted; the checks are read again at every run (resume)', async () => {
    const s = await setup(configFor('gemini'));
    rmSync(join(s.w.dir, '.sow/config.yaml'));
    await spawnAgent(s.ctx(), 'implementer', '010', s.opts({ quiet: true }));
    const policy = join(s.dir, 'gemini-sow-policy.toml');
    const sowOnly = GEMINI_POLICY.slice(
      0,
      GEMINI_POLICY.indexOf('[[rule]]\ntoolName = "run_shell_command"\n# npm test'),
    );
    expect(readFileSync(policy, 'utf8')).toBe(sowOnly.slice(0, -1));
    await agentReport(s.w.as('implementer-1', '010'), 'needs_review', undefined);
    s.w.write('.sow/config.yaml', 'checks:\n  - name: unit\n    run: npm test\n');
    await resumeAgent(s.ctx(), { kind: 'task', id: '010' }, 'Run the tests.', s.opts({ quiet: true }));
    const calls = s.f.calls();
    expect(calls).toHaveLength(2);
    expect(calls[1]!.argv).toEqual([
      '--output-format',
      'stream-json',
      '--resume',
      s.sid(),
      '--approval-mode',
      'auto_edit',
      '--policy',
      policy,
    ]);
    expect(readFileSync(policy, 'utf8')).toBe(
      GEMINI_POLICY.slice(0, GEMINI_POLICY.indexOf('[[rule]]\ntoolName = "run_shell_command"\n# node')).slice(0, -1),
    );

    const g = await setup(configFor('claude'));
    rmSync(join(g.w.dir, '.sow/config.yaml'));
    await spawnAgent(g.ctx(), 'implementer', '010', g.opts({ verbose: true }));
    expect(g.call().argv).toEqual([
      '--print',
      '--output-format',
      'stream-json',
      '--verbose',
      '--session-id',
      g.sid(),
      ...CLAUDE_OWN_SETTINGS,
      '--permission-mode',
      'acceptEdits',
      '--allowedTools',
      'Bash(sow *)',
    ]);
    expect(notesOf(g.lines)).toEqual([
      'permissions=safe: Claude Code may edit files in the repository (acceptEdits) and run `sow`; it refuses ' +
        'anything else',
      CLAUDE_SETTINGS_NOTE,
    ]);
  });
});

describe('permissions: yolo and yolo_mode: true give each CLI its skip-all flag', () => {
  // (yolo_mode: true for every CLI, with a model: agent-executors.test.ts.)
  it.each(CLIS)('$type with permissions: yolo', async (c) => {
    const s = await setup(configFor(c.type, ['permissions: yolo']));
    await spawnAgent(s.ctx(), 'implementer', '010', s.opts({ verbose: true }));
    expect(s.lines).toContain('  Settings: permissions=yolo (from config file)');
    const call = s.call();
    expect(call.cli).toBe(c.cli);
    expect(call.argv).toEqual(c.yolo({ sid: s.sid(), root: s.w.dir, dir: s.dir }));
    expect(s.permissionFiles(), 'no permission files').toEqual([]);
    expect(openCodeEnv(call)).toEqual([]);
    // Claude Code refuses its skip-all flag as root unless IS_SANDBOX=1: sow sets it then, and says so.
    const root = c.type === 'claude' && IS_ROOT;
    expect(call.env['IS_SANDBOX']).toBe(root ? '1' : undefined);
    expect(notesOf(s.lines)).toEqual(
      root
        ? ['running as root: Claude Code accepts --dangerously-skip-permissions only with IS_SANDBOX=1, so sow sets it']
        : [],
    );
  });

  it('permissions and yolo_mode that agree are accepted; yolo_mode: false is safe', async () => {
    const s = await setup(configFor('codex', ['permissions: yolo', 'yolo_mode: true']));
    await spawnAgent(s.ctx(), 'implementer', '010', s.opts({ quiet: true }));
    expect(s.call().argv).toEqual(CLIS[2]!.yolo({ sid: '', root: s.w.dir, dir: '' }));
    const g = await setup(configFor('codex', ['yolo_mode: false']));
    await spawnAgent(g.ctx(), 'implementer', '010', g.opts({ verbose: true }));
    expect(g.lines).toContain('  Settings: permissions=safe (from config file)');
    expect(g.call().argv).toEqual(CLIS[2]!.safe({ sid: '', root: g.w.dir, dir: '' }));
  });

  it.each([
    [
      ['permissions: safe', 'yolo_mode: true'],
      'permissions: safe and yolo_mode: true disagree; keep one (yolo_mode: true is permissions: yolo)',
      'safe',
    ],
    [
      ['permissions: yolo', 'yolo_mode: false'],
      'permissions: yolo and yolo_mode: false disagree; keep one (yolo_mode: true is permissions: yolo)',
      'yolo',
    ],
  ])(
    '%j disagree: CONFIG_INVALID (exit 4) naming the field, nothing started; config show says so',
    async (settings, problem, shownProfile) => {
      const s = await setup(configFor('claude', settings));
      const e = await refused(s.w, () => spawnAgent(s.ctx(), 'implementer', '010', s.opts()), 'CONFIG_INVALID', 4);
      expect(e.message).toBe(`${s.f.configPath}: agents.executors.impl.settings: ${problem}`);
      expect(e.hint).toBe(
        "fix it with 'sow config edit', check it with 'sow config validate', or start over with 'sow config reset'",
      );
      expect(e.details).toEqual({ file: s.f.configPath, field: 'agents.executors.impl.settings' });
      expect(s.f.calls(), 'no CLI started').toEqual([]);
      expect(existsSync(join(s.w.dir, OUTPUTS)), 'no worker files').toBe(false);
      // config show does not pick one silently.
      expect((await showConfig(s.ctx())).text).toMatch(
        new RegExp(
          `^ {8}permissions: ${shownProfile} {2}# \\(from config file\\); but ${settings[1]!} disagrees, so ` +
            `workers will not start: run 'sow config validate'$`,
          'm',
        ),
      );
    },
  );
});

// ---------------------------------------------------------------------------------------------
// Refused tool calls.
// ---------------------------------------------------------------------------------------------

const count = (lines: string[], needle: string) => lines.join('\n').split(needle).length - 1;

describe('refused tool calls, read from what each CLI printed, with how to allow them', () => {
  it.each(DENIALS)('$type (safe)', async (c) => {
    const s = await setup(configFor(c.type));
    const r = await spawnAgent(s.ctx({ FAKE_AGENT_DENY: JSON.stringify(c.deny) }), 'implementer', '010', s.opts());
    expect(r.denials).toEqual(c.denials);
    // Said after the progress view, before the outcome, once.
    const advice = [...c.advice, ...yoloAdvice(c.type, s.f.configPath)];
    const at = s.lines.indexOf('Task 010 is now in_progress');
    expect(at, s.lines.join('\n')).toBeGreaterThan(advice.length);
    expect(s.lines.slice(at - advice.length, at), s.lines.join('\n')).toEqual(advice);
    expect(count(s.lines, 'refused'), 'said once').toBe(count(advice, 'refused'));
  });

  it(
    'codex with permissions: yolo: ' + 'its own configuration denies it (no advice to declare or to set yolo)',
    async () => {
      const s = await setup(configFor('codex', ['permissions: yolo']));
      const r = await spawnAgent(
        s.ctx({ FAKE_AGENT_DENY: JSON.stringify(['touch /x']) }),
        'implementer',
        '010',
        s.opts({ quiet: true }),
      );
      expect(r.denials).toEqual([{ tool: 'shell', input: null, kind: 'command', reason: CODEX_REASON }]);
      expect(s.lines.filter((l) => !l.startsWith('Warning: '))).toEqual([
        'Codex CLI refused a tool call (permissions: yolo):',
        `  shell: (a command; codex does not say which) — ${CODEX_REASON}`,
        'Codex CLI refused it even with permissions: yolo: its own configuration denies it.',
      ]);
    },
  );
});
