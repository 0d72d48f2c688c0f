/**
 * Files `sow install` writes outside `.sow/` (into `.claude/`, `.agents/`, AGENTS.md, a plugin
 * folder): each written whole (a temp file renamed into place), and removed with the folders it
 * leaves empty. Paths are relative to `base` and must stay inside it.
 */
import { mkdirSync, readdirSync, readFileSync, rmdirSync, unlinkSync } from 'node:fs';
import { dirname, isAbsolute, join, normalize, relative, sep } from 'node:path';
import { UsageError } from '../domain/errors.js';
import { writeFileAtomic } from './fs-atomic.js';

function inside(base: string, rel: string): string {
  const abs = normalize(join(base, rel));
  const back = relative(base, abs);
  if (isAbsolute(rel) || back.startsWith('..') || back === '') throw new UsageError(`'${rel}' is not a file inside ${base}`);
  return abs;
}

export function readIfExists(base: string, rel: string): string | undefined {
  try {
    return readFileSync(inside(base, rel), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw err;
  }
}

export function writeWhole(base: string, rel: string, text: string): void {
  const abs = inside(base, rel);
  mkdirSync(dirname(abs), { recursive: true });
  writeFileAtomic(abs, text);
}

/** Removes the file, then each folder above it that is left empty (never `base` itself). */
export function removeWithEmptyFolders(base: string, rel: string): void {
  const abs = inside(base, rel);
  try {
    unlinkSync(abs);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  for (let dir = dirname(abs); dir !== base && dir.startsWith(`${base}${sep}`); dir = dirname(dir)) {
    try {
      if (readdirSync(dir).length > 0) break;
      rmdirSync(dir);
    } catch {
      break;
    }
  }
}

/** Removes the folder if nothing is left in it. */
export function removeFolderIfEmpty(abs: string): void {
  try {
    if (readdirSync(abs).length === 0) rmdirSync(abs);
  } catch {
    // gone already, or not empty
  }
}
