// Lets plain .mjs tools (the bench, the real-agents suite) use a TypeScript module of sow itself,
// bundled on the fly with esbuild (a devDependency), instead of keeping a copy of it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export async function importSource(repoRoot, relPath) {
  const { build } = await import('esbuild');
  const dir = mkdtempSync(join(tmpdir(), 'sow-source-'));
  const outfile = join(dir, 'module.mjs');
  try {
    await build({
      entryPoints: [resolve(repoRoot, relPath)],
      outfile,
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      logLevel: 'warning',
    });
    return await import(pathToFileURL(outfile).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
