/**
 * GitHub through gh, end to end: the built sow in temp git repositories with a fake `gh` on PATH
 * (test/fakes/fake-gh.mjs: strict about subcommands and flags, records its argv, answers from a
 * state file). `sow issue list|show|check`, `sow project new --issue`, `sow pr create|ready`, and
 * what happens without gh, without a login, and when gh fails.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { expectEnvelope, expectFails, ok, PROJECT, TASK_LIST, useRepos, type Repo } from './harness.js';

const FAKE_GH = fileURLToPath(new URL('../fakes/fake-gh.mjs', import.meta.url));
const fresh = useRepos();
const temps: string[] = [];
afterEach(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});

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

interface Gh {
  env: Record<string, string>;
  calls(): { argv: string[]; cwd: string }[];
  state(): any;
  setState(s: object): void;
}

/** A bin folder with the fake gh first on PATH, its log and its state. */
function fakeGh(initial: object = { repo: 'acme/api', issues: ISSUES }): Gh {
  const dir = mkdtempSync(join(tmpdir(), 'sow-gh-'));
  temps.push(dir);
  mkdirSync(join(dir, 'bin'));
  writeFileSync(join(dir, 'bin', 'gh'), `#!/bin/sh\nexec "${process.execPath}" "${FAKE_GH}" "$@"\n`, { mode: 0o755 });
  const log = join(dir, 'calls.jsonl');
  const state = join(dir, 'state.json');
  writeFileSync(state, JSON.stringify(initial));
  return {
    env: { PATH: `${join(dir, 'bin')}:${process.env['PATH']}`, FAKE_GH_LOG: log, FAKE_GH_STATE: state },
    calls: () => {
      try {
        return readFileSync(log, 'utf8')
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l));
      } catch {
        return [];
      }
    },
    state: () => JSON.parse(readFileSync(state, 'utf8')),
    setState: (s) => writeFileSync(state, JSON.stringify(s)),
  };
}

/** A repository whose origin is github.com/acme/api (never reached: gh is fake). */
function onGithub(): Repo {
  const repo = fresh();
  repo.git(['remote', 'add', 'origin', 'https://github.com/acme/api.git']);
  return repo;
}

describe('sow issue list | show | check', () => {
  it("list: the open issues of the origin's repository, named with --repo; --state, --label, --limit; --json", () => {
    const repo = onGithub();
    const gh = fakeGh();
    const r = ok(repo, ['issue', 'list'], { env: gh.env });
    expect(r.stdout).toBe('#42  Add JWT authentication!  [feature]\n#7  Crash on empty body  [bug]\n');
    expect(gh.calls()[0]!.argv).toEqual([
      'issue',
      'list',
      '--repo=acme/api',
      '--state=open',
      '--limit=30',
      '--json=number,title,state,labels,url',
    ]);
    expect(
      ok(repo, ['issue', 'list', '--state', 'all', '--label', 'bug', '--limit', '5'], { env: gh.env }).stdout,
    ).toBe('#7  Crash on empty body  [bug]  (open)\n');
    expect(gh.calls()[1]!.argv).toEqual([
      'issue',
      'list',
      '--repo=acme/api',
      '--state=all',
      '--label=bug',
      '--limit=5',
      '--json=number,title,state,labels,url',
    ]);
    const j = expectEnvelope(ok(repo, ['issue', 'list', '--state', 'closed', '--json'], { env: gh.env }));
    expect(j.data).toEqual([
      { number: 3, title: 'Old thing', state: 'CLOSED', labels: [], url: 'https://github.com/acme/api/issues/3' },
    ]);
    expectFails(repo, ['issue', 'list', '--state', 'shut'], 2, 'USAGE');
    expectFails(repo, ['issue', 'list', '--limit', '0'], 2, 'USAGE');
  });

  it("show: title, state, labels, link and text; #42 and 42 alike; an unknown number is gh's error (exit 5)", () => {
    const repo = onGithub();
    const gh = fakeGh();
    const r = ok(repo, ['issue', 'show', '#42'], { env: gh.env });
    expect(r.stdout).toBe(
      '#42  Add JWT authentication!\nopen  [feature]  https://github.com/acme/api/issues/42\n\nTokens signed with ' +
        'HS256.\nExpire after 15 minutes.\n',
    );
    expect(gh.calls()[0]!.argv).toEqual([
      'issue',
      'view',
      '42',
      '--repo=acme/api',
      '--json=number,title,state,labels,url,body',
    ]);
    const missing = repo.sow(['issue', 'show', '99', '--json'], { env: gh.env });
    expect(missing.code).toBe(5);
    expect(missing.json?.error).toMatchObject({
      code: 'GH_FAILED',
      message: expect.stringContaining('Could not resolve to an issue or pull request with the number of 99'),
    });
    expectFails(repo, ['issue', 'show', 'forty-two'], 2, 'USAGE');
  });

  it(
    'gh missing: exit 5 with how to install it; not logged in: exit 5 with gh auth login; a gh error: exit 5 with ' +
      'its message',
    () => {
      const repo = onGithub();
      // A PATH with node and git but no gh.
      const bin = mkdtempSync(join(tmpdir(), 'sow-nogh-'));
      temps.push(bin);
      symlinkSync(process.execPath, join(bin, 'node'));
      symlinkSync(execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim(), join(bin, 'git'));
      const noGh = repo.sow(['issue', 'list', '--json'], { env: { PATH: bin } });
      expect(noGh.code).toBe(5);
      expect(noGh.json?.error).toMatchObject({
        code: 'GH_NOT_FOUND',
        hint: expect.stringContaining('https://cli.github.com'),
      });
      const gh = fakeGh();
      const auth = repo.sow(['issue', 'list'], { env: { ...gh.env, FAKE_GH_FAIL: 'auth' } });
      expect(auth.code).toBe(5);
      expect(auth.stderr).toContain('error: gh is not logged in to GitHub, so it cannot reach acme/api');
      expect(auth.stderr).toContain("hint: run 'gh auth login'");
      expect(auth.stderr).not.toMatch(/^\s+at /m);
      const failed = repo.sow(['issue', 'list', '--json'], { env: { ...gh.env, FAKE_GH_FAIL: 'error' } });
      expect(failed.code).toBe(5);
      expect(failed.json?.error?.message).toBe(
        "'gh issue list' failed: HTTP 502: Bad Gateway (https://api.github.com/graphql)",
      );
    },
  );
});

describe('sow project new --issue', () => {
  it(
    'name, branch and description from the issue; ' + 'its text as the github_issue input; the branch linked on GitHub',
    () => {
      const repo = onGithub();
      const gh = fakeGh();
      const r = ok(repo, ['project', 'new', '--issue', '42'], { env: gh.env });
      expect(r.stdout).toBe('PlanningActive\n');
      expect(r.stderr).toContain(
        "Created project 'add-jwt-authentication' (created and checked out branch 'feat/42-add-jwt-authentication', " +
          "started from 'main')",
      );
      expect(r.stderr).toContain(
        "From issue #42 (acme/api): 'Add JWT authentication!'; its text is the input context/issue-42.md",
      );
      expect(r.stderr).toContain('The branch is linked to the issue on GitHub');
      const project = repo.yaml(PROJECT);
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
          created_at: expect.any(String),
          metadata: { number: 42, url: 'https://github.com/acme/api/issues/42', title: 'Add JWT authentication!' },
        },
      ]);
      expect(repo.read('.sow/project/context/issue-42.md')).toBe(
        '# #42: Add JWT authentication!\n\nhttps://github.com/acme/api/issues/42\n\nTokens signed with ' +
          'HS256.\nExpire after 15 minutes.\n',
      );
      expect(gh.calls().map((c) => c.argv.slice(0, 3).join(' '))).toEqual([
        'issue view 42',
        'issue develop --list',
        'issue develop --list',
        'issue develop 42',
      ]);
      expect(gh.calls().at(-1)!.argv).toEqual([
        'issue',
        'develop',
        '42',
        '--repo=acme/api',
        '--name=feat/42-add-jwt-authentication',
        '--base=main',
      ]);
      expect(gh.state().linked).toEqual({ 42: ['feat/42-add-jwt-authentication'] });
      // The input is sow's record, not a hand-made one.
      expectFails(
        repo,
        ['input', 'add', '--type', 'github_issue', '--path', 'context/x.md'],
        1,
        'ARTIFACT_RECORDED_BY_SOW',
      );
      // issue check finds it, on GitHub and here.
      const check = ok(repo, ['issue', 'check', '42'], { env: gh.env });
      expect(check.stdout).toBe(
        'branch feat/42-add-jwt-authentication (linked on GitHub)\nproject add-jwt-authentication on branch ' +
          'feat/42-add-jwt-authentication (.)\n',
      );
      expect(check.stderr).toContain('Issue #42 is taken');
      expect(ok(repo, ['issue', 'check', '7'], { env: gh.env }).stderr).toContain(
        "Issue #7 is free: 'sow project new --issue 7' starts a project from it",
      );
    },
  );

  it('a link gh cannot make is a warning, not a failure; without a name or --issue it is a usage error', () => {
    const repo = onGithub();
    const gh = fakeGh();
    const r = ok(repo, ['project', 'new', '--issue', '7', '--branch', 'fix/7', '--no-planning'], {
      env: { ...gh.env, FAKE_GH_FAIL: 'develop' },
    });
    expect(r.stderr).toContain(
      "Warning: the branch is not linked to the issue on GitHub: 'gh issue develop' failed: GraphQL: Resource not " +
        'accessible by integration (createLinkedBranch)',
    );
    // Without planning, the issue is an input of implementation.
    expect(repo.yaml(PROJECT).phases.implementation.inputs.map((i: any) => i.type)).toEqual(['github_issue']);
    ok(repo, ['project', 'delete', '--yes']);
    expectFails(repo, ['project', 'new'], 2, 'USAGE');
  });
});

/** Walks the project to FinalizeDocumentation with two tasks, one completed with a modified file. */
function toFinalize(repo: Repo, env: Record<string, string>): void {
  repo.write(TASK_LIST, '# Tasks\n');
  ok(repo, ['output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md', '--approved', 'true']);
  ok(repo, ['advance']);
  ok(repo, ['task', 'add', 'Sign tokens', '--agent', 'implementer']);
  ok(repo, ['task', 'add', 'Drop the old login', '--agent', 'implementer']);
  ok(repo, ['phase', 'set', 'tasks_approved', 'true']);
  ok(repo, ['advance']);
  repo.write('src/jwt.ts', 'export {}\n');
  ok(repo, ['task', 'set', '--id', '010', 'status', 'in_progress']);
  ok(repo, ['task', 'output', 'add', '--id', '010', '--type', 'modified', '--path', 'src/jwt.ts']);
  ok(repo, ['task', 'set', '--id', '010', 'status', 'completed']);
  ok(repo, ['task', 'abandon', '--id', '020']);
  ok(repo, ['advance']);
  repo.write('.sow/project/review/report.md', '# Review\n\nPass.\n');
  ok(repo, [
    'output',
    'add',
    '--type',
    'review',
    '--path',
    'review/report.md',
    '--assessment',
    'pass',
    '--approved',
    'true',
  ]);
  ok(repo, ['advance'], { env });
  expect(repo.yaml(PROJECT).statechart.current_state).toBe('FinalizeDocumentation');
  repo.git(['add', '-A']);
  repo.git(['commit', '-q', '-m', 'work']);
}

describe('sow pr create | ready', () => {
  it(
    'opens the pull request once (pushing the branch first), with a body from the project, recorded as the ' +
      'pull_request output; ready marks it',
    () => {
      const repo = fresh();
      const origin = mkdtempSync(join(tmpdir(), 'sow-origin-'));
      temps.push(origin);
      execFileSync('git', ['init', '-q', '--bare', origin]);
      repo.git(['remote', 'add', 'origin', origin]);
      repo.git(['push', '-q', 'origin', 'main']);
      repo.write('.sow/config.yaml', 'github:\n  repo: acme/api\n');
      const gh = fakeGh();
      ok(repo, ['project', 'new', '--issue', '42'], { env: gh.env });
      // Not while planning.
      expectFails(repo, ['pr', 'create'], 3, 'TASK_BLOCKED', { env: gh.env });
      expect(gh.calls().some((c) => c.argv[0] === 'pr')).toBe(false);
      toFinalize(repo, gh.env);

      const r = ok(repo, ['pr', 'create', '--draft'], { env: gh.env });
      expect(r.stdout).toBe('https://github.com/acme/api/pull/101\n');
      expect(r.stderr).toContain(
        'Opened pull request #101 (draft) in acme/api; the branch was pushed to origin first; recorded as the ' +
          'pull_request output',
      );
      expect(
        execFileSync('git', ['--git-dir', origin, 'branch', '--list', 'feat/42-add-jwt-authentication'], {
          encoding: 'utf8',
        }),
      ).toContain('feat/42-add-jwt-authentication');
      const create = gh.calls().find((c) => c.argv[1] === 'create')!;
      const bodyFile = join(repo.dir, '.sow/project/finalize/pull-request.md');
      expect(create.argv).toEqual([
        'pr',
        'create',
        '--repo=acme/api',
        '--head=feat/42-add-jwt-authentication',
        '--base=main',
        '--title=Add JWT authentication!',
        expect.stringMatching(/^--body-file=.*\.sow\/project\/finalize\/pull-request\.md$/),
        '--draft',
      ]);
      const body = gh.state().prs[0].body;
      expect(body).toBe(readFileSync(bodyFile, 'utf8'));
      expect(body).toContain('Closes #42\n');
      expect(body).toContain('- [x] 010 Sign tokens\n  - `src/jwt.ts`\n- [ ] 020 Drop the old login (abandoned)\n');
      expect(body).toContain('Assessment: **pass** (review/report.md, approved)');
      expect(body).toContain('## Checks\n\nNo checks were run while finalizing.');
      const output = () => repo.yaml(PROJECT).phases.finalize.outputs.filter((o: any) => o.type === 'pull_request');
      expect(output()).toEqual([
        {
          type: 'pull_request',
          path: 'finalize/pull-request.md',
          created_at: expect.any(String),
          metadata: { number: 101, url: 'https://github.com/acme/api/pull/101', draft: true },
        },
      ]);

      // Again: found, not opened twice.
      const again = ok(repo, ['pr', 'create'], { env: gh.env });
      expect(again.stderr).toContain('Pull request #101 was open already in acme/api');
      expect(gh.calls().filter((c) => c.argv[1] === 'create')).toHaveLength(1);
      expect(output()).toHaveLength(1);

      const ready = ok(repo, ['pr', 'ready'], { env: gh.env });
      expect(ready.stderr).toContain('Pull request #101 is ready for review');
      expect(gh.calls().at(-1)!.argv).toEqual(['pr', 'ready', '101', '--repo=acme/api']);
      expect(gh.state().prs[0].isDraft).toBe(false);
      expect(output()[0].metadata.draft).toBe(false);
    },
  );
});
