/** The git side of `sow task changes`: git's own patch only (no external diff or textconv, whatever attributes ask). */
import { git, gitRun, val } from './git.js';

/** Where the histories of `a` and `b` meet (both refs or commits). */
export function mergeBaseOf(cwd: string, a: string, b: string): string {
  return git(cwd, ['merge-base', val(a, 'a branch'), val(b, 'a branch')]);
}

/** The changes outside `.sow/` against `base` (null: HEAD) of the tree or of `tip`, or of `file`: list and patch. */
export function diffAgainst(
  cwd: string,
  base: string | null,
  tip: string | null,
  file: string | null,
): { names: string; patch: string } {
  const names = git(cwd, [
    'diff',
    '--name-status',
    '-z',
    '-M',
    '--no-ext-diff',
    ...(base ? [val(base, 'the base commit')] : ['HEAD']),
    ...(tip ? [val(tip, "the worker's branch")] : []),
    ...(file ? ['--', val(file, 'a modified file')] : ['--', '.', ':(exclude).sow']),
  ]);
  const patch = git(cwd, [
    'diff',
    '--no-color',
    '--no-ext-diff',
    '--no-textconv',
    '--src-prefix=a/',
    '--dst-prefix=b/',
    '-M',
    ...(base ? [val(base, 'the base commit')] : ['HEAD']),
    ...(tip ? [val(tip, "the worker's branch")] : []),
    ...(file ? ['--', val(file, 'a modified file')] : ['--', '.', ':(exclude).sow']),
  ]);
  return { names, patch };
}

/** The files git does not know yet (untracked, not ignored) outside `.sow/`, or `file` alone when it is one. */
export function untrackedFiles(cwd: string, file: string | null): string[] {
  return git(cwd, [
    'ls-files',
    '--others',
    '--exclude-standard',
    '-z',
    ...(file ? ['--', val(file, 'a modified file')] : ['--', '.', ':(exclude).sow']),
  ])
    .split('\0')
    .filter(Boolean);
}

/** A new file whole, as git shows a file added (a link as a link, never followed). */
export function newFilePatch(cwd: string, path: string): string {
  // Exit 1 is "they differ": the patch of a whole new file.
  return gitRun(cwd, [
    'diff',
    '--no-index',
    '--no-color',
    '--no-ext-diff',
    '--no-textconv',
    '--src-prefix=a/',
    '--dst-prefix=b/',
    '--',
    '/dev/null',
    val(path, 'a new file'),
  ]).out;
}
