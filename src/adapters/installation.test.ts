import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { installationOf, upgradeHint } from './installation.js';

const top = mkdtempSync(join(tmpdir(), 'sow-install-'));
afterAll(() => rmSync(top, { recursive: true, force: true }));

/** A sow script at `<root>/dist/sow.cjs`. */
function script(root: string): string {
  mkdirSync(join(root, 'dist'), { recursive: true });
  writeFileSync(join(root, 'dist', 'sow.cjs'), '');
  return join(root, 'dist', 'sow.cjs');
}

describe('how this sow was installed, from where its script is', () => {
  it('a built git checkout: update it with git pull and a build there', () => {
    const root = join(top, 'checkout');
    const bin = script(root);
    mkdirSync(join(root, '.git'));
    expect(installationOf(bin)).toEqual({ kind: 'checkout', root });
    expect(upgradeHint(installationOf(bin))).toBe(
      `upgrade sow: it runs from the git checkout ${root}, so update that ('git pull', then 'npm run build' there)`,
    );
  });

  it(
    "an npm install, reached through npm's bin link: " + 'install a newer build the same way, never a registry name',
    () => {
      const root = join(top, 'prefix', 'lib', 'node_modules', 'sow-cli');
      const real = script(root);
      mkdirSync(join(top, 'prefix', 'bin'));
      symlinkSync(real, join(top, 'prefix', 'bin', 'sow'));
      expect(installationOf(join(top, 'prefix', 'bin', 'sow'))).toEqual({ kind: 'npm', root });
      const hint = upgradeHint(installationOf(join(top, 'prefix', 'bin', 'sow')));
      expect(hint).toContain(`npm installed it (${root})`);
      expect(hint).not.toContain('@latest');
    },
  );

  it('anything else: upgrade sow, saying where it runs from when that is known', () => {
    expect(installationOf(join(top, 'nowhere', 'sow.cjs'))).toEqual({ kind: 'unknown' });
    const root = join(top, 'copied');
    expect(installationOf(script(root))).toEqual({ kind: 'unknown', root });
    expect(upgradeHint({ kind: 'unknown', root })).toBe(`upgrade sow (this one runs from ${root})`);
    expect(upgradeHint({ kind: 'unknown' })).toBe('upgrade sow');
  });
});
