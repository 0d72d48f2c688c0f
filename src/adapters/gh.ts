// GitHub through the user's `gh`: argv arrays each naming `--repo`, JSON output; every argv comes from GH_ARGS, checked
// against the pinned `gh --help` (test/fixtures/gh-help/).
import { spawnBlocking } from './heartbeat.js';
import { findOnPath } from './process-runner.js';
import { errorClass, ExternalToolError } from '../domain/errors.js';
import { argvOf, opt, val, type Arg, type ArgValue } from './argv.js';

export class GhNotFoundError extends errorClass('GH_NOT_FOUND', 'external', () => [
  'gh (the GitHub CLI) is not installed, or not on PATH',
  'install it (https://cli.github.com; Debian and Ubuntu: apt install gh; macOS: brew install gh), then run ' +
    "'gh auth login'",
]) {}

export class GhAuthError extends errorClass('GH_NOT_AUTHENTICATED', 'external', (repo: string) => [
  `gh is not logged in to GitHub, so it cannot reach ${repo}`,
  "run 'gh auth login' (or set GH_TOKEN), then try again",
]) {}

export class GhFailedError extends errorClass('GH_FAILED', 'external', (args: readonly string[], message: string) => [
  `'gh ${args.slice(0, 2).join(' ')}' failed: ${message}`,
  "see what gh said above; 'gh auth status' shows the login it uses",
]) {}

export type IssueListOptions = { state: 'open' | 'closed' | 'all'; label?: string; limit: number };

export const ISSUE_FIELDS = ['number', 'title', 'state', 'labels', 'url'] as const;
export const ISSUE_VIEW_FIELDS = [...ISSUE_FIELDS, 'body'] as const;
export const PR_FIELDS = ['number', 'url', 'isDraft', 'state', 'headRefName'] as const;

/** A positional number for gh (an issue's, unless `what` says): a negative one, which gh would read as a flag, is
 * refused by argvOf. */
const num = (n: number, what = 'the issue number'): ArgValue => val(String(n), what);

/** The argv of every gh call: each value joined to its flag (`--head=<branch>`); a negative number is refused. */
export const GH_ARGS = {
  issueList: (repo: string, o: IssueListOptions) => [
    'issue',
    'list',
    opt('--repo', repo),
    opt('--state', o.state),
    ...(o.label ? [opt('--label', o.label)] : []),
    opt('--limit', String(o.limit)),
    opt('--json', ISSUE_FIELDS.join(',')),
  ],
  issueView: (repo: string, n: number) => [
    'issue',
    'view',
    num(n),
    opt('--repo', repo),
    opt('--json', ISSUE_VIEW_FIELDS.join(',')),
  ],
  issueLinkedBranches: (repo: string, n: number) => ['issue', 'develop', '--list', num(n), opt('--repo', repo)],
  issueLinkBranch: (repo: string, n: number, branch: string, base: string) => [
    'issue',
    'develop',
    num(n),
    opt('--repo', repo),
    opt('--name', branch),
    opt('--base', base),
  ],
  prForBranch: (repo: string, branch: string) => [
    'pr',
    'list',
    opt('--repo', repo),
    opt('--head', branch),
    '--state=open',
    opt('--json', PR_FIELDS.join(',')),
  ],
  prCreate: (repo: string, o: { head: string; base: string; title: string; bodyFile: string; draft: boolean }) => [
    'pr',
    'create',
    opt('--repo', repo),
    opt('--head', o.head),
    opt('--base', o.base),
    opt('--title', o.title),
    opt('--body-file', o.bodyFile),
    ...(o.draft ? ['--draft'] : []),
  ],
  prReady: (repo: string, n: number) => ['pr', 'ready', num(n, 'the pull request number'), opt('--repo', repo)],
  /** The body comes on stdin (`--body-file -`). */
  issueCreate: (repo: string, o: { title: string }) => [
    'issue',
    'create',
    opt('--repo', repo),
    opt('--title', o.title),
    '--body-file=-',
  ],
} as const satisfies Record<string, (...a: never[]) => readonly Arg[]>;

/** Where gh runs: a folder, and the environment of the caller's context (its PATH finds gh; its GH_TOKEN logs in). */
export type GhRun = { cwd: string; env: Readonly<Record<string, string | undefined>> };

/** Runs gh; its stdout, or the error that says what to do. `repo` is for the messages. */
export function gh(run: GhRun, args: readonly Arg[], repo: string, input?: string): string {
  const argv = argvOf('gh', args);
  const r = spawnBlocking('gh', argv, {
    cwd: run.cwd,
    encoding: 'utf8',
    env: { ...run.env, GH_PROMPT_DISABLED: '1', NO_COLOR: '1' },
    maxBuffer: 64 * 1024 * 1024,
    ...(input !== undefined ? { input } : {}),
  });
  if (r.error) {
    if ((r.error as NodeJS.ErrnoException).code === 'ENOENT') throw new GhNotFoundError();
    throw new ExternalToolError('gh', r.error.message);
  }
  // gh exits 4 when it needs a login.
  if (r.status === 4 || /gh auth login/.test(r.stderr ?? '')) throw new GhAuthError(repo);
  if (r.status !== 0)
    throw new GhFailedError(
      argv,
      (r.stderr || r.stdout || `exit ${r.status}`).trim().split('\n').filter(Boolean).at(-1) ?? `exit ${r.status}`,
    );
  return r.stdout;
}

export const ghInstalled = (env: NodeJS.ProcessEnv = process.env): boolean =>
  (process.platform === 'win32' ? ['gh.exe', 'gh.cmd'] : ['gh']).some((name) => findOnPath(name, env) !== undefined);

export function ghJson(run: GhRun, args: readonly Arg[], repo: string): unknown {
  const out = gh(run, args, repo);
  try {
    return JSON.parse(out);
  } catch {
    throw new GhFailedError(argvOf('gh', args), `it printed no JSON: ${out.slice(0, 200)}`);
  }
}

/** `owner/name` (or `host/owner/name`) of an https or ssh git remote URL; undefined for anything else. */
export function repoOfUrl(url: string): string | undefined {
  const m = /^(?:(?:https?|ssh):\/\/(?:[^@/]+@)?|[^@/]+@)([^/:]+)(?::\d+)?[:/]([^/]+)\/([^/]+?)(?:\.git)?\/?$/.exec(
    url.trim(),
  );
  if (!m) return undefined;
  const [, host, owner, name] = m;
  return host === 'github.com' ? `${owner}/${name}` : `${host}/${owner}/${name}`;
}
