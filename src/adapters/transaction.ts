/**
 * Multi-file writes that survive a crash at any moment. A change that touches one file is a
 * single atomic rename. A change that touches several (a task's file and the project's summary of
 * it) is first written whole to .sow/.journal.json — that rename is the commit point — then
 * applied file by file, then the journal is removed. Whoever next opens the workspace and finds a
 * journal replays it (under the lock), so `task list` and `task get` never disagree.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { removeTreeAtomic, unlinkIfExists, writeFileAtomic } from './fs-atomic.js';
import { writeCache } from './state-files.js';

interface Journal {
  version: 1;
  writes: { path: string; text: string }[];
  removals: string[];
}

export function journalPath(root: string): string {
  return join(root, '.sow', '.journal.json');
}

function apply(root: string, journal: Journal): void {
  for (const { path, text } of journal.writes) writeFileAtomic(join(root, path), text);
  for (const path of journal.removals) removeTreeAtomic(join(root, path), join(root, '.sow'));
}

export class Transaction {
  private readonly writes = new Map<string, string>();
  private readonly caches: { rel: string; entry: { text: string; data: unknown; comments: boolean } }[] = [];
  private readonly removals: string[] = [];
  private readonly dirs: string[] = [];

  constructor(private readonly root: string) {}

  /** `rel` is relative to the repository root. */
  write(rel: string, text: string, cache?: { text: string; data: unknown; comments: boolean }): this {
    this.writes.set(rel, text);
    if (cache) this.caches.push({ rel, entry: cache });
    return this;
  }

  /** Creates an empty folder (kept in git by a .gitkeep). */
  mkdir(rel: string): this {
    this.dirs.push(rel);
    return this;
  }

  removeTree(rel: string): this {
    this.removals.push(rel);
    return this;
  }

  get isEmpty(): boolean {
    return this.writes.size === 0 && this.removals.length === 0 && this.dirs.length === 0;
  }

  commit(): void {
    for (const dir of this.dirs) this.writes.set(`${dir}/.gitkeep`, '');
    const journal: Journal = { version: 1, writes: [...this.writes].map(([path, text]) => ({ path, text })), removals: this.removals };
    if (journal.writes.length + journal.removals.length === 1) {
      apply(this.root, journal);
    } else if (journal.writes.length + journal.removals.length > 1) {
      const path = journalPath(this.root);
      writeFileAtomic(path, JSON.stringify(journal));
      apply(this.root, journal);
      unlinkIfExists(path);
    }
    for (const { rel, entry } of this.caches) writeCache(this.root, rel, entry);
  }
}

/** Finishes a transaction a crashed process left behind. Call with the lock held. */
export function replayJournal(root: string): boolean {
  const path = journalPath(root);
  if (!existsSync(path)) return false;
  let journal: Journal;
  try {
    journal = JSON.parse(readFileSync(path, 'utf8')) as Journal;
  } catch {
    // The journal's own write is atomic, so an unreadable one was never committed.
    unlinkIfExists(path);
    return false;
  }
  apply(root, journal);
  unlinkIfExists(path);
  return true;
}

export function ensureDir(path: string): void {
  mkdirSync(path, { recursive: true });
}

export function writeIfMissing(path: string, text: string): boolean {
  if (existsSync(path)) return false;
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return true;
}
