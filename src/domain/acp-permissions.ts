/**
 * What a worker on the ACP transport may do: every `session/request_permission` an agent asks is
 * answered here, by one rule for every CLI, instead of six flag mappings approximating it.
 *
 * - yolo: everything.
 * - safe: reading and searching inside the repository; editing, deleting and moving files inside
 *   it (never inside `.git/`); running `sow` itself and the declared checks the person allowed, each
 *   as one plain command (no `;`, `&&`, pipes, redirections or substitutions that could smuggle in
 *   another); sow's own tools through the `sow mcp` server sow hands the agent (what the worker may
 *   run as `sow` anyway); thinking. Nothing else: no command, fetch, mode switch or tool sow does
 *   not know.
 *
 * Paths are judged by the caller's `inside` (resolved, links followed, against the repository);
 * this module only decides.
 */
import type { PermissionProfile } from './schemas.js';

/** The part of an ACP tool call a decision reads (from `session/request_permission`'s `toolCall`). */
export interface AskedToolCall {
  kind?: string | null;
  title?: string | null;
  rawInput?: unknown;
  locations?: readonly { path: string }[] | null;
  /** What the call shows; a `diff` names the file it changes. */
  content?: readonly unknown[] | null;
}

export interface PermissionPolicy {
  profile: PermissionProfile;
  /** The commands of the declared checks the person allowed here. */
  checks: readonly string[];
  /** Whether a path the agent names is inside the repository (and not inside `.git/`). */
  inside(path: string): boolean;
}

export type PermissionDecision = { allow: true; what: string } | { allow: false; what: string; kind: 'command' | 'edit' | 'other'; reason: string };

const record = (x: unknown): Record<string, unknown> | undefined => (x && typeof x === 'object' && !Array.isArray(x) ? (x as Record<string, unknown>) : undefined);

/**
 * The shell command a tool call is about. The agents put it in different places (measured with
 * the pinned ones): `rawInput.command` as a string (Claude Code's and OpenCode's adapters,
 * Copilot) or as argv run by a shell (Codex: ["/bin/bash", "-lc", "<command>"]); Gemini CLI sends
 * no rawInput, and its title is the command.
 */
export function commandOf(call: AskedToolCall): string | undefined {
  const raw = record(call.rawInput);
  if (raw) {
    const c = raw['command'] ?? raw['cmd'];
    if (typeof c === 'string') return c.trim();
    if (Array.isArray(c) && c.every((x) => typeof x === 'string')) {
      // ["bash", "-lc", "<command>"]: the command is the script.
      if (c.length === 3 && /^(ba|z|da)?sh$/.test(c[0]!.split('/').at(-1)!) && /^-l?c$/.test(c[1]!)) return c[2]!.trim();
      return c.join(' ').trim();
    }
  }
  return raw === undefined && typeof call.title === 'string' && call.title.trim() ? call.title.trim() : undefined;
}

/**
 * Every file a tool call names: its `locations`, the files of the diffs it shows, and the path
 * fields of its input (file_path, filePath, filepath, fileName, path; Codex's `changes` map).
 */
export function pathsOf(call: AskedToolCall): string[] {
  const paths = new Set<string>();
  const add = (p: unknown) => typeof p === 'string' && p && paths.add(p);
  for (const l of call.locations ?? []) add(record(l)?.['path']);
  for (const c of call.content ?? []) if (record(c)?.['type'] === 'diff') add(record(c)?.['path']);
  const raw = record(call.rawInput);
  if (raw) {
    for (const key of ['file_path', 'filePath', 'filepath', 'fileName', 'path', 'notebook_path']) add(raw[key]);
    const changes = record(raw['changes']);
    if (changes) for (const key of Object.keys(changes)) add(key);
  }
  return [...paths];
}

/**
 * Whether `command` is one simple command: words, quoted strings and spaces only — none of the
 * shell's operators outside quotes (`;` `&` `|` `<` `>` newline), no substitution anywhere
 * (`$(`, backquote; inside double quotes they still run), no line continuation.
 */
export function isSimpleCommand(command: string): boolean {
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < command.length; i++) {
    const ch = command[i]!;
    if (quote === "'") {
      if (ch === "'") quote = undefined;
      continue;
    }
    if (ch === '`' || (ch === '$' && command[i + 1] === '(')) return false;
    if (quote === '"') {
      if (ch === '\\') i++;
      else if (ch === '"') quote = undefined;
      continue;
    }
    if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '\\') {
      if (command[i + 1] === '\n' || i + 1 >= command.length) return false;
      i++;
    } else if (';&|<>\n\r'.includes(ch)) return false;
  }
  return quote === undefined;
}

/**
 * Whether a tool call is one of sow's own tools, from the MCP server sow hands over as `sow`. The
 * agents that ask before an MCP tool name it in the title (measured with the pinned ones): Claude
 * Code's adapter `mcp__sow__<tool>`, Gemini CLI `<tool> (sow MCP Server)`, both as kind `other`;
 * Codex's adapter and OpenCode do not ask.
 */
export function isSowTool(call: AskedToolCall): boolean {
  const title = typeof call.title === 'string' ? call.title : '';
  return /^mcp__sow__[a-z][a-z0-9_]*$/.test(title) || /^[a-z][a-z0-9_]* \(sow MCP Server\)$/.test(title);
}

/** The decision on one permission request. */
export function decidePermission(call: AskedToolCall, policy: PermissionPolicy): PermissionDecision {
  const kind = call.kind ?? 'other';
  const command = kind === 'execute' ? commandOf(call) : undefined;
  const paths = pathsOf(call);
  const what = command ?? (paths.length ? paths.join(', ') : (call.title ?? kind));
  if (policy.profile === 'yolo') return { allow: true, what };
  const refuse = (k: 'command' | 'edit' | 'other', reason: string): PermissionDecision => ({ allow: false, what, kind: k, reason });
  switch (kind) {
    case 'think':
      return { allow: true, what };
    case 'read':
    case 'search': {
      const outside = paths.filter((p) => !policy.inside(p));
      return outside.length ? refuse('other', `it reads outside the repository (${outside.join(', ')})`) : { allow: true, what };
    }
    case 'edit':
    case 'delete':
    case 'move': {
      if (!paths.length) return refuse('edit', 'it does not say which file it changes');
      const outside = paths.filter((p) => !policy.inside(p));
      return outside.length ? refuse('edit', `it changes files outside the repository (${outside.join(', ')})`) : { allow: true, what };
    }
    case 'execute': {
      if (command === undefined) return refuse('command', 'it does not say which command it runs');
      if (policy.checks.includes(command)) return { allow: true, what };
      if (!isSimpleCommand(command)) return refuse('command', 'it is not one plain command (it chains, pipes, redirects or substitutes)');
      if (/^sow(\s|$)/.test(command)) return { allow: true, what };
      return refuse('command', 'the safe profile runs only sow and the declared checks you allowed');
    }
    default:
      if (kind === 'other' && isSowTool(call)) return { allow: true, what };
      return refuse('other', `the safe profile does not allow a tool call of kind ${kind}`);
  }
}

/** An ACP permission option (`session/request_permission`'s `options`). */
export interface PermissionOption {
  optionId: string;
  kind: string;
}

/**
 * The option that says the decision for this one call. An allowance is only ever for this call
 * (`allow_once`): "always" would let the agent skip asking sow next time; without an allow-once
 * option there is none to give (undefined: the caller cancels the request).
 */
export function optionFor(options: readonly PermissionOption[], allow: boolean): string | undefined {
  const order = allow ? ['allow_once'] : ['reject_once', 'reject_always'];
  for (const kind of order) {
    const o = options.find((x) => x.kind === kind);
    if (o) return o.optionId;
  }
  return undefined;
}
