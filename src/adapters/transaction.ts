/**
 * Writes that either happen completely or not at all, whatever fails and whenever a process dies.
 * See docs/decisions/0016-commit-point.md.
 *
 * 1. Prepare: every new text is written to a temp file in `.sow/.runtime/tmp/` and fsynced, every
 *    folder and the folders the files go to are made, and each target folder is checked to be
 *    writable. Everything that can fail for lack of space or permission fails here — and then
 *    the temp files are removed and nothing has changed.
 * 2. Commit: a change of one file is one rename. A change of several is recorded in
 *    `.sow/.runtime/journal.json` (renames and removals only, with a checksum), written whole and
 *    renamed into place: that rename is the commit point.
 * 3. Apply: the renames (and removals), each folder fsynced, then the journal is removed. Renames
 *    need no space, so once committed a change is finished — by this command, or, after a kill, by
 *    the next one, which replays the journal under the lock.
 *
 * The journal is runtime data, never trusted input: it is replayed only when it is whole (its
 * checksum), every path it names lies inside `.sow/` (after resolving symlinks) and comes from
 * `.sow/.runtime/tmp/`, and every state file it would write validates (the caller's `check`).
 * Otherwise nothing of it is applied and the command stops (exit 4).
 */
import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, posix, resolve, sep } from 'node:path';
import { SowError } from '../domain/errors.js';
import { realPath } from './files.js';
import { clearDir, fsyncDir, removeTreeAtomic, uniqueName, unlinkIfExists, writeFileAtomic, writeNewFile } from './fs-atomic.js';
import { asWriteError, environmentError } from './io-errors.js';
import { ensureRuntimeDir, runtimePath } from './runtime.js';

const JOURNAL_FORMAT = 2;

interface JournalBody {
  version: typeof JOURNAL_FORMAT;
  /** Temp files (`.sow/.runtime/tmp/…`) moved onto their targets (repository-relative). */
  renames: { from: string; to: string }[];
  /** Staged folders moved into place whole. */
  folders: { from: string; to: string }[];
  /** Trees removed (repository-relative). */
  removals: string[];
}

export const journalPath = (root: string): string => runtimePath(root, 'journal.json');
const TMP = '.sow/.runtime/tmp';

/** A journal sow will not replay: the command stops, and nothing of the journal is applied. */
export class JournalRefusedError extends SowError {
  constructor(file: string, problem: string) {
    super('JOURNAL_REFUSED', 'state', `${file}: ${problem}; nothing of it was applied`,
      `sow did not write this journal as it stands; look at it, then remove it ('rm ${file}') and check that the state is what you expect`,
      { file });
  }
}

/** Checks one text the journal would write (a state file must validate); throws to refuse. */
export type JournalCheck = (rel: string, text: string) => Promise<void>;

const checksum = (body: JournalBody) => createHash('sha256').update(JSON.stringify(body)).digest('hex');

export class Transaction {
  private readonly writes = new Map<string, string>();
  private readonly removals: string[] = [];
  private readonly folders: { path: string; files: Readonly<Record<string, string>> }[] = [];

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
    this.folders.push({ path: rel, files });
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
    if (this.isEmpty) return;
    const body = this.prepare();
    const changes = body.renames.length + body.folders.length + body.removals.length;
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
      writeFileAtomic(path, JSON.stringify({ ...body, checksum: checksum(body) }), { tmpDir: runtimePath(this.root, 'tmp') });
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

  /** Step 1: everything that can fail for lack of space or permission. Leaves nothing on failure. */
  private prepare(): JournalBody {
    const body: JournalBody = { version: JOURNAL_FORMAT, renames: [], folders: [], removals: [...this.removals] };
    try {
      const tmp = ensureRuntimeDir(this.root, 'tmp');
      for (const [to, text] of this.writes) {
        const name = uniqueName('write');
        stage(join(tmp, name), text, join(this.root, to));
        body.renames.push({ from: `${TMP}/${name}`, to });
        ensureWritableDir(join(this.root, dirname(to)));
      }
      for (const folder of this.folders) {
        const name = uniqueName('folder');
        mkdirSync(join(tmp, name));
        body.folders.push({ from: `${TMP}/${name}`, to: folder.path });
        for (const [file, text] of Object.entries(folder.files)) {
          mkdirSync(dirname(join(tmp, name, file)), { recursive: true });
          stage(join(tmp, name, file), text, join(this.root, folder.path, file));
        }
        ensureWritableDir(join(this.root, dirname(folder.path)));
      }
      for (const removal of this.removals) ensureWritableDir(join(this.root, dirname(removal)));
      fsyncDir(runtimePath(this.root, 'tmp'));
    } catch (err) {
      discard(this.root, body);
      throw environmentError(err) ?? err;
    }
    return body;
  }
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
  for (const { from } of [...body.renames, ...body.folders]) rmSync(join(root, from), { recursive: true, force: true });
}

/** Steps 3: renames, folders, removals; each folder fsynced. Idempotent, for replays. */
function apply(root: string, body: JournalBody): void {
  const touched = new Set<string>();
  for (const { from, to } of body.folders) {
    const source = join(root, from);
    const target = join(root, to);
    // Replayed after a crash: a folder that is there was renamed into place whole.
    if (!existsSync(source) || existsSync(target)) continue;
    renameSync(source, target);
    touched.add(dirname(target));
  }
  for (const { from, to } of body.renames) {
    const source = join(root, from);
    if (!existsSync(source)) continue; // renamed before the crash
    const target = join(root, to);
    renameSync(source, target);
    touched.add(dirname(target));
  }
  for (const path of body.removals) removeTreeAtomic(join(root, path), runtimePath(root, 'trash'));
  for (const dir of touched) fsyncDir(dir);
}

export function hasJournal(root: string): boolean {
  return existsSync(journalPath(root));
}

/** Inside `.sow/`: a clean relative path (no `..`, not absolute) that stays there once symlinks are resolved. */
function insideSow(root: string, rel: unknown, under = '.sow'): rel is string {
  if (typeof rel !== 'string' || rel === '' || rel.includes('\\') || rel.includes('\0')) return false;
  if (posix.normalize(rel) !== rel || posix.isAbsolute(rel) || !rel.startsWith(`${under}/`)) return false;
  const base = realPath(resolve(root, under));
  const real = realPath(resolve(root, rel));
  return real === base || real.startsWith(`${base}${sep}`);
}

async function readJournal(root: string, check: JournalCheck): Promise<JournalBody> {
  const rel = '.sow/.runtime/journal.json';
  const path = journalPath(root);
  const info = lstatSync(path);
  if (!info.isFile()) throw new JournalRefusedError(rel, info.isDirectory() ? 'is a folder, not a journal' : 'is not a regular file');
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    throw new JournalRefusedError(rel, 'is not valid JSON (sow writes its journal whole, so this one was not written by sow)');
  }
  const j = data as Partial<JournalBody> & { checksum?: unknown };
  if (typeof j !== 'object' || j === null || j.version !== JOURNAL_FORMAT || !Array.isArray(j.renames) || !Array.isArray(j.folders) || !Array.isArray(j.removals)) {
    throw new JournalRefusedError(rel, `is not a journal of this sow (format ${JOURNAL_FORMAT})`);
  }
  const body: JournalBody = { version: JOURNAL_FORMAT, renames: j.renames, folders: j.folders, removals: j.removals };
  if (j.checksum !== checksum(body)) throw new JournalRefusedError(rel, 'its checksum does not match its content (it is not whole)');
  for (const step of [...body.renames, ...body.folders]) {
    const { from, to } = (step ?? {}) as { from?: unknown; to?: unknown };
    if (!insideSow(root, from, TMP) || !/^[\w.-]+$/.test(String(from).slice(TMP.length + 1))) throw new JournalRefusedError(rel, `names a source outside sow's temp folder: ${JSON.stringify(from)}`);
    if (!insideSow(root, to) || String(to).startsWith('.sow/.runtime/')) throw new JournalRefusedError(rel, `names a target outside .sow/: ${JSON.stringify(to)}`);
  }
  for (const removal of body.removals) {
    if (!insideSow(root, removal) || removal === '.sow') throw new JournalRefusedError(rel, `names a removal outside .sow/: ${JSON.stringify(removal)}`);
  }
  // The texts it would write must be what sow writes: state files validate.
  for (const { from, to } of body.renames) {
    const source = join(root, from);
    if (existsSync(source)) await checked(check, to, readFileSync(source, 'utf8'), rel);
  }
  for (const { from, to } of body.folders) {
    const source = join(root, from);
    if (!existsSync(source)) continue;
    for (const file of listFiles(source)) await checked(check, `${to}/${file}`, readFileSync(join(source, file), 'utf8'), rel);
  }
  return body;
}

async function checked(check: JournalCheck, to: string, text: string, journal: string): Promise<void> {
  try {
    await check(to, text);
  } catch (err) {
    throw new JournalRefusedError(journal, `would write ${to}, which would not be valid (${err instanceof Error ? err.message : String(err)})`);
  }
}

function listFiles(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? listFiles(dir, `${prefix}${e.name}/`) : [`${prefix}${e.name}`]);
}

/**
 * The journal checked as a replay would check it, nothing of it applied (for `sow doctor`): how
 * many steps it holds, or JournalRefusedError when it would be refused.
 */
export async function inspectJournal(root: string, check: JournalCheck): Promise<{ steps: number }> {
  const body = await readJournal(root, check);
  return { steps: body.renames.length + body.folders.length + body.removals.length };
}

/**
 * Finishes a change a killed process committed but did not finish, after checking the journal as
 * described above. Call with the lock held.
 */
export async function replayJournal(root: string, check: JournalCheck): Promise<boolean> {
  if (!hasJournal(root)) return false;
  const body = await readJournal(root, check);
  apply(root, body);
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
    if (!insideSow(root, to) || typeof text !== 'string') throw new JournalRefusedError(rel, `names a write outside .sow/: ${JSON.stringify(to)}`);
    await checked(check, to, text, rel);
    tx.write(to, text);
  }
  for (const removal of Array.isArray(data.removals) ? data.removals : []) {
    if (!insideSow(root, removal) || removal === '.sow') throw new JournalRefusedError(rel, `names a removal outside .sow/: ${JSON.stringify(removal)}`);
    tx.removeTree(removal);
  }
  return tx;
}

/** Removes what killed writers left in `.sow/.runtime/` (temp files, half-deleted trees). Lock held, journal replayed. */
export function clearLeftovers(root: string): void {
  clearDir(runtimePath(root, 'tmp'));
  clearDir(runtimePath(root, 'trash'));
}
