/** The copies of `.sow/` that `sow migrate` keeps in `backup/<version>/`, and moving an older layout's leftovers.
 * Every path is confined; links are never followed, only real files and folders copied. */
import { lstatSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readRegular, sowArea, sowPath } from './confine.js';
import { quietly } from './io-errors.js';
import { ensureRuntimeDir, runtimePath, shownRuntime } from './runtime.js';

/** A copy reads documents as sow reads them: up to 8 MB a file. */
const COPY_LIMITS = {
  max: 8 * 1024 * 1024,
  what: 'files of .sow/',
  why: 'the largest file sow keeps there is a document of a few MB',
};

const realDir = (abs: string) => lstatSync(abs, { throwIfNoEntry: false })?.isDirectory() === true;

/** Copies each real file of `.sow/` that `keep` accepts into a new runtime folder `backup/<name>`: where, and what. */
export function backupSow(
  root: string,
  name: string,
  keep: (rel: string) => boolean,
): { backup: string; copied: string[] } {
  const parent = ensureRuntimeDir(root, 'backup');
  let free = name;
  for (let n = 2; lstatSync(join(parent, free), { throwIfNoEntry: false }) !== undefined; n++) free = `${name}-${n}`;
  ensureRuntimeDir(root, `backup/${free}`);
  const base = sowArea(root).base;
  const copied: string[] = [];
  const walk = (rel: string) => {
    const abs = rel ? join(base, rel) : base;
    if (!realDir(abs)) return; // swapped for a link meanwhile: not followed
    for (const entry of readdirSync(abs, { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (!keep(child)) continue;
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile()) {
        const text = readRegular(join(base, child), `.sow/${child}`, COPY_LIMITS);
        if (text === undefined) continue;
        const folder = child.split('/').slice(0, -1).join('/');
        const dest = ensureRuntimeDir(root, folder ? `backup/${free}/${folder}` : `backup/${free}`);
        writeFileSync(join(dest, entry.name), text, { flag: 'wx' });
        copied.push(child);
      }
    }
  };
  walk('');
  return { backup: shownRuntime(root, 'backup', free), copied };
}

/** Whether `rel` (repository-relative, inside `.sow/`) exists, judged without following a link at its end. */
export function pathExists(root: string, rel: string): boolean {
  return lstatSync(sowPath(root, rel), { throwIfNoEntry: false }) !== undefined;
}

/** Moves the folder `rel` of `.sow/` to `sub` of the runtime folder, or removes it (runtime data) where it cannot. */
export function moveToRuntime(root: string, rel: string, sub: string): void {
  const from = sowPath(root, rel);
  if (!realDir(from) || lstatSync(runtimePath(root, sub), { throwIfNoEntry: false }) !== undefined) {
    rmSync(from, { recursive: true, force: true });
    return;
  }
  ensureRuntimeDir(root);
  try {
    renameSync(from, runtimePath(root, sub));
  } catch {
    rmSync(from, { recursive: true, force: true });
  }
}

/** Removes `rel` (repository-relative, inside `.sow/`): a link is removed itself, never what it leads to. */
export function removePath(root: string, rel: string): void {
  rmSync(sowPath(root, rel), { recursive: true, force: true });
}

/** The names directly under `.sow/` (dotfiles too), or none when it does not exist. */
export const namesInSow = (root: string): string[] => quietly(() => readdirSync(sowArea(root).base)) ?? [];
