import type { Command } from 'commander';
import { cwd, respond } from './output.js';
import { shown } from '../domain/display.js';

/** `sow issue …`: GitHub issues through gh. */
export function registerIssue(program: Command): void {
  const issue = program.command('issue').description('GitHub issues of this repository (through gh), to start projects from');

  issue
    .command('list')
    .description('List issues: number, title, labels')
    .option('--state <state>', 'open, closed or all', 'open')
    .option('--label <label>', 'only issues with this label')
    .option('--limit <n>', 'at most this many', '30')
    .action(async (opts: { state: string; label?: string; limit: string }) => {
      const { notOneOf, UsageError } = await import('../domain/errors.js');
      if (!['open', 'closed', 'all'].includes(opts.state)) throw notOneOf('issue state', opts.state, ['open', 'closed', 'all'], 'states');
      const limit = Number(opts.limit);
      if (!/^\d+$/.test(opts.limit) || !Number.isSafeInteger(limit) || limit < 1) throw new UsageError(`invalid --limit '${opts.limit}': expected a whole number ≥ 1`, 'for example --limit 100');
      const gh = await import('../app/github.js');
      const r = await gh.issueList(cwd(), { state: opts.state as 'open' | 'closed' | 'all', limit, ...(opts.label ? { label: opts.label } : {}) });
      respond({
        data: r.issues,
        text: r.issues.map((i) => `#${i.number}  ${i.title}${i.labels.length ? `  [${i.labels.join(', ')}]` : ''}${opts.state === 'all' ? `  (${i.state.toLowerCase()})` : ''}`).join('\n'),
        ...(r.issues.length ? {} : { message: `No ${opts.state === 'all' ? '' : `${opts.state} `}issues in ${r.repo}` }),
      });
    });

  issue
    .command('show')
    .description('Show an issue: title, state, labels, link and text')
    .argument('<n>', 'the issue number')
    .action(async (n: string) => {
      const gh = await import('../app/github.js');
      const { issue: i } = await gh.issueShow(cwd(), gh.parseIssueNumber(n));
      respond({ data: i, text: [`#${i.number}  ${i.title}`, `${i.state.toLowerCase()}${i.labels.length ? `  [${i.labels.join(', ')}]` : ''}  ${i.url}`, '', (i.body ?? '').trim()].join('\n').trimEnd() });
    });

  issue
    .command('check')
    .description('Is a branch or a project already linked to the issue?')
    .argument('<n>', 'the issue number')
    .action(async (n: string) => {
      const gh = await import('../app/github.js');
      const r = await gh.issueCheck(cwd(), gh.parseIssueNumber(n));
      const lines = [
        ...r.branches.map((b) => `branch ${b} (linked on GitHub)`),
        ...r.projects.map((p) => `project ${shown(p.name)} on branch ${shown(p.branch)} (${shown(p.rel)})`),
      ];
      respond({
        data: r,
        text: lines.join('\n'),
        message: lines.length ? `Issue #${r.issue} is taken: continue its work there` : `Issue #${r.issue} is free: 'sow project new --issue ${r.issue}' starts a project from it`,
      });
    });
}

/** `sow pr …`: the project's pull request through gh. */
export function registerPr(program: Command): void {
  const pr = program.command('pr').description("The project's pull request on GitHub (through gh)");

  pr
    .command('create')
    .description("Open the pull request of the project's branch into its base branch, with a body built from the project (while finalizing)")
    .option('--draft', 'open it as a draft')
    .option('--force', 'open it before the project is finalizing')
    .action(async (opts: { draft?: boolean; force?: boolean }) => {
      const gh = await import('../app/github.js');
      const r = await gh.prCreate(cwd(), { draft: opts.draft === true, force: opts.force === true });
      respond({
        data: r,
        text: r.url,
        message: `${r.created ? `Opened pull request #${r.number}${r.draft ? ' (draft)' : ''}` : `Pull request #${r.number} was open already`} in ${r.repo}${r.pushed ? '; the branch was pushed to origin first' : ''}; recorded as the pull_request output`,
      });
    });

  pr
    .command('ready')
    .description("Mark the project's pull request ready for review")
    .action(async () => {
      const gh = await import('../app/github.js');
      const r = await gh.prReady(cwd());
      respond({ data: r, text: r.url, message: `Pull request #${r.number} is ready for review` });
    });
}
