/** A V8 code cache for sow's bundles (decision 0008): a damaged one would crash the process, so each file carries a
 * CRC-32 and its source's identity. Used only by src/bin.ts, so it imports nothing of sow's. */
import { isAscii } from 'node:buffer';
import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  type Stats,
} from 'node:fs';
import { homedir } from 'node:os';
import { basename, isAbsolute, join, win32 } from 'node:path';
import { Script } from 'node:vm';

const MAGIC = 0x53574343; // 'SWCC'
const FORMAT = 2;
const HEADER_BYTES = 24;
const MAX_SEEN = 64;
const PRUNE_AFTER_MS = 30 * 24 * 60 * 60 * 1000;
const KEEP_BUILDS = 4;

type Env = Readonly<Record<string, string | undefined>>;
export type Crc32 = (data: Uint8Array) => number;
export type ModuleWrapper = (
  exports: object,
  require: NodeJS.Require,
  module: object,
  file: string,
  dir: string,
) => void;

/** $XDG_CACHE_HOME/sow, else ~/.cache/sow (macOS too, like the config file), %LOCALAPPDATA%\sow\cache on Windows. */
export function cacheDir(env: Env = process.env, platform: string = process.platform): string {
  if (platform === 'win32') {
    const local = env['LOCALAPPDATA'] || win32.join(env['USERPROFILE'] || homedir(), 'AppData', 'Local');
    return win32.join(local, 'sow', 'cache');
  }
  const xdg = env['XDG_CACHE_HOME'];
  return join(xdg && isAbsolute(xdg) ? xdg : join(env['HOME'] || homedir(), '.cache'), 'sow');
}

/** The command words of argv (`task list`): a cache is written again when it has not seen them. */
export function commandKey(argv: readonly string[]): string {
  const words: string[] = [];
  for (const arg of argv) {
    if (arg.startsWith('-')) continue;
    if (!/^[a-z][a-z-]{0,23}$/.test(arg)) break;
    words.push(arg);
    if (words.length === 2) break;
  }
  return words.join(' ');
}

/** `f()`, or undefined when it throws. */
function quietly<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}

/** Which bytes a file holds, from its stat (FNV-1a): cheaper than hashing the bundle at every start. */
export function sourceIdentity(stat: Pick<Stats, 'dev' | 'ino' | 'size' | 'mtimeMs' | 'ctimeMs'>): number {
  const text = `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** Layout (u32 LE): magic, format, source identity, CRC-32 of the data, data length, seen length; seen; data. */
function readCache(path: string, sourceId: number, crc32: Crc32): 'missing' | 'damaged' | 'stale' | [string[], Buffer] {
  const bytes = quietly(() => readFileSync(path));
  if (!bytes) return 'missing';
  if (bytes.length < HEADER_BYTES) return 'damaged';
  const u32 = (at: number) => bytes.readUInt32LE(at);
  const seenEnd = HEADER_BYTES + u32(20);
  if (u32(0) !== MAGIC || u32(4) !== FORMAT || bytes.length !== seenEnd + u32(16)) return 'damaged';
  if (u32(8) !== sourceId) return 'stale';
  const data = bytes.subarray(seenEnd);
  if (crc32(data) !== u32(12)) return 'damaged';
  const seen: unknown = quietly(() => JSON.parse(bytes.toString('utf8', HEADER_BYTES, seenEnd)));
  return Array.isArray(seen) && seen.every((k) => typeof k === 'string') ? [seen, data] : 'damaged';
}

function writeCache(dir: string, path: string, sourceId: number, seen: readonly string[], data: Buffer, crc32: Crc32) {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const list = Buffer.from(JSON.stringify(seen), 'utf8');
  const header = Buffer.alloc(HEADER_BYTES);
  [MAGIC, FORMAT, sourceId, crc32(data), data.length, list.length].forEach((n, i) => header.writeUInt32LE(n, i * 4));
  // Renamed into place, so a reader sees the old file or the new one.
  const temp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, Buffer.concat([header, list, data]), { mode: 0o600 });
    renameSync(temp, path);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
  // Upgrades and rebuilds leave caches behind (the folder holds nothing else); another sow may be pruning too.
  const files = readdirSync(dir).flatMap((name) => {
    const st = quietly(() => statSync(join(dir, name)));
    return st ? [{ name, mtimeMs: st.mtimeMs }] : [];
  });
  for (const name of staleCaches(files, basename(path), Date.now())) quietly(() => rmSync(join(dir, name)));
}

/** A build's caches share a name up to the group: `<build>-<node version>-<arch>-<group>[.<part>].bin`. */
const buildOf = (name: string): string | undefined =>
  /^([0-9a-f]{8}-v[0-9.]+-[a-z0-9_]+)-[a-z][a-z-]*(?:\.[a-z][a-z-]*)?\.bin$/.exec(name)?.[1];

/** The files to remove once `current` is written: builds beyond the KEEP_BUILDS newest (a rebuild makes ~5 MB), and
 * anything else older than PRUNE_AFTER_MS; the running build's always stay. */
export function staleCaches(files: readonly { name: string; mtimeMs: number }[], current: string, now: number) {
  const newest = new Map<string, number>();
  for (const f of files) {
    const build = buildOf(f.name);
    if (build !== undefined) newest.set(build, Math.max(newest.get(build) ?? 0, f.mtimeMs));
  }
  const mine = buildOf(current);
  const others = [...newest].filter(([b]) => b !== mine).sort((a, b) => b[1] - a[1]);
  const kept = new Set([mine, ...others.slice(0, KEEP_BUILDS - 1).map(([b]) => b)]);
  return files
    .filter((f) => {
      const build = buildOf(f.name);
      if (f.name === current || (build !== undefined && build === mine)) return false;
      return now - f.mtimeMs > PRUNE_AFTER_MS || (build !== undefined && !kept.has(build));
    })
    .map((f) => f.name);
}

/** Compiles a CommonJS file with its cache, written at exit when missing, stale or new to this command; `part` (an SDK,
 * a read pack) is a file of the group's other than its own. */
export function compileWithCache(file: string, argv: readonly string[], crc32: Crc32, build: number, part?: string) {
  // The stat of the descriptor the bytes are read from, so the identity is of these bytes.
  const fd = openSync(file, 'r');
  let bytes: Buffer;
  let sourceId: number;
  try {
    sourceId = sourceIdentity(fstatSync(fd));
    bytes = readFileSync(fd);
  } finally {
    closeSync(fd);
  }
  // The bundle is ASCII (test/e2e/startup.test.ts): Latin-1 skips UTF-8 decoding, 1.4 M instructions.
  const source = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  const key = commandKey(argv);
  const dir = join(cacheDir(), 'code-cache');
  const group = key.split(' ')[0] || 'sow';
  const hex = build.toString(16).padStart(8, '0');
  const path = join(
    dir,
    `${hex}-${process.version}-${process.arch}-${group}${part === undefined ? '' : `.${part}`}.bin`,
  );
  const debug = (message: string) => {
    if (process.env['SOW_DEBUG']) process.stderr.write(`sow: compile cache: ${message} ${path} (${basename(file)})\n`);
  };
  const cache = readCache(path, sourceId, crc32);
  // Node's CommonJS wrapper, so the bundle runs as require() would run it.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    ...(typeof cache === 'object' ? { cachedData: cache[1] } : {}),
  });
  // V8 refuses data made by another V8 version or with other flags.
  const seen = typeof cache === 'object' && !script.cachedDataRejected ? cache[0] : undefined;
  debug(typeof cache === 'string' ? cache : seen ? 'hit' : 'rejected by V8');
  // Written at exit, when it holds what this command compiled; not after a usage error (a mistyped command makes no
  // cache), an internal error or a signal.
  if (!seen || (!seen.includes(key) && seen.length < MAX_SEEN)) {
    process.once('exit', (code) => {
      if (code === 2 || code >= 64) return;
      try {
        writeCache(dir, path, sourceId, [...(seen ?? []), key], script.createCachedData(), crc32);
        debug('wrote');
      } catch (err) {
        debug(`not written (${err instanceof Error ? err.message : String(err)}):`);
      }
    });
  }
  return script.runInThisContext() as ModuleWrapper;
}
