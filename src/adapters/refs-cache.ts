/** The user's reference cache (`$XDG_CACHE_HOME/sow/refs/`): one clone per source and branch, shared by the machine's
 * repositories through their `.sow/refs/` links, and its index. */
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { basename, join, resolve, sep } from 'node:path';
import * as v from 'valibot';
import { ExternalToolError } from '../domain/errors.js';
import { cacheDir } from './compile-cache.js';
import { confine, readRegular, resolveExisting, type Area, type ReadLimits } from './confine.js';
import { writeFileAtomic } from './fs-atomic.js';
import { quietly } from './io-errors.js';
import { gitRun, gitRunAsync, NO_PROMPT, opt, val, type Arg } from './git.js';

/** The caller's environment (XDG_CACHE_HOME, HOME), never the process's. */
export type CacheEnv = Readonly<Record<string, string | undefined>>;

export const refsCacheDir = (env: CacheEnv) => join(cacheDir(env as NodeJS.ProcessEnv), 'refs');

/** One entry as sow writes it; another is dropped (the index is a cache, rebuilt as refs are used). */
const ENTRY = v.object({
  source: v.string(),
  branch: v.nullable(v.string()),
  kind: v.picklist(['git', 'copy']),
  sha: v.nullable(v.string()),
  fetched_at: v.string(),
  /** The repositories (their roots) whose links use it. */
  users: v.fallback(v.array(v.string()), []),
});
export type CacheEntry = v.InferOutput<typeof ENTRY>;

type CacheIndex = { format: 1; entries: Record<string, CacheEntry> };

const indexFile = (env: CacheEnv) => join(refsCacheDir(env), 'index.json');

/** 16 MiB: an entry is a few hundred bytes, and there is one per source and branch. */
const CACHE_INDEX_LIMITS: ReadLimits = {
  max: 16 * 1024 * 1024,
  what: "sow's cache index",
  why: 'it holds a few hundred bytes per checkout',
};
const KEY = /^[A-Za-z0-9._-]{1,64}-[0-9a-f]{10}$/;

/** The cache index, read as untrusted (no link, at most 16 MiB, only sow's shape); anything else reads as empty and
 * the next write replaces it: the checkouts are the truth. */
export function readCacheIndex(env: CacheEnv): CacheIndex {
  const entries: Record<string, CacheEntry> = {};
  // None yet, or unreadable: it is rebuilt from what the checkouts say.
  const data = quietly(() => JSON.parse(readRegular(indexFile(env), indexFile(env), CACHE_INDEX_LIMITS) ?? ''));
  const listed: unknown = data?.format === 1 ? data.entries : undefined;
  for (const [key, raw] of typeof listed === 'object' && listed !== null ? Object.entries(listed) : []) {
    const entry = v.safeParse(ENTRY, raw);
    if (KEY.test(key) && entry.success) entries[key] = entry.output;
  }
  return { format: 1, entries };
}

export function writeCacheIndex(index: CacheIndex, env: CacheEnv): void {
  writeFileAtomic(indexFile(env), `${JSON.stringify(index, null, 2)}\n`, { durable: false });
}

/** sow's cache of refs as an area (confine.ts); the folder itself is the user's choice, so it is trusted. */
export function cacheArea(env: CacheEnv): Area {
  const dir = refsCacheDir(env);
  mkdirSync(dir, { recursive: true });
  return { base: realpathSync.native(dir), name: "sow's cache of refs", shown: `${dir}${sep}` };
}

/** The cache folder of a source and branch: readable, and unique (a hash of both). */
export function cacheKey(source: string, branch: string | null): string {
  const readable = source
    .replace(/^[a-z+]+:\/\//, '')
    .replace(/\.git$/, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(-48);
  const hash = createHash('sha256')
    .update(`${source}\0${branch ?? ''}`)
    .digest('hex')
    .slice(0, 10);
  return `${readable || 'ref'}-${hash}`;
}

/** The checkout of `key` in the cache (`repos/<key>`), confined to the cache. Throws PathEscapeError. */
export const checkoutDir = (key: string, env: CacheEnv) => confine(cacheArea(env), `repos/${key}`);

/** A checkout as an area: a ref's `--path` stays inside it, whatever links the source carries. */
export function checkoutArea(dir: string): Area {
  // Before the clone nothing in it can be followed, and its parent is the cache's real folder.
  return { base: resolveExisting(dir), name: `its checkout in sow's cache (${dir})`, shown: `${dir}${sep}` };
}

const gitIn = (cwd: string, args: readonly Arg[], progress = false) =>
  gitRun(cwd, args, { env: NO_PROMPT, inheritStderr: progress });

const lastLine = (t: string) => t.split('\n').filter(Boolean).at(-1) ?? '';

/** Whether `path` is a folder holding a git repository of its own (its top level). */
export function isGitFolder(path: string): boolean {
  return existsSync(join(path, '.git')) || (existsSync(join(path, 'HEAD')) && existsSync(join(path, 'objects')));
}

/** Clones `source` (its `branch`, else its default) into the cache unless it is there: the folder and commit. */
export function ensureClone(
  key: string,
  source: string,
  branch: string | null,
  progress: boolean,
  env: CacheEnv,
): { dir: string; sha: string; cloned: boolean } {
  const dir = checkoutDir(key, env);
  if (existsSync(join(dir, '.git'))) return { dir, sha: headOf(dir), cloned: false };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(confine(cacheArea(env), 'repos'), { recursive: true });
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  // Source and branch may come from the committed index: values only. core.symlinks=false: a link the source
  // carries is checked out as a file holding its text, never a link agents would follow out (to ~/.ssh, say).
  const r = gitIn(
    refsCacheDir(env),
    [
      'clone',
      progress ? '--progress' : '--quiet',
      '--config=core.symlinks=false',
      ...(branch ? [opt('--branch', branch)] : []),
      '--',
      val(source, "the ref's source"),
      val(tmp, 'the folder'),
    ],
    progress,
  );
  if (!r.ok) {
    rmSync(tmp, { recursive: true, force: true });
    throw new ExternalToolError(
      'git',
      `cannot clone ${source}${branch ? ` (branch ${branch})` : ''}: ${lastLine(r.err) || 'git clone failed'}`,
      'check the URL and that you can reach it (git clone it by hand to see why)',
    );
  }
  // Whole or not at all: a clone cut short never looks like a checkout.
  renameSync(tmp, dir);
  return { dir, sha: headOf(dir), cloned: true };
}

/** Copies a local folder that is not a git repository into the cache (replacing an older copy). */
export function copyFolder(key: string, source: string, env: CacheEnv): { dir: string } {
  const dir = checkoutDir(key, env);
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  cpSync(source, tmp, { recursive: true, dereference: false, filter: (src) => basename(src) !== '.git' });
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  return { dir };
}

export function headOf(dir: string): string {
  const r = gitIn(dir, ['rev-parse', 'HEAD']);
  return r.ok ? r.out : '';
}

export type Freshness =
  | { state: 'current' | 'behind' | 'ahead' | 'diverged'; behind: number; ahead: number; remote: string }
  | { state: 'offline'; reason: string };

/** Fetches the checkout's branch and compares; offline when the source cannot be reached. */
export async function fetchAndCompare(dir: string, branch: string | null): Promise<Freshness> {
  // Without a branch named, the one the clone checked out (the source's default then).
  const name = branch ?? (gitIn(dir, ['symbolic-ref', '--quiet', '--short', 'HEAD']).out || 'HEAD');
  // The name may be the source's own default branch (a remote's choice) or the index's: after `--`.
  const fetched = await gitRunAsync(
    dir,
    ['fetch', '--quiet', '--', 'origin', val(name, "the ref's branch", 'remote')],
    { env: NO_PROMPT },
  );
  if (!fetched.ok) {
    const fatal = fetched.err.split('\n').find((l) => l.startsWith('fatal:')) ?? lastLine(fetched.err);
    return { state: 'offline', reason: fatal.replace(/^fatal:\s*/, '') || 'git fetch failed' };
  }
  const counts = gitIn(dir, ['rev-list', '--left-right', '--count', 'HEAD...FETCH_HEAD']);
  const remote = gitIn(dir, ['rev-parse', 'FETCH_HEAD']).out;
  const [ahead, behind] = counts.out.split(/\s+/).map(Number) as [number, number];
  const state = ahead && behind ? 'diverged' : behind ? 'behind' : ahead ? 'ahead' : 'current';
  return { state, behind: behind || 0, ahead: ahead || 0, remote };
}

/** Uncommitted changes in a checkout of the cache (never discarded by an update). */
export function localChanges(dir: string): string[] {
  return gitIn(dir, ['status', '--porcelain']).out.split('\n').filter(Boolean);
}

/** Fast-forwards the checkout to what was fetched; false when it cannot (diverged). */
export function fastForward(dir: string): boolean {
  return gitIn(dir, ['merge', '--ff-only', '--quiet', 'FETCH_HEAD']).ok;
}

export type LinkState = 'ok' | 'missing' | 'broken' | 'elsewhere';

/** How `.sow/refs/<link>` stands against where it should point. */
export function linkState(path: string, target: string): LinkState {
  const st = quietly(() => lstatSync(path));
  if (!st) return 'missing';
  if (st.isSymbolicLink()) {
    const to = resolve(join(path, '..'), readlinkSync(path));
    if (to !== resolve(target)) return 'elsewhere';
    return existsSync(to) ? 'ok' : 'broken';
  }
  // A copy (where links are not available) is as good as its folder.
  return st.isDirectory() || st.isFile() ? 'ok' : 'broken';
}

/** Makes `.sow/refs/<link>` point at `target` (a copy where symbolic links are not allowed). */
export function makeLink(path: string, target: string): 'link' | 'copy' {
  removeLink(path);
  try {
    symlinkSync(target, path, statSync(target).isDirectory() ? 'dir' : 'file');
    return 'link';
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'EACCES' && code !== 'ENOSYS') throw err;
    cpSync(target, path, { recursive: true });
    return 'copy';
  }
}

/** Removes the link (never what it leads to), or the copy made in its place. */
export const removeLink = (path: string): void => rmSync(path, { recursive: true, force: true });

export function removeCheckout(key: string, env: CacheEnv): void {
  // checkoutDir confines it to the cache: no link on the way leads the removal out.
  rmSync(checkoutDir(key, env), { recursive: true, force: true });
}
