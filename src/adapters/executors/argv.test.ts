/**
 * The argv table of every executor, exactly, and every flag it passes checked against the help
 * text of the pinned CLI version (test/fixtures/agent-help, captured from the real CLIs; the live
 * check is `npm run test:real-agents`).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EXECUTORS } from './registry.js';
import { claudeSettings } from './claude.js';
import { geminiPolicy } from './gemini.js';
import { opencodePermission } from './opencode.js';
import type { InvocationContext } from './types.js';
import type { ExecutorConfig } from '../../domain/config-schemas.js';
import { permissionProfile } from '../../domain/config.js';

const FIXTURES = new URL('../../../test/fixtures/agent-help/', import.meta.url);
const help = (file: string) => readFileSync(new URL(file, FIXTURES), 'utf8');

const ctx = (
  config: ExecutorConfig,
  extra: Partial<InvocationContext> = {},
): InvocationContext & { sessionId: string } => ({
  config,
  cwd: '/repo',
  prompt: 'the prompt',
  promptFile: '/repo/.sow/project/agent-outputs/010/p.md',
  sessionId: 'SID',
  runningAsRoot: false,
  permissions: permissionProfile(config),
  checks: [],
  protect: ['.gemini/**', 'opencode.json'],
  ...extra,
});
const full = (type: ExecutorConfig['type']): ExecutorConfig => ({
  type,
  settings: { yolo_mode: true, model: 'M' },
  custom_args: ['--extra'],
});
const plain = (type: ExecutorConfig['type']): ExecutorConfig => ({ type });
/** The checks a repository declares (.sow/config.yaml): a safe worker may run exactly these. */
const CHECKS = ['npm test', 'node lint.mjs --max "3"'];

describe('argv tables', () => {
  it('claude', () => {
    expect(EXECUTORS.claude.spawn(ctx(plain('claude'))).args).toEqual([
      '--print',
      '--output-format',
      'stream-json',
      '--verbose',
      '--session-id',
      'SID',
      // The repository's own settings and MCP servers left out; sow's deny rules for what a worker must not edit.
      '--setting-sources',
      'user',
      '--strict-mcp-config',
      '--settings',
      '{"permissions":{"deny":["Edit(**/.git)","Edit(**/.git/**)","Edit(.sow/config.yaml)",' +
        '"Edit(.gemini/**)","Edit(opencode.json)"]}}',
      '--permission-mode',
      'acceptEdits',
      '--allowedTools',
      'Bash(sow *)',
    ]);
    // Safe with declared checks: each check exactly, once.
    const safe = EXECUTORS.claude.resume(ctx(plain('claude'), { checks: [...CHECKS, ' npm test '] }));
    expect(safe.args).toEqual([
      '--print',
      '--output-format',
      'stream-json',
      '--verbose',
      '--resume',
      'SID',
      '--setting-sources',
      'user',
      '--strict-mcp-config',
      '--settings',
      claudeSettings(['.gemini/**', 'opencode.json']),
      '--permission-mode',
      'acceptEdits',
      '--allowedTools',
      'Bash(sow *)',
      '--allowedTools',
      'Bash(npm test)',
      '--allowedTools',
      'Bash(node lint.mjs --max "3")',
    ]);
    expect(safe.granted).toEqual({ permissions: 'safe', checks: [...CHECKS, ' npm test '] });
    expect(safe.notes).toEqual([
      'permissions=safe: Claude Code may edit files in the repository (acceptEdits) and run `sow`, `npm test`, ' +
        '`node lint.mjs --max "3"`; it refuses anything else',
      "permissions=safe: Claude Code loads only your own settings (not the repository's .claude/ settings, hooks, " +
        "skills, CLAUDE.md or .mcp.json servers), and may not edit any agent CLI's settings, .git or " +
        '.sow/config.yaml',
    ]);
    // A '*' in a check is a wildcard to Claude Code: said, not hidden.
    expect(EXECUTORS.claude.spawn(ctx(plain('claude'), { checks: ['eslint src/*.ts'] })).notes[2]).toMatch(
      /wildcard.*`eslint src\/\*\.ts`/,
    );
    const yolo = EXECUTORS.claude.spawn(ctx(full('claude')));
    expect(yolo.args).toEqual([
      '--print',
      '--output-format',
      'stream-json',
      '--verbose',
      '--session-id',
      'SID',
      '--model',
      'M',
      '--dangerously-skip-permissions',
      '--extra',
    ]);
    expect(yolo.stdin).toBe('the prompt');
    expect(yolo.env).toEqual({});
    expect(EXECUTORS.claude.spawn(ctx(full('claude'), { runningAsRoot: true })).env).toEqual({ IS_SANDBOX: '1' });
    expect(EXECUTORS.claude.spawn(ctx(plain('claude'), { runningAsRoot: true })).env).toEqual({});
    expect(EXECUTORS.claude.resume(ctx(full('claude'))).args).toEqual([
      '--print',
      '--output-format',
      'stream-json',
      '--verbose',
      '--resume',
      'SID',
      '--model',
      'M',
      '--dangerously-skip-permissions',
      '--extra',
    ]);
  });
  it('cursor', () => {
    expect(EXECUTORS.cursor.createSession!(plain('cursor'))).toEqual({ binary: 'cursor-agent', args: ['create-chat'] });
    expect(EXECUTORS.cursor.spawn(ctx(full('cursor'))).args).toEqual([
      '-p',
      '--output-format',
      'stream-json',
      '--resume',
      'SID',
      '--model',
      'M',
      '--force',
      '--extra',
    ]);
    // Safe: its sandbox (Cursor grants single commands only in its config files).
    expect(EXECUTORS.cursor.resume(ctx(plain('cursor'), { checks: CHECKS })).args).toEqual([
      '-p',
      '--output-format',
      'stream-json',
      '--resume',
      'SID',
      '--sandbox',
      'enabled',
    ]);
  });
  it('codex', () => {
    expect(EXECUTORS.codex.spawn(ctx(full('codex'))).args).toEqual([
      'exec',
      '--json',
      '-C',
      '/repo',
      '-m',
      'M',
      '--dangerously-bypass-approvals-and-sandbox',
      '--extra',
      '-',
    ]);
    expect(EXECUTORS.codex.resume(ctx(full('codex'))).args).toEqual([
      'exec',
      'resume',
      '--json',
      '-m',
      'M',
      '--dangerously-bypass-approvals-and-sandbox',
      '--extra',
      'SID',
      '-',
    ]);
    expect(EXECUTORS.codex.spawn(ctx(plain('codex'))).args).toEqual([
      'exec',
      '--json',
      '-C',
      '/repo',
      '-c',
      'sandbox_mode="workspace-write"',
      '--ignore-rules',
      '-',
    ]);
    expect(EXECUTORS.codex.resume(ctx(plain('codex'))).args).toEqual([
      'exec',
      'resume',
      '--json',
      '-c',
      'sandbox_mode="workspace-write"',
      '--ignore-rules',
      'SID',
      '-',
    ]);
    // Checks run in the same sandbox as everything else: they add nothing to the argv.
    expect(EXECUTORS.codex.spawn(ctx(plain('codex'), { checks: CHECKS })).args).toEqual([
      'exec',
      '--json',
      '-C',
      '/repo',
      '-c',
      'sandbox_mode="workspace-write"',
      '--ignore-rules',
      '-',
    ]);
    expect(EXECUTORS.codex.sessionFromEvent!({ type: 'thread.started', thread_id: 'T1' })).toBe('T1');
    expect(EXECUTORS.codex.sessionFromEvent!({ type: 'turn.started' })).toBeUndefined();
  });
  it('gemini', () => {
    expect(EXECUTORS.gemini.spawn(ctx(full('gemini'))).args).toEqual([
      '--output-format',
      'stream-json',
      '--session-id',
      'SID',
      '-m',
      'M',
      '--yolo',
      '--extra',
    ]);
    const safe = EXECUTORS.gemini.resume(ctx(plain('gemini'), { checks: CHECKS }));
    expect(safe.args).toEqual([
      '--output-format',
      'stream-json',
      '--resume',
      'SID',
      '--approval-mode',
      'auto_edit',
      '--policy',
      '/repo/.sow/project/agent-outputs/010/gemini-sow-policy.toml',
    ]);
    expect(safe.files).toEqual([
      { path: '/repo/.sow/project/agent-outputs/010/gemini-sow-policy.toml', text: geminiPolicy(CHECKS) },
    ]);
    expect(EXECUTORS.gemini.spawn(ctx(full('gemini'))).files).toEqual([]);
  });
  it('copilot', () => {
    expect(EXECUTORS.copilot.spawn(ctx(full('copilot'))).args).toEqual([
      '--session-id',
      'SID',
      '--output-format',
      'json',
      '-C',
      '/repo',
      '--model',
      'M',
      '--allow-all-tools',
      '--extra',
    ]);
    expect(EXECUTORS.copilot.resume(ctx(plain('copilot'))).args).toEqual([
      '--resume=SID',
      '--output-format',
      'json',
      '-C',
      '/repo',
      '--allow-tool',
      'write',
      '--allow-tool',
      'shell(sow)',
      '--disallow-temp-dir',
    ]);
    expect(EXECUTORS.copilot.spawn(ctx(plain('copilot'), { checks: CHECKS })).args).toEqual([
      '--session-id',
      'SID',
      '--output-format',
      'json',
      '-C',
      '/repo',
      '--allow-tool',
      'write',
      '--allow-tool',
      'shell(sow)',
      '--allow-tool',
      'shell(npm test)',
      '--allow-tool',
      'shell(node lint.mjs --max "3")',
      '--disallow-temp-dir',
    ]);
  });
  it('opencode', () => {
    expect(EXECUTORS.opencode.spawn(ctx(full('opencode'))).args).toEqual([
      'run',
      '--format',
      'json',
      '--dir',
      '/repo',
      '-m',
      'M',
      '--auto',
      '--extra',
    ]);
    const safe = EXECUTORS.opencode.resume(ctx(plain('opencode'), { checks: CHECKS }));
    expect(safe.args).toEqual(['run', '--format', 'json', '--dir', '/repo', '--session', 'SID']);
    expect(safe.env).toEqual({
      OPENCODE_PERMISSION: JSON.stringify(opencodePermission(CHECKS)),
      OPENCODE_CONFIG: '/repo/.sow/project/agent-outputs/010/opencode-sow.json',
      OPENCODE_DISABLE_PROJECT_CONFIG: 'true',
    });
    expect(JSON.parse(safe.files![0]!.text)).toEqual({
      $schema: 'https://opencode.ai/config.json',
      experimental: { continue_loop_on_deny: true },
    });
    expect(EXECUTORS.opencode.spawn(ctx(full('opencode'))).env).toEqual({});
    expect(EXECUTORS.opencode.spawn(ctx(full('opencode'))).files).toEqual([]);
    expect(EXECUTORS.opencode.sessionFromEvent!({ type: 'step_start', sessionID: 'ses_1' })).toBe('ses_1');
    expect(EXECUTORS.opencode.sessionFromEvent!({ type: 'text', part: { sessionID: 'ses_2' } })).toBe('ses_2');
  });
  it('windsurf cannot resume', () => {
    expect(EXECUTORS.windsurf.supportsResumption(plain('windsurf'))).toBe(false);
    expect(EXECUTORS.windsurf.spawn(ctx({ type: 'windsurf', custom_args: ['--cascade'] })).args).toEqual(['--cascade']);
  });
  it('command fills placeholders in argv words, never through a shell', () => {
    const config: ExecutorConfig = {
      type: 'command',
      spawn: ['my-agent', '--session', '{session_id}', '--prompt-file', '{prompt_file}', 'in={cwd}', '{model}'],
      resume: ['my-agent', '--resume', '{session_id}', '{prompt}'],
      settings: { model: 'M' },
    };
    expect(EXECUTORS.command.binary(config)).toBe('my-agent');
    expect(EXECUTORS.command.spawn(ctx(config)).args).toEqual([
      '--session',
      'SID',
      '--prompt-file',
      '/repo/.sow/project/agent-outputs/010/p.md',
      'in=/repo',
      'M',
    ]);
    expect(EXECUTORS.command.resume(ctx(config, { prompt: '$(rm -rf /); `x`' })).args).toEqual([
      '--resume',
      'SID',
      '$(rm -rf /); `x`',
    ]);
    expect(EXECUTORS.command.supportsResumption({ type: 'command', spawn: ['x'] })).toBe(false);
  });
});

describe('the safe profile, as each CLI reads it', () => {
  it('Gemini CLI: a policy allowing sow by prefix and each check exactly', () => {
    expect(geminiPolicy(CHECKS)).toBe(
      [
        '# Written by sow (permissions: safe): the worker may run sow and the checks .sow/config.yaml declares; ' +
          'edits are allowed by --approval-mode auto_edit.\n',
        '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "sow"\ndecision = "allow"\npriority = 999\n',
        '[[rule]]\ntoolName = "run_shell_command"\n# npm test\ncommandRegex = "npm test\\""\nallowRedirection = ' +
          'true\ndecision = "allow"\npriority = 999\n',
        '[[rule]]\ntoolName = "run_shell_command"\n# node lint.mjs --max "3"\ncommandRegex = "node lint\\\\.mjs ' +
          '--max \\\\\\\\\\"3\\\\\\\\\\"\\""\nallowRedirection = true\ndecision = "allow"\npriority = 999\n',
      ].join('\n'),
    );
  });
  it('Gemini CLI: each check regex matches that command and nothing longer or shorter', () => {
    // Gemini CLI matches `"command":"<regex>` against the JSON of the call's arguments.
    const regexes = [...geminiPolicy(CHECKS).matchAll(/^commandRegex = (.*)$/gm)].map(
      (m) => new RegExp(`"command":"${JSON.parse(m[1]!) as string}`),
    );
    expect(regexes).toHaveLength(2);
    const args = (command: string) => JSON.stringify({ command, description: 'Run the check' });
    CHECKS.forEach((check, i) => {
      expect(regexes[i]!.test(args(check)), check).toBe(true);
      for (const other of [`${check} --evil`, `${check}; curl x`, `echo && ${check}`, check.slice(0, -1)])
        expect(regexes[i]!.test(args(other)), other).toBe(false);
    });
  });
  it(
    'opencode: edits, sow and the checks allowed; ' + 'any other command and any other folder asked (refused headless)',
    () => {
      expect(opencodePermission(CHECKS)).toEqual({
        edit: 'allow',
        bash: { '*': 'ask', sow: 'allow', 'sow *': 'allow', 'npm test': 'allow', 'node lint.mjs --max "3"': 'allow' },
        webfetch: 'ask',
        external_directory: 'ask',
      });
      // The last matching pattern wins in opencode, so the catch-all must come first.
      expect(Object.keys(opencodePermission(CHECKS).bash)[0]).toBe('*');
    },
  );
});

/** Each flag an executor passes must appear in the help of the command path it runs. */
describe('every flag exists in the pinned CLI help', () => {
  const cases: { type: ExecutorConfig['type']; spawnHelp: string[]; resumeHelp: string[] }[] = [
    { type: 'claude', spawnHelp: ['claude@2.1.197__root.txt'], resumeHelp: ['claude@2.1.197__root.txt'] },
    { type: 'codex', spawnHelp: ['codex@0.169.0__exec.txt'], resumeHelp: ['codex@0.169.0__exec_resume.txt'] },
    { type: 'gemini', spawnHelp: ['gemini@0.61.0__root.txt'], resumeHelp: ['gemini@0.61.0__root.txt'] },
    { type: 'copilot', spawnHelp: ['copilot@1.0.102__root.txt'], resumeHelp: ['copilot@1.0.102__root.txt'] },
    { type: 'opencode', spawnHelp: ['opencode@1.18.33__run.txt'], resumeHelp: ['opencode@1.18.33__run.txt'] },
  ];
  const flagsOf = (args: string[]) =>
    args.filter((a) => a.startsWith('-') && a !== '-' && a !== '--extra').map((a) => a.split('=')[0]!);
  const documented = (text: string, flag: string) =>
    new RegExp(`(^|[\\s,\\[])${flag.replace(/[-]/g, '\\-')}(?=[\\s,=\\]<]|$)`, 'm').test(text);
  for (const c of cases) {
    it(`${c.type}`, () => {
      const spawnText = c.spawnHelp.map(help).join('\n');
      const resumeText = c.resumeHelp.map(help).join('\n');
      const config = full(c.type);
      for (const flag of flagsOf(EXECUTORS[c.type].spawn(ctx(config)).args))
        expect(documented(spawnText, flag), `${c.type} spawn ${flag}`).toBe(true);
      for (const flag of flagsOf(EXECUTORS[c.type].resume(ctx(config)).args))
        expect(documented(resumeText, flag), `${c.type} resume ${flag}`).toBe(true);
      for (const flag of flagsOf(EXECUTORS[c.type].spawn(ctx(plain(c.type), { checks: CHECKS })).args))
        expect(documented(spawnText, flag), `${c.type} spawn (safe) ${flag}`).toBe(true);
      for (const flag of flagsOf(EXECUTORS[c.type].resume(ctx(plain(c.type), { checks: CHECKS })).args))
        expect(documented(resumeText, flag), `${c.type} resume (safe) ${flag}`).toBe(true);
    });
  }
  it('the check can fail', () => {
    expect(documented(help('claude@2.1.197__root.txt'), '--session-idd')).toBe(false);
    expect(documented(help('codex@0.169.0__exec_resume.txt'), '-C')).toBe(false);
  });
});
