/** Paths as text, before any file system is asked (confine.ts adds links on top). */
import * as posix from 'node:path/posix';

/** `rel` normalised, or undefined when it is not a relative path staying inside where it starts. */
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

/** Whether a stored artifact path could name a file of the repository (refuses the obviously hostile at read). */
export function storedPathInside(path: string): boolean {
  if (path.includes('\0') || posix.isAbsolute(path) || /^[A-Za-z]:[\\/]/.test(path)) return false;
  return normalRelative(`.sow/project/${path}`) !== undefined;
}
