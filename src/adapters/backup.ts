/** Copies of `.sow/` kept by `sow migrate` in `.sow/.backup/<version>/`, and moving runtime leftovers. */
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

/**
 * Copies every file under `root/from` whose path (relative to `from`, with `/`) `keep` accepts
 * into `root/to`, and returns the relative paths copied. The folder above `to` gets a
 * `.gitignore` of `*`, so the copy stays out of git even where `.sow/.gitignore` does not say so
 * (the copy itself is exact, its own `.gitignore` included).
 */
export function copyTree(root: string, from: string, to: string, keep: (rel: string) => boolean): string[] {
  const copied: string[] = [];
  const base = join(root, from);
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const abs = join(dir, entry.name);
      const rel = relative(base, abs).split(sep).join('/');
      if (!keep(rel)) continue;
      if (entry.isDirectory()) walk(abs);
      else if (entry.isFile()) {
        const dest = join(root, to, rel);
        mkdirSync(dirname(dest), { recursive: true });
        copyFileSync(abs, dest);
        copied.push(rel);
      }
    }
  };
  mkdirSync(join(root, to), { recursive: true });
  writeFileSync(join(root, dirname(to), '.gitignore'), '# backups kept by sow migrate: never part of the history\n*\n');
  walk(base);
  return copied;
}

/** A name under `root/parent` that is not taken yet: `1`, else `1-2`, `1-3`, … */
export function freeName(root: string, parent: string, name: string): string {
  if (!existsSync(join(root, parent, name))) return `${parent}/${name}`;
  for (let n = 2; ; n++) if (!existsSync(join(root, parent, `${name}-${n}`))) return `${parent}/${name}-${n}`;
}

export function pathExists(root: string, rel: string): boolean {
  return existsSync(join(root, rel));
}

/** Moves a folder; the destination's parent is created. */
export function moveFolder(root: string, from: string, to: string): void {
  mkdirSync(dirname(join(root, to)), { recursive: true });
  renameSync(join(root, from), join(root, to));
}

export function removePath(root: string, rel: string): void {
  rmSync(join(root, rel), { recursive: true, force: true });
}

/** The names directly under `root/rel` (dotfiles too), or none when it does not exist. */
export function namesIn(root: string, rel: string): string[] {
  try {
    return readdirSync(join(root, rel));
  } catch {
    return [];
  }
}
