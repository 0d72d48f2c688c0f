/**
 * What the check of the configuration files (app/config-health.ts) found about each file, kept in
 * this checkout's runtime folder beside the file's stamp, so that a file is parsed again only after
 * it changed. Only a cache: a record that cannot be read is no record, one that cannot be written
 * is not kept.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FileStamp } from './file-stamp.js';
import { writeFileAtomic } from './fs-atomic.js';
import { ensureRuntimeDir, runtimePath } from './runtime.js';

const FILE = 'config-check.json';

/** One judged file: the sow that judged it, the file's stamp then, and what was wrong (absent: nothing). */
export interface Verdict {
  version: string;
  stamp: FileStamp;
  problem?: { message: string; budget: boolean };
}

export function readVerdicts(root: string): Map<string, Verdict> {
  try {
    const data = JSON.parse(readFileSync(runtimePath(root, FILE), 'utf8')) as unknown;
    if (typeof data !== 'object' || data === null || Array.isArray(data)) return new Map();
    return new Map(
      Object.entries(data as Record<string, Verdict>).filter(([, v]) => typeof v === 'object' && v !== null),
    );
  } catch {
    return new Map();
  }
}

export function writeVerdicts(root: string, verdicts: ReadonlyMap<string, Verdict>): void {
  try {
    writeFileAtomic(join(ensureRuntimeDir(root), FILE), JSON.stringify(Object.fromEntries(verdicts)), {
      durable: false,
    });
  } catch {
    // only a cache: the next command judges again
  }
}
