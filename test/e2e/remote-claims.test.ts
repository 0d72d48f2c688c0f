/**
 * Claims through the git remote: a bare repository stands for the remote, clones of it for the
 * machines. The built CLI claims with one compare-and-swap push per task; the tests race real
 * processes and wait on their exits, and write claims whose lease ran out by git plumbing.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  expectFails,
  makeRepo,
  ok,
  SOW,
  taskFile,
  TEST_ENV,
  toExecuting,
  useRepos,
  type Repo,
  type RunResult,
} from './harness.js';
import { makeWorld, until, type World } from './agent-world.js';

const fresh = useRepos();
const TASKS = Array.from({ length: 8 }, (_, i) => `Task ${i + 1}`);
const IDS = TASKS.map((_, i) => `0${i + 1}0`);
const BRANCH = 'feat/demo';
const ref = (id: string) => `refs/sow/claims/${BRANCH}/${id}`;
/** The racers wait for the lock of their clone as long as the race takes. */
const RACE_ENV = { SOW_LOCK_TIMEOUT: '300' };

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const git = (cwd: string, args: string[], input?: string): string =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, ...TEST_ENV },
    ...(input !== undefined ? { input } : {}),
  }).trim();

let origin: string | undefined;

/**
 * A bare repository holding a project executing eight tasks, with `claims: {remote: origin}`
 * committed (made once per file and copied), and `n` clones of it.
 */
function world(n: number): { remote: string; clones: Repo[] } {
  if (!origin) {
    const src = fresh();
    toExecuting(src, TASKS);
    src.write('.sow/config.yaml', 'claims:\n  remote: origin\n');
    src.git(['add', '-A']);
    src.git(['commit', '-q', '-m', 'the project']);
    origin = mkdtempSync(join(tmpdir(), 'sow-claims-origin-'));
    git(tmpdir(), ['clone', '-q', '--bare', src.dir, join(origin, 'remote.git')]);
  }
  const top = mkdtempSync(join(tmpdir(), 'sow-claims-'));
  dirs.push(top);
  const remote = join(top, 'remote.git');
  cpSync(join(origin, 'remote.git'), remote, { recursive: true });
  const clones = Array.from({ length: n }, (_, i) => {
    const dir = join(top, `clone${i + 1}`);
    git(top, ['clone', '-q', remote, dir]);
    return makeRepo({ dir, existing: true });
  });
  return { remote, clones };
}
afterAll(() => {
  if (origin) rmSync(origin, { recursive: true, force: true });
});

/** The claim refs on the remote: task id → commit. */
function remoteClaims(remote: string): Map<string, string> {
  const out = git(remote, ['for-each-ref', '--format=%(objectname) %(refname)', `refs/sow/claims/${BRANCH}/`]);
  return new Map(
    out
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const [sha, name] = l.split(' ') as [string, string];
        return [name.slice(`refs/sow/claims/${BRANCH}/`.length), sha];
      }),
  );
}

const ownerOf = (remote: string, sha: string): string | undefined =>
  /^owner: (.*)$/m.exec(git(remote, ['cat-file', 'commit', sha]))?.[1];

/** Pushes a claim made by plumbing (as another machine's sow would have) from `clone` to the remote. */
function plantClaim(clone: Repo, id: string, owner: string, leaseUntil: string): string {
  const tree = git(clone.dir, ['mktree'], '');
  const sha = git(
    clone.dir,
    ['commit-tree', tree],
    `sow claim: task ${id}\n\ntask: ${id}\nowner: ${owner}\nmachine: elsewhere\nsince: ` +
      `2000-01-01T00:00:00.000Z\nlease-until: ${leaseUntil}\nnonce: ${owner}\n`,
  );
  git(clone.dir, ['push', '-q', 'origin', `${sha}:${ref(id)}`]);
  return sha;
}

const claimed = (r: RunResult): string => r.json!.data.id as string;

describe('claims through the remote', () => {
  it('16 claimers on 4 clones race for 8 ready tasks: each task claimed exactly once, none skipped', async () => {
    const { remote, clones } = world(4);
    const racers = Array.from({ length: 16 }, (_, i) => ({ owner: `w${i + 1}`, clone: clones[i % 4]! }));
    const results = await Promise.all(
      racers.map((r) => r.clone.sowAsync(['task', 'next', '--claim', '--owner', r.owner, '--json'], { env: RACE_ENV })),
    );
    const won = results.flatMap((r, i) => (r.code === 0 ? [{ id: claimed(r), ...racers[i]! }] : []));
    const lost = results.filter((r) => r.code !== 0);
    for (const r of lost) {
      expect(r.code, r.stderr).toBe(1);
      expect(r.json!.error!.code).toBe('NO_READY_TASK');
    }
    expect(won.map((w) => w.id).sort()).toEqual(IDS);
    // The remote holds one claim per task, each the winner's; each winner's clone records it.
    const refs = remoteClaims(remote);
    expect([...refs.keys()].sort()).toEqual(IDS);
    for (const w of won) {
      expect(ownerOf(remote, refs.get(w.id)!)).toBe(w.owner);
      const task = w.clone.yaml(taskFile(w.id));
      expect(task).toMatchObject({
        status: 'in_progress',
        owner: { kind: 'claim', by: w.owner, remote: 'origin', remote_claim: refs.get(w.id) },
      });
    }
  });

  it('a claim whose lease ran out is taken over by exactly one of several racers', async () => {
    const { remote, clones } = world(4);
    // Every task but 010 is held on the remote; 010's claim ran out long ago.
    const stale = plantClaim(clones[0]!, '010', 'ghost', '2000-01-01T00:30:00.000Z');
    for (const id of IDS.slice(1)) plantClaim(clones[0]!, id, `holder-${id}`, '2999-01-01T00:00:00.000Z');
    const racers = Array.from({ length: 8 }, (_, i) => ({ owner: `r${i + 1}`, clone: clones[i % 4]! }));
    const results = await Promise.all(
      racers.map((r) => r.clone.sowAsync(['task', 'next', '--claim', '--owner', r.owner, '--json'], { env: RACE_ENV })),
    );
    const winners = results.flatMap((r, i) => (r.code === 0 ? [{ id: claimed(r), ...racers[i]! }] : []));
    expect(winners).toHaveLength(1);
    expect(winners[0]!.id).toBe('010');
    for (const r of results.filter((x) => x.code !== 0)) expect(r.json!.error!.code, r.stderr).toBe('NO_READY_TASK');
    const now = remoteClaims(remote).get('010')!;
    expect(now).not.toBe(stale);
    expect(ownerOf(remote, now)).toBe(winners[0]!.owner);
  });

  it('finishing a claimed task gives its claim back; the lists of another clone show the claims of the remote', () => {
    const { remote, clones } = world(2);
    const [a, b] = clones as [Repo, Repo];
    expect(ok(a, ['task', 'next', '--claim', '--owner', 'ann']).stdout.trim()).toBe('010');
    expect(ok(b, ['task', 'next', '--claim', '--owner', 'bob']).stdout.trim()).toBe('020');
    // b's checkout knows nothing of 010 but what the remote says.
    const list = ok(b, ['task', 'list']).stdout.split('\n');
    expect(list.slice(0, 2).join('\n')).toMatch(
      /^pending \(\d+\):\n010 Task 1 — claimed on origin by ann on \S+, lease until \d{4}-/,
    );
    expect(ok(b, ['task', 'list', '--json']).json!.data[0].remote_claim).toMatchObject({
      task: '010',
      owner: 'ann',
      remote: 'origin',
      live: true,
    });
    expect(ok(b, ['task', 'next', '--json']).json!.data.map((t: { id: string }) => t.id)).toEqual(IDS.slice(2));
    ok(a, ['task', 'set', '--id', '010', 'status', 'completed', '--owner', 'ann']);
    expect([...remoteClaims(remote).keys()]).toEqual(['020']);
    ok(b, ['task', 'abandon', '--id', '020', '--owner', 'bob']);
    expect(remoteClaims(remote).size).toBe(0);
  });

  it(
    "the owner's writes renew its claim on the remote once half of the lease there has passed; other writes " +
      'push nothing',
    () => {
      const { remote, clones } = world(1);
      const a = clones[0]!;
      ok(a, ['task', 'next', '--claim', '--owner', 'ann']);
      const first = remoteClaims(remote).get('010')!;
      ok(a, ['task', 'set', '--id', '010', 'note', 'one', '--owner', 'ann']);
      expect(remoteClaims(remote).get('010')).toBe(first);
      // As if most of the lease had passed since the claim: a minute of it is left on the remote.
      const file = taskFile('010');
      const soon = new Date(Date.now() + 60_000).toISOString();
      a.write(file, a.read(file).replace(/remote_lease_until: .*/, `remote_lease_until: ${soon}`));
      ok(a, ['task', 'set', '--id', '010', 'note', 'two', '--owner', 'ann']);
      const renewed = remoteClaims(remote).get('010')!;
      expect(renewed).not.toBe(first);
      const owner = a.yaml(file).owner;
      expect(owner.remote_claim).toBe(renewed);
      expect(Date.parse(owner.remote_lease_until)).toBeGreaterThan(Date.parse(soon));
      expect(git(remote, ['cat-file', 'commit', renewed])).toContain(`lease-until: ${owner.remote_lease_until}`);
    },
  );

  it('status and agent ps show the claims of the remote; without a claims remote, no read runs git at all', () => {
    const { clones } = world(1);
    const a = clones[0]!;
    ok(a, ['task', 'next', '--claim', '--owner', 'ann']);
    expect(ok(a, ['status']).stdout).toMatch(
      /^Claims {3}1 on origin\n {2}\[010\] claimed on origin by ann on \S+, lease until \d{4}-/m,
    );
    expect(ok(a, ['status', '--json']).json!.data.remote_claims).toMatchObject({
      remote: 'origin',
      reached: true,
      claims: [{ task: '010', owner: 'ann', live: true }],
    });
    expect(ok(a, ['agent', 'ps']).stdout).toMatch(/^\[010\] claimed on origin by ann on /m);
    // A git that writes down each run: the reads of a project without claims.remote run none.
    const bin = mkdtempSync(join(tmpdir(), 'sow-git-log-'));
    dirs.push(bin);
    const log = join(bin, 'log');
    writeFileSync(
      join(bin, 'git'),
      `#!/bin/sh\necho "$*" >> '${log}'\nexec ` +
        `'${execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim()}' "$@"\n`,
    );
    chmodSync(join(bin, 'git'), 0o755);
    const env = { PATH: `${bin}:${process.env['PATH']}` };
    const reads = [['task', 'list'], ['task', 'next'], ['status'], ['agent', 'ps']];
    const gitRuns = (): string[] => {
      const runs: string[] = [];
      for (const args of reads) {
        rmSync(log, { force: true });
        ok(a, args, { env });
        runs.push(existsSync(log) ? readFileSync(log, 'utf8') : '');
      }
      return runs;
    };
    // The claims the reads above cached go, so the first read here asks the remote (and shows the log works).
    rmSync(join(a.dir, '.git/sow/remote-claims.json'), { force: true });
    expect(gitRuns()[0]).toContain('ls-remote');
    a.write('.sow/config.yaml', '# no claims through the remote\n');
    expect(gitRuns()).toEqual(['', '', '', '']);
  });

  it(
    'a remote that cannot be reached: claiming fails with exit 5 and changes nothing; lists say the remote was ' +
      'not reached',
    () => {
      const { remote, clones } = world(1);
      const a = clones[0]!;
      a.git(['remote', 'set-url', 'origin', join(tmpdir(), 'sow-no-such-remote', 'r.git')]);
      const before = a.snapshot();
      const text = expectFails(a, ['task', 'next', '--claim', '--owner', 'ann'], 5, 'REMOTE_CLAIM_FAILED', {
        human: true,
      });
      expect(text).toContain("the remote 'origin' was not reached");
      expect(a.snapshot()).toEqual(before);
      const list = ok(a, ['task', 'list']);
      // Every task is listed, none marked claimed: the remote said nothing.
      expect(list.stdout.trim().split('\n')).toEqual([
        'pending (8):',
        ...Array.from({ length: 8 }, (_, i) => `0${i + 1}0 Task ${i + 1}`),
      ]);
      expect(list.stderr).toContain("warning: the claims on the remote 'origin' were not read: it was not reached");
      expect(remoteClaims(remote).size).toBe(0);
    },
  );

  it('a remote that refuses the push (a pre-receive hook): exit 5, nothing changed here or there', () => {
    const { remote, clones } = world(1);
    const a = clones[0]!;
    writeFileSync(
      join(remote, 'hooks', 'pre-receive'),
      '#!/bin/sh\necho "pushes to refs/sow/ are not allowed here" >&2\nexit 1\n',
    );
    chmodSync(join(remote, 'hooks', 'pre-receive'), 0o755);
    const before = a.snapshot();
    const text = expectFails(a, ['task', 'next', '--claim', '--owner', 'ann'], 5, 'REMOTE_CLAIM_FAILED', {
      human: true,
    });
    expect(text).toContain("the remote 'origin' refused the push (pushes to refs/sow/ are not allowed here)");
    expect(a.snapshot()).toEqual(before);
    expect(remoteClaims(remote).size).toBe(0);
  });

  it(
    'finishing while the remote refuses: exit 5 and nothing changed; --force finishes here and says the ' +
      'claim was left',
    () => {
      const { remote, clones } = world(1);
      const a = clones[0]!;
      ok(a, ['task', 'next', '--claim', '--owner', 'ann']);
      mkdirSync(join(remote, 'hooks'), { recursive: true });
      writeFileSync(join(remote, 'hooks', 'pre-receive'), '#!/bin/sh\nexit 1\n');
      chmodSync(join(remote, 'hooks', 'pre-receive'), 0o755);
      const before = a.snapshot();
      expectFails(a, ['task', 'abandon', '--id', '010', '--owner', 'ann'], 5, 'REMOTE_CLAIM_FAILED');
      expect(a.snapshot()).toEqual(before);
      const forced = ok(a, ['task', 'abandon', '--id', '010', '--owner', 'ann', '--force']);
      expect(forced.stderr).toContain('warning: the claim of task 010 was not given back');
      expect(a.yaml(taskFile('010')).status).toBe('abandoned');
      expect([...remoteClaims(remote).keys()]).toEqual(['010']);
    },
  );

  it(
    'the remote is checked before git sees it: not a remote of the repository (exit 1), not a remote name (exit 2, ' +
      'or exit 4 in the configuration)',
    () => {
      const { clones } = world(1);
      const a = clones[0]!;
      const before = a.snapshot();
      expectFails(a, ['task', 'next', '--claim', '--owner', 'ann', '--remote', 'upstream'], 1, 'REMOTE_NOT_FOUND');
      expectFails(a, ['task', 'next', '--claim', '--owner', 'ann', '--remote', '--upload-pack=touch x'], 2, 'USAGE');
      expectFails(a, ['task', 'next', '--remote', 'origin'], 2, 'USAGE');
      expect(a.snapshot()).toEqual(before);
      // A name that is no remote of the repository never reaches git as a path, even to read.
      a.git(['init', '-q', '--bare', 'folder']);
      a.write('.sow/config.yaml', 'claims:\n  remote: folder\n');
      const list = ok(a, ['task', 'list']);
      expect(list.stderr).toContain(
        "the claims on the remote 'folder' were not read: it is not a remote of this repository",
      );
      expectFails(a, ['task', 'next', '--claim', '--owner', 'ann'], 1, 'REMOTE_NOT_FOUND');
      a.write('.sow/config.yaml', "claims:\n  remote: '--upload-pack=touch pwned'\n");
      expectFails(a, ['task', 'next', '--claim', '--owner', 'ann'], 4, 'CONFIG_INVALID');
      expect(a.exists('pwned')).toBe(false);
    },
  );
});

describe('workers claim through the remote', () => {
  /** Fake agent CLIs for the clones (test/fakes), removed with the clones. */
  const agents = (): World => {
    const world = makeWorld({ prefix: 'sow-claims-agents-' });
    dirs.push(world.root);
    return world;
  };
  /** A worker that says it started, waits for `go`, then reports needs_review. */
  const waiting = (world: World, name: string, status = 'needs_review') =>
    JSON.stringify([
      { touch: join(world.root, `${name}.started`) },
      { wait: join(world.root, 'go') },
      ['agent', 'report', '--status', status, `${name} done`],
    ]);
  /** The tasks a clone's state says its workers own: task id → owner. */
  const workersOf = (clone: Repo): Map<string, Record<string, unknown>> =>
    new Map(
      IDS.flatMap((id) => {
        const owner = clone.yaml(taskFile(id)).owner;
        return owner?.kind === 'worker' ? [[id, owner]] : [];
      }),
    );

  it(
    'two clones spawn detached workers with --next at once: no task gets two workers, each holds its claim on the ' +
      'remote, and a run that ends gives it back',
    async () => {
      const { remote, clones } = world(2);
      const world2 = agents();
      const spawns = Array.from({ length: 6 }, (_, i) => ({ clone: clones[i % 2]!, name: `w${i + 1}` }));
      const results = await Promise.all(
        spawns.map((s) =>
          s.clone.sowAsync(['agent', 'spawn', 'implementer', '--next', '--detach', '--json'], {
            env: { ...world2.env, ...RACE_ENV, FAKE_AGENT_SCRIPT: waiting(world2, s.name) },
          }),
        ),
      );
      for (const r of results) expect(r.code, r.stderr).toBe(0);
      const taken = results.map((r) => r.json!.data.task as string);
      expect(new Set(taken).size).toBe(6);
      await until(
        () => spawns.every((s) => existsSync(join(world2.root, `${s.name}.started`))),
        'every worker started',
      );
      // Each clone's workers own the tasks it spawned on; the remote holds each of them once, as recorded.
      const [a, b] = clones as [Repo, Repo];
      const owned = [...workersOf(a), ...workersOf(b)];
      expect(owned.map(([id]) => id).sort()).toEqual([...taken].sort());
      const refs = remoteClaims(remote);
      expect([...refs.keys()].sort()).toEqual([...taken].sort());
      for (const [id, owner] of owned) {
        expect(owner).toMatchObject({
          remote: 'origin',
          remote_claim: refs.get(id),
          remote_lease_until: expect.any(String),
        });
        expect(ownerOf(remote, refs.get(id)!)).toBe(owner['by']);
      }
      writeFileSync(join(world2.root, 'go'), '');
      for (const c of clones)
        expect(ok(c, ['agent', 'wait'], { env: world2.env }).stdout).toMatch(/^(\d{3} {2}needs_review\n){3}$/);
      // The runs ended with the tasks for review: nobody holds them on the remote any more.
      expect(remoteClaims(remote).size).toBe(0);
    },
  );

  it(
    'a spawn on a task claimed on the remote by another clone is refused and changes nothing; --next passes over ' +
      'it; --force takes it over',
    () => {
      const { remote, clones } = world(2);
      const [a, b] = clones as [Repo, Repo];
      const w = agents();
      expect(ok(a, ['task', 'next', '--claim', '--owner', 'ann']).stdout.trim()).toBe('010');
      const text = expectFails(b, ['agent', 'spawn', 'implementer', '010'], 1, 'TASK_CLAIMED_ELSEWHERE', {
        env: w.env,
        human: true,
      });
      expect(text).toMatch(
        new RegExp(
          /^task 010 is claimed on the remote 'origin' by ann on \S+, lease until \d{4}-\S+; /.source +
            /a worker here would work beside theirs\n/.source +
            /nothing was changed; start one on the next task nobody holds \('sow agent spawn implementer --next'\)/
              .source,
        ),
      );
      expectFails(b, ['agent', 'spawn', 'implementer', '010', '--detach'], 1, 'TASK_CLAIMED_ELSEWHERE', { env: w.env });
      expect(w.calls()).toEqual([]);
      expect([...remoteClaims(remote).keys()]).toEqual(['010']);
      // --next takes the next task nobody holds; its run ends for review and gives its claim back.
      const r = ok(b, ['agent', 'spawn', 'implementer', '--next', '--json'], { env: w.env });
      expect(r.json!.data).toMatchObject({ task: '020', status: 'needs_review' });
      expect(w.calls()).toHaveLength(1);
      expect([...remoteClaims(remote).keys()]).toEqual(['010']);
      // --force with --next takes nothing another holds.
      expect(
        ok(b, ['agent', 'spawn', 'implementer', '--next', '--force', '--json'], { env: w.env }).json!.data.task,
      ).toBe('030');
      expect([...remoteClaims(remote).keys()]).toEqual(['010']);
      // --force takes the claim over there (compare-and-swap on the claim it saw); the run's end gives it back.
      const seen = join(w.root, 'owner.json');
      const script = [
        { try: ['task', 'get', '--id', '010', 'owner', '--json'], out: seen },
        ['task', 'set', 'status', 'needs_review'],
      ];
      ok(b, ['agent', 'spawn', 'implementer', '010', '--force'], {
        env: { ...w.env, FAKE_AGENT_SCRIPT: JSON.stringify(script) },
      });
      const owner = JSON.parse(JSON.parse(readFileSync(seen, 'utf8')).stdout).data.value;
      expect(ownerOf(remote, owner.remote_claim)).toBe('implementer-3');
      expect(remoteClaims(remote).size).toBe(0);
    },
  );

  it('the remote not reached: a spawn fails with exit 5, starts no worker and changes nothing', () => {
    const { clones } = world(1);
    const a = clones[0]!;
    const w = agents();
    a.git(['remote', 'set-url', 'origin', join(tmpdir(), 'sow-no-such-remote', 'r.git')]);
    for (const args of [
      ['agent', 'spawn', 'implementer', '--next'],
      ['agent', 'spawn', 'implementer', '010'],
      ['agent', 'spawn', 'implementer', '010', '--detach'],
      ['agent', 'spawn', 'implementer', '010', '--worktree'],
    ]) {
      const text = expectFails(a, args, 5, 'REMOTE_CLAIM_FAILED', { env: w.env });
      expect(text).toContain("the remote 'origin' was not reached");
    }
    expect(w.calls()).toEqual([]);
    expect(a.exists('.sow/worktrees/.workers')).toBe(false);
  });

  it(
    'letting a task go gives its claim back: a run that ends with it paused, agent stop, and its claimant setting ' +
      'it back to pending',
    async () => {
      const { remote, clones } = world(2);
      const [a, b] = clones as [Repo, Repo];
      const w = agents();
      ok(a, ['agent', 'spawn', 'implementer', '010'], {
        env: { ...w.env, FAKE_AGENT_SCRIPT: JSON.stringify([['task', 'set', 'status', 'paused']]) },
      });
      expect(a.yaml(taskFile('010'))).toMatchObject({ status: 'paused' });
      expect(a.yaml(taskFile('010')).owner).toBeUndefined();
      expect(remoteClaims(remote).size).toBe(0);

      ok(a, ['agent', 'spawn', 'implementer', '020', '--detach'], {
        env: { ...w.env, FAKE_AGENT_SCRIPT: waiting(w, 'a') },
      });
      await until(() => existsSync(join(w.root, 'a.started')), 'the worker started');
      expect([...remoteClaims(remote).keys()]).toEqual(['020']);
      ok(a, ['agent', 'stop', '020'], { env: w.env });
      expect(a.yaml(taskFile('020')).status).toBe('paused');
      expect(remoteClaims(remote).size).toBe(0);

      expect(ok(a, ['task', 'next', '--claim', '--owner', 'ann']).stdout.trim()).toBe('030');
      ok(a, ['task', 'set', '--id', '030', 'status', 'pending', '--owner', 'ann']);
      expect(a.yaml(taskFile('030')).owner).toBeUndefined();
      expect(remoteClaims(remote).size).toBe(0);
      // Free on the remote again: the other clone takes it (010 and 020 are paused only in the first clone's state).
      expect(ok(b, ['task', 'next', '--claim', '--owner', 'bob']).stdout.trim()).toBe('010');
      expect(ok(b, ['task', 'next', '--claim', '--owner', 'bob']).stdout.trim()).toBe('020');
      expect(ok(b, ['task', 'next', '--claim', '--owner', 'bob']).stdout.trim()).toBe('030');
    },
  );

  it(
    'letting a task go while the remote refuses still lets it go here, ' + 'says so, and leaves the claim to run out',
    async () => {
      const { remote, clones } = world(1);
      const a = clones[0]!;
      const w = agents();
      const started = ok(a, ['agent', 'spawn', 'implementer', '010', '--detach', '--json'], {
        env: { ...w.env, FAKE_AGENT_SCRIPT: waiting(w, 'a', 'paused') },
      }).json!.data;
      await until(() => existsSync(join(w.root, 'a.started')), 'the worker started');
      ok(a, ['task', 'next', '--claim', '--owner', 'ann']);
      writeFileSync(join(remote, 'hooks', 'pre-receive'), '#!/bin/sh\nexit 1\n');
      chmodSync(join(remote, 'hooks', 'pre-receive'), 0o755);
      const r = ok(a, ['task', 'set', '--id', '020', 'status', 'pending', '--owner', 'ann']);
      expect(r.stderr).toContain(
        "warning: the claim of task 020 was not given back: the remote 'origin' refused the push",
      );
      expect(a.yaml(taskFile('020'))).toMatchObject({ status: 'pending' });
      expect(a.yaml(taskFile('020')).owner).toBeUndefined();
      writeFileSync(join(w.root, 'go'), '');
      expect(ok(a, ['agent', 'wait', '010'], { env: w.env }).stdout).toBe('010  paused\n');
      expect(a.yaml(taskFile('010')).owner).toBeUndefined();
      // The supervisor said it where it reports.
      await until(() => existsSync(join(started.log, '..', 'result.json')), 'the supervisor finished');
      expect(readFileSync(started.log, 'utf8')).toContain(
        "warning: the claim of task 010 was not given back: the remote 'origin' refused the push",
      );
      expect([...remoteClaims(remote).keys()].sort()).toEqual(['010', '020']);
    },
  );

  it(
    'a worker whose process ended here leaves a claim this checkout knows as its own: the next claim here ' +
      'takes it over',
    async () => {
      const { remote, clones } = world(1);
      const a = clones[0]!;
      const w = agents();
      const started = ok(a, ['agent', 'spawn', 'implementer', '010', '--detach', '--json'], {
        env: { ...w.env, FAKE_AGENT_SCRIPT: waiting(w, 'a') },
      }).json!.data;
      await until(() => existsSync(join(w.root, 'a.started')), 'the worker started');
      const held = remoteClaims(remote).get('010')!;
      // The supervisor and its worker killed at once: nothing lets the task go, and its claim on the remote holds for
      // its lease.
      process.kill(-started.pid, 'SIGKILL');
      await until(() => {
        try {
          process.kill(-started.pid, 0);
          return false;
        } catch {
          return true;
        }
      }, 'the supervisor and its worker are gone');
      expect(a.yaml(taskFile('010')).owner).toMatchObject({ kind: 'worker', remote_claim: held });
      expect(ok(a, ['task', 'next', '--claim', '--owner', 'ann']).stdout.trim()).toBe('010');
      const now = remoteClaims(remote).get('010')!;
      expect(now).not.toBe(held);
      expect(ownerOf(remote, now)).toBe('ann');
    },
  );

  it(
    'a resume claims the task on the remote again: refused while another clone holds it, and given back when ' +
      'its run ends',
    () => {
      const { remote, clones } = world(2);
      const [a, b] = clones as [Repo, Repo];
      const w = agents();
      ok(a, ['agent', 'spawn', 'implementer', '010'], {
        env: { ...w.env, FAKE_AGENT_SCRIPT: JSON.stringify([['task', 'set', 'status', 'paused']]) },
      });
      expect(ok(b, ['task', 'next', '--claim', '--owner', 'bob']).stdout.trim()).toBe('010');
      const text = expectFails(a, ['agent', 'resume', '010', 'go on'], 1, 'TASK_CLAIMED_ELSEWHERE', { env: w.env });
      expect(text).toMatch(/^task 010 is claimed on the remote 'origin' by bob on /);
      expect(w.calls()).toHaveLength(1);
      ok(b, ['task', 'set', '--id', '010', 'status', 'pending', '--owner', 'bob']);
      const seen = join(w.root, 'owner.json');
      const script = [
        { try: ['task', 'get', '--id', '010', 'owner', '--json'], out: seen },
        ['task', 'set', 'status', 'needs_review'],
      ];
      ok(a, ['agent', 'resume', '010', 'go on'], { env: { ...w.env, FAKE_AGENT_SCRIPT: JSON.stringify(script) } });
      expect(w.calls()).toHaveLength(2);
      // While it ran, the worker held the task on the remote, with a claim of its own.
      const owner = JSON.parse(JSON.parse(readFileSync(seen, 'utf8')).stdout).data.value;
      expect(owner).toMatchObject({
        kind: 'worker',
        by: 'implementer-1',
        remote: 'origin',
        remote_claim: expect.stringMatching(/^[0-9a-f]{40}$/),
      });
      expect(ownerOf(remote, owner.remote_claim)).toBe('implementer-1');
      expect(a.yaml(taskFile('010')).status).toBe('needs_review');
      expect(remoteClaims(remote).size).toBe(0);
    },
  );

  it("a worker's own writes renew its claim on the remote once half of the lease there has passed", async () => {
    const { remote, clones } = world(1);
    const a = clones[0]!;
    const w = agents();
    const step = (name: string) => join(w.root, name);
    const script = [
      { touch: step('started') },
      { wait: step('go') },
      ['task', 'set', 'note', 'one'],
      { touch: step('noted') },
      { wait: step('done') },
      ['agent', 'report', '--status', 'needs_review', 'done'],
    ];
    ok(a, ['agent', 'spawn', 'implementer', '010', '--detach'], {
      env: { ...w.env, FAKE_AGENT_SCRIPT: JSON.stringify(script) },
    });
    await until(() => existsSync(step('started')), 'the worker started');
    const first = remoteClaims(remote).get('010')!;
    expect(a.yaml(taskFile('010')).owner.remote_claim).toBe(first);
    // As if most of the lease had passed: a minute of it is left on the remote.
    const file = taskFile('010');
    const soon = new Date(Date.now() + 60_000).toISOString();
    a.write(file, a.read(file).replace(/remote_lease_until: .*/, `remote_lease_until: ${soon}`));
    writeFileSync(step('go'), '');
    await until(() => existsSync(step('noted')), 'the worker wrote');
    const renewed = remoteClaims(remote).get('010')!;
    expect(renewed).not.toBe(first);
    const owner = a.yaml(file).owner;
    expect(owner).toMatchObject({ kind: 'worker', remote_claim: renewed });
    expect(Date.parse(owner.remote_lease_until)).toBeGreaterThan(Date.parse(soon));
    expect(git(remote, ['cat-file', 'commit', renewed])).toContain(`owner: ${owner.by}`);
    writeFileSync(step('done'), '');
    expect(ok(a, ['agent', 'wait', '010'], { env: w.env }).stdout).toBe('010  needs_review\n');
    expect(remoteClaims(remote).size).toBe(0);
  });

  it('without a claims remote, a spawn runs no git of claims', () => {
    const { remote, clones } = world(1);
    const a = clones[0]!;
    const w = agents();
    a.write('.sow/config.yaml', '# no claims through the remote\n');
    const log = join(w.root, 'git.log');
    writeFileSync(
      join(w.bin, 'git'),
      `#!/bin/sh\necho "$*" >> '${log}'\nexec ` +
        `'${execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim()}' "$@"\n`,
    );
    chmodSync(join(w.bin, 'git'), 0o755);
    ok(a, ['agent', 'spawn', 'implementer', '--next'], { env: w.env });
    expect(a.yaml(taskFile('010')).status).toBe('needs_review');
    const runs = existsSync(log) ? readFileSync(log, 'utf8') : '';
    expect(runs).not.toMatch(/^(ls-remote|push|fetch|mktree|commit-tree)\b/m);
    expect(remoteClaims(remote).size).toBe(0);
  });

  it(
    "a spawn's claim is pushed before its state update takes the lock: a remote slow to answer holds up no other " +
      'write here',
    async () => {
      const { remote, clones } = world(1);
      const a = clones[0]!;
      const w = agents();
      const held = join(w.root, 'held');
      const release = join(w.root, 'release');
      // The remote takes its time over every push until the test lets it go (bounded, so nothing hangs for good).
      const hook = join(remote, 'hooks', 'pre-receive');
      writeFileSync(
        hook,
        `#!/bin/sh\ntouch '${held}'\ni=0\nwhile [ ! -e '${release}' ] && [ $i -lt 3000 ]; do sleep 0.1; i=$((i+1)); ` +
          `done\nexit 0\n`,
      );
      chmodSync(hook, 0o755);
      const spawn = a.sowAsync(['agent', 'spawn', 'implementer', '--next', '--json'], { env: w.env });
      await until(() => existsSync(held), 'the claim push reached the remote');
      // While the push waits, another write here takes the lock at once (it would wait, and give up, if the push held
      // it).
      const other = a.sowAsync(['task', 'set', '--id', '080', 'status', 'in_progress'], {
        env: { SOW_LOCK_TIMEOUT: '5' },
      });
      const written = await other;
      writeFileSync(release, '');
      const spawned = await spawn;
      expect(written.code, written.stderr).toBe(0);
      expect(spawned.code, spawned.stderr).toBe(0);
      expect(spawned.json!.data).toMatchObject({ task: '010', status: 'needs_review' });
      expect(a.yaml(taskFile('080')).status).toBe('in_progress');
      // The run's end gave the claim back.
      expect(remoteClaims(remote).size).toBe(0);
    },
  );

  it(
    "an owner's write renews its claim on the remote after the lock is let go: a remote slow to answer holds up no " +
      'other write here',
    async () => {
      const { remote, clones } = world(1);
      const a = clones[0]!;
      const w = agents();
      ok(a, ['task', 'next', '--claim', '--owner', 'ann']);
      const first = remoteClaims(remote).get('010')!;
      // As if most of the lease had passed since the claim: a minute of it is left on the remote.
      const file = taskFile('010');
      const soon = new Date(Date.now() + 60_000).toISOString();
      a.write(file, a.read(file).replace(/remote_lease_until: .*/, `remote_lease_until: ${soon}`));
      const held = join(w.root, 'held');
      const release = join(w.root, 'release');
      const hook = join(remote, 'hooks', 'pre-receive');
      writeFileSync(
        hook,
        `#!/bin/sh\ntouch '${held}'\ni=0\nwhile [ ! -e '${release}' ] && [ $i -lt 3000 ]; do sleep 0.1; i=$((i+1)); ` +
          `done\nexit 0\n`,
      );
      chmodSync(hook, 0o755);
      const renewing = a.sowAsync(['task', 'set', '--id', '010', 'note', 'two', '--owner', 'ann']);
      await until(() => existsSync(held), 'the renewal push reached the remote');
      // The note is written before the push: the push waits, and another write here takes the lock at once.
      expect(a.yaml(file).metadata.note).toBe('two');
      const written = await a.sowAsync(['task', 'set', '--id', '080', 'status', 'in_progress'], {
        env: { SOW_LOCK_TIMEOUT: '5' },
      });
      writeFileSync(release, '');
      const renewed = await renewing;
      expect(written.code, written.stderr).toBe(0);
      expect(renewed.code, renewed.stderr).toBe(0);
      const owner = a.yaml(file).owner;
      expect(owner.remote_claim).toBe(remoteClaims(remote).get('010'));
      expect(owner.remote_claim).not.toBe(first);
      expect(Date.parse(owner.remote_lease_until)).toBeGreaterThan(Date.parse(soon));
    },
  );
});

describe('a run recorded late gives its claim back after the lock is let go', () => {
  /**
   * Task 010 as a worker left it whose end waits to be recorded (it ended while another branch was checked out): a
   * worker owns it here, its claim is on the remote, and the remote records whether the lock was held at each push.
   */
  function waitingRun(): { a: Repo; remote: string; pushes: string } {
    const { remote, clones } = world(1);
    const a = clones[0]!;
    ok(a, ['task', 'next', '--claim', '--owner', 'ann']);
    const file = taskFile('010');
    a.write(
      file,
      a
        .read(file)
        .replace(/^(\s*)kind: claim$/m, '$1kind: worker\n$1pid: 4242')
        .replace(/^(\s*)by: ann$/m, '$1by: implementer-1'),
    );
    const project = a.yaml('.sow/project/state.yaml');
    const at = new Date().toISOString();
    const entry = { at, agent_id: 'implementer-1', agent: 'implementer', executor: 'fake', task: '010', run: 'spawn' };
    const run = {
      version: 1,
      project: { name: project.name, created_at: project.created_at, branch: BRANCH },
      task: '010',
      agent_id: 'implementer-1',
      pid: 4242,
      checked_out: 'main',
      entry,
    };
    mkdirSync(join(a.dir, '.git', 'sow', 'deferred-runs'), { recursive: true });
    writeFileSync(join(a.dir, '.git', 'sow', 'deferred-runs', 'run.json'), JSON.stringify(run));
    const pushes = join(a.dir, '..', 'pushes');
    const hook = join(remote, 'hooks', 'pre-receive');
    const lock = join(a.dir, '.git', 'sow', 'lock');
    writeFileSync(hook, `#!/bin/sh\nif [ -e '${lock}' ]; then echo held; else echo free; fi >> '${pushes}'\nexit 0\n`);
    chmodSync(hook, 0o755);
    return { a, remote, pushes };
  }

  for (const args of [
    ['task', 'list'],
    ['task', 'set', '--id', '080', 'note', 'x'],
    ['task', 'add', 'Another task', '--agent', 'implementer'],
  ])
    it(`by \`sow ${args.slice(0, 2).join(' ')}\`: the task is paused, then its claim deleted, lock free`, () => {
      const { a, remote, pushes } = waitingRun();
      ok(a, args);
      const task = a.yaml(taskFile('010'));
      expect([task.status, task.owner]).toEqual(['paused', undefined]);
      expect(a.yaml('.sow/project/state.yaml').usage).toHaveLength(1);
      expect(remoteClaims(remote).size).toBe(0);
      expect(readFileSync(pushes, 'utf8')).toBe('free\n');
    });

  it('a remote that refuses the give-back: said, and the run and the task stay written', () => {
    const { a, remote } = waitingRun();
    const claim = remoteClaims(remote).get('010');
    writeFileSync(join(remote, 'hooks', 'pre-receive'), '#!/bin/sh\nexit 1\n');
    const list = ok(a, ['task', 'list']);
    expect(list.stderr).toContain("the claim of task 010 was not given back: the remote 'origin' refused the push");
    const task = a.yaml(taskFile('010'));
    expect([task.status, task.owner]).toEqual(['paused', undefined]);
    expect(a.yaml('.sow/project/state.yaml').usage).toHaveLength(1);
    expect(remoteClaims(remote).get('010')).toBe(claim);
  });
});

describe('a claim guards every change of its task', () => {
  /** Fake agent CLIs for the clones (test/fakes), removed with the clones. */
  const agents = (): World => {
    const world = makeWorld({ prefix: 'sow-claims-guard-' });
    dirs.push(world.root);
    return world;
  };
  /**
   * What the task_update tool of `sow mcp`, started in the clone, answers: its JSON document and whether it is an
   * error.
   */
  async function taskUpdate(clone: Repo, args: Record<string, unknown>): Promise<{ isError: boolean; body: any }> {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('SOW_')) env[k] = v;
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SOW, 'mcp'],
      cwd: clone.dir,
      env: { ...env, ...TEST_ENV },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'claims-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const r = await client.callTool({ name: 'task_update', arguments: args });
      return { isError: r.isError === true, body: JSON.parse((r.content as { text: string }[])[0]!.text) };
    } finally {
      await client.close().catch(() => undefined);
    }
  }
  /**
   * A worker's environment for `agent report` on task 010 (its fake CLI is not needed: the command reads who it is
   * from there).
   */
  const asWorker = (id: string, task = '010') => ({ SOW_AGENT_ID: id, SOW_AGENT: 'implementer', SOW_TASK_ID: task });
  /** How a change ended: exit code and error code of the CLI, or the tool's error code. */
  const outcome = (r: RunResult): string => `${r.code} ${r.json?.error?.code ?? 'ok'}`;

  it(
    "another clone's claim: task set, task abandon, agent report and task_update are refused (exit 3, naming it); " +
      '--force takes it over, says so in the log and deletes the claim on the remote',
    async () => {
      const { remote, clones } = world(2);
      const [a, b] = clones as [Repo, Repo];
      for (const id of ['010', '020', '030', '040'])
        expect(ok(a, ['task', 'next', '--claim', '--owner', 'ann']).stdout.trim()).toBe(id);
      const held = remoteClaims(remote).get('010')!;
      const before = b.snapshot();
      // Each change on a task of its own, so that each is seen whatever the others do.
      const tried = {
        set: outcome(b.sow(['task', 'set', '--id', '010', 'status', 'completed', '--json'])),
        abandon: outcome(b.sow(['task', 'abandon', '--id', '020', '--json'])),
        report: outcome(
          b.sow(['agent', 'report', '--status', 'needs_review', 'done', '--json'], {
            env: asWorker('implementer-1', '030'),
          }),
        ),
        task_update: (await taskUpdate(b, { id: '040', field: 'status', value: 'completed' })).body.error?.code ?? 'ok',
      };
      expect(tried).toEqual({
        set: '3 TASK_HELD',
        abandon: '3 TASK_HELD',
        report: '3 TASK_HELD',
        task_update: 'TASK_HELD',
      });
      const text = expectFails(b, ['task', 'set', '--id', '010', 'status', 'completed'], 3, 'TASK_HELD', {
        human: true,
      });
      expect(text).toMatch(
        new RegExp(
          /^task 010 is held by ann: claimed on the remote 'origin' from \S+ since \d{4}-\S+, lease until \d{4}-\S+; /
            .source + /only its holder changes it\nnothing was changed; ask ann to let it go/.source,
        ),
      );
      expect(text).toContain(
        "pass --force to take it over (noted in the task's log, and the claim on 'origin' is deleted)",
      );
      const refused = b.sow(['task', 'set', '--id', '010', 'status', 'completed', '--json']).json?.error as
        { details?: object } | undefined;
      expect(refused?.details).toMatchObject({
        task: '010',
        holder: 'ann',
        where: 'remote',
        remote: 'origin',
        machine: expect.any(String),
        since: expect.any(String),
        lease_until: expect.any(String),
      });
      // Every change of the task, not only finishing it.
      expectFails(b, ['task', 'set', '--id', '010', 'name', 'Another name'], 3, 'TASK_HELD');
      expectFails(b, ['task', 'set', '--id', '010', 'status', 'in_progress'], 3, 'TASK_HELD');
      expectFails(b, ['task', 'abandon', '--id', '010'], 3, 'TASK_HELD', { human: true });
      const report = expectFails(b, ['agent', 'report', '--status', 'needs_review', 'done'], 3, 'TASK_HELD', {
        env: asWorker('implementer-1'),
      });
      expect(report).toContain(
        'nothing was changed; task 010 is not yours to change: stop working on it and tell whoever runs you',
      );
      const tool = await taskUpdate(b, { id: '010', field: 'status', value: 'completed' });
      expect(tool.isError).toBe(true);
      expect(tool.body.error).toMatchObject({ code: 'TASK_HELD', details: { holder: 'ann', where: 'remote' } });
      expect(b.snapshot()).toEqual(before);
      expect(remoteClaims(remote).get('010')).toBe(held);
      // A person's feedback is no change of the task: it stays open to everyone.
      ok(b, ['task', 'feedback', '--id', '010', 'Mind the edge cases']);

      const forced = ok(b, ['task', 'set', '--id', '010', 'status', 'completed', '--force', '--owner', 'bob']);
      expect(forced.stderr).not.toContain('warning');
      expect(b.yaml(taskFile('010')).status).toBe('completed');
      expect(b.read('.sow/project/phases/implementation/tasks/010/log.md')).toMatch(
        new RegExp(
          /agent: bob\naction: note\nresult: success\n---\n\n/.source +
            /Taken over with --force \(set status completed\) by bob on \S+, from ann: /.source +
            /claimed on the remote 'origin' from \S+ since \d{4}-\S+, lease until \d{4}-\S+\. /.source +
            /Their claim on the remote is deleted once this change is written \(a failure is said then\)\./.source,
        ),
      );
      expect(remoteClaims(remote).has('010')).toBe(false);
    },
  );

  it(
    'the task_update tool with force, and a forced change whose claim cannot be deleted: the change stands, and sow ' +
      'says how to delete the claim',
    async () => {
      const { remote, clones } = world(2);
      const [a, b] = clones as [Repo, Repo];
      ok(a, ['task', 'next', '--claim', '--owner', 'ann']);
      ok(a, ['task', 'next', '--claim', '--owner', 'ann']);
      const tool = await taskUpdate(b, {
        id: '010',
        field: 'status',
        value: 'needs_review',
        force: true,
        owner: 'bob',
      });
      expect(tool.isError, JSON.stringify(tool.body)).toBe(false);
      expect(b.yaml(taskFile('010')).status).toBe('needs_review');
      expect(b.read('.sow/project/phases/implementation/tasks/010/log.md')).toContain(
        'Taken over with --force (set status needs_review) by bob on ',
      );
      expect([...remoteClaims(remote).keys()]).toEqual(['020']);
      // The remote refuses the deletion: abandoned here all the same, with the command that deletes the claim.
      const held = remoteClaims(remote).get('020')!;
      writeFileSync(join(remote, 'hooks', 'pre-receive'), '#!/bin/sh\nexit 1\n');
      chmodSync(join(remote, 'hooks', 'pre-receive'), 0o755);
      const r = ok(b, ['task', 'abandon', '--id', '020', '--force']);
      expect(b.yaml(taskFile('020')).status).toBe('abandoned');
      expect(r.stderr).toContain(
        `warning: the claim of task 020 on the remote 'origin' was not deleted: the remote refused the push (`,
      );
      expect(r.stderr).toContain(
        `To delete the claim, run: git push --force-with-lease=${ref('020')}:${held} origin :${ref('020')}`,
      );
      expect(remoteClaims(remote).get('020')).toBe(held);
      rmSync(join(remote, 'hooks', 'pre-receive'));
      git(b.dir, ['push', '-q', `--force-with-lease=${ref('020')}:${held}`, 'origin', `:${ref('020')}`]);
      expect(remoteClaims(remote).size).toBe(0);
    },
  );

  it(
    "a live worker here: task set, task abandon, another worker's report and task_update are refused (exit 3, " +
      'naming it); --force takes it over and gives its claim back',
    async () => {
      const { remote, clones } = world(1);
      const a = clones[0]!;
      const w = agents();
      const late = join(w.root, 'late.json');
      const script = [
        { touch: join(w.root, 'started') },
        { wait: join(w.root, 'go') },
        { try: ['agent', 'report', '--status', 'needs_review', 'done'], out: late },
      ];
      ok(a, ['agent', 'spawn', 'implementer', '010', '--detach'], {
        env: { ...w.env, FAKE_AGENT_SCRIPT: JSON.stringify(script) },
      });
      await until(() => existsSync(join(w.root, 'started')), 'the worker started');
      expect([...remoteClaims(remote).keys()]).toEqual(['010']);
      // Each change seen before any is judged; none of them may change the task.
      const tried = {
        set: outcome(a.sow(['task', 'set', '--id', '010', 'status', 'completed', '--json'])),
        metadata: outcome(a.sow(['task', 'set', '--id', '010', 'metadata.note', 'x', '--json'])),
        abandon: outcome(a.sow(['task', 'abandon', '--id', '010', '--json'])),
        report: outcome(
          a.sow(['agent', 'report', '--status', 'paused', 'mine now', '--json'], { env: asWorker('implementer-9') }),
        ),
        task_update:
          (await taskUpdate(a, { id: '010', field: 'status', value: 'needs_review' })).body.error?.code ?? 'ok',
      };
      expect(tried).toEqual({
        set: '3 TASK_HELD',
        metadata: '3 TASK_HELD',
        abandon: '3 TASK_HELD',
        report: '3 TASK_HELD',
        task_update: 'TASK_HELD',
      });
      const text = expectFails(a, ['task', 'set', '--id', '010', 'status', 'completed'], 3, 'TASK_HELD', {
        human: true,
      });
      expect(text).toMatch(
        new RegExp(
          /^task 010 is held by implementer-1: a worker run by pid \d+ on \S+ since \d{4}-\S+; /.source +
            /only its holder changes it\n/.source +
            /nothing was changed; ask implementer-1 to let it go, wait until its worker is done/.source,
        ),
      );
      expectFails(a, ['task', 'set', '--id', '010', 'metadata.note', 'x'], 3, 'TASK_HELD');
      expectFails(a, ['task', 'abandon', '--id', '010'], 3, 'TASK_HELD');
      expectFails(a, ['agent', 'report', '--status', 'paused', 'mine now'], 3, 'TASK_HELD', {
        env: asWorker('implementer-9'),
      });
      const tool = await taskUpdate(a, { id: '010', field: 'status', value: 'needs_review' });
      expect(tool.body.error).toMatchObject({
        code: 'TASK_HELD',
        details: { holder: 'implementer-1', where: 'here', kind: 'worker' },
      });

      ok(a, ['task', 'abandon', '--id', '010', '--force', '--owner', 'bob']);
      const task = a.yaml(taskFile('010'));
      expect(task.status).toBe('abandoned');
      expect(task.owner).toBeUndefined();
      expect(a.read('.sow/project/phases/implementation/tasks/010/log.md')).toMatch(
        new RegExp(
          /Taken over with --force \(abandoned\) by bob on \S+, from implementer-1: /.source +
            /a worker run by pid \d+ on \S+ since \S+\. Their later writes to this task are refused\./.source,
        ),
      );
      expect(remoteClaims(remote).size).toBe(0);
      // The worker's late report is refused: the task stays abandoned.
      writeFileSync(join(w.root, 'go'), '');
      ok(a, ['agent', 'wait', '010'], { env: w.env });
      await until(() => existsSync(late), 'the worker reported');
      expect(JSON.parse(readFileSync(late, 'utf8')).stdout + JSON.parse(readFileSync(late, 'utf8')).stderr).toContain(
        'no longer owns task 010',
      );
      expect(a.yaml(taskFile('010')).status).toBe('abandoned');
    },
  );
});
