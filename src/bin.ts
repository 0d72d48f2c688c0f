/**
 * The `sow` executable: runs the bundled CLI — the pack of the command's group when the build made
 * one (dist/pack-<name>.cjs: the CLI with that group's commands alone), else dist/core.cjs — and
 * the SDKs bundled apart when the CLI requires them, compiled through the code cache of
 * src/adapters/compile-cache.ts. It must never fail a command: without a native CRC-32
 * (Node < 20.15), with source maps on (only Node's own loader applies them, and only core.cjs has
 * a map), with SOW_NO_COMPILE_CACHE set, or on any trouble with the cache, each file is loaded the
 * ordinary way; without its pack (a copy of the executable beside core.cjs alone), core.cjs runs.
 */
import { existsSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { compileWithCache, sourceIdentity, type Crc32, type ModuleWrapper } from './adapters/compile-cache.js';
import { nodeBinding } from './adapters/node-binding.js';

declare const SOW_VERSION: string;
/** The first word of a command line → the pack that holds its group (scripts/build.mjs). */
declare const SOW_PACKS: Readonly<Record<string, string>>;

const CORE = join(__dirname, 'core.cjs');
// This file's own require: core.cjs lies beside it, so it resolves what core.cjs would (node:module's
// createRequire would load the ES module loader for nothing).
const requireCore = require;

/**
 * Node's native CRC-32, which checks the cache's data. node:zlib's `crc32` calls the zlib binding;
 * loading node:zlib itself loads node:stream and some twenty modules behind it (8 M instructions,
 * a sixth of what start-up costs), so the binding is asked directly (adapters/node-binding.ts):
 * when it is not to be asked, or does not give the CRC-32 of a known text, node:zlib's is used.
 */
function nativeCrc32(): Crc32 | undefined {
  const crc32 = nodeBinding<{ crc32: (data: Uint8Array, value: number) => number }>('zlib')?.crc32;
  if (typeof crc32 === 'function' && crc32(Buffer.from('sow'), 0) === 0x85f29cec) return (data) => crc32(data, 0);
  return (require('node:zlib') as { crc32?: Crc32 }).crc32;
}

// Worked out once, by the first file compiled (the CLI), for the SDKs as well: the CRC-32, and the
// build the caches belong to (this executable's stat: a build or an install writes a new one).
let crc32Found: { crc32: Crc32 | undefined; build: number } | undefined;

/**
 * `file` compiled through its cache (an SDK's beside the group's, named after it); undefined when
 * the cache cannot be used (then Node's require), 'absent' when there is no such file.
 */
function compiled(file: string, sdk?: string): ModuleWrapper | undefined | 'absent' {
  if (process.sourceMapsEnabled || process.env['SOW_NO_COMPILE_CACHE']) return undefined;
  try {
    crc32Found ??= { crc32: nativeCrc32(), build: sourceIdentity(statSync(__filename)) };
    const { crc32, build } = crc32Found;
    if (!crc32) return undefined;
    return compileWithCache(file, process.argv.slice(2), crc32, build, sdk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' && file !== CORE) return 'absent';
    if (process.env['SOW_DEBUG'])
      process.stderr.write(`sow: compile cache: not used: ${err instanceof Error ? err.message : String(err)}\n`);
    return undefined;
  }
}

/** Runs a CommonJS file compiled by `compiled` as Node's loader would: its module, its exports. */
function runModule(run: ModuleWrapper, file: string, require: NodeJS.Require): unknown {
  const module = { exports: {} };
  run.call(module.exports, module.exports, require, module, file, __dirname);
  return module.exports;
}

/**
 * The SDKs bundled apart (dist/mcp-sdk.cjs for `sow mcp`, dist/acp-sdk.cjs for workers over ACP),
 * which core.cjs requires when it needs them: compiled through a cache of their own as well. The
 * MCP SDK's 0.6 MB took 15 ms to compile at every start of `sow mcp`. Each is run once and kept,
 * as require would.
 */
const SDKS = new Set(['./mcp-sdk.cjs', './acp-sdk.cjs']);
const sdks = new Map<string, unknown>();
const requireForCore = ((id: string) => {
  if (!SDKS.has(id)) return requireCore(id);
  if (!sdks.has(id)) {
    const file = join(__dirname, id.slice(2));
    const run = compiled(file, id.slice(2, -'.cjs'.length));
    sdks.set(id, run && run !== 'absent' ? runModule(run, file, requireCore) : requireCore(id));
  }
  return sdks.get(id);
}) as NodeJS.Require;

/**
 * The pack of the command's group: the first word that is not an option names it, as it names the
 * group main.ts builds (sow's own options take no values). None with source maps on: only core.cjs
 * has a map.
 */
function packFor(words: readonly string[]): string | undefined {
  if (typeof SOW_PACKS !== 'object' || process.sourceMapsEnabled) return undefined;
  const word = words.find((w) => !w.startsWith('-'));
  return word !== undefined && Object.hasOwn(SOW_PACKS, word) ? join(__dirname, SOW_PACKS[word]!) : undefined;
}

function runCli(): void {
  const pack = packFor(process.argv.slice(2));
  for (const file of pack ? [pack, CORE] : [CORE]) {
    const run = compiled(file);
    if (run === 'absent' || (run === undefined && file !== CORE && !existsSync(file))) continue;
    if (run) runModule(run, file, requireForCore);
    else requireCore(file);
    return;
  }
}

/**
 * `sow --version` (or `-V`, with `--json` or `--no-color` beside it) is answered here, without
 * loading the CLI: tools ask it to find out which sow they have, and loading the CLI cost it five
 * times what printing takes. The words and the output are the CLI's (main.ts); any other word on
 * the line, and the CLI answers as before.
 */
function versionAsked(words: readonly string[]): boolean {
  return (
    words.some((w) => w === '--version' || w === '-V') &&
    words.every((w) => w === '--version' || w === '-V' || w === '--json' || w === '--no-color')
  );
}

if (typeof SOW_VERSION === 'string' && versionAsked(process.argv.slice(2))) {
  const text = process.argv.includes('--json')
    ? `${JSON.stringify({ ok: true, data: { version: SOW_VERSION } })}\n`
    : `${SOW_VERSION}\n`;
  try {
    writeSync(1, text);
  } catch {
    // stdout closed early (`sow --version | true`): the reader's choice, as in the CLI.
  }
} else runCli();
