/** sow's runtime folder in `.git/sow/` (decision 0065), where no commit or link can put anything; every part is a real
 * folder. From older work-tree folders only data moves here, never what gives orders (lock, journal, pids). */
import { lstatSync, renameSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { existingRealFolder, isRealFolder, pathWithin, realFolder, type Area } from './confine.js';
import { quietly } from './io-errors.js';
import { ownGitDir } from './repo.js';

const NAME = 'sow';
const CODE = 'RUNTIME_FOLDER_INVALID';

/** The folders of the work tree where an older sow kept its runtime files and backups. */
const LEGACY_RUNTIME = ['.sow/.runtime', '.sow/.backup'] as const;

/** Those of them in the work tree now (whatever they are: folders, links, files). sow reads none of them. */
export function legacyRuntimeFolders(root: string): string[] {
  return LEGACY_RUNTIME.filter((rel) => lstatSync(join(root, rel), { throwIfNoEntry: false }) !== undefined);
}

function gitArea(root: string): Area {
  const base = ownGitDir(root);
  return {
    base,
    name: "git's folder",
    // Worked out only for a message.
    get shown() {
      const rel = pathWithin(root, base);
      return `${rel === undefined ? base : rel.split(sep).join('/')}/`;
    },
  };
}

/** The runtime folder of the checkout at `root` (it may not exist yet). */
export const runtimeBase = (root: string): string => join(ownGitDir(root), NAME);

export const runtimePath = (root: string, ...parts: string[]): string => join(runtimeBase(root), ...parts);

/** A runtime path as messages show it: from the checkout's root where it lies inside, else whole. */
export function shownRuntime(root: string, ...parts: string[]): string {
  const abs = runtimePath(root, ...parts);
  return pathWithin(root, abs)?.split(sep).join('/') || abs;
}

/** Creates the runtime folder (and `sub`) as real folders and returns its path; NotARealFolderError for a link. */
export function ensureRuntimeDir(root: string, sub?: string): string {
  const area = gitArea(root);
  let dir = existingRealFolder(area, NAME, CODE);
  if (dir === undefined) {
    dir = realFolder(area, NAME, CODE);
    adoptLegacy(root, dir);
  }
  if (sub === undefined) return dir;
  return realFolder(area, `${NAME}/${sub.split('\\').join('/')}`, CODE);
}

/** `<runtime>/<sub>` if it is a real folder now (checked right before sow empties it), else undefined. */
export function runtimeFolder(root: string, sub: string): string | undefined {
  return existingRealFolder(gitArea(root), `${NAME}/${sub}`, CODE);
}

/** Moves an older sow's workers' events and backups from the work tree here, each only if a real folder. */
function adoptLegacy(root: string, dir: string): void {
  const moves: [string, string][] = [
    [join(root, '.sow', '.runtime', 'agent-outputs'), join(dir, 'agent-outputs')],
    [join(root, '.sow', '.backup'), join(dir, 'backup')],
  ];
  if (!isRealFolder(join(root, '.sow'))) return;
  for (const [from, to] of moves) {
    if (!isRealFolder(dirname(from)) || !isRealFolder(from)) continue;
    // On another file system, or made meanwhile: left where it is (doctor names it).
    quietly(() => renameSync(from, to));
  }
}
