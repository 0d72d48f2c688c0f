/**
 * A reference source for the refs tests, end to end and in-process alike: a bare repository with
 * a working clone that pushes to it (branch main: README.md, docs/guide.md), in a temp folder the
 * test removes when it ends.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

/** Who commits in the sources' work trees. */
export const GIT_ID = ['-c', 'user.email=t@example.com', '-c', 'user.name=T'];

export interface RefSource {
  /** file:// of the bare repository. */
  url: string;
  bare: string;
  /** Commits a change to a file of the source and pushes it; its commit. */
  push(file: string, text: string): string;
  /** Pushes a new branch with one change. */
  branch(name: string, file: string, text: string): void;
}

/** Called inside a test: the source is removed when the test ends. */
export function refSource(): RefSource {
  const dir = mkdtempSync(join(tmpdir(), 'sow-ref-src-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const bare = join(dir, 'origin.git');
  const work = join(dir, 'work');
  execFileSync('git', ['init', '-q', '--bare', '--initial-branch=main', bare]);
  execFileSync('git', ['init', '-q', '-b', 'main', work]);
  mkdirSync(join(work, 'docs'));
  writeFileSync(join(work, 'README.md'), '# Style guide\n');
  writeFileSync(join(work, 'docs', 'guide.md'), 'Use tabs.\n');
  const git = (args: string[]) => execFileSync('git', [...GIT_ID, ...args], { cwd: work, encoding: 'utf8' }).trim();
  git(['add', '-A']);
  git(['commit', '-q', '-m', 'first']);
  git(['push', '-q', bare, 'main']);
  return {
    url: `file://${bare}`,
    bare,
    push(file, text) {
      writeFileSync(join(work, file), text);
      git(['commit', '-q', '-am', `change ${file}`]);
      git(['push', '-q', bare, 'main']);
      return git(['rev-parse', 'HEAD']);
    },
    branch(name, file, text) {
      git(['checkout', '-q', '-b', name]);
      writeFileSync(join(work, file), text);
      git(['commit', '-q', '-am', `on ${name}`]);
      git(['push', '-q', bare, name]);
      git(['checkout', '-q', 'main']);
    },
  };
}
