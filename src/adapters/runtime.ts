/**
 * sow's runtime folder, `.sow/.runtime/`: the lock, the journal, temp files, the task index and
 * the events of workers. None of it is part of the project's history. The folder carries its own
 * `.gitignore` (`*`), so it stays out of git in every state a repository can be in — also after a
 * checkout of a branch whose `.sow/.gitignore` is missing or older.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SowError } from '../domain/errors.js';

const RUNTIME_DIR = '.sow/.runtime';

export const runtimePath = (root: string, ...parts: string[]): string => join(root, RUNTIME_DIR, ...parts);

const ready = new Set<string>();

/**
 * Creates `.sow/.runtime/` (and `sub`) with the ignore-everything `.gitignore`, once per process —
 * and again if it went away meanwhile (`git clean -X` under a long-running `sow mcp`).
 */
export function ensureRuntimeDir(root: string, sub?: string): string {
  const dir = runtimePath(root);
  if (!ready.has(dir) || !existsSync(dir)) {
    try {
      mkdirSync(dir, { recursive: true });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST' || code === 'ENOTDIR') {
        throw new SowError('RUNTIME_FOLDER_INVALID', 'state', `${RUNTIME_DIR} is not a folder; sow keeps its lock and temp files there`,
          `if no sow command is running, remove it ('rm ${RUNTIME_DIR}') and retry`, { file: RUNTIME_DIR });
      }
      throw err;
    }
    try {
      writeFileSync(join(dir, '.gitignore'), '# sow runtime files: never part of the history\n*\n', { flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    ready.add(dir);
  }
  if (sub === undefined) return dir;
  const path = join(dir, sub);
  mkdirSync(path, { recursive: true });
  return path;
}
