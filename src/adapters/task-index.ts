/**
 * The task index, `.sow/.runtime/tasks.json`: what lists need of each task (its summary), kept
 * beside the stat of the task file it was read from. It is never believed over the task file:
 * every use stats the file, and a summary is taken only when inode, size, mtime and ctime all
 * still match; anything else is read and validated again. Like git's index, an entry is written
 * only for a file whose timestamps are settled (older than SETTLE_MS), so an edit within the
 * timestamp granularity of the file system cannot hide behind an unchanged stat. Reading 10,000
 * task files costs ~1 s; statting them ~50 ms. See docs/decisions/0009-one-truth-per-fact.md.
 */
import { readdirSync, readFileSync, statSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './fs-atomic.js';
import { ensureRuntimeDir, runtimePath } from './runtime.js';

const FORMAT = 1;
const SETTLE_MS = 2_000;

type Entry = [key: string, summary: unknown];

const keyOf = (st: Stats) => `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
const settled = (st: Stats, now: number) => now - Math.max(st.mtimeMs, st.ctimeMs) > SETTLE_MS;

/** The entries of a folder: sub-folders and other names, dotfiles left out. */
export function listFolder(abs: string): { dirs: string[]; files: string[] } {
  const dirs: string[] = [];
  const files: string[] = [];
  let entries;
  try {
    entries = readdirSync(abs, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { dirs, files };
    throw err;
  }
  for (const e of entries) {
    if (e.name.startsWith('.')) continue;
    (e.isDirectory() ? dirs : files).push(e.name);
  }
  return { dirs, files };
}

export class TaskIndex {
  private dirty = false;

  private constructor(private readonly root: string, private readonly entries: Map<string, Entry>) {}

  static open(root: string): TaskIndex {
    const entries = new Map<string, Entry>();
    try {
      const data = JSON.parse(readFileSync(runtimePath(root, 'tasks.json'), 'utf8')) as { format?: unknown; entries?: unknown };
      if (data.format === FORMAT && typeof data.entries === 'object' && data.entries !== null) {
        for (const [id, entry] of Object.entries(data.entries)) {
          if (Array.isArray(entry) && entry.length === 2 && typeof entry[0] === 'string') entries.set(id, entry as Entry);
        }
      }
    } catch {
      // No index, or one that cannot be read: every task file is read.
    }
    return new TaskIndex(root, entries);
  }

  /**
   * The summary of each task, from the index where the file is unchanged, else from `load`,
   * which reads, validates and summarises the file's text (and throws when it is invalid).
   * `accept` checks that an indexed summary still has the shape this sow needs.
   */
  async summaries<T>(ids: readonly string[], relOf: (id: string) => string, load: (id: string, rel: string, text: string | undefined) => Promise<T>, accept: (summary: unknown) => summary is T): Promise<T[]> {
    const out: T[] = [];
    const now = Date.now();
    const present = new Set(ids);
    for (const id of ids) {
      const rel = relOf(id);
      const abs = join(this.root, rel);
      const before = statSync(abs, { throwIfNoEntry: false });
      const entry = before?.isFile() ? this.entries.get(id) : undefined;
      if (entry && entry[0] === keyOf(before!) && accept(entry[1])) {
        out.push(entry[1]);
        continue;
      }
      let text: string | undefined;
      if (before?.isFile()) text = readFileSync(abs, 'utf8');
      const summary = await load(id, rel, text);
      out.push(summary);
      const after = before && statSync(abs, { throwIfNoEntry: false });
      if (after && before && keyOf(after) === keyOf(before) && settled(after, now)) {
        this.entries.set(id, [keyOf(after), summary]);
        this.dirty = true;
      } else if (this.entries.delete(id)) {
        this.dirty = true;
      }
    }
    for (const id of this.entries.keys()) {
      if (!present.has(id)) {
        this.entries.delete(id);
        this.dirty = true;
      }
    }
    return out;
  }

  /** Writes the index if it learnt something. Best effort: a failure costs the next read a parse. */
  save(): void {
    if (!this.dirty) return;
    try {
      const dir = ensureRuntimeDir(this.root);
      writeFileAtomic(join(dir, 'tasks.json'), JSON.stringify({ format: FORMAT, entries: Object.fromEntries(this.entries) }), { durable: false });
      this.dirty = false;
    } catch {
      // a read-only checkout, a full disk: the index is only a shortcut
    }
  }
}
