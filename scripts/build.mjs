// Bundles src/main.ts into dist/ with esbuild. Heavy modules (yaml's Document API, xstate,
// the JSON Schema generator) are behind dynamic import() and land in their own chunks, so a
// command loads only what it needs (DESIGN §7). Minified, because compiling less code is most of
// what start-up costs here (measured: ~10 → ~8 ms of V8 compile for `task list`); the linked
// source map gives readable stacks with NODE_OPTIONS=--enable-source-maps.
import { build } from 'esbuild';
import { rm, chmod, readFile, rename } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));

/**
 * commander requires node:child_process at load time, for executable subcommands sow never uses;
 * loading it (and node:net behind it) costs several milliseconds on every start. Give commander a
 * proxy that loads the real module on first use.
 */
const lazyChildProcessForCommander = {
  name: 'lazy-child-process-for-commander',
  setup(b) {
    b.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      /[\\/]node_modules[\\/]commander[\\/]/.test(args.importer) ? { path: 'child_process', namespace: 'sow-lazy' } : undefined);
    b.onLoad({ filter: /.*/, namespace: 'sow-lazy' }, () => ({
      contents: "let real; module.exports = new Proxy({}, { get: (_, key) => (real ??= require('node:child_process'))[key] });",
      loader: 'js',
    }));
  },
};

// Build beside dist/ and swap it in, so a sow process running meanwhile never finds it half gone.
const out = new URL('../dist', import.meta.url);
const next = new URL(`../.dist-${process.pid}`, import.meta.url);
await rm(next, { recursive: true, force: true });
await build({
  entryPoints: { sow: 'src/main.ts' },
  outdir: fileURLToPath(next),
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: true,
  sourcemap: 'linked',
  chunkNames: 'chunks/[name]-[hash]',
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __sowCreateRequire } from 'node:module';\nconst require = __sowCreateRequire(import.meta.url);",
  },
  // SOW_BUILD stamps the parse cache: a new build validates every state file again.
  define: { SOW_VERSION: JSON.stringify(pkg.version), SOW_BUILD: JSON.stringify(`${pkg.version}+${Date.now().toString(36)}`) },
  plugins: [lazyChildProcessForCommander],
  logLevel: 'warning',
});
await chmod(new URL('sow.js', `${next.href}/`), 0o755);
const old = new URL(`../.dist-old-${process.pid}`, import.meta.url);
await rename(out, old).catch(() => undefined);
await rename(next, out);
await rm(old, { recursive: true, force: true });
