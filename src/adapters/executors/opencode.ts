// opencode: safe is OPENCODE_PERMISSION, merged over every config layer (last matching pattern wins: catch-all first);
// anything else is asked, which `opencode run` refuses. continue_loop_on_deny goes in OPENCODE_CONFIG;
// OPENCODE_DISABLE_PROJECT_CONFIG skips a project's config (an agent's own `permission` would beat ours).
import { dirname, join } from 'node:path';
import {
  checksOf,
  agentCli,
  custom,
  denial,
  listed,
  reportedSession,
  str,
  usageOf,
  saidLine,
  type Grant,
} from './shared.js';
import { isRecord } from '../../domain/json.js';
import { SKILL_AND_AGENTS_MD } from '../../domain/integrations.js';
import type { ExecutorModule, InvocationContext } from './types.js';

/** What a safe worker runs with: the project's own configuration is not loaded. */
const NO_PROJECT_CONFIG = { OPENCODE_DISABLE_PROJECT_CONFIG: 'true' } as const;

export const opencodePermission = (checks: readonly string[]) => ({
  edit: 'allow',
  bash: { '*': 'ask', sow: 'allow', 'sow *': 'allow', ...Object.fromEntries(checks.map((c) => [c, 'allow'])) },
  webfetch: 'ask',
  external_directory: 'ask',
});
/** The configuration file a safe worker is given: a refused tool call does not end its run. */
const SAFE_CONFIG = { $schema: 'https://opencode.ai/config.json', experimental: { continue_loop_on_deny: true } };
const grant = (ctx: InvocationContext): Grant => {
  if (ctx.permissions === 'yolo') return { args: ['--auto'], files: [] };
  const path = join(dirname(ctx.promptFile), 'opencode-sow.json');
  return {
    args: [],
    env: {
      OPENCODE_PERMISSION: JSON.stringify(opencodePermission(checksOf(ctx))),
      OPENCODE_CONFIG: path,
      ...NO_PROJECT_CONFIG,
    },
    files: [{ path, text: `${JSON.stringify(SAFE_CONFIG, null, 2)}\n` }],
    notes: [
      `permissions=safe: opencode may edit files in the repository and run ${listed(ctx)} (OPENCODE_PERMISSION); ` +
        `it refuses anything else and goes on (${path})`,
      'permissions=safe: opencode loads no configuration of the repository (OPENCODE_DISABLE_PROJECT_CONFIG: not ' +
        'opencode.json, .opencode/ or AGENTS.md)',
    ],
  };
};

const TOOLS = { command: ['bash'], edit: ['write', 'edit', 'patch', 'multiedit'] };
/** opencode's permission errors carry no code, only these fixed texts. */
const REFUSED =
  /^The user (rejected permission to use|has specified a rule which prevents you from using) this specific tool call/;

export const opencode: ExecutorModule = {
  type: 'opencode',
  title: 'opencode',
  install: 'npm install -g opencode-ai',
  sessionIds: 'reported',
  // Over ACP opencode asks its client only where its permission config says "ask"; otherwise it just acts.
  acp: {
    args: (c) => ['acp', ...custom(c)],
    env: ({ permissions }) => ({
      OPENCODE_PERMISSION: JSON.stringify({ edit: 'ask', bash: 'ask', webfetch: 'ask', external_directory: 'ask' }),
      ...(permissions === 'safe' ? NO_PROJECT_CONFIG : {}),
    }),
  },
  sessionFromEvent: (e) =>
    reportedSession(e['sessionID'] ?? (isRecord(e['part']) ? e['part']['sessionID'] : undefined)),
  ...agentCli(
    'opencode',
    '-m',
    (ctx, resume) => ['run', '--format', 'json', '--dir', ctx.cwd, ...(resume ? ['--session', ctx.sessionId!] : [])],
    grant,
  ),
  sessionGone: (stderr) => saidLine(stderr, /Error: Session not found/),
  // Each `step_finish` has that step's tokens and cost.
  usage: (e) => {
    const part = e['part'];
    return e['type'] === 'step_finish' && isRecord(part) && isRecord(part['tokens'])
      ? usageOf(part['tokens']['input'], part['tokens']['output'], part['cost'])
      : undefined;
  },
  // Its events read through the generic fields (part.text, part.tool, part.state).
  /** A `tool_use` whose `part.state.status` is "error" with one of opencode's permission errors. */
  denials: () => ({
    event(e) {
      const part = e['part'];
      if (e['type'] !== 'tool_use' || !isRecord(part) || !isRecord(part['state'])) return [];
      const state = part['state'];
      const error = str(state['error']);
      if (state['status'] !== 'error' || !error || !REFUSED.test(error)) return [];
      return [denial(str(part['tool']) ?? 'unknown', state['input'], TOOLS, error)];
    },
  }),
  widening: {
    files: ['opencode.json', 'opencode.jsonc', '.opencode/**'],
    settings: ['permission', 'agent.*.permission', 'mcp', 'plugin', 'formatter', 'lsp', 'experimental.hook', 'tools'],
    how:
      'a safe worker runs with OPENCODE_DISABLE_PROJECT_CONFIG=true: opencode loads no configuration of the ' +
      'repository',
  },
  integration: SKILL_AND_AGENTS_MD,
};
