/**
 * The task index, `.sow/.runtime/tasks.json`: what lists need of each task (its summary), kept
 * beside the stat of the task file it was read from. It is never believed over the task file:
 * every use stats the file, and a summary is taken only when inode, size, mtime and ctime all
 * still match; anything else is read and validated again. Like git's index, an entry is written
 * only for a file whose timestamps are settled (older than SETTLE_MS), so an edit within the
 * timestamp granularity of the file system cannot hide behind an unchanged stat. The entry is
 * keyed by the stat taken *before* the read: a file changed during the read has a newer mtime by
 * then (it was settled), so its stat no longer matches and the entry is never believed. Reading 10,000
 * task files costs ~1 s; statting them ~50 ms. See docs/decisions/0009-one-truth-per-fact.md.
 *
 * Entries are flat arrays, not objects: at 10,000 tasks the index is parsed on every list, and
 * arrays of scalars parse in about half the time and make a fraction of the garbage.
 */
import { readdirSync, readFileSync, statSync, type Stats } from 'node:fs';
import { join, sep } from 'node:path';
import { TASK_STATUSES, type TaskStatus, type TaskSummary } from '../domain/schemas.js';
import { writeFileAtomic } from './fs-atomic.js';
import { ensureRuntimeDir, runtimePath } from './runtime.js';

const FORMAT = 3;
const SETTLE_MS = 2_000;

/** ino, size, mtimeMs, ctimeMs of the file it was read from, then name, status, parallel (0/1), agent (or 0), dependencies… */
type Entry = (string | number)[];

const same = (e: Entry, st: Stats) => e[0] === st.ino && e[1] === st.size && e[2] === st.mtimeMs && e[3] === st.ctimeMs;
const settled = (st: Stats, now: number) => now - Math.max(st.mtimeMs, st.ctimeMs) > SETTLE_MS;
const STATUSES: ReadonlySet<unknown> = new Set(TASK_STATUSES);

function encode(st: Stats, s: TaskSummary): Entry {
  return [st.ino, st.size, st.mtimeMs, st.ctimeMs, s.name, s.status, s.parallel ? 1 : 0, s.assigned_agent ?? 0, ...s.dependencies];
}

/** The summary an entry holds, or undefined when the entry is not one this sow wrote. */
function decode(id: string, e: Entry): TaskSummary | undefined {
  const [, , , , name, status, parallel, agent] = e;
  if (typeof name !== 'string' || !STATUSES.has(status) || (parallel !== 0 && parallel !== 1) || (agent !== 0 && typeof agent !== 'string')) return undefined;
  const dependencies = e.slice(8);
  if (!dependencies.every((d) => typeof d === 'string')) return undefined;
  const summary: TaskSummary = { id, name, status: status as TaskStatus, parallel: parallel === 1, dependencies: dependencies as string[] };
  if (agent !== 0) summary.assigned_agent = agent as string;
  return summary;
}

/** The names in a folder, dotfiles left out; none when it does not exist. */
export function listNames(abs: string): string[] {
  try {
    return readdirSync(abs).filter((name) => !name.startsWith('.'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

export function isFolder(abs: string): boolean {
  return statSync(abs, { throwIfNoEntry: false })?.isDirectory() === true;
}

export class TaskIndex {
  private dirty = false;

  private constructor(private readonly root: string, private entries: Record<string, Entry>) {}

  static open(root: string): TaskIndex {
    let entries: Record<string, Entry> = Object.create(null) as Record<string, Entry>;
    try {
      const data = JSON.parse(readFileSync(runtimePath(root, 'tasks.json'), 'utf8')) as { format?: unknown; entries?: unknown };
      if (data.format === FORMAT && typeof data.entries === 'object' && data.entries !== null && !Array.isArray(data.entries)) {
        entries = Object.assign(Object.create(null) as Record<string, Entry>, data.entries);
      }
    } catch {
      // No index, or one that cannot be read: every task file is read.
    }
    return new TaskIndex(root, entries);
  }

  /**
   * The summary of each task, from the index where the file is unchanged, else from `load`,
   * which reads, validates and summarises the file's text (and throws when it is invalid).
   */
  async summaries(ids: readonly string[], relOf: (id: string) => string, load: (id: string, rel: string, text: string | undefined) => Promise<TaskSummary>): Promise<TaskSummary[]> {
    const out: TaskSummary[] = [];
    const now = Date.now();
    const base = `${this.root}${sep}`;
    const next: Record<string, Entry> = Object.create(null) as Record<string, Entry>;
    for (const id of ids) {
      const rel = relOf(id);
      // Plain concatenation: path.join costs a noticeable part of the stat at 10,000 tasks.
      const abs = sep === '/' ? base + rel : join(this.root, rel);
      const before = statSync(abs, { throwIfNoEntry: false });
      const entry = before?.isFile() ? this.entries[id] : undefined;
      const known = Array.isArray(entry) && same(entry, before!) ? decode(id, entry) : undefined;
      if (known) {
        out.push(known);
        next[id] = entry!;
        continue;
      }
      const text = before?.isFile() ? readFileSync(abs, 'utf8') : undefined;
      const summary = await load(id, rel, text);
      out.push(summary);
      if (before?.isFile() && settled(before, now)) next[id] = encode(before, summary);
      this.dirty ||= next[id] !== undefined || entry !== undefined;
    }
    this.dirty ||= Object.keys(this.entries).length !== Object.keys(next).length;
    this.entries = next;
    return out;
  }

  /** Writes the index if it learnt something. Best effort: a failure costs the next read a parse. */
  save(): void {
    if (!this.dirty) return;
    try {
      const dir = ensureRuntimeDir(this.root);
      writeFileAtomic(join(dir, 'tasks.json'), JSON.stringify({ format: FORMAT, entries: this.entries }), { durable: false });
      this.dirty = false;
    } catch {
      // a read-only checkout, a full disk: the index is only a shortcut
    }
  }
}
