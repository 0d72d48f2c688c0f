/**
 * `sow install <target>`: what sow writes into a repository (or a plugin folder) so that each
 * agent CLI knows sow — generated from the same templates for every target. Pure: the files to
 * write, the JSON keys to merge, the managed sections; the app reads the templates and the disk.
 */
import { createHash } from 'node:crypto';
import { AGENTS, ORCHESTRATOR, type AgentDef } from './agents.js';
import { UsageError } from './errors.js';

export const TARGETS = ['claude', 'codex', 'gemini', 'copilot', 'opencode', 'cursor'] as const;
export type Target = (typeof TARGETS)[number];

export function parseTarget(raw: string, allowAll = true): Target[] {
  if (allowAll && raw === 'all') return [...TARGETS];
  if ((TARGETS as readonly string[]).includes(raw)) return [raw as Target];
  throw new UsageError(`unknown target '${raw}'`, `targets: ${TARGETS.join(', ')}${allowAll ? ', or all' : ''}`);
}

/** The texts every target is generated from (templates/integrations/). */
export interface IntegrationSources {
  readonly skill: string;
  readonly agentsSection: string;
  /** The role prompt, with {{role}}, {{description}}, {{guidance}}. */
  readonly agent: string;
  /** Each slash command's body, with {{run:<command>}} for output inlined when it runs, and $ARGUMENTS. */
  readonly commands: Readonly<Record<CommandName, string>>;
  readonly version: string;
}

export const COMMANDS = ['start', 'continue', 'status', 'advance', 'spawn'] as const;
export type CommandName = (typeof COMMANDS)[number];
const COMMAND_META: Record<CommandName, { description: string; args?: string }> = {
  start: { description: 'Start a sow project on this branch', args: '<name> [--type <type>] [--description "…"]' },
  continue: { description: 'Where the sow project stands, and what to do now' },
  status: { description: "The sow project's state, tasks and next steps" },
  advance: { description: 'Move the sow project on when its guard holds' },
  spawn: { description: 'Delegate a sow task to a worker agent', args: '<agent> <task-id> | <agent> --next' },
};

/** A whole file sow owns. */
export interface OwnedFile { kind: 'file'; path: string; content: string }
/** Keys sow adds to a JSON file the user may also use (.claude/settings.json, .mcp.json). */
export interface JsonMerge { kind: 'json'; path: string; add: JsonAddition }
/** A section between markers in a file the user owns (AGENTS.md). */
export interface ManagedSection { kind: 'section'; path: string; content: string }
export type Planned = OwnedFile | JsonMerge | ManagedSection;

/** What sow adds to a JSON file: hook commands by event, and MCP servers by name. */
export interface JsonAddition {
  hooks?: Readonly<Record<string, readonly string[]>>;
  mcpServers?: Readonly<Record<string, { command: string; args: readonly string[] }>>;
}

export const SESSION_START_COMMAND = 'sow project continue';
export const STOP_COMMAND = 'sow hook stop';
const HOOKS: JsonAddition = { hooks: { SessionStart: [SESSION_START_COMMAND], Stop: [STOP_COMMAND] } };
const MCP: JsonAddition = { mcpServers: { sow: { command: 'sow', args: ['mcp'] } } };

export const SKILL_DESCRIPTION = 'How this repository runs work through sow (projects, tasks, guarded advance, workers reporting back). Use at the start of any session, and whenever the user mentions sow, a project, a task id like 010, or advancing.';

const yamlString = (s: string) => JSON.stringify(s);
const frontmatter = (fields: Record<string, string | undefined>) =>
  `---\n${Object.entries(fields).filter(([, v]) => v !== undefined).map(([k, v]) => `${k}: ${v}`).join('\n')}\n---\n\n`;

const skillFile = (s: IntegrationSources) => `${frontmatter({ name: 'sow', description: yamlString(SKILL_DESCRIPTION) })}${s.skill.trim()}\n`;

function render(template: string, vars: Readonly<Record<string, string>>): string {
  return template.replace(/\{\{\s*([a-z_]+)\s*\}\}/g, (_m, key: string) => vars[key] ?? `{{${key}}}`);
}

function agentFile(s: IntegrationSources, a: AgentDef): string {
  const body = render(s.agent, { role: a.name, description: a.description.charAt(0).toLowerCase() + a.description.slice(1), guidance: a.guidance });
  const use = a.scope === 'project' ? 'Use for project-wide work of this role.' : 'Use to delegate a sow task: give it the task id.';
  return `${frontmatter({ name: `sow-${a.name}`, description: yamlString(`sow ${a.name}: ${a.description}. ${use}`) })}${body.trim()}\n`;
}

/** Claude Code: `!` + backticks runs a command when the slash command is used. */
const claudeCommand = (s: IntegrationSources, name: CommandName) => {
  const meta = COMMAND_META[name];
  const body = s.commands[name].replace(/\{\{run:([^}]+)\}\}/g, (_m, cmd: string) => `!\`${cmd.trim()}\``);
  return `${frontmatter({ description: yamlString(meta.description), 'argument-hint': meta.args ? yamlString(meta.args) : undefined, 'allowed-tools': 'Bash(sow:*)' })}${body.trim()}\n`;
};

/** Gemini CLI: TOML, `!{…}` runs a command, `{{args}}` are the arguments. */
const geminiCommand = (s: IntegrationSources, name: CommandName) => {
  const body = s.commands[name].replace(/\{\{run:([^}]+)\}\}/g, (_m, cmd: string) => `!{${cmd.trim()}}`).replace(/\$ARGUMENTS/g, '{{args}}').trim();
  return `description = ${JSON.stringify(COMMAND_META[name].description)}\nprompt = """\n${body.replace(/"""/g, '\\"\\"\\"')}\n"""\n`;
};

const cursorRule = (s: IntegrationSources) => `${frontmatter({ description: yamlString(SKILL_DESCRIPTION), alwaysApply: 'true' })}${s.skill.trim()}\n`;

const ROLES: readonly AgentDef[] = [ORCHESTRATOR, ...AGENTS];

/** The Claude Code execution layer, under `base` (`.claude` in a repository, or a plugin's root). */
function claudeLayer(s: IntegrationSources, base: string, commandsDir: string): OwnedFile[] {
  return [
    ...ROLES.map((a): OwnedFile => ({ kind: 'file', path: `${base}agents/sow-${a.name}.md`, content: agentFile(s, a) })),
    ...COMMANDS.map((c): OwnedFile => ({ kind: 'file', path: `${base}${commandsDir}${c}.md`, content: claudeCommand(s, c) })),
    { kind: 'file', path: `${base}skills/sow/SKILL.md`, content: skillFile(s) },
  ];
}

const sharedSkill = (s: IntegrationSources): OwnedFile => ({ kind: 'file', path: '.agents/skills/sow/SKILL.md', content: skillFile(s) });
const agentsMd = (s: IntegrationSources, path = 'AGENTS.md'): ManagedSection => ({ kind: 'section', path, content: s.agentsSection.trim() });

/** What `sow install <target>` writes into a repository. */
export function planRepository(target: Target, s: IntegrationSources, opts: { withMcp?: boolean } = {}): Planned[] {
  switch (target) {
    case 'claude':
      return [...claudeLayer(s, '.claude/', 'commands/sow/'), { kind: 'json', path: '.claude/settings.json', add: HOOKS }, ...(opts.withMcp ? [{ kind: 'json' as const, path: '.mcp.json', add: MCP }] : [])];
    case 'codex':
    case 'copilot':
    case 'opencode':
      return [sharedSkill(s), agentsMd(s)];
    case 'gemini':
      return [
        { kind: 'file', path: '.gemini/skills/sow/SKILL.md', content: skillFile(s) },
        ...COMMANDS.map((c): OwnedFile => ({ kind: 'file', path: `.gemini/commands/sow/${c}.toml`, content: geminiCommand(s, c) })),
        agentsMd(s, 'GEMINI.md'),
      ];
    case 'cursor':
      return [{ kind: 'file', path: '.cursor/rules/sow.mdc', content: cursorRule(s) }, agentsMd(s)];
  }
}

/** What `sow install claude --plugin <dir>` writes: a Claude Code plugin, and a marketplace of one. */
export function planPlugin(s: IntegrationSources, opts: { withMcp?: boolean } = {}): Planned[] {
  const description = 'sow: steer AI coding agents through a guarded plan → implement → review → finalize lifecycle, with all state in .sow/';
  const manifest = { name: 'sow', version: s.version, description, author: { name: 'sow' }, keywords: ['workflow', 'agents', 'tasks'] };
  const marketplace = { name: 'sow', owner: { name: 'sow' }, metadata: { description }, plugins: [{ name: 'sow', source: './', description, version: s.version }] };
  const hooks = { hooks: Object.fromEntries(Object.entries(HOOKS.hooks!).map(([event, cmds]) => [event, [{ hooks: cmds.map((command) => ({ type: 'command', command })) }]])) };
  return [
    { kind: 'file', path: '.claude-plugin/plugin.json', content: `${JSON.stringify(manifest, null, 2)}\n` },
    { kind: 'file', path: '.claude-plugin/marketplace.json', content: `${JSON.stringify(marketplace, null, 2)}\n` },
    ...claudeLayer(s, '', 'commands/'),
    { kind: 'file', path: 'hooks/hooks.json', content: `${JSON.stringify(hooks, null, 2)}\n` },
    ...(opts.withMcp ? [{ kind: 'file' as const, path: '.mcp.json', content: `${JSON.stringify({ mcpServers: MCP.mcpServers }, null, 2)}\n` }] : []),
  ];
}

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

// ---- JSON merging: sow's keys in, sow's keys out, nothing else touched ----

type Json = Record<string, unknown>;
const isObj = (x: unknown): x is Json => typeof x === 'object' && x !== null && !Array.isArray(x);
interface HookGroup { matcher?: string; hooks?: { type?: string; command?: string }[] }

const hasHook = (groups: unknown, command: string) => Array.isArray(groups) && groups.some((g: HookGroup) => Array.isArray(g?.hooks) && g.hooks.some((h) => h?.command === command));

/** `data` with sow's hooks and servers added (each once); throws when a key sow needs holds something else. */
export function mergeJson(data: Json, add: JsonAddition, path: string): Json {
  const out: Json = { ...data };
  if (add.hooks) {
    if (out['hooks'] !== undefined && !isObj(out['hooks'])) throw new UsageError(`${path}: 'hooks' is not a map, so sow cannot add its hooks`, `fix ${path}, then run the install again`);
    const hooks: Json = { ...((out['hooks'] as Json | undefined) ?? {}) };
    for (const [event, commands] of Object.entries(add.hooks)) {
      const groups = hooks[event] ?? [];
      if (!Array.isArray(groups)) throw new UsageError(`${path}: 'hooks.${event}' is not a list, so sow cannot add its hook`, `fix ${path}, then run the install again`);
      const missing = commands.filter((c) => !hasHook(groups, c));
      hooks[event] = missing.length ? [...groups, { hooks: missing.map((command) => ({ type: 'command', command })) }] : groups;
    }
    out['hooks'] = hooks;
  }
  if (add.mcpServers) {
    if (out['mcpServers'] !== undefined && !isObj(out['mcpServers'])) throw new UsageError(`${path}: 'mcpServers' is not a map, so sow cannot add its server`, `fix ${path}, then run the install again`);
    out['mcpServers'] = { ...((out['mcpServers'] as Json | undefined) ?? {}), ...add.mcpServers };
  }
  return out;
}

/** `data` without what sow added (and without the maps and lists that only sow's entries filled). */
export function unmergeJson(data: Json, add: JsonAddition): Json {
  const out: Json = { ...data };
  if (add.hooks && isObj(out['hooks'])) {
    const hooks: Json = { ...out['hooks'] };
    for (const [event, commands] of Object.entries(add.hooks)) {
      if (!Array.isArray(hooks[event])) continue;
      const groups = (hooks[event] as HookGroup[])
        .map((g) => (Array.isArray(g?.hooks) ? { ...g, hooks: g.hooks.filter((h) => !commands.includes(h?.command ?? '')) } : g))
        .filter((g) => !Array.isArray(g?.hooks) || g.hooks.length > 0);
      if (groups.length) hooks[event] = groups;
      else delete hooks[event];
    }
    if (Object.keys(hooks).length) out['hooks'] = hooks;
    else delete out['hooks'];
  }
  if (add.mcpServers && isObj(out['mcpServers'])) {
    const servers: Json = { ...out['mcpServers'] };
    for (const name of Object.keys(add.mcpServers)) delete servers[name];
    if (Object.keys(servers).length) out['mcpServers'] = servers;
    else delete out['mcpServers'];
  }
  return out;
}

// ---- managed sections ----

export const SECTION_BEGIN = '<!-- sow:begin (written by `sow install`; edit outside these markers) -->';
export const SECTION_END = '<!-- sow:end -->';
const BEGIN_RE = /<!-- sow:begin[^>]*-->/;

/** The section's content in `text`, if it has one. */
export function sectionOf(text: string): string | undefined {
  const b = BEGIN_RE.exec(text);
  if (!b) return undefined;
  const e = text.indexOf(SECTION_END, b.index);
  if (e < 0) return undefined;
  return text.slice(b.index + b[0].length, e).trim();
}

/** `text` with the section set to `content` (appended at the end when it has none). */
export function withSection(text: string, content: string): string {
  const block = `${SECTION_BEGIN}\n${content}\n${SECTION_END}`;
  const b = BEGIN_RE.exec(text);
  const e = b ? text.indexOf(SECTION_END, b.index) : -1;
  if (b && e >= 0) return `${text.slice(0, b.index)}${block}${text.slice(e + SECTION_END.length)}`;
  return text.trim() === '' ? `${block}\n` : `${text.replace(/\n*$/, '\n\n')}${block}\n`;
}

/** `text` without the section (and the blank line before it). */
export function withoutSection(text: string): string {
  const b = BEGIN_RE.exec(text);
  const e = b ? text.indexOf(SECTION_END, b.index) : -1;
  if (!b || e < 0) return text;
  const rest = `${text.slice(0, b.index).replace(/\n+$/, '\n')}${text.slice(e + SECTION_END.length).replace(/^\n/, '')}`;
  return rest.trim() === '' ? '' : rest;
}
