/**
 * Multi-file writes that survive a crash at any moment. A change that touches one file is a
 * single atomic rename. A change that touches several is first written whole to
 * `.sow/.runtime/journal.json` — that rename is the commit point — then applied, then the journal
 * is removed. Whoever next opens the workspace and finds a journal replays it (under the lock).
 * A new folder (a new task: its state, description, log) is filled beside it and renamed into
 * place, so a reader that takes no lock sees the whole folder or none of it.
 */
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { clearDir, removeTreeAtomic, unlinkIfExists, writeFileAtomic } from './fs-atomic.js';
import { ensureRuntimeDir, runtimePath } from './runtime.js';

interface Journal {
  version: 1;
  writes: { path: string; text: string }[];
  removals: string[];
  /** Folders created whole: `files` are relative to `path`. */
  folders?: { path: string; files: { path: string; text: string }[] }[];
}

let staged = 0;

export const journalPath = (root: string): string => runtimePath(root, 'journal.json');
const tmpDir = (root: string) => ensureRuntimeDir(root, 'tmp');

function apply(root: string, journal: Journal): void {
  const tmp = tmpDir(root);
  for (const folder of journal.folders ?? []) {
    const target = join(root, folder.path);
    // Replayed after a crash: a folder that is there was renamed into place whole.
    if (existsSync(target)) continue;
    const stage = join(tmp, `folder-${process.pid}-${staged++}`);
    for (const file of folder.files) writeFileAtomic(join(stage, file.path), file.text, { tmpDir: tmp });
    mkdirSync(dirname(target), { recursive: true });
    renameSync(stage, target);
  }
  for (const { path, text } of journal.writes) writeFileAtomic(join(root, path), text, { tmpDir: tmp });
  for (const path of journal.removals) removeTreeAtomic(join(root, path), runtimePath(root, 'trash'));
}

export class Transaction {
  private readonly writes = new Map<string, string>();
  private readonly removals: string[] = [];
  private readonly folders: { path: string; files: { path: string; text: string }[] }[] = [];

  constructor(private readonly root: string) {}

  /** `rel` is relative to the repository root. */
  write(rel: string, text: string): this {
    this.writes.set(rel, text);
    return this;
  }

  /** Creates an empty folder (kept in git by a .gitkeep). */
  mkdir(rel: string): this {
    return this.write(`${rel}/.gitkeep`, '');
  }

  /** Creates the folder `rel` with these files (paths relative to it), all at once. */
  createFolder(rel: string, files: Readonly<Record<string, string>>): this {
    this.folders.push({ path: rel, files: Object.entries(files).map(([path, text]) => ({ path, text })) });
    return this;
  }

  removeTree(rel: string): this {
    this.removals.push(rel);
    return this;
  }

  get isEmpty(): boolean {
    return this.writes.size === 0 && this.removals.length === 0 && this.folders.length === 0;
  }

  commit(): void {
    const journal: Journal = { version: 1, writes: [...this.writes].map(([path, text]) => ({ path, text })), removals: this.removals, folders: this.folders };
    const changes = journal.writes.length + journal.removals.length + this.folders.length;
    if (changes === 1) {
      apply(this.root, journal);
    } else if (changes > 1) {
      const path = journalPath(this.root);
      writeFileAtomic(path, JSON.stringify(journal), { tmpDir: tmpDir(this.root) });
      apply(this.root, journal);
      unlinkIfExists(path);
    }
  }
}

export const hasJournal = (root: string): boolean => existsSync(journalPath(root));

/** Applies the journal at `path`, if any, and removes it. */
function replayAt(root: string, path: string): boolean {
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

/** Finishes a transaction a crashed process left behind. Call with the lock held. */
export const replayJournal = (root: string): boolean => replayAt(root, journalPath(root));

/**
 * sow 0.1.0 kept its journal at `.sow/.journal.json` (same format). `sow migrate` finishes such a
 * write before it converts anything. Call with the lock held.
 */
export const replayLegacyJournal = (root: string): boolean => replayAt(root, join(root, '.sow', '.journal.json'));

/** Removes what killed writers left in `.sow/.runtime/` (temp files, half-deleted trees). Lock held. */
export function clearLeftovers(root: string): void {
  clearDir(runtimePath(root, 'tmp'));
  clearDir(runtimePath(root, 'trash'));
}
