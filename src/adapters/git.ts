/** The git CLI, for the few commands that change the repository (branches). */
import { spawnSync } from 'node:child_process';
import { ExternalToolError } from '../domain/errors.js';

export function git(root: string, args: readonly string[]): string {
  const result = spawnSync('git', args, { cwd: root, encoding: 'utf8' });
  if (result.error) {
    const code = (result.error as NodeJS.ErrnoException).code;
    throw new ExternalToolError('git', code === 'ENOENT' ? 'not found on PATH' : result.error.message, 'install git and make sure it is on PATH');
  }
  if (result.status !== 0) {
    throw new ExternalToolError('git', `'git ${args.join(' ')}' failed: ${(result.stderr || result.stdout).trim().split('\n').at(-1) ?? ''}`);
  }
  return result.stdout.trim();
}

export function branchExists(root: string, branch: string): boolean {
  const result = spawnSync('git', ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], { cwd: root, encoding: 'utf8' });
  return result.status === 0;
}

export function branchHasFile(root: string, branch: string, path: string): boolean {
  const result = spawnSync('git', ['cat-file', '-e', `refs/heads/${branch}:${path}`], { cwd: root, encoding: 'utf8' });
  return result.status === 0;
}
