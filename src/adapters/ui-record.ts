/** What a restarted `sow ui` needs to keep a page working: its port and each token's SHA-256 (never a token: a worker
 * can read git's folder), in `.git/sow/ui.json`. A record not of sow's shape is ignored. */
import { readFileSync } from 'node:fs';
import * as v from 'valibot';
import { writeFileAtomic } from './fs-atomic.js';
import { quietly } from './io-errors.js';
import { ensureRuntimeDir, runtimePath } from './runtime.js';

const RECORD = v.object({
  port: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(65535)),
  /** SHA-256 (hex) of the tokens of earlier runs on this port, newest first, with when each was made. */
  tokens: v.array(v.object({ sha256: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)), at: v.string() })),
});
type UiRecord = v.InferOutput<typeof RECORD>;

const FILE = 'ui.json';
const MAX_BYTES = 64 * 1024;

export function readUiRecord(root: string): UiRecord | undefined {
  const text = quietly(() => readFileSync(runtimePath(root, FILE), 'utf8'));
  if (text === undefined || text.length > MAX_BYTES) return undefined;
  return quietly(() => v.parse(RECORD, JSON.parse(text)));
}

export function writeUiRecord(root: string, record: UiRecord): void {
  ensureRuntimeDir(root);
  writeFileAtomic(runtimePath(root, FILE), `${JSON.stringify(record)}\n`, { durable: false });
}
