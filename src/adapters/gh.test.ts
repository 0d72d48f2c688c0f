import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { argvOf } from './argv.js';
import { GH_ARGS, ISSUE_FIELDS, ISSUE_VIEW_FIELDS, PR_FIELDS, repoOfUrl } from './gh.js';

const HELP = join(import.meta.dirname, '../../test/fixtures/gh-help');
const help = (name: string) => readFileSync(join(HELP, `gh@2.23.0__${name}.txt`), 'utf8');

/** Every flag of argv (`--repo`, `-R`), without values (`-` is a value: stdin). */
const flagsOf = (argv: readonly string[]) =>
  argv.filter((a) => a.startsWith('-') && a !== '-').map((a) => a.split('=')[0]!);
const documented = (text: string, flag: string) =>
  new RegExp(`(^|[\\s,])${flag.replace(/-/g, '\\-')}(?=[\\s,=]|$)`, 'm').test(text);

describe('every gh call sow makes is one the pinned gh 2.23.0 knows (test/fixtures/gh-help)', () => {
  const R = 'acme/api';
  const calls: [string, readonly string[]][] = (
    [
      ['issue_list', GH_ARGS.issueList(R, { state: 'all', label: 'bug', limit: 5 })],
      ['issue_view', GH_ARGS.issueView(R, 7)],
      ['issue_develop', GH_ARGS.issueLinkedBranches(R, 7)],
      ['issue_develop', GH_ARGS.issueLinkBranch(R, 7, 'feat/7-x', 'main')],
      ['pr_list', GH_ARGS.prForBranch(R, 'feat/7-x')],
      [
        'pr_create',
        GH_ARGS.prCreate(R, { head: 'feat/7-x', base: 'main', title: 't', bodyFile: '/tmp/b.md', draft: true }),
      ],
      ['pr_ready', GH_ARGS.prReady(R, 12)],
      ['issue_create', GH_ARGS.issueCreate(R, { title: 'Add the parser' })],
    ] as const
  ).map(([name, args]) => [name, argvOf('gh', args)]);
  it.each(calls)('gh %s: the subcommand and each flag are in its help', (name, argv) => {
    const text = help(name);
    expect(text).toContain(`gh ${argv[0]} ${argv[1]}`);
    for (const flag of flagsOf(argv))
      expect(documented(text, flag), `${flag} in gh ${name.replace('_', ' ')} --help`).toBe(true);
    expect(flagsOf(argv), 'every call names the repository').toContain('--repo');
  });

  it('the JSON fields sow asks for are fields gh offers', () => {
    const fields = (name: string) =>
      new Set(
        help(name)
          .split('\n')
          .slice(1)
          .map((l) => l.trim())
          .filter(Boolean),
      );
    for (const f of ISSUE_FIELDS) expect(fields('issue_list_json_fields').has(f), f).toBe(true);
    for (const f of ISSUE_VIEW_FIELDS) expect(fields('issue_view_json_fields').has(f), f).toBe(true);
    for (const f of PR_FIELDS) expect(fields('pr_list_json_fields').has(f), f).toBe(true);
  });

  it('the check can fail', () => {
    expect(documented(help('pr_ready'), '--draft')).toBe(false);
    expect(documented(help('issue_view'), '--json')).toBe(true);
  });
});

describe('repoOfUrl', () => {
  it.each([
    ['https://github.com/acme/api.git', 'acme/api'],
    ['https://github.com/acme/api', 'acme/api'],
    ['https://user:tok@github.com/acme/api.git', 'acme/api'],
    ['git@github.com:acme/api.git', 'acme/api'],
    ['ssh://git@github.com/acme/api.git', 'acme/api'],
    ['ssh://git@github.com:22/acme/api', 'acme/api'],
    ['https://ghe.example.com/acme/api.git', 'ghe.example.com/acme/api'],
  ])('%s → %s', (url, repo) => {
    expect(repoOfUrl(url)).toBe(repo);
  });

  it.each(['/srv/git/api.git', 'file:///srv/git/api.git', 'https://github.com/acme', ''])(
    '%j is no GitHub repository',
    (url) => {
      expect(repoOfUrl(url)).toBeUndefined();
    },
  );
});
