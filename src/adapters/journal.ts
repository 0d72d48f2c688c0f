/** The journal of a change of several files (transaction.ts). It lives in git's folder, yet a replay checks it as if
 * hostile (checksum, sources, targets, state files, removals); else nothing is applied (exit 4). */
import { createHash } from 'node:crypto';
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  writeSync,
} from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { errorClass, SowError } from '../domain/errors.js';
import { existingRealFolder, normalRelative, realFolder, sowArea, sowPath } from './confine.js';
import { fsyncDir, removeTreeAtomic, unlinkIfExists } from './fs-atomic.js';
import { quietly } from './io-errors.js';
import { inform } from './notices.js';
import { ensureRuntimeDir, runtimeFolder, runtimePath, shownRuntime } from './runtime.js';

export const JOURNAL_FORMAT = 3;

export interface JournalBody {
  version: typeof JOURNAL_FORMAT;
  /** Temp files (`tmp/…` of the runtime folder, or `.sow/.tmp/…`) moved onto their repository-relative targets. */
  renames: { from: string; to: string }[];
  /** Staged folders moved into place whole. */
  folders: { from: string; to: string }[];
  /** Trees removed: repository-relative (`.sow/project`), or `runtime:<folder>` of the runtime folder. */
  removals: string[];
  /** Texts (in temp files) added to the end of a log that was `at` bytes long. */
  appends?: { from: string; to: string; at: number }[];
}

export const journalPath = (root: string): string => runtimePath(root, 'journal.json');
/** Temp files, in the runtime folder (`tmp/<name>`). */
export const TMP = 'tmp';
/** Temp files where the runtime folder is on another file system than `.sow/`: repository-relative. */
export const WORKTREE_TMP = '.sow/.tmp';
export const RUNTIME_PREFIX = 'runtime:';
/** 4 MiB: a journal names paths, never texts; the largest sow writes (a project's archive) is a few KB. */
const MAX_JOURNAL_BYTES = 4 * 1024 * 1024;

/** Where transactions write: the project, knowledge, refs indexes, `.sow/.version`, .gitignore, .gitattributes. */
export const WRITABLE = /^\.sow\/(?:(?:project|knowledge|refs)\/.+|\.version|\.gitignore|\.gitattributes)$/;
/** What transactions append to: the logs. */
export const APPENDABLE = /^\.sow\/project\/(?:.+\/)?log\.md$/;
/** What transactions remove: the project folder (project delete, a completed project) and the workers' outputs. */
export const REMOVABLE: ReadonlySet<string> = new Set(['.sow/project', `${RUNTIME_PREFIX}agent-outputs`]);
/** A removal replayed from a journal keeps the project here (in the runtime folder) instead of deleting it. */
const REMOVED_BACKUP = 'backup/removed';

/** A journal sow will not replay: the command stops, and nothing of the journal is applied. */
export class JournalRefusedError extends errorClass('JOURNAL_REFUSED', 'state', (file: string, problem: string) => [
  `${file}: ${problem}; nothing of it was applied`,
  `sow did not write this journal as it stands; look at it, then remove it ('rm ${file}') and check that the ` +
    `state is what you expect`,
  { file },
]) {}

/** Checks one text the journal would write (a state file must validate); throws to refuse. */
export type JournalCheck = (rel: string, text: string) => Promise<void>;

export const checksum = (body: JournalBody) => createHash('sha256').update(JSON.stringify(body)).digest('hex');

export const stepsOf = (body: JournalBody): number =>
  body.renames.length + body.folders.length + body.removals.length + (body.appends?.length ?? 0);

export const deviceOf = (abs: string): number | undefined => quietly(() => statSync(abs).dev);

/** The absolute path of a temp file a journal names (`tmp/<name>` of the runtime folder, or `.sow/.tmp/<name>`). */
export const stagedPath = (root: string, from: string): string =>
  from.startsWith(`${TMP}/`) ? runtimePath(root, from) : sowPath(root, from);

/** The absolute path of a removal (undefined when a runtime folder is not there, or not a real folder). */
export function removalPath(root: string, removal: string): string | undefined {
  if (removal.startsWith(RUNTIME_PREFIX)) return runtimeFolder(root, removal.slice(RUNTIME_PREFIX.length));
  return sowPath(root, removal);
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

/** Step 3: renames, folders, removals, each folder fsynced; idempotent, every target confined again right before use.
 * A replayed removal of the project keeps it in `backup/removed/`. */
export function apply(root: string, body: JournalBody, replaying = false): void {
  const touched = new Set<string>();
  [...body.folders, ...body.renames].forEach(({ from, to }, i) => {
    const source = stagedPath(root, from);
    if (!existsSync(source)) return; // renamed before the crash
    const target = sowPath(root, to);
    // Replayed after a crash: a folder that is there was renamed into place whole.
    if (i < body.folders.length && existsSync(target)) return;
    renameSync(source, target);
    touched.add(dirname(target));
  });
  for (const { from, to, at } of body.appends ?? []) {
    const source = stagedPath(root, from);
    if (!existsSync(source)) continue; // appended before the crash
    appendAt(sowPath(root, to), at, readFileSync(source), replaying);
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
export function sizeOf(abs: string): number {
  const info = lstatSync(abs);
  if (!info.isFile()) throw new Error(`bug: an append to ${abs}, which is not a regular file`);
  return info.size;
}

/** Writes `data` at the end of the log that was `at` bytes long; a replay writes only what was not written, after
 * anything found there meanwhile: nothing is ever cut. */
export function appendAt(abs: string, at: number, data: Buffer, replaying: boolean): void {
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
  let kept: string;
  try {
    renameSync(abs, join(backup, name));
    kept = shownRuntime(root, REMOVED_BACKUP, name);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    // Another file system: kept beside it, in .sow/.tmp/removed/.
    renameSync(abs, join(realFolder(sowArea(root), '.tmp/removed'), name));
    kept = `.sow/.tmp/removed/${name}`;
  }
  fsyncDir(dirname(abs));
  inform(
    `finished an interrupted change that removes ${relative(root, abs)}; it is kept in ${kept} — remove that ` +
      `folder once you are sure`,
  );
}

export function hasJournal(root: string): boolean {
  return existsSync(journalPath(root));
}

/** No `..`, `.`, empty parts, final `/`, backslash or NUL: exactly as sow writes a path. */
const plainPath = (rel: unknown): rel is string =>
  typeof rel === 'string' && !rel.includes('\\') && normalRelative(rel) === rel;

/** A path a journal names: a plain repository-relative path (no `..`, `.`, empty parts), confined to `.sow/`. */
export function journalPathOk(root: string, rel: unknown): rel is string {
  if (!plainPath(rel)) return false;
  try {
    sowPath(root, rel);
    return true;
  } catch (err) {
    if (err instanceof SowError) return false;
    throw err;
  }
}

/** A removal a journal names: only what sow removes through transactions. */
export const removalOk = (root: string, removal: unknown): removal is string =>
  typeof removal === 'string' &&
  REMOVABLE.has(removal) &&
  (removal.startsWith(RUNTIME_PREFIX) || journalPathOk(root, removal));

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
  const refuse = (problem: string) => new JournalRefusedError(rel, problem);
  const info = lstatSync(path);
  if (!info.isFile()) throw refuse(info.isDirectory() ? 'is a folder, not a journal' : 'is not a regular file');
  if (info.size > MAX_JOURNAL_BYTES) throw refuse(`is ${info.size} bytes; a journal sow writes names a few paths`);
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    throw refuse('is not valid JSON (sow writes its journal whole, so this one was not written by sow)');
  }
  // The checksum is of everything else, as sow wrote it: a key added or moved makes it differ.
  const { checksum: sum, ...body } = (data ?? {}) as JournalBody & { checksum?: unknown };
  if (
    typeof data !== 'object' ||
    body.version !== JOURNAL_FORMAT ||
    !Array.isArray(body.renames) ||
    !Array.isArray(body.folders) ||
    !Array.isArray(body.removals) ||
    (body.appends !== undefined && !Array.isArray(body.appends))
  )
    throw refuse(`is not a journal of this sow (format ${JOURNAL_FORMAT})`);
  if (sum !== checksum(body)) throw refuse('its checksum does not match its content (it is not whole)');
  for (const step of [...body.renames, ...body.folders]) {
    const { from, to } = (step ?? {}) as { from?: unknown; to?: unknown };
    if (!stagedOk(root, from)) throw refuse(`names a source outside sow's temp folder: ${JSON.stringify(from)}`);
    if (!journalPathOk(root, to) || !WRITABLE.test(to))
      throw refuse(`names a target sow does not write through a journal: ${JSON.stringify(to)}`);
  }
  for (const removal of body.removals) {
    if (!removalOk(root, removal))
      throw refuse(
        `names a removal sow never journals: ${JSON.stringify(removal)} (sow removes ` +
          `only ${[...REMOVABLE].join(' and ')})`,
      );
  }
  for (const step of body.appends ?? []) {
    const { from, to, at } = (step ?? {}) as { from?: unknown; to?: unknown; at?: unknown };
    if (!stagedOk(root, from)) throw refuse(`names a source outside sow's temp folder: ${JSON.stringify(from)}`);
    if (!journalPathOk(root, to) || !APPENDABLE.test(to))
      throw refuse(`names an append to something that is not a log: ${JSON.stringify(to)}`);
    if (typeof at !== 'number' || !Number.isSafeInteger(at) || at < 0)
      throw refuse(`names an append at ${JSON.stringify(at)}, not a size`);
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

export async function checked(check: JournalCheck, to: string, text: string, journal: string): Promise<void> {
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

/** The journal checked as a replay would, nothing applied (`sow doctor`): its steps, or JournalRefusedError. */
export async function inspectJournal(root: string, check: JournalCheck): Promise<{ steps: number }> {
  return { steps: stepsOf(await readJournal(root, check)) };
}

/** Finishes, lock held and journal checked, a change a killed process committed but did not finish. */
export async function replayJournal(root: string, check: JournalCheck): Promise<boolean> {
  if (!hasJournal(root)) return false;
  const body = await readJournal(root, check);
  apply(root, body, true);
  unlinkIfExists(journalPath(root));
  fsyncDir(runtimePath(root));
  return true;
}
