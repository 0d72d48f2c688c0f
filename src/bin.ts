/**
 * The `sow` executable: runs the bundled CLI (dist/core.cjs), compiled through the code cache of
 * src/adapters/compile-cache.ts. It must never fail a command: without zlib.crc32 (Node < 20.15),
 * with source maps on (only Node's own loader applies them), with SOW_NO_COMPILE_CACHE set, or on
 * any trouble with the cache, the CLI is loaded the ordinary way.
 */
import { join } from 'node:path';
import * as zlib from 'node:zlib';
import { compileWithCache, type Crc32, type ModuleWrapper } from './adapters/compile-cache.js';

const CORE = join(__dirname, 'core.cjs');
// This file's own require: core.cjs lies beside it, so it resolves what core.cjs would (node:module's
// createRequire would load the ES module loader for nothing).
const requireCore = require;

function compiled(): ModuleWrapper | undefined {
  const crc32 = (zlib as { crc32?: Crc32 }).crc32;
  if (!crc32 || process.sourceMapsEnabled || process.env['SOW_NO_COMPILE_CACHE']) return undefined;
  try {
    return compileWithCache(CORE, process.argv.slice(2), crc32);
  } catch (err) {
    if (process.env['SOW_DEBUG']) process.stderr.write(`sow: compile cache: not used: ${err instanceof Error ? err.message : String(err)}\n`);
    return undefined;
  }
}

const run = compiled();
if (run) {
  const module = { exports: {} };
  run.call(module.exports, module.exports, requireCore, module, CORE, __dirname);
} else {
  requireCore(CORE);
}
