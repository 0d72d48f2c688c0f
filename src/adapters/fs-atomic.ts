import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

let counter = 0;

export interface AtomicWriteOptions {
  /** Where the temp file goes (same file system as `path`); default: beside it. */
  tmpDir?: string;
  /** fsync before the rename (default true); false for files that may be lost (caches). */
  durable?: boolean;
}

/** Temp file, fsync, rename: a crash leaves the old file or the new, never half. */
export function writeFileAtomic(path: string, text: string, opts: AtomicWriteOptions = {}): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true });
  const tmp = join(opts.tmpDir ?? dir, `.${basename(path)}.${process.pid}.${counter++}.tmp`);
  const fd = openSync(tmp, 'w', 0o644);
  try {
    writeSync(fd, text);
    if (opts.durable !== false) fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeSync(fd);
  try {
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/** Removes a tree atomically from the reader's point of view: rename it away, then delete. */
export function removeTreeAtomic(path: string, trashDir: string): void {
  mkdirSync(trashDir, { recursive: true });
  const trash = join(trashDir, `trash-${process.pid}-${counter++}`);
  try {
    renameSync(path, trash);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  rmSync(trash, { recursive: true, force: true });
}

/** Empties a folder of leftovers (temp files of killed writers); call with the lock held. */
export function clearDir(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) rmSync(join(dir, name), { recursive: true, force: true });
}

export function unlinkIfExists(path: string): void {
  try {
    unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
