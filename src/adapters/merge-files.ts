// The files of `sow merge-driver`: git's temp files (%O %A %B), in the folder it runs the driver in (a name leading
// elsewhere or to a link is refused; %A opened without following a link), and its conflict records for `sow doctor`.
import { createHash } from 'node:crypto';
import { closeSync, constants, lstatSync, openSync, readdirSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { SowError, UsageError } from '../domain/errors.js';
import { quoted } from '../domain/display.js';
import { PathEscapeError, pathWithin, readRegular, type ReadLimits } from './confine.js';
import { unlinkIfExists, writeAll, writeFileAtomic } from './fs-atomic.js';
import { quietly } from './io-errors.js';
import { findRepoRoot } from './repo.js';
import { ensureRuntimeDir, runtimeFolder, shownRuntime } from './runtime.js';

/** A file git gave, as its real path: a regular file (not a link) inside the folder git runs the driver in. */
export function gitTempFile(cwd: string, given: string, what: string): string {
  const abs = isAbsolute(given) ? given : resolve(cwd, given);
  const st = lstatSync(abs, { throwIfNoEntry: false });
  if (st?.isSymbolicLink())
    throw new PathEscapeError(
      `${what} ${quoted(given)} is a link; git hands the driver files it wrote`,
      'sow changed nothing; run the merge again',
      { path: given },
    );
  if (!st?.isFile())
    throw new UsageError(
      `${what} ${quoted(given)} is not a file`,
      "git calls 'sow merge-driver %O %A %B %P' itself during a merge, with the temp files it wrote",
    );
  const top = realpathSync.native(cwd);
  const real = join(realpathSync.native(dirname(abs)), basename(abs));
  if (!pathWithin(top, real))
    throw new PathEscapeError(
      `${what} ${quoted(given)} is not inside the folder git merges in (${quoted(top)})`,
      'sow changed nothing; git writes its temp files there: run the merge again',
      { path: given },
    );
  return real;
}

/** The file is larger than the driver merges by meaning: git's text merge takes it. */
export class TempFileTooLarge extends Error {}

/** Reads a temp file git gave (O_NOFOLLOW, a regular file, within `limits`); an empty text for none. */
export function readGitTempFile(real: string, shownAs: string, limits: ReadLimits): string {
  try {
    return readRegular(real, shownAs, limits) ?? '';
  } catch (err) {
    if (err instanceof SowError && err.code === 'FILE_TOO_LARGE') throw new TempFileTooLarge();
    throw err;
  }
}

/** Writes the merge into %A: the file git gave, opened without following a link. */
export function writeGitTempFile(real: string, text: string): void {
  const fd = openSync(real, constants.O_WRONLY | constants.O_TRUNC | (constants.O_NOFOLLOW ?? 0));
  try {
    writeAll(fd, text);
  } finally {
    closeSync(fd);
  }
}

const recordName = (path: string) => `${createHash('sha256').update(path).digest('hex').slice(0, 32)}.json`;
const MAX_RECORD_BYTES = 1024 * 1024;
const MAX_RECORDS = 1000;

/** The work tree git merges in (it runs the driver at its top), or undefined outside one. */
const workTree = (cwd: string): string | undefined => quietly(() => findRepoRoot(cwd));

/** A record that cannot be written must not stop the merge (the message names the fields too). */
function bestEffort(fn: () => void): void {
  try {
    fn();
  } catch (err) {
    if (!(err instanceof SowError) && !(err as NodeJS.ErrnoException).code) throw err;
  }
}

/** Records the conflicts of `path` in `<runtime>/<folder>/` (one file per path, replaced by each merge of it). */
export function writeConflictRecord(cwd: string, folder: string, path: string, text: string): void {
  const root = workTree(cwd);
  if (root)
    bestEffort(() => writeFileAtomic(join(ensureRuntimeDir(root, folder), recordName(path)), text, { durable: false }));
}

/** Removes the record of `path`: it merged now. */
export function forgetConflictRecord(cwd: string, folder: string, path: string): void {
  const root = workTree(cwd);
  if (!root) return;
  bestEffort(() => {
    const dir = runtimeFolder(root, folder);
    if (dir) unlinkIfExists(join(dir, recordName(path)));
  });
}

/** The records (parsed JSON) whose name is that of the path they name; anything else there is skipped. */
export function readConflictRecords(root: string, folder: string): unknown[] {
  const dir = runtimeFolder(root, folder);
  if (!dir) return [];
  const out: unknown[] = [];
  for (const name of readdirSync(dir).sort().slice(0, MAX_RECORDS)) {
    if (!name.endsWith('.json')) continue;
    let data: unknown;
    try {
      data = JSON.parse(
        readRegular(join(dir, name), shownRuntime(root, folder, name), {
          max: MAX_RECORD_BYTES,
          what: 'conflict records',
          why: 'a record names a few fields',
        }) ?? 'null',
      );
    } catch (err) {
      if (err instanceof SowError || err instanceof SyntaxError) continue;
      throw err;
    }
    const path = typeof data === 'object' && data !== null ? (data as { path?: unknown }).path : undefined;
    if (typeof path === 'string' && recordName(path) === name) out.push(data);
  }
  return out;
}
