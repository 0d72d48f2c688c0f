/**
 * Plain files of the repository that are not state (documents, logs), for the use cases: the one
 * place app/ reads them. State files go through state-files.ts; writes through transaction.ts.
 */
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';

/**
 * An absolute path with its symlinks resolved, also for a file that does not exist yet (its
 * nearest existing folder is resolved): `/tmp/link/src/a.ts` → `/private/tmp/repo/src/a.ts`.
 * Other paths are returned as they are.
 */
export function realPath(path: string): string {
  if (!isAbsolute(path)) return path;
  try {
    return realpathSync.native(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : join(realPath(parent), basename(path));
  }
}

/** Whether anything is at the absolute path `abs` (a link counts by what it points to). */
export function pathExists(abs: string): boolean {
  return existsSync(abs);
}

export function fileExists(root: string, rel: string): boolean {
  return existsSync(join(root, rel));
}

/** The text of `rel`, or undefined when there is no such file. */
export function readFileIfExists(root: string, rel: string): string | undefined {
  try {
    return readFileSync(join(root, rel), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Every file under `dir` (relative to `root`), as paths relative to `dir`, sorted; links are not followed. */
export function listFiles(root: string, dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    let entries;
    try {
      entries = readdirSync(join(root, dir, rel), { withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return;
      throw err;
    }
    for (const e of entries) {
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(child);
      else if (e.isFile()) out.push(child);
    }
  };
  walk('');
  return out.sort();
}
