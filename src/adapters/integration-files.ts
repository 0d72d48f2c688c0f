// Files `sow install` writes outside `.sow/`, relative to an area (confine.ts) and checked every time: a link out of
// the area is refused (exit 4) before any read or write. Reads size-limited, O_NOFOLLOW; writes whole.
import { lstatSync, readdirSync, rmdirSync, statSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { SowError } from '../domain/errors.js';
import { confine, confineReal, readConfined, type Area, type ReadLimits } from './confine.js';
import { unlinkIfExists, writeFileAtomic } from './fs-atomic.js';
import { quietly } from './io-errors.js';

/** 1 MiB: the files sow installs or merges into are a few KB; a larger one came from neither a person nor sow. */
export const INSTALL_FILE_LIMITS: ReadLimits = {
  max: 1024 * 1024,
  what: 'agent settings and instruction files',
  why: 'they are a few KB',
};

const where = (area: Area, rel: string) => `${area.shown ?? ''}${rel}`;

// Checks `rel` against the area and reads it (a link out, a folder or a device there: exit 4): its text (undefined:
// nothing there), and whether the path itself is a link.
export function inspect(area: Area, rel: string, limits: ReadLimits = INSTALL_FILE_LIMITS) {
  const abs = confine(area, rel);
  const link = quietly(() => lstatSync(abs).isSymbolicLink()) === true;
  return { text: readConfined(area, rel, limits, { display: where(area, rel) }), link };
}

// Exit 4 unless a file can be renamed onto `rel`: inside the area, each folder on the way a folder or absent, `rel` not
// a folder (a clone can carry a file `.claude`).
export function checkWritable(area: Area, rel: string): void {
  const abs = confine(area, rel);
  const refuse = (at: string, what: string, hint: string) => {
    throw new SowError(
      what === 'a folder' ? 'NOT_A_FILE' : 'NOT_A_FOLDER',
      'state',
      `${at} is ${what}, not a ${what === 'a folder' ? 'file' : 'folder'}`,
      hint,
      { path: at },
    );
  };
  const parts = rel.split('/');
  for (let i = 1; i < parts.length; i++) {
    const at = parts.slice(0, i).join('/');
    // Links on the way are confined above: follow them.
    const st = quietly(() => statSync(join(area.base, at)));
    if (!st) break;
    if (!st.isDirectory())
      refuse(
        where(area, at),
        'a file',
        `sow writes ${where(area, rel)} under it; move it away ` +
          `('mv ${where(area, at)} ${where(area, at)}.bak') and retry`,
      );
  }
  if (quietly(() => lstatSync(abs))?.isDirectory())
    refuse(
      where(area, rel),
      'a folder',
      `sow writes a file there; move the folder away ('mv ${where(area, rel)} ${where(area, rel)}.bak') and retry`,
    );
}

// Writes `text` whole at `rel`, checked again first. `follow`: onto the file a link there leads to (inside the area);
// else a link at `rel` is replaced, never written through.
export function writeWhole(area: Area, rel: string, text: string, follow: boolean): void {
  writeFileAtomic(follow ? confineReal(area, rel) : confine(area, rel), text);
}

/** Removes `rel` itself (a link, never what it leads to), then each folder above it left empty, below the area's. */
export function removeWithEmptyFolders(area: Area, rel: string): void {
  const abs = confine(area, rel);
  unlinkIfExists(abs);
  // A link on the way is not a folder: ENOTDIR ends the walk.
  for (let dir = dirname(abs); dir !== area.base && dir.startsWith(`${area.base}${sep}`); dir = dirname(dir))
    if (!removeFolderIfEmpty(dir)) break;
}

/** Removes the folder if nothing is left in it; whether it did (not when it is gone already, or not empty). */
export function removeFolderIfEmpty(abs: string): boolean {
  try {
    if (readdirSync(abs).length > 0) return false;
    rmdirSync(abs);
    return true;
  } catch {
    return false;
  }
}
