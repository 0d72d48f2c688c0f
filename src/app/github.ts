// Issues to start projects from and the pull request that ends one, through `gh`. Every call names the repository:
// `github.repo`, else origin's (never a fork's upstream, never gh's guess).
import { join } from 'node:path';
import { PROJECT_DIR } from '../domain/artifacts.js';
import { allProjectTypes, projectType, typeFor } from '../domain/project-types/index.js';
import { errorClass, NotInitializedError, SowError, TaskBlockedError, UsageError } from '../domain/errors.js';
import { phaseOf, withPhase } from '../domain/phases.js';
import type { Artifact, ProjectState, TaskState } from '../domain/schemas.js';
import type { PhaseDef, PullRequestCapability } from '../domain/project-type.js';
import { newestEvidence, placeArtifact } from '../domain/project-types/evidence.js';
import { gh, GH_ARGS, ghJson, repoOfUrl, type GhRun, type IssueListOptions } from '../adapters/gh.js';
import { git, gitRun, upstreamOf, val } from '../adapters/git.js';
import { readRepoConfig, REPO_CONFIG } from '../adapters/repo-config.js';
import { findRepoRoot } from '../adapters/repo.js';
import { checkoutsWithProject } from './worktree.js';
import { newProject } from './project.js';
import { openRoot, Reader, update } from './workspace.js';
import type { AppContext } from './context.js';
import { quoted } from '../domain/display.js';
import { defined, isRecord } from '../domain/json.js';

class NoGithubRepoError extends errorClass('NO_GITHUB_REPO', 'failed', (origin: string | undefined) => [
  origin === undefined
    ? 'sow cannot tell which GitHub repository this is: there is no origin remote'
    : `sow cannot tell which GitHub repository this is: origin (${origin}) is not a GitHub URL`,
  `name it in ${REPO_CONFIG}:\n  github:\n    repo: owner/name`,
]) {}

class IssueLinkedError extends errorClass('ISSUE_LINKED', 'failed', (n: number, branches: readonly string[]) => [
  `issue #${n} is already linked ` +
    `to ${branches.length === 1 ? 'branch' : 'branches'} ${branches.map((b) => `'${b}'`).join(', ')}`,
  `continue it there ('git checkout ${branches[0]}' or 'sow worktree add ${branches[0]}'), or pass ` +
    `--branch ${branches[0]} to start the project on it`,
  { issue: n, branches: [...branches] },
]) {}

export async function githubRepo(root: string): Promise<string> {
  const { config } = await readRepoConfig(root);
  if (config.github?.repo) return config.github.repo;
  const origin = gitRun(root, ['remote', 'get-url', 'origin']);
  const repo = origin.ok ? repoOfUrl(origin.out) : undefined;
  if (!repo) throw new NoGithubRepoError(origin.ok ? origin.out : undefined);
  return repo;
}

/** gh answered, but not with what its --json fields promise (another gh version, a proxy, a fake): exit 5. */
class GhReplyError extends errorClass('GH_UNEXPECTED_REPLY', 'external', (what: string, got: unknown) => [
  `gh answered with something that is not ${what}: ${JSON.stringify(got)?.slice(0, 120) ?? String(got)}`,
  "run the gh command by hand to see what it says ('gh --version' too: sow is tested with gh 2.23 and later); " +
    'nothing was changed',
  { expected: what },
]) {}

const isNumber = (x: unknown): x is number => Number.isSafeInteger(x) && (x as number) > 0;

function issueOf(raw: unknown) {
  if (!isRecord(raw) || !isNumber(raw['number']) || typeof raw['title'] !== 'string')
    throw new GhReplyError('an issue (a number and a title)', raw);
  const labels = Array.isArray(raw['labels'])
    ? raw['labels'].map((l) => (isRecord(l) && typeof l['name'] === 'string' ? l['name'] : String(l)))
    : [];
  return {
    number: raw['number'],
    title: raw['title'],
    state: typeof raw['state'] === 'string' ? raw['state'] : 'UNKNOWN',
    labels,
    url: typeof raw['url'] === 'string' ? raw['url'] : '',
    ...(typeof raw['body'] === 'string' ? { body: raw['body'] } : {}),
  };
}

export function parseIssueNumber(raw: string): number {
  const m = /^#?(\d+)$/.exec(raw.trim());
  if (!m || Number(m[1]) < 1)
    throw new UsageError(`'${raw}' is not an issue number`, 'give the number, e.g. 42 or #42');
  return Number(m[1]);
}

/** The GitHub repository of the checkout at `root` (found from ctx), and how gh runs there. */
async function onGithub(ctx: AppContext, root?: string): Promise<{ repo: string; run: GhRun }> {
  root ??= await openRoot(ctx);
  return { repo: await githubRepo(root), run: { cwd: root, env: ctx.env } };
}

export async function issueList(ctx: AppContext, opts: IssueListOptions) {
  const { repo, run } = await onGithub(ctx);
  const raw = ghJson(run, GH_ARGS.issueList(repo, opts), repo);
  if (!Array.isArray(raw)) throw new GhReplyError('a list of issues', raw);
  return { repo, issues: raw.map(issueOf) };
}

const viewIssue = async (run: GhRun, repo: string, n: number) => issueOf(ghJson(run, GH_ARGS.issueView(repo, n), repo));

export async function issueShow(ctx: AppContext, n: number) {
  const { repo, run } = await onGithub(ctx);
  return { repo, issue: await viewIssue(run, repo, n) };
}

/** The branches GitHub links to the issue (`gh issue develop --list`: a branch name first on each line). */
function linkedBranches(run: GhRun, repo: string, n: number): string[] {
  return gh(run, GH_ARGS.issueLinkedBranches(repo, n), repo)
    .split('\n')
    .map((l) => l.trim().split(/\s+/)[0] ?? '')
    .filter(Boolean);
}

type LocalProject = { branch: string; rel: string; name: string };

/** Projects in this checkout and its worktrees that started from issue `n` (only each project file is read). */
async function localProjectsOf(ctx: AppContext, n: number): Promise<LocalProject[]> {
  const found: LocalProject[] = [];
  for (const tree of checkoutsWithProject(ctx.cwd)) {
    const project = await Reader.read({ ...ctx, cwd: tree.path }, (r) => r.project, { otherBranch: 'quiet' }).catch(
      () => undefined,
    );
    if (project && issueInputOf(project)?.metadata?.['number'] === n)
      found.push({ branch: project.branch, rel: tree.rel, name: project.name });
  }
  return found;
}

/** The branches GitHub links to issue `n`, and the projects here (this checkout and its worktrees) started from it. */
export async function issueCheck(ctx: AppContext, n: number) {
  const { repo, run } = await onGithub(ctx);
  return { repo, issue: n, branches: linkedBranches(run, repo, n), projects: await localProjectsOf(ctx, n) };
}

/** `Add JWT auth!` → `add-jwt-auth`: lower-case letters, digits and dashes, at most 40 characters. */
export function slugOf(title: string): string {
  const slug = title
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug.slice(0, 40).replace(/-+$/, '');
}

const issueFile = (n: number) => `context/issue-${n}.md`;
const takesIssue = (p: PhaseDef) => p.inputs.some((t) => t.name === 'github_issue');
const issueInputOf = (project: ProjectState): Artifact | undefined =>
  Object.values(project.phases)
    .flatMap((p) => p.inputs)
    .find((a) => a.type === 'github_issue');

// `sow project new --issue <n>`: the issue names the project and branch (`feat/<n>-<slug>`); refused when it is linked
// to another branch, on GitHub or by a project here.
export async function newProjectFromIssue(
  ctx: AppContext,
  n: number,
  opts: { name?: string; branch?: string; planning: boolean; type?: string },
) {
  // Without .sow/ yet, newProject initialises it once GitHub has answered.
  let initialised = true;
  const root = await openRoot(ctx).catch((err: unknown) => {
    if (!(err instanceof NotInitializedError)) throw err;
    initialised = false;
    return findRepoRoot(ctx.cwd);
  });
  const { repo, run } = await onGithub(ctx, root);
  const issue = await viewIssue(run, repo, n);
  const slug = slugOf(issue.title) || `issue-${n}`;
  const branch = opts.branch ?? `feat/${n}-${slug}`;
  const type = await typeFor(opts.type, branch);
  if (!type.phases.some(takesIssue)) {
    const types = (await allProjectTypes()).filter((t) => t.phases.some(takesIssue)).map((t) => t.name);
    throw new UsageError(
      `a ${type.name} project does not start from an issue`,
      `leave out --issue, or use a type that does (${types.join(', ')})`,
    );
  }
  // Without .sow/ here, no project of this checkout can have started from the issue.
  const local = initialised ? await localProjectsOf(ctx, n) : [];
  const linked = new Set([...linkedBranches(run, repo, n), ...local.map((p) => p.branch)]);
  const elsewhere = [...linked].filter((b) => b !== branch);
  if (elsewhere.length) throw new IssueLinkedError(n, elsewhere);
  const created = await newProject(ctx, {
    name: opts.name ?? slug,
    description: issue.title,
    branch,
    planning: opts.planning,
    ...defined({ type: opts.type }),
  });
  const input: Artifact = {
    type: 'github_issue',
    path: issueFile(n),
    created_at: ctx.now(),
    metadata: { number: n, url: issue.url, title: issue.title },
  };
  await update(ctx, async (uow) => {
    const project = await uow.project();
    // The first enabled phase that takes the issue (planning, or implementation without it).
    const phase = type.phases.find((p) => project.phases[p.name]?.enabled && takesIssue(p))!.name;
    const text = `# #${n}: ${issue.title}\n\n${issue.url}\n\n${(issue.body ?? '').trim()}\n`;
    uow.tx.write(`${PROJECT_DIR}/${issueFile(n)}`, text);
    const current = phaseOf(project, phase);
    uow.setProject(withPhase(project, phase, { ...current, inputs: [...current.inputs, input] }));
  });
  let problem: string | undefined;
  const base = created.project.base_branch;
  try {
    if (!linkedBranches(run, repo, n).includes(branch)) {
      if (base) gh(run, GH_ARGS.issueLinkBranch(repo, n, branch, base), repo);
      else problem = 'the project has no base branch to link from';
    }
  } catch (err) {
    problem = err instanceof Error ? err.message : String(err);
  }
  // linked: whether GitHub links the branch to the issue now; link_problem: why not, when it does not.
  return { ...created, issue, repo, linked: problem === undefined, ...(problem ? { link_problem: problem } : {}) };
}

/** How the project's type makes a pull request; a type without one refuses. */
async function pullRequestOf(project: ProjectState): Promise<PullRequestCapability> {
  const capability = (await projectType(project.type)).pullRequest;
  if (!capability)
    throw new SowError(
      'NO_PULL_REQUEST',
      'failed',
      `this ${project.type} project has no pull request: 'sow pr create' belongs to projects that review and ` +
        `finalize a change`,
      "open one with gh yourself if you need it ('gh pr create')",
    );
  return capability;
}

/** The body of the pull request: what was planned and done, the review, the checks, the issue it closes. */
export async function pullRequestBody(project: ProjectState, tasks: readonly TaskState[]): Promise<string> {
  const issue = issueInputOf(project);
  const { reviewPhase, recordPhase } = await pullRequestOf(project);
  const review = [...phaseOf(project, reviewPhase).outputs].reverse().find((a) => a.type === 'review' && a.approved);
  const evidence = [...newestEvidence(phaseOf(project, recordPhase).outputs).values()];
  const lines = [`${project.description || project.name}`, ''];
  if (issue) lines.push(`Closes #${String(issue.metadata?.['number'])}`, '');
  lines.push('## What was done', '');
  if (tasks.length === 0) lines.push('No tasks were recorded.');
  for (const t of tasks) {
    const mark = t.status === 'completed' ? 'x' : ' ';
    lines.push(`- [${mark}] ${t.id} ${t.name}${t.status === 'completed' ? '' : ` (${t.status})`}`);
    const files = t.outputs.filter((o) => o.type === 'modified').map((o) => `\`${o.path}\``);
    if (files.length) lines.push(`  - ${files.join(', ')}`);
  }
  lines.push('', '## Review', '');
  lines.push(
    review
      ? `Assessment: **${String(review.metadata?.['assessment'] ?? 'unknown')}** (${review.path}, approved)`
      : 'No approved review was recorded.',
  );
  lines.push('', '## Checks', '');
  if (evidence.length === 0) lines.push('No checks were run while finalizing.');
  for (const e of evidence) {
    const m = e.metadata ?? {};
    const dirty = m['dirty'] ? ' (with uncommitted changes)' : '';
    const commit = typeof m['commit'] === 'string' ? ` on ${m['commit'].slice(0, 7)}${dirty}` : '';
    const [mark, outcome] = m['exit_code'] === 0 ? ['✓', 'passed'] : ['✗', `failed (exit ${String(m['exit_code'])})`];
    lines.push(`- ${mark} ${String(m['check'])}: \`${String(m['run'])}\` ${outcome}${commit}`);
  }
  lines.push('', `_Opened by sow from the project '${project.name}' (branch \`${project.branch}\`)._`);
  return `${lines.join('\n')}\n`;
}

const PR_BODY = 'finalize/pull-request.md';

function openPrOf(run: GhRun, repo: string, branch: string) {
  const raw = ghJson(run, GH_ARGS.prForBranch(repo, branch), repo);
  if (!Array.isArray(raw)) throw new GhReplyError('a list of pull requests', raw);
  const pr = raw.find((p) => isRecord(p) && isNumber(p['number']));
  return pr && { number: pr['number'] as number, url: String(pr['url'] ?? ''), draft: pr['isDraft'] === true };
}

async function recordPullRequest(ctx: AppContext, pr: { number: number; url: string; draft: boolean }): Promise<void> {
  await update(ctx, async (uow) => {
    const project = await uow.project();
    const { recordPhase } = await pullRequestOf(project);
    const finalize = phaseOf(project, recordPhase);
    const at = finalize.outputs.findIndex((a) => a.type === 'pull_request' && a.metadata?.['number'] === pr.number);
    const artifact: Artifact = {
      type: 'pull_request',
      path: PR_BODY,
      created_at: at >= 0 ? finalize.outputs[at]!.created_at : uow.now,
      metadata: { number: pr.number, url: pr.url, draft: pr.draft },
    };
    const outputs =
      at >= 0
        ? finalize.outputs.map((a, i) => (i === at ? artifact : a))
        : placeArtifact(finalize.outputs, artifact).list;
    uow.setProject(withPhase(project, recordPhase, { ...finalize, outputs }));
  });
}

// `sow pr create [--draft]`: the branch's pull request, recorded as the `pull_request` output (an open one is recorded,
// not a second); an unpushed branch goes to origin first.
export async function prCreate(ctx: AppContext, opts: { draft: boolean; force: boolean }) {
  const { root, project, tasks } = await Reader.read(
    ctx,
    async (r) => {
      // The project's state must be one the type opens its pull request in (finalizing), unless forced.
      const { states } = await pullRequestOf(r.project);
      const state = r.project.statechart.current_state;
      if (!opts.force && !states.includes(state))
        throw new TaskBlockedError(
          `the pull request is opened while finalizing; the project is in ${state}`,
          `run 'sow advance' until ${states[0]}, or pass --force to open it now`,
          { state },
        );
      return { root: r.root, project: r.project, tasks: await r.taskStates() };
    },
    { otherBranch: 'refuse' },
  );
  const { repo, run } = await onGithub(ctx, root);
  const found = openPrOf(run, repo, project.branch);
  if (found) {
    await recordPullRequest(ctx, found);
    return { repo, ...found, created: false, pushed: false };
  }
  const base = project.base_branch;
  if (!base)
    throw new SowError(
      'NO_BASE_BRANCH',
      'failed',
      'the project has no base branch to open the pull request into',
      "set it: 'sow project set base_branch main'",
    );
  let pushed = false;
  // The branch comes from the project's state file: after `--`, where git never reads an option.
  if (upstreamOf(root, project.branch) === undefined) {
    git(root, ['push', '--quiet', '--set-upstream', '--', 'origin', val(project.branch, "the project's branch")]);
    pushed = true;
  }
  const body = await pullRequestBody(project, tasks);
  // The body is written first: gh reads it from the file, and it stays as the output's document.
  await update(ctx, async (uow) => uow.tx.write(`${PROJECT_DIR}/${PR_BODY}`, body));
  const title = issueInputOf(project)?.metadata?.['title'];
  const out = gh(
    run,
    GH_ARGS.prCreate(repo, {
      head: project.branch,
      base,
      title: typeof title === 'string' ? title : project.description || project.name,
      bodyFile: join(root, PROJECT_DIR, PR_BODY),
      draft: opts.draft,
    }),
    repo,
  );
  const url = out.trim().split('\n').filter(Boolean).at(-1) ?? '';
  const number = Number(/\/pull\/(\d+)/.exec(url)?.[1]);
  if (!Number.isInteger(number) || number < 1)
    throw new SowError(
      'GH_UNEXPECTED_REPLY',
      'external',
      `gh opened the pull request but sow could not read its number from '${url}'`,
      "run 'gh pr list --head <branch>' to see it; 'sow pr create' again records it",
    );
  const created = { number, url, draft: opts.draft };
  await recordPullRequest(ctx, created);
  return { repo, ...created, created: true, pushed };
}

/** `sow pr ready`: the project's pull request, out of draft. */
export async function prReady(ctx: AppContext): Promise<{ repo: string; number: number; url: string }> {
  const root = await openRoot(ctx);
  const project = await Reader.read(ctx, (r) => r.project, { otherBranch: 'refuse' });
  const { repo, run } = await onGithub(ctx, root);
  const recorded = [...phaseOf(project, (await pullRequestOf(project)).recordPhase).outputs]
    .reverse()
    .find((a) => a.type === 'pull_request');
  const pr = recorded
    ? { number: Number(recorded.metadata?.['number']), url: String(recorded.metadata?.['url'] ?? '') }
    : openPrOf(run, repo, project.branch);
  if (!pr || !Number.isInteger(pr.number))
    throw new SowError(
      'NO_PULL_REQUEST',
      'failed',
      `branch ${quoted(project.branch)} has no pull request yet`,
      "open one with 'sow pr create --draft'",
    );
  gh(run, GH_ARGS.prReady(repo, pr.number), repo);
  await recordPullRequest(ctx, { number: pr.number, url: pr.url, draft: false });
  return { repo, number: pr.number, url: pr.url };
}
