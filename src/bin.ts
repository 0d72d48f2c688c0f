/**
 * The `sow` executable: runs the bundled CLI (dist/core.cjs), and the SDKs bundled apart when core
 * requires them, compiled through the code cache of src/adapters/compile-cache.ts. It must never
 * fail a command: without a native CRC-32 (Node < 20.15), with source maps on (only Node's own
 * loader applies them), with SOW_NO_COMPILE_CACHE set, or on any trouble with the cache, each file
 * is loaded the ordinary way.
 */
import { writeSync } from 'node:fs';
import { join } from 'node:path';
import { compileWithCache, type Crc32, type ModuleWrapper } from './adapters/compile-cache.js';
import { nodeBinding } from './adapters/node-binding.js';

declare const SOW_VERSION: string;

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

// Worked out once, by the first file compiled (core.cjs), for the SDKs as well.
let crc32Found: { crc32: Crc32 | undefined } | undefined;

/** `file` compiled through its cache, or undefined when the cache cannot be used (then Node's require). */
function compiled(file: string): ModuleWrapper | undefined {
  if (process.sourceMapsEnabled || process.env['SOW_NO_COMPILE_CACHE']) return undefined;
  crc32Found ??= { crc32: nativeCrc32() };
  const crc32 = crc32Found.crc32;
  if (!crc32) return undefined;
  try {
    return compileWithCache(file, process.argv.slice(2), crc32);
  } catch (err) {
    if (process.env['SOW_DEBUG']) process.stderr.write(`sow: compile cache: not used: ${err instanceof Error ? err.message : String(err)}\n`);
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
    const run = compiled(file);
    sdks.set(id, run ? runModule(run, file, requireCore) : requireCore(id));
  }
  return sdks.get(id);
}) as NodeJS.Require;

function runCore(): void {
  const run = compiled(CORE);
  if (run) runModule(run, CORE, requireForCore);
  else requireCore(CORE);
}

/**
 * `sow --version` (or `-V`, with `--json` or `--no-color` beside it) is answered here, without
 * loading the CLI: tools ask it to find out which sow they have, and loading the CLI cost it five
 * times what printing takes. The words and the output are the CLI's (main.ts); any other word on
 * the line, and the CLI answers as before.
 */
function versionAsked(words: readonly string[]): boolean {
  return words.some((w) => w === '--version' || w === '-V') && words.every((w) => w === '--version' || w === '-V' || w === '--json' || w === '--no-color');
}

if (typeof SOW_VERSION === 'string' && versionAsked(process.argv.slice(2))) {
  const text = process.argv.includes('--json') ? `${JSON.stringify({ ok: true, data: { version: SOW_VERSION } })}\n` : `${SOW_VERSION}\n`;
  try {
    writeSync(1, text);
  } catch {
    // stdout closed early (`sow --version | true`): the reader's choice, as in the CLI.
  }
} else runCore();
