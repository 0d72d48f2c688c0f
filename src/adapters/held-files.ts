/** A long-lived process's task files held open, so each check is an fstat(2) (a quarter of an lstat(2)); Linux only.
 * Sound: renaming over the path changes the held inode's ctime or links, or the folder's stamp (decision 0085). */
import { closeSync, constants, openSync, readFileSync } from 'node:fs';
import { quietly } from './io-errors.js';
import { fdUnchanged, fileStamp, sameStamp, stampSettled, type FileStamp } from './file-stamp.js';

/** At most this many files are held (a few thousand descriptors; beyond, files are statted by path). */
const MAX_HELD = 4_096;

/** How many files may be held: a quarter of the limit of open files in `limits` (/proc/self/limits), or none. */
export function heldLimit(limits: string | undefined): number {
  const soft = limits?.match(/^Max open files\s+(\d+|unlimited)\s/m)?.[1];
  if (soft === undefined) return 0;
  return soft === 'unlimited' ? MAX_HELD : Math.min(MAX_HELD, Math.floor(Number(soft) / 4));
}

/** Whether the descriptor still holds the file as stamped; false when fstat(2) fails (the path is statted then). */
const unchanged = (fd: number, st: FileStamp): boolean => quietly(() => fdUnchanged(fd, st)) === true;

export class HeldFiles {
  constructor(private readonly max = heldLimit(quietly(() => readFileSync('/proc/self/limits', 'utf8')))) {}

  private readonly fds = new Map<string, { fd: number; stamp: FileStamp }>();
  private now = 0;
  /** The tasks folder and its stamp; `settled`: only then does any later change of the folder change the stamp. */
  private folder: { abs: string; stamp: FileStamp; settled: boolean } | undefined;
  /** Whether this call may answer from the descriptors (the tasks folder is as it was when they were opened). */
  private trusted = false;

  /** At the start of a whole-set read of the task files under `folderAbs`. */
  begin(folderAbs: string, now: number): void {
    this.now = now;
    const st = fileStamp(folderAbs);
    const was = this.folder;
    this.trusted =
      was !== undefined && was.settled && st !== undefined && was.abs === folderAbs && sameStamp(st, was.stamp);
    if (this.trusted) return;
    this.release();
    this.folder = st && { abs: folderAbs, stamp: st, settled: stampSettled(st, now) };
  }

  /** The stamp of task `id`'s file (at `absOf(id)`): the held one while its descriptor says unchanged, else by path. */
  stamp(id: string, absOf: (id: string) => string): FileStamp | undefined {
    const held = this.fds.get(id);
    // Its link count and ctime are in the stamp: an unlink or a rename shows.
    if (held && this.trusted && unchanged(held.fd, held.stamp)) return held.stamp;
    // Changed in any way, or not trusted this call: the path says what is there now.
    if (held) this.drop(id, held.fd);
    const abs = absOf(id);
    const st = fileStamp(abs);
    if (st?.isFile && this.folder?.settled && stampSettled(st, this.now) && this.fds.size < this.max)
      this.hold(id, abs, st);
    return st;
  }

  /** Holds the file the path named when it was statted, if it still is that file, unchanged. */
  private hold(id: string, abs: string, st: FileStamp): void {
    const fd = quietly(() => openSync(abs, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK));
    if (fd === undefined) return;
    if (unchanged(fd, st)) this.fds.set(id, { fd, stamp: st });
    else closeSync(fd);
  }

  private drop(id: string, fd: number): void {
    this.fds.delete(id);
    closeSync(fd);
  }

  /** Lets every descriptor go. */
  release(): void {
    for (const { fd } of this.fds.values()) closeSync(fd);
    this.fds.clear();
  }

  /** How many files are held (for tests). */
  get size(): number {
    return this.fds.size;
  }
}
