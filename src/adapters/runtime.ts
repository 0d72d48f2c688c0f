/**
 * sow's runtime folder, `.sow/.runtime/`: the lock, the journal, temp files, the task index and
 * the events of workers. None of it is part of the project's history. The folder carries its own
 * `.gitignore` (`*`), so it stays out of git in every state a repository can be in — also after a
 * checkout of a branch whose `.sow/.gitignore` is missing or older.
 *
 * sow empties parts of it (temp files and trash of killed writers), so every part must be a real
 * folder: a link there — committed with `git add -f`, say — is refused, never followed or emptied.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { existingRealFolder, realFolder } from './confine.js';

const RUNTIME_DIR = '.sow/.runtime';
const CODE = 'RUNTIME_FOLDER_INVALID';

export const runtimePath = (root: string, ...parts: string[]): string => join(root, RUNTIME_DIR, ...parts);

/**
 * Creates `.sow/.runtime/` (and `sub`, e.g. `tmp` or `agent-outputs/010`) as real folders, with
 * the ignore-everything `.gitignore`, and returns the folder's path. Throws NotARealFolderError
 * (exit 4) when any part of the way is a link or a file.
 */
export function ensureRuntimeDir(root: string, sub?: string): string {
  const area = { base: root, name: 'the repository' };
  const dir = realFolder(area, RUNTIME_DIR, CODE);
  try {
    // O_EXCL: never follows a link planted as the .gitignore.
    writeFileSync(join(dir, '.gitignore'), '# sow runtime files: never part of the history\n*\n', { flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  if (sub === undefined) return dir;
  return realFolder(area, `${RUNTIME_DIR}/${sub.split('\\').join('/')}`, CODE);
}

/** `.sow/.runtime/<sub>` if it is a real folder now (checked right before sow empties it), else undefined. */
export function runtimeFolder(root: string, sub: string): string | undefined {
  return existingRealFolder({ base: root, name: 'the repository' }, `${RUNTIME_DIR}/${sub}`, CODE);
}
