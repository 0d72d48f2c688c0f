/**
 * A file's stamp (regular file?, inode, size, mtime, ctime) for the task index's check, the times in whole seconds
 * and nanoseconds as lstat(2) gives them (decision 0070). Building an fs.Stats was half the check's cost, so Node's
 * fs binding is read instead, except under the permission model (it would go round it), and only once its first
 * answer equals fs.lstatSync's field for field; otherwise, and on any surprise, fs.lstatSync.
 */
import { lstatSync, type BigIntStats } from 'node:fs';
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
const MODE = 1;
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
  return { isFile: st.isFile(), ino: Number(st.ino), size: Number(st.size), mtimeS, mtimeNs, ctimeS, ctimeNs };
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

const same = (a: FileStamp, b: FileStamp) =>
  a.isFile === b.isFile &&
  a.ino === b.ino &&
  a.size === b.size &&
  a.mtimeS === b.mtimeS &&
  a.mtimeNs === b.mtimeNs &&
  a.ctimeS === b.ctimeS &&
  a.ctimeNs === b.ctimeNs;

/** undefined: not decided yet; false: fs.lstatSync for good; a function: proved. */
let raw: RawLstat | false | undefined;
/** What the next decision tries instead of the binding (tests). */
let tried: (() => RawLstat | undefined) | undefined;

/** The stamp of `abs` (lstat), or undefined when nothing is there; other errors throw as fs.lstatSync's. */
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
      if (a && a.length > CTIME_NS && same(fromRaw(a), expected)) raw = lstat;
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

/** Forgets the decision; the next call tries `lstat` instead of the binding when given (for tests). */
export function resetFileStamp(lstat?: () => RawLstat | undefined): void {
  raw = undefined;
  tried = lstat;
}
