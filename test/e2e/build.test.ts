/**
 * The build and the test environment: building the same source twice gives the same bytes (so the
 * code cache, keyed by the bundle's checksum, is not made again for nothing), and tests run with a
 * home of their own.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_CACHE_HOME, TEST_ENV } from './harness.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const out = mkdtempSync(join(tmpdir(), 'sow-build-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

const digest = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

function build(dir: string): void {
  const r = spawnSync(process.execPath, ['scripts/build.mjs', '--out', dir], { cwd: ROOT, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
}

describe('the build', () => {
  it('is a function of the source: two builds are byte-identical, and equal to dist/', () => {
    build(join(out, 'a'));
    build(join(out, 'b'));
    const packs = readdirSync(join(out, 'a')).filter((f) => /^pack-[a-z-]+\.cjs$/.test(f));
    expect(packs).toContain('pack-task.cjs');
    expect(readdirSync(join(out, 'b')).filter((f) => f.startsWith('pack-'))).toEqual(packs);
    for (const file of ['core.cjs', 'sow.cjs', 'mcp-sdk.cjs', 'core.cjs.map', ...packs]) {
      expect(digest(join(out, 'a', file)), file).toBe(digest(join(out, 'b', file)));
      // (The source map names the sources relative to where it lies, so only the code is compared with dist/.)
      if (!file.endsWith('.map'))
        expect(digest(join(out, 'a', file)), `dist/${file} was built from this source`).toBe(
          digest(join(ROOT, 'dist', file)),
        );
    }
    // No time stamp of any kind in the bundle.
    expect(readFileSync(join(out, 'a', 'core.cjs'), 'utf8')).not.toMatch(/SOW_BUILD|Date\.now\(\)\.toString\(36\)/);
  });
});

describe('the installed package', () => {
  it(
    'needs no node_modules at run time: dist/ and templates/ alone run every kind of command (the libraries are ' +
      'bundled, so package.json lists them as devDependencies)',
    () => {
      const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
        dependencies?: Record<string, string>;
        files: string[];
      };
      expect(Object.keys(pkg.dependencies ?? {})).toEqual([]);
      // What npm would install: the package's files, in a folder with no node_modules above it.
      const alone = mkdtempSync(join(tmpdir(), 'sow-alone-'));
      try {
        build(join(alone, 'dist'));
        cpSync(join(ROOT, 'templates'), join(alone, 'templates'), { recursive: true });
        cpSync(join(ROOT, 'package.json'), join(alone, 'package.json'));
        const sow = (args: string[], input?: string) =>
          spawnSync(process.execPath, [join(alone, 'dist', 'sow.cjs'), ...args], {
            cwd: alone,
            encoding: 'utf8',
            env: { ...process.env, ...TEST_ENV },
            ...(input !== undefined ? { input } : {}),
            timeout: 20_000,
          });
        expect(sow(['--version']).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
        expect(JSON.parse(sow(['schema', 'project']).stdout).title).toContain('sow project state');
        expect(sow(['completion', 'bash']).stdout).toContain('_sow_complete');
        // The MCP server answers initialize from its own bundle.
        const params = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } };
        const init = sow(['mcp'], `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params })}\n`);
        expect(init.stdout).toContain('"serverInfo":{"name":"sow"');
      } finally {
        rmSync(alone, { recursive: true, force: true });
      }
    },
  );
});

describe('the test environment', () => {
  it("is hermetic: tests and the sow they run use the tests' own home, config and cache folders", () => {
    const invoking = process.env['SOW_TESTS_INVOKING_HOME'];
    for (const [name, value] of Object.entries({
      HOME: process.env['HOME'],
      XDG_CONFIG_HOME: process.env['XDG_CONFIG_HOME'],
      XDG_CACHE_HOME: process.env['XDG_CACHE_HOME'],
    })) {
      expect(value, name).toBeTruthy();
      expect(value!.startsWith(tmpdir()), `${name}=${value}`).toBe(true);
      if (invoking)
        expect(
          value!.startsWith(invoking) && !invoking.startsWith(tmpdir()),
          `${name} is not under the invoking user's home`,
        ).toBe(false);
    }
    expect(TEST_ENV.HOME!.startsWith(tmpdir())).toBe(true);
    expect(TEST_ENV.XDG_CONFIG_HOME!.startsWith(tmpdir())).toBe(true);
    expect(TEST_CACHE_HOME.startsWith(tmpdir())).toBe(true);
  });
});
