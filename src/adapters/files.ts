/**
 * Plain files of the repository that are not state (documents, logs), for the use cases: the one
 * place app/ reads them. State files go through state-files.ts; writes through transaction.ts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

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
