/**
 * The MCP SDK and zod reach sow's code only through src/mcp/sdk.ts, which the build bundles apart
 * (dist/mcp-sdk.cjs). A direct import anywhere else would pull them into core.cjs, which every
 * command reads and caches, without any error: this test is what notices.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('..', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [p] : [];
  });
}

/** Imports of the SDK or zod that bring code (not `import type`), as `file → specifier`. */
function valueImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found = [...text.matchAll(/(?:^|\n)\s*(import|export)(\s+type)?[^'";]*?from\s+'([^']+)'|import\('([^']+)'\)/g)]
    .filter((m) => m[2] === undefined)
    .map((m) => m[3] ?? m[4]!)
    .filter((spec) => spec === 'zod' || spec.startsWith('zod/') || spec.startsWith('@modelcontextprotocol/'));
  return found.map((spec) => `${relative(SRC, file).split('\\').join('/')} → ${spec}`);
}

describe('the MCP SDK stays apart', () => {
  it('only src/mcp/sdk.ts imports the SDK or zod', () => {
    const all = sources(SRC).flatMap(valueImports);
    expect(all.filter((i) => !i.startsWith('mcp/sdk.ts → '))).toEqual([]);
    expect(all.length, 'sdk.ts itself is seen, so the scan works').toBeGreaterThan(0);
  });

  it('src/mcp/sdk.ts is imported, with that exact specifier, only from src/mcp/ (the build maps it there)', () => {
    const importers = sources(SRC).filter((f) => /from\s+'[./]*\/?(mcp\/)?sdk\.js'/.test(readFileSync(f, 'utf8')));
    const rel = importers.map((f) => relative(SRC, f).split('\\').join('/'));
    expect(rel.length).toBeGreaterThan(0);
    for (const f of rel) {
      expect(f.startsWith('mcp/'), f).toBe(true);
      expect(readFileSync(join(SRC, f), 'utf8'), f).toMatch(/from '\.\/sdk\.js'/);
    }
  });
});
