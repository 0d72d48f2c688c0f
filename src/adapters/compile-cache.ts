/**
 * A V8 code cache for sow's bundles, kept in the user's cache folder.
 *
 * Compiling the CLI's JavaScript is most of what a sow command costs above bare `node` start-up
 * (DESIGN §7). Node 20 caches nothing between runs, so sow keeps V8's own code cache, as Node 22's
 * module.enableCompileCache() would. The cache is trusted only when it is intact:
 * V8 does not verify a code cache and a damaged one crashes the process, so each file carries a
 * CRC-32 of its data and the identity (the stat) of the source it was made from; anything that does
 * not match is ignored and rewritten. See docs/decisions/0008-compile-cache.md, 0044 and 0070.
 *
 * Used only by src/bin.ts, so it imports nothing of sow's.
 */
import { isAscii } from 'node:buffer';
import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { basename, isAbsolute, join, win32 } from 'node:path';
import { Script } from 'node:vm';

const MAGIC = 0x53574343; // 'SWCC'
const FORMAT = 2;
const HEADER_BYTES = 24;
const MAX_SEEN = 64;
const PRUNE_AFTER_MS = 30 * 24 * 60 * 60 * 1000;
/** How many builds of sow (bundle and Node version) keep their caches at once. */
const KEEP_BUILDS = 4;

type Env = Readonly<Record<string, string | undefined>>;
export type Crc32 = (data: Uint8Array) => number;
/** What compiling a CommonJS file yields: the function that runs it, given its module scope. */
export type ModuleWrapper = (
  exports: object,
  require: NodeJS.Require,
  module: object,
  filename: string,
  dirname: string,
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

/** The command words of argv (`task list`, `advance`), which decide when the cache has learnt something new. */
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

type CacheFile = { status: 'missing' | 'damaged' | 'stale' } | { status: 'intact'; seen: string[]; data: Buffer };

/**
 * Which bytes a source file holds, from its stat: device, inode, size, modification and change
 * times (FNV-1a over them). Any write to the file changes its ctime, and a new file (an upgrade, a
 * build, which swaps dist/ whole) is a new inode. Hashing the 0.7 MB bundle at every start cost
 * about 3 M instructions.
 */
export function sourceIdentity(stat: {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}): number {
  const text = `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/**
 * Layout: magic, format, identity of the source, CRC-32 of the V8 data, data length, seen-list
 * length (u32 LE each), then the seen list (the command keys, as JSON), then the V8 data.
 */
function readCache(path: string, sourceId: number, crc32: Crc32): CacheFile {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    return { status: 'missing' };
  }
  if (bytes.length < HEADER_BYTES) return { status: 'damaged' };
  const dataLength = bytes.readUInt32LE(16);
  const seenLength = bytes.readUInt32LE(20);
  if (
    bytes.readUInt32LE(0) !== MAGIC ||
    bytes.readUInt32LE(4) !== FORMAT ||
    bytes.length !== HEADER_BYTES + seenLength + dataLength
  )
    return { status: 'damaged' };
  // Made for other bytes (the file was rebuilt or edited in place, or it is another install's).
  if (bytes.readUInt32LE(8) !== sourceId) return { status: 'stale' };
  const data = bytes.subarray(HEADER_BYTES + seenLength);
  if (crc32(data) !== bytes.readUInt32LE(12)) return { status: 'damaged' };
  let seen: unknown;
  try {
    seen = JSON.parse(bytes.toString('utf8', HEADER_BYTES, HEADER_BYTES + seenLength));
  } catch {
    return { status: 'damaged' };
  }
  if (!Array.isArray(seen) || !seen.every((k) => typeof k === 'string')) return { status: 'damaged' };
  return { status: 'intact', seen, data };
}

function writeCache(
  dir: string,
  path: string,
  sourceId: number,
  seen: readonly string[],
  data: Buffer,
  crc32: Crc32,
): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const list = Buffer.from(JSON.stringify(seen), 'utf8');
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt32LE(MAGIC, 0);
  header.writeUInt32LE(FORMAT, 4);
  header.writeUInt32LE(sourceId, 8);
  header.writeUInt32LE(crc32(data), 12);
  header.writeUInt32LE(data.length, 16);
  header.writeUInt32LE(list.length, 20);
  // Written whole under a temporary name and renamed, so a reader sees the old file or the new one.
  const temp = `${path}.${process.pid}.tmp`;
  try {
    const fd = openSync(temp, 'w', 0o600);
    try {
      for (const part of [header, list, data]) writeSync(fd, part);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
  // Caches of other sow builds and Node versions are left behind by upgrades and rebuilds; drop
  // the stale ones (the folder holds nothing else).
  const files: { name: string; mtimeMs: number }[] = [];
  for (const name of readdirSync(dir)) {
    try {
      files.push({ name, mtimeMs: statSync(join(dir, name)).mtimeMs });
    } catch {
      // another sow is pruning too
    }
  }
  for (const name of staleCaches(files, basename(path), Date.now())) {
    try {
      unlinkSync(join(dir, name));
    } catch {
      // another sow is pruning too
    }
  }
}

/**
 * A build's caches share a name up to the group: `<build>-<node version>-<arch>-` (the build: the
 * executable's identity; see compileWithCache). After the group, a file other than the CLI (an
 * SDK bundled apart) adds its name: `…-mcp.mcp-sdk.bin`.
 */
const buildOf = (name: string): string | undefined =>
  /^([0-9a-f]{8}-v[0-9.]+-[a-z0-9_]+)-[a-z][a-z-]*(?:\.[a-z][a-z-]*)?\.bin$/.exec(name)?.[1];

/**
 * The files of the cache folder to remove once `current` is written: those of any build but the
 * KEEP_BUILDS written to most recently (this one among them) — a machine that rebuilds sow often
 * (a developer's, a CI runner's) made a new set at every build, about 5 MB each — and anything
 * else older than PRUNE_AFTER_MS (a leftover temporary file, a build no longer used). The running
 * build's own caches stay, however old. Two installs used side by side (a global sow and a
 * project's own, two Node versions) keep theirs.
 */
export function staleCaches(
  files: readonly { name: string; mtimeMs: number }[],
  current: string,
  now: number,
): string[] {
  const newest = new Map<string, number>();
  for (const f of files) {
    const build = buildOf(f.name);
    if (build !== undefined) newest.set(build, Math.max(newest.get(build) ?? 0, f.mtimeMs));
  }
  const mine = buildOf(current);
  const kept = new Set([
    ...(mine !== undefined ? [mine] : []),
    ...[...newest]
      .filter(([b]) => b !== mine)
      .sort((a, b) => b[1] - a[1])
      .slice(0, KEEP_BUILDS - 1)
      .map(([b]) => b),
  ]);
  return files
    .filter((f) => {
      const build = buildOf(f.name);
      if (f.name === current || (build !== undefined && build === mine)) return false;
      return now - f.mtimeMs > PRUNE_AFTER_MS || (build !== undefined && !kept.has(build));
    })
    .map((f) => f.name);
}

/**
 * Compiles a CommonJS file with the code cache kept for it in the cache folder, and arranges for
 * the cache to be written at exit when it was missing, stale or has not seen this command yet.
 * There is one cache per command group (`task`, `phase` …): a command deserializes only what its
 * own group compiled, which measured 7 M instructions and ~70 page faults less for `task list`
 * than one cache for every command.
 * `build` names the build the file is part of (the executable's identity: the CLI is one of
 * several bundles, core.cjs and the packs, so the caches of one build are known as one, and
 * pruned as one); the cache itself checks the identity of the very file it was made from. The
 * CLI (core.cjs or the group's pack) has the group's cache; another file (`sdk`, an SDK bundled
 * apart) one beside it, named after it.
 * Returns the module wrapper to call; throws when anything about the cache goes wrong, before
 * any of the file's code has run (ENOENT: there is no such file).
 */
export function compileWithCache(
  file: string,
  argv: readonly string[],
  crc32: Crc32,
  build: number,
  sdk?: string,
  env: Env = process.env,
): ModuleWrapper {
  // The stat of the very file descriptor the bytes are read from, so the identity is of these bytes.
  const fd = openSync(file, 'r');
  let bytes: Buffer;
  let sourceId: number;
  try {
    sourceId = sourceIdentity(fstatSync(fd));
    bytes = readFileSync(fd);
  } finally {
    closeSync(fd);
  }
  // The bundle is ASCII (test/e2e/startup.test.ts): read as Latin-1, its bytes are the same string
  // without UTF-8 decoding, 1.4 M instructions less at every start. Anything else is UTF-8.
  const source = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  const key = commandKey(argv);
  const dir = join(cacheDir(env), 'code-cache');
  const group = key.split(' ')[0] || 'sow';
  const hex = build.toString(16).padStart(8, '0');
  const path = join(dir, `${hex}-${process.version}-${process.arch}-${group}${sdk === undefined ? '' : `.${sdk}`}.bin`);
  const debug = (message: string) => {
    if (env['SOW_DEBUG']) process.stderr.write(`sow: compile cache: ${message} ${path} (${basename(file)})\n`);
  };
  const cache = readCache(path, sourceId, crc32);
  // The same wrapper Node's CommonJS loader uses, so the bundle runs exactly as require() would run it.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    ...(cache.status === 'intact' ? { cachedData: cache.data } : {}),
  });
  // V8 refuses data made by another V8 version or with other flags.
  const seen = cache.status === 'intact' && !script.cachedDataRejected ? cache.seen : undefined;
  debug(seen ? 'hit' : cache.status === 'intact' ? 'rejected by V8' : cache.status);
  // Write the cache at exit, when it holds the functions this command compiled: the first time,
  // and each time a command it has not seen runs, so it comes to cover the commands in use. Not
  // after a usage error (exit 2), so a mistyped command never makes a cache of its own, nor after
  // an internal error or a signal.
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
