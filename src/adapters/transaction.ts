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
 * The journal lives in git's folder, where no clone can put one; it is still checked before it is
 * replayed, as if it were hostile: only when it is whole (its checksum), every file it writes comes
 * from sow's temp folder and goes to a place sow writes through transactions (the project,
 * the knowledge folder, the refs indexes, `.sow/.version`, `.sow/.gitignore` and `.sow/.gitattributes`; links resolved,
 * confine.ts), every state file it would write validates (the caller's `check`), and it removes
 * only what sow removes through transactions: the project folder and the workers' outputs. A
 * replayed removal of the project moves it to the runtime folder's `backup/removed/` instead of
 * deleting it, and says where. Otherwise nothing of it is applied and the command stops (exit 4).
 *
 * Every path a transaction writes or removes is confined to `.sow/` when the change is prepared
 * and checked again right before it is applied.
 */
import { createHash } from 'node:crypto';
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { dirname, join, posix, relative, sep } from 'node:path';
import { SowError } from '../domain/errors.js';
import { confine, confineReal, existingRealFolder, inSow, realFolder, sowArea, PathEscapeError } from './confine.js';
import {
  clearDir,
  fsyncDir,
  removeTreeAtomic,
  uniqueName,
  unlinkIfExists,
  writeFileAtomic,
  writeNewFile,
} from './fs-atomic.js';
import { asWriteError, environmentError } from './io-errors.js';
import { inform } from './notices.js';
import { ensureRuntimeDir, runtimeFolder, runtimePath, shownRuntime } from './runtime.js';

const JOURNAL_FORMAT = 3;

interface JournalBody {
  version: typeof JOURNAL_FORMAT;
  /** Temp files (`tmp/…` of the runtime folder, or `.sow/.tmp/…`) moved onto their targets (repository-relative). */
  renames: { from: string; to: string }[];
  /** Staged folders moved into place whole. */
  folders: { from: string; to: string }[];
  /** Trees removed: repository-relative (`.sow/project`), or `runtime:<folder>` of the runtime folder. */
  removals: string[];
  /** Texts (in temp files) added to the end of a log, which was `at` bytes long: a log is never rewritten. Absent when none. */
  appends?: { from: string; to: string; at: number }[];
}

export const journalPath = (root: string): string => runtimePath(root, 'journal.json');
/** Temp files, in the runtime folder (`tmp/<name>`). */
const TMP = 'tmp';
/** Temp files where the runtime folder is on another file system than `.sow/` (a rename cannot cross): repository-relative. */
const WORKTREE_TMP = '.sow/.tmp';
const RUNTIME_PREFIX = 'runtime:';
/** 4 MiB: a journal names paths, never texts; the largest sow writes (a project's archive) is a few KB. */
const MAX_JOURNAL_BYTES = 4 * 1024 * 1024;

/** Where transactions write: the project, the knowledge folder, the refs indexes, `.sow/.version`, `.sow/.gitignore`, `.sow/.gitattributes`. */
const WRITABLE = /^\.sow\/(?:(?:project|knowledge|refs)\/.+|\.version|\.gitignore|\.gitattributes)$/;
/** What transactions append to: the logs. */
const APPENDABLE = /^\.sow\/project\/(?:.+\/)?log\.md$/;
/** What transactions remove: the project folder (project delete, a completed project) and the workers' outputs. */
const REMOVABLE: ReadonlySet<string> = new Set(['.sow/project', `${RUNTIME_PREFIX}agent-outputs`]);
/** A removal replayed from a journal keeps the project here (in the runtime folder) instead of deleting it. */
const REMOVED_BACKUP = 'backup/removed';

/** A journal sow will not replay: the command stops, and nothing of the journal is applied. */
export class JournalRefusedError extends SowError {
  constructor(file: string, problem: string) {
    super(
      'JOURNAL_REFUSED',
      'state',
      `${file}: ${problem}; nothing of it was applied`,
      `sow did not write this journal as it stands; look at it, then remove it ('rm ${file}') and check that the state is what you expect`,
      { file },
    );
  }
}

/** Checks one text the journal would write (a state file must validate); throws to refuse. */
export type JournalCheck = (rel: string, text: string) => Promise<void>;

const checksum = (body: JournalBody) => createHash('sha256').update(JSON.stringify(body)).digest('hex');

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
    const changes = body.renames.length + body.folders.length + body.removals.length + (body.appends?.length ?? 0);
    if (changes === 1 && body.removals.length === 0) {
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

const deviceOf = (abs: string): number | undefined => {
  try {
    return statSync(abs).dev;
  } catch {
    return undefined;
  }
};

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

/** The absolute path of a temp file a journal names (`tmp/<name>` of the runtime folder, or `.sow/.tmp/<name>`). */
const stagedPath = (root: string, from: string): string =>
  from.startsWith(`${TMP}/`) ? runtimePath(root, from) : sowPathOf(root, from);

/** The absolute path of a removal (undefined when a runtime folder is not there, or not a real folder). */
function removalPath(root: string, removal: string): string | undefined {
  if (removal.startsWith(RUNTIME_PREFIX)) return runtimeFolder(root, removal.slice(RUNTIME_PREFIX.length));
  return sowPathOf(root, removal);
}

/** The trash a removed tree is renamed into before it is deleted: on the tree's own file system. */
function trashFor(root: string, target: string): { dir: string; real: () => boolean } {
  const runtimeTrash = ensureRuntimeDir(root, 'trash');
  if (deviceOf(runtimeTrash) === deviceOf(dirname(target)))
    return { dir: runtimeTrash, real: () => runtimeFolder(root, 'trash') !== undefined };
  const area = sowArea(root);
  const dir = realFolder(area, '.tmp/trash');
  return { dir, real: () => existingRealFolder(area, '.tmp/trash') === dir };
}

/** The confined absolute path of `rel` (repository-relative, inside `.sow/`). */
const sowPathOf = (root: string, rel: string, source?: string) =>
  confine(sowArea(root), inSow(rel), source ? { source } : {});

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
      `sow changed nothing; look at the links on the way ('ls -l' each folder of ${rel}), remove the one that does not belong and retry`,
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
 * Step 3: renames, folders, removals; each folder fsynced. Idempotent, for replays. Every target
 * is confined again right before it is used. A replayed removal of the project keeps it in the
 * runtime folder's `backup/removed/` (a crash between commit and removal is rare; whatever the
 * journal says, nothing is destroyed by a replay).
 */
function apply(root: string, body: JournalBody, replaying = false): void {
  const touched = new Set<string>();
  for (const { from, to } of body.folders) {
    const source = stagedPath(root, from);
    const target = sowPathOf(root, to);
    // Replayed after a crash: a folder that is there was renamed into place whole.
    if (!existsSync(source) || existsSync(target)) continue;
    renameSync(source, target);
    touched.add(dirname(target));
  }
  for (const { from, to } of body.renames) {
    const source = stagedPath(root, from);
    if (!existsSync(source)) continue; // renamed before the crash
    const target = sowPathOf(root, to);
    renameSync(source, target);
    touched.add(dirname(target));
  }
  for (const { from, to, at } of body.appends ?? []) {
    const source = stagedPath(root, from);
    if (!existsSync(source)) continue; // appended before the crash
    appendAt(sowPathOf(root, to), at, readFileSync(source), replaying);
    unlinkIfExists(source);
  }
  for (const removal of body.removals) {
    const target = removalPath(root, removal);
    if (target === undefined) continue;
    if (replaying && removal === '.sow/project' && existsSync(target)) keepRemoved(root, target);
    else {
      const trash = trashFor(root, target);
      removeTreeAtomic(target, trash.dir, trash.real);
    }
  }
  for (const dir of touched) fsyncDir(dir);
}

/** The size of the regular file at `abs` (which must exist: an append never creates its log). */
function sizeOf(abs: string): number {
  const info = lstatSync(abs);
  if (!info.isFile()) throw new Error(`bug: an append to ${abs}, which is not a regular file`);
  return info.size;
}

/**
 * Writes `data` at the end of the log at `abs`, which was `at` bytes long when the change was
 * prepared. Nothing a person wrote is ever cut: a replay finds the entry, or the part of it, that
 * the interrupted command wrote at `at` and writes only the rest; anything else there (the file
 * was edited meanwhile) stays, and the entry goes after it.
 */
function appendAt(abs: string, at: number, data: Buffer, replaying: boolean): void {
  const fd = openSync(abs, constants.O_RDWR | (constants.O_NOFOLLOW ?? 0));
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw new Error(`${abs} is not a regular file`);
    let from = 0;
    let offset = info.size;
    if (replaying && info.size > at && info.size - at <= data.length) {
      const there = Buffer.alloc(info.size - at);
      readSync(fd, there, 0, there.length, at);
      if (data.subarray(0, there.length).equals(there)) from = there.length;
    }
    while (from < data.length) {
      const n = writeSync(fd, data, from, data.length - from, offset);
      from += n;
      offset += n;
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Moves a tree a replayed journal removes into the runtime folder's `backup/removed/<time>-<name>/` and says where. */
function keepRemoved(root: string, abs: string): void {
  const backup = ensureRuntimeDir(root, REMOVED_BACKUP);
  const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${abs.split(sep).pop()}`;
  try {
    renameSync(abs, join(backup, name));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    // Another file system: kept beside it, in .sow/.tmp/removed/.
    const near = realFolder(sowArea(root), '.tmp/removed');
    renameSync(abs, join(near, name));
    fsyncDir(dirname(abs));
    inform(
      `finished an interrupted change that removes ${relative(root, abs)}; it is kept in .sow/.tmp/removed/${name} — remove that folder once you are sure`,
    );
    return;
  }
  fsyncDir(dirname(abs));
  inform(
    `finished an interrupted change that removes ${relative(root, abs)}; it is kept in ${shownRuntime(root, REMOVED_BACKUP, name)} — remove that folder once you are sure`,
  );
}

export function hasJournal(root: string): boolean {
  return existsSync(journalPath(root));
}

const plainPath = (rel: unknown): rel is string =>
  typeof rel === 'string' &&
  rel !== '' &&
  !rel.includes('\\') &&
  !rel.includes('\0') &&
  posix.normalize(rel) === rel &&
  !rel.endsWith('/') &&
  !rel.startsWith('/');

/** A path a journal names: a plain repository-relative path (no `..`, `.`, empty parts), confined to `.sow/`. */
function journalPathOk(root: string, rel: unknown): rel is string {
  if (!plainPath(rel)) return false;
  try {
    sowPathOf(root, rel);
    return true;
  } catch (err) {
    if (err instanceof SowError) return false;
    throw err;
  }
}

/** A temp file a journal names: one plain name in sow's temp folder. */
function stagedOk(root: string, from: unknown): from is string {
  if (!plainPath(from)) return false;
  const prefix = from.startsWith(`${TMP}/`) ? TMP : from.startsWith(`${WORKTREE_TMP}/`) ? WORKTREE_TMP : undefined;
  if (prefix === undefined) return false;
  const name = from.slice(prefix.length + 1);
  return /^[\w.-]+$/.test(name) && !name.startsWith('.') && (prefix === TMP || journalPathOk(root, from));
}

async function readJournal(root: string, check: JournalCheck): Promise<JournalBody> {
  const rel = shownRuntime(root, 'journal.json');
  const path = journalPath(root);
  const info = lstatSync(path);
  if (!info.isFile())
    throw new JournalRefusedError(rel, info.isDirectory() ? 'is a folder, not a journal' : 'is not a regular file');
  if (info.size > MAX_JOURNAL_BYTES)
    throw new JournalRefusedError(rel, `is ${info.size} bytes; a journal sow writes names a few paths`);
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    throw new JournalRefusedError(
      rel,
      'is not valid JSON (sow writes its journal whole, so this one was not written by sow)',
    );
  }
  const j = data as Partial<JournalBody> & { checksum?: unknown };
  if (
    typeof j !== 'object' ||
    j === null ||
    j.version !== JOURNAL_FORMAT ||
    !Array.isArray(j.renames) ||
    !Array.isArray(j.folders) ||
    !Array.isArray(j.removals)
  ) {
    throw new JournalRefusedError(rel, `is not a journal of this sow (format ${JOURNAL_FORMAT})`);
  }
  if (j.appends !== undefined && !Array.isArray(j.appends))
    throw new JournalRefusedError(rel, `is not a journal of this sow (format ${JOURNAL_FORMAT})`);
  const body: JournalBody = {
    version: JOURNAL_FORMAT,
    renames: j.renames,
    folders: j.folders,
    removals: j.removals,
    ...(j.appends ? { appends: j.appends } : {}),
  };
  if (j.checksum !== checksum(body))
    throw new JournalRefusedError(rel, 'its checksum does not match its content (it is not whole)');
  for (const step of [...body.renames, ...body.folders]) {
    const { from, to } = (step ?? {}) as { from?: unknown; to?: unknown };
    if (!stagedOk(root, from))
      throw new JournalRefusedError(rel, `names a source outside sow's temp folder: ${JSON.stringify(from)}`);
    if (!journalPathOk(root, to) || !WRITABLE.test(to))
      throw new JournalRefusedError(rel, `names a target sow does not write through a journal: ${JSON.stringify(to)}`);
  }
  for (const removal of body.removals) {
    if (
      typeof removal !== 'string' ||
      !REMOVABLE.has(removal) ||
      (!removal.startsWith(RUNTIME_PREFIX) && !journalPathOk(root, removal))
    )
      throw new JournalRefusedError(
        rel,
        `names a removal sow never journals: ${JSON.stringify(removal)} (sow removes only ${[...REMOVABLE].join(' and ')})`,
      );
  }
  for (const step of body.appends ?? []) {
    const { from, to, at } = (step ?? {}) as { from?: unknown; to?: unknown; at?: unknown };
    if (!stagedOk(root, from))
      throw new JournalRefusedError(rel, `names a source outside sow's temp folder: ${JSON.stringify(from)}`);
    if (!journalPathOk(root, to) || !APPENDABLE.test(to))
      throw new JournalRefusedError(rel, `names an append to something that is not a log: ${JSON.stringify(to)}`);
    if (typeof at !== 'number' || !Number.isSafeInteger(at) || at < 0)
      throw new JournalRefusedError(rel, `names an append at ${JSON.stringify(at)}, not a size`);
  }
  // The texts it would write must be what sow writes: state files validate.
  for (const { from, to } of body.renames) {
    const source = stagedPath(root, from);
    if (existsSync(source)) await checked(check, to, readFileSync(source, 'utf8'), rel);
  }
  for (const { from, to } of body.folders) {
    const source = stagedPath(root, from);
    if (!existsSync(source)) continue;
    for (const file of listFiles(source))
      await checked(check, `${to}/${file}`, readFileSync(join(source, file), 'utf8'), rel);
  }
  return body;
}

async function checked(check: JournalCheck, to: string, text: string, journal: string): Promise<void> {
  try {
    await check(to, text);
  } catch (err) {
    throw new JournalRefusedError(
      journal,
      `would write ${to}, which would not be valid (${err instanceof Error ? err.message : String(err)})`,
    );
  }
}

function listFiles(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? listFiles(dir, `${prefix}${e.name}/`) : [`${prefix}${e.name}`],
  );
}

/**
 * The journal checked as a replay would check it, nothing of it applied (for `sow doctor`): how
 * many steps it holds, or JournalRefusedError when it would be refused.
 */
export async function inspectJournal(root: string, check: JournalCheck): Promise<{ steps: number }> {
  const body = await readJournal(root, check);
  return { steps: body.renames.length + body.folders.length + body.removals.length + (body.appends?.length ?? 0) };
}

/**
 * Finishes a change a killed process committed but did not finish, after checking the journal as
 * described above. Call with the lock held.
 */
export async function replayJournal(root: string, check: JournalCheck): Promise<boolean> {
  if (!hasJournal(root)) return false;
  const body = await readJournal(root, check);
  apply(root, body, true);
  unlinkIfExists(journalPath(root));
  fsyncDir(runtimePath(root));
  return true;
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
    if (
      typeof removal !== 'string' ||
      !REMOVABLE.has(removal) ||
      (!removal.startsWith(RUNTIME_PREFIX) && !journalPathOk(root, removal))
    )
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
