/**
 * Each executor type as the agent tests configure and expect it: its definition in the user's
 * configuration, where its session id comes from, and the argv of a spawn and of a resume. One
 * table for the in-process tests (src/app/agent-executors.test.ts, every type) and the end-to-end
 * ones (test/e2e/agents.test.ts, a type that sow names the session of and one that reports it).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';
import type { FakeCall } from './inproc-fakes.js';
import { claudeSettings } from '../src/adapters/executors/claude.js';
import { agentSettingsFiles } from '../src/adapters/executors/registry.js';

/**
 * What a safe Claude Code worker is started with so that the repository's own settings widen nothing (before its
 * permission mode).
 */
export const CLAUDE_OWN_SETTINGS = [
  '--setting-sources',
  'user',
  '--strict-mcp-config',
  '--settings',
  claudeSettings(agentSettingsFiles()),
];
/** The --verbose note that says so. */
export const CLAUDE_SETTINGS_NOTE =
  "permissions=safe: Claude Code loads only your own settings (not the repository's .claude/ settings, hooks, " +
  "skills, CLAUDE.md or .mcp.json servers), and may not edit any agent CLI's settings, .git or .sow/config.yaml";
/** Codex's note on its execpolicy rules and project config. */
export const CODEX_RULES_NOTE =
  'permissions=safe: Codex loads no execpolicy .rules files (--ignore-rules), and sow starts it only while ' +
  '.codex/config.toml widens nothing';
/** opencode's note on the project's configuration. */
export const OPENCODE_PROJECT_NOTE =
  'permissions=safe: opencode loads no configuration of the repository (OPENCODE_DISABLE_PROJECT_CONFIG: not ' +
  'opencode.json, .opencode/ or AGENTS.md)';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface ArgvContext {
  sid: string;
  root: string;
  promptFile: string;
}

export interface ExecutorCase {
  type: string;
  cli: string;
  /** The executor definition (named `impl`) in the config file. */
  definition: string;
  /** Where the session id comes from. */
  ids: 'caller' | 'precreated' | 'reported';
  idPattern: RegExp;
  spawnArgv(c: ArgvContext): string[];
  resumeArgv(c: ArgvContext): string[];
  /** How the prompt reaches the CLI. */
  via: 'stdin' | 'file';
}

export const CASES: ExecutorCase[] = [
  {
    type: 'claude',
    cli: 'claude',
    definition: 'type: claude',
    ids: 'caller',
    idPattern: UUID,
    spawnArgv: ({ sid }) => [
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
    ],
    resumeArgv: ({ sid }) => [
      '--print',
      '--output-format',
      'stream-json',
      '--verbose',
      '--resume',
      sid,
      ...CLAUDE_OWN_SETTINGS,
      '--permission-mode',
      'acceptEdits',
      '--allowedTools',
      'Bash(sow *)',
    ],
    via: 'stdin',
  },
  {
    type: 'cursor',
    cli: 'cursor-agent',
    definition: 'type: cursor',
    ids: 'precreated',
    idPattern: UUID,
    spawnArgv: ({ sid }) => ['-p', '--output-format', 'stream-json', '--resume', sid, '--sandbox', 'enabled'],
    resumeArgv: ({ sid }) => ['-p', '--output-format', 'stream-json', '--resume', sid, '--sandbox', 'enabled'],
    via: 'stdin',
  },
  {
    type: 'codex',
    cli: 'codex',
    definition: 'type: codex',
    ids: 'reported',
    idPattern: /^thread-[0-9a-f-]{36}$/,
    spawnArgv: ({ root }) => [
      'exec',
      '--json',
      '-C',
      root,
      '-c',
      'sandbox_mode="workspace-write"',
      '--ignore-rules',
      '-',
    ],
    resumeArgv: ({ sid }) => [
      'exec',
      'resume',
      '--json',
      '-c',
      'sandbox_mode="workspace-write"',
      '--ignore-rules',
      sid,
      '-',
    ],
    via: 'stdin',
  },
  {
    type: 'gemini',
    cli: 'gemini',
    definition: 'type: gemini',
    ids: 'caller',
    idPattern: UUID,
    spawnArgv: ({ sid, promptFile }) => [
      '--output-format',
      'stream-json',
      '--session-id',
      sid,
      '--approval-mode',
      'auto_edit',
      '--policy',
      join(dirname(promptFile), 'gemini-sow-policy.toml'),
    ],
    resumeArgv: ({ sid, promptFile }) => [
      '--output-format',
      'stream-json',
      '--resume',
      sid,
      '--approval-mode',
      'auto_edit',
      '--policy',
      join(dirname(promptFile), 'gemini-sow-policy.toml'),
    ],
    via: 'stdin',
  },
  {
    type: 'copilot',
    cli: 'copilot',
    definition: 'type: copilot',
    ids: 'caller',
    idPattern: UUID,
    spawnArgv: ({ sid, root }) => [
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
      '--disallow-temp-dir',
    ],
    resumeArgv: ({ sid, root }) => [
      `--resume=${sid}`,
      '--output-format',
      'json',
      '-C',
      root,
      '--allow-tool',
      'write',
      '--allow-tool',
      'shell(sow)',
      '--disallow-temp-dir',
    ],
    via: 'stdin',
  },
  {
    type: 'opencode',
    cli: 'opencode',
    definition: 'type: opencode',
    ids: 'reported',
    idPattern: /^ses_[0-9a-f]{32}$/,
    spawnArgv: ({ root }) => ['run', '--format', 'json', '--dir', root],
    resumeArgv: ({ sid, root }) => ['run', '--format', 'json', '--dir', root, '--session', sid],
    via: 'stdin',
  },
  {
    type: 'command',
    cli: 'my-agent',
    definition: [
      'type: command',
      '      spawn: [my-agent, --session, "{session_id}", --prompt-file, "{prompt_file}"]',
      '      resume: [my-agent, --resume, "{session_id}", --prompt-file, "{prompt_file}"]',
    ].join('\n'),
    ids: 'caller',
    idPattern: UUID,
    spawnArgv: ({ sid, promptFile }) => ['--session', sid, '--prompt-file', promptFile],
    resumeArgv: ({ sid, promptFile }) => ['--resume', sid, '--prompt-file', promptFile],
    via: 'file',
  },
];

/** A user configuration with one executor, `impl`, of the case's type, bound to the implementer. */
export const configFor = (c: ExecutorCase): string =>
  `agents:\n  executors:\n    impl:\n      ${c.definition}\n  bindings:\n    implementer: impl\n`;

/**
 * The first run of implementer-1 on task 010 (`note` its orchestrator's prompt): the whole prompt reached the CLI,
 * and the worker's environment.
 */
export function expectSpawnCall(c: ExecutorCase, call: FakeCall, promptFile: string, note: string, sid: string): void {
  // The prompt reached the agent, whole.
  const prompt = readFileSync(promptFile, 'utf8');
  expect(prompt).toContain('# You are implementer-1');
  expect(prompt).toContain('Task 010: First task (iteration 1).');
  expect(prompt.endsWith(`## Instructions from the orchestrator\n\n${note}\n`), prompt).toBe(true);
  expect(call.prompt).toBe(prompt);
  if (c.via === 'stdin') expect(call.stdin).toBe(prompt);

  // The worker's environment.
  expect(call.env['SOW_TASK_ID']).toBe('010');
  expect(call.env['SOW_AGENT_ID']).toBe('implementer-1');
  expect(call.env['SOW_AGENT']).toBe('implementer');
  // An id the CLI reports only in its events cannot be in the environment of the run that reports it.
  expect(call.env['SOW_SESSION_ID']).toBe(c.ids === 'reported' ? undefined : sid);
}

/**
 * Its resume with `feedback`: the same session, in the recorded cwd, with the resume argv, the feedback as the whole
 * prompt, and the worker's environment.
 */
export function expectResumeCall(
  c: ExecutorCase,
  call: FakeCall,
  run: { sid: string; root: string; cwd: string; promptFile: string; feedback: string },
): void {
  expect(call.cli).toBe(c.cli);
  expect(call.resuming, 'the fake continued an existing session').toBe(true);
  expect(call.session, 'the same session').toBe(run.sid);
  expect(call.cwd, 'resumed in the recorded cwd').toBe(run.cwd);
  expect(call.argv, 'resume argv').toEqual(c.resumeArgv({ sid: run.sid, root: run.root, promptFile: run.promptFile }));
  expect(readFileSync(run.promptFile, 'utf8')).toBe(run.feedback);
  expect(call.prompt).toBe(run.feedback);
  if (c.via === 'stdin') expect(call.stdin).toBe(run.feedback);
  expect(call.env['SOW_TASK_ID']).toBe('010');
  expect(call.env['SOW_AGENT_ID']).toBe('implementer-1');
  expect(call.env['SOW_SESSION_ID']).toBe(run.sid);
}
