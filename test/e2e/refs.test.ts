/**
 * Shared references end to end: local bare repositories as the sources (`file://`), commits pushed
 * between steps to prove behind and update, the source moved away to prove offline, two
 * repositories sharing one cache, a fresh clone rebuilt by `refs init`, and the prompts that list
 * the refs for agents.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  expectEnvelope,
  expectFails,
  makeRepo,
  ok,
  SOW,
  TEST_ENV,
  toExecuting,
  useRepos,
  type Repo,
} from './harness.js';
import { makeWorld, runSow, show } from './agent-world.js';
import { GIT_ID, refSource, type RefSource } from '../ref-source.js';

const fresh = useRepos();
const temps: string[] = [];
afterEach(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});
const temp = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  temps.push(d);
  return d;
};

interface Source extends RefSource {
  /** The same repository as an https:// URL, which the committed index may name (git maps it to `url`: cacheEnv). */
  shared: string;
}

/** A source (test/ref-source.ts), also under the https:// name the committed index may use. */
function source(): Source {
  const src = refSource();
  return { ...src, shared: `${SHARED_PREFIX}${relative(tmpdir(), src.bare)}` };
}

/**
 * What the committed index may name: an https URL, which git here reads from the temp folder instead
 * (url.<base>.insteadOf).
 */
const SHARED_PREFIX = 'https://refs.example.invalid/';

/**
 * A cache of its own for each test (XDG_CACHE_HOME), shared by the repositories of that test;
 * and git told that `https://refs.example.invalid/<x>` is `file://<tmpdir>/<x>`.
 */
function cacheEnv(): Record<string, string> {
  return {
    XDG_CACHE_HOME: temp('sow-ref-cache-'),
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: `url.file://${tmpdir()}/.insteadOf`,
    GIT_CONFIG_VALUE_0: SHARED_PREFIX,
  };
}

describe('sow refs add | list', () => {
  it(
    'clones a git source once into the cache and links it; the committed index holds no local path; the link is ' +
      'ignored by git',
    () => {
      const repo = fresh();
      const src = source();
      const env = cacheEnv();
      const r = ok(
        repo,
        [
          'refs',
          'add',
          src.shared,
          '--link',
          'style',
          '--description',
          'House style',
          '--tags',
          'style, docs',
          '--semantic',
          'knowledge',
        ],
        { env },
      );
      expect(r.stdout).toBe('.sow/refs/style\n');
      expect(r.stderr).toMatch(
        new RegExp(
          /Added ref 'style' \(knowledge\) from https:\/\/refs\.example\.invalid\/\S+ /.source +
            /at [0-9a-f]{7}: \.sow\/refs\/style → /.source,
        ),
      );
      const link = join(repo.dir, '.sow/refs/style');
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
      const target = readlinkSync(link);
      expect(target.startsWith(join(env['XDG_CACHE_HOME']!, 'sow', 'refs', 'repos')), target).toBe(true);
      expect(readFileSync(join(link, 'README.md'), 'utf8')).toBe('# Style guide\n');
      const index = JSON.parse(repo.read('.sow/refs/index.json'));
      expect(index).toEqual({
        version: 1,
        refs: [
          {
            link: 'style',
            source: src.shared,
            semantic: 'knowledge',
            tags: ['style', 'docs'],
            description: 'House style',
          },
        ],
      });
      expect(repo.read('.sow/refs/index.json')).not.toContain(env['XDG_CACHE_HOME']!);
      repo.git(['add', '-A']);
      expect(
        repo
          .git(['diff', '--cached', '--name-only'])
          .split('\n')
          .filter((f) => f.startsWith('.sow/refs/'))
          .sort(),
      ).toEqual(['.sow/refs/.gitignore', '.sow/refs/.gitkeep', '.sow/refs/index.json']);
      // The cache index knows the commit and who uses it.
      const cache = JSON.parse(readFileSync(join(env['XDG_CACHE_HOME']!, 'sow/refs/index.json'), 'utf8'));
      const entry = Object.values(cache.entries)[0] as any;
      expect(entry).toMatchObject({
        source: src.shared,
        kind: 'git',
        sha: expect.stringMatching(/^[0-9a-f]{40}$/),
        users: [expect.stringContaining('sow-e2e-')],
      });
      const list = expectEnvelope(ok(repo, ['refs', 'list', '--json'], { env }));
      expect(list.data).toEqual([
        expect.objectContaining({
          link: 'style',
          local: false,
          link_state: 'ok',
          cache: expect.objectContaining({ kind: 'git' }),
        }),
      ]);
      expect(ok(repo, ['refs', 'list'], { env }).stdout).toBe(`style  knowledge  ${src.shared}\n    House style\n`);
    },
  );

  it(
    '--path links a folder inside the source; --branch a branch; --local keeps it out of the committed index; a ' +
      'local folder is copied and local',
    () => {
      const repo = fresh();
      const src = source();
      const env = cacheEnv();
      ok(repo, ['refs', 'add', src.shared, '--link', 'guide', '--path', 'docs', '--semantic', 'code'], { env });
      expect(readFileSync(join(repo.dir, '.sow/refs/guide/guide.md'), 'utf8')).toBe('Use tabs.\n');
      expectFails(repo, ['refs', 'add', src.url, '--link', 'nope', '--path', 'missing'], 1, 'INVALID_VALUE', { env });
      expectFails(repo, ['refs', 'add', src.url, '--link', 'up', '--path', '../x'], 2, 'USAGE', { env });
      ok(repo, ['refs', 'add', src.url, '--link', 'mine', '--local'], { env });
      const folder = temp('sow-ref-folder-');
      writeFileSync(join(folder, 'notes.md'), 'local notes\n');
      const r = ok(repo, ['refs', 'add', folder, '--link', 'notes'], { env });
      expect(r.stderr).toContain('a local folder is a path on this machine, so it is never shared');
      expect(readFileSync(join(repo.dir, '.sow/refs/notes/notes.md'), 'utf8')).toBe('local notes\n');
      expect(
        readlinkSync(join(repo.dir, '.sow/refs/notes')).startsWith(env['XDG_CACHE_HOME']!),
        'a copy in the cache, not the folder itself',
      ).toBe(true);
      expect(JSON.parse(repo.read('.sow/refs/index.json')).refs.map((x: any) => x.link)).toEqual(['guide']);
      expect(JSON.parse(repo.read('.sow/refs/index.local.json')).refs.map((x: any) => x.link)).toEqual([
        'mine',
        'notes',
      ]);
      expect(
        repo
          .git(['status', '--porcelain', '--untracked-files=all'])
          .split('\n')
          .filter((l) => l.includes('refs/')),
      ).toEqual(['?? .sow/refs/.gitignore', '?? .sow/refs/.gitkeep', '?? .sow/refs/index.json']);
      // --branch: that branch's files, in a checkout of its own.
      src.branch('v2', 'README.md', '# v2 rules\n');
      ok(repo, ['refs', 'add', src.url, '--link', 'style-v2', '--branch', 'v2'], { env });
      expect(readFileSync(join(repo.dir, '.sow/refs/style-v2/README.md'), 'utf8')).toBe('# v2 rules\n');
      expect(readlinkSync(join(repo.dir, '.sow/refs/style-v2'))).not.toBe(
        readlinkSync(join(repo.dir, '.sow/refs/mine')),
      );
    },
  );

  it(
    "without --link, the link is the source's name: the repository without .git, or the folder; a file:// source " +
      'goes to the local index only',
    () => {
      const repo = fresh();
      const src = source();
      const env = cacheEnv();
      // src.url is file://…/origin.git: a folder of this machine, never shared, --local or not.
      const fromFile = ok(repo, ['refs', 'add', src.url], { env });
      expect(fromFile.stdout).toBe('.sow/refs/origin\n');
      expect(fromFile.stderr).toContain(
        "Recorded in .sow/refs/index.local.json, this machine's own (a file:// URL is a folder on this machine, so " +
          'it is never shared)',
      );
      expect(JSON.parse(repo.read('.sow/refs/index.local.json')).refs.map((x: any) => [x.link, x.source])).toEqual([
        ['origin', src.url],
      ]);
      expect(repo.exists('.sow/refs/index.json'), 'nothing in the committed index').toBe(false);
      expect(readFileSync(join(repo.dir, '.sow/refs/origin/README.md'), 'utf8')).toBe('# Style guide\n');

      ok(repo, ['refs', 'add', src.shared, '--link', 'style'], { env });
      const folder = join(temp('sow-ref-folder-'), 'Team Notes');
      mkdirSync(folder);
      writeFileSync(join(folder, 'notes.md'), 'notes\n');
      expect(ok(repo, ['refs', 'add', folder], { env }).stdout).toBe('.sow/refs/team-notes\n');
      // A name taken: the same refusal as with --link, which says how to pick another.
      expect(expectFails(repo, ['refs', 'add', src.url], 1, 'REF_EXISTS', { env })).toContain(
        "a ref named 'origin' exists already (a local one)\npick another --link",
      );
      expect(JSON.parse(repo.read('.sow/refs/index.json')).refs.map((x: any) => x.link)).toEqual(['style']);
      // A source without a usable name: say to give one.
      expect(expectFails(repo, ['refs', 'add', '/'], 2, 'USAGE', { env })).toContain('name it with --link <name>');
    },
  );
});

describe('sow refs status | update', () => {
  it(
    'current, then behind after a push, update fast-forwards; offline (exit 0, cached commit and age) once the ' +
      'source is gone',
    () => {
      const repo = fresh();
      const src = source();
      const env = cacheEnv();
      ok(repo, ['refs', 'add', src.url, '--link', 'style'], { env });
      expect(ok(repo, ['refs', 'status'], { env }).stdout).toMatch(/^style {2}current \([0-9a-f]{7}\)\n$/);
      const next = src.push('README.md', '# Style guide, v2\n');
      const behind = ok(repo, ['refs', 'status', 'style'], { env });
      expect(behind.stdout).toMatch(
        new RegExp(`^style {2}behind by 1: [0-9a-f]{7} → ${next.slice(0, 7)} \\('sow refs update style'\\)\\n$`),
      );
      expect(readFileSync(join(repo.dir, '.sow/refs/style/README.md'), 'utf8'), 'status changes nothing').toBe(
        '# Style guide\n',
      );
      const up = ok(repo, ['refs', 'update'], { env });
      expect(up.stdout).toMatch(new RegExp(`^style {2}updated [0-9a-f]{7} → ${next.slice(0, 7)}\\n$`));
      expect(readFileSync(join(repo.dir, '.sow/refs/style/README.md'), 'utf8')).toBe('# Style guide, v2\n');
      expect(ok(repo, ['refs', 'update'], { env }).stdout).toMatch(/^style {2}current/);
      // The source goes away: offline, and everything still reads from the cache.
      renameSync(src.bare, `${src.bare}.gone`);
      const offline = ok(repo, ['refs', 'status', '--json'], { env });
      expect(expectEnvelope(offline).data).toEqual([
        expect.objectContaining({ link: 'style', state: 'offline', sha: next, fetched_at: expect.any(String) }),
      ]);
      expect(ok(repo, ['refs', 'status'], { env }).stdout).toMatch(
        new RegExp(
          `^style {2}offline: ${next.slice(0, 7)}, fetched \\d+ s ago \\(.*does not appear to be a git ` +
            `repository\\)\\n$`,
        ),
      );
      expect(ok(repo, ['refs', 'update'], { env }).stdout).toMatch(/^style {2}offline, kept at/);
      expect(readFileSync(join(repo.dir, '.sow/refs/style/README.md'), 'utf8')).toBe('# Style guide, v2\n');
    },
  );

  it(
    "on a terminal, a fetch that takes longer than a second shows a spinner with the link's name; without " +
      'one, nothing',
    () => {
      const repo = fresh();
      const src = source();
      const env = cacheEnv();
      ok(repo, ['refs', 'add', src.url, '--link', 'style'], { env });
      // A git whose fetch takes 1.5 s.
      const bin = temp('sow-slow-git-');
      const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
      writeFileSync(join(bin, 'git'), `#!/bin/sh\nif [ "$1" = fetch ]; then sleep 1.5; fi\nexec "${realGit}" "$@"\n`, {
        mode: 0o755,
      });
      const slowEnv = { ...env, PATH: `${bin}:${process.env['PATH']}` };
      const command = [process.execPath, SOW, 'refs', 'status'].map((a) => `'${a}'`).join(' ');
      const args =
        process.platform === 'darwin' ? ['-q', '/dev/null', 'sh', '-c', command] : ['-qefc', command, '/dev/null'];
      const r = spawnSync('script', args, {
        cwd: repo.dir,
        env: { ...process.env, ...TEST_ENV, ...slowEnv, CI: '', TERM: 'xterm' },
        encoding: 'utf8',
      });
      expect(r.error, 'script(1) gives sow a terminal').toBeUndefined();
      expect(r.status, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toMatch(/\r[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] fetching style {2}1 s\x1b\[K/);
      expect(r.stdout).toMatch(/\r\x1b\[Kstyle {2}current/);
      const plain = ok(repo, ['refs', 'status'], { env: slowEnv });
      expect(plain.stderr).toBe('');
      expect(plain.stdout).toMatch(/^style {2}current \([0-9a-f]{7}\)\n$/);
    },
  );

  it('a commit made in the cache is ahead; with upstream commits too it has diverged, and update refuses it', () => {
    const repo = fresh();
    const src = source();
    const env = cacheEnv();
    ok(repo, ['refs', 'add', src.url, '--link', 'style'], { env });
    const checkout = readlinkSync(join(repo.dir, '.sow/refs/style'));
    writeFileSync(join(checkout, 'LOCAL.md'), 'mine\n');
    execFileSync('git', [...GIT_ID, 'add', 'LOCAL.md'], { cwd: checkout });
    execFileSync('git', [...GIT_ID, 'commit', '-q', '-m', 'local'], { cwd: checkout });
    expect(ok(repo, ['refs', 'status'], { env }).stdout).toMatch(/^style {2}ahead by 1 \([0-9a-f]{7}\)\n$/);
    expect(ok(repo, ['refs', 'update'], { env }).stdout, 'nothing to take: left as it is').toMatch(
      /^style {2}ahead, kept at [0-9a-f]{7}: 1 commit\(s\) made in the cache that the source does not have; kept\n$/,
    );
    src.push('README.md', '# upstream\n');
    expect(ok(repo, ['refs', 'status'], { env }).stdout).toBe('style  diverged: 1 ahead, 1 behind\n');
    const r = repo.sow(['refs', 'update'], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(
      'style  not updated: its checkout and the source have diverged (1 ahead, 1 behind); sow does not rewrite it\n',
    );
    expect(readFileSync(join(checkout, 'LOCAL.md'), 'utf8')).toBe('mine\n');
  });

  it('update never discards changes made in the cache: exit 1, the change kept', () => {
    const repo = fresh();
    const src = source();
    const env = cacheEnv();
    ok(repo, ['refs', 'add', src.url, '--link', 'style'], { env });
    src.push('README.md', '# upstream change\n');
    writeFileSync(join(repo.dir, '.sow/refs/style/README.md'), '# my local edit\n');
    const r = repo.sow(['refs', 'update'], { env });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain('style  not updated: its checkout in the cache');
    expect(r.stderr).toContain('error: 1 ref(s) not updated: style');
    expect(readFileSync(join(repo.dir, '.sow/refs/style/README.md'), 'utf8')).toBe('# my local edit\n');
    expectFails(repo, ['refs', 'status', 'styel'], 1, 'REF_NOT_FOUND', { env });
  });
});

describe('one cache for every repository; a fresh clone; remove', () => {
  it(
    'a second repository reuses the clone; refs init rebuilds the links of a fresh clone from the committed index; ' +
      'remove --prune-cache only when unused',
    () => {
      const src = source();
      const env = cacheEnv();
      const a = fresh();
      ok(a, ['refs', 'add', src.shared, '--link', 'style', '--description', 'House style'], { env });
      a.git(['add', '.sow']);
      a.git(['commit', '-q', '-m', 'refs']);
      const target = readlinkSync(join(a.dir, '.sow/refs/style'));
      // A teammate's clone: the index came with it, the link did not.
      const cloneDir = temp('sow-ref-clone-');
      execFileSync('git', ['clone', '-q', a.dir, join(cloneDir, 'b')]);
      const b = makeRepo({ dir: join(cloneDir, 'b'), init: false } as any) as Repo;
      expect(existsSync(join(b.dir, '.sow/refs/style'))).toBe(false);
      expect(ok(b, ['refs', 'list'], { env }).stdout).toContain("link missing: run 'sow refs init'");
      const init = ok(b, ['refs', 'init'], { env });
      expect(init.stdout).toBe('style  linked\n');
      expect(readlinkSync(join(b.dir, '.sow/refs/style')), 'the same checkout').toBe(target);
      const cache = JSON.parse(readFileSync(join(env['XDG_CACHE_HOME']!, 'sow/refs/index.json'), 'utf8'));
      expect((Object.values(cache.entries)[0] as any).users).toHaveLength(2);
      // Removing it from one keeps the checkout for the other.
      const r1 = ok(a, ['refs', 'remove', 'style', '--prune-cache'], { env });
      expect(r1.stderr).toContain('its checkout stays in the cache (used by 1 other repository)');
      expect(existsSync(target)).toBe(true);
      expect(JSON.parse(a.read('.sow/refs/index.json')).refs).toEqual([]);
      expect(existsSync(join(a.dir, '.sow/refs/style'))).toBe(false);
      const r2 = ok(b, ['refs', 'remove', 'style', '--prune-cache'], { env });
      expect(r2.stderr).toContain('its checkout was deleted from the cache');
      expect(existsSync(target)).toBe(false);
      // A fresh cache: init clones.
      const b2 = fresh();
      b2.write(
        '.sow/refs/index.json',
        JSON.stringify({ version: 1, refs: [{ link: 'style', source: src.shared, semantic: 'knowledge', tags: [] }] }),
      );
      expect(ok(b2, ['refs', 'init'], { env: cacheEnv() }).stdout).toBe('style  cloned and linked\n');
    },
  );
});

describe('agents find the refs', () => {
  it('project continue lists them (link, semantic, tags, description)', () => {
    const repo = fresh();
    const src = source();
    const env = cacheEnv();
    ok(repo, ['project', 'new', 'demo', '--description', 'd']);
    expect(ok(repo, ['project', 'continue', '--full']).stdout).not.toContain('## References');
    expect(ok(repo, ['project', 'continue']).stdout).not.toContain('References');
    ok(repo, ['refs', 'add', src.url, '--link', 'style', '--description', 'House style', '--tags', 'style'], { env });
    const prompt = ok(repo, ['project', 'continue', '--full'], { env }).stdout;
    expect(prompt).toContain('## References');
    expect(prompt).toContain('- `.sow/refs/style` (knowledge; style): House style');
    // The state card counts them and names the command that lists them.
    expect(ok(repo, ['project', 'continue'], { env }).stdout).toContain('References: 1 (`sow refs list`)');
  });

  it("a spawned worker's prompt lists them too", () => {
    const repo = fresh();
    const src = source();
    const env = cacheEnv();
    toExecuting(repo, ['Only task']);
    ok(
      repo,
      ['refs', 'add', src.url, '--link', 'examples', '--semantic', 'code', '--description', 'Reusable handlers'],
      { env },
    );
    const world = makeWorld();
    temps.push(world.root);
    const r = runSow(repo.dir, world, ['agent', 'spawn', 'implementer', '010', '-q'], env);
    expect(r.code, show(r)).toBe(0);
    const dir = join(repo.dir, '.git/sow/agent-outputs/010');
    const promptFile = readdirSync(dir).find((f) => f.endsWith('-spawn.prompt.md'))!;
    expect(readFileSync(join(dir, promptFile), 'utf8')).toContain('- `.sow/refs/examples` (code): Reusable handlers');
  });
});
