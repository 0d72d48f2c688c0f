/**
 * Shared references (the spec's ADR-009): knowledge and code that agents should read, from git repositories or local
 * folders, cloned once into the user's cache and linked into each repository as `.sow/refs/<link>`. Two indexes:
 * `.sow/refs/index.json`, committed, says what the team uses (link, source, branch, path, description, semantic, tags);
 * `.sow/refs/index.local.json`, ignored, holds this machine's own refs. The cache keeps which commit each checkout is
 * at and who uses it. The links themselves are ignored by git and rebuilt by `sow refs init`.
 *
 * The indexes, read as claims, are app/refs-index.ts; this module adds, lists, links and removes refs, each ref's path
 * confined to its checkout, which stays inside the cache (checked on every use); app/refs-sync.ts fetches and
 * fast-forwards the checkouts.
 */
import { isAbsolute, join, relative, resolve } from 'node:path';
import { quoted } from '../domain/display.js';
import { InvalidValueError, notOneOf, SowError, UsageError } from '../domain/errors.js';
import { defaultLink, linkProblem, sourceKind, unsharedReason, urlProblem } from '../domain/refs.js';
import { nearMiss } from '../domain/suggest.js';
import { confine, normalRelative, PathEscapeError, realFolder, repoArea } from '../adapters/confine.js';
import { pathExists } from '../adapters/files.js';
import {
  cacheKey,
  checkoutArea,
  checkoutDir,
  copyFolder,
  ensureClone,
  isGitFolder,
  linkState,
  makeLink,
  readCacheIndex,
  removeCheckout,
  removeLink,
  writeCacheIndex,
  type CacheEntry,
  type CacheEnv,
  type LinkState,
} from '../adapters/refs-cache.js';
import { Transaction } from '../adapters/transaction.js';
import type { AppContext } from './context.js';
import {
  allRefs,
  ensureGitignore,
  existingRefsFolder,
  readIndexes,
  REFS_DIR,
  SEMANTICS,
  writeIndex,
  type RefEntry,
  type Semantic,
} from './refs-index.js';
import { openRoot, withWorkspaceLock } from './workspace.js';

// The prompts of workers take the refs from here.

export class RefExistsError extends SowError {
  constructor(link: string, local: boolean) {
    super(
      'REF_EXISTS',
      'failed',
      `a ref named '${link}' exists already${local ? ' (a local one)' : ''}`,
      `pick another --link, or 'sow refs remove ${link}' first`,
      { link },
    );
  }
}

export class RefNotFoundError extends SowError {
  constructor(link: string, known: readonly string[]) {
    const s = nearMiss(link, known);
    super(
      'REF_NOT_FOUND',
      'failed',
      `no ref named '${link}'${s ? `; did you mean '${s}'?` : ''}`,
      known.length ? `the refs: ${known.join(', ')}` : "there are none; 'sow refs add <source>' adds one",
      { link },
    );
  }
}

/**
 * A git URL whose parts, as git and ssh will read them, could be an option or hold a control character: never handed to
 * git.
 */
export class RefSourceUnsafeError extends SowError {
  constructor(source: string, why: string) {
    super(
      'REF_SOURCE_UNSAFE',
      'failed',
      `sow will not hand ${quoted(source)} to git: ${why}`,
      "write the URL as your git host shows it for cloning (e.g. 'https://github.com/owner/repo.git' or " +
        "'git@github.com:owner/repo.git')",
      { source },
    );
  }
}

/** A ref whose --path leads out of its checkout in the cache, through a link the source carries. */
export class RefPathEscapeError extends SowError {
  constructor(link: string, path: string, cause: PathEscapeError) {
    const d = cause.details ?? {};
    super(
      'REF_PATH_ESCAPES',
      'state',
      `ref '${link}': its path '${path}' leads out of the source's ` +
        `checkout${typeof d['link'] === 'string' ? ` ('${d['link']}' is a link to '${String(d['target'])}')` : ''}; ` +
        `sow will not link .sow/refs/${link} there`,
      `the source carries that link; use a path that is a real folder of it ('sow refs remove ${link}', then add ` +
        `it again with another --path), or the whole source`,
      { link, path, ...d },
    );
  }
}

/** Whether the absolute path `target` is `base` or inside it. */
const isInside = (base: string, target: string) => {
  const rel = relative(resolve(base), resolve(target));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/** Where a ref's files are in the cache: the checkout, or the folder `path` inside it. */
interface Place {
  key: string;
  dir: string;
  target: string;
  kind: 'git' | 'copy';
}

/**
 * Where a ref's files are in the cache. Every path is confined: the checkout to the cache, the ref's `path` to its
 * checkout (a link the source carries may not lead out of it) — checked each time, so a link that appeared in the cache
 * since is refused too. Throws RefPathEscapeError.
 */
export function placeOf(ref: RefEntry, env: CacheEnv): Place {
  const folder = sourceKind(ref.source) === 'folder';
  const kind = folder && !isGitFolder(ref.source) ? 'copy' : 'git';
  const key = cacheKey(ref.source, ref.branch ?? null);
  const dir = checkoutDir(key, env);
  return { key, dir, target: targetOf(ref, dir), kind };
}

export function targetOf(ref: RefEntry, dir: string): string {
  if (!ref.path) return dir;
  try {
    return confine(checkoutArea(dir), ref.path, { source: `ref '${ref.link}'` });
  } catch (err) {
    if (err instanceof PathEscapeError) throw new RefPathEscapeError(ref.link, ref.path, err);
    throw err;
  }
}

/** `.sow/refs/`, a real folder (made if missing; never a link): links are made and removed only there. */
const refsFolder = (root: string) => realFolder(repoArea(root), REFS_DIR);
/** `.sow/refs/<link>` (a plain name, checked when the index was read). */
export const linkPath = (root: string, link: string) => join(refsFolder(root), link);

/** Fills the cache for a ref (clone or copy) and records it; returns where its files are. */
export function materialize(
  ctx: AppContext,
  root: string,
  ref: RefEntry,
  progress: boolean,
): { target: string; sha: string | null; cloned: boolean } {
  const place = placeOf(ref, ctx.env);
  let sha: string | null = null;
  let cloned = false;
  if (place.kind === 'git') {
    const r = ensureClone(place.key, ref.source, ref.branch ?? null, progress, ctx.env);
    sha = r.sha;
    cloned = r.cloned;
  } else {
    copyFolder(place.key, ref.source, ctx.env);
    cloned = true;
  }
  // Again now that the checkout is there: its links are what the path may go through.
  const target = targetOf(ref, place.dir);
  if (!pathExists(target))
    throw new InvalidValueError(
      '--path',
      ref.path ?? '',
      `a folder or file of ${ref.source}; it has none at that path`,
    );
  const index = readCacheIndex(ctx.env);
  const before = index.entries[place.key];
  const users = [...new Set([...(before?.users ?? []), root])];
  index.entries[place.key] = {
    source: ref.source,
    branch: ref.branch ?? null,
    kind: place.kind,
    sha,
    fetched_at: cloned || !before ? ctx.now() : before.fetched_at,
    users,
  };
  writeCacheIndex(index, ctx.env);
  return { target, sha, cloned };
}

export interface AddRefOptions {
  /** Default: the source's name (defaultLink). */
  link?: string;
  path?: string;
  branch?: string;
  description?: string;
  semantic?: string;
  tags?: string;
  local?: boolean;
  progress: boolean;
}

export async function addRef(
  ctx: AppContext,
  rawSource: string,
  o: AddRefOptions,
): Promise<{
  ref: RefEntry;
  local: boolean;
  link: string;
  target: string;
  via: 'link' | 'copy';
  forcedLocal: boolean;
  why_local?: string;
  sha: string | null;
}> {
  const cwd = ctx.cwd;
  // A folder is named by where it is (`.` too), a URL by its last part.
  const link = o.link ?? defaultLink(sourceKind(rawSource) === 'folder' ? resolve(cwd, rawSource) : rawSource);
  if (link === undefined)
    throw new UsageError(
      `sow cannot make a link name from ${quoted(rawSource)}`,
      "name it with --link <name> (lower-case letters, digits, '.', '-' and '_')",
    );
  const badLink = linkProblem(link);
  // The flags first (exit 2): their form is the command line's business.
  if (badLink) throw new UsageError(`invalid --link '${link}': expected ${badLink}`, 'for example --link auth-service');
  const semantic = o.semantic ?? 'knowledge';
  if (!SEMANTICS.includes(semantic as Semantic)) throw notOneOf('--semantic value', semantic, SEMANTICS, 'values');
  if (
    o.path !== undefined &&
    (isAbsolute(o.path) || o.path.split(/[\\/]/).includes('..') || normalRelative(o.path) === undefined)
  )
    throw new UsageError(
      `invalid --path '${o.path}': expected a path inside the source, relative to its top`,
      'for example --path docs/api',
    );
  const unsafe = sourceKind(rawSource) === 'git' ? urlProblem(rawSource) : undefined;
  if (unsafe !== undefined) throw new RefSourceUnsafeError(rawSource, unsafe);
  return withWorkspaceLock(ctx, async (root) => {
    const ix = readIndexes(root);
    const existing = allRefs(ix).find((r) => r.link === link);
    if (existing) throw new RefExistsError(link, existing.local);
    const folder = sourceKind(rawSource) === 'folder';
    const source = folder ? resolve(cwd, rawSource) : rawSource;
    if (folder && !pathExists(source))
      throw new InvalidValueError(
        'source',
        rawSource,
        'a git URL (https://, ssh://, git@host:…, file://) or an existing folder',
      );
    if (folder && isInside(root, source))
      throw new SowError(
        'REF_INSIDE_REPOSITORY',
        'failed',
        `${rawSource} is inside this repository already`,
        'agents can read it where it is; refs are for what lives elsewhere',
      );
    // Only a shared remote (https, ssh) goes into the committed index; a folder of this machine, a file:// or an
    // unencrypted URL stays in the local one.
    const whyLocal = unsharedReason(source);
    const local = o.local === true || whyLocal !== undefined;
    const tags = (o.tags ?? '')
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
    const ref: RefEntry = {
      link,
      source,
      semantic: semantic as Semantic,
      tags,
      ...(o.branch ? { branch: o.branch } : {}),
      ...(o.path ? { path: o.path.replace(/\/+$/, '') } : {}),
      ...(o.description ? { description: o.description } : {}),
    };
    const m = materialize(ctx, root, ref, o.progress);
    const via = makeLink(linkPath(root, link), m.target);
    const tx = new Transaction(root);
    ensureGitignore(tx, root);
    writeIndex(tx, local, [...(local ? ix.local : ix.committed), ref]);
    tx.commit();
    const forcedLocal = whyLocal !== undefined && o.local !== true;
    return {
      ref,
      local,
      link: `${REFS_DIR}/${link}`,
      target: m.target,
      via,
      forcedLocal,
      ...(forcedLocal ? { why_local: whyLocal } : {}),
      sha: m.sha,
    };
  });
}

export interface RefInfo extends RefEntry {
  local: boolean;
  link_state: LinkState;
  cache: Pick<CacheEntry, 'sha' | 'fetched_at' | 'kind'> | null;
}

export async function listRefs(ctx: AppContext): Promise<RefInfo[]> {
  return refInfos({ ...ctx, cwd: await openRoot(ctx) });
}

/**
 * Each ref of the repository at the root (`where`), whether its link works, and what the cache holds of it; reads only.
 */
export function refInfos(ctx: AppContext): RefInfo[] {
  const { cwd: root, env } = ctx;
  const refs = allRefs(readIndexes(root));
  if (refs.length === 0) return [];
  const cache = readCacheIndex(env);
  const folder = existingRefsFolder(root);
  return refs.map((r) => {
    const place = placeOf(r, env);
    const c = cache.entries[place.key];
    return {
      ...r,
      link_state: folder === undefined ? 'missing' : linkState(join(folder, r.link), place.target),
      cache: c ? { sha: c.sha, fetched_at: c.fetched_at, kind: c.kind } : null,
    };
  });
}

export function select(refs: ReturnType<typeof allRefs>, link: string | undefined) {
  if (link === undefined) return refs;
  const ref = refs.find((r) => r.link === link);
  const known = refs.map((r) => r.link);
  if (!ref) throw new RefNotFoundError(link, known);
  return [ref];
}

export async function removeRef(
  ctx: AppContext,
  link: string,
  pruneCache: boolean,
): Promise<{ link: string; local: boolean; pruned: boolean; still_used_by: number }> {
  const { env } = ctx;
  return withWorkspaceLock(ctx, async (root) => {
    const ix = readIndexes(root);
    const [ref] = select(allRefs(ix), link);
    // Its cache key only: a ref is removed even when its path no longer leads where it may.
    const key = cacheKey(ref!.source, ref!.branch ?? null);
    removeLink(linkPath(root, link));
    const tx = new Transaction(root);
    writeIndex(
      tx,
      ref!.local,
      (ref!.local ? ix.local : ix.committed).filter((r) => r.link !== link),
    );
    tx.commit();
    // Other refs of this repository may share the checkout (another --path of the same source).
    const stillHere = allRefs(readIndexes(root)).some((r) => cacheKey(r.source, r.branch ?? null) === key);
    const index = readCacheIndex(env);
    const c = index.entries[key];
    let pruned = false;
    let users = 0;
    if (c) {
      c.users = stillHere ? c.users : c.users.filter((u) => u !== root);
      users = c.users.length;
      if (pruneCache && users === 0) {
        removeCheckout(key, env);
        delete index.entries[key];
        pruned = true;
      }
      writeCacheIndex(index, env);
    }
    return { link, local: ref!.local, pruned, still_used_by: users };
  });
}

/** `sow refs init`: every link of both indexes made again (cloning what the cache lacks), as on a fresh clone. */
export async function refsInit(
  ctx: AppContext,
  progress: boolean,
): Promise<{ link: string; cloned: boolean; via: 'link' | 'copy' }[]> {
  return withWorkspaceLock(ctx, async (root) => {
    const out: { link: string; cloned: boolean; via: 'link' | 'copy' }[] = [];
    // The indexes first: one sow refuses leaves everything as it was.
    const refs = allRefs(readIndexes(root));
    const tx = new Transaction(root);
    ensureGitignore(tx, root);
    tx.commit();
    for (const r of refs) {
      const m = materialize(ctx, root, r, progress);
      out.push({ link: r.link, cloned: m.cloned, via: makeLink(linkPath(root, r.link), m.target) });
    }
    return out;
  });
}
