// How the running sow was installed (built git checkout, npm package, or neither), so the upgrade hint works: sow is on
// no registry, so `npm install -g` would name nobody's package.
import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import { SowTooOldError } from '../domain/errors.js';
import { quietly } from './io-errors.js';

export type Installation =
  { kind: 'checkout'; root: string } | { kind: 'npm'; root: string } | { kind: 'unknown'; root?: string };

/** The folder holding sow's package.json (the parent of dist/), from the script that runs. */
export function installationOf(script: string | undefined = process.argv[1]): Installation {
  const real = quietly(() => realpathSync(script ?? ''));
  if (real === undefined) return { kind: 'unknown' };
  const dist = dirname(real);
  if (basename(dist) !== 'dist') return { kind: 'unknown' };
  const root = dirname(dist);
  if (existsSync(join(root, '.git'))) return { kind: 'checkout', root };
  if (root.split(sep).includes('node_modules')) return { kind: 'npm', root };
  return { kind: 'unknown', root };
}

/** What upgrading this sow takes, as a hint. */
export function upgradeHint(install: Installation = installationOf()): string {
  switch (install.kind) {
    case 'checkout':
      return (
        `upgrade sow: it runs from the git checkout ${install.root}, so update that ('git pull', then 'npm run ` +
        `build' there)`
      );
    case 'npm':
      return (
        `upgrade sow: npm installed it (${install.root}), so install a newer build the same way (in a newer ` +
        `checkout of sow, 'npm pack', then 'npm install -g' the .tgz it made)`
      );
    case 'unknown':
      return `upgrade sow${install.root ? ` (this one runs from ${install.root})` : ''}`;
  }
}

/** The refusal of a layout newer than this sow, with the upgrade that fits how it was installed. */
export const sowTooOld = (found: number, current: number): SowTooOldError =>
  new SowTooOldError(found, current, upgradeHint());
