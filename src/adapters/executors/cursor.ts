// Cursor CLI (`cursor-agent`), from Cursor's docs (not on npm: test/fakes/fake-agent.mjs plays it). It grants single
// commands only in config files, so safe runs commands in its sandbox.
import { agentCli, denial, NO_ACP, OWN_ARGV, str, type Grant, type Obj } from './shared.js';
import { isRecord } from '../../domain/json.js';
import type { ExecutorModule, InvocationContext } from './types.js';
import { jsonWidening } from './settings-files.js';
import { agentsMd, frontmatter, SKILL_DESCRIPTION, yamlString, type Integration } from '../../domain/integrations.js';

const grant = (ctx: InvocationContext): Grant =>
  ctx.permissions === 'yolo'
    ? { args: ['--force'] }
    : {
        args: ['--sandbox', 'enabled'],
        notes: [
          'permissions=safe: Cursor runs shell commands in its sandbox (--sandbox enabled); a command it refuses can ' +
            'be allowed with "Shell(<command>)" in permissions.allow of ~/.cursor/cli-config.json',
        ],
      };

const TOOLS = { command: ['shell'], edit: ['edit', 'write', 'delete'] };
/** Its project files that grant, start or hook something, and the setting of each. */
const SETTINGS: Readonly<Record<string, string>> = {
  '.cursor/cli.json': 'permissions.allow',
  '.cursor/mcp.json': 'mcpServers',
  '.cursor/hooks.json': 'hooks',
};

/** `sow install cursor`: the skill as a rule it always applies, and the AGENTS.md section. */
const integration: Integration = {
  repository: (s) => [
    {
      kind: 'file',
      path: '.cursor/rules/sow.mdc',
      content: `${frontmatter({ description: yamlString(SKILL_DESCRIPTION), alwaysApply: 'true' })}${s.skill.trim()}\n`,
    },
    agentsMd(s),
  ],
};

export const cursor: ExecutorModule = {
  type: 'cursor',
  title: 'Cursor CLI',
  install: 'curl https://cursor.com/install -fsS | bash   (cursor-agent is not on npm)',
  sessionIds: 'precreated',
  createSession: () => ({ binary: 'cursor-agent', args: ['create-chat'] }),
  // The chat is created first (create-chat), so a new run resumes it too.
  ...agentCli(
    'cursor-agent',
    '--model',
    (ctx) => ['-p', '--output-format', 'stream-json', '--resume', ctx.sessionId!],
    grant,
  ),
  /** From its docs (not captured): a completed `tool_call` whose `<kind>ToolCall.result` is `{rejected}`. */
  denials() {
    const started = new Map<string, Obj>();
    return {
      event(e) {
        if (e['type'] !== 'tool_call' || !isRecord(e['tool_call'])) return [];
        const [key, call] = Object.entries(e['tool_call'])[0] ?? [];
        if (!key || !isRecord(call)) return [];
        const id = str(e['call_id']) ?? '';
        if (e['subtype'] === 'started') started.set(id, call);
        const result = call['result'];
        if (e['subtype'] !== 'completed' || !isRecord(result) || !isRecord(result['rejected'])) return [];
        const rejected = result['rejected'];
        const args = call['args'] ?? started.get(id)?.['args'];
        const tool = key.replace(/ToolCall$/, '');
        const input = str(rejected['command']) ? rejected : args;
        return [denial(tool, input, TOOLS, str(rejected['reason']) || undefined)];
      },
    };
  },
  sandbox: 'Cursor runs shell commands in its sandbox (--sandbox enabled), checks too',
  ignores: { ...OWN_ARGV, transport: NO_ACP },
  widening: {
    files: ['.cursor/**'],
    settings: Object.entries(SETTINGS).map(([path, key]) => `${key} (${path})`),
    how:
      'Cursor CLI has no flag that leaves the project configuration out: sow refuses to start a safe worker while ' +
      '.cursor/ grants, starts or hooks something',
    check: () =>
      Object.fromEntries(Object.entries(SETTINGS).map(([path, key]) => [path, (text) => jsonWidening(text, [key])])),
  },
  integration,
};
