/** A file's stamp for the task index, times as lstat(2) gives them (decision 0070): from Node's fs binding once it
 * matches fs.lstatSync, never under the permission model (it would go round it); else fs.lstatSync. */
import { fstatSync, lstatSync, readdirSync, type BigIntStats } from 'node:fs';
import { nodeBinding } from './node-binding.js';

export interface FileStamp {
  readonly isFile: boolean;
  readonly ino: number;
  readonly size: number;
  /** Whole seconds since the epoch, and the nanoseconds after them. */
  readonly mtimeS: number;
  readonly mtimeNs: number;
  readonly ctimeS: number;
  readonly ctimeNs: number;
  /** The device and the link count: what a file held open is checked by (adapters/held-files.ts). */
  readonly dev: number;
  readonly nlink: number;
}

/** A stamp's time in milliseconds (as fs.Stats has it), for comparisons with the clock. */
export const stampMs = (s: number, ns: number): number => s * 1e3 + ns / 1e6;

/** A file untouched this long has settled: a later change of it cannot leave its stamp as it was (decision 0009). */
export const SETTLE_MS = 2_000;
export const settled = (mtimeMs: number, ctimeMs: number, now: number) => now - Math.max(mtimeMs, ctimeMs) > SETTLE_MS;
export const stampSettled = (st: FileStamp, now: number) =>
  settled(stampMs(st.mtimeS, st.mtimeNs), stampMs(st.ctimeS, st.ctimeNs), now);

export type RawLstat = (
  path: string,
  bigint: false,
  req: undefined,
  throwIfNoEntry: boolean,
) => ArrayLike<number> | undefined;

/** Nanoseconds since the epoch as lstat(2) gives them: whole seconds (rounded down), and the nanoseconds after. */
function split(ns: bigint): [number, number] {
  const s = ns / 1_000_000_000n - (ns % 1_000_000_000n < 0n ? 1n : 0n);
  return [Number(s), Number(ns - s * 1_000_000_000n)];
}

function fromStats(st: BigIntStats): FileStamp {
  const [mtimeS, mtimeNs] = split(st.mtimeNs);
  const [ctimeS, ctimeNs] = split(st.ctimeNs);
  const [ino, size, dev, nlink] = [Number(st.ino), Number(st.size), Number(st.dev), Number(st.nlink)];
  return { isFile: st.isFile(), ino, size, mtimeS, mtimeNs, ctimeS, ctimeNs, dev, nlink };
}

/** The binding's answer, read by the offsets of Node's FsStatsOffset (src/node_file.h). */
function fromRaw(a: ArrayLike<number>): FileStamp {
  return {
    isFile: (a[1]! & 0o170000) === 0o100000, // S_IFMT, S_IFREG
    ino: a[7]!,
    size: a[8]!,
    mtimeS: a[12]!,
    mtimeNs: a[13]!,
    ctimeS: a[14]!,
    ctimeNs: a[15]!,
    dev: a[0]!,
    nlink: a[2]!,
  };
}

// Node's fs binding, when it may be used at all (see above). A binding from before Node's throwing sync calls (20.x
// before them) aborts the process when called without the context object lstatSync and readdirSync then passed: used
// only when both call it without one.
type FsBinding = { lstat: RawLstat; fstat: RawFstat; readdir: unknown };
function rawFs(): Partial<FsBinding> | undefined {
  const permission = (process as { permission?: unknown }).permission;
  if (process.platform === 'win32' || permission !== undefined || process.env['SOW_NO_RAW_STAT']) return undefined;
  if (String(lstatSync).includes('ctx') || String(readdirSync).includes('ctx')) return undefined;
  return nodeBinding<FsBinding>('fs');
}

/** `fn` once `ask(fn)` answered as the public call did (`expected`), else false for good: an older or newer binding
 * (not a function, another answer, a throw). */
function proved<F>(fn: F | undefined, ask: (fn: F) => ArrayLike<number> | undefined, expected: FileStamp): F | false {
  try {
    const a = fn === undefined ? undefined : ask(fn);
    return a !== undefined && a.length > 15 && sameStamp(fromRaw(a), expected) ? fn! : false;
  } catch {
    return false;
  }
}

/** libuv's entry types (uv_dirent_type_t) that sow asks about, as fs.constants.UV_DIRENT_* has them. */
export const DIRENT_UNKNOWN = 0;
export const DIRENT_DIR = 2;
export const DIRENT_LINK = 3;

type RawReaddir = (path: string, encoding: 'utf8', withTypes: true) => unknown;
/** undefined: not looked up yet; false: fs.readdirSync for good. */
let rawReaddir: RawReaddir | false | undefined;

// The names in folder `abs` with their types (DIRENT_*, UNKNOWN where the file system gives none), as
// fs.readdirSync lists them, without a Dirent per name (a task folder holds 1,000 names); throws as it does. The
// binding's answer is taken only in the shape readdirSync takes it in: two lists of the same length.
export function folderEntries(abs: string): { names: string[]; types: number[] } {
  if (rawReaddir === undefined) {
    const readdir = rawFs()?.readdir;
    rawReaddir = typeof readdir === 'function' ? (readdir as RawReaddir) : false;
  }
  if (rawReaddir && !abs.includes('\0')) {
    const r = rawReaddir(abs, 'utf8', true);
    if (Array.isArray(r) && r.length === 2 && Array.isArray(r[0]) && Array.isArray(r[1]) && r[0].length === r[1].length)
      return { names: r[0] as string[], types: r[1] as number[] };
    rawReaddir = false;
  }
  const dirents = readdirSync(abs, { withFileTypes: true });
  const names: string[] = [];
  const types: number[] = [];
  for (const d of dirents) {
    names.push(d.name);
    types.push(d.isSymbolicLink() ? DIRENT_LINK : d.isDirectory() ? DIRENT_DIR : DIRENT_UNKNOWN);
  }
  return { names, types };
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

/** The stamp of `abs` (lstat), or undefined when nothing is there; other errors throw as fs.lstatSync's. */
export function fileStamp(abs: string): FileStamp | undefined {
  return stampUnlessSame(abs, undefined) as FileStamp | undefined;
}

/** What the task index keeps of a time's whole seconds: less 2^30, so they stay small integers for V8 until 2038 (not
 * boxed numbers to parse, allocate and copy). */
export const SECONDS_BASE = 2 ** 30;

// fileStamp(abs), or `true` when `abs` is a regular file whose inode, size, mtime and ctime are `known[1..6]` (a task
// index entry's, its seconds less SECONDS_BASE): the task index asks this of every task file, and an unchanged one
// needs no stamp built.
export function stampUnlessSame(abs: string, known: ArrayLike<unknown> | undefined): FileStamp | undefined | true {
  // fs.lstatSync refuses a NUL in a path; the binding would cut the path short there.
  if (raw && !abs.includes('\0')) {
    let a: ArrayLike<number> | undefined;
    try {
      a = raw(abs, false, undefined, false);
    } catch {
      // Whatever it was, fs.lstatSync says it the way the rest of sow expects.
      return stampByStats(abs);
    }
    if (a === undefined) return undefined;
    if (
      known !== undefined &&
      a[7] === known[1] &&
      a[8] === known[2] &&
      a[12]! - SECONDS_BASE === known[3] &&
      a[13] === known[4] &&
      a[14]! - SECONDS_BASE === known[5] &&
      a[15] === known[6] &&
      (a[1]! & 0o170000) === 0o100000
    )
      return true;
    return fromRaw(a);
  }
  const expected = stampByStats(abs);
  // Decided already, or nothing there to prove the binding on (the next file decides).
  if (raw !== undefined || !expected) return expected;
  raw = proved(tried ? tried() : rawFs()?.lstat, (lstat) => lstat(abs, false, undefined, false), expected);
  return expected;
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

/** Forgets the decisions; the next call tries `lstat` instead of the binding when given (for tests). */
export function resetFileStamp(lstat?: () => RawLstat | undefined): void {
  raw = undefined;
  tried = lstat;
  rawReaddir = lstat && false;
}

type RawFstat = (fd: number, bigint: false, req: undefined, throwIfNoEntry: boolean) => ArrayLike<number> | undefined;
/** undefined: not decided yet; false: fs.fstatSync for good; a function: proved, as the lstat above. */
let rawFstat: RawFstat | false | undefined;

/** Whether descriptor `fd` still has stamp `st`, read in place when it can (`sow mcp` asks this of every task file). */
export function fdUnchanged(fd: number, st: FileStamp): boolean {
  const a = rawFstat ? rawFstat(fd, false, undefined, true) : undefined;
  if (!a) return sameStamp(fdStamp(fd), st);
  return (
    a[7] === st.ino &&
    a[14] === st.ctimeS &&
    a[15] === st.ctimeNs &&
    a[13] === st.mtimeNs &&
    a[12] === st.mtimeS &&
    a[8] === st.size &&
    a[2] === st.nlink &&
    a[0] === st.dev &&
    ((a[1]! & 0o170000) === 0o100000) === st.isFile
  );
}

/** The stamp of what descriptor `fd` holds (fstat(2)); throws as fs.fstatSync does. */
export function fdStamp(fd: number): FileStamp {
  if (rawFstat) {
    const a = rawFstat(fd, false, undefined, true);
    if (a) return fromRaw(a);
  }
  const expected = fromStats(fstatSync(fd, { bigint: true }));
  rawFstat ??= proved(raw ? rawFs()?.fstat : undefined, (fstat) => fstat(fd, false, undefined, true), expected);
  return expected;
}
