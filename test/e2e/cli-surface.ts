/**
 * The command surface as a user sees it, read from the built CLI's own --help: which command a
 * line of words names and whether each flag exists. Used to check every `sow …` command that sow
 * tells someone to run — in the templates it ships and in the hints of its errors.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';
import { SOW } from './harness.js';

/** Plausible values for <angle-bracket> placeholders; any other becomes `x`. */
export const SAMPLE: Record<string, string> = {
  id: '010',
  n: '0',
  name: 'parser',
  status: 'needs_review',
  field: 'name',
  value: 'x',
  text: 'some text',
  path: 'guidance/implementer/base',
};

/**
 * Metadata flags: `input/output add` pass unknown `--name value` flags into the artifact's
 * metadata (their help says so). These are the ones the artifact types define (phases: the
 * work phases a failed iterative review reopens); the
 * lifecycle test above runs them for real.
 */
const METADATA_FLAGS = new Set(['--assessment', '--status', '--phases']);
const METADATA_PASSTHROUGH = 'extra --name value flags go to its metadata';

/** Splits a command line like a shell would for these simple cases (double quotes, no escapes). */
export function tokenize(command: string): string[] {
  const tokens: string[] = [];
  for (const m of command.matchAll(/"([^"]*)"|(\S+)/g)) tokens.push(m[1] ?? m[2]!);
  return tokens;
}

export function fillPlaceholders(command: string): string {
  return command.replace(/<([^<>]+)>/g, (_m, key: string) => SAMPLE[key] ?? 'x');
}

/**
 * The help texts of this build, shared by the test files that walk the command tree (about a
 * hundred `--help` runs each): kept in a file named by a hash of the built files, so a file
 * reuses what another one of the same build already asked, and a new build asks again.
 */
const HELP_CACHE_DIR = join(tmpdir(), 'sow-tests-help-cache');
let helpCacheFile: string | undefined;
let helpCache: Map<string, { code: number; text: string }> | undefined;

const safeList = (dir: string): string[] => {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
};

function loadHelpCache(): Map<string, { code: number; text: string }> {
  if (helpCache) return helpCache;
  const dist = dirname(SOW);
  const hash = createHash('sha256');
  for (const name of readdirSync(dist)
    .filter((n) => n.endsWith('.cjs'))
    .sort())
    hash.update(name).update(readFileSync(join(dist, name)));
  helpCacheFile = join(HELP_CACHE_DIR, `${hash.digest('hex').slice(0, 32)}.json`);
  helpCache = new Map();
  try {
    for (const [key, value] of Object.entries(
      JSON.parse(readFileSync(helpCacheFile, 'utf8')) as Record<string, { code: number; text: string }>,
    ))
      helpCache.set(key, value);
  } catch {
    // None yet: the files of earlier builds go (an hour old: a run side by side keeps its own).
    for (const name of safeList(HELP_CACHE_DIR)) {
      const file = join(HELP_CACHE_DIR, name);
      const age = Date.now() - (statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (file !== helpCacheFile && age > 3_600_000) rmSync(file, { force: true });
    }
  }
  return helpCache;
}

/**
 * Adds what this file asked to the shared file (merged with what others added meanwhile, written whole by a rename).
 */
function saveHelpCache(): void {
  mkdirSync(HELP_CACHE_DIR, { recursive: true });
  let merged: Record<string, unknown> = {};
  try {
    merged = JSON.parse(readFileSync(helpCacheFile!, 'utf8')) as Record<string, unknown>;
  } catch {
    // none yet
  }
  const tmp = `${helpCacheFile}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ ...merged, ...Object.fromEntries(helpCache!) }));
  renameSync(tmp, helpCacheFile!);
}

export function help(path: string[]): { code: number; text: string } {
  const cache = loadHelpCache();
  const key = path.join(' ');
  let cached = cache.get(key);
  if (!cached) {
    const r = spawnSync(process.execPath, [SOW, ...path, '--help'], {
      cwd: tmpdir(),
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    });
    cached = { code: r.status ?? -1, text: r.stdout + r.stderr };
    cache.set(key, cached);
    saveHelpCache();
  }
  return cached;
}

/** The subcommand names a commander help text lists under "Commands:". */
export function subcommands(helpText: string): Set<string> {
  const names = new Set<string>();
  // The section ends at its first blank line (help topics follow it in `sow --help`).
  const section = helpText.split(/^Commands:$/m)[1]?.split(/\n\s*\n/)[0];
  if (section === undefined) return names;
  for (const line of section.split('\n')) {
    const m = /^ {2}([a-z][a-z-]*)\b/.exec(line);
    if (m && m[1] !== 'help') names.add(m[1]!);
  }
  return names;
}

/** The longest prefix of the arguments that names a sow command. */
export function commandPath(args: string[]): string[] {
  const path: string[] = [];
  for (const arg of args) {
    if (arg.startsWith('-')) break;
    if (!subcommands(help(path).text).has(arg)) break;
    path.push(arg);
  }
  return path;
}

export function taskStatuses(): string[] {
  const r = spawnSync(process.execPath, [SOW, 'schema', 'task'], { cwd: tmpdir(), encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  const statuses = JSON.parse(r.stdout).properties?.status?.enum;
  expect(Array.isArray(statuses)).toBe(true);
  return statuses as string[];
}

export interface CommandProblem {
  file: string;
  command: string;
  problem: string;
}

export function checkCommand(file: string, command: string, statuses: readonly string[]): CommandProblem[] {
  const problems: CommandProblem[] = [];
  const args = tokenize(fillPlaceholders(command)).slice(1);
  const path = commandPath(args);
  if (path.length === 0 || subcommands(help(path).text).size > 0) {
    return [{ file, command, problem: `'${args.slice(0, 3).join(' ')}' is not a sow command` }];
  }
  const h = help(path);
  if (h.code !== 0) return [{ file, command, problem: `'sow ${path.join(' ')} --help' exited ${h.code}` }];
  for (const arg of args) {
    if (!arg.startsWith('--')) continue;
    const flag = arg.split('=')[0]!;
    const documented = new RegExp(`(^|[\\s,])${flag}(?=[\\s,=]|$)`, 'm').test(h.text);
    const metadata = METADATA_FLAGS.has(flag) && h.text.replace(/\s+/g, ' ').includes(METADATA_PASSTHROUGH);
    if (!documented && !metadata)
      problems.push({ file, command, problem: `'sow ${path.join(' ')}' has no ${flag} flag` });
  }
  // A prompt an agent is told to load must exist.
  if (path.join(' ') === 'prompt' && args[1] && !args[1].startsWith('-')) {
    const r = spawnSync(process.execPath, [SOW, 'prompt', args[1]], { cwd: tmpdir(), encoding: 'utf8' });
    if (r.status !== 0)
      problems.push({ file, command, problem: `'sow prompt ${args[1]}' exited ${r.status}: ${r.stderr.trim()}` });
  }
  // A status a task is set to, or listed by, must be one the task schema allows.
  const rest = args.slice(path.length);
  const statusValue =
    path.join(' ') === 'task set' && rest.includes('status')
      ? rest[rest.indexOf('status') + 1]
      : path.join(' ') === 'task list' && rest.includes('--status')
        ? rest[rest.indexOf('--status') + 1]
        : undefined;
  if (statusValue !== undefined && !statuses.includes(statusValue)) {
    problems.push({ file, command, problem: `'${statusValue}' is not a task status (${statuses.join(', ')})` });
  }
  return problems;
}

/** Every flag of every sow command, from the --help of each (the whole tree is walked). */
export function allFlags(): Set<string> {
  const flags = new Set<string>();
  const walk = (path: string[]) => {
    const text = help(path).text;
    for (const m of text.matchAll(/(?:^|[\s,])(--[a-z][a-z-]*)/gm)) flags.add(m[1]!);
    for (const sub of subcommands(text)) walk([...path, sub]);
  };
  walk([]);
  return flags;
}
