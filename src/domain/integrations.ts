// The parts of what `sow install` writes (files, JSON keys to merge, managed sections), composed by each executor
// module. Pure: the app reads templates and disk.
import { createHash } from 'node:crypto';
import { SowError } from './errors.js';
import { appendEntry, memberOf, removeEntry, sameJson, scanJson, valueOf } from './json-text.js';
import { isRecord } from './json.js';

/** The texts every target is generated from (templates/integrations/). */
export interface IntegrationSources {
  readonly skill: string;
  readonly agentsSection: string;
  /** The role prompt, with {{role}}, {{description}}, {{first}} (the command that loads the role's guidance). */
  readonly agent: string;
  /** Each slash command's body, with {{run:<command>}} for output inlined when it runs, and $ARGUMENTS. */
  readonly commands: Readonly<Record<CommandName, string>>;
  readonly version: string;
}

export const COMMANDS = ['start', 'continue', 'status', 'advance', 'spawn'] as const;
export type CommandName = (typeof COMMANDS)[number];
/** Each command's description is the one line Claude Code lists always (every session pays for it): when to use it. */
export const COMMAND_META: Record<CommandName, { description: string; args?: string }> = {
  start: { description: 'Start a sow project on this branch', args: '<name> [--type <type>] [--description "…"]' },
  continue: { description: "How to do the sow project's current step" },
  status: { description: 'Show the sow project state and tasks' },
  advance: { description: 'Advance the sow project when its guard holds' },
  spawn: { description: 'Give a sow task to a worker agent', args: '<agent> <task-id> | <agent> --next' },
};

/** A whole file sow owns. */
export interface OwnedFile {
  kind: 'file';
  path: string;
  content: string;
}
// A planned change: a file sow owns, keys added to a user's JSON file (.claude/settings.json, .mcp.json), or a marked
// section in a user's file (AGENTS.md).
export type Planned =
  OwnedFile | { kind: 'json'; path: string; add: JsonAddition } | { kind: 'section'; path: string; content: string };

/** What sow adds to a JSON file: hook commands by event, and MCP servers by name. */
export interface JsonAddition {
  hooks?: Readonly<Record<string, readonly string[]>>;
  mcpServers?: Readonly<Record<string, { command: string; args: readonly string[] }>>;
}

/** What `sow install <cli>` writes for one agent CLI: its executor module owns it (adapters/executors/<cli>.ts). */
export interface Integration {
  /** What it writes into a repository. */
  repository(s: IntegrationSources, opts: { withMcp: boolean }): Planned[];
  /** What `--plugin <dir>` writes instead, for a CLI that takes plugins. */
  plugin?(s: IntegrationSources, opts: { withMcp: boolean }): Planned[];
}

export const SKILL_DESCRIPTION =
  'How to work through sow here. Use when the user mentions sow, a project, a task id (010) or advancing.';

export const yamlString = (s: string) => JSON.stringify(s);
export const frontmatter = (fields: Record<string, string | undefined>) =>
  `---\n${Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n')}\n---\n\n`;

export const skillFile = (s: IntegrationSources) =>
  `${frontmatter({ name: 'sow', description: yamlString(SKILL_DESCRIPTION) })}${s.skill.trim()}\n`;

/** A slash command's body, with each `{{run:<command>}}` in the CLI's own form of "run this when used". */
export const commandBody = (s: IntegrationSources, name: CommandName, run: (cmd: string) => string) =>
  s.commands[name].replace(/\{\{run:([^}]+)\}\}/g, (_m, cmd: string) => run(cmd.trim()));

export const agentsMd = (s: IntegrationSources, path = 'AGENTS.md'): Planned => ({
  kind: 'section',
  path,
  content: s.agentsSection.trim(),
});

/** Codex, Copilot and opencode read the shared Agent Skills folder and AGENTS.md. */
export const SKILL_AND_AGENTS_MD: Integration = {
  repository: (s) => [{ kind: 'file', path: '.agents/skills/sow/SKILL.md', content: skillFile(s) }, agentsMd(s)],
};

/** Where a new version goes when the person changed what sow wrote: beside it. */
export const besides = (path: string): string => `${path}.sow-new`;

/** What sow writes into the `.sow-new` file beside a planned path (nothing for merged JSON: it never goes beside). */
export function besideText(p: Planned): string | undefined {
  if (p.kind === 'file') return p.content;
  if (p.kind === 'section') return withSection('', p.content);
  return undefined;
}

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

// ---- JSON merging: sow's entries in, exactly those out, every other byte as the person wrote it ----

const hasHook = (groups: unknown, command: string) =>
  Array.isArray(groups) &&
  groups.some(
    (g: { hooks?: { command?: string }[] }) => Array.isArray(g?.hooks) && g.hooks.some((h) => h?.command === command),
  );
const hookGroup = (commands: readonly string[]) => ({
  hooks: commands.map((command) => ({ type: 'command', command })),
});

/** Hook commands by event, as the hook groups Claude Code's settings and plugins hold. */
export const hookMap = (hooks: NonNullable<JsonAddition['hooks']>) =>
  Object.fromEntries(Object.entries(hooks).map(([event, commands]) => [event, [hookGroup(commands)]]));

/** A group sow wrote: only `hooks`, each a command hook running one of `commands`. */
function isSowGroup(g: unknown, commands: readonly string[]): boolean {
  if (!isRecord(g) || Object.keys(g).length !== 1 || !Array.isArray(g['hooks']) || g['hooks'].length === 0)
    return false;
  return g['hooks'].every(
    (h: unknown) =>
      isRecord(h) &&
      typeof h['command'] === 'string' &&
      commands.includes(h['command']) &&
      sameJson(h, { type: 'command', command: h['command'] }),
  );
}

/** The keys sow makes when a file has none of `add`'s: `hooks`, `hooks.<event>`, `mcpServers`. */
const makeableKeys = (add: JsonAddition): string[] => [
  ...(add.hooks ? ['hooks', ...Object.keys(add.hooks).map((e) => `hooks.${e}`)] : []),
  ...(add.mcpServers ? ['mcpServers'] : []),
];

/** An addition of these hooks and servers, without an empty part. */
const addition = (
  hooks: Record<string, readonly string[]>,
  servers: JsonAddition['mcpServers'] & object,
): JsonAddition => ({
  ...(Object.keys(hooks).length ? { hooks } : {}),
  ...(Object.keys(servers).length ? { mcpServers: servers } : {}),
});

// `text` (JSON already accepted, or undefined: no file) with sow's missing hooks and servers added (and which, and the
// keys it made); a server of sow's name set up otherwise stays. Throws when a needed key is taken.
export function addToJson(
  text: string | undefined,
  add: JsonAddition,
  path: string,
): { text: string; added: JsonAddition; made: string[] } {
  // No file: an empty object, which the entries go into as into any other.
  let t = text ?? '{\n}\n';
  const hooksAdded: Record<string, string[]> = {};
  const serversAdded: Record<string, { command: string; args: readonly string[] }> = {};
  const made: string[] = [];
  // A settings file of the agent CLI that sow must read and cannot use: like a state file, exit 4.
  const notA = (key: string, what: string, why: string) =>
    new SowError(
      'INTEGRATION_FILE_INVALID',
      'state',
      `${path}: '${key}' is not a ${what}, so sow cannot add its ${why}`,
      `fix ${path}, then run the install again`,
    );
  if (add.hooks) {
    const hooks = memberOf(scanJson(t), 'hooks');
    if (!hooks) {
      t = appendEntry(t, scanJson(t), hookMap(add.hooks), 'hooks');
      made.push(...makeableKeys({ hooks: add.hooks }));
      Object.assign(hooksAdded, add.hooks);
    } else {
      if (hooks.value.type !== 'object') throw notA('hooks', 'map', 'hooks');
      for (const [event, commands] of Object.entries(add.hooks)) {
        const map = memberOf(scanJson(t), 'hooks')!.value;
        const groups = memberOf(map, event);
        if (!groups) {
          t = appendEntry(t, map, [hookGroup(commands)], event);
          made.push(`hooks.${event}`);
          hooksAdded[event] = [...commands];
          continue;
        }
        if (groups.value.type !== 'array') throw notA(`hooks.${event}`, 'list', 'hook');
        const missing = commands.filter((c) => !hasHook(valueOf(t, groups.value), c));
        if (missing.length === 0) continue;
        t = appendEntry(t, groups.value, hookGroup(missing));
        hooksAdded[event] = missing;
      }
    }
  }
  if (add.mcpServers) {
    const servers = memberOf(scanJson(t), 'mcpServers');
    if (!servers) {
      t = appendEntry(t, scanJson(t), { ...add.mcpServers }, 'mcpServers');
      made.push('mcpServers');
      Object.assign(serversAdded, add.mcpServers);
    } else {
      if (servers.value.type !== 'object') throw notA('mcpServers', 'map', 'server');
      for (const [name, server] of Object.entries(add.mcpServers)) {
        const map = memberOf(scanJson(t), 'mcpServers')!.value;
        if (memberOf(map, name)) continue;
        t = appendEntry(t, map, server, name);
        serversAdded[name] = server;
      }
    }
  }
  return { text: t, added: addition(hooksAdded, serversAdded), made };
}

// `text` without sow's hook groups and servers (only exactly as written) and the keys it made once empty, each cut out
// as text so the rest keeps its bytes.
export function removeFromJson(text: string, added: JsonAddition, made: readonly string[]): string {
  let t = text;
  const hooksMap = () => {
    const m = memberOf(scanJson(t), 'hooks');
    return m?.value.type === 'object' ? m.value : undefined;
  };
  for (const [event, commands] of Object.entries(added.hooks ?? {})) {
    for (;;) {
      const map = hooksMap();
      const groups = map && memberOf(map, event)?.value;
      if (groups?.type !== 'array') break;
      const i = groups.items.findIndex((g) => isSowGroup(valueOf(t, g), commands));
      if (i < 0) break;
      t = removeEntry(t, groups, i);
    }
    const map = hooksMap();
    const member = map && memberOf(map, event);
    if (map && member?.value.type === 'array' && member.value.items.length === 0 && made.includes(`hooks.${event}`))
      t = removeEntry(t, map, map.members.indexOf(member));
  }
  const emptyMade = (key: string) => {
    const root = scanJson(t);
    const m = memberOf(root, key);
    if (root.type === 'object' && m?.value.type === 'object' && m.value.members.length === 0 && made.includes(key))
      t = removeEntry(t, root, root.members.indexOf(m));
  };
  if (added.hooks) emptyMade('hooks');
  for (const [name, server] of Object.entries(added.mcpServers ?? {})) {
    const map = memberOf(scanJson(t), 'mcpServers')?.value;
    const m = map && memberOf(map, name);
    if (map?.type === 'object' && m && sameJson(valueOf(t, m.value), server))
      t = removeEntry(t, map, map.members.indexOf(m));
  }
  if (added.mcpServers) emptyMade('mcpServers');
  return t;
}

/** What a record claims sow added, cut to what sow's plan adds: a record is a claim, never an order. */
export function claimedAddition(claim: unknown, plan: JsonAddition): JsonAddition {
  const c = isRecord(claim) ? claim : {};
  const hooks: Record<string, string[]> = {};
  const claimedHooks = isRecord(c['hooks']) ? c['hooks'] : {};
  for (const [event, commands] of Object.entries(plan.hooks ?? {})) {
    const claimed = Object.hasOwn(claimedHooks, event) ? claimedHooks[event] : undefined;
    const ours = Array.isArray(claimed) ? commands.filter((cmd) => claimed.includes(cmd)) : [];
    if (ours.length) hooks[event] = ours;
  }
  const claimedServers = isRecord(c['mcpServers']) ? c['mcpServers'] : {};
  const servers = Object.fromEntries(
    Object.entries(plan.mcpServers ?? {}).filter(([name]) => Object.hasOwn(claimedServers, name)),
  );
  return addition(hooks, servers);
}

/** The keys a record says sow made (`hooks`, `hooks.Stop`, `mcpServers`), as far as sow's `plan` can make them. */
export function claimedMade(claim: unknown, plan: JsonAddition): string[] {
  const makeable = makeableKeys(plan);
  return Array.isArray(claim) ? claim.filter((k): k is string => typeof k === 'string' && makeable.includes(k)) : [];
}

/** Both additions in one: each hook command and server once. */
export function unionAddition(a: JsonAddition, b: JsonAddition): JsonAddition {
  const hooks: Record<string, string[]> = {};
  for (const add of [a, b])
    for (const [event, commands] of Object.entries(add.hooks ?? {}))
      hooks[event] = [...new Set([...(hooks[event] ?? []), ...commands])];
  const servers = { ...a.mcpServers, ...b.mcpServers };
  return addition(hooks, servers);
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

// `text` with the section set to `content`, replaced or appended with a line break either side: exactly what
// withoutSection takes out, so the rest comes back byte for byte.
export function withSection(text: string, content: string): string {
  const block = `${SECTION_BEGIN}\n${content}\n${SECTION_END}`;
  const b = BEGIN_RE.exec(text);
  const e = b ? text.indexOf(SECTION_END, b.index) : -1;
  if (b && e >= 0) return `${text.slice(0, b.index)}${block}${text.slice(e + SECTION_END.length)}`;
  return text === '' ? `${block}\n` : `${text}\n${block}\n`;
}

/** `text` without the section, the line break after it and the one before it (what withSection added). */
export function withoutSection(text: string): string {
  const b = BEGIN_RE.exec(text);
  const e = b ? text.indexOf(SECTION_END, b.index) : -1;
  if (!b || e < 0) return text;
  let before = text.slice(0, b.index);
  let after = text.slice(e + SECTION_END.length);
  if (after.startsWith('\n')) after = after.slice(1);
  if (before.endsWith('\n')) before = before.slice(0, -1);
  return `${before}${after}`;
}
