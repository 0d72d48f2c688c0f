/**
 * What each agent CLI is given under each permission profile, for the checks the test repositories
 * declare (UNIT and LINT): its argv, the `Note:` lines of --verbose, Gemini's policy file and
 * opencode's settings, and the advice said for a refused call. One table for the in-process tests
 * (src/app/agent-permissions.test.ts, every CLI) and the end-to-end ones
 * (test/e2e/permissions.test.ts, one or two CLIs per rule through the built binary).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import {
  CLAUDE_OWN_SETTINGS,
  CLAUDE_SETTINGS_NOTE,
  CODEX_RULES_NOTE,
  OPENCODE_PROJECT_NOTE,
} from './executor-cases.js';

/** The checks the repository declares: a plain one, and one with quotes, dots and a '*'. */
export const UNIT = 'npm test';
export const LINT = 'node scripts/lint.mjs "src/*.ts"';
export const REPO_CONFIG = `checks:\n  - name: unit\n    run: ${UNIT}\n  - name: lint\n    run: '${LINT}'\n`;

export interface Ctx {
  sid: string;
  root: string;
  /** The task's runtime folder, where the permission files are written beside the prompt. */
  dir: string;
}

export interface Cli {
  type: string;
  cli: string;
  title: string;
  safe(c: Ctx): string[];
  yolo(c: Ctx): string[];
  /** The `Note:` lines of --verbose under safe. */
  notes(c: Ctx): string[];
}

export const LISTED = '`sow`, `npm test`, `node scripts/lint.mjs "src/*.ts"`';

export const CLIS: Cli[] = [
  {
    type: 'claude',
    cli: 'claude',
    title: 'Claude Code',
    safe: ({ sid }) => [
      '--print',
      '--output-format',
      'stream-json',
      '--verbose',
      '--session-id',
      sid,
      ...CLAUDE_OWN_SETTINGS,
      '--permission-mode',
      'acceptEdits',
      '--allowedTools',
      'Bash(sow *)',
      '--allowedTools',
      'Bash(npm test)',
      '--allowedTools',
      'Bash(node scripts/lint.mjs "src/*.ts")',
    ],
    yolo: ({ sid }) => [
      '--print',
      '--output-format',
      'stream-json',
      '--verbose',
      '--session-id',
      sid,
      '--dangerously-skip-permissions',
    ],
    notes: () => [
      `permissions=safe: Claude Code may edit files in the repository (acceptEdits) and run ${LISTED}; it refuses ` +
        `anything else`,
      CLAUDE_SETTINGS_NOTE,
      "Claude Code reads '*' in an allowed command as a wildcard, so the check(s) `node scripts/lint.mjs " +
        '"src/*.ts"` allow more than that exact command',
    ],
  },
  {
    type: 'cursor',
    cli: 'cursor-agent',
    title: 'Cursor CLI',
    safe: ({ sid }) => ['-p', '--output-format', 'stream-json', '--resume', sid, '--sandbox', 'enabled'],
    yolo: ({ sid }) => ['-p', '--output-format', 'stream-json', '--resume', sid, '--force'],
    notes: () => [
      'permissions=safe: Cursor runs shell commands in its sandbox (--sandbox enabled); a command it refuses can ' +
        'be allowed with "Shell(<command>)" in permissions.allow of ~/.cursor/cli-config.json',
    ],
  },
  {
    type: 'codex',
    cli: 'codex',
    title: 'Codex CLI',
    safe: ({ root }) => ['exec', '--json', '-C', root, '-c', 'sandbox_mode="workspace-write"', '--ignore-rules', '-'],
    yolo: ({ root }) => ['exec', '--json', '-C', root, '--dangerously-bypass-approvals-and-sandbox', '-'],
    notes: () => [
      'permissions=safe: Codex runs every command in its workspace-write sandbox (writes in the repository and ' +
        '/tmp only, no network), sow and the checks too',
      CODEX_RULES_NOTE,
    ],
  },
  {
    type: 'gemini',
    cli: 'gemini',
    title: 'Gemini CLI',
    safe: ({ sid, dir }) => [
      '--output-format',
      'stream-json',
      '--session-id',
      sid,
      '--approval-mode',
      'auto_edit',
      '--policy',
      join(dir, 'gemini-sow-policy.toml'),
    ],
    yolo: ({ sid }) => ['--output-format', 'stream-json', '--session-id', sid, '--yolo'],
    notes: ({ dir }) => [
      `permissions=safe: Gemini CLI may edit files (auto_edit) and run ${LISTED} ` +
        `(policy ${join(dir, 'gemini-sow-policy.toml')}); it refuses anything else`,
    ],
  },
  {
    type: 'copilot',
    cli: 'copilot',
    title: 'GitHub Copilot CLI',
    safe: ({ sid, root }) => [
      '--session-id',
      sid,
      '--output-format',
      'json',
      '-C',
      root,
      '--allow-tool',
      'write',
      '--allow-tool',
      'shell(sow)',
      '--allow-tool',
      'shell(npm test)',
      '--allow-tool',
      'shell(node scripts/lint.mjs "src/*.ts")',
      '--disallow-temp-dir',
    ],
    yolo: ({ sid, root }) => ['--session-id', sid, '--output-format', 'json', '-C', root, '--allow-all-tools'],
    notes: () => [
      `permissions=safe: Copilot CLI may edit files in the repository and run ${LISTED}; it refuses anything else`,
      // npm test is matched by name and subcommand; the node line is not.
      'Copilot CLI matches a command by its name (plus the first subcommand for tools such as npm or git), so it ' +
        'may refuse the check(s) `node scripts/lint.mjs "src/*.ts"`; a package script run as `npm run <script>` ' +
        'is matched',
    ],
  },
  {
    type: 'opencode',
    cli: 'opencode',
    title: 'opencode',
    safe: ({ root }) => ['run', '--format', 'json', '--dir', root],
    yolo: ({ root }) => ['run', '--format', 'json', '--dir', root, '--auto'],
    notes: ({ dir }) => [
      `permissions=safe: opencode may edit files in the repository and run ${LISTED} (OPENCODE_PERMISSION); it ` +
        `refuses anything else and goes on (${join(dir, 'opencode-sow.json')})`,
      OPENCODE_PROJECT_NOTE,
    ],
  },
];

/** The row of one executor type. */
export const cliOf = (type: string): Cli => CLIS.find((c) => c.type === type)!;

/** Gemini's policy file: `sow` by prefix, each check by an exact regex, nothing else. */
export const GEMINI_POLICY = [
  '# Written by sow (permissions: safe): the worker may run sow and the checks .sow/config.yaml declares; edits ' +
    'are allowed by --approval-mode auto_edit.',
  '',
  '[[rule]]',
  'toolName = "run_shell_command"',
  'commandPrefix = "sow"',
  'decision = "allow"',
  'priority = 999',
  '',
  '[[rule]]',
  'toolName = "run_shell_command"',
  '# npm test',
  String.raw`commandRegex = "npm test\""`,
  'allowRedirection = true',
  'decision = "allow"',
  'priority = 999',
  '',
  '[[rule]]',
  'toolName = "run_shell_command"',
  '# node scripts/lint.mjs "src/*.ts"',
  String.raw`commandRegex = "node scripts/lint\\.mjs \\\\\"src/\\*\\.ts\\\\\"\""`,
  'allowRedirection = true',
  'decision = "allow"',
  'priority = 999',
  '',
].join('\n');

/** The config file opencode gets through OPENCODE_CONFIG: go on after a refusal. */
export const OPENCODE_CONFIG =
  '{\n  "$schema": "https://opencode.ai/config.json",\n  "experimental": {\n    "continue_loop_on_deny": ' +
  'true\n  }\n}\n';

export const OPENCODE_PERMISSION = {
  edit: 'allow',
  bash: {
    '*': 'ask',
    sow: 'allow',
    'sow *': 'allow',
    'npm test': 'allow',
    'node scripts/lint.mjs "src/*.ts"': 'allow',
  },
  webfetch: 'ask',
  external_directory: 'ask',
};

/**
 * Each check rule of a Gemini policy matches exactly its declared command line as Gemini CLI sees
 * it: the regex (a TOML basic string, the same as a JSON string here) is matched after
 * `"command":"` in the JSON of the call's arguments.
 */
export function expectExactCheckRules(policy: string): void {
  const regexes = [...policy.matchAll(/^commandRegex = (".*")$/gm)].map((m) => new RegExp(`^(?:${JSON.parse(m[1]!)})`));
  expect(regexes).toHaveLength(2);
  const seen = (command: string) => JSON.stringify({ command }).slice('{"command":"'.length);
  const allowed = (command: string) => regexes.some((re) => re.test(seen(command)));
  expect(allowed(UNIT)).toBe(true);
  expect(allowed(LINT)).toBe(true);
  for (const other of [
    'npm testx',
    'npm test; rm -rf /',
    'npm test && curl example.com',
    'node scripts/lint.mjs "src/x.ts"',
    'node scripts/lintXmjs "src/*.ts"',
    `${LINT} && rm -rf /`,
    'npm',
  ]) {
    expect(allowed(other), other).toBe(false);
  }
}

/** The settings a run gives opencode through its environment. */
export const openCodeEnv = (call: { env: Record<string, string> }): string[] =>
  Object.keys(call.env).filter((k) => k.startsWith('OPENCODE_'));

/**
 * The permission files of a run of `type` — `files`, the names written beside its prompt in `dir`
 * — are those of the CLI that reads them, with the content it is given, and opencode's settings
 * reach opencode alone.
 */
export function expectPermissionFiles(
  type: string,
  files: readonly string[],
  dir: string,
  call: { env: Record<string, string> },
): void {
  expect(files).toEqual(
    type === 'gemini' ? ['gemini-sow-policy.toml'] : type === 'opencode' ? ['opencode-sow.json'] : [],
  );
  if (type === 'gemini') expect(readFileSync(join(dir, 'gemini-sow-policy.toml'), 'utf8')).toBe(GEMINI_POLICY);
  if (type === 'opencode') {
    expect(readFileSync(join(dir, 'opencode-sow.json'), 'utf8')).toBe(OPENCODE_CONFIG);
    expect(call.env['OPENCODE_CONFIG']).toBe(join(dir, 'opencode-sow.json'));
    const permission = JSON.parse(call.env['OPENCODE_PERMISSION']!) as { bash: Record<string, string> };
    expect(permission).toEqual(OPENCODE_PERMISSION);
    // opencode takes the last matching pattern: the catch-all must come first.
    expect(Object.keys(permission.bash)[0]).toBe('*');
    expect(openCodeEnv(call).sort()).toEqual([
      'OPENCODE_CONFIG',
      'OPENCODE_DISABLE_PROJECT_CONFIG',
      'OPENCODE_PERMISSION',
    ]);
    expect(call.env['OPENCODE_DISABLE_PROJECT_CONFIG']).toBe('true');
  } else {
    expect(openCodeEnv(call), 'opencode settings only for opencode').toEqual([]);
  }
}

/** The closing advice: give the executor permissions: yolo, in the config file. */
export const yoloAdvice = (type: string, configPath: string) => [
  `To let executor "impl" do anything unasked, set permissions: yolo in ${configPath}:`,
  '  agents:',
  '    executors:',
  '      impl:',
  `        type: ${type}`,
  '        settings:',
  '          permissions: yolo',
];
export const declareTouch = [
  'To let a worker run that command, declare it as a check in .sow/config.yaml:',
  '  checks:',
  '    - name: allowed',
  '      run: "touch /x"',
  "then allow it on this machine: 'sow check allow'.",
];
export const CODEX_REASON =
  'approval policy is Never; reject command — you cannot ask for escalated permissions if the approval policy is Never';

/** A CLI refusing two calls (permissions: safe): what it reports, and the advice sow says for them. */
export interface DenialCase {
  type: string;
  deny: string[];
  denials: object[];
  /** The advice lines before the yolo advice. */
  advice: string[];
}

export const DENIALS: DenialCase[] = [
  {
    type: 'claude',
    deny: ['touch /x', UNIT],
    denials: [
      { tool: 'Bash', input: 'touch /x', kind: 'command' },
      { tool: 'Bash', input: UNIT, kind: 'command' },
    ],
    advice: [
      'Claude Code refused 2 tool calls (permissions: safe):',
      '  Bash: touch /x',
      '  Bash: npm test',
      ...declareTouch,
      '`npm test` is declared as a check, but Claude Code refused it: its own settings deny it.',
    ],
  },
  {
    type: 'cursor',
    deny: ['touch /x', UNIT],
    denials: [
      { tool: 'shell', input: 'touch /x', kind: 'command' },
      { tool: 'shell', input: UNIT, kind: 'command' },
    ],
    advice: [
      'Cursor CLI refused 2 tool calls (permissions: safe):',
      '  shell: touch /x',
      '  shell: npm test',
      'Cursor runs shell commands in its sandbox (--sandbox enabled), checks too; declaring a check does not widen it.',
    ],
  },
  {
    type: 'codex',
    deny: ['touch /x'],
    denials: [{ tool: 'shell', input: null, kind: 'command', reason: CODEX_REASON }],
    advice: [
      'Codex CLI refused a tool call (permissions: safe):',
      `  shell: (a command; codex does not say which) — ${CODEX_REASON}`,
      'Codex runs every command in its workspace-write sandbox (writes only in the repository and /tmp, no ' +
        'network), checks too; declaring a check does not widen it.',
    ],
  },
  {
    type: 'gemini',
    deny: ['touch /x', UNIT],
    denials: [
      { tool: 'run_shell_command', input: 'touch /x', kind: 'command', reason: 'Tool execution denied by policy.' },
      { tool: 'run_shell_command', input: UNIT, kind: 'command', reason: 'Tool execution denied by policy.' },
    ],
    advice: [
      'Gemini CLI refused 2 tool calls (permissions: safe):',
      '  run_shell_command: touch /x',
      '  run_shell_command: npm test',
      ...declareTouch,
      '`npm test` is declared as a check, but Gemini CLI refused it: Gemini CLI checks each part of a chained ' +
        'command (&&, ;, |) on its own; declare each part as a check too.',
    ],
  },
  {
    type: 'copilot',
    deny: ['touch /x', LINT],
    denials: [
      {
        tool: 'bash',
        input: 'touch /x',
        kind: 'command',
        reason: 'Permission denied because no interactive user response was available.',
      },
      {
        tool: 'bash',
        input: LINT,
        kind: 'command',
        reason: 'Permission denied because no interactive user response was available.',
      },
    ],
    advice: [
      'GitHub Copilot CLI refused 2 tool calls (permissions: safe):',
      '  bash: touch /x',
      `  bash: ${LINT}`,
      ...declareTouch,
      '`node scripts/lint.mjs "src/*.ts"` is declared as a check, but GitHub Copilot CLI refused it: Copilot CLI ' +
        'matches a shell command by its name (plus the first subcommand for tools such as npm or git), not by the ' +
        'whole line, so it may not see this command as the one granted; declare the check as a package script and ' +
        'run it by that name (`npm run <script>`).',
    ],
  },
  {
    type: 'opencode',
    deny: ['touch /x', UNIT],
    denials: [
      {
        tool: 'bash',
        input: 'touch /x',
        kind: 'command',
        reason: 'The user rejected permission to use this specific tool call.',
      },
      {
        tool: 'bash',
        input: UNIT,
        kind: 'command',
        reason: 'The user rejected permission to use this specific tool call.',
      },
    ],
    advice: [
      'opencode refused 2 tool calls (permissions: safe):',
      '  bash: touch /x',
      '  bash: npm test',
      ...declareTouch,
      '`npm test` is declared as a check, but opencode refused it: its own settings deny it.',
    ],
  },
];
