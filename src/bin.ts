// The `sow` executable: runs the group's pack (else core.cjs) and the bundled SDKs through the code cache. It never
// fails a command: on cache trouble, source maps or SOW_NO_COMPILE_CACHE files load the ordinary way.
import { existsSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { compileWithCache, sourceIdentity, type Crc32, type ModuleWrapper } from './adapters/compile-cache.js';
import { nodeBinding } from './adapters/node-binding.js';

declare const SOW_VERSION: string;
/** The first word of a command line, or its first two for a read pack → the pack that holds it (scripts/build.mjs). */
declare const SOW_PACKS: Readonly<Record<string, string>>;

const CORE = join(__dirname, 'core.cjs');
const words = process.argv.slice(2);
// core.cjs lies beside this file, so its require resolves the same (createRequire would load the ESM loader).
const requireCore = require;

// Node's native CRC-32 from the zlib binding, since loading node:zlib costs some twenty modules; node:zlib's when the
// binding may not be asked or gets a known text wrong.
function nativeCrc32(): Crc32 | undefined {
  const crc32 = nodeBinding<{ crc32: (data: Uint8Array, value: number) => number }>('zlib')?.crc32;
  if (typeof crc32 === 'function' && crc32(Buffer.from('sow'), 0) === 0x85f29cec) return (data) => crc32(data, 0);
  return (require('node:zlib') as { crc32?: Crc32 }).crc32;
}

// Worked out by the first file compiled: the CRC-32, and the build (this executable's stat) the caches belong to.
let crc32Found: { crc32: Crc32 | undefined; build: number } | undefined;

/** `file` compiled through its cache (`part` names it within the group's); undefined when the cache cannot be used,
 * 'absent' when there is no file. */
function compiled(file: string, part?: string): ModuleWrapper | undefined | 'absent' {
  if (process.sourceMapsEnabled || process.env['SOW_NO_COMPILE_CACHE']) return undefined;
  try {
    crc32Found ??= { crc32: nativeCrc32(), build: sourceIdentity(statSync(__filename)) };
    const { crc32, build } = crc32Found;
    if (!crc32) return undefined;
    return compileWithCache(file, words, crc32, build, part);
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

/** The SDKs bundled apart (0.6 MB took 15 ms to compile at every `sow mcp`): cached too, each run once. */
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

function runCli(): void {
  // The pack of the group the first word names, as in main.ts (sow's own options take no values), or of the read the
  // first two name; help lists the whole group, so it is the group's.
  const [word, sub] = words.filter((w) => !w.startsWith('-'));
  const read = `${word} ${sub}`;
  const key = Object.hasOwn(SOW_PACKS, read) && !words.includes('--help') && !words.includes('-h') ? read : word;
  const pack = !process.sourceMapsEnabled && key !== undefined && Object.hasOwn(SOW_PACKS, key);
  for (const file of pack ? [join(__dirname, SOW_PACKS[key]!), CORE] : [CORE]) {
    // A read pack's cache is its own: the group's pack has another, under the group's name.
    const run = compiled(file, key === read ? 'read' : undefined);
    if (run === 'absent' || (run === undefined && file !== CORE && !existsSync(file))) continue;
    if (run) runModule(run, file, requireForCore);
    else requireCore(file);
    return;
  }
}

// `sow --version` (with `--json` or `--no-color`) is answered without loading the CLI, which cost five times the
// printing; words and output are the CLI's (main.ts).
if (
  words.some((w) => w === '--version' || w === '-V') &&
  words.every((w) => ['--version', '-V', '--json', '--no-color'].includes(w))
) {
  const text = process.argv.includes('--json')
    ? `${JSON.stringify({ ok: true, data: { version: SOW_VERSION } })}\n`
    : `${SOW_VERSION}\n`;
  try {
    writeSync(1, text);
  } catch {
    // stdout closed early (`sow --version | true`): the reader's choice, as in the CLI.
  }
} else runCli();
