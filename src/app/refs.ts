// Shared references agents should read: git repositories or folders cloned once into the user's cache and linked as
// `.sow/refs/<link>` (git-ignored, rebuilt by `refs init`); each ref's path is confined to its checkout on every use.
import { isAbsolute, join, relative, resolve } from 'node:path';
import { quoted } from '../domain/display.js';
import { errorClass, InvalidValueError, notOneOf, SowError, UsageError } from '../domain/errors.js';
import { defaultLink, linkProblem, sourceKind, unsharedReason, urlProblem } from '../domain/refs.js';
import { nearMiss } from '../domain/suggest.js';
import { confine, normalRelative, pathWithin, PathEscapeError, realFolder, repoArea } from '../adapters/confine.js';
import { pathExists } from '../adapters/files.js';
import {
  cacheKey,
  checkoutArea,
  checkoutDir,
  copyFolder,
  ensureClone,
  fastForward,
  fetchAndCompare,
  headOf,
  isGitFolder,
  linkState,
  localChanges,
  makeLink,
  readCacheIndex,
  removeCheckout,
  removeLink,
  writeCacheIndex,
  type CacheEnv,
  type Freshness,
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

export class RefExistsError extends errorClass('REF_EXISTS', 'failed', (link: string, local: boolean) => [
  `a ref named '${link}' exists already${local ? ' (a local one)' : ''}`,
  `pick another --link, or 'sow refs remove ${link}' first`,
  { link },
]) {}

export class RefNotFoundError extends errorClass(
  'REF_NOT_FOUND',
  'failed',
  (link: string, refs: readonly RefEntry[]) => {
    const known = refs.map((r) => r.link);
    const s = nearMiss(link, known);
    return [
      `no ref named '${link}'${s ? `; did you mean '${s}'?` : ''}`,
      known.length ? `the refs: ${known.join(', ')}` : "there are none; 'sow refs add <source>' adds one",
      { link },
    ];
  },
) {}

/** A git URL whose parts, as git and ssh read them, could be an option or hold a control character: never given git. */
export class RefSourceUnsafeError extends errorClass('REF_SOURCE_UNSAFE', 'failed', (source: string, why: string) => [
  `sow will not hand ${quoted(source)} to git: ${why}`,
  "write the URL as your git host shows it for cloning (e.g. 'https://github.com/owner/repo.git' or " +
    "'git@github.com:owner/repo.git')",
  { source },
]) {}

/** A ref whose --path leads out of its checkout in the cache, through a link the source carries. */
export class RefPathEscapeError extends errorClass(
  'REF_PATH_ESCAPES',
  'state',
  (link: string, path: string, cause: PathEscapeError) => {
    const d = cause.details ?? {};
    const via = typeof d['link'] === 'string' ? ` ('${d['link']}' is a link to '${String(d['target'])}')` : '';
    return [
      `ref '${link}': its path '${path}' leads out of the source's checkout${via}; ` +
        `sow will not link .sow/refs/${link} there`,
      `the source carries that link; use a path that is a real folder of it ('sow refs remove ${link}', then add ` +
        `it again with another --path), or the whole source`,
      { link, path, ...d },
    ];
  },
) {}

/** Whether the absolute path `target` is `base` or inside it. */
const isInside = (base: string, target: string) => pathWithin(resolve(base), resolve(target)) !== undefined;

// Where a ref's files are in the cache (`target`: the checkout, or the folder `path` inside it), confined each time:
// the checkout to the cache, the path to the checkout, so a link that appeared since is refused (RefPathEscapeError).
function placeOf(ref: RefEntry, env: CacheEnv) {
  const folder = sourceKind(ref.source) === 'folder';
  const kind: 'git' | 'copy' = folder && !isGitFolder(ref.source) ? 'copy' : 'git';
  const key = cacheKey(ref.source, ref.branch ?? null);
  const dir = checkoutDir(key, env);
  return { key, dir, target: targetOf(ref, dir), kind };
}

function targetOf(ref: RefEntry, dir: string): string {
  if (!ref.path) return dir;
  try {
    return confine(checkoutArea(dir), ref.path, { source: `ref '${ref.link}'` });
  } catch (err) {
    if (err instanceof PathEscapeError) throw new RefPathEscapeError(ref.link, ref.path, err);
    throw err;
  }
}

/** `.sow/refs/<link>`, in `.sow/refs/` as a real folder (made if missing; links are made and removed only there). */
const linkPath = (root: string, link: string) => join(realFolder(repoArea(root), REFS_DIR), link);

/** Fills the cache for a ref (clone or copy) and records it; returns where its files are. */
function materialize(ctx: AppContext, root: string, ref: RefEntry, progress: boolean) {
  const place = placeOf(ref, ctx.env);
  const { sha, cloned } =
    place.kind === 'git'
      ? ensureClone(place.key, ref.source, ref.branch ?? null, progress, ctx.env)
      : (copyFolder(place.key, ref.source, ctx.env), { sha: null, cloned: true });
  // Again now that the checkout is there: its links are what the path may go through.
  const target = targetOf(ref, place.dir);
  const expected = `a folder or file of ${ref.source}; it has none at that path`;
  if (!pathExists(target)) throw new InvalidValueError('--path', ref.path ?? '', expected);
  const index = readCacheIndex(ctx.env);
  const before = index.entries[place.key];
  const users = [...new Set([...(before?.users ?? []), root])];
  const fetched_at = cloned || !before ? ctx.now() : before.fetched_at;
  const branch = ref.branch ?? null;
  index.entries[place.key] = { source: ref.source, branch, kind: place.kind, sha, fetched_at, users };
  writeCacheIndex(index, ctx.env);
  return { target, sha, cloned };
}

type AddRefOptions = Partial<Record<'link' | 'path' | 'branch' | 'description' | 'semantic' | 'tags', string>> & {
  local?: boolean;
  progress: boolean;
};

/** `sow refs add`: `link` defaults to the source's name. */
export async function addRef(ctx: AppContext, rawSource: string, o: AddRefOptions) {
  const folder = sourceKind(rawSource) === 'folder';
  const source = folder ? resolve(ctx.cwd, rawSource) : rawSource;
  // A folder is named by where it is (`.` too), a URL by its last part.
  const link = o.link ?? defaultLink(source);
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
  const unsafe = folder ? undefined : urlProblem(rawSource);
  if (unsafe !== undefined) throw new RefSourceUnsafeError(rawSource, unsafe);
  return withWorkspaceLock(ctx, async (root) => {
    const ix = readIndexes(root);
    const existing = allRefs(ix).find((r) => r.link === link);
    if (existing) throw new RefExistsError(link, existing.local);
    const expected = 'a git URL (https://, ssh://, git@host:…, file://) or an existing folder';
    if (folder && !pathExists(source)) throw new InvalidValueError('source', rawSource, expected);
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
    const why = forcedLocal ? { why_local: whyLocal } : {};
    return { ref, local, link: `${REFS_DIR}/${link}`, target: m.target, via, forcedLocal, ...why, sha: m.sha };
  });
}

export async function listRefs(ctx: AppContext) {
  return refInfos({ ...ctx, cwd: await openRoot(ctx) });
}

/** Each ref of the repository at `ctx.cwd`, whether its link works, and what the cache holds of it; reads only. */
export function refInfos(ctx: AppContext) {
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
      link_state: folder === undefined ? ('missing' as const) : linkState(join(folder, r.link), place.target),
      cache: c ? { sha: c.sha, fetched_at: c.fetched_at, kind: c.kind } : null,
    };
  });
}

function select(refs: ReturnType<typeof allRefs>, link: string | undefined) {
  if (link === undefined) return refs;
  const ref = refs.find((r) => r.link === link);
  if (!ref) throw new RefNotFoundError(link, refs);
  return [ref];
}

export async function removeRef(ctx: AppContext, link: string, pruneCache: boolean) {
  const { env } = ctx;
  return withWorkspaceLock(ctx, async (root) => {
    const ix = readIndexes(root);
    const ref = select(allRefs(ix), link)[0]!;
    // Its cache key only: a ref is removed even when its path no longer leads where it may.
    const key = cacheKey(ref.source, ref.branch ?? null);
    removeLink(linkPath(root, link));
    const tx = new Transaction(root);
    const kept = (ref.local ? ix.local : ix.committed).filter((r) => r.link !== link);
    writeIndex(tx, ref.local, kept);
    tx.commit();
    // Other refs of this repository may share the checkout (another --path of the same source).
    const stillHere = allRefs(readIndexes(root)).some((r) => cacheKey(r.source, r.branch ?? null) === key);
    const index = readCacheIndex(env);
    const c = index.entries[key];
    if (c && !stillHere) c.users = c.users.filter((u) => u !== root);
    const users = c?.users.length ?? 0;
    const pruned = c !== undefined && pruneCache && users === 0;
    if (pruned) {
      removeCheckout(key, env);
      delete index.entries[key];
    }
    if (c) writeCacheIndex(index, env);
    return { link, local: ref.local, pruned, still_used_by: users };
  });
}

/** `sow refs init`: every link of both indexes made again (cloning what the cache lacks), as on a fresh clone. */
export async function refsInit(ctx: AppContext, progress: boolean) {
  return withWorkspaceLock(ctx, async (root) => {
    // The indexes first: one sow refuses leaves everything as it was.
    const refs = allRefs(readIndexes(root));
    const tx = new Transaction(root);
    ensureGitignore(tx, root);
    tx.commit();
    return refs.map((r) => {
      const m = materialize(ctx, root, r, progress);
      return { link: r.link, cloned: m.cloned, via: makeLink(linkPath(root, r.link), m.target) };
    });
  });
}

/** Told before each fetch starts and after it ends (a spinner with the link's name, on a terminal). */
export type FetchProgress = { start(link: string): void; end(): void };
const noProgress: FetchProgress = { start: () => undefined, end: () => undefined };

/** `sow refs status [<link>]`: fetches each git ref and says how its checkout stands; offline when it cannot. */
export async function refsStatus(ctx: AppContext, link?: string, progress: FetchProgress = noProgress) {
  const root = await openRoot(ctx);
  type RefStatus = { link: string; kind: 'git' | 'copy'; sha: string | null; fetched_at: string | null } & (
    Freshness | { state: 'not-cloned' | 'snapshot' }
  );
  const out: RefStatus[] = [];
  for (const r of select(allRefs(readIndexes(root)), link)) {
    const place = placeOf(r, ctx.env);
    const index = readCacheIndex(ctx.env);
    const c = index.entries[place.key];
    const base = { link: r.link, kind: place.kind, sha: c?.sha ?? null, fetched_at: c?.fetched_at ?? null };
    const idle = place.kind === 'copy' ? 'snapshot' : isGitFolder(place.dir) ? undefined : 'not-cloned';
    if (idle) {
      out.push({ ...base, state: idle });
      continue;
    }
    progress.start(r.link);
    const f = await fetchAndCompare(place.dir, r.branch ?? null).finally(() => progress.end());
    if (f.state !== 'offline' && c) {
      index.entries[place.key] = { ...c, fetched_at: ctx.now() };
      writeCacheIndex(index, ctx.env);
    }
    out.push({ ...base, sha: headOf(place.dir) || base.sha, ...f });
  }
  return out;
}

type RefUpdate = {
  link: string;
  result: 'updated' | 'current' | 'ahead' | 'offline' | 'refused' | 'recopied' | 'cloned';
  from?: string | null;
  to?: string | null;
  why?: string;
};

/** `sow refs update [<link>]`: fast-forwards each checkout; never discards local changes in the cache. */
export async function refsUpdate(
  ctx: AppContext,
  link: string | undefined,
  progress: boolean,
  fetchProgress: FetchProgress = noProgress,
): Promise<RefUpdate[]> {
  return withWorkspaceLock(ctx, async (root) => {
    const out: RefUpdate[] = [];
    for (const r of select(allRefs(readIndexes(root)), link)) {
      const place = placeOf(r, ctx.env);
      if (place.kind === 'copy') {
        copyFolder(place.key, r.source, ctx.env);
        makeLink(linkPath(root, r.link), targetOf(r, place.dir));
        out.push({ link: r.link, result: 'recopied' });
        continue;
      }
      if (!isGitFolder(place.dir)) {
        const m = materialize(ctx, root, r, progress);
        makeLink(linkPath(root, r.link), m.target);
        out.push({ link: r.link, result: 'cloned', to: m.sha });
        continue;
      }
      const changes = localChanges(place.dir);
      const from = headOf(place.dir);
      const refused = (why: string) => out.push({ link: r.link, result: 'refused', from, why });
      if (changes.length) {
        refused(
          `its checkout in the cache (${place.dir}) has ${changes.length} uncommitted change(s), which sow does ` +
            'not discard',
        );
        continue;
      }
      fetchProgress.start(r.link);
      const f = await fetchAndCompare(place.dir, r.branch ?? null).finally(() => fetchProgress.end());
      if (f.state === 'offline') out.push({ link: r.link, result: 'offline', from, why: f.reason });
      else if (f.state === 'current') out.push({ link: r.link, result: 'current', from, to: from });
      else if (f.state === 'ahead') {
        const why = `${f.ahead} commit(s) made in the cache that the source does not have; kept`;
        out.push({ link: r.link, result: 'ahead', from, to: from, why });
      } else if (f.state === 'diverged' || !fastForward(place.dir)) {
        const how = f.state === 'diverged' ? `${f.ahead} ahead, ${f.behind} behind` : 'no fast-forward';
        refused(`its checkout and the source have diverged (${how}); sow does not rewrite it`);
      } else {
        const to = headOf(place.dir);
        const index = readCacheIndex(ctx.env);
        const c = index.entries[place.key];
        if (c) index.entries[place.key] = { ...c, sha: to, fetched_at: ctx.now() };
        writeCacheIndex(index, ctx.env);
        out.push({ link: r.link, result: 'updated', from, to });
      }
    }
    return out;
  });
}
