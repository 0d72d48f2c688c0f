/**
 * Writes that either happen completely or not at all, whatever fails and whenever a process dies.
 * See docs/decisions/0016-store-under-faults.md.
 *
 * 1. Prepare: every new text is written to a temp file in the runtime folder's `tmp/` (in git's
 *    folder, runtime.ts; `.sow/.tmp/` where that is on another file system) and fsynced, every
 *    folder and the folders the files go to are made, and each target folder is checked to be
 *    writable. Everything that can fail for lack of space or permission fails here — and then
 *    the temp files are removed and nothing has changed.
 * 2. Commit: a change of one file is one rename. A change of several is recorded in the runtime
 *    folder's `journal.json` (renames and removals only, with a checksum), written whole and
 *    renamed into place: that rename is the commit point.
 * 3. Apply: the renames (and removals), each folder fsynced, then the journal is removed. Renames
 *    need no space, so once committed a change is finished — by this command, or, after a kill, by
 *    the next one, which replays the journal under the lock.
 *
 * Logs are appended to, never rewritten: an entry is written at the end of its file (from a temp
 * file named in the journal, with the size the log had, when the change has other files too).
 *
 * Every path a transaction writes or removes is confined to `.sow/` when the change is prepared
 * and checked again right before it is applied. The journal, and its replay after a kill, are
 * journal.ts.
 */
import {
  accessSync,
  constants,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { confineReal, existingRealFolder, inSow, PathEscapeError, realFolder, sowArea } from './confine.js';
import { clearDir, fsyncDir, uniqueName, unlinkIfExists, writeFileAtomic, writeNewFile } from './fs-atomic.js';
import { asWriteError, environmentError } from './io-errors.js';
import {
  APPENDABLE,
  appendAt,
  apply,
  checked,
  checksum,
  deviceOf,
  JOURNAL_FORMAT,
  journalPath,
  journalPathOk,
  JournalRefusedError,
  removalOk,
  removalPath,
  REMOVABLE,
  RUNTIME_PREFIX,
  sizeOf,
  stagedPath,
  sowPathOf,
  stepsOf,
  hasJournal,
  TMP,
  WORKTREE_TMP,
  WRITABLE,
  type JournalBody,
  type JournalCheck,
} from './journal.js';
import { ensureRuntimeDir, runtimeFolder, runtimePath } from './runtime.js';
import { fileTail } from './files.js';
import { withLock } from './lock.js';
import { head } from './repo.js';
import { readText } from './state-files.js';

// The workspace finishes what a killed process committed before it reads.

export class Transaction {
  private readonly writes = new Map<string, string>();
  private readonly appends = new Map<string, string>();
  private readonly removals: string[] = [];
  private readonly folders: { path: string; files: Readonly<Record<string, string>> }[] = [];

  constructor(private readonly root: string) {}

  /** `rel` is relative to the repository root. */
  write(rel: string, text: string): this {
    this.writes.set(rel, text);
    return this;
  }

  /**
   * Adds `text` to the end of the log `rel`, which must exist: the file is never rewritten (only
   * its new bytes are written), so appending costs the same on a log of ten entries or ten thousand.
   */
  append(rel: string, text: string): this {
    if (!APPENDABLE.test(rel)) throw new Error(`bug: transactions append only to logs, not ${rel}`);
    const written = this.writes.get(rel);
    if (written !== undefined) this.writes.set(rel, written + text);
    else this.appends.set(rel, (this.appends.get(rel) ?? '') + text);
    return this;
  }

  /**
   * Adds the log entry `entry` to the end of the log `rel`, one blank line after the entry before;
   * a log that does not exist yet begins with `header`. The log is never read whole: only its end.
   */
  appendEntry({ rel, header, entry }: LogEntry): this {
    const written = this.writes.get(rel);
    if (written !== undefined) return this.write(rel, joinEntry(written, entry));
    const appended = this.appends.get(rel);
    if (appended !== undefined) {
      this.appends.set(rel, joinEntry(appended, entry));
      return this;
    }
    const end = fileTail(this.root, rel, 2);
    if (end === undefined || end.size === 0) return this.write(rel, joinEntry(header, entry));
    return this.append(rel, joinEntry(end.tail, entry).slice(end.tail.length));
  }

  /** Creates an empty folder (kept in git by a .gitkeep). */
  mkdir(rel: string): this {
    return this.write(`${rel}/.gitkeep`, '');
  }

  /** Creates the folder `rel` with these files (paths relative to it), all at once. */
  createFolder(rel: string, files: Readonly<Record<string, string>>): this {
    this.folders.push({ path: rel, files });
    return this;
  }

  /** Removes a tree of `.sow/` (repository-relative: `.sow/project`). */
  removeTree(rel: string): this {
    this.removals.push(rel);
    return this;
  }

  /** Removes a folder of the runtime folder (`agent-outputs`). */
  removeRuntimeTree(sub: string): this {
    this.removals.push(`${RUNTIME_PREFIX}${sub}`);
    return this;
  }

  get isEmpty(): boolean {
    return this.writes.size === 0 && this.appends.size === 0 && this.removals.length === 0 && this.folders.length === 0;
  }

  commit(): void {
    if (this.isEmpty) return;
    if (this.appends.size === 1 && this.writes.size === 0 && this.folders.length === 0 && this.removals.length === 0) {
      // One append alone is its own commit: written in place, no temp file, no journal (a crash
      // in the middle can leave part of the entry at the end; nothing before it is touched).
      const [rel, text] = [...this.appends][0] as [string, string];
      try {
        const to = writeTarget(this.root, rel);
        const abs = sowPathOf(this.root, to);
        appendAt(abs, sizeOf(abs), Buffer.from(text, 'utf8'), false);
      } catch (err) {
        throw environmentError(err) ?? err;
      }
      return;
    }
    const body = this.prepare();
    if (stepsOf(body) === 1 && body.removals.length === 0) {
      try {
        apply(this.root, body);
      } catch (err) {
        discard(this.root, body);
        throw environmentError(err) ?? err;
      }
      return;
    }
    const path = journalPath(this.root);
    try {
      writeFileAtomic(path, JSON.stringify({ ...body, checksum: checksum(body) }), {
        tmpDir: ensureRuntimeDir(this.root, 'tmp'),
      });
    } catch (err) {
      discard(this.root, body);
      throw environmentError(err) ?? err;
    }
    // Committed: from here on, only renames and removals, which need no space.
    try {
      apply(this.root, body);
    } catch (err) {
      throw environmentError(err, true) ?? err;
    }
    unlinkIfExists(path);
    fsyncDir(dirname(path));
  }

  /**
   * Step 1: everything that can fail for lack of space or permission, and every path confined to
   * `.sow/` (a link inside `.sow/` is written through, so it stays a link). Leaves nothing on failure.
   */
  private prepare(): JournalBody {
    const body: JournalBody = { version: JOURNAL_FORMAT, renames: [], folders: [], removals: [] };
    try {
      const staged = staging(this.root);
      for (const [rel, text] of this.writes) {
        const to = writeTarget(this.root, rel);
        const name = uniqueName('write');
        stage(join(staged.dir, name), text, join(this.root, to));
        body.renames.push({ from: `${staged.prefix}/${name}`, to });
        ensureWritableDir(join(this.root, dirname(to)));
      }
      for (const folder of this.folders) {
        const to = writeTarget(this.root, folder.path);
        const name = uniqueName('folder');
        mkdirSync(join(staged.dir, name));
        body.folders.push({ from: `${staged.prefix}/${name}`, to });
        for (const [file, text] of Object.entries(folder.files)) {
          mkdirSync(dirname(join(staged.dir, name, file)), { recursive: true });
          stage(join(staged.dir, name, file), text, join(this.root, to, file));
        }
        ensureWritableDir(join(this.root, dirname(to)));
      }
      for (const [rel, text] of this.appends) {
        const to = writeTarget(this.root, rel);
        if (!APPENDABLE.test(to)) throw new Error(`bug: transactions append only to logs, not ${to}`);
        const at = sizeOf(sowPathOf(this.root, to));
        const name = uniqueName('append');
        stage(join(staged.dir, name), text, join(this.root, to));
        (body.appends ??= []).push({ from: `${staged.prefix}/${name}`, to, at });
      }
      for (const removal of this.removals) {
        if (!REMOVABLE.has(removal))
          throw new Error(`bug: a transaction removes only ${[...REMOVABLE].join(', ')}, not ${removal}`);
        const target = removalPath(this.root, removal);
        body.removals.push(removal);
        if (target !== undefined) ensureWritableDir(dirname(target));
      }
      fsyncDir(staged.dir);
    } catch (err) {
      discard(this.root, body);
      throw environmentError(err) ?? err;
    }
    return body;
  }
}

/** `entry` after `before`, with one blank line between them (a log's entries are separated so). */
export function joinEntry(before: string, entry: string): string {
  if (before === '' || before.endsWith('\n\n') || entry === '') return `${before}${entry}`;
  return `${before}${before.endsWith('\n') ? '\n' : '\n\n'}${entry}`;
}

/** A log entry, as a change writes it (log-entry.ts in app makes them). */
export interface LogEntry {
  rel: string;
  /** How the log begins, when it does not exist yet. */
  header: string;
  entry: string;
}

/**
 * A finished change of the project, planned from the files it read: written as one transaction,
 * under the workspace lock, only if the branch it was planned for is checked out, no interrupted
 * transaction waits, and every file it read is as it was read. Else nothing is written and
 * StaleChangeError says so: the caller reads again and plans again.
 */
export interface ChangeSet {
  branch: string;
  /** The state files the change was planned from, as they were read. */
  read: readonly { rel: string; text: string }[];
  /** Whole files written (paths from the repository root). */
  write: Readonly<Record<string, string>>;
  log: readonly LogEntry[];
}

export class StaleChangeError extends Error {
  constructor(readonly why: string) {
    super(`the change was planned on a state that changed since: ${why}`);
    this.name = 'StaleChangeError';
  }
}

export async function commitChange(root: string, change: ChangeSet): Promise<void> {
  if (Object.keys(change.write).length === 0 && change.log.length === 0) return;
  ensureRuntimeDir(root);
  await withLock(runtimePath(root, 'lock'), () => {
    if (hasJournal(root)) throw new StaleChangeError('an interrupted write waits to be finished');
    if (head(root).branch !== change.branch) throw new StaleChangeError(`'${change.branch}' is not checked out`);
    for (const { rel, text } of change.read) if (textNow(root, rel) !== text) throw new StaleChangeError(rel);
    // What killed writers left is cleared by the next write, as under `update`.
    clearLeftovers(root);
    const tx = new Transaction(root);
    for (const [rel, text] of Object.entries(change.write)) tx.write(rel, text);
    for (const entry of change.log) tx.appendEntry(entry);
    tx.commit();
  });
}

function textNow(root: string, rel: string): string | undefined {
  try {
    return readText(root, rel);
  } catch {
    return undefined;
  }
}

/**
 * Where a transaction stages its temp files: the runtime folder's `tmp/` — or, where that lies on
 * another file system than `.sow/` (a linked worktree whose git folder is elsewhere) and a rename
 * could not cross, `.sow/.tmp/` (ignored by git through its own `.gitignore`).
 */
function staging(root: string): { dir: string; prefix: string } {
  const tmp = ensureRuntimeDir(root, 'tmp');
  if (deviceOf(tmp) === deviceOf(root)) return { dir: tmp, prefix: TMP };
  const dir = realFolder(sowArea(root), '.tmp');
  try {
    // O_EXCL: never follows a link planted as the .gitignore.
    writeFileSync(join(dir, '.gitignore'), '# sow temp files: never part of the history\n*\n', { flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return { dir, prefix: WORKTREE_TMP };
}

/**
 * Where a write of `rel` lands, repository-relative: `rel` itself, or, when a link inside `.sow/`
 * leads there, the file it leads to. A link out of `.sow/` is refused (PathEscapeError, exit 4).
 */
function writeTarget(root: string, rel: string): string {
  if (!WRITABLE.test(rel))
    throw new Error(`bug: transactions write only the project, knowledge, refs and .sow/ files, not ${rel}`);
  const real = confineReal(sowArea(root), inSow(rel));
  const to = relative(root, real).split(sep).join('/');
  if (!WRITABLE.test(to)) {
    throw new PathEscapeError(
      `'${rel}' leads to '${to}' through a link; sow writes only its own files of .sow/ there`,
      `sow changed nothing; look at the links on the way ('ls -l' each folder of ${rel}), remove the one that does ` +
        `not belong and retry`,
      { path: rel, target: to },
    );
  }
  return to;
}

/** Writes a temp file for `target`; a failure names the target, the file the user knows. */
function stage(tmpPath: string, text: string, target: string): void {
  try {
    writeNewFile(tmpPath, text);
  } catch (err) {
    (err as NodeJS.ErrnoException).path = target;
    throw err;
  }
}

/** Makes the folder (and its parents) and checks that a file can be renamed into it. */
function ensureWritableDir(dir: string): void {
  mkdirSync(dir, { recursive: true });
  try {
    accessSync(dir, constants.W_OK);
  } catch (err) {
    throw asWriteError(err);
  }
}

/** Removes the temp files of a change that was not committed. */
function discard(root: string, body: JournalBody): void {
  for (const { from } of [...body.renames, ...body.folders, ...(body.appends ?? [])])
    rmSync(stagedPath(root, from), { recursive: true, force: true });
}

/**
 * sow 0.1.0's journal (`.sow/.journal.json`: whole texts, no checksum), for `sow migrate`: checked
 * like a journal of this sow (paths inside `.sow/`, state files valid), then written as a change
 * of this sow. Returns the transaction to commit, or undefined when there is none.
 */
export async function legacyJournal(root: string, check: JournalCheck): Promise<Transaction | undefined> {
  const rel = '.sow/.journal.json';
  const path = join(root, rel);
  if (!existsSync(path)) return undefined;
  if (!lstatSync(path).isFile()) throw new JournalRefusedError(rel, 'is not a regular file');
  let data: { writes?: unknown; removals?: unknown };
  try {
    data = JSON.parse(readFileSync(path, 'utf8')) as typeof data;
  } catch {
    // 0.1.0 wrote its journal whole (temp file and rename), so an unreadable one was never committed.
    return new Transaction(root);
  }
  const tx = new Transaction(root);
  for (const w of Array.isArray(data.writes) ? data.writes : []) {
    const { path: to, text } = (w ?? {}) as { path?: unknown; text?: unknown };
    if (!journalPathOk(root, to) || !WRITABLE.test(to) || typeof text !== 'string')
      throw new JournalRefusedError(rel, `names a write sow does not make: ${JSON.stringify(to)}`);
    await checked(check, to, text, rel);
    tx.write(to, text);
  }
  for (const removal of Array.isArray(data.removals) ? data.removals : []) {
    if (!removalOk(root, removal))
      throw new JournalRefusedError(rel, `names a removal sow never journals: ${JSON.stringify(removal)}`);
    tx.removeTree(removal);
  }
  return tx;
}

/**
 * Removes what killed writers left in the runtime folder (temp files, half-deleted trees). Lock
 * held, journal replayed. Each folder must be a real folder (runtime.ts), checked again before
 * each removal: a link is refused, never emptied.
 */
export function clearLeftovers(root: string): void {
  for (const sub of ['tmp', 'trash']) {
    const dir = runtimeFolder(root, sub);
    if (dir !== undefined) clearDir(dir, () => runtimeFolder(root, sub) === dir);
  }
  // Staged beside `.sow/` (another file system): its own files only, never the .gitignore, nor the kept removals.
  const area = sowArea(root);
  for (const sub of ['.tmp/trash']) {
    const dir = existingRealFolder(area, sub);
    if (dir !== undefined) clearDir(dir, () => existingRealFolder(area, sub) === dir);
  }
  const near = existingRealFolder(area, '.tmp');
  if (near !== undefined)
    for (const name of readdirSync(near))
      if (/^(write|folder)-/.test(name) && existingRealFolder(area, '.tmp') === near)
        rmSync(join(near, name), { recursive: true, force: true });
}
