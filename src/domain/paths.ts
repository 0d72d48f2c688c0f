/**
 * Paths as text: what a path names before any file system is asked. Pure; confine.ts adds the
 * file system (links) on top.
 */
import * as posix from 'node:path/posix';

/**
 * `rel` normalised (`a/./b/../c` → `a/c`), or undefined when it is not a relative path that stays
 * inside where it starts: empty, absolute, a drive letter, a NUL byte, or `..` leading above it.
 */
export function normalRelative(rel: string): string | undefined {
  if (rel === '' || rel.includes('\0') || posix.isAbsolute(rel) || /^[A-Za-z]:[\\/]/.test(rel)) return undefined;
  const norm = posix.normalize(rel).replace(/\/+$/, '');
  if (norm === '.' || norm === '' || norm === '..' || norm.startsWith('../')) return undefined;
  return norm;
}

/** `rel` (relative to the folder `under`) normalised, when it stays inside `under`; else undefined. */
export function relativeInside(under: string, rel: string): string | undefined {
  const inner = normalRelative(rel);
  if (inner === undefined) return undefined;
  const whole = normalRelative(`${under}/${inner}`);
  return whole !== undefined && whole.startsWith(`${under}/`) ? inner : undefined;
}

/**
 * Whether an artifact path as stored could name a file of the repository: relative, and inside the
 * repository from `.sow/project/` (the deeper of the two roots paths are relative to). Where it
 * really leads is checked when it is used (confine.ts); this refuses the obviously hostile at read.
 */
export function storedPathInside(path: string): boolean {
  if (path.includes('\0') || posix.isAbsolute(path) || /^[A-Za-z]:[\\/]/.test(path)) return false;
  return normalRelative(`.sow/project/${path}`) !== undefined;
}
