/** `sow install|uninstall <target>` and `sow hook stop`: sow inside the agent CLIs. */
import { installTargets } from '../adapters/executors/registry.js';
import { shown } from '../domain/display.js';
import { command, type CommandDef } from '../model/def.js';

declare const SOW_VERSION: string;
const version = () => (typeof SOW_VERSION === 'string' ? SOW_VERSION : '0.0.0-dev');

const TARGET_HELP = `${installTargets().join(', ')}, or all`;

function render(r: { base: string; files: { path: string; outcome: string; note?: string }[] }): string {
  const width = Math.max(...r.files.map((f) => f.outcome.length), 7);
  return r.files
    .map((f) => `${f.outcome.padEnd(width)}  ${shown(f.path)}${f.note ? `  (${shown(f.note)})` : ''}`)
    .join('\n');
}

export const install = command({
  name: 'install',
  description:
    'Teach an agent CLI about sow: sub-agents, slash commands and hooks (claude), an Agent Skill, AGENTS.md, ' +
    'Gemini commands, a Cursor rule',
  args: [{ name: 'target', description: TARGET_HELP }],
  options: [
    {
      flags: '--plugin <dir>',
      description: 'claude: write a Claude Code plugin (with a marketplace manifest) into <dir> instead of .claude/',
    },
    { flags: '--with-mcp', description: "claude: also register sow's MCP server (.mcp.json, or the plugin's)" },
  ],
  help: `What each target gets (all from the same templates):
  claude    .claude/agents/sow-<role>.md, .claude/commands/sow/*.md (/sow:continue …), .claude/skills/sow/SKILL.md,
            hooks in .claude/settings.json (SessionStart: sow project continue; Stop: a reminder to report back)
  codex, copilot, opencode   .agents/skills/sow/SKILL.md and a section in AGENTS.md
  gemini    .gemini/skills/sow/SKILL.md, .gemini/commands/sow/*.toml (/sow:status …), a section in GEMINI.md
  cursor    .cursor/rules/sow.mdc and a section in AGENTS.md

Installing again upgrades what sow wrote and leaves files you edited alone (the new version goes
beside them as <file>.sow-new). What sow wrote is recorded in .sow/integrations.yaml; commit it.`,
  async run(ctx, { args, opts }) {
    const { install } = await import('../app/install.js');
    const r = await install(ctx.app.cwd, args[0] as string, {
      plugin: opts.plugin,
      withMcp: opts.withMcp === true,
      version: version(),
    });
    const kept = r.files.filter((f) => f.outcome === 'kept' || f.outcome === 'skipped').length;
    const next = r.plugin
      ? `try it: claude --plugin-dir ${r.base}; share it: /plugin marketplace add <its git URL or path>`
      : r.targets.includes('claude')
        ? 'start claude in this repository: the SessionStart hook gives it the project state'
        : 'commit the files and .sow/integrations.yaml';
    const did = r.plugin ? 'Wrote the sow plugin' : `Installed sow for ${r.targets.join(', ')}`;
    const left = kept ? ` (${kept} file${kept === 1 ? '' : 's'} left as you had ${kept === 1 ? 'it' : 'them'})` : '';
    return { data: r, text: render(r), message: `${did}${left}. Next: ${next}` };
  },
});

export const uninstall = command({
  name: 'uninstall',
  description: 'Remove exactly what sow install wrote for a target (files you edited are left, and named)',
  args: [{ name: 'target', description: TARGET_HELP }],
  options: [{ flags: '--plugin <dir>', description: 'claude: the plugin folder sow install wrote' }],
  async run(ctx, { args, opts }) {
    const { uninstall } = await import('../app/install.js');
    const r = await uninstall(ctx.app.cwd, args[0] as string, { plugin: opts.plugin, version: version() });
    const summary = r.files.length
      ? `Uninstalled sow for ${r.targets.join(', ')}`
      : `Nothing of sow was installed for ${r.targets.join(', ')}`;
    return { data: r, text: render(r), message: [...r.warnings.map((w) => `warning: ${w}`), summary].join('\n') };
  },
});

export const hook: readonly CommandDef[] = [
  command({
    name: 'hook stop',
    description:
      "Claude Code's Stop hook: reminds a worker sow spawned to report back before it stops (reads the hook's " +
      'JSON on stdin)',
    writes: false,
    async run(ctx) {
      const { stopHook } = await import('../app/hook.js');
      const { readBounded, MAX_HOOK_INPUT_BYTES } = await import('../adapters/stdin.js');
      const input = process.stdin.isTTY
        ? ''
        : await readBounded(
            MAX_HOOK_INPUT_BYTES,
            "the hook's input on stdin",
            "Claude Code gives its Stop hook a small JSON object; check what pipes into 'sow hook stop'",
          );
      const decision = await stopHook(ctx.app, input);
      return { data: decision, ...(decision.decision ? { text: JSON.stringify(decision) } : {}) };
    },
  }),
];
