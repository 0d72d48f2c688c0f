/**
 * GitHub through gh, in-process: the fake gh of test/fakes (strict about subcommands and flags,
 * logging its argv, answering from a state file) on the PATH of the context the test passes —
 * this process's PATH has no gh. `issue list|show|check`, `project new --issue`, `pr create|ready`,
 * the repository every call names, and what a gh that fails or answers strangely does.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT, refused, said, T0, TASK_LIST, worlds, type World } from '../../test/inproc.js';
import { fakes, type Fakes } from '../../test/inproc-fakes.js';
import {
  githubRepo,
  issueCheck,
  issueList,
  issueShow,
  newProjectFromIssue,
  parseIssueNumber,
  prCreate,
  prReady,
  pullRequestBody,
  slugOf,
} from './github.js';
import { newProject } from './project.js';
import { addArtifact, setArtifact } from './artifacts.js';
import { advanceProject } from './advance.js';
import { setPhaseField } from './phase.js';
import { addTask } from './task.js';
import { abandonTask, setTaskField } from './task-change.js';
import { addWorktreeFor } from './worktree.js';

const ISSUES = [
  {
    number: 42,
    title: 'Add JWT authentication!',
    state: 'OPEN',
    labels: [{ name: 'feature' }],
    url: 'https://github.com/acme/api/issues/42',
    body: 'Tokens signed with HS256.\nExpire after 15 minutes.',
  },
  {
    number: 7,
    title: 'Crash on empty body',
    state: 'OPEN',
    labels: [{ name: 'bug' }],
    url: 'https://github.com/acme/api/issues/7',
    body: 'Steps…',
  },
  { number: 3, title: 'Old thing', state: 'CLOSED', labels: [], url: 'https://github.com/acme/api/issues/3', body: '' },
];

const world = worlds({
  /** A repository whose origin is github.com/acme/api (never reached: gh is fake). */
  github: async (w) => {
    w.git(['remote', 'add', 'origin', 'https://github.com/acme/api.git']);
  },
});

const temps: string[] = [];
afterEach(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function setup(
  from: 'github' | 'init' | 'bare' = 'github',
  state: object = { repo: 'acme/api', issues: ISSUES },
): Promise<{ w: World; f: Fakes; ctx: (env?: Record<string, string>) => ReturnType<World['ctx']> }> {
  const w = await world(from);
  const f = fakes();
  f.setGhState(state);
  return { w, f, ctx: (env = {}) => w.ctx({ ...f.env, ...env }) };
}

describe('issue list | show | check', () => {
  it("list and show ask gh on the context's PATH, naming the origin's repository", async () => {
    const { f, ctx } = await setup();
    const r = await issueList(ctx(), { state: 'open', limit: 30 });
    expect(r.repo).toBe('acme/api');
    expect(r.issues.map((i) => i.number)).toEqual([42, 7]);
    expect(r.issues[0]).toEqual({
      number: 42,
      title: 'Add JWT authentication!',
      state: 'OPEN',
      labels: ['feature'],
      url: 'https://github.com/acme/api/issues/42',
    });
    await issueList(ctx(), { state: 'all', label: 'bug', limit: 5 });
    expect(f.ghCalls().map((c) => c.argv)).toEqual([
      ['issue', 'list', '--repo=acme/api', '--state=open', '--limit=30', '--json=number,title,state,labels,url'],
      [
        'issue',
        'list',
        '--repo=acme/api',
        '--state=all',
        '--label=bug',
        '--limit=5',
        '--json=number,title,state,labels,url',
      ],
    ]);
    const shown = await issueShow(ctx(), parseIssueNumber('#42'));
    expect(shown.issue.body).toBe('Tokens signed with HS256.\nExpire after 15 minutes.');
    expect(f.ghCalls().at(-1)!.argv).toEqual([
      'issue',
      'view',
      '42',
      '--repo=acme/api',
      '--json=number,title,state,labels,url,body',
    ]);
    const missing = await refused((await setup()).w, () => issueShow(ctx(), 99), 'GH_FAILED', 5);
    expect(missing.message).toContain('Could not resolve to an issue or pull request with the number of 99');
  });

  it(
    'the repository: github.repo of .sow/config.yaml wins over origin; no origin, or one not on GitHub, says how ' +
      'to name it',
    async () => {
      const { w, f, ctx } = await setup('init', { repo: 'acme/other', issues: ISSUES });
      const none = said(await refused(w, () => issueList(ctx(), { state: 'open', limit: 30 }), 'NO_GITHUB_REPO', 1));
      expect(none).toContain('there is no origin remote');
      expect(none).toContain('github:\n    repo: owner/name');
      w.git(['remote', 'add', 'origin', '/srv/not-github.git']);
      expect(
        said(await refused(w, () => issueList(ctx(), { state: 'open', limit: 30 }), 'NO_GITHUB_REPO', 1)),
      ).toContain('origin (/srv/not-github.git) is not a GitHub URL');
      w.write('.sow/config.yaml', 'github:\n  repo: acme/other\n');
      expect(await githubRepo(w.dir)).toBe('acme/other');
      await issueList(ctx(), { state: 'open', limit: 30 });
      expect(f.ghCalls().at(-1)!.argv[2]).toBe('--repo=acme/other');
      w.write('.sow/config.yaml', 'github:\n  repo: not a repo\n');
      await refused(w, () => issueList(ctx(), { state: 'open', limit: 30 }), 'CONFIG_INVALID', 4);
    },
  );

  it(
    "gh not on the context's PATH: GH_NOT_FOUND; not logged in: GH_NOT_AUTHENTICATED; a gh error: GH_FAILED with " +
      'its words (all exit 5)',
    async () => {
      const { w, ctx } = await setup();
      const list = () => issueList(ctx(), { state: 'open', limit: 30 });
      expect(
        (
          await refused(
            w,
            () => issueList(ctx({ PATH: '/nonexistent' }), { state: 'open', limit: 30 }),
            'GH_NOT_FOUND',
            5,
          )
        ).hint,
      ).toContain('https://cli.github.com');
      const auth = await refused(
        w,
        () => issueList(ctx({ FAKE_GH_FAIL: 'auth' }), { state: 'open', limit: 30 }),
        'GH_NOT_AUTHENTICATED',
        5,
      );
      expect(auth.message).toBe('gh is not logged in to GitHub, so it cannot reach acme/api');
      const failed = await refused(
        w,
        () => issueList(ctx({ FAKE_GH_FAIL: 'error' }), { state: 'open', limit: 30 }),
        'GH_FAILED',
        5,
      );
      expect(failed.message).toBe("'gh issue list' failed: HTTP 502: Bad Gateway (https://api.github.com/graphql)");
      await list();
    },
  );

  it(
    'a gh reply of the wrong shape is GH_UNEXPECTED_REPLY (exit 5), never a usage error or a crash, and ' +
      'changes nothing',
    async () => {
      const { w, ctx } = await setup();
      const replies: [() => Promise<unknown>, string][] = [
        [() => issueList(ctx({ FAKE_GH_REPLY: '{"not":"a list"}' }), { state: 'open', limit: 30 }), 'list'],
        [
          () => issueList(ctx({ FAKE_GH_REPLY: '[{"number":"7","title":"x"}]' }), { state: 'open', limit: 30 }),
          'number as a string',
        ],
        [() => issueShow(ctx({ FAKE_GH_REPLY: '[]' }), 42), 'a list'],
        [() => issueShow(ctx({ FAKE_GH_REPLY: '{"number":1e308,"title":"x"}' }), 42), 'a huge number'],
        [() => issueShow(ctx({ FAKE_GH_REPLY: '{"number":-1,"title":"x"}' }), 42), 'a negative number'],
        [() => issueShow(ctx({ FAKE_GH_REPLY: 'null' }), 42), 'null'],
        [
          () => newProjectFromIssue(ctx({ FAKE_GH_REPLY: '{"title":"no number"}' }), 42, { planning: true }),
          'no number',
        ],
      ];
      for (const [run] of replies) await refused(w, run, 'GH_UNEXPECTED_REPLY', 5);
      expect(w.exists(PROJECT)).toBe(false);
    },
  );

  it('issue numbers and slugs', () => {
    expect(parseIssueNumber(' #42 ')).toBe(42);
    expect(() => parseIssueNumber('forty-two')).toThrow(/'forty-two' is not an issue number/);
    expect(() => parseIssueNumber('0')).toThrow(/not an issue number/);
    expect(slugOf('Add JWT authentication!')).toBe('add-jwt-authentication');
    expect(slugOf('a'.repeat(39) + ' b c')).toBe('a'.repeat(39));
    expect(slugOf('!!!')).toBe('');
  });
});

describe('project new --issue', () => {
  it(
    "name, branch and description from the issue; its text as the github_issue input, recorded at the context's " +
      'time; the branch linked on GitHub',
    async () => {
      const { w, f, ctx } = await setup();
      const r = await newProjectFromIssue(ctx(), 42, { planning: true });
      expect(r).toMatchObject({ repo: 'acme/api', linked: true, branch: 'feat/42-add-jwt-authentication' });
      expect(r.link_problem).toBeUndefined();
      const project = w.yaml(PROJECT);
      expect(project).toMatchObject({
        name: 'add-jwt-authentication',
        description: 'Add JWT authentication!',
        branch: 'feat/42-add-jwt-authentication',
        base_branch: 'main',
      });
      expect(project.phases.planning.inputs).toEqual([
        {
          type: 'github_issue',
          path: 'context/issue-42.md',
          created_at: T0,
          metadata: { number: 42, url: 'https://github.com/acme/api/issues/42', title: 'Add JWT authentication!' },
        },
      ]);
      expect(w.read('.sow/project/context/issue-42.md')).toBe(
        '# #42: Add JWT authentication!\n\nhttps://github.com/acme/api/issues/42\n\nTokens signed with ' +
          'HS256.\nExpire after 15 minutes.\n',
      );
      expect(f.ghCalls().map((c) => c.argv.slice(0, 3).join(' '))).toEqual([
        'issue view 42',
        'issue develop --list',
        'issue develop --list',
        'issue develop 42',
      ]);
      expect(f.ghState().linked).toEqual({ 42: ['feat/42-add-jwt-authentication'] });
      const check = await issueCheck(ctx(), 42);
      expect(check).toEqual({
        repo: 'acme/api',
        issue: 42,
        branches: ['feat/42-add-jwt-authentication'],
        projects: [{ branch: 'feat/42-add-jwt-authentication', rel: '.', name: 'add-jwt-authentication' }],
      });
      expect(await issueCheck(ctx(), 7)).toEqual({ repo: 'acme/api', issue: 7, branches: [], projects: [] });
    },
  );

  it(
    'in a repository without .sow/, initialises it once GitHub has answered; an issue gh cannot show leaves ' +
      'nothing behind',
    async () => {
      const { w, ctx } = await setup('bare');
      w.git(['remote', 'add', 'origin', 'https://github.com/acme/api.git']);
      await expect(newProjectFromIssue(ctx(), 99, { planning: true })).rejects.toMatchObject({ code: 'GH_FAILED' });
      expect(w.exists('.sow'), 'a refused project new initialises nothing').toBe(false);
      await newProjectFromIssue(ctx(), 42, { planning: true });
      expect(w.exists('.sow/.version')).toBe(true);
      expect(w.yaml(PROJECT).phases.planning.inputs.map((i: any) => i.type)).toEqual(['github_issue']);
    },
  );

  it(
    'refused when GitHub links the issue to another branch, creating nothing; --branch that branch works without a ' +
      'second link',
    async () => {
      const { w, f, ctx } = await setup('github', {
        repo: 'acme/api',
        issues: ISSUES,
        linked: { 7: ['fix/empty-body'] },
      });
      const e = await refused(w, () => newProjectFromIssue(ctx(), 7, { planning: true }), 'ISSUE_LINKED', 1);
      expect(e.message).toBe("issue #7 is already linked to branch 'fix/empty-body'");
      expect(e.hint).toContain('--branch fix/empty-body');
      expect(w.git(['branch', '--show-current'])).toBe('main');
      expect(w.exists(PROJECT)).toBe(false);
      const r = await newProjectFromIssue(ctx(), 7, { name: 'empty-body', branch: 'fix/empty-body', planning: true });
      expect(r.linked).toBe(true);
      expect(f.ghCalls().filter((c) => c.argv[1] === 'develop' && c.argv[2] !== '--list')).toEqual([]);
      expect(w.yaml(PROJECT)).toMatchObject({ name: 'empty-body', branch: 'fix/empty-body' });
    },
  );

  it(
    "a link gh cannot make is said, not a failure; without planning the issue is implementation's input; a type " +
      'that takes no issue is refused',
    async () => {
      const { w, ctx } = await setup();
      const r = await newProjectFromIssue(ctx({ FAKE_GH_FAIL: 'develop' }), 7, { branch: 'fix/7', planning: false });
      expect(r.linked).toBe(false);
      expect(r.link_problem).toBe(
        "'gh issue develop' failed: GraphQL: Resource not accessible by integration (createLinkedBranch)",
      );
      expect(w.yaml(PROJECT).phases.implementation.inputs.map((i: any) => i.type)).toEqual(['github_issue']);
      const other = await setup();
      const e = await refused(
        other.w,
        () => newProjectFromIssue(other.ctx(), 7, { planning: true, type: 'iterative' }),
        'USAGE',
        2,
      );
      expect(e.message).toBe('a iterative project does not start from an issue');
    },
  );

  it(
    'a project started from an issue in a worktree is found from the main checkout, and a second start there ' +
      'is refused',
    async () => {
      const { w, ctx } = await setup();
      w.git(['add', '.sow']);
      w.git(['commit', '-q', '-m', 'sow']);
      await addWorktreeFor(ctx(), 'feat/42-jwt', undefined);
      const wt = '.sow/worktrees/feat/42-jwt';
      const r = await newProjectFromIssue(w.ctx(ctxEnv(ctx), wt), 42, { branch: 'feat/42-jwt', planning: true });
      expect(r).toMatchObject({ branch: 'feat/42-jwt', createdBranch: false });
      expect(w.read(`${wt}/.sow/project/context/issue-42.md`)).toContain('Tokens signed with HS256.');
      expect((await issueCheck(ctx(), 42)).projects).toEqual([
        { branch: 'feat/42-jwt', rel: '.sow/worktrees/feat/42-jwt', name: 'add-jwt-authentication' },
      ]);
      const e = await refused(w, () => newProjectFromIssue(ctx(), 42, { planning: true }), 'ISSUE_LINKED', 1);
      expect(e.message).toBe("issue #42 is already linked to branch 'feat/42-jwt'");
      expect(w.exists(PROJECT)).toBe(false);
    },
  );
});

describe('pr create | ready', () => {
  it(
    "opens the pull request once (pushing the branch first), recorded as the pull_request output at the context's " +
      'time; ready marks it',
    async () => {
      const { w, f, ctx } = await setup('init');
      const origin = mkdtempSync(join(tmpdir(), 'sow-inproc-origin-'));
      temps.push(origin);
      execFileSync('git', ['init', '-q', '--bare', origin]);
      w.git(['remote', 'add', 'origin', origin]);
      w.git(['push', '-q', 'origin', 'main']);
      w.write('.sow/config.yaml', 'github:\n  repo: acme/api\n');
      await newProjectFromIssue(ctx(), 42, { planning: true });
      // Not while planning, unless forced.
      const blocked = await refused(w, () => prCreate(ctx(), { draft: true, force: false }), 'TASK_BLOCKED', 3);
      expect(blocked.hint).toContain('--force');
      expect(f.ghCalls().some((c) => c.argv[0] === 'pr')).toBe(false);
      w.git(['add', '-A']);
      w.git(['commit', '-q', '-m', 'work']);

      w.clock.advance(60);
      const r = await prCreate(ctx(), { draft: true, force: true });
      expect(r).toEqual({
        repo: 'acme/api',
        number: 101,
        url: 'https://github.com/acme/api/pull/101',
        draft: true,
        created: true,
        pushed: true,
      });
      expect(
        execFileSync('git', ['--git-dir', origin, 'branch', '--list', 'feat/42-add-jwt-authentication'], {
          encoding: 'utf8',
        }),
      ).toContain('feat/42-add-jwt-authentication');
      const create = f.ghCalls().find((c) => c.argv[1] === 'create')!;
      expect(create.argv).toEqual([
        'pr',
        'create',
        '--repo=acme/api',
        '--head=feat/42-add-jwt-authentication',
        '--base=main',
        '--title=Add JWT authentication!',
        `--body-file=${join(w.dir, '.sow/project/finalize/pull-request.md')}`,
        '--draft',
      ]);
      const body = f.ghState().prs[0].body;
      expect(body).toBe(readFileSync(join(w.dir, '.sow/project/finalize/pull-request.md'), 'utf8'));
      expect(body).toBe(await pullRequestBody(w.yaml(PROJECT), []));
      expect(body).toContain('Closes #42\n');
      const output = () => w.yaml(PROJECT).phases.finalize.outputs.filter((o: any) => o.type === 'pull_request');
      expect(output()).toEqual([
        {
          type: 'pull_request',
          path: 'finalize/pull-request.md',
          created_at: '2026-11-26T10:01:00.000Z',
          metadata: { number: 101, url: 'https://github.com/acme/api/pull/101', draft: true },
        },
      ]);

      // Again: found, not opened twice.
      expect(await prCreate(ctx(), { draft: false, force: true })).toMatchObject({
        number: 101,
        created: false,
        pushed: false,
      });
      expect(f.ghCalls().filter((c) => c.argv[1] === 'create')).toHaveLength(1);
      expect(output()).toHaveLength(1);

      expect(await prReady(ctx())).toEqual({
        repo: 'acme/api',
        number: 101,
        url: 'https://github.com/acme/api/pull/101',
      });
      expect(f.ghCalls().at(-1)!.argv).toEqual(['pr', 'ready', '101', '--repo=acme/api']);
      expect(f.ghState().prs[0].isDraft).toBe(false);
      expect(output()[0].metadata.draft).toBe(false);
    },
  );

  it(
    'while finalizing: the body says what was planned and done, the review and the checks, and closes the issue; ' +
      'refused on another branch or without a base branch',
    async () => {
      const { w, f, ctx } = await setup('init');
      const origin = mkdtempSync(join(tmpdir(), 'sow-inproc-origin-'));
      temps.push(origin);
      execFileSync('git', ['init', '-q', '--bare', origin]);
      w.git(['remote', 'add', 'origin', origin]);
      w.write('.sow/config.yaml', 'github:\n  repo: acme/api\n');
      await newProjectFromIssue(ctx(), 42, { planning: true });
      const c = w.ctx();
      w.write(TASK_LIST, '# Tasks\n');
      await addArtifact(c, { kind: 'phase' }, 'outputs', { type: 'task_list', path: 'planning/tasks.md', extra: {} });
      await setArtifact(c, { kind: 'phase' }, 'outputs', 0, 'approved', 'true');
      await advanceProject(c, undefined, false);
      await addTask(c, { name: 'Sign tokens', agent: 'implementer' });
      await addTask(c, { name: 'Drop the old login', agent: 'implementer' });
      await setPhaseField(c, 'tasks_approved', 'true');
      await advanceProject(c, undefined, false);
      w.write('src/jwt.ts', 'export {}\n');
      await setTaskField(c, '010', 'status', 'in_progress');
      await addArtifact(c, { kind: 'task', id: '010' }, 'outputs', { type: 'modified', path: 'src/jwt.ts', extra: {} });
      await setTaskField(c, '010', 'status', 'completed');
      await abandonTask(c, '020');
      await advanceProject(c, undefined, false);
      w.write('.sow/project/review/report.md', '# Review\n\nPass.\n');
      await addArtifact(c, { kind: 'phase' }, 'outputs', {
        type: 'review',
        path: 'review/report.md',
        extra: { assessment: 'pass' },
      });
      await setArtifact(c, { kind: 'phase' }, 'outputs', 0, 'approved', 'true');
      await advanceProject(c, undefined, false);
      expect(w.yaml(PROJECT).statechart.current_state).toBe('FinalizeDocumentation');
      w.git(['add', '-A']);
      w.git(['commit', '-q', '-m', 'work']);

      w.git(['checkout', '-q', '-b', 'elsewhere']);
      await refused(w, () => prCreate(ctx(), { draft: false, force: false }), 'WRONG_BRANCH', 1);
      w.git(['checkout', '-q', 'feat/42-add-jwt-authentication']);
      const state = w.read(PROJECT);
      w.write(PROJECT, state.replace(/^base_branch: main\n/m, ''));
      w.git(['commit', '-q', '-am', 'no base']);
      const nobase = await refused(w, () => prCreate(ctx(), { draft: false, force: false }), 'NO_BASE_BRANCH', 1);
      expect(nobase.hint).toContain('base_branch');
      w.write(PROJECT, state);
      w.git(['commit', '-q', '-am', 'base again']);

      const r = await prCreate(ctx(), { draft: false, force: false });
      expect(r).toMatchObject({ number: 101, created: true, pushed: true, draft: false });
      expect(f.ghState().prs[0].body).toBe(
        [
          'Add JWT authentication!',
          '',
          'Closes #42',
          '',
          '## What was done',
          '',
          '- [x] 010 Sign tokens',
          '  - `src/jwt.ts`',
          '- [ ] 020 Drop the old login (abandoned)',
          '',
          '## Review',
          '',
          'Assessment: **pass** (review/report.md, approved)',
          '',
          '## Checks',
          '',
          'No checks were run while finalizing.',
          '',
          "_Opened by sow from the project 'add-jwt-authentication' (branch `feat/42-add-jwt-authentication`)._",
          '',
        ].join('\n'),
      );
    },
  );

  it(
    'pr ready without a pull request says how to open one; ' + 'a project type without pull requests refuses both',
    async () => {
      const { w, f, ctx } = await setup();
      await newProject(w.ctx(), { name: 'x', description: 'x', planning: true });
      const e = await refused(w, () => prReady(ctx()), 'NO_PULL_REQUEST', 1);
      expect(e.message).toBe("branch 'feat/x' has no pull request yet");
      expect(e.hint).toContain('sow pr create --draft');
      expect(f.ghCalls().map((c) => c.argv.slice(0, 2).join(' '))).toEqual(['pr list']);

      const it = await setup();
      await newProject(it.w.ctx(), { name: 'loop', description: 'x', planning: true, type: 'iterative' });
      await refused(it.w, () => prCreate(it.ctx(), { draft: false, force: true }), 'NO_PULL_REQUEST', 1);
      await refused(it.w, () => prReady(it.ctx()), 'NO_PULL_REQUEST', 1);
    },
  );
});

describe('pullRequestBody', () => {
  it('lists the newest run of each check: passed or failed with its exit code, on its commit', async () => {
    const run = (check: string, exit_code: number, more: object) => ({
      type: 'evidence',
      path: `finalize/evidence/${check}.log`,
      created_at: T0,
      metadata: { check, run: `npm run ${check}`, exit_code, ...more },
    });
    const outputs = [run('unit', 0, { commit: 'abcdef123456', dirty: true }), run('lint', 2, {})];
    const phases = { review: { inputs: [], outputs: [] }, finalize: { inputs: [], outputs } };
    const project = { name: 'p', type: 'standard', branch: 'feat/p', phases };
    const body = await pullRequestBody(project as never, []);
    expect(body).toContain(
      '## Checks\n\n- ✓ unit: `npm run unit` passed on abcdef1 (with uncommitted changes)\n' +
        '- ✗ lint: `npm run lint` failed (exit 2)\n',
    );
  });
});

/** The environment of a context made by `ctx` (to use it from another folder). */
const ctxEnv = (ctx: () => ReturnType<World['ctx']>): Record<string, string> => ctx().env as Record<string, string>;
