/** Errors of the machine (no permission, a full disk): the user's to fix (exit 1, naming the path), not exit 70. */
import { SowError } from '../domain/errors.js';

const ACCESS = 'give your user access to it (see its owner and mode with `ls -l`)';
/** errno → [code, what happened, how to fix it]. */
const KINDS: Readonly<Record<string, readonly [code: string, what: string, fix: string]>> = {
  EACCES: ['PERMISSION_DENIED', 'permission denied', ACCESS],
  EPERM: ['PERMISSION_DENIED', 'operation not permitted', ACCESS],
  ENOSPC: ['DISK_FULL', 'the disk is full', 'free some space (`df -h` shows how much is left)'],
  EDQUOT: ['DISK_FULL', 'the disk quota is used up', 'free some space within your quota'],
  EROFS: ['READ_ONLY_FILE_SYSTEM', 'the file system is read-only', 'work in a checkout on a writable file system'],
  EMFILE: ['TOO_MANY_OPEN_FILES', 'too many open files', 'raise the limit (`ulimit -n`) or close other programs'],
  ENFILE: ['TOO_MANY_OPEN_FILES', 'too many open files on this system', 'close other programs, then retry'],
  EFBIG: [
    'FILE_SIZE_LIMIT',
    'the file would exceed the largest file this system or your limits allow',
    'raise the file size limit (`ulimit -f`) or free the file system of what made the file so large',
  ],
};

/** A repository file that is not what sow expects (a link loop, a file for a folder): exit 4, never internal. */
const SHAPES: Readonly<Record<string, { code: string; what: string }>> = {
  ELOOP: { code: 'LINK_LOOP', what: 'it leads through a loop of symbolic links' },
  ENAMETOOLONG: { code: 'NAME_TOO_LONG', what: 'a name on the way is too long for this system' },
  ENOTDIR: { code: 'NOT_A_FOLDER', what: 'a part of the way is a file, not a folder' },
  EISDIR: { code: 'NOT_A_FILE', what: 'it is a folder, not a file' },
};

const WRITES =
  /^(open|write|mkdir|rename|unlink|rmdir|rm|utime|futime|fsync|copyfile|symlink|chmod|link|ftruncate|close)/;

export class EnvironmentError extends SowError {}

/** `f()`, or undefined when it fails with one of `codes` (errno); any other error is thrown. */
export function ignoring<T>(codes: readonly string[], f: () => T): T | undefined {
  try {
    return f();
  } catch (err) {
    if (codes.includes((err as NodeJS.ErrnoException).code ?? '')) return undefined;
    throw err;
  }
}

/** Nothing there: the path, or a folder on its way, does not exist (or is a file). */
export const MISSING = ['ENOENT', 'ENOTDIR'] as const;

/** `f()`, or undefined when it throws: for a look whose failure only means there is nothing to see. */
export function quietly<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}

const WRITING = Symbol('sow: failed while writing');

/** Marks an error met while writing `path` (an open, a write(2) or an fsync, whose errors name no path). */
export function asWriteError(err: unknown, path?: string): unknown {
  if (typeof err === 'object' && err !== null) {
    Object.defineProperty(err, WRITING, { value: true });
    const e = err as NodeJS.ErrnoException;
    if (path !== undefined && e.path === undefined) e.path = path;
  }
  return err;
}

/** Errors only a write meets. */
const WRITE_ONLY = new Set(['ENOSPC', 'EDQUOT', 'EROFS']);

function verbOf(e: NodeJS.ErrnoException): string {
  if (WRITE_ONLY.has(e.code ?? '') || (e as { [WRITING]?: boolean })[WRITING]) return 'write';
  if (e.syscall === 'open' || e.syscall === 'access') return 'open';
  return WRITES.test(e.syscall ?? '') ? 'write' : 'read';
}

/** The user-facing error for an I/O failure the environment caused, or undefined for anything else. */
export function environmentError(err: unknown, committed = false): SowError | undefined {
  const e = err as NodeJS.ErrnoException | undefined;
  if (!e || typeof e.code !== 'string') return undefined;
  const details = { ...(e.path ? { path: e.path } : {}), errno: e.code };
  const shape = SHAPES[e.code];
  if (shape) {
    const where = e.path ? `'${e.path}'` : 'a path';
    return new EnvironmentError(
      shape.code,
      'state',
      `cannot use ${where}: ${shape.what}`,
      `look at it ('ls -l${e.path ? ` ${e.path}` : ''}'); if it came with the repository, restore it from git or ` +
        `remove it; nothing was changed`,
      details,
    );
  }
  if (!KINDS[e.code]) return undefined;
  const [code, what, fix] = KINDS[e.code]!;
  const where = e.path ? ` '${e.path}'` : '';
  const outcome = committed
    ? 'the change is recorded and the next sow command finishes it once this is fixed'
    : 'nothing was changed; retry once this is fixed';
  return new EnvironmentError(code, 'failed', `cannot ${verbOf(e)}${where}: ${what}`, `${fix}; ${outcome}`, details);
}
