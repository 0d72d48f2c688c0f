/**
 * A file's stamp — whether it is a regular file, its inode, size, mtime and ctime — as the task
 * index's check needs it, once per task file on every whole-set read (decision 0009).
 *
 * fs.lstatSync builds a full fs.Stats (eighteen fields, each time through cold code of Node's own)
 * for each of a thousand files; that was about half of what the check costs. Node's fs binding
 * answers the same lstat(2) with a shared array of numbers, which is read here field by field.
 * It is used only where it cannot change what sow sees (adapters/node-binding.ts: not with
 * --pending-deprecation; here also not under Node's permission model, which it would go round),
 * and only after its first answer proved equal, field for field, to fs.lstatSync's for the same
 * file. Otherwise, and on any surprise, fs.lstatSync.
 */
import { lstatSync, type Stats } from 'node:fs';
import { nodeBinding } from './node-binding.js';

export interface FileStamp {
  readonly isFile: boolean;
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
}

export type RawLstat = (path: string, bigint: false, req: undefined, throwIfNoEntry: boolean) => ArrayLike<number> | undefined;

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;

// The fields of the binding's answer, in the order of Node's FsStatsOffset (src/node_file.h).
const MODE = 1;
const INO = 7;
const SIZE = 8;
const MTIME_S = 12;
const MTIME_NS = 13;
const CTIME_S = 14;
const CTIME_NS = 15;

/** Milliseconds as fs.Stats works them out from seconds and nanoseconds (lib/internal/fs/utils.js). */
const ms = (s: number, ns: number) => s * 1e3 + ns / 1e6;

function fromStats(st: Stats): FileStamp {
  return { isFile: st.isFile(), ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs };
}

function fromRaw(a: ArrayLike<number>): FileStamp {
  return { isFile: (a[MODE]! & S_IFMT) === S_IFREG, ino: a[INO]!, size: a[SIZE]!, mtimeMs: ms(a[MTIME_S]!, a[MTIME_NS]!), ctimeMs: ms(a[CTIME_S]!, a[CTIME_NS]!) };
}

/** The binding's lstat, when it may be used at all (see above); whether it answers right is proved on first use. */
function candidate(): RawLstat | undefined {
  if (process.platform === 'win32' || (process as { permission?: unknown }).permission !== undefined || process.env['SOW_NO_RAW_STAT']) return undefined;
  const lstat = nodeBinding<{ lstat: unknown }>('fs')?.lstat;
  return typeof lstat === 'function' ? (lstat as RawLstat) : undefined;
}

const same = (a: FileStamp, b: FileStamp) => a.isFile === b.isFile && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;

/** undefined: not decided yet; false: fs.lstatSync for good; a function: proved. */
let raw: RawLstat | false | undefined;
/** What the next decision tries instead of the binding (tests). */
let tried: (() => RawLstat | undefined) | undefined;

/** The stamp of `abs` (not following a final link), or undefined when nothing is there. Other errors (ENOTDIR, EACCES …) throw as fs.lstatSync's do. */
export function fileStamp(abs: string): FileStamp | undefined {
  // fs.lstatSync refuses a NUL in a path; the binding would cut the path short there.
  if (abs.includes('\0')) return stampByStats(abs);
  if (raw) {
    let a: ArrayLike<number> | undefined;
    try {
      a = raw(abs, false, undefined, false);
    } catch {
      // Whatever it was, fs.lstatSync says it the way the rest of sow expects.
      return stampByStats(abs);
    }
    return a === undefined ? undefined : fromRaw(a);
  }
  if (raw === undefined) {
    const st = lstatSync(abs, { throwIfNoEntry: false });
    // Nothing there to prove the binding on: the next file decides.
    if (!st) return undefined;
    raw = false;
    const lstat = (tried ?? candidate)();
    const expected = fromStats(st);
    if (!lstat) return expected;
    try {
      const a = lstat(abs, false, undefined, false);
      if (a && a.length > CTIME_NS && same(fromRaw(a), expected)) raw = lstat;
    } catch {
      // an older or newer binding: fs.lstatSync from now on
    }
    return expected;
  }
  return stampByStats(abs);
}

function stampByStats(abs: string): FileStamp | undefined {
  const st = lstatSync(abs, { throwIfNoEntry: false });
  return st && fromStats(st);
}

/** Whether the fast way was proved and is in use (for tests). */
export function rawStampInUse(): boolean {
  return typeof raw === 'function';
}

/** Forgets the decision, so the next call decides again, trying `lstat` instead of the binding when given (for tests). */
export function resetFileStamp(lstat?: () => RawLstat | undefined): void {
  raw = undefined;
  tried = lstat;
}
