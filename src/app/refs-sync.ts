/** `sow refs status` and `sow refs update`: how each checkout stands against its source, and bringing it up to date. */
import {
  copyFolder,
  fastForward,
  fetchAndCompare,
  headOf,
  isGitFolder,
  localChanges,
  makeLink,
  readCacheIndex,
  writeCacheIndex,
  type Freshness,
} from '../adapters/refs-cache.js';
import type { AppContext } from './context.js';
import { allRefs, readIndexes } from './refs-index.js';
import { linkPath, materialize, placeOf, select, targetOf } from './refs.js';
import { openRoot, withWorkspaceLock } from './workspace.js';

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
      const f = await fetching(fetchProgress, r.link, () => fetchAndCompare(place.dir, r.branch ?? null));
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
