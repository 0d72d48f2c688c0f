/** The task index, `tasks.json` of the runtime folder: each task's summary beside its file's stat, used only while
 * inode, size, mtime and ctime match; only settled files get an entry (decision 0009). */
import { lstatSync, readFileSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import * as v from 'valibot';
import {
  OwnerSchema,
  TASK_ID_PATTERN,
  TASK_STATUSES,
  type Owner,
  type TaskStatus,
  type TaskSummary,
} from '../domain/schemas.js';
import { compareIds, TASK_ID_LIST } from '../domain/tasks.js';
import { sowPath } from './confine.js';
import {
  DIRENT_DIR,
  DIRENT_LINK,
  DIRENT_UNKNOWN,
  fileStamp,
  folderEntries,
  SECONDS_BASE,
  settled,
  stampSettled,
  stampUnlessSame,
  type FileStamp,
} from './file-stamp.js';
import { HeldFiles } from './held-files.js';
import { writeFileAtomic } from './fs-atomic.js';
import { ignoring, MISSING, quietly } from './io-errors.js';
import { MAX_STATE_BYTES } from './state-files.js';
import { ensureRuntimeDir, runtimePath } from './runtime.js';

const FORMAT = 7;
/** An index of 10,000 tasks takes about 1 MB. */
const MAX_INDEX_BYTES = 64 * 1024 * 1024;

/** id, ino, size, mtime s (less SECONDS_BASE), ns, ctime s (less SECONDS_BASE), ns; name, status, parallel (0/1),
 * agent, owner, session agent (or 0), deps… */
type Entry = (string | number | Owner)[];

const same = (e: Entry, st: FileStamp) =>
  e[1] === st.ino &&
  e[2] === st.size &&
  e[3] === st.mtimeS - SECONDS_BASE &&
  e[4] === st.mtimeNs &&
  e[5] === st.ctimeS - SECONDS_BASE &&
  e[6] === st.ctimeNs;
const STATUSES: ReadonlySet<unknown> = new Set(TASK_STATUSES);
/** Where an entry's summary begins. */
const NAME = 7;
const DEPENDENCIES = NAME + 6;

function encode(st: FileStamp, s: TaskSummary): Entry {
  return [
    s.id,
    st.ino,
    st.size,
    st.mtimeS - SECONDS_BASE,
    st.mtimeNs,
    st.ctimeS - SECONDS_BASE,
    st.ctimeNs,
    s.name,
    s.status,
    s.parallel ? 1 : 0,
    s.assigned_agent ?? 0,
    s.owner ?? 0,
    s.session_agent ?? 0,
    ...s.dependencies,
  ];
}

const NO_DEPENDENCIES = Object.freeze([]) as unknown as string[];

/** The summary an entry holds, or undefined when the entry is not one this sow wrote. */
function decode(id: string, e: Entry): TaskSummary | undefined {
  const name = e[NAME];
  const status = e[NAME + 1];
  const parallel = e[NAME + 2];
  const agent = e[NAME + 3];
  const owner = e[NAME + 4];
  const sessionAgent = e[NAME + 5];
  if (
    typeof name !== 'string' ||
    !STATUSES.has(status) ||
    (parallel !== 0 && parallel !== 1) ||
    (agent !== 0 && typeof agent !== 'string') ||
    (owner !== 0 && !v.is(OwnerSchema, owner)) ||
    (sessionAgent !== 0 && typeof sessionAgent !== 'string')
  )
    return undefined;
  // Most tasks depend on none: they share one empty list (frozen, as a long-lived process freezes every summary's).
  let dependencies = NO_DEPENDENCIES;
  if (e.length > DEPENDENCIES) {
    dependencies = [];
    for (let i = DEPENDENCIES; i < e.length; i++) {
      const d = e[i];
      if (typeof d !== 'string' || !TASK_ID_PATTERN.test(d)) return undefined;
      dependencies.push(d);
    }
  }
  const summary: TaskSummary = { id, name, status: status as TaskStatus, parallel: parallel === 1, dependencies };
  if (agent !== 0) summary.assigned_agent = agent;
  if (owner !== 0) summary.owner = owner as Owner;
  if (sessionAgent !== 0) summary.session_agent = sessionAgent as string;
  return summary;
}

/** The names in a folder of `.sow/`, dotfiles left out, none when missing; a link out of `.sow/` is refused, so what
 * is listed can be read by name. `now` decides which folders have settled. */
export function listNames(root: string, rel: string, now = Date.now()): string[] {
  return listFolder(root, rel, now).names;
}

/** listNames, and whether every name is a folder's (no link or unknown entry a later read would have to look at). */
export function listFolder(root: string, rel: string, now = Date.now()): { names: string[]; folders: boolean } {
  const abs = sowPath(root, rel);
  // A long-lived process lists a folder again only when its stat changed (any change to its entries does that).
  const st = listings ? lstatSync(abs, { throwIfNoEntry: false }) : undefined;
  const kept = st?.isDirectory() ? listings!.get(abs) : undefined;
  if (kept && kept.ino === st!.ino && kept.mtimeMs === st!.mtimeMs && kept.ctimeMs === st!.ctimeMs)
    return { names: [...kept.names], folders: false };
  const entries = ignoring(MISSING, () => folderEntries(abs));
  if (!entries) return { names: [], folders: false };
  const names: string[] = [];
  let folders = true;
  const { names: all, types } = entries;
  for (let i = 0; i < all.length; i++) {
    const name = all[i]!;
    if (name.charCodeAt(0) === 46 /* . */) continue;
    const type = types[i];
    if (type !== DIRENT_DIR) folders = false;
    if (type === DIRENT_LINK || (type === DIRENT_UNKNOWN && isLink(`${abs}/${name}`))) sowPath(root, `${rel}/${name}`);
    names.push(name);
  }
  if (st?.isDirectory() && settled(st.mtimeMs, st.ctimeMs, now))
    listings!.set(abs, { ino: st.ino, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, names: [...names] });
  return { names, folders };
}

const isLink = (abs: string) => lstatSync(abs, { throwIfNoEntry: false })?.isSymbolicLink() === true;

/** Whether `rel` (repository-relative, inside `.sow/`) is a folder; confined like listNames. */
export function isFolder(root: string, rel: string): boolean {
  return statSync(sowPath(root, rel), { throwIfNoEntry: false })?.isDirectory() === true;
}

/** The entries a long-lived process (`sow mcp`) last had, by root: checked like the file's, not parsed again. */
let kept: Map<string, { entries: Entry[]; listing: Listing | undefined }> | undefined;
/** A long-lived process's summaries, each decoded once from its entry and frozen: many calls share them. */
let decoded: WeakMap<Entry, TaskSummary> | undefined;
/** The task files a long-lived process holds open, to check each with fstat(2) (Linux; adapters/held-files.ts). */
let held: HeldFiles | undefined;
let lastLists: Map<string, readonly TaskSummary[]> | undefined;
/** The names listNames last found in each folder (by its absolute path), beside the folder's stat. */
let listings: Map<string, { ino: number; mtimeMs: number; ctimeMs: number; names: string[] }> | undefined;

/** From now on this process keeps the index and the folders' listings in memory between reads. */
export function keepTaskIndex(): void {
  kept ??= new Map();
  listings ??= new Map();
  decoded ??= new WeakMap();
  lastLists ??= new Map();
  if (process.platform === 'linux') held ??= new HeldFiles();
}

/** How many folder listings are kept (for tests). */
export function listingsKept(): number {
  return listings?.size ?? 0;
}

/** Stops keeping the index and the listings in memory. */
export function forgetTaskIndex(): void {
  kept = undefined;
  listings = undefined;
  decoded = undefined;
  lastLists = undefined;
  held?.release();
  held = undefined;
}

/** An entry's summary: decoded once and frozen where summaries are kept, else decoded afresh. */
function summaryFrom(id: string, e: Entry): TaskSummary | undefined {
  if (!decoded) return decode(id, e);
  let s = decoded.get(e);
  if (!s) {
    s = decode(id, e);
    if (!s) return undefined;
    Object.freeze(s.dependencies);
    decoded.set(e, Object.freeze(s));
  }
  return s;
}

/** The list handed out last for `root` when `list` holds the same summaries (frozen: a change throws), else `list`. */
function sameAsLast(root: string, list: TaskSummary[]): TaskSummary[] {
  if (!lastLists) return list;
  const last = lastLists.get(root);
  if (last && last.length === list.length) {
    let i = 0;
    while (i < list.length && list[i] === last[i]) i++;
    if (i === list.length) return last as TaskSummary[];
  }
  lastLists.set(root, Object.freeze(list));
  return list;
}

/** A folder of task folders as last listed: its path, ino, mtime and ctime (ms, as fs.Stats has them), and the ids. */
interface Listing {
  readonly rel: string;
  readonly ino: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  /** Its link count: a folder added or removed in it changes that too, where a file system keeps the folder's mtime. */
  readonly nlink: number;
  /** In id order; frozen, as many reads of a long-lived process share them. */
  readonly ids: readonly string[];
}

/** The listing a file holds ([rel, ino, mtimeMs, ctimeMs, nlink, ids joined by '/']), or undefined when it is not
 * one this sow wrote. The ids must be task ids: paths are made of them. */
function listingOf(raw: unknown): Listing | undefined {
  if (!Array.isArray(raw) || raw.length !== 6) return undefined;
  const [rel, ino, mtimeMs, ctimeMs, nlink, ids] = raw as unknown[];
  if (typeof rel !== 'string' || typeof ino !== 'number' || typeof mtimeMs !== 'number') return undefined;
  if (typeof ctimeMs !== 'number' || typeof nlink !== 'number') return undefined;
  if (typeof ids !== 'string' || (ids !== '' && !TASK_ID_LIST.test(ids))) return undefined;
  return { rel, ino, mtimeMs, ctimeMs, nlink, ids: Object.freeze(ids === '' ? [] : ids.split('/')) };
}

export class TaskIndex {
  private dirty = false;

  private constructor(
    private readonly root: string,
    private entries: Entry[],
    private listing: Listing | undefined,
  ) {}

  static open(root: string): TaskIndex {
    const known = kept?.get(root);
    if (known) return new TaskIndex(root, known.entries, known.listing);
    // Runtime data, but it may have come with a clone: a regular file of a sane size, or every task file is read.
    const data = quietly(() => {
      const path = runtimePath(root, 'tasks.json');
      const st = lstatSync(path);
      return st.isFile() && st.size <= MAX_INDEX_BYTES ? JSON.parse(readFileSync(path, 'utf8')) : undefined;
    });
    if (data?.format !== FORMAT) return new TaskIndex(root, [], undefined);
    return new TaskIndex(root, Array.isArray(data.entries) ? data.entries : [], listingOf(data.listing));
  }

  /** The ids of the task folders in `rel` (a folder of `.sow/`): the index's while the folder's stat is the one they
   * were listed at (adding, removing or renaming an entry of it changes that), else `list`'s. Kept only when `list`
   * found nothing but task folders and the folder has settled, as a task file's entry. */
  ids(rel: string, list: () => { ids: string[]; folders: boolean }, now = Date.now()): readonly string[] {
    let st = lstatSync(sowPath(this.root, rel), { throwIfNoEntry: false });
    const l = this.listing;
    if (!st?.isDirectory()) st = undefined;
    const unchanged =
      st !== undefined &&
      l?.rel === rel &&
      l.ino === st.ino &&
      l.mtimeMs === st.mtimeMs &&
      l.ctimeMs === st.ctimeMs &&
      l.nlink === st.nlink;
    if (unchanged) return l.ids;
    const { ids, folders } = list();
    const keep = st !== undefined && folders && settled(st.mtimeMs, st.ctimeMs, now);
    this.listing = keep
      ? { rel, ino: st!.ino, mtimeMs: st!.mtimeMs, ctimeMs: st!.ctimeMs, nlink: st!.nlink, ids: Object.freeze(ids) }
      : undefined;
    if (keep || l) this.dirty = true;
    return ids;
  }

  /** The summary of each task of `dir`: from the index where the file is unchanged, else from `load` (validating). */
  async summaries(
    dir: string,
    ids: readonly string[],
    load: (id: string, rel: string, text: string | undefined) => Promise<TaskSummary>,
    now = Date.now(),
  ): Promise<TaskSummary[]> {
    const out: TaskSummary[] = [];
    // The entries to keep: until a first difference, the first `taken` of the old ones (no copy of an unchanged index).
    let next: Entry[] | undefined;
    let taken = 0;
    const old = this.entries;
    let k = 0;
    const folder = sep === '/' ? `${this.root}/${dir}` : join(this.root, dir);
    held?.begin(folder, now);
    // Made only for a file not known unchanged (path.join costs a noticeable part of the stat at 10,000 tasks).
    const absOf = (id: string) => (sep === '/' ? `${folder}/${id}/state.yaml` : join(folder, id, 'state.yaml'));
    // Plain loops and few loads: this runs once per task in code that never gets hot in a one-shot process.
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      let e = old[k];
      while (Array.isArray(e) && e[0] !== id && compareIds(String(e[0]), id) < 0) e = old[++k];
      const candidate = Array.isArray(e) && e[0] === id ? e : undefined;
      if (candidate) k++;
      // lstat: a link is never taken from the index (reading it checks where it leads).
      const seen = held ? held.stamp(id, absOf) : stampUnlessSame(absOf(id), candidate);
      const unchanged = seen === true || (seen?.isFile === true && candidate !== undefined && same(candidate, seen));
      const known = unchanged ? (decoded ? summaryFrom(id, candidate!) : decode(id, candidate!)) : undefined;
      if (known) {
        out.push(known);
        if (next) next.push(candidate!);
        else if (old[taken] === candidate) taken++;
        else (next = old.slice(0, taken)).push(candidate!);
        continue;
      }
      next ??= old.slice(0, taken);
      // A known file whose entry was of the wrong shape: stamped again, to be read and entered afresh.
      const before = seen === true ? fileStamp(absOf(id)) : seen;
      const isFile = before?.isFile === true;
      const rel = `${dir}/${id}/state.yaml`;
      const abs = absOf(id);
      const text = isFile && before!.size <= MAX_STATE_BYTES ? readFileSync(abs, 'utf8') : undefined;
      const summary = await load(id, rel, text);
      out.push(summary);
      const entered = isFile && stampSettled(before!, now);
      if (entered) next.push(encode(before!, summary));
      if (entered || candidate) this.dirty = true;
    }
    next ??= taken === old.length ? old : old.slice(0, taken);
    if (next.length !== old.length) this.dirty = true;
    this.entries = next;
    return sameAsLast(this.root, out);
  }

  /** Writes the index if it learnt something. Best effort: a failure costs the next read a parse. */
  save(): void {
    kept?.set(this.root, { entries: this.entries, listing: this.listing });
    if (!this.dirty) return;
    try {
      const dir = ensureRuntimeDir(this.root);
      const l = this.listing;
      const listing = l ? [l.rel, l.ino, l.mtimeMs, l.ctimeMs, l.nlink, l.ids.join('/')] : undefined;
      const data = { format: FORMAT, entries: this.entries, ...(listing ? { listing } : {}) };
      writeFileAtomic(join(dir, 'tasks.json'), JSON.stringify(data), {
        durable: false,
      });
      this.dirty = false;
    } catch {
      // a read-only checkout, a full disk: the index is only a shortcut
    }
  }
}
