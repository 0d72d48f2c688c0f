// Bundles src/main.ts into dist/ with esbuild. Heavy modules (yaml's Document API, xstate,
// the JSON Schema generator) are behind dynamic import() and land in their own chunks, so a
// command loads only what it needs (DESIGN §7).
import { build } from 'esbuild';
import { rm, chmod, readFile } from 'node:fs/promises';

const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));

await rm(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: { sow: 'src/main.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minifySyntax: true,
  chunkNames: 'chunks/[name]-[hash]',
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __sowCreateRequire } from 'node:module';\nconst require = __sowCreateRequire(import.meta.url);",
  },
  define: { SOW_VERSION: JSON.stringify(pkg.version) },
  logLevel: 'warning',
});
await chmod(new URL('../dist/sow.js', import.meta.url), 0o755);
