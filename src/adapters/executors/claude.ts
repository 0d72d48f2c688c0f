/** Claude Code (`claude`): stream-json from `system/init` to `result`, whose `permission_denials` it refused. */
import {
  checksOf,
  agentCli,
  custom,
  denial,
  listed,
  oneLine,
  SOW_PROTECTED,
  str,
  text,
  toolDetail,
  usageOf,
  words,
  saidLine,
  type Grant,
} from './shared.js';
import { isRecord } from '../../domain/json.js';
import type { ExecutorModule, InvocationContext } from './types.js';
import { AGENTS, ORCHESTRATOR, type AgentDef } from '../../domain/agents.js';
import { fillTemplate } from '../templates.js';
import {
  COMMAND_META,
  commandBody,
  COMMANDS,
  frontmatter,
  hookMap,
  skillFile,
  yamlString,
  type Integration,
  type IntegrationSources,
  type JsonAddition,
  type OwnedFile,
} from '../../domain/integrations.js';

/** Deny rules (which beat every allow) for the files through which a worker could widen itself or the next one. */
export const claudeSettings = (protect: readonly string[]) =>
  JSON.stringify({ permissions: { deny: [...new Set([...SOW_PROTECTED, ...protect])].map((p) => `Edit(${p})`) } });

const grant = (ctx: InvocationContext): Grant => {
  if (ctx.permissions === 'yolo' && ctx.runningAsRoot) {
    const note =
      'running as root: Claude Code accepts --dangerously-skip-permissions only with IS_SANDBOX=1, so sow sets it';
    return { args: ['--dangerously-skip-permissions'], env: { IS_SANDBOX: '1' }, notes: [note] };
  }
  if (ctx.permissions === 'yolo') return { args: ['--dangerously-skip-permissions'] };
  const wild = checksOf(ctx).filter((c) => c.includes('*'));
  return {
    args: [
      // The repository's own settings (allow rules, defaultMode, hooks, env) and MCP servers would widen it.
      '--setting-sources',
      'user',
      '--strict-mcp-config',
      '--settings',
      claudeSettings(ctx.protect),
      '--permission-mode',
      'acceptEdits',
      // `*` is a wildcard (`sow *` matches a bare `sow` too); Claude Code checks each part of a chained command.
      '--allowedTools',
      'Bash(sow *)',
      ...checksOf(ctx).flatMap((c) => ['--allowedTools', `Bash(${c})`]),
    ],
    notes: [
      `permissions=safe: Claude Code may edit files in the repository (acceptEdits) and run ${listed(ctx)}; it ` +
        `refuses anything else`,
      "permissions=safe: Claude Code loads only your own settings (not the repository's .claude/ settings, hooks, " +
        "skills, CLAUDE.md or .mcp.json servers), and may not edit any agent CLI's settings, .git or .sow/config.yaml",
      ...(wild.length
        ? [
            `Claude Code reads '*' in an allowed command as a wildcard, so the ` +
              `check(s) ${wild.map((c) => `\`${c}\``).join(', ')} allow more than that exact command`,
          ]
        : []),
    ],
  };
};

const TOOLS = { command: ['Bash'], edit: ['Write', 'Edit', 'MultiEdit', 'NotebookEdit'] };

const HOOKS: JsonAddition = { hooks: { SessionStart: ['sow project continue'], Stop: ['sow hook stop'] } };
const MCP: JsonAddition = { mcpServers: { sow: { command: 'sow', args: ['mcp'] } } };

/** When to use each role's agent: one short line, listed in every Claude Code session. */
const ROLE_USE: Readonly<Record<string, string>> = {
  orchestrator: 'Use to drive a sow project through its states.',
  implementer: 'Use to implement a sow task (give its id).',
  architect: 'Use for a design decision in a sow project.',
  reviewer: "Use to review a sow project's change.",
  planner: 'Use to plan a sow project into tasks.',
  researcher: 'Use to research a question for sow.',
  decomposer: 'Use to split sow work into small tasks.',
};

function agentFile(s: IntegrationSources, a: AgentDef): string {
  // The orchestrator's guidance is the prompt of the project's current state.
  const first = a.name === ORCHESTRATOR.name ? 'sow project continue --full' : `sow prompt ${a.guidance}`;
  const description = a.description.charAt(0).toLowerCase() + a.description.slice(1);
  const body = fillTemplate(s.agent, { role: a.name, description, first });
  const use = ROLE_USE[a.name] ?? `Use for sow ${a.name} work.`;
  return `${frontmatter({ name: `sow-${a.name}`, description: yamlString(use) })}${body.trim()}\n`;
}

/** The Claude Code execution layer, under `base` (`.claude/` in a repository, or a plugin's root). */
function claudeLayer(s: IntegrationSources, base: string, commandsDir: string): OwnedFile[] {
  // `!` and backticks run a command when the slash command is used.
  const command = (name: (typeof COMMANDS)[number]) => {
    const meta = COMMAND_META[name];
    const head = frontmatter({
      description: yamlString(meta.description),
      'argument-hint': meta.args ? yamlString(meta.args) : undefined,
      'allowed-tools': 'Bash(sow:*)',
    });
    return `${head}${commandBody(s, name, (cmd) => `!\`${cmd}\``).trim()}\n`;
  };
  return [
    ...[ORCHESTRATOR, ...AGENTS].map((a): OwnedFile => ({
      kind: 'file',
      path: `${base}agents/sow-${a.name}.md`,
      content: agentFile(s, a),
    })),
    ...COMMANDS.map((c): OwnedFile => ({ kind: 'file', path: `${base}${commandsDir}${c}.md`, content: command(c) })),
    { kind: 'file', path: `${base}skills/sow/SKILL.md`, content: skillFile(s) },
  ];
}

const json = (data: unknown) => `${JSON.stringify(data, null, 2)}\n`;

const integration: Integration = {
  repository: (s, opts) => [
    ...claudeLayer(s, '.claude/', 'commands/sow/'),
    { kind: 'json', path: '.claude/settings.json', add: HOOKS },
    ...(opts.withMcp ? [{ kind: 'json' as const, path: '.mcp.json', add: MCP }] : []),
  ],
  /** `--plugin <dir>`: a Claude Code plugin, and a marketplace of one. */
  plugin(s, opts) {
    const description =
      'sow: steer AI coding agents through a guarded plan → implement → review → finalize lifecycle, ' +
      'with all state in .sow/';
    const manifest = {
      name: 'sow',
      version: s.version,
      description,
      author: { name: 'sow' },
      keywords: ['workflow', 'agents', 'tasks'],
    };
    const marketplace = {
      name: 'sow',
      owner: { name: 'sow' },
      metadata: { description },
      plugins: [{ name: 'sow', source: './', description, version: s.version }],
    };
    return [
      { kind: 'file', path: '.claude-plugin/plugin.json', content: json(manifest) },
      { kind: 'file', path: '.claude-plugin/marketplace.json', content: json(marketplace) },
      ...claudeLayer(s, '', 'commands/'),
      { kind: 'file', path: 'hooks/hooks.json', content: json({ hooks: hookMap(HOOKS.hooks!) }) },
      ...(opts.withMcp
        ? [{ kind: 'file' as const, path: '.mcp.json', content: json({ mcpServers: MCP.mcpServers }) }]
        : []),
    ];
  },
};

export const claude: ExecutorModule = {
  type: 'claude',
  title: 'Claude Code',
  install: 'npm install -g @anthropic-ai/claude-code',
  sessionIds: 'caller',
  // Zed's adapter runs Claude Code's SDK; as root it needs IS_SANDBOX=1 (sow still answers every permission).
  acp: {
    binary: () => 'claude-agent-acp',
    args: (c) => custom(c),
    env: ({ runningAsRoot }): Record<string, string> => (runningAsRoot ? { IS_SANDBOX: '1' } : {}),
    // The repository's settings would allow calls without asking sow, and run its hooks and MCP servers.
    sessionMeta: (permissions) =>
      permissions === 'safe'
        ? { claudeCode: { options: { settingSources: ['user'], extraArgs: { 'strict-mcp-config': null } } } }
        : undefined,
    // The adapter opens a session in the project's permissions.defaultMode; only these ask sow for every call.
    modes: {
      asks: ['default', 'plan'],
      setBy:
        'permissions.defaultMode in .claude/settings.json or .claude/settings.local.json (or your own ' +
        '~/.claude/settings.json)',
    },
    install: 'npm install -g @zed-industries/claude-agent-acp',
  },
  ...agentCli(
    'claude',
    '--model',
    (ctx, resume) => [
      '--print',
      '--output-format',
      'stream-json',
      '--verbose',
      resume ? '--resume' : '--session-id',
      ctx.sessionId!,
    ],
    grant,
  ),
  progress(event) {
    const type = event['type'];
    if (type === 'system' && event['subtype'] === 'init')
      return [
        `session ${String(event['session_id'] ?? '?')} ` +
          `started${text(event['model']) ? ` (${String(event['model'])})` : ''}`,
      ];
    if (type === 'assistant' && isRecord(event['message']) && Array.isArray(event['message']['content'])) {
      return (event['message']['content'] as unknown[]).flatMap((part) => {
        if (!isRecord(part)) return [];
        if (part['type'] === 'text' && text(part['text'])) return [`› ${oneLine(String(part['text']))}`];
        if (part['type'] === 'tool_use') return [`● ${String(part['name'] ?? 'tool')}${toolDetail(part['input'])}`];
        return [];
      });
    }
    // Gemini CLI ends its stream with a `result` event too; this reads it as well.
    if (type === 'result') {
      const failed = event['is_error'] === true || event['subtype'] === 'error';
      const turns = typeof event['num_turns'] === 'number' ? ` after ${event['num_turns']} turn(s)` : '';
      // Said before sow knows the exit code (a CLI may still fail after it): neutral, never "finished".
      return [`${failed ? '✗ the CLI ended its run with an error' : '■ the CLI ended its run'}${turns}`];
    }
    return undefined;
  },
  sessionGone: (stderr) => saidLine(stderr, /No conversation found with session ID/),
  // The closing `result` has the run's totals; each assistant message's own usage would count twice.
  usage: (e) =>
    e['type'] === 'result' && isRecord(e['usage'])
      ? usageOf(e['usage']['input_tokens'], e['usage']['output_tokens'], e['total_cost_usd'])
      : undefined,
  // Each answer's `assistant` events (one per block, one message id) carry its input tokens; their output count is
  // the stream's first (1), so only input is told until the `result`.
  usageSoFar: (e) => {
    const m = e['type'] === 'assistant' && isRecord(e['message']) ? e['message'] : undefined;
    if (!m || !isRecord(m['usage']) || typeof m['id'] !== 'string') return undefined;
    const used = usageOf(m['usage']['input_tokens'], undefined);
    return Object.keys(used).length ? { key: m['id'], usage: used } : undefined;
  },
  denials: () => ({
    event(e) {
      if (e['type'] !== 'result' || !Array.isArray(e['permission_denials'])) return [];
      return e['permission_denials']
        .filter(isRecord)
        .map((d) => denial(str(d['tool_name']) ?? 'unknown', d['tool_input'], TOOLS));
    },
  }),
  widening: {
    files: ['.claude/**', '.mcp.json'],
    settings: [
      ...words(
        'permissions.allow permissions.defaultMode permissions.additionalDirectories hooks env apiKeyHelper ' +
          'enableAllProjectMcpServers enabledMcpjsonServers enabledPlugins',
      ),
      'mcpServers (.mcp.json)',
      'allowed-tools of skills and commands',
    ],
    how:
      "a safe worker loads only the user's settings (--setting-sources user), no MCP server of the repository " +
      "(--strict-mcp-config), and sow's deny rules (--settings); over ACP the adapter is told settingSources: user " +
      'and the session is switched to the mode that asks',
  },
  integration,
};
