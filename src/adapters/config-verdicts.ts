/** What the configuration check found about each file, cached beside its stamp so it is parsed again only on change. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FileStamp } from './file-stamp.js';
import { isRecord } from '../domain/json.js';
import { writeFileAtomic } from './fs-atomic.js';
import { quietly } from './io-errors.js';
import { ensureRuntimeDir, runtimePath } from './runtime.js';

const FILE = 'config-check.json';

/** One judged file: the sow that judged it, the file's stamp then, and what was wrong (absent: nothing). */
export interface Verdict {
  version: string;
  stamp: FileStamp;
  problem?: { message: string; budget: boolean };
}

export function readVerdicts(root: string): Map<string, Verdict> {
  const data: unknown = quietly(() => JSON.parse(readFileSync(runtimePath(root, FILE), 'utf8')));
  if (!isRecord(data)) return new Map();
  return new Map(Object.entries(data).filter((e): e is [string, Verdict] => isRecord(e[1])));
}

/** Only a cache: when it cannot be written, the next command judges again. */
export function writeVerdicts(root: string, verdicts: ReadonlyMap<string, Verdict>): void {
  const text = JSON.stringify(Object.fromEntries(verdicts));
  quietly(() => writeFileAtomic(join(ensureRuntimeDir(root), FILE), text, { durable: false }));
}
