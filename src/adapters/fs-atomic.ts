import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { Buffer } from 'node:buffer';
import { basename, dirname, join } from 'node:path';
import { asWriteError, ignoring, quietly } from './io-errors.js';

let counter = 0;

/** A name no other write of this or another sow process uses. */
export const uniqueName = (prefix: string): string =>
  `${prefix}-${process.pid}-${counter++}-${Math.random().toString(36).slice(2, 10)}`;

/** Writes all of `text` at the file's position: one write(2) may write only part of it (a disk filling up). */
export function writeAll(fd: number, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
}

/** Writes `text` to a new file (fsynced when `durable`); a failure removes what was written and rethrows. */
export function writeNewFile(path: string, text: string, durable = true): void {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o644);
  } catch (err) {
    throw asWriteError(err, path);
  }
  try {
    writeAll(fd, text);
    if (durable) fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(path, { force: true });
    throw asWriteError(err, path);
  }
  closeSync(fd);
}

/** Makes a rename or removal in `dir` durable (skipped where a directory cannot be opened for fsync). */
export function fsyncDir(dir: string): void {
  const fd = quietly(() => openSync(dir, 'r'));
  if (fd === undefined) return;
  try {
    fsyncSync(fd);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EINVAL' && code !== 'EPERM' && code !== 'EBADF') throw err;
  } finally {
    closeSync(fd);
  }
}

/** Temp file, fsync, rename, fsync of the folder: a crash leaves the old file or the new, never half. The temp file
 * goes to `tmpDir` (on the file system of `path`) or beside it; `durable: false` skips the fsyncs (caches). */
export function writeFileAtomic(path: string, text: string, opts: { tmpDir?: string; durable?: boolean } = {}): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true });
  const durable = opts.durable !== false;
  const tmp = join(opts.tmpDir ?? dir, `.${basename(path)}.${uniqueName('tmp')}`);
  writeNewFile(tmp, text, durable);
  try {
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  if (durable) fsyncDir(dir);
}

/** Removes a tree atomically for readers: renamed into `trashDir`, deleted there if `trashStillReal` (a link is moved,
 * never followed). `path` must be confined by the caller. */
export function removeTreeAtomic(path: string, trashDir: string, trashStillReal: () => boolean): void {
  const trash = join(trashDir, uniqueName('trash'));
  try {
    renameSync(path, trash);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  fsyncDir(dirname(path));
  if (trashStillReal()) rmSync(trash, { recursive: true, force: true });
}

/** Empties a folder of killed writers' leftovers, under the lock; a folder that became a link is left alone. */
export function clearDir(dir: string, stillReal: () => boolean): void {
  for (const name of quietly(() => readdirSync(dir)) ?? []) {
    if (!stillReal()) return;
    rmSync(join(dir, name), { recursive: true, force: true });
  }
}

export const unlinkIfExists = (path: string): void => void ignoring(['ENOENT'], () => unlinkSync(path));
