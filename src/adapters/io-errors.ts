/**
 * Errors of the machine, not of sow: no permission, a full disk, a read-only file system. They are
 * the user's to fix (exit 1, naming the path), never "internal error" (exit 70, a bug in sow).
 */
import { SowError } from '../domain/errors.js';

const KINDS: Readonly<Record<string, { code: string; what: string; fix: string }>> = {
  EACCES: { code: 'PERMISSION_DENIED', what: 'permission denied', fix: 'give your user access to it (see its owner and mode with `ls -l`)' },
  EPERM: { code: 'PERMISSION_DENIED', what: 'operation not permitted', fix: 'give your user access to it (see its owner and mode with `ls -l`)' },
  ENOSPC: { code: 'DISK_FULL', what: 'the disk is full', fix: 'free some space (`df -h` shows how much is left)' },
  EDQUOT: { code: 'DISK_FULL', what: 'the disk quota is used up', fix: 'free some space within your quota' },
  EROFS: { code: 'READ_ONLY_FILE_SYSTEM', what: 'the file system is read-only', fix: 'work in a checkout on a writable file system' },
  EMFILE: { code: 'TOO_MANY_OPEN_FILES', what: 'too many open files', fix: 'raise the limit (`ulimit -n`) or close other programs' },
  ENFILE: { code: 'TOO_MANY_OPEN_FILES', what: 'too many open files on this system', fix: 'close other programs, then retry' },
};

const WRITES = /^(open|write|mkdir|rename|unlink|rmdir|rm|utime|futime|fsync|copyfile|symlink|chmod|link|ftruncate|close)/;

export class EnvironmentError extends SowError {}

/** The user-facing error for an I/O failure the environment caused, or undefined for anything else. */
export function environmentError(err: unknown, committed = false): SowError | undefined {
  const e = err as NodeJS.ErrnoException | undefined;
  if (!e || typeof e.code !== 'string') return undefined;
  const kind = KINDS[e.code];
  if (!kind) return undefined;
  const verb = WRITES.test(e.syscall ?? '') && e.syscall !== 'open' ? 'write' : e.syscall === 'open' ? 'open' : 'read';
  const where = e.path ? ` '${e.path}'` : '';
  const outcome = committed
    ? 'the change is recorded and the next sow command finishes it once this is fixed'
    : 'nothing was changed; retry once this is fixed';
  return new EnvironmentError(kind.code, 'failed', `cannot ${verb}${where}: ${kind.what}`, `${kind.fix}; ${outcome}`, { ...(e.path ? { path: e.path } : {}), errno: e.code });
}
