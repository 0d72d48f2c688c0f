/** Plain files of the repository that are not state (documents, logs): the one place app/ reads them, each path
 * confined when read, whenever it was recorded. */
import { existsSync, readdirSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { confine, readConfined, repoArea, resolveExisting, tailConfined, type ReadLimits } from './confine.js';
import { ignoring, MISSING } from './io-errors.js';

/** An absolute path with its symlinks resolved, also for a file not there yet (its nearest folder resolved). */
export const realPath = (path: string): string => (isAbsolute(path) ? resolveExisting(path) : path);

/** Whether anything is at an absolute path (a link counts by what it points to). */
export { existsSync as pathExists };

/** Whether the repository has a file (or folder) at `rel`; a path leading out of it is refused. */
export function fileExists(root: string, rel: string): boolean {
  return existsSync(confine(repoArea(root), rel));
}

/** 8 MiB: the most sow reads of one document; one a thousand times a long plan is not a document. */
export const DOCUMENT_LIMITS: ReadLimits = {
  max: 8 * 1024 * 1024,
  what: 'documents',
  why: 'a document of a project is at most a few hundred KB',
};

/** The text of `rel`, or undefined when there is no such file; confined to the repository and size-limited. */
export function readFileIfExists(root: string, rel: string, limits: ReadLimits = DOCUMENT_LIMITS): string | undefined {
  return readConfined(repoArea(root), rel, limits);
}

/** The size of the file `rel` and its last `n` bytes, or undefined when it does not exist; never reads the rest. */
export function fileTail(root: string, rel: string, n: number): { size: number; tail: string } | undefined {
  return tailConfined(repoArea(root), rel, n);
}

/** Every file under `dir` (relative to `root`), as paths relative to `dir`, sorted; links are not followed. */
export function listFiles(root: string, dir: string): string[] {
  const base = confine(repoArea(root), dir);
  const out: string[] = [];
  const walk = (rel: string) => {
    const entries = ignoring(MISSING, () => readdirSync(rel ? join(base, rel) : base, { withFileTypes: true }));
    for (const e of entries ?? []) {
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(child);
      else if (e.isFile()) out.push(child);
    }
  };
  walk('');
  return out.sort();
}
