/**
 * The MCP SDK and zod reach sow's code only through src/mcp/sdk.ts, which the build bundles apart (dist/mcp-sdk.cjs);
 * the ACP SDK only through src/adapters/acp/sdk.ts (dist/acp-sdk.cjs). A direct import anywhere else would pull them
 * into core.cjs, which every command reads and caches, without any error: this test is what notices.
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
    .filter(
      (spec) =>
        spec === 'zod' ||
        spec.startsWith('zod/') ||
        spec.startsWith('@modelcontextprotocol/') ||
        spec.startsWith('@agentclientprotocol/'),
    );
  return found.map((spec) => `${relative(SRC, file).split('\\').join('/')} → ${spec}`);
}

describe('the MCP SDK stays apart', () => {
  it('only src/mcp/sdk.ts imports the SDK or zod (and src/adapters/acp/sdk.ts the ACP SDK)', () => {
    const all = sources(SRC).flatMap(valueImports);
    expect(
      all.filter((i) => !i.startsWith('mcp/sdk.ts → ') && !/^adapters\/acp\/sdk\.ts → @agentclientprotocol\//.test(i)),
    ).toEqual([]);
    expect(
      all.some((i) => i.startsWith('adapters/acp/sdk.ts → ')),
      'the ACP SDK is seen too',
    ).toBe(true);
    expect(all.length, 'sdk.ts itself is seen, so the scan works').toBeGreaterThan(0);
  });

  it('src/mcp/sdk.ts is imported, with that exact specifier, only from src/mcp/ (the build maps it there)', () => {
    const importers = sources(SRC).filter(
      (f) =>
        /from\s+'[./]*\/?(mcp\/)?sdk\.js'/.test(readFileSync(f, 'utf8')) &&
        !relative(SRC, f).startsWith(join('adapters', 'acp')),
    );
    const rel = importers.map((f) => relative(SRC, f).split('\\').join('/'));
    expect(rel.length).toBeGreaterThan(0);
    for (const f of rel) {
      expect(f.startsWith('mcp/'), f).toBe(true);
      expect(readFileSync(join(SRC, f), 'utf8'), f).toMatch(/from '\.\/sdk\.js'/);
    }
  });
});

describe('the ACP SDK stays apart', () => {
  it(
    'src/adapters/acp/sdk.ts is imported, with that exact specifier, only from src/adapters/acp/ (the build ' +
      'maps it there)',
    () => {
      const importers = sources(SRC).filter(
        (f) => /from\s+'[./]*\/?(acp\/)?sdk\.js'/.test(readFileSync(f, 'utf8')) && !relative(SRC, f).startsWith('mcp'),
      );
      const rel = importers.map((f) => relative(SRC, f).split('\\').join('/'));
      expect(rel).toEqual(['adapters/acp/client.ts']);
      expect(readFileSync(join(SRC, rel[0]!), 'utf8')).toMatch(/from '\.\/sdk\.js'/);
    },
  );
});
