/** What "the state, byte-identical" means in the tests, end to end and in-process alike. */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** sow's runtime folder: never state, so snapshots leave it out. */
const RUNTIME = /^\.sow\/\.runtime(\/|$)/;

/** Every file under `<dir>/.sow/` that belongs to the state (runtime files excluded) → its text. */
export function snapshotSow(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (abs: string) => {
    if (!existsSync(abs)) return;
    for (const name of readdirSync(abs)) {
      const p = join(abs, name);
      const rel = relative(dir, p);
      if (RUNTIME.test(rel)) continue;
      if (statSync(p).isDirectory()) walk(p);
      else out.set(rel, readFileSync(p, 'utf8'));
    }
  };
  walk(join(dir, '.sow'));
  return out;
}
