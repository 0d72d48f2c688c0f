/** The git CLI: every git sow runs goes through `run` (or gitRunAsync) with an argv of literal words and values. */
import { spawn, type SpawnSyncOptions } from 'node:child_process';
import { spawnBlocking } from './heartbeat.js';
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ExternalToolError } from '../domain/errors.js';
import { argvOf, val, type Arg } from './argv.js';

export { opt, val, type Arg } from './argv.js';

/** Never a prompt for a password: sow captures git's terminal, so a prompt would wait unseen. */
export const NO_PROMPT = { GIT_TERMINAL_PROMPT: '0' };

interface RunOptions {
  input?: string;
  env?: Readonly<Record<string, string>>;
  /** Git's own progress and messages to the terminal (stderr inherited) instead of captured. */
  inheritStderr?: boolean;
}

const notFound = (err: Error) =>
  new ExternalToolError(
    'git',
    (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found on PATH' : err.message,
    'install git and make sure it is on PATH',
  );

/** Commands that may run a hook, which may keep git's stdout open from the background: output goes to files nobody
 * waits for, not pipes (as decision 0059). */
const HOOKED = new Set('am checkout cherry-pick commit merge pull push rebase revert switch worktree'.split(' '));

function run(root: string, args: readonly Arg[], opts: RunOptions = {}) {
  const argv = argvOf('git', args);
  const common = {
    cwd: root,
    ...(opts.input !== undefined ? { input: opts.input } : {}),
    ...(opts.env ? { env: { ...process.env, ...opts.env } } : {}),
  };
  if (argv.some((w) => HOOKED.has(w))) return runThroughFiles(argv, common, opts.inheritStderr);
  const result = spawnBlocking('git', argv, {
    ...common,
    encoding: 'utf8',
    ...(opts.inheritStderr ? { stdio: ['ignore', 'pipe', 'inherit'] as const } : {}),
    maxBuffer: 256 * 1024 * 1024,
  });
  if (result.error) throw notFound(result.error);
  return { argv, status: result.status, stdout: result.stdout ?? '', stderr: result.stderr ?? '' };
}

/** `run` for a command that may run a hook: its output goes to files of a private temp folder, read after it. */
function runThroughFiles(argv: string[], common: SpawnSyncOptions, inheritStderr?: boolean) {
  const dir = mkdtempSync(join(tmpdir(), 'sow-git-'));
  const fds: number[] = [];
  try {
    const out = openSync(join(dir, 'out'), 'w+', 0o600);
    fds.push(out);
    const err = inheritStderr ? 'inherit' : openSync(join(dir, 'err'), 'w+', 0o600);
    if (typeof err === 'number') fds.push(err);
    const stdin = common.input !== undefined ? 'pipe' : 'ignore';
    const result = spawnBlocking('git', argv, { ...common, stdio: [stdin, out, err] });
    if (result.error) throw notFound(result.error);
    const text = (name: string) => (existsSync(join(dir, name)) ? readFileSync(join(dir, name), 'utf8') : '');
    return { argv, status: result.status, stdout: text('out'), stderr: text('err') };
  } finally {
    for (const fd of fds) closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
}

export function git(root: string, args: readonly Arg[], opts: RunOptions = {}): string {
  const result = run(root, args, opts);
  if (result.status !== 0) {
    throw new ExternalToolError(
      'git',
      `'git ${result.argv.join(' ')}' failed: ${(result.stderr || result.stdout).trim().split('\n').at(-1) ?? ''}`,
    );
  }
  return result.stdout.trim();
}

/** Whether git runs `args` successfully (exit 0); for questions git answers with its exit code. */
export function gitSucceeds(root: string, args: readonly Arg[]): boolean {
  return run(root, args).status === 0;
}

type GitRun = { ok: boolean; out: string; err: string };

/** Runs git and says how it went, without throwing for a failure (the caller words it). */
export function gitRun(cwd: string, args: readonly Arg[], opts: RunOptions = {}): GitRun {
  const r = run(cwd, args, opts);
  return { ok: r.status === 0, out: r.stdout.trim(), err: r.stderr.trim() };
}

/** gitRun without blocking: a fetch can take seconds, and a spinner must keep turning meanwhile. */
export function gitRunAsync(cwd: string, args: readonly Arg[], opts: Pick<RunOptions, 'env'> = {}): Promise<GitRun> {
  const argv = argvOf('git', args);
  return new Promise((resolveRun) => {
    const child = spawn('git', argv, { cwd, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', (e) => resolveRun({ ok: false, out: '', err: e.message }));
    child.on('close', (code) => resolveRun({ ok: code === 0, out: out.trim(), err: err.trim() }));
  });
}

/** Objects read in one `git cat-file --batch` (ids on stdin): each found id's type and content (sizes in bytes). */
export function gitObjects(root: string, ids: readonly string[]): Map<string, { type: string; content: string }> {
  const found = new Map<string, { type: string; content: string }>();
  // Only object ids: a line of anything else would be one more request, and the answers would no longer line up.
  ids = ids.filter((id) => /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(id));
  if (ids.length === 0) return found;
  const result = spawnBlocking('git', ['cat-file', '--batch'], {
    cwd: root,
    input: ids.map((id) => `${id}\n`).join(''),
    maxBuffer: 256 * 1024 * 1024,
  });
  if (result.error) throw notFound(result.error);
  const out = result.stdout ?? Buffer.alloc(0);
  let at = 0;
  for (const id of ids) {
    const eol = out.indexOf(10, at);
    if (eol < 0) break;
    const header = out.toString('utf8', at, eol).split(' ');
    at = eol + 1;
    if (header[1] === 'missing' || header.length !== 3) continue;
    const size = Number(header[2]);
    if (!Number.isSafeInteger(size) || at + size > out.length) break;
    found.set(id, { type: header[1]!, content: out.toString('utf8', at, at + size) });
    at += size + 1;
  }
  return found;
}

/** Whether `refs/heads/<branch>` has the file `path` (`refs/heads/…`: never an option). */
export function branchHasFile(root: string, branch: string, path: string): boolean {
  return gitSucceeds(root, ['cat-file', '-e', val(`refs/heads/${branch}:${path}`, 'the branch and file')]);
}

/** The local branches whose last commit holds `path`, in two git runs whatever their number. */
export function branchesWithFile(root: string, path: string): string[] {
  const listed = gitRun(root, ['for-each-ref', '--format=%(refname)', 'refs/heads/']);
  if (!listed.ok) return [];
  const branches = listed.out
    .split('\n')
    .filter((r) => r.startsWith('refs/heads/'))
    .map((r) => r.slice('refs/heads/'.length));
  if (branches.length === 0) return [];
  // stdin, not argv: nothing here can be read as an option.
  const found = run(root, ['cat-file', '--batch-check'], {
    input: branches.map((b) => `refs/heads/${b}:${path}\n`).join(''),
  });
  if (found.status !== 0) return [];
  const answers = found.stdout.split('\n');
  return branches.filter((_, i) => / blob \d+$/.test(answers[i] ?? ''));
}

export function isValidBranchName(root: string, branch: string): boolean {
  // Git refuses a branch name that begins with '-' too; saying so here keeps it out of the argv.
  if (branch.startsWith('-')) return false;
  return gitSucceeds(root, ['check-ref-format', '--branch', val(branch, 'the branch name', 'user')]);
}

/** Whether `path` (a folder or file) has changes git has not committed, untracked files included. */
export function hasUncommitted(root: string, path: string): boolean {
  return git(root, ['status', '--porcelain', '--untracked-files=all', '--', val(path, 'the path')]) !== '';
}

/** Whether git tracks the file `rel` (it is in the index: committed, or added). */
export function isTracked(root: string, rel: string): boolean {
  return gitSucceeds(root, ['ls-files', '--error-unmatch', '--', val(rel, 'the file')]);
}

/** The upstream of the local branch, asked by full ref name (unlike `<branch>@{upstream}`, never an option). */
export function upstreamOf(root: string, branch: string): string | undefined {
  const full = `refs/heads/${branch}`;
  const out = git(root, ['for-each-ref', '--format=%(refname)%00%(upstream)', val(full, 'the branch')]);
  const line = out
    .split('\n')
    .map((l) => l.split('\0'))
    .find(([ref]) => ref === full);
  return line?.[1] || undefined;
}

/** The commit HEAD points at, or null in a repository without commits. */
export function headCommit(root: string): string | null {
  const result = gitRun(root, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  return result.ok ? result.out : null;
}

/** The tree `git add -A && git write-tree` would give without top-level `exclude`, in a temporary index copied from
 * the real one (stat cache and mtime, so git's same-second check holds); the user's index is never written. */
export function worktreeTree(root: string, exclude: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'sow-tree-'));
  const index = join(dir, 'index');
  const env = { GIT_INDEX_FILE: index };
  try {
    const real = resolve(root, git(root, ['rev-parse', '--git-path', 'index']));
    let seeded = false;
    try {
      const stat = statSync(real);
      copyFileSync(real, index);
      utimesSync(index, stat.atime, new Date(Math.floor(stat.mtimeMs / 1000) * 1000));
      seeded = true;
    } catch {
      // No index yet (a repository without commits): start from an empty one.
    }
    const build = () => {
      git(
        root,
        ['rm', '-r', '--cached', '--quiet', '--force', '--ignore-unmatch', '--', val(exclude, 'the folder left out')],
        { env },
      );
      git(root, ['add', '--all', '--', '.', val(`:(exclude)${exclude}`, 'the folder left out')], { env });
      return git(root, ['write-tree'], { env });
    };
    try {
      return build();
    } catch (err) {
      if (!seeded) throw err;
      // An index this git cannot use from another file (e.g. a split index): build from nothing.
      rmSync(index, { force: true });
      return build();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** HEAD's tree without the top-level entry `exclude`; the empty tree in a repository without commits. */
export function headTreeWithout(root: string, exclude: string): string {
  const entries =
    headCommit(root) === null
      ? []
      : git(root, ['ls-tree', '-z', 'HEAD'])
          .split('\0')
          .filter((e) => e !== '' && e.slice(e.indexOf('\t') + 1) !== exclude);
  return git(root, ['mktree', '-z'], { input: entries.map((e) => `${e}\0`).join('') });
}
