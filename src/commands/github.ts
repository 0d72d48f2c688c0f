/** `sow issue …` and `sow pr …`: GitHub through the user's gh. */
import { shown } from '../domain/display.js';
import { oneOf } from '../model/args.js';
import { command, type CommandDef } from '../model/def.js';
import { UsageError } from '../domain/errors.js';

export const issue: readonly CommandDef[] = [
  command({
    name: 'issue list',
    description: 'List issues: number, title, labels',
    options: [
      { flags: '--state <state>', description: 'open, closed or all', default: 'open' },
      { flags: '--label <label>', description: 'only issues with this label' },
      { flags: '--limit <n>', description: 'at most this many', default: '30' },
    ],
    writes: false,
    async run(ctx, { opts }) {
      const state = oneOf('issue state', opts.state, ['open', 'closed', 'all'] as const, 'states');
      const limit = Number(opts.limit);
      if (!/^\d+$/.test(opts.limit) || !Number.isSafeInteger(limit) || limit < 1)
        throw new UsageError(`invalid --limit '${opts.limit}': expected a whole number ≥ 1`, 'for example --limit 100');
      const gh = await import('../app/github.js');
      const r = await gh.issueList(ctx.app, { state, limit, ...(opts.label ? { label: opts.label } : {}) });
      return {
        data: r.issues,
        text: r.issues
          .map((i) => {
            const labels = i.labels.length ? `  [${i.labels.join(', ')}]` : '';
            return `#${i.number}  ${i.title}${labels}${opts.state === 'all' ? `  (${i.state.toLowerCase()})` : ''}`;
          })
          .join('\n'),
        message: r.issues.length ? undefined : `No ${opts.state === 'all' ? '' : `${opts.state} `}issues in ${r.repo}`,
      };
    },
  }),
  command({
    name: 'issue show',
    description: 'Show an issue: title, state, labels, link and text',
    args: [{ name: 'n', description: 'the issue number' }],
    writes: false,
    async run(ctx, { args }) {
      const gh = await import('../app/github.js');
      const { issue: i } = await gh.issueShow(ctx.app, gh.parseIssueNumber(args[0] as string));
      return {
        data: i,
        text: [
          `#${i.number}  ${i.title}`,
          `${i.state.toLowerCase()}${i.labels.length ? `  [${i.labels.join(', ')}]` : ''}  ${i.url}`,
          '',
          (i.body ?? '').trim(),
        ]
          .join('\n')
          .trimEnd(),
      };
    },
  }),
  command({
    name: 'issue check',
    description: 'Is a branch or a project already linked to the issue?',
    args: [{ name: 'n', description: 'the issue number' }],
    writes: false,
    async run(ctx, { args }) {
      const gh = await import('../app/github.js');
      const r = await gh.issueCheck(ctx.app, gh.parseIssueNumber(args[0] as string));
      const lines = [
        ...r.branches.map((b) => `branch ${b} (linked on GitHub)`),
        ...r.projects.map((p) => `project ${shown(p.name)} on branch ${shown(p.branch)} (${shown(p.rel)})`),
      ];
      return {
        data: r,
        text: lines.join('\n'),
        message: lines.length
          ? `Issue #${r.issue} is taken: continue its work there`
          : `Issue #${r.issue} is free: 'sow project new --issue ${r.issue}' starts a project from it`,
      };
    },
  }),
];

export const pr: readonly CommandDef[] = [
  command({
    name: 'pr create',
    description:
      "Open the pull request of the project's branch into its base branch, with a body built from the project " +
      '(while finalizing)',
    options: [
      { flags: '--draft', description: 'open it as a draft' },
      { flags: '--force', description: 'open it before the project is finalizing' },
    ],
    async run(ctx, { opts }) {
      const gh = await import('../app/github.js');
      const r = await gh.prCreate(ctx.app, { draft: opts.draft === true, force: opts.force === true });
      const pr = r.created
        ? `Opened pull request #${r.number}${r.draft ? ' (draft)' : ''}`
        : `Pull request #${r.number} was open already`;
      return {
        data: r,
        text: r.url,
        message:
          `${pr} in ${r.repo}${r.pushed ? '; the branch was pushed to origin first' : ''}; recorded as the ` +
          `pull_request output`,
      };
    },
  }),
  command({
    name: 'pr ready',
    description: "Mark the project's pull request ready for review",
    async run(ctx) {
      const gh = await import('../app/github.js');
      const r = await gh.prReady(ctx.app);
      return { data: r, text: r.url, message: `Pull request #${r.number} is ready for review` };
    },
  }),
];
