// Gemini CLI: safe is the auto_edit approval mode plus a policy file beside the prompt (--allowed-tools is deprecated):
// `sow` by prefix (not `sowx`), each check exactly, each part of a chained command apart.
import { dirname, join } from 'node:path';
import {
  checksOf,
  agentCli,
  custom,
  denial,
  listed,
  model,
  str,
  usageOf,
  words,
  saidLine,
  type Grant,
  type Obj,
} from './shared.js';
import { isRecord } from '../../domain/json.js';
import type { ExecutorModule, InvocationContext } from './types.js';
import { envWidening, jsonWidening } from './settings-files.js';
import {
  agentsMd,
  COMMAND_META,
  commandBody,
  COMMANDS,
  skillFile,
  type CommandName,
  type Integration,
  type IntegrationSources,
  type OwnedFile,
} from '../../domain/integrations.js';

// What a project's .gemini/settings.json may set that widens a safe worker (Gemini CLI 0.61.0); no flag leaves these
// settings out.
export const GEMINI_WIDENING = words(
  'tools.allowed tools.discoveryCommand tools.callCommand tools.sandbox mcpServers mcp.serverCommand ' +
    'hooks policyPaths adminPolicyPaths context.includeDirectories security.folderTrust',
);
/** Variables of a project's .env that change where Gemini CLI takes its settings, trust and sandbox from. */
const geminiVariable = (name: string) => /^(GEMINI_CLI_|GEMINI_SANDBOX|GEMINI_YOLO|SEATBELT_PROFILE)/.test(name);

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
export function geminiPolicy(checks: readonly string[]): string {
  const rule = (lines: string[]) =>
    `[[rule]]\ntoolName = "run_shell_command"\n${lines.join('\n')}\ndecision = "allow"\npriority = 999\n`;
  return [
    '# Written by sow (permissions: safe): the worker may run sow and the checks .sow/config.yaml declares; edits ' +
      'are allowed by --approval-mode auto_edit.\n',
    rule(['commandPrefix = "sow"']),
    // Matched after `"command":"` in the call's JSON arguments: the command, JSON-escaped, then its closing quote.
    ...checks.map((c) =>
      rule([
        `# ${c.replace(/\n/g, ' ')}`,
        `commandRegex = ${JSON.stringify(`${escapeRegExp(JSON.stringify(c).slice(1, -1))}"`)}`,
        'allowRedirection = true',
      ]),
    ),
  ].join('\n');
}
const grant = (ctx: InvocationContext): Grant => {
  if (ctx.permissions === 'yolo') return { args: ['--yolo'], files: [] };
  const path = join(dirname(ctx.promptFile), 'gemini-sow-policy.toml');
  return {
    args: ['--approval-mode', 'auto_edit', '--policy', path],
    files: [{ path, text: geminiPolicy(checksOf(ctx)) }],
    notes: [
      `permissions=safe: Gemini CLI may edit files (auto_edit) and run ${listed(ctx)} (policy ${path}); it refuses ` +
        `anything else`,
    ],
  };
};

const TOOLS = { command: ['run_shell_command'], edit: ['write_file', 'replace'] };

// `sow install gemini`: its skill, GEMINI.md and the slash commands as TOML (`!{…}` runs a command, `{{args}}` are the
// arguments).
const command = (s: IntegrationSources, name: CommandName) => {
  const body = commandBody(s, name, (cmd) => `!{${cmd}}`)
    .replace(/\$ARGUMENTS/g, '{{args}}')
    .trim()
    .replace(/"""/g, '\\"\\"\\"');
  return `description = ${JSON.stringify(COMMAND_META[name].description)}\nprompt = """\n${body}\n"""\n`;
};
const integration: Integration = {
  repository: (s) => [
    { kind: 'file', path: '.gemini/skills/sow/SKILL.md', content: skillFile(s) },
    ...COMMANDS.map((c): OwnedFile => ({
      kind: 'file',
      path: `.gemini/commands/sow/${c}.toml`,
      content: command(s, c),
    })),
    agentsMd(s, 'GEMINI.md'),
  ],
};

export const gemini: ExecutorModule = {
  type: 'gemini',
  title: 'Gemini CLI',
  install: 'npm install -g @google/gemini-cli',
  sessionIds: 'caller',
  acp: {
    args: (c) => ['--acp', ...model(c, '-m'), ...custom(c)],
    // A project's general.defaultApprovalMode (auto_edit) opens the session in autoEdit, where edits are not asked.
    modes: {
      asks: ['default', 'plan'],
      setBy: 'general.defaultApprovalMode in .gemini/settings.json (or your own ~/.gemini/settings.json)',
    },
  },
  // Without -p, Gemini CLI reads the prompt from a piped stdin and runs headless.
  ...agentCli(
    'gemini',
    '-m',
    (ctx, resume) => ['--output-format', 'stream-json', resume ? '--resume' : '--session-id', ctx.sessionId!],
    grant,
  ),
  sessionGone: (stderr) => saidLine(stderr, /Error resuming session:/),
  // The closing `result` has the run's totals in `stats`; Gemini CLI reports no cost.
  usage: (e) =>
    e['type'] === 'result' && isRecord(e['stats'])
      ? usageOf(e['stats']['input_tokens'], e['stats']['output_tokens'])
      : undefined,
  // Progress reads through the generic fields and Claude Code's `result`. A refusal is a `tool_result` with
  // `error.type: "policy_violation"`; its call is the earlier `tool_use` of the same `tool_id`.
  denials() {
    const calls = new Map<string, Obj>();
    return {
      event(e) {
        const id = str(e['tool_id']);
        if (!id) return [];
        if (e['type'] === 'tool_use') calls.set(id, e);
        if (
          e['type'] !== 'tool_result' ||
          e['status'] !== 'error' ||
          !isRecord(e['error']) ||
          e['error']['type'] !== 'policy_violation'
        )
          return [];
        const call = calls.get(id);
        return [denial(str(call?.['tool_name']) ?? 'unknown', call?.['parameters'], TOOLS, str(e['error']['message']))];
      },
    };
  },
  checkRefusedBecause:
    'Gemini CLI checks each part of a chained command (&&, ;, |) on its own; declare each part as a check too',
  widening: {
    files: ['.gemini/**'],
    settings: [...GEMINI_WIDENING, 'variables GEMINI_CLI_* (and the sandbox ones) in .env or .gemini/.env'],
    how:
      'Gemini CLI cannot be told to leave the project settings out: sow refuses to start a safe worker while ' +
      '.gemini/settings.json sets one of them',
    check: () => ({
      '.gemini/settings.json': (text) => jsonWidening(text, GEMINI_WIDENING),
      '.gemini/.env': (text) => envWidening(text, () => true),
      '.env': (text) => envWidening(text, geminiVariable),
    }),
  },
  integration,
};
