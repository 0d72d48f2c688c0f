// Answers every ACP `session/request_permission`, one rule for every CLI. yolo: all. safe: reading in the repository;
// editing it but for files that give rights or run commands (`.git`, `.sow/config.yaml`, CLI settings); running `sow`
// or an allowed check as one simple command (shell-words.ts); sow's MCP tools; thinking. Nothing else.
import type { PermissionProfile } from './config-schemas.js';
import { isRecord } from './json.js';
import { invisibleIn, shellWords } from './shell-words.js';

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
  // Every place a path may land, repository-relative ('' for the root), links followed (a link before `..` reads unlike
  // tidied text); undefined when one is outside.
  locate(path: string): readonly string[] | undefined;
  /** Patterns (`*`, `**`) of files a safe worker may not change beside `.git` and `.sow/config.yaml`: CLI settings. */
  protected: readonly string[];
}

export type PermissionDecision =
  { allow: true; what: string } | { allow: false; what: string; kind: 'command' | 'edit' | 'other'; reason: string };

const record = (x: unknown) => (isRecord(x) ? x : undefined);

/** Trimmed as the shell trims a line: never `\v` or a no-break space, which are part of a word to it. */
const trimBlanks = (s: string) => s.replace(/^[ \t\n]+|[ \t\n]+$/g, '');

/** The shells whose `-c` script is judged as the command (POSIX ones; zsh and fish read a script differently). */
const SCRIPT_SHELL = /^(?:\/bin\/|\/usr\/bin\/|\/usr\/local\/bin\/|\/opt\/homebrew\/bin\/)?(?:ba|da)?sh$/;

/** A command as the agent asked to run it: a shell script, or an argv run as it is. */
export type AskedCommand = { shown: string; script: string } | { shown: string; argv: readonly string[] };

// A tool call's command: `rawInput.command` as a string or shell argv (Codex: bash -lc <script>); Gemini CLI sends no
// rawInput, its title is the command.
export function askedCommand(call: AskedToolCall): AskedCommand | undefined {
  const raw = record(call.rawInput);
  if (raw) {
    const c = raw['command'] ?? raw['cmd'];
    if (typeof c === 'string') return { shown: trimBlanks(c), script: c };
    if (Array.isArray(c) && c.length && c.every((x) => typeof x === 'string')) {
      const argv = c as string[];
      if (argv.length === 3 && SCRIPT_SHELL.test(argv[0]!) && (argv[1] === '-c' || argv[1] === '-lc'))
        return { shown: trimBlanks(argv[2]!), script: argv[2]! };
      return { shown: argv.join(' '), argv };
    }
    return undefined;
  }
  return typeof call.title === 'string' && trimBlanks(call.title)
    ? { shown: trimBlanks(call.title), script: call.title }
    : undefined;
}

/** Why the safe profile will not run `command`; undefined when it will. */
function commandRefusal(command: AskedCommand, checks: readonly string[]): string | undefined {
  const onlySow = 'the safe profile runs only sow and the declared checks you allowed';
  if ('script' in command) {
    // An allowed check is the person's own shell command, allowed as written.
    if (checks.some((c) => trimBlanks(c) === trimBlanks(command.script))) return undefined;
    // Blanks around it are nothing to the shell (a newline at the end ends the one command).
    const parsed = shellWords(trimBlanks(command.script));
    if (!parsed.simple) return `it is not one plain command: the shell would see ${parsed.found}`;
    // Exactly the word `sow`: not a path to one, not quoted or escaped into it.
    return parsed.words[0]!.raw === 'sow' ? undefined : onlySow;
  }
  const argv = command.argv;
  const sameAs = (check: string) => {
    const parsed = shellWords(check);
    return parsed.simple && parsed.words.length === argv.length && parsed.words.every((w, i) => w.value === argv[i]);
  };
  if (checks.some(sameAs)) return undefined;
  const odd = argv.map(invisibleIn).find((x) => x !== undefined);
  if (odd) return `it is not one plain command: an argument holds ${odd}`;
  return argv[0] === 'sow' ? undefined : onlySow;
}

/** Keys of rawInput whose values name files, folders or globs (compared in lower case without `_` and `-`). */
const words = (list: string) => new Set(list.split(' '));
const PATH_KEYS = words(
  'path file filename absolutepath relativepath cwd workdir workingdirectory root include includes ' +
    'target targets source sources destination dest uri uris url urls location locations',
);
const PATH_KEY_ENDS = /(?:paths?|files?|filenames?|dirs?|director(?:y|ies)|folders?|globs?|patterns?)$/;
/** Keys whose values are text to write or show: a string there that starts with `/` is not a path. */
const TEXT_KEYS = words(
  'content contents text newtext oldtext newstring oldstring newstr oldstr filetext diff unifieddiff ' +
    'patch newsource description query replacement body message prompt title command commands cmd',
);
const keyName = (key: string) => key.toLowerCase().replace(/[^a-z0-9]/g, '');
/** A string that reads as a path wherever it is: absolute, from a home folder, or climbing with `..`. */
const looksLikePath = (s: string) => s.startsWith('/') || s.startsWith('~') || s.startsWith('..') || s.includes('/..');

/** How deep and how many values sow reads of one call's input; a call beyond that is not judged, so refused. */
const MAX_DEPTH = 32;
const MAX_VALUES = 10_000;

// Every value a tool call names a file, folder or glob with (locations, diff files, path-like keys at any depth,
// path-looking strings, Codex's `changes` keys); undefined when too large or deep.
export function pathsOf(call: AskedToolCall): string[] | undefined {
  const paths = new Set<string>();
  let seen = 0;
  const add = (p: unknown) => typeof p === 'string' && p && paths.add(p);
  for (const l of call.locations ?? []) add(record(l)?.['path']);
  for (const c of call.content ?? []) if (record(c)?.['type'] === 'diff') add(record(c)?.['path']);
  const walk = (value: unknown, depth: number, named: boolean, text: boolean): boolean => {
    if (++seen > MAX_VALUES || depth > MAX_DEPTH) return false;
    if (typeof value === 'string') {
      if (named || (!text && looksLikePath(value))) add(value);
      return true;
    }
    if (Array.isArray(value)) return value.every((v) => walk(v, depth + 1, named, text));
    const obj = record(value);
    if (!obj) return true;
    for (const [key, v] of Object.entries(obj)) {
      const name = keyName(key);
      if (name === 'changes' && record(v)) for (const file of Object.keys(record(v)!)) add(file);
      if (!walk(v, depth + 1, named || PATH_KEYS.has(name) || PATH_KEY_ENDS.test(name), TEXT_KEYS.has(name)))
        return false;
    }
    return true;
  };
  return walk(call.rawInput, 0, false, false) ? [...paths] : undefined;
}

// Where a path or glob lands (policy.locate), undefined when it may reach outside. A glob is judged by its literal
// folder, refused if the rest climbs or starts anew (`{/etc,x}`), and as a plain path too; `~` and non-file URIs are
// outside.
export function placesOf(path: string, locate: PermissionPolicy['locate']): readonly string[] | undefined {
  if (path.includes('\0')) return undefined;
  let p = path;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(p);
  if (scheme) {
    if (scheme[1]!.toLowerCase() !== 'file' || !p.slice(scheme[0].length).startsWith('/')) return undefined;
    try {
      p = decodeURIComponent(p.slice(scheme[0].length));
    } catch {
      return undefined;
    }
  }
  if (p.startsWith('~')) return undefined;
  const literal = locate(p);
  const glob = p.search(/[*?[{]/);
  if (glob < 0 || literal === undefined) return literal;
  const cut = p.lastIndexOf('/', glob) + 1;
  const tail = p.slice(cut);
  if (tail.split(/[/{},]/).includes('..') || /[{,]\s*[/~]/.test(tail)) return undefined;
  const folder = locate(cut ? p.slice(0, cut) : '.');
  return folder && [...literal, ...folder];
}

/** `pattern` (`*` within a name, `**` any depth; `x/**` also names `x`) as a case-blind test of paths. */
function patternTest(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (pattern.startsWith('/**', i) && i + 3 === pattern.length) {
      re += '(?:/.*)?';
      i += 2;
    } else if (pattern.startsWith('**/', i)) {
      re += '(?:.*/)?';
      i += 2;
    } else if (pattern.startsWith('**', i)) {
      re += '.*';
      i += 1;
    } else if (ch === '*') re += '[^/]*';
    else if (ch === '?') re += '[^/]';
    else re += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 'i');
}

/** The literal folder of a pattern: `.github/copilot/**` is in `.github/copilot` (and `.github`). */
const literalFolder = (pattern: string) => {
  const glob = pattern.search(/[*?[{]/);
  return (glob < 0 ? pattern : pattern.slice(0, glob)).replace(/\/+$/, '');
};

const isGitName = (name: string) => name.toLowerCase().replace(/[. ]+$/, '') === '.git';

// Why a safe worker may not change `rel`, or undefined. With `whole` (a delete or move takes a folder whole) also a
// folder holding such a file.
export function protectedWhy(rel: string, patterns: readonly string[], whole: boolean): string | undefined {
  const shown = rel || '.';
  if (rel.split('/').some(isGitName))
    return `${shown} is git's own: a setting, a hook or a gitdir pointer there makes git run commands as you`;
  const settings = "it is an agent CLI's own settings, which can give an agent rights or run commands";
  const rules: [pattern: string, why: string][] = [
    ['.sow/config.yaml', 'it holds the checks sow runs and the settings of the repository'],
    ...patterns.map((p): [string, string] => [p, settings]),
  ];
  for (const [pattern, why] of rules) {
    if (patternTest(pattern).test(rel)) return `${shown} is protected: ${why}`;
    const folder = literalFolder(pattern).toLowerCase();
    if (whole && (rel === '' || folder.startsWith(`${rel.toLowerCase()}/`)))
      return `${shown} holds ${literalFolder(pattern)}, which is protected: ${why}`;
  }
  return undefined;
}

// Whether a call is one of sow's MCP tools, by title: `mcp__sow__<tool>` (Claude Code's adapter) or `<tool> (sow MCP
// Server)` (Gemini CLI).
export function isSowTool(call: AskedToolCall): boolean {
  const title = typeof call.title === 'string' ? call.title : '';
  return /^mcp__sow__[a-z][a-z0-9_]*$/.test(title) || /^[a-z][a-z0-9_]* \(sow MCP Server\)$/.test(title);
}

/** The decision on one permission request. */
export function decidePermission(call: AskedToolCall, policy: PermissionPolicy): PermissionDecision {
  const kind = call.kind ?? 'other';
  const command = kind === 'execute' ? askedCommand(call) : undefined;
  const paths = pathsOf(call);
  const what = command?.shown ?? (paths?.length ? paths.join(', ') : (call.title ?? kind));
  if (policy.profile === 'yolo') return { allow: true, what };
  const refuse = (k: 'command' | 'edit' | 'other', reason: string): PermissionDecision => ({
    allow: false,
    what,
    kind: k,
    reason,
  });
  if (paths === undefined)
    return refuse(
      kind === 'edit' || kind === 'delete' || kind === 'move' ? 'edit' : kind === 'execute' ? 'command' : 'other',
      'its input is too large or too deeply nested to judge',
    );
  const landing = paths.map((p) => ({ path: p, places: placesOf(p, policy.locate) }));
  const outside = landing.filter((l) => l.places === undefined).map((l) => l.path);
  switch (kind) {
    case 'think':
      return { allow: true, what };
    case 'read':
    case 'search': {
      // With no path at all, a read or search is of the worker's own folder.
      if (outside.length) return refuse('other', `it reads outside the repository (${outside.join(', ')})`);
      const git = landing.flatMap((l) => l.places!).find((rel) => rel.split('/').some(isGitName));
      return git !== undefined
        ? refuse('other', `it reads ${git}, git's own files (they may hold credentials)`)
        : { allow: true, what };
    }
    case 'edit':
    case 'delete':
    case 'move': {
      if (!paths.length) return refuse('edit', 'it does not say which file it changes');
      if (outside.length) return refuse('edit', `it changes files outside the repository (${outside.join(', ')})`);
      for (const rel of landing.flatMap((l) => l.places!)) {
        const why = protectedWhy(rel, policy.protected, kind !== 'edit');
        if (why) return refuse('edit', why);
      }
      return { allow: true, what };
    }
    case 'execute': {
      if (command === undefined) return refuse('command', 'it does not say which command it runs');
      // The folder it runs in, when it names one (Codex's `cwd`): sow acts on the project of that folder.
      if (outside.length)
        return refuse('command', `it runs in or names a folder outside the repository (${outside.join(', ')})`);
      const why = commandRefusal(command, policy.checks);
      return why ? refuse('command', why) : { allow: true, what };
    }
    default:
      if (kind === 'other' && isSowTool(call)) return { allow: true, what };
      return refuse('other', `the safe profile does not allow a tool call of kind ${kind}`);
  }
}

// The option deciding this one call, never an "always" one, which would let the agent skip asking sow next time
// (undefined: the caller cancels).
export function optionFor(options: readonly { optionId: string; kind: string }[], allow: boolean): string | undefined {
  const order = allow ? ['allow_once'] : ['reject_once', 'reject_always'];
  return order.map((kind) => options.find((o) => o.kind === kind)).find((o) => o !== undefined)?.optionId;
}
