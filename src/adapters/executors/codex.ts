// Codex CLI (`codex exec`) cannot grant single commands, so safe is its workspace-write sandbox, where every command
// runs (writes in the workspace and /tmp, no network); it never asks.
import { agentCli, custom, oneLine, reportedSession, text, usageOf, saidLine, words, type Grant } from './shared.js';
import { isRecord } from '../../domain/json.js';
import { SKILL_AND_AGENTS_MD } from '../../domain/integrations.js';
import type { ExecutorModule, InvocationContext } from './types.js';
import { tomlWidening } from './settings-files.js';

// What in a project's .codex/config.toml widens a safe worker, at any depth: sow's `-c` wins for sandbox_mode only, not
// for writable roots, network, commands, profiles or providers.
export const CODEX_WIDENING = words(
  'sandbox_mode approval_policy sandbox_workspace_write writable_roots network_access mcp_servers ' +
    'notify hooks profile profiles permissions default_permissions projects trust_level model_providers ' +
    'shell_environment_policy',
);

// --ignore-rules: the project's execpolicy .rules files (commands allowed outside the sandbox) are not loaded.
const grant = (ctx: InvocationContext): Grant =>
  ctx.permissions === 'yolo'
    ? { args: ['--dangerously-bypass-approvals-and-sandbox'] }
    : {
        args: ['-c', 'sandbox_mode="workspace-write"', '--ignore-rules'],
        notes: [
          'permissions=safe: Codex runs every command in its workspace-write sandbox (writes in the repository and ' +
            '/tmp only, no network), sow and the checks too',
          'permissions=safe: Codex loads no execpolicy .rules files (--ignore-rules), and sow starts it only while ' +
            '.codex/config.toml widens nothing',
        ],
      };

/** Codex logs a call it refused on stderr, at level ERROR, without the command. */
const REFUSED = /codex_core::tools::router: error=(.*\breject(?:ed)?\b.*)$/;

export const codex: ExecutorModule = {
  type: 'codex',
  title: 'Codex CLI',
  install: 'npm install -g @openai/codex',
  sessionIds: 'reported',
  // Zed's ACP adapter for Codex asks nothing by default: safe tells it to ask before anything not known harmless,
  // inside its workspace-write sandbox; yolo, never, with no sandbox.
  acp: {
    binary: () => 'codex-acp',
    args: (c, permissions) => [
      '-c',
      permissions === 'yolo' ? 'approval_policy="never"' : 'approval_policy="untrusted"',
      '-c',
      permissions === 'yolo' ? 'sandbox_mode="danger-full-access"' : 'sandbox_mode="workspace-write"',
      ...custom(c),
    ],
    install: 'npm install -g @zed-industries/codex-acp',
  },
  sessionFromEvent: (e) => (e['type'] === 'thread.started' ? reportedSession(e['thread_id']) : undefined),
  // `codex exec resume` takes no -C: the resume runs in the recorded cwd instead.
  ...agentCli(
    'codex',
    '-m',
    (ctx, resume) => (resume ? ['exec', 'resume', '--json'] : ['exec', '--json', '-C', ctx.cwd]),
    grant,
    (ctx, resume) => (resume ? [ctx.sessionId!, '-'] : ['-']),
  ),
  progress(event) {
    const type = event['type'];
    if (type === 'thread.started') return [`session ${String(event['thread_id'] ?? '?')} started`];
    if ((type === 'item.completed' || type === 'item.started') && isRecord(event['item'])) {
      const item = event['item'];
      if (item['type'] === 'agent_message' && text(item['text']))
        return type === 'item.completed' ? [`› ${oneLine(String(item['text']))}`] : [];
      if (item['type'] === 'command_execution' && text(item['command']))
        return type === 'item.started' ? [`● shell: ${oneLine(String(item['command']), 90)}`] : [];
      if (item['type'] === 'file_change') return type === 'item.completed' ? ['● file change'] : [];
      return [];
    }
    if (type === 'turn.failed' || type === 'error')
      return [`✗ ${oneLine(text(event['message']) ?? JSON.stringify(event['error'] ?? event))}`];
    return undefined;
  },
  sessionGone: (stderr) => saidLine(stderr, /no rollout found for thread id/),
  // Each `turn.completed` has that turn's tokens; Codex reports no cost.
  usage: (e) =>
    e['type'] === 'turn.completed' && isRecord(e['usage'])
      ? usageOf(e['usage']['input_tokens'], e['usage']['output_tokens'])
      : undefined,
  // Nothing in `--json` (a command its sandbox refuses leaves no event at all); only its stderr says.
  denials: () => ({
    stderr(line) {
      const m = REFUSED.exec(line.trim());
      if (!m) return [];
      const reason = m[1]!.trim();
      const patch = /^patch rejected/.test(reason);
      return [{ tool: patch ? 'apply_patch' : 'shell', input: null, kind: patch ? 'edit' : 'command', reason }];
    },
  }),
  sandbox:
    'Codex runs every command in its workspace-write sandbox (writes only in the repository and /tmp, no network), ' +
    'checks too',
  widening: {
    files: ['.codex/**'],
    settings: [...CODEX_WIDENING, 'execpolicy rules (.codex/rules/*.rules)'],
    how:
      'a safe worker runs with --ignore-rules and sow refuses to start it while .codex/config.toml sets one of ' +
      'these (Codex has no flag that leaves the project config out); over ACP, the adapter takes no ' +
      '--ignore-rules, so a .rules file there refuses it too',
    check: (transport) => ({
      '.codex/config.toml': (text) => tomlWidening(text, CODEX_WIDENING),
      ...(transport === 'acp' ? { '.codex/rules/*': (text: string) => (text.trim() ? ['execpolicy rules'] : []) } : {}),
    }),
  },
  integration: SKILL_AND_AGENTS_MD,
};
