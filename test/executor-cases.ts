/**
 * Each executor type as the agent tests configure and expect it: its definition in the user's
 * configuration, where its session id comes from, and the argv of a spawn and of a resume. One
 * table for the in-process tests (src/app/agent-executors.test.ts, every type) and the end-to-end
 * ones (test/e2e/agents.test.ts, a type that sow names the session of and one that reports it).
 */
import { dirname, join } from 'node:path';

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
    spawnArgv: ({ sid }) => ['--print', '--output-format', 'stream-json', '--verbose', '--session-id', sid, '--permission-mode', 'acceptEdits', '--allowedTools', 'Bash(sow *)'],
    resumeArgv: ({ sid }) => ['--print', '--output-format', 'stream-json', '--verbose', '--resume', sid, '--permission-mode', 'acceptEdits', '--allowedTools', 'Bash(sow *)'],
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
    spawnArgv: ({ root }) => ['exec', '--json', '-C', root, '-c', 'sandbox_mode="workspace-write"', '-'],
    resumeArgv: ({ sid }) => ['exec', 'resume', '--json', '-c', 'sandbox_mode="workspace-write"', sid, '-'],
    via: 'stdin',
  },
  {
    type: 'gemini',
    cli: 'gemini',
    definition: 'type: gemini',
    ids: 'caller',
    idPattern: UUID,
    spawnArgv: ({ sid, promptFile }) => ['--output-format', 'stream-json', '--session-id', sid, '--approval-mode', 'auto_edit', '--policy', join(dirname(promptFile), 'gemini-sow-policy.toml')],
    resumeArgv: ({ sid, promptFile }) => ['--output-format', 'stream-json', '--resume', sid, '--approval-mode', 'auto_edit', '--policy', join(dirname(promptFile), 'gemini-sow-policy.toml')],
    via: 'stdin',
  },
  {
    type: 'copilot',
    cli: 'copilot',
    definition: 'type: copilot',
    ids: 'caller',
    idPattern: UUID,
    spawnArgv: ({ sid, root }) => ['--session-id', sid, '--output-format', 'json', '-C', root, '--allow-tool', 'write', '--allow-tool', 'shell(sow)', '--disallow-temp-dir'],
    resumeArgv: ({ sid, root }) => [`--resume=${sid}`, '--output-format', 'json', '-C', root, '--allow-tool', 'write', '--allow-tool', 'shell(sow)', '--disallow-temp-dir'],
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
export const configFor = (c: ExecutorCase): string => `agents:\n  executors:\n    impl:\n      ${c.definition}\n  bindings:\n    implementer: impl\n`;
