/**
 * A file's stamp — whether it is a regular file, its inode, size, mtime and ctime — as the task
 * index's check needs it, once per task file on every whole-set read (decision 0009). The times
 * are whole seconds and nanoseconds, as lstat(2) gives them: whole numbers compare exactly and
 * cheaply, where milliseconds (a fraction) cost every file float arithmetic in cold code
 * (docs/decisions/0070).
 *
 * fs.lstatSync builds a full fs.Stats (eighteen fields, each time through cold code of Node's own)
 * for each of a thousand files; that was about half of what the check costs. Node's fs binding
 * answers the same lstat(2) with a shared array of numbers, which is read here field by field.
 * It is used only where it cannot change what sow sees (adapters/node-binding.ts: not with
 * --pending-deprecation; here also not under Node's permission model, which it would go round),
 * and only after its first answer proved equal, field for field, to fs.lstatSync's for the same
 * file. Otherwise, and on any surprise, fs.lstatSync.
 */
import { fstatSync, lstatSync, type BigIntStats } from 'node:fs';
import { nodeBinding } from './node-binding.js';

export interface FileStamp {
  readonly isFile: boolean;
  readonly ino: number;
  readonly size: number;
  /** The modification time: whole seconds since the epoch, and the nanoseconds after them. */
  readonly mtimeS: number;
  readonly mtimeNs: number;
  /** The change time, likewise. */
  readonly ctimeS: number;
  readonly ctimeNs: number;
  /** The device and the link count: what a file held open is checked by (adapters/held-files.ts). */
  readonly dev: number;
  readonly nlink: number;
}

/** A stamp's time in milliseconds (as fs.Stats has it), for comparisons with the clock. */
export const stampMs = (s: number, ns: number): number => s * 1e3 + ns / 1e6;

export type RawLstat = (
  path: string,
  bigint: false,
  req: undefined,
  throwIfNoEntry: boolean,
) => ArrayLike<number> | undefined;

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;

// The fields of the binding's answer, in the order of Node's FsStatsOffset (src/node_file.h).
const DEV = 0;
const MODE = 1;
const NLINK = 2;
const INO = 7;
const SIZE = 8;
const MTIME_S = 12;
const MTIME_NS = 13;
const CTIME_S = 14;
const CTIME_NS = 15;

const BILLION = 1_000_000_000n;
/** Nanoseconds since the epoch as lstat(2) gives them: whole seconds (rounded down), and the nanoseconds after. */
function split(ns: bigint): [number, number] {
  let s = ns / BILLION;
  let rest = ns % BILLION;
  if (rest < 0n) {
    s -= 1n;
    rest += BILLION;
  }
  return [Number(s), Number(rest)];
}

function fromStats(st: BigIntStats): FileStamp {
  const [mtimeS, mtimeNs] = split(st.mtimeNs);
  const [ctimeS, ctimeNs] = split(st.ctimeNs);
  const [dev, nlink] = [Number(st.dev), Number(st.nlink)];
  return {
    isFile: st.isFile(),
    ino: Number(st.ino),
    size: Number(st.size),
    mtimeS,
    mtimeNs,
    ctimeS,
    ctimeNs,
    dev,
    nlink,
  };
}

function fromRaw(a: ArrayLike<number>): FileStamp {
  return {
    isFile: (a[MODE]! & S_IFMT) === S_IFREG,
    ino: a[INO]!,
    size: a[SIZE]!,
    mtimeS: a[MTIME_S]!,
    mtimeNs: a[MTIME_NS]!,
    ctimeS: a[CTIME_S]!,
    ctimeNs: a[CTIME_NS]!,
    dev: a[DEV]!,
    nlink: a[NLINK]!,
  };
}

/** The binding's lstat, when it may be used at all (see above); whether it answers right is proved on first use. */
function candidate(): RawLstat | undefined {
  if (
    process.platform === 'win32' ||
    (process as { permission?: unknown }).permission !== undefined ||
    process.env['SOW_NO_RAW_STAT']
  )
    return undefined;
  const lstat = nodeBinding<{ lstat: unknown }>('fs')?.lstat;
  return typeof lstat === 'function' ? (lstat as RawLstat) : undefined;
}

/** Whether two stamps are of the same file, unchanged: every field equal. */
export const sameStamp = (a: FileStamp, b: FileStamp): boolean =>
  a.isFile === b.isFile &&
  a.ino === b.ino &&
  a.size === b.size &&
  a.mtimeS === b.mtimeS &&
  a.mtimeNs === b.mtimeNs &&
  a.ctimeS === b.ctimeS &&
  a.ctimeNs === b.ctimeNs &&
  a.dev === b.dev &&
  a.nlink === b.nlink;

/** undefined: not decided yet; false: fs.lstatSync for good; a function: proved. */
let raw: RawLstat | false | undefined;
/** What the next decision tries instead of the binding (tests). */
let tried: (() => RawLstat | undefined) | undefined;

/**
 * The stamp of `abs` (not following a final link), or undefined when nothing is there. Other errors (ENOTDIR, EACCES
 * …) throw as fs.lstatSync's do.
 */
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
    const st = lstatSync(abs, { bigint: true, throwIfNoEntry: false });
    // Nothing there to prove the binding on: the next file decides.
    if (!st) return undefined;
    raw = false;
    const lstat = (tried ?? candidate)();
    const expected = fromStats(st);
    if (!lstat) return expected;
    try {
      const a = lstat(abs, false, undefined, false);
      if (a && a.length > CTIME_NS && sameStamp(fromRaw(a), expected)) raw = lstat;
    } catch {
      // an older or newer binding: fs.lstatSync from now on
    }
    return expected;
  }
  return stampByStats(abs);
}

function stampByStats(abs: string): FileStamp | undefined {
  // bigint: the times whole, to the nanosecond (a number of milliseconds has lost them).
  const st = lstatSync(abs, { bigint: true, throwIfNoEntry: false });
  return st && fromStats(st);
}

/** Whether the fast way was proved and is in use (for tests). */
export function rawStampInUse(): boolean {
  return typeof raw === 'function';
}

/**
 * Forgets the decision, so the next call decides again, trying `lstat` instead of the binding when given (for
 * tests).
 */
export function resetFileStamp(lstat?: () => RawLstat | undefined): void {
  raw = undefined;
  tried = lstat;
}

type RawFstat = (fd: number, bigint: false, req: undefined, throwIfNoEntry: boolean) => ArrayLike<number> | undefined;
/** undefined: not decided yet; false: fs.fstatSync for good; a function: proved, as the lstat above. */
let rawFstat: RawFstat | false | undefined;

/** The stamp of what descriptor `fd` holds (fstat(2)); throws as fs.fstatSync does. */
export function fdStamp(fd: number): FileStamp {
  if (rawFstat) {
    const a = rawFstat(fd, false, undefined, true);
    if (a) return fromRaw(a);
  }
  const st = fstatSync(fd, { bigint: true });
  const expected = fromStats(st);
  if (rawFstat === undefined) {
    rawFstat = false;
    const fstat = raw ? nodeBinding<{ fstat: unknown }>('fs')?.fstat : undefined;
    try {
      const a = typeof fstat === 'function' ? (fstat as RawFstat)(fd, false, undefined, true) : undefined;
      if (a && a.length > CTIME_NS && sameStamp(fromRaw(a), expected)) rawFstat = fstat as RawFstat;
    } catch {
      // an older or newer binding: fs.fstatSync from now on
    }
  }
  return expected;
}
