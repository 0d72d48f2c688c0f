// GitHub Copilot CLI: safe grants `write`, `shell(sow)` and `shell(<check>)`. Copilot matches a command by name (plus
// npm's or git's subcommand), so `node check.mjs` may be refused: granting `node` would allow any program.
import { checksOf, agentCli, custom, denial, listed, model, str, words, type Grant, type Obj } from './shared.js';
import { isRecord } from '../../domain/json.js';
import { SKILL_AND_AGENTS_MD } from '../../domain/integrations.js';
import type { ExecutorModule, InvocationContext } from './types.js';
import { jsonWidening } from './settings-files.js';

/** What a repository's .github/copilot/settings(.local).json may set that widens a worker (copilot help config). */
const COPILOT_SETTINGS = words('hooks allowedUrls trustedFolders defaultPermissionMode disableAllHooks');
/** Copilot's ACP mode ids. */
const MODE = (name: string) => `https://agentclientprotocol.com/protocol/session-modes#${name}`;

/** Checks Copilot CLI can match as granted: a package manager or git with its subcommands (`npm run lint`). */
const matchable = (check: string) => /^(npm|pnpm|yarn|git)( [\w:.-]+)*$/.test(check);
const grant = (ctx: InvocationContext): Grant => {
  if (ctx.permissions === 'yolo') return { args: ['--allow-all-tools'] };
  const doubtful = checksOf(ctx).filter((c) => !matchable(c));
  return {
    args: [
      '--allow-tool',
      'write',
      '--allow-tool',
      'shell(sow)',
      ...checksOf(ctx).flatMap((c) => ['--allow-tool', `shell(${c})`]),
      '--disallow-temp-dir',
    ],
    notes: [
      `permissions=safe: Copilot CLI may edit files in the repository and run ${listed(ctx)}; it refuses anything else`,
      ...(doubtful.length
        ? [
            `Copilot CLI matches a command by its name (plus the first subcommand for tools such as npm or git), so ` +
              `it may refuse the check(s) ${doubtful.map((c) => `\`${c}\``).join(', ')}; a package script run as ` +
              `\`npm run <script>\` is matched`,
          ]
        : []),
    ],
  };
};

const TOOLS = { command: ['bash', 'shell', 'powershell'], edit: ['create', 'edit', 'write', 'str_replace_editor'] };

export const copilot: ExecutorModule = {
  type: 'copilot',
  title: 'GitHub Copilot CLI',
  install: 'npm install -g @github/copilot',
  sessionIds: 'caller',
  acp: {
    args: (c) => ['--acp', ...model(c, '--model'), ...custom(c)],
    // Over ACP it refuses a stdio MCP server handed over in session/new; on its command line it takes one.
    mcpArgs: (server) => [
      '--additional-mcp-config',
      JSON.stringify({
        mcpServers: {
          [server.name]: { type: 'local', command: server.command, args: server.args, env: server.env, tools: ['*'] },
        },
      }),
    ],
    // Autopilot turns on allow-all; so does the allow_all option itself.
    modes: {
      asks: [MODE('agent'), MODE('plan')],
      options: { allow_all: 'off' },
      setBy: 'your own Copilot configuration (defaultMode, defaultPermissionMode)',
    },
  },
  // Without -p, Copilot CLI reads the prompt from a piped stdin (with -p it ignores stdin). --resume takes an optional
  // value, so it must be attached with '='.
  ...agentCli(
    'copilot',
    '--model',
    (ctx, resume) => [
      ...(resume ? [`--resume=${ctx.sessionId!}`] : ['--session-id', ctx.sessionId!]),
      '--output-format',
      'json',
      '-C',
      ctx.cwd,
    ],
    grant,
  ),
  // A `tool.execution_complete` with `success: false` and `error.code: "denied"`; its call is the earlier
  // `tool.execution_start` with the same `toolCallId`.
  denials() {
    const calls = new Map<string, Obj>();
    return {
      event(e) {
        const data = e['data'];
        if (!isRecord(data)) return [];
        const id = str(data['toolCallId']);
        if (!id) return [];
        if (e['type'] === 'tool.execution_start') calls.set(id, data);
        if (
          e['type'] !== 'tool.execution_complete' ||
          data['success'] !== false ||
          !isRecord(data['error']) ||
          data['error']['code'] !== 'denied'
        )
          return [];
        const call = calls.get(id);
        return [
          denial(str(call?.['toolName']) ?? 'unknown', call?.['arguments'], TOOLS, str(data['error']['message'])),
        ];
      },
    };
  },
  checkRefusedBecause:
    'Copilot CLI matches a shell command by its name (plus the first subcommand for tools such as npm or git), not ' +
    'by the whole line, so it may not see this command as the one granted; declare the check as a package script ' +
    'and run it by that name (`npm run <script>`)',
  widening: {
    // .vscode/mcp.json and .vscode/settings.json (chat.tools.autoApprove) are not Copilot CLI's but GitHub Copilot's in
    // the person's own VS Code: no worker may widen that either.
    files: [
      '.github/copilot/**',
      '.github/hooks/**',
      '.github/mcp.json',
      '.mcp.json',
      '.vscode/settings.json',
      '.vscode/mcp.json',
    ],
    settings: [
      ...COPILOT_SETTINGS.map((k) => `${k} (.github/copilot/settings.json)`),
      'hooks (.github/hooks/*.json)',
      'mcpServers (.mcp.json, .github/mcp.json)',
    ],
    how:
      "Copilot CLI loads a folder's hooks, MCP servers and settings once the folder is trusted, and has no flag " +
      'to leave them out: sow refuses to start a safe worker while the repository has one',
    check: () => {
      const settings = (text: string) => jsonWidening(text, COPILOT_SETTINGS);
      const servers = (text: string) => jsonWidening(text, ['mcpServers', 'servers']);
      return {
        '.github/copilot/settings.json': settings,
        '.github/copilot/settings.local.json': settings,
        '.github/hooks/*': (text) => (text.trim() ? ['hooks (commands it runs)'] : []),
        '.mcp.json': servers,
        '.github/mcp.json': servers,
      };
    },
  },
  integration: SKILL_AND_AGENTS_MD,
};
