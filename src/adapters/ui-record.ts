/** What a restarted `sow ui` needs to keep a page working: its port and each token's SHA-256 (never a token: a worker
 * can read git's folder), in `.git/sow/ui.json`. A record not of sow's shape is ignored. */
import { readFileSync } from 'node:fs';
import { writeFileAtomic } from './fs-atomic.js';
import { quietly } from './io-errors.js';
import { pickShape } from './record-shape.js';
import { ensureRuntimeDir, runtimePath } from './runtime.js';

export interface UiRecord {
  port: number;
  /** SHA-256 (hex) of the tokens of earlier runs on this port, newest first, with when each was made. */
  tokens: { sha256: string; at: string }[];
}

const FILE = 'ui.json';
const MAX_BYTES = 64 * 1024;
const isPort = (v: unknown) => Number.isInteger(v) && (v as number) > 0 && (v as number) <= 65535;
const isHash = (v: unknown) => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v);

export function readUiRecord(root: string): UiRecord | undefined {
  const text = quietly(() => readFileSync(runtimePath(root, FILE), 'utf8'));
  if (text === undefined || text.length > MAX_BYTES) return undefined;
  try {
    const r = pickShape<UiRecord>(JSON.parse(text), {
      port: isPort,
      tokens: (v) => Array.isArray(v) && v.every((t) => pickShape(t, { sha256: isHash, at: 'string' })),
    });
    return r && { port: r.port, tokens: r.tokens.map((t) => ({ sha256: t.sha256, at: t.at })) };
  } catch {
    return undefined;
  }
}

export function writeUiRecord(root: string, record: UiRecord): void {
  ensureRuntimeDir(root);
  writeFileAtomic(runtimePath(root, FILE), `${JSON.stringify(record)}\n`, { durable: false });
}
