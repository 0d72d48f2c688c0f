/**
 * The package npm makes: `npm pack` in a clean copy of the repository (what git tracks, no dist/)
 * builds sow first (prepack) and packs it; the tarball, installed into a prefix of its own without
 * the network, gives a `sow` that runs, initialises a repository, and says how to upgrade the way
 * it was installed. package.json names a license the LICENSE file holds, and where the project
 * lives.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_ENV } from './harness.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'sow-package-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

/** npm, run quietly in `cwd`, with a cache of the test's own and no network. */
function npm(cwd: string, args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync('npm', [...args, '--offline', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      ...TEST_ENV,
      npm_config_cache: join(work, 'npm-cache'),
      npm_config_update_notifier: 'false',
    },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * The files git would check out (tracked, and new ones not ignored), as they are now, without dist/ or
 * node_modules/.
 */
function cleanCopy(to: string): void {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\0')
    .filter(Boolean);
  for (const rel of files) {
    if (!existsSync(join(ROOT, rel))) continue; // deleted in the working tree
    mkdirSync(dirname(join(to, rel)), { recursive: true });
    cpSync(join(ROOT, rel), join(to, rel));
  }
  expect(existsSync(join(to, 'dist')), 'a clean copy has no build').toBe(false);
  // The dependencies a fresh clone gets from 'npm ci' (ensure-deps finds them installed; the
  // network is not the subject here).
  symlinkSync(join(ROOT, 'node_modules'), join(to, 'node_modules'));
}

describe('npm pack', () => {
  it(
    'builds sow (prepack) and packs a package whose sow runs once installed: --version, init, and an upgrade hint ' +
      'for an npm install',
    () => {
      const clone = join(work, 'clone');
      cleanCopy(clone);
      const packed = npm(clone, ['pack', '--pack-destination', work]);
      expect(packed.code, packed.stderr).toBe(0);
      const tgz = join(work, `sow-cli-${PKG.version}.tgz`);
      expect(existsSync(tgz), readdirSync(work).join(', ')).toBe(true);
      const listed = execFileSync('tar', ['tzf', tgz], { encoding: 'utf8' }).split('\n');
      for (const file of [
        'package/package.json',
        'package/LICENSE',
        'package/README.md',
        'package/dist/sow.cjs',
        'package/dist/core.cjs',
        'package/dist/mcp-sdk.cjs',
        'package/templates/prompts/NoProject.md',
      ]) {
        expect(listed, file).toContain(file);
      }
      expect(
        listed.filter((f) => f.startsWith('package/src/') || f.startsWith('package/test/')),
        'no sources or tests',
      ).toEqual([]);

      const prefix = join(work, 'prefix');
      const installed = npm(work, ['install', '--global', '--prefix', prefix, tgz]);
      expect(installed.code, installed.stderr).toBe(0);
      const bin = join(prefix, 'bin', 'sow');
      const sow = (args: string[], cwd: string) =>
        spawnSync(bin, args, { cwd, encoding: 'utf8', env: { ...process.env, ...TEST_ENV } });
      const version = sow(['--version'], work);
      expect(version.status, version.stderr).toBe(0);
      expect(version.stdout.trim()).toBe(PKG.version);

      const repo = join(work, 'repo');
      mkdirSync(repo);
      execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo });
      const init = sow(['init'], repo);
      expect(init.status, init.stderr).toBe(0);
      expect(readFileSync(join(repo, '.sow', '.version'), 'utf8').trim()).toMatch(/^\d+$/);

      // A layout newer than this sow: the hint says how this sow was installed, not a registry name.
      writeFileSync(join(repo, '.sow', '.version'), '99\n');
      const old = sow(['status', '--json'], repo);
      expect(old.status).toBe(4);
      const hint = JSON.parse(old.stdout).error.hint as string;
      expect(hint).toContain(`npm installed it (${join(prefix, 'lib', 'node_modules', 'sow-cli')})`);
      expect(hint).toContain("'npm pack'");
      expect(hint).not.toContain('@latest');
    },
    300_000,
  );
});

describe('package.json', () => {
  it('names its license, which LICENSE holds, and where the project lives (homepage, repository, bugs)', () => {
    expect(PKG.license).toBe('MIT');
    const license = readFileSync(join(ROOT, 'LICENSE'), 'utf8');
    expect(license.split('\n')[0]).toBe('MIT License');
    expect(license).toContain('Copyright (c) 2026 the sow authors');
    expect(license).toContain('THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND');
    expect(PKG.homepage).toMatch(/^https:\/\//);
    expect(PKG.repository).toMatchObject({ type: 'git', url: expect.stringMatching(/^git\+https:\/\//) });
    expect(PKG.bugs).toMatchObject({ url: expect.stringMatching(/^https:\/\//) });
    expect(PKG.scripts.prepack, 'a clean clone packs a built sow').toContain('scripts/build.mjs');
  });
});
