/**
 * The breakdown project type through the built CLI only, with a fake `gh` on PATH
 * (test/fakes/fake-gh.mjs: records its argv, keeps the issues it creates in a state file): the walk
 * from Discovery to Completed, the guards that refuse a bad move (exit 3) with the command that
 * fixes it, and `sow breakdown publish` — dry run, GitHub issues in dependency order with
 * "Depends on #n", re-runs, a gh failure midway, files with --to files and without gh, and a
 * project of another type. The guards' variants on the way to Publishing and out of it, and what
 * publishing as files writes and records, are tested in-process in src/app/type-breakdown.test.ts;
 * the walk here goes start to finish once, and the other tests start from a project in
 * Publishing made once and copied.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { expectEnvelope, expectFails, ok, useRepos, type Repo } from './harness.js';
import { startingPoint } from './starting-points.js';

const FAKE_GH = fileURLToPath(new URL('../fakes/fake-gh.mjs', import.meta.url));
const fresh = useRepos();
const temps: string[] = [];
afterEach(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});

const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
};

interface Gh {
  env: Record<string, string>;
  calls(): { argv: string[] }[];
  creates(): string[][];
  state(): any;
}

/** The fake gh first on PATH, with its log and its state (issue #7 exists, so new ones start at #8). */
function fakeGh(): Gh {
  const dir = tempDir('sow-gh-');
  mkdirSync(join(dir, 'bin'));
  writeFileSync(join(dir, 'bin', 'gh'), `#!/bin/sh\nexec "${process.execPath}" "${FAKE_GH}" "$@"\n`, { mode: 0o755 });
  const log = join(dir, 'calls.jsonl');
  const state = join(dir, 'state.json');
  writeFileSync(
    state,
    JSON.stringify({
      repo: 'acme/api',
      issues: [
        { number: 7, title: 'Old', state: 'OPEN', labels: [], url: 'https://github.com/acme/api/issues/7', body: '' },
      ],
    }),
  );
  const calls = () => {
    try {
      return readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
    } catch {
      return [];
    }
  };
  return {
    env: { PATH: `${join(dir, 'bin')}:${process.env['PATH']}`, FAKE_GH_LOG: log, FAKE_GH_STATE: state },
    calls,
    creates: () =>
      calls()
        .filter((c: any) => c.argv[0] === 'issue' && c.argv[1] === 'create')
        .map((c: any) => c.argv),
    state: () => JSON.parse(readFileSync(state, 'utf8')),
  };
}

/** A PATH with node and git, and no gh. */
function noGhPath(): string {
  const bin = tempDir('sow-nogh-');
  symlinkSync(process.execPath, join(bin, 'node'));
  symlinkSync(execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim(), join(bin, 'git'));
  return bin;
}

const taskState = (id: string) => `.sow/project/phases/breakdown/tasks/${id}/state.yaml`;
const KNOWLEDGE = '.sow/knowledge/breakdowns/auth';
const SPECS: Record<string, string> = {
  '010': '# Refresh tokens\n\nRotate refresh tokens on use.\n',
  '020': '# Token format\n\nHS256, 15 minutes.\n',
  '030': '# Verify tokens\n\nMiddleware that rejects bad tokens.\n',
};

/** A repository whose origin is github.com/acme/api, with a breakdown project in Discovery. */
function inDiscovery(): Repo {
  const repo = fresh();
  repo.git(['remote', 'add', 'origin', 'https://github.com/acme/api.git']);
  expect(
    ok(repo, ['project', 'new', 'auth', '--type', 'breakdown', '--description', 'JWT authentication']).stdout,
  ).toBe('Discovery\n');
  return repo;
}

function approveDiscovery(repo: Repo): void {
  repo.write('.sow/project/discovery.md', '# JWT authentication\n\nStateless tokens for the API.\n');
  ok(repo, ['output', 'add', '--type', 'discovery', '--path', 'discovery.md']);
  ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
  expect(ok(repo, ['advance']).stdout).toBe('Active\n');
}

/** 010 Refresh tokens (depends on 030), 020 Token format, 030 Verify tokens (depends on 020), 040 abandoned. */
function addUnits(repo: Repo): void {
  ok(repo, ['task', 'add', 'Refresh tokens']);
  ok(repo, ['task', 'add', 'Token format']);
  ok(repo, ['task', 'add', 'Verify tokens', '--depends-on', '020']);
  ok(repo, ['task', 'set', '--id', '010', 'dependencies', '030']);
  ok(repo, ['task', 'add', 'Admin screen']);
}

function specify(repo: Repo, id: string): void {
  repo.write(`.sow/project/units/${id}.md`, SPECS[id]!);
  ok(repo, [
    'task',
    'output',
    'add',
    '--id',
    id,
    '--type',
    'work_unit_spec',
    '--path',
    `units/${id}.md`,
    '--approved',
    'true',
  ]);
  ok(repo, ['task', 'set', '--id', id, 'status', 'completed']);
}

/** A breakdown in Publishing: three completed units with approved specs, one abandoned (made once, copied per test). */
const inPublishing = startingPoint(fresh, (repo) => {
  repo.git(['remote', 'add', 'origin', 'https://github.com/acme/api.git']);
  ok(repo, ['project', 'new', 'auth', '--type', 'breakdown', '--description', 'JWT authentication']);
  approveDiscovery(repo);
  addUnits(repo);
  for (const id of ['020', '030', '010']) specify(repo, id);
  ok(repo, ['task', 'abandon', '--id', '040']);
  expect(ok(repo, ['advance']).stdout).toBe('Publishing\n');
});

describe('breakdown, start to finish through the CLI', () => {
  it(
    'discovery → units → publishing (issues through gh) → completed, each bad move refused with the guard and the ' +
      'next command',
    () => {
      const gh = fakeGh();
      const repo = inDiscovery();
      const cont = ok(repo, ['project', 'continue', '--full']).stdout;
      expect(cont).toContain('**Human-led.**');
      expect(cont).toContain('sow output add --type discovery --path discovery.md');
      expect(expectFails(repo, ['advance'], 3, 'TRANSITION_BLOCKED')).toContain(
        "'sow output add --type discovery --path discovery.md'",
      );
      repo.write('.sow/project/discovery.md', '# JWT authentication\n\nStateless tokens for the API.\n');
      ok(repo, ['output', 'add', '--type', 'discovery', '--path', 'discovery.md']);
      expect(expectFails(repo, ['advance'], 3, 'TRANSITION_BLOCKED')).toContain(
        "'sow output set --index 0 approved true'",
      );
      // Publishing is for later: the refusal gives the way there and what blocks its first step.
      const early = expectFails(repo, ['breakdown', 'publish'], 3, 'NOT_PUBLISHING', { human: true, env: gh.env });
      expect(early).toContain('the units are published in Publishing, and the project is in Discovery');
      expect(early).toContain(
        "run 'sow advance' (Discovery → Active → Publishing); first: the human approves the discovery document",
      );
      ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
      expect(ok(repo, ['advance']).stdout).toBe('Active\n');
      expect(ok(repo, ['project', 'continue', '--full']).stdout).toContain(
        'sow task output add --id <id> --type work_unit_spec --path units/<id>.md',
      );

      addUnits(repo);
      // Each unfinished, unspecified or unapproved unit named with the command that fixes it, and the
      // advance out of Publishing until every unit is published: src/app/type-breakdown.test.ts.
      expect(expectFails(repo, ['advance'], 3, 'TRANSITION_BLOCKED')).toContain(
        'finish or abandon 010, 020, 030 and 040',
      );
      ok(repo, ['task', 'abandon', '--id', '040']);
      for (const id of ['020', '030', '010']) specify(repo, id);
      expect(ok(repo, ['advance', '--dry-run']).stdout).toBe('Publishing\n');
      expect(ok(repo, ['advance']).stdout).toBe('Publishing\n');
      expect(ok(repo, ['project', 'status']).stdout).toContain('State    Publishing — AI-led');

      // Dry run: the plan in dependency order, no gh call, nothing changed.
      const before = repo.snapshot();
      const dry = ok(repo, ['breakdown', 'publish', '--dry-run'], { env: gh.env });
      expect(dry.stdout).toBe(
        '020 → new issue "Token format"\n030 → new issue "Verify tokens" (depends on 020)\n010 → new issue "Refresh ' +
          'tokens" (depends on 030)\n',
      );
      expect(dry.stderr).toContain('dry run: would publish 3 units as issues of acme/api; nothing was changed');
      expect(gh.calls()).toEqual([]);
      expect(repo.snapshot()).toEqual(before);

      // Publish: an issue per unit, each after the one it depends on, recorded on its task.
      const pub = ok(repo, ['breakdown', 'publish'], { env: gh.env });
      expect(pub.stdout).toBe(
        '020 → #8 https://github.com/acme/api/issues/8\n030 → #9 https://github.com/acme/api/issues/9\n010 → #10 ' +
          'https://github.com/acme/api/issues/10\n',
      );
      expect(pub.stderr).toContain(
        "published 3 units as issues of acme/api; every completed unit is published: run 'sow advance'",
      );
      expect(gh.creates()).toEqual(
        ['Token format', 'Verify tokens', 'Refresh tokens'].map((title) => [
          'issue',
          'create',
          '--repo=acme/api',
          `--title=${title}`,
          '--body-file=-',
        ]),
      );
      const issues = gh
        .state()
        .issues.filter((i: any) => i.number > 7)
        .map((i: any) => [i.number, i.title, i.body]);
      expect(issues).toEqual([
        [8, 'Token format', '# Token format\n\nHS256, 15 minutes.\n'],
        [9, 'Verify tokens', '# Verify tokens\n\nMiddleware that rejects bad tokens.\n\nDepends on #8\n'],
        [10, 'Refresh tokens', '# Refresh tokens\n\nRotate refresh tokens on use.\n\nDepends on #9\n'],
      ]);
      expect(repo.yaml(taskState('030')).metadata.published).toEqual({
        issue: 9,
        url: 'https://github.com/acme/api/issues/9',
        at: expect.stringMatching(/^\d{4}-/),
      });
      expect(ok(repo, ['task', 'get', '--id', '010', 'metadata.published.issue']).stdout).toBe('10\n');
      expect(repo.yaml(taskState('040')).metadata.published).toBeUndefined();

      // Again: nothing new, and it says so.
      const published = repo.snapshot();
      const again = ok(repo, ['breakdown', 'publish', '--json'], { env: gh.env });
      expect(expectEnvelope(again).data).toMatchObject({
        target: 'github',
        dry_run: false,
        units: [
          { id: '020', status: 'already_published', issue: 8 },
          { id: '030', status: 'already_published', issue: 9, depends_on: ['020'] },
          { id: '010', status: 'already_published', issue: 10 },
        ],
      });
      const plain = ok(repo, ['breakdown', 'publish'], { env: gh.env });
      expect(plain.stdout).toContain('020 already published: #8 https://github.com/acme/api/issues/8\n');
      expect(plain.stderr).toContain('nothing to publish: every completed unit is already published');
      expect(gh.creates()).toHaveLength(3);
      expect(repo.snapshot()).toEqual(published);

      const history = ok(repo, ['project', 'history']).stdout;
      expect(
        history
          .split('\n')
          .filter(Boolean)
          .map((l) => l.split(/\s+/)[1]),
      ).toEqual(['project_init', 'discovery_approved', 'units_ready']);
      expect(ok(repo, ['advance']).stdout).toBe('Completed\n');
      expect(repo.exists('.sow/project')).toBe(false);
      expect(repo.read(`${KNOWLEDGE}/discovery.md`)).toBe('# JWT authentication\n\nStateless tokens for the API.\n');
      for (const id of ['010', '020', '030']) expect(repo.read(`${KNOWLEDGE}/specs/${id}.md`)).toBe(SPECS[id]);
      expect(parse(repo.read('.sow/knowledge/index.yaml'))).toEqual({
        entries: [
          {
            type: 'breakdown',
            topic: 'JWT authentication',
            name: 'auth',
            branch: 'breakdown/auth',
            date: expect.stringMatching(/^\d{4}-\d\d-\d\d$/),
            path: KNOWLEDGE,
            units: [
              {
                id: '010',
                title: 'Refresh tokens',
                issue: 10,
                url: 'https://github.com/acme/api/issues/10',
                depends_on: ['030'],
              },
              {
                id: '020',
                title: 'Token format',
                issue: 8,
                url: 'https://github.com/acme/api/issues/8',
                depends_on: [],
              },
              {
                id: '030',
                title: 'Verify tokens',
                issue: 9,
                url: 'https://github.com/acme/api/issues/9',
                depends_on: ['020'],
              },
            ],
            files: [
              `${KNOWLEDGE}/discovery.md`,
              `${KNOWLEDGE}/specs/010.md`,
              `${KNOWLEDGE}/specs/020.md`,
              `${KNOWLEDGE}/specs/030.md`,
            ],
          },
        ],
      });
    },
  );

  it('a gh failure midway keeps what was published (exit 5, named), and the re-run publishes only the rest', () => {
    const gh = fakeGh();
    const repo = inPublishing();
    const failed = repo.sow(['breakdown', 'publish', '--json'], { env: { ...gh.env, FAKE_GH_FAIL: 'create-after:1' } });
    expect(failed.code).toBe(5);
    expect(failed.json?.error).toMatchObject({
      code: 'GH_FAILED',
      message: "'gh issue create' failed: HTTP 502: Bad Gateway (https://api.github.com/graphql)",
      hint: expect.stringContaining(
        "published and recorded before it failed: 020 (#8); run 'sow breakdown publish' again to publish the rest",
      ),
    });
    expect(repo.yaml(taskState('020')).metadata.published).toMatchObject({ issue: 8 });
    expect(repo.yaml(taskState('030')).metadata.published).toBeUndefined();
    expect(repo.yaml(taskState('010')).metadata.published).toBeUndefined();
    expect(gh.creates()).toHaveLength(2);
    expect(expectFails(repo, ['advance'], 3, 'TRANSITION_BLOCKED')).toContain('publish units 010 and 030');

    const rest = ok(repo, ['breakdown', 'publish'], { env: gh.env });
    expect(rest.stdout).toBe(
      '020 already published: #8 https://github.com/acme/api/issues/8\n030 → #9 ' +
        'https://github.com/acme/api/issues/9\n010 → #10 https://github.com/acme/api/issues/10\n',
    );
    expect(rest.stderr).toContain('published 2 units as issues of acme/api (1 unit already published)');
    expect(
      gh
        .creates()
        .slice(2)
        .map((argv) => argv[3]),
    ).toEqual(['--title=Verify tokens', '--title=Refresh tokens']);
    expect(gh.state().issues.map((i: any) => i.number)).toEqual([7, 8, 9, 10]);
    expect(gh.state().issues.find((i: any) => i.number === 9).body).toContain('Depends on #8');
    expect(ok(repo, ['advance']).stdout).toBe('Completed\n');
  });

  it(
    '--to files (gh or not) and no gh on PATH: markdown files under .sow/knowledge/breakdowns/<name>/, linked to ' +
      'each other',
    () => {
      const gh = fakeGh();
      const repo = inPublishing();
      const PATH = noGhPath();
      expectFails(repo, ['breakdown', 'publish', '--to', 'jira'], 2, 'USAGE', { env: gh.env });
      // --to github needs gh (exit 5).
      expect(
        expectFails(repo, ['breakdown', 'publish', '--to', 'github'], 5, 'GH_NOT_FOUND', { env: { PATH } }),
      ).toContain('https://cli.github.com');
      // gh, but no GitHub repository to publish to: refused before anything is published, files offered.
      repo.git(['remote', 'remove', 'origin']);
      expect(expectFails(repo, ['breakdown', 'publish'], 1, 'NO_GITHUB_REPO', { env: gh.env })).toContain(
        "or publish the units as files: 'sow breakdown publish --to files'",
      );
      // Without gh, files are the default, and the message says why. (The dry run of --to files, the
      // files' links, what is recorded on each task and the index entry: src/app/type-breakdown.test.ts.)
      const files = ok(repo, ['breakdown', 'publish'], { env: { PATH } });
      expect(files.stdout).toBe(
        `020 → ${KNOWLEDGE}/020-token-format.md\n030 → ${KNOWLEDGE}/030-verify-tokens.md\n010 ` +
          `→ ${KNOWLEDGE}/010-refresh-tokens.md\n`,
      );
      expect(files.stderr).toContain('gh (the GitHub CLI) is not on PATH, so the units become markdown files');
      expect(files.stderr).toContain(`published 3 units as files under ${KNOWLEDGE}/`);
      expect(repo.read(`${KNOWLEDGE}/010-refresh-tokens.md`)).toBe(
        '# Refresh tokens\n\nRotate refresh tokens on use.\n\nDepends on [030 Verify tokens](030-verify-tokens.md)\n',
      );
      expect(repo.yaml(taskState('010')).metadata.published).toEqual({
        file: `${KNOWLEDGE}/010-refresh-tokens.md`,
        at: expect.any(String),
      });
      // With gh and --to files: files still, and nothing new to publish.
      expect(ok(repo, ['breakdown', 'publish', '--to', 'files'], { env: gh.env }).stderr).toContain(
        'nothing to publish',
      );
      expect(gh.calls()).toEqual([]);
      expect(ok(repo, ['advance']).stdout).toBe('Completed\n');
    },
  );

  it('a project of another type: exit 1 WRONG_PROJECT_TYPE, before anything else', () => {
    const gh = fakeGh();
    const repo = fresh();
    ok(repo, ['project', 'new', 'demo', '--description', 'A demo project']);
    expect(
      expectFails(repo, ['breakdown', 'publish'], 1, 'WRONG_PROJECT_TYPE', { human: true, env: gh.env }),
    ).toContain("'sow breakdown publish' belongs to breakdown projects, and this project is standard");
    expect(gh.calls()).toEqual([]);
  });
  // A spec that leads out of the repository is never published: src/app/type-breakdown.test.ts.
});
