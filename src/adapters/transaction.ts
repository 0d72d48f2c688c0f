/** Writes that happen completely or not at all, whenever a process dies (decision 0016): fsynced temp files, committed
 * by one rename (or `journal.json`'s), applied by renames, replayed after a kill (journal.ts); paths confined twice. */
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
import { confineReal, existingRealFolder, inSow, PathEscapeError, realFolder, sowArea, sowPath } from './confine.js';
import { clearDir, fsyncDir, uniqueName, unlinkIfExists, writeFileAtomic, writeNewFile } from './fs-atomic.js';
import { asWriteError, environmentError, ignoring, quietly } from './io-errors.js';
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

  /** Adds `text` to the end of the existing log `rel`: only the new bytes are written, whatever the log's size. */
  append(rel: string, text: string): this {
    if (!APPENDABLE.test(rel)) throw new Error(`bug: transactions append only to logs, not ${rel}`);
    const written = this.writes.get(rel);
    if (written !== undefined) this.writes.set(rel, written + text);
    else this.appends.set(rel, (this.appends.get(rel) ?? '') + text);
    return this;
  }

  /** Appends `entry` to the log `rel` after one blank line (a new log begins with `header`); reads only its end. */
  appendEntry({ rel, header, entry }: LogEntry): this {
    const before = this.writes.get(rel) ?? this.appends.get(rel);
    if (before !== undefined) return this.append(rel, joinEntry(before, entry).slice(before.length));
    const end = fileTail(this.root, rel, 2);
    if (end === undefined || end.size === 0) return this.write(rel, joinEntry(header, entry));
    return this.append(rel, joinEntry(end.tail, entry).slice(end.tail.length));
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
    return this.removeTree(`${RUNTIME_PREFIX}${sub}`);
  }

  commit(): void {
    const others = this.writes.size + this.folders.length + this.removals.length;
    if (others + this.appends.size === 0) return;
    if (this.appends.size === 1 && others === 0) {
      // One append alone is its own commit, in place: a crash can leave part of the entry, never touch what is before.
      const [rel, text] = [...this.appends][0] as [string, string];
      try {
        const abs = sowPath(this.root, appendTarget(this.root, rel));
        appendAt(abs, sizeOf(abs), Buffer.from(text, 'utf8'), false);
      } catch (err) {
        throw environmentError(err) ?? err;
      }
      return;
    }
    const body = this.prepare();
    const journaled = isJournaled(body);
    const path = journalPath(this.root);
    try {
      if (journaled) {
        const tmpDir = ensureRuntimeDir(this.root, 'tmp');
        writeFileAtomic(path, JSON.stringify({ ...body, checksum: checksum(body) }), { tmpDir });
      }
    } catch (err) {
      discard(this.root, body);
      throw environmentError(err) ?? err;
    }
    // Committed: from here on, only renames and removals, which need no space.
    try {
      apply(this.root, body);
    } catch (err) {
      if (!journaled) discard(this.root, body);
      throw environmentError(err, journaled) ?? err;
    }
    if (!journaled) return;
    unlinkIfExists(path);
    fsyncDir(dirname(path));
  }

  /** Step 1: all that can fail, every path confined to `.sow/` (a link inside it is written through). */
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
        const to = appendTarget(this.root, rel);
        const at = sizeOf(sowPath(this.root, to));
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
      // Only a journal names staged files before they are renamed; a lone rename is its own commit.
      if (isJournaled(body)) fsyncDir(staged.dir);
    } catch (err) {
      discard(this.root, body);
      throw environmentError(err) ?? err;
    }
    return body;
  }
}

/** One rename is its own commit; more are committed by the journal. */
const isJournaled = (body: JournalBody) => stepsOf(body) > 1 || body.removals.length > 0;

/** `entry` after `before`, with one blank line between them (a log's entries are separated so). */
function joinEntry(before: string, entry: string): string {
  if (before === '' || before.endsWith('\n\n') || entry === '') return `${before}${entry}`;
  return `${before}${before.endsWith('\n') ? '\n' : '\n\n'}${entry}`;
}

/** A log entry, as a change writes it (log-entry.ts in app makes them); `header` begins a log not there yet. */
export type LogEntry = { rel: string; header: string; entry: string };

/** A change planned from the files it read: written under the lock only if its branch is checked out, no journal
 * waits and every file read is unchanged; else StaleChangeError, and the caller plans again. */
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
    for (const { rel, text } of change.read)
      if (quietly(() => readText(root, rel)) !== text) throw new StaleChangeError(rel);
    clearLeftovers(root);
    const tx = new Transaction(root);
    for (const [rel, text] of Object.entries(change.write)) tx.write(rel, text);
    for (const entry of change.log) tx.appendEntry(entry);
    tx.commit();
  });
}

/** Temp files go to the runtime folder's `tmp/`, or `.sow/.tmp/` when that is on another file system (no rename). */
function staging(root: string): { dir: string; prefix: string } {
  const tmp = ensureRuntimeDir(root, 'tmp');
  if (deviceOf(tmp) === deviceOf(root)) return { dir: tmp, prefix: TMP };
  const dir = realFolder(sowArea(root), '.tmp');
  // O_EXCL: never follows a link planted as the .gitignore.
  const ignore = '# sow temp files: never part of the history\n*\n';
  ignoring(['EEXIST'], () => writeFileSync(join(dir, '.gitignore'), ignore, { flag: 'wx' }));
  return { dir, prefix: WORKTREE_TMP };
}

/** Where a write of `rel` lands (through a link inside `.sow/`); a link out of `.sow/` is refused (exit 4). */
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

/** Where an append to the log `rel` lands: a link inside `.sow/` to anything but a log is refused (exit 4). */
function appendTarget(root: string, rel: string): string {
  const to = writeTarget(root, rel);
  if (APPENDABLE.test(to)) return to;
  throw new PathEscapeError(
    `'${rel}' leads to '${to}' through a link; sow appends only to logs`,
    `sow changed nothing; remove the link ('ls -l ${rel}') and retry`,
    { path: rel, target: to },
  );
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

/** sow 0.1.0's journal (`.sow/.journal.json`), for `sow migrate`: checked as a journal, returned as a transaction. */
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

/** Removes what killed writers left (lock held, journal replayed); a folder that is a link is never emptied. */
export function clearLeftovers(root: string): void {
  for (const sub of ['tmp', 'trash']) {
    const dir = runtimeFolder(root, sub);
    if (dir !== undefined) clearDir(dir, () => runtimeFolder(root, sub) === dir);
  }
  // Staged beside `.sow/` (another file system): its own files only, never the .gitignore, nor the kept removals.
  const area = sowArea(root);
  const trash = existingRealFolder(area, '.tmp/trash');
  if (trash !== undefined) clearDir(trash, () => existingRealFolder(area, '.tmp/trash') === trash);
  const near = existingRealFolder(area, '.tmp');
  if (near !== undefined)
    for (const name of readdirSync(near))
      if (/^(write|folder)-/.test(name) && existingRealFolder(area, '.tmp') === near)
        rmSync(join(near, name), { recursive: true, force: true });
}
