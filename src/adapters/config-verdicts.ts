/** What the configuration check found about each file, cached beside its stamp so it is parsed again only on change. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FileStamp } from './file-stamp.js';
import { isRecord } from '../domain/json.js';
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
    if (!isRecord(data)) return new Map();
    return new Map(Object.entries(data).filter((e): e is [string, Verdict] => isRecord(e[1])));
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
