/** The git CLI, for the few commands that change the repository or ask it about history. */
import { spawnSync } from 'node:child_process';
import { ExternalToolError } from '../domain/errors.js';

function run(root: string, args: readonly string[]) {
  const result = spawnSync('git', args, { cwd: root, encoding: 'utf8' });
  if (result.error) {
    const code = (result.error as NodeJS.ErrnoException).code;
    throw new ExternalToolError('git', code === 'ENOENT' ? 'not found on PATH' : result.error.message, 'install git and make sure it is on PATH');
  }
  return result;
}

export function git(root: string, args: readonly string[]): string {
  const result = run(root, args);
  if (result.status !== 0) {
    throw new ExternalToolError('git', `'git ${args.join(' ')}' failed: ${(result.stderr || result.stdout).trim().split('\n').at(-1) ?? ''}`);
  }
  return result.stdout.trim();
}

/** Whether git runs `args` successfully (exit 0); for questions git answers with its exit code. */
export function gitSucceeds(root: string, args: readonly string[]): boolean {
  return run(root, args).status === 0;
}

export function branchHasFile(root: string, branch: string, path: string): boolean {
  return gitSucceeds(root, ['cat-file', '-e', `refs/heads/${branch}:${path}`]);
}

export function isValidBranchName(root: string, branch: string): boolean {
  return gitSucceeds(root, ['check-ref-format', '--branch', branch]);
}

/** Whether `path` (a folder or file) has changes git has not committed, untracked files included. */
export function hasUncommitted(root: string, path: string): boolean {
  return git(root, ['status', '--porcelain', '--untracked-files=all', '--', path]) !== '';
}
