/**
 * Shared references (the spec's ADR-009): knowledge and code that agents should read, from git
 * repositories or local folders, cloned once into the user's cache and linked into each
 * repository as `.sow/refs/<link>`. Two indexes: `.sow/refs/index.json`, committed, says what the
 * team uses (link, source, branch, path, description, semantic, tags); `.sow/refs/index.local.json`,
 * ignored, holds this machine's own refs. The cache keeps which commit each checkout is at and who
 * uses it. The links themselves are ignored by git and rebuilt by `sow refs init`.
 *
 * The committed index comes with the repository, so it is read as a claim: it may name only
 * https:// and ssh:// sources (domain/refs.ts), never a folder of this machine; a local index that
 * is committed is refused; link names are plain names; `.sow/refs/` is a real folder; and a ref's
 * path stays inside its checkout, which stays inside the cache (checked on every use).
 */
import { contextOf, type AppContext, type Where } from './context.js';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { InvalidValueError, notOneOf, SowError, StateFileError, UsageError } from '../domain/errors.js';
import { defaultLink, linkProblem, sourceKind, unsharedReason, urlProblem } from '../domain/refs.js';
import { nearMiss } from '../domain/suggest.js';
import {
  confine,
  existingRealFolder,
  normalRelative,
  PathEscapeError,
  realFolder,
  repoArea,
} from '../adapters/confine.js';
import { pathExists, readFileIfExists } from '../adapters/files.js';
import { isTracked } from '../adapters/git.js';
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
  type CacheEntry,
  type CacheEnv,
  type Freshness,
  type LinkState,
} from '../adapters/refs-cache.js';
import { Transaction } from '../adapters/transaction.js';
import { openRoot, withWorkspaceLock } from './workspace.js';
import { quoted } from '../domain/display.js';

export const REFS_DIR = '.sow/refs';
const COMMITTED = `${REFS_DIR}/index.json`;
const LOCAL = `${REFS_DIR}/index.local.json`;
const REFS_GITIGNORE = `# The links are rebuilt from index.json by 'sow refs init'; index.local.json is this machine's own.
*
!.gitignore
!.gitkeep
!index.json
`;

export const SEMANTICS = ['knowledge', 'code'] as const;
export type Semantic = (typeof SEMANTICS)[number];

export interface RefEntry {
  link: string;
  source: string;
  branch?: string;
  path?: string;
  description?: string;
  semantic: Semantic;
  tags: string[];
}

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

/** A committed entry whose source is not a shared remote (a folder of this machine): refused, never copied or linked. */
export class RefSourceNotSharedError extends SowError {
  constructor(index: number, link: string, source: string, why: string) {
    super(
      'REF_SOURCE_NOT_SHARED',
      'state',
      `${COMMITTED}: refs.${index} ('${link}', source '${source}'): ${why}; the committed index names only https:// and ssh:// sources`,
      `sow copied and linked nothing. To use it on this machine, remove the entry from ${COMMITTED} and run 'sow refs add ${source} --link ${link} --local'; if it came with the repository, it was committed to make sow put it in front of your agents`,
      { file: COMMITTED, field: `refs.${index}.source`, link, source },
    );
  }
}

/** A git URL whose parts, as git and ssh will read them, could be an option or hold a control character: never handed to git. */
export class RefSourceUnsafeError extends SowError {
  constructor(source: string, why: string) {
    super(
      'REF_SOURCE_UNSAFE',
      'failed',
      `sow will not hand ${quoted(source)} to git: ${why}`,
      "write the URL as your git host shows it for cloning (e.g. 'https://github.com/owner/repo.git' or 'git@github.com:owner/repo.git')",
      { source },
    );
  }
}

/** The local index committed: it is this machine's own, so one that came with a repository is a claim, not the person's. */
export class LocalIndexCommittedError extends SowError {
  constructor() {
    super(
      'REF_LOCAL_INDEX_COMMITTED',
      'state',
      `${LOCAL} is committed to this repository, but it is this machine's own index and never shared`,
      `sow copied and linked nothing. If it came with the repository, remove it ('git rm ${LOCAL}') and look at what it names; if it is yours, stop tracking it ('git rm --cached ${LOCAL}')`,
      { file: LOCAL },
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
      `ref '${link}': its path '${path}' leads out of the source's checkout${typeof d['link'] === 'string' ? ` ('${d['link']}' is a link to '${String(d['target'])}')` : ''}; sow will not link .sow/refs/${link} there`,
      `the source carries that link; use a path that is a real folder of it ('sow refs remove ${link}', then add it again with another --path), or the whole source`,
      { link, path, ...d },
    );
  }
}

/** Reads one index strictly: a file sow cannot read is refused, not overwritten. The committed one names only shared sources. */
function readIndex(root: string, rel: string): RefEntry[] {
  const text = readFileIfExists(root, rel);
  if (text === undefined) return [];
  if (rel === LOCAL && isTracked(root, LOCAL)) throw new LocalIndexCommittedError();
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new StateFileError(rel, `not valid JSON: ${(err as Error).message}`);
  }
  const refs = (data as { refs?: unknown })?.refs;
  if (
    typeof data !== 'object' ||
    data === null ||
    (data as { version?: unknown }).version !== 1 ||
    !Array.isArray(refs)
  )
    throw new StateFileError(rel, 'expected {"version": 1, "refs": [...]}');
  return refs.map((r, i) => {
    const e = r as Record<string, unknown>;
    const str = (k: string, required = false) => {
      if (e[k] === undefined && !required) return undefined;
      if (typeof e[k] !== 'string' || e[k] === '')
        throw new StateFileError(rel, 'expected a non-empty string', `refs.${i}.${k}`);
      return e[k] as string;
    };
    const link = str('link', true)!;
    const badLink = linkProblem(link);
    if (badLink)
      throw new StateFileError(rel, `${quoted(link)} is not a link name: expected ${badLink}`, `refs.${i}.link`);
    const semantic = e['semantic'] ?? 'knowledge';
    if (!SEMANTICS.includes(semantic as Semantic))
      throw new StateFileError(rel, `expected ${SEMANTICS.join(' or ')}`, `refs.${i}.semantic`);
    const tags = e['tags'] ?? [];
    if (!Array.isArray(tags) || tags.some((t) => typeof t !== 'string'))
      throw new StateFileError(rel, 'expected a list of strings', `refs.${i}.tags`);
    const entry: RefEntry = {
      link,
      source: str('source', true)!,
      semantic: semantic as Semantic,
      tags: tags as string[],
    };
    for (const k of ['branch', 'path', 'description'] as const) {
      const v = str(k);
      if (v !== undefined) entry[k] = v;
    }
    if (rel === COMMITTED) {
      const why = unsharedReason(entry.source);
      if (why !== undefined) throw new RefSourceNotSharedError(i, link, entry.source, why);
    }
    // Either index: a URL is judged as git will read it before any command hands it to git.
    const unsafe = sourceKind(entry.source) === 'git' ? urlProblem(entry.source) : undefined;
    if (unsafe !== undefined)
      throw new StateFileError(rel, `sow will not hand it to git: ${unsafe}`, `refs.${i}.source`);
    if (entry.path !== undefined && normalRelative(entry.path) === undefined)
      throw new StateFileError(
        rel,
        `${quoted(entry.path)} is not a path inside the source (relative, without '..')`,
        `refs.${i}.path`,
      );
    return entry;
  });
}

/** Whether the absolute path `target` is `base` or inside it. */
const isInside = (base: string, target: string) => {
  const rel = relative(resolve(base), resolve(target));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

const renderIndex = (refs: readonly RefEntry[]) => `${JSON.stringify({ version: 1, refs }, null, 2)}\n`;

interface Indexes {
  committed: RefEntry[];
  local: RefEntry[];
}

/** Both indexes; `.sow/refs/` must be a real folder (a clone may carry a link there, to make sow link and remove elsewhere). */
function readIndexes(root: string): Indexes {
  if (existingRefsFolder(root) === undefined) return { committed: [], local: [] };
  return { committed: readIndex(root, COMMITTED), local: readIndex(root, LOCAL) };
}
const allRefs = (ix: Indexes) => [
  ...ix.committed.map((r) => ({ ...r, local: false })),
  ...ix.local.map((r) => ({ ...r, local: true })),
];

/** Where a ref's files are in the cache: the checkout, or the folder `path` inside it. */
interface Place {
  key: string;
  dir: string;
  target: string;
  kind: 'git' | 'copy';
}

/**
 * Where a ref's files are in the cache. Every path is confined: the checkout to the cache, the
 * ref's `path` to its checkout (a link the source carries may not lead out of it) — checked each
 * time, so a link that appeared in the cache since is refused too. Throws RefPathEscapeError.
 */
function placeOf(ref: RefEntry, env: CacheEnv): Place {
  const folder = sourceKind(ref.source) === 'folder';
  const kind = folder && !isGitFolder(ref.source) ? 'copy' : 'git';
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

/** `.sow/refs/`, a real folder (made if missing; never a link): links are made and removed only there. */
const refsFolder = (root: string) => realFolder(repoArea(root), REFS_DIR);
const existingRefsFolder = (root: string) => existingRealFolder(repoArea(root), REFS_DIR);
/** `.sow/refs/<link>` (a plain name, checked when the index was read). */
const linkPath = (root: string, link: string) => join(refsFolder(root), link);

/** Fills the cache for a ref (clone or copy) and records it; returns where its files are. */
function materialize(
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

function ensureGitignore(tx: Transaction, root: string): void {
  if (readFileIfExists(root, `${REFS_DIR}/.gitignore`) !== REFS_GITIGNORE)
    tx.write(`${REFS_DIR}/.gitignore`, REFS_GITIGNORE);
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
  where: Where,
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
  const ctx = contextOf(where);
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
    // Only a shared remote (https, ssh) goes into the committed index; a folder of this machine,
    // a file:// or an unencrypted URL stays in the local one.
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
    if (local) tx.write(LOCAL, renderIndex([...ix.local, ref]));
    else tx.write(COMMITTED, renderIndex([...ix.committed, ref]));
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

export async function listRefs(where: Where): Promise<RefInfo[]> {
  const ctx = contextOf(where);
  return refInfos({ ...ctx, cwd: await openRoot(ctx) });
}

/** Each ref of the repository at the root (`where`), whether its link works, and what the cache holds of it; reads only. */
export function refInfos(where: Where): RefInfo[] {
  const { cwd: root, env } = contextOf(where);
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

function select(refs: ReturnType<typeof allRefs>, link: string | undefined) {
  if (link === undefined) return refs;
  const ref = refs.find((r) => r.link === link);
  if (!ref)
    throw new RefNotFoundError(
      link,
      refs.map((r) => r.link),
    );
  return [ref];
}

export type RefStatus = { link: string; kind: 'git' | 'copy'; sha: string | null; fetched_at: string | null } & (
  Freshness | { state: 'not-cloned' } | { state: 'snapshot' }
);

/** `sow refs status [<link>]`: fetches each git ref and says how its checkout stands; offline when it cannot. */
/** Told before each fetch starts and after it ends (a spinner with the link's name, on a terminal). */
export interface FetchProgress {
  start(link: string): void;
  end(): void;
}
const noProgress: FetchProgress = { start: () => undefined, end: () => undefined };

async function fetching<T>(progress: FetchProgress, link: string, fn: () => Promise<T>): Promise<T> {
  progress.start(link);
  try {
    return await fn();
  } finally {
    progress.end();
  }
}

export async function refsStatus(
  where: Where,
  link?: string,
  progress: FetchProgress = noProgress,
): Promise<RefStatus[]> {
  const ctx = contextOf(where);
  const root = await openRoot(ctx);
  const out: RefStatus[] = [];
  for (const r of select(allRefs(readIndexes(root)), link)) {
    const place = placeOf(r, ctx.env);
    const index = readCacheIndex(ctx.env);
    const c = index.entries[place.key];
    const base = { link: r.link, kind: place.kind, sha: c?.sha ?? null, fetched_at: c?.fetched_at ?? null };
    if (place.kind === 'copy') {
      out.push({ ...base, state: 'snapshot' });
      continue;
    }
    if (!isGitFolder(place.dir)) {
      out.push({ ...base, state: 'not-cloned' });
      continue;
    }
    const f = await fetching(progress, r.link, () => fetchAndCompare(place.dir, r.branch ?? null));
    if (f.state !== 'offline' && c) {
      index.entries[place.key] = { ...c, fetched_at: ctx.now() };
      writeCacheIndex(index, ctx.env);
    }
    out.push({ ...base, sha: headOf(place.dir) || base.sha, ...f });
  }
  return out;
}

export interface RefUpdate {
  link: string;
  result: 'updated' | 'current' | 'ahead' | 'offline' | 'refused' | 'recopied' | 'cloned';
  from?: string | null;
  to?: string | null;
  why?: string;
}

/** `sow refs update [<link>]`: fast-forwards each checkout; never discards local changes in the cache. */
export async function refsUpdate(
  where: Where,
  link: string | undefined,
  progress: boolean,
  fetchProgress: FetchProgress = noProgress,
): Promise<RefUpdate[]> {
  const ctx = contextOf(where);
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
      if (changes.length) {
        out.push({
          link: r.link,
          result: 'refused',
          from,
          why: `its checkout in the cache (${place.dir}) has ${changes.length} uncommitted change(s), which sow does not discard`,
        });
        continue;
      }
      const f = await fetching(fetchProgress, r.link, () => fetchAndCompare(place.dir, r.branch ?? null));
      if (f.state === 'offline') out.push({ link: r.link, result: 'offline', from, why: f.reason });
      else if (f.state === 'current') out.push({ link: r.link, result: 'current', from, to: from });
      else if (f.state === 'ahead')
        out.push({
          link: r.link,
          result: 'ahead',
          from,
          to: from,
          why: `${f.ahead} commit(s) made in the cache that the source does not have; kept`,
        });
      else if (f.state === 'diverged' || !fastForward(place.dir))
        out.push({
          link: r.link,
          result: 'refused',
          from,
          why: `its checkout and the source have diverged (${f.state === 'diverged' ? `${f.ahead} ahead, ${f.behind} behind` : 'no fast-forward'}); sow does not rewrite it`,
        });
      else {
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

export async function removeRef(
  where: Where,
  link: string,
  pruneCache: boolean,
): Promise<{ link: string; local: boolean; pruned: boolean; still_used_by: number }> {
  const { env } = contextOf(where);
  return withWorkspaceLock(where, async (root) => {
    const ix = readIndexes(root);
    const [ref] = select(allRefs(ix), link);
    // Its cache key only: a ref is removed even when its path no longer leads where it may.
    const key = cacheKey(ref!.source, ref!.branch ?? null);
    removeLink(linkPath(root, link));
    const tx = new Transaction(root);
    if (ref!.local) tx.write(LOCAL, renderIndex(ix.local.filter((r) => r.link !== link)));
    else tx.write(COMMITTED, renderIndex(ix.committed.filter((r) => r.link !== link)));
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
  where: Where,
  progress: boolean,
): Promise<{ link: string; cloned: boolean; via: 'link' | 'copy' }[]> {
  const ctx = contextOf(where);
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

/** How many refs there are, for the state card (none when the indexes cannot be read, as refsForPrompt). */
export function refsCount(root: string): number {
  try {
    return allRefs(readIndexes(root)).length;
  } catch {
    return 0;
  }
}

/** The refs, as the prompts list them for agents (empty without any). */
export function refsForPrompt(root: string): string {
  let refs: ReturnType<typeof allRefs>;
  try {
    refs = allRefs(readIndexes(root));
  } catch {
    return '';
  }
  if (refs.length === 0) return '';
  return [
    '## References',
    '',
    'Read these before you decide how to do something; they are what this team follows and reuses (`sow refs list` shows them, `sow refs init` makes a missing link again):',
    '',
    ...refs.map(
      (r) =>
        `- \`${REFS_DIR}/${r.link}\` (${r.semantic}${r.tags.length ? `; ${r.tags.join(', ')}` : ''})${r.description ? `: ${r.description}` : ''}`,
    ),
    '',
  ].join('\n');
}

/** A prompt with the references agents should know about appended (when there are any). */
export const withRefs = (prompt: string, refs: string) => (refs ? `${prompt.trimEnd()}\n\n${refs}` : prompt);
