// Bundles sow into dist/ with esbuild: dist/sow.cjs (the executable, src/bin.ts), dist/core.cjs
// (the CLI, src/main.ts), dist/mcp-sdk.cjs (the MCP SDK, for `sow mcp` alone) and dist/acp-sdk.cjs
// (the ACP SDK, for workers on the ACP transport alone). Heavy modules
// (yaml's Document API, the JSON Schema generator) are behind dynamic import(), so a command runs
// only what it needs. The output depends only on the source:
// building the same source twice gives the same bytes.
// `--out <dir>` builds elsewhere (the build test uses it). Minified, because
// compiling less code is most of what start-up costs; the linked source map gives readable stacks
// with NODE_OPTIONS=--enable-source-maps.
import { build } from 'esbuild';
import { rm, chmod, readFile, rename } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));

/**
 * commander requires node:child_process at load time, for executable subcommands sow never uses;
 * loading it (and node:net behind it) costs several milliseconds on every start. Give commander a
 * proxy that loads the real module on first use.
 */
const lazyChildProcessForCommander = {
  name: 'lazy-child-process-for-commander',
  setup(b) {
    b.onResolve({ filter: /^(node:)?child_process$/ }, (args) => (/[\\/]node_modules[\\/]commander[\\/]/.test(args.importer) ? { path: 'child_process', namespace: 'sow-lazy' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'sow-lazy' }, () => ({
      contents: "let real; module.exports = new Proxy({}, { get: (_, key) => (real ??= require('node:child_process'))[key] });",
      loader: 'js',
    }));
  },
};

/**
 * node:child_process and node:crypto cost several million instructions to load (crypto alone
 * loads fifteen internal modules), and a read never uses them: git and agents are spawned, and
 * journals hashed, only by some commands. node:os is smaller (0.65 M), and needed only for the
 * home folder when HOME is unset, the host name a lock records, the temp folder of a git call. sow's own imports of them get a module that loads the
 * real one on the first call. It exports the functions sow uses by name, so an import of any
 * other name fails the build instead of failing at run time.
 */
const LAZY_BUILTINS = {
  child_process: ['spawn', 'spawnSync'],
  crypto: ['createHash', 'randomBytes', 'randomUUID', 'timingSafeEqual'],
  os: ['homedir', 'hostname', 'tmpdir'],
};
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(b) {
    b.onResolve({ filter: /^(node:)?(child_process|crypto|os)$/ }, (args) =>
      /[\\/]src[\\/]/.test(args.importer) && !/[\\/]node_modules[\\/]/.test(args.importer) ? { path: args.path.replace(/^node:/, ''), namespace: 'sow-lazy-builtin' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'sow-lazy-builtin' }, (args) => ({
      contents: [
        `let real; const load = () => (real ??= require('node:${args.path}'));`,
        ...LAZY_BUILTINS[args.path].map((name) => `export function ${name}(...a) { return load().${name}(...a); }`),
      ].join('\n'),
      loader: 'js',
    }));
  },
};

/**
 * The MCP SDK and zod (src/mcp/sdk.ts) are bundled on their own, into dist/mcp-sdk.cjs, which
 * core.cjs requires only when `sow mcp` starts: inside core.cjs they would more than double the
 * file every command reads and caches (docs/decisions/0026-mcp-server.md).
 */
const mcpSdkApart = {
  name: 'mcp-sdk-apart',
  setup(b) {
    b.onResolve({ filter: /^\.\/sdk\.js$/ }, (args) => (/[\\/]src[\\/]mcp[\\/][^\\/]+\.ts$/.test(args.importer) ? { path: './mcp-sdk.cjs', external: true } : undefined));
  },
};

/** The ACP SDK likewise (src/adapters/acp/sdk.ts → dist/acp-sdk.cjs), for workers on the ACP transport alone. */
const acpSdkApart = {
  name: 'acp-sdk-apart',
  setup(b) {
    b.onResolve({ filter: /^\.\/sdk\.js$/ }, (args) => (/[\\/]src[\\/]adapters[\\/]acp[\\/][^\\/]+\.ts$/.test(args.importer) ? { path: './acp-sdk.cjs', external: true } : undefined));
  },
};

// Build beside dist/ and swap it in, so a sow process running meanwhile never finds it half gone.
const outArg = process.argv.indexOf('--out');
const out = outArg > 0 ? pathToFileURL(resolve(process.argv[outArg + 1])) : new URL('../dist', import.meta.url);
const next = new URL(`${out.href}.next-${process.pid}`);
await rm(next, { recursive: true, force: true });
const common = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  minify: true,
  logLevel: 'warning',
};
// The CLI itself: one CommonJS file, because only a classic script can be given a V8 code cache on
// Node 20 (docs/decisions/0008). Modules behind import() stay lazy: esbuild turns them into
// functions that run on first use, and V8 compiles a function only when it first runs.
await build({
  ...common,
  entryPoints: ['src/main.ts'],
  outfile: fileURLToPath(new URL('core.cjs', `${next.href}/`)),
  sourcemap: 'linked',
  // import.meta.url, worked out when first asked for (finding the templates, a prompt): making a
  // file URL costs every command about 0.5 M instructions otherwise (docs/decisions/0044).
  banner: { js: "const __sowImportMeta = { get url() { return require('node:url').pathToFileURL(__filename).href; } };" },
  define: {
    'import.meta.url': '__sowImportMeta.url',
    SOW_VERSION: JSON.stringify(pkg.version),
  },
  plugins: [lazyChildProcessForCommander, lazyBuiltins, mcpSdkApart, acpSdkApart],
});
await build({
  ...common,
  entryPoints: ['src/mcp/sdk.ts'],
  outfile: fileURLToPath(new URL('mcp-sdk.cjs', `${next.href}/`)),
});
await build({
  ...common,
  entryPoints: ['src/adapters/acp/sdk.ts'],
  outfile: fileURLToPath(new URL('acp-sdk.cjs', `${next.href}/`)),
});
// The executable: a few lines that load core.cjs through the code cache.
await build({
  ...common,
  entryPoints: ['src/bin.ts'],
  plugins: [lazyBuiltins],
  define: { SOW_VERSION: JSON.stringify(pkg.version) },
  outfile: fileURLToPath(new URL('sow.cjs', `${next.href}/`)),
  banner: { js: '#!/usr/bin/env node' },
});
await chmod(new URL('sow.cjs', `${next.href}/`), 0o755);
const old = new URL(`${out.href}.old-${process.pid}`);
await rename(out, old).catch(() => undefined);
await rename(next, out);
await rm(old, { recursive: true, force: true });
