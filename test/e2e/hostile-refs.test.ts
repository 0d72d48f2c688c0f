/**
 * Hostile names and sources on the way to git, gh and the refs cache, met as a user meets them:
 * a source repository whose default branch is named like an option of git, a cloned repository
 * whose branch or committed refs index was written by an attacker, a source that carries a link
 * out of its checkout. Each is built for real (branches made with update-ref, files committed
 * with `git add -f`), cloned, and met with the built sow; nothing outside may change (the
 * sentinel folder) and nothing may run (the marker a hostile command would create).
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ok, TEST_ENV, type Repo } from './harness.js';
import { useHostile, type Hostile } from './hostile.js';

const hostile = useHostile();
const FAKE_GH = fileURLToPath(new URL('../fakes/fake-gh.mjs', import.meta.url));

const git = (cwd: string, args: string[]) =>
  execFileSync('git', args, { cwd, env: { ...process.env, ...TEST_ENV }, encoding: 'utf8' }).trim();

/** A branch name git takes for an option: `git fetch origin <it>` would run `touch <marker>`. */
const uploadPack = (marker: string) => `--upload-pack=touch\${IFS}${marker};git-upload-pack`;
/** The same for `git push origin <it>`. */
const receivePack = (marker: string) => `--receive-pack=touch\${IFS}${marker};git-receive-pack`;

/** What the committed index may name: https URLs, which git here reads from the temp folder (url.<base>.insteadOf). */
const SHARED_PREFIX = 'https://refs.example.invalid/';
const sharedUrl = (dir: string) => `${SHARED_PREFIX}${relative(tmpdir(), dir)}`;
/** The same over http://, which git here reads from the temp folder too. */
const UNENCRYPTED_PREFIX = 'http://refs.example.invalid/';

/** A cache of the test's own, beside the attacker's files, and git told where the https sources are. */
function refsEnv(h: Hostile): Record<string, string> {
  const file = `url.file://${tmpdir()}/.insteadOf`;
  return {
    XDG_CACHE_HOME: join(dirname(h.sentinel), 'cache'),
    GIT_CONFIG_COUNT: '2',
    GIT_CONFIG_KEY_0: file,
    GIT_CONFIG_VALUE_0: SHARED_PREFIX,
    GIT_CONFIG_KEY_1: file,
    GIT_CONFIG_VALUE_1: UNENCRYPTED_PREFIX,
  };
}
const cacheOf = (h: Hostile) => join(dirname(h.sentinel), 'cache', 'sow', 'refs');

/**
 * A plain git repository beside the attacker's (README.md, docs/guide.md), its default branch
 * named `branch` (made with symbolic-ref: `git branch` would refuse a name beginning with '-').
 */
function sourceRepo(h: Hostile, name: string, branch = 'main'): string {
  const dir = join(dirname(h.sentinel), name);
  mkdirSync(join(dir, 'docs'), { recursive: true });
  git(dir, ['init', '-q', '-b', 'main']);
  writeFileSync(join(dir, 'README.md'), '# Style guide\n');
  writeFileSync(join(dir, 'docs', 'guide.md'), 'Use tabs.\n');
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-q', '-m', 'first']);
  if (branch !== 'main') {
    git(dir, ['update-ref', `refs/heads/${branch}`, 'HEAD']);
    git(dir, ['symbolic-ref', 'HEAD', `refs/heads/${branch}`]);
    git(dir, ['update-ref', '-d', 'refs/heads/main']);
  }
  return dir;
}

/**
 * Checks out a new branch `name` in `dir` (made with update-ref: git checkout -b refuses a name beginning with '-').
 */
function checkoutNamed(dir: string, name: string): void {
  git(dir, ['update-ref', `refs/heads/${name}`, 'HEAD']);
  git(dir, ['symbolic-ref', 'HEAD', `refs/heads/${name}`]);
}

/** Refused with this exit code and error code (--json), the message matching; no stack trace. */
function refused(
  repo: Repo,
  args: string[],
  exit: number,
  code: string,
  env: Record<string, string>,
  pattern?: RegExp,
): { message: string; hint?: string } {
  // --json before a `--`, after which it would be an argument.
  const end = args.indexOf('--');
  const r = repo.sow(end < 0 ? [...args, '--json'] : [...args.slice(0, end), '--json', ...args.slice(end)], { env });
  expect(r.code, `sow ${args.join(' ')}\n${r.stdout}\n${r.stderr}`).toBe(exit);
  expect(r.json?.error?.code, `sow ${args.join(' ')}`).toBe(code);
  if (pattern) expect(r.json!.error!.message, `sow ${args.join(' ')}`).toMatch(pattern);
  expect(r.stderr, 'no stack trace').not.toMatch(/\n\s+at /);
  return r.json!.error!;
}

/** Every entry of .sow/refs/ that is not one of sow's own files. */
const linksIn = (repo: Repo) =>
  existsSync(join(repo.dir, '.sow/refs'))
    ? readdirSync(join(repo.dir, '.sow/refs')).filter(
        (n) => !['.gitignore', '.gitkeep', 'index.json', 'index.local.json'].includes(n),
      )
    : [];

/** Each file under `dir`, links not followed (relative paths). */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(child);
      else out.push(child);
    }
  };
  walk('');
  return out;
}

describe('a branch name never runs a command', () => {
  it(
    'a source whose default branch is named --upload-pack=<command>: refs add, status, update and init ' +
      'run nothing',
    () => {
      const h = hostile();
      h.commit();
      const clone = h.clone();
      const env = refsEnv(h);
      const src = sourceRepo(h, 'ref-source', uploadPack(h.marker));
      ok(clone, ['refs', 'add', `file://${src}`, '--link', 'style'], { env });
      expect(readFileSync(join(clone.dir, '.sow/refs/style/README.md'), 'utf8')).toBe('# Style guide\n');
      expect(ok(clone, ['refs', 'status'], { env }).stdout).toMatch(/^style {2}current \([0-9a-f]{7}\)\n$/);
      h.untouched();
      writeFileSync(join(src, 'README.md'), '# Style guide, v2\n');
      git(src, ['commit', '-q', '-am', 'v2']);
      expect(ok(clone, ['refs', 'status'], { env }).stdout).toMatch(/^style {2}behind by 1/);
      expect(ok(clone, ['refs', 'update'], { env }).stdout).toMatch(/^style {2}updated/);
      expect(readFileSync(join(clone.dir, '.sow/refs/style/README.md'), 'utf8')).toBe('# Style guide, v2\n');
      rmSync(cacheOf(h), { recursive: true, force: true });
      expect(ok(clone, ['refs', 'init'], { env }).stdout).toBe('style  cloned and linked\n');
      expect(ok(clone, ['refs', 'status'], { env }).stdout).toMatch(/^style {2}current/);
      h.untouched();
    },
  );

  it(
    'a committed index whose branch is named --upload-pack=<command>: refs init, status and update of a fresh clone ' +
      'run nothing',
    () => {
      const h = hostile();
      const env = refsEnv(h);
      const src = sourceRepo(h, 'ref-source');
      git(src, ['update-ref', `refs/heads/${uploadPack(h.marker)}`, 'HEAD']);
      h.write(
        '.sow/refs/index.json',
        JSON.stringify({
          version: 1,
          refs: [
            { link: 'style', source: sharedUrl(src), branch: uploadPack(h.marker), semantic: 'knowledge', tags: [] },
          ],
        }),
      );
      h.commit();
      const clone = h.clone();
      expect(ok(clone, ['refs', 'init'], { env }).stdout).toBe('style  cloned and linked\n');
      expect(ok(clone, ['refs', 'status'], { env }).stdout).toMatch(/^style {2}current/);
      expect(ok(clone, ['refs', 'update'], { env }).stdout).toMatch(/^style {2}current/);
      h.untouched();
    },
  );

  it(
    'a project whose branch is named --receive-pack=<command>: pr create pushes it, and gh gets it joined to ' +
      '--head; nothing runs',
    () => {
      const h = hostile();
      const branch = receivePack(h.marker);
      checkoutNamed(h.origin.dir, branch);
      ok(h.origin, ['project', 'new', 'demo', '--description', 'A demo project']);
      h.write('.sow/config.yaml', 'github:\n  repo: acme/api\n');
      h.commit();
      const clone = h.clone();
      // The attacker's repository leaves the branch so the clone may push to it.
      git(h.origin.dir, ['checkout', '-q', 'main']);
      expect(clone.yaml('.sow/project/state.yaml').branch).toBe(branch);
      // A branch without an upstream yet (as one made or fetched by hand): pr create pushes it first.
      git(clone.dir, ['config', '--unset', `branch.${branch}.remote`]);
      git(clone.dir, ['config', '--unset', `branch.${branch}.merge`]);
      const bin = join(dirname(h.sentinel), 'bin');
      mkdirSync(bin);
      writeFileSync(join(bin, 'gh'), `#!/bin/sh\nexec "${process.execPath}" "${FAKE_GH}" "$@"\n`, { mode: 0o755 });
      const log = join(dirname(h.sentinel), 'gh-calls.jsonl');
      const env = {
        PATH: `${bin}:${process.env['PATH']}`,
        FAKE_GH_LOG: log,
        FAKE_GH_STATE: join(dirname(h.sentinel), 'gh-state.json'),
      };
      expect(ok(clone, ['pr', 'create', '--force', '--json'], { env }).json!.data).toMatchObject({
        created: true,
        pushed: true,
      });
      h.untouched();
      expect(
        git(clone.dir, ['for-each-ref', '--format=%(upstream)', `refs/heads/${branch}`]),
        'pushed, with its upstream',
      ).toBe(`refs/remotes/origin/${branch}`);
      const calls = readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).argv as string[]);
      const create = calls.find((a) => a[0] === 'pr' && a[1] === 'create')!;
      expect(create).toContain(`--head=${branch}`);
      expect(calls.find((a) => a[0] === 'pr' && a[1] === 'list')).toContain(`--head=${branch}`);
    },
  );

  it(
    'a clone checked out on a branch named like an option: worktree add starts from it; names beginning with - ' +
      'are refused',
    () => {
      const h = hostile();
      const branch = uploadPack(h.marker);
      checkoutNamed(h.origin.dir, branch);
      h.commit();
      const clone = h.clone();
      expect(git(clone.dir, ['symbolic-ref', '--short', 'HEAD'])).toBe(branch);
      const added = ok(clone, ['worktree', 'add', 'feat/y', '--json']).json!.data;
      expect(added).toMatchObject({ branch: 'feat/y', created_from: branch });
      expect(git(join(clone.dir, '.sow/worktrees/feat/y'), ['rev-parse', 'HEAD'])).toBe(
        git(clone.dir, ['rev-parse', 'HEAD']),
      );
      refused(clone, ['worktree', 'add', 'feat/z', `--from=${branch}`], 1, 'INVALID_VALUE', {});
      refused(clone, ['worktree', 'add', '--', branch], 2, 'INVALID_NAME', {});
      refused(
        clone,
        ['project', 'new', 'x', '--description', 'd', `--branch=${uploadPack(h.marker)}-2`],
        2,
        'INVALID_NAME',
        {},
      );
      h.untouched();
    },
  );
});

describe('the committed refs index names only shared sources, and plain link names', () => {
  const localSources: [string, (h: Hostile) => string][] = [
    ['an absolute folder', (h) => h.sentinel],
    ['a relative folder', () => '../sentinel'],
    ['a file:// URL', (h) => `file://${h.sentinel}`],
  ];
  for (const [what, sourceOf] of localSources) {
    it(
      `${what}: every refs command refuses it (exit 4, naming the entry and how to add it locally); nothing ` +
        `copied or linked`,
      () => {
        const h = hostile();
        const env = refsEnv(h);
        const source = sourceOf(h);
        h.write(
          '.sow/refs/index.json',
          JSON.stringify({ version: 1, refs: [{ link: 'notes', source, semantic: 'knowledge', tags: [] }] }),
        );
        h.commit();
        const clone = h.clone();
        const before = clone.snapshot();
        for (const args of [
          ['refs', 'init'],
          ['refs', 'list'],
          ['refs', 'status'],
          ['refs', 'update'],
        ]) {
          const e = refused(
            clone,
            args,
            4,
            'REF_SOURCE_NOT_SHARED',
            env,
            new RegExp(
              `^\\.sow/refs/index\\.json: refs\\.0 \\('notes', source ` +
                `'${source.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}'\\): .*; the committed index names only https:// ` +
                `and ssh:// sources$`,
            ),
          );
          expect(e.hint).toContain(`'sow refs add ${source} --link notes --local'`);
        }
        expect(linksIn(clone)).toEqual([]);
        expect(
          filesUnder(cacheOf(h)).filter((f) => f.endsWith('precious.txt')),
          'no copy in the cache',
        ).toEqual([]);
        expect(clone.snapshot()).toEqual(before);
        h.untouched();
      },
    );
  }

  it('added by the person, a local folder, a file:// URL and an http:// URL go to the local index, saying why', () => {
    const h = hostile();
    h.commit();
    const clone = h.clone();
    const env = refsEnv(h);
    const src = sourceRepo(h, 'ref-source');
    expect(ok(clone, ['refs', 'add', `file://${src}`, '--link', 'a'], { env }).stderr).toContain(
      '(a file:// URL is a folder on this machine, so it is never shared)',
    );
    expect(ok(clone, ['refs', 'add', h.sentinel, '--link', 'b'], { env }).stderr).toContain(
      '(a local folder is a path on this machine, so it is never shared)',
    );
    expect(
      ok(clone, ['refs', 'add', `${UNENCRYPTED_PREFIX}${relative(tmpdir(), src)}`, '--link', 'u'], { env }).stderr,
    ).toContain(
      '(an http:// URL is unencrypted (anyone on the way could change what agents read), so it is kept to this ' +
        'machine; share an https:// or ssh:// URL instead)',
    );
    expect(ok(clone, ['refs', 'add', sharedUrl(src), '--link', 'c'], { env }).stderr).toContain(
      'Recorded in .sow/refs/index.json',
    );
    expect(JSON.parse(clone.read('.sow/refs/index.json')).refs.map((r: { link: string }) => r.link)).toEqual(['c']);
    expect(JSON.parse(clone.read('.sow/refs/index.local.json')).refs.map((r: { link: string }) => r.link)).toEqual([
      'a',
      'b',
      'u',
    ]);
    // The local index is ignored by git: it never leaves this machine.
    expect(git(clone.dir, ['check-ignore', '.sow/refs/index.local.json'])).toBe('.sow/refs/index.local.json');
    h.untouched();
  });

  it(
    "an ssh:// URL whose host is an option once its %-escapes are decoded (%2d is '-') is refused before git sees " +
      'it: by refs add (exit 1), in either index (exit 4); nothing created, nothing run',
    () => {
      const h = hostile();
      h.commit();
      const clone = h.clone();
      const env = refsEnv(h);
      const before = clone.snapshot();
      const sources = [
        `ssh://%2doProxyCommand=touch\${IFS}${h.marker}/r`,
        `ssh://git@%2DoProxyCommand=touch\${IFS}${h.marker}/r`,
        `ssh://host/r%0a`,
      ];
      for (const source of sources) {
        for (const extra of [[], ['--local']]) {
          const e = refused(clone, ['refs', 'add', source, '--link', 'r', ...extra], 1, 'REF_SOURCE_UNSAFE', env);
          expect(e.message).toMatch(/^sow will not hand 'ssh:\/\/.*' to git: /);
        }
      }
      expect(
        refused(clone, ['refs', 'add', sources[0]!, '--link', 'r'], 1, 'REF_SOURCE_UNSAFE', env).message,
      ).toContain(
        "its host or user begins with '-' ('-oProxyCommand=touch${IFS}' once its %-escapes are decoded, as git " +
          'decodes them), which ssh would read as an option',
      );
      expect(
        clone.exists('.sow/refs/index.json') && JSON.parse(clone.read('.sow/refs/index.json')).refs.length,
      ).toBeFalsy();
      expect(clone.exists('.sow/refs/index.local.json')).toBe(false);
      expect(linksIn(clone)).toEqual([]);
      expect(filesUnder(cacheOf(h)), 'nothing cloned').toEqual([]);
      expect(clone.snapshot()).toEqual(before);
      // Written into an index by hand instead: every refs command refuses it, naming the entry.
      for (const [rel, code] of [
        ['.sow/refs/index.json', 'REF_SOURCE_NOT_SHARED'],
        ['.sow/refs/index.local.json', 'STATE_FILE_INVALID'],
      ] as const) {
        clone.write(
          rel,
          JSON.stringify({ version: 1, refs: [{ link: 'r', source: sources[0], semantic: 'knowledge', tags: [] }] }),
        );
        for (const args of [
          ['refs', 'init'],
          ['refs', 'update'],
        ])
          expect(refused(clone, args, 4, code, env).message).toContain("begins with '-'");
        rmSync(join(clone.dir, rel));
      }
      expect(filesUnder(cacheOf(h)), 'nothing cloned').toEqual([]);
      h.untouched();
    },
  );

  it(
    'a committed index.local.json (git add -f) ' + "naming a folder is refused (exit 4): it is never the person's own",
    () => {
      const h = hostile();
      const env = refsEnv(h);
      h.write(
        '.sow/refs/index.local.json',
        JSON.stringify({ version: 1, refs: [{ link: 'notes', source: h.sentinel, semantic: 'knowledge', tags: [] }] }),
      );
      h.commit();
      const clone = h.clone();
      for (const args of [
        ['refs', 'init'],
        ['refs', 'list'],
        ['refs', 'status'],
      ]) {
        expect(refused(clone, args, 4, 'REF_LOCAL_INDEX_COMMITTED', env).hint).toContain(
          'git rm .sow/refs/index.local.json',
        );
      }
      expect(linksIn(clone)).toEqual([]);
      h.untouched();
    },
  );

  for (const link of ['../../escape', '-x', '.hidden', 'a/b', 'index.json', '..']) {
    it(`link name ${JSON.stringify(link)}, committed or local, is refused (exit 4); nothing linked`, () => {
      const h = hostile();
      const env = refsEnv(h);
      const src = sourceRepo(h, 'ref-source');
      h.write(
        '.sow/refs/index.json',
        JSON.stringify({ version: 1, refs: [{ link, source: sharedUrl(src), semantic: 'knowledge', tags: [] }] }),
      );
      h.commit();
      const clone = h.clone();
      const committed = clone.read('.sow/refs/index.json');
      for (const args of [
        ['refs', 'init'],
        ['refs', 'list'],
      ])
        refused(clone, args, 4, 'STATE_FILE_INVALID', env, /refs\.0\.link: .* is not a link name/);
      expect(clone.read('.sow/refs/index.json'), 'the committed index is kept as it is').toBe(committed);
      // The same in the person's own index.
      rmSync(join(clone.dir, '.sow/refs/index.json'));
      writeFileSync(join(clone.dir, '.sow/refs/index.local.json'), committed);
      refused(clone, ['refs', 'init'], 4, 'STATE_FILE_INVALID', env, /index\.local\.json: refs\.0\.link/);
      expect(linksIn(clone)).toEqual([]);
      expect(existsSync(join(dirname(clone.dir), 'escape'))).toBe(false);
      h.untouched();
    });
  }

  it(
    '.sow/refs committed as a link into the repository (../src): ' + 'refs init refuses it (exit 4), the source kept',
    () => {
      const h = hostile();
      const env = refsEnv(h);
      const src = sourceRepo(h, 'ref-source');
      h.write('src/lib/main.c', 'int main() {}\n');
      h.write(
        'src/index.json',
        JSON.stringify({
          version: 1,
          refs: [{ link: 'lib', source: sharedUrl(src), semantic: 'knowledge', tags: [] }],
        }),
      );
      rmSync(join(h.origin.dir, '.sow/refs'), { recursive: true, force: true });
      h.link('.sow/refs', '../src');
      h.commit();
      const clone = h.clone();
      for (const args of [
        ['refs', 'init'],
        ['refs', 'list'],
        ['refs', 'add', sharedUrl(src), '--link', 'lib'],
      ])
        refused(clone, args, 4, 'NOT_A_REAL_FOLDER', env, /^\.sow\/refs is a link \(to '.*\/src'\)/);
      expect(readdirSync(join(clone.dir, 'src')).sort()).toEqual(['index.json', 'lib']);
      expect(clone.read('src/lib/main.c')).toBe('int main() {}\n');
      h.untouched();
    },
  );
});

describe("a ref never leads out of sow's cache", () => {
  it('--path through a link the source carries is refused (exit 4, naming the link); no link is made', () => {
    const h = hostile();
    h.commit();
    const clone = h.clone();
    const env = refsEnv(h);
    // The person's own folder, with a link out of it (copied into the cache as a link).
    const folder = join(dirname(h.sentinel), 'notes');
    mkdirSync(folder);
    writeFileSync(join(folder, 'a.md'), 'notes\n');
    symlinkSync(h.sentinel, join(folder, 'docs'));
    for (const path of ['docs', 'docs/.']) {
      const e = refused(
        clone,
        ['refs', 'add', folder, '--link', 'notes', '--path', path],
        4,
        'REF_PATH_ESCAPES',
        env,
        /^ref 'notes': its path '.*' leads out of the source's checkout \('.*docs' is a link to '.*sentinel'\)/,
      );
      expect(e.message).toContain(h.sentinel);
    }
    expect(linksIn(clone)).toEqual([]);
    expect(existsSync(join(clone.dir, '.sow/refs/index.local.json'))).toBe(false);
    h.untouched();
  });

  it("a git source's links are checked out as plain files: no link in the cache leads out of it", () => {
    const h = hostile();
    h.commit();
    const clone = h.clone();
    const env = refsEnv(h);
    const src = sourceRepo(h, 'ref-source');
    symlinkSync(h.sentinel, join(src, 'secrets'));
    symlinkSync(join(h.sentinel, 'precious.txt'), join(src, 'docs', 'precious.txt'));
    git(src, ['add', '-A']);
    git(src, ['commit', '-q', '-m', 'links out']);
    ok(clone, ['refs', 'add', `file://${src}`, '--link', 'style'], { env });
    ok(clone, ['refs', 'add', `file://${src}`, '--link', 'secrets', '--path', 'secrets'], { env });
    const cache = realpathSync(cacheOf(h));
    for (const link of ['style', 'secrets'])
      expect(realpathSync(join(clone.dir, '.sow/refs', link)).startsWith(cache + sep), link).toBe(true);
    expect(
      lstatSync(join(clone.dir, '.sow/refs/style/secrets')).isSymbolicLink(),
      "a file holding the link's text",
    ).toBe(false);
    expect(readFileSync(join(clone.dir, '.sow/refs/style/docs/precious.txt'), 'utf8')).toBe(
      join(h.sentinel, 'precious.txt'),
    );
    h.untouched();
  });

  it(
    'a link put into a checkout later is refused by refs list, status, update and init (exit 4); the link in ' +
      '.sow/refs/ is not moved',
    () => {
      const h = hostile();
      h.commit();
      const clone = h.clone();
      const env = refsEnv(h);
      const src = sourceRepo(h, 'ref-source');
      ok(clone, ['refs', 'add', `file://${src}`, '--link', 'guide', '--path', 'docs'], { env });
      const linked = readlinkSync(join(clone.dir, '.sow/refs/guide'));
      // As a checkout made by an older sow, or by hand: docs/ is now a link out of the cache.
      rmSync(linked, { recursive: true });
      symlinkSync(h.sentinel, linked);
      for (const args of [
        ['refs', 'list'],
        ['refs', 'status'],
        ['refs', 'update'],
        ['refs', 'init'],
      ])
        refused(clone, args, 4, 'REF_PATH_ESCAPES', env, /docs' is a link to '.*sentinel'/);
      expect(readlinkSync(join(clone.dir, '.sow/refs/guide'))).toBe(linked);
      // It can still be removed.
      ok(clone, ['refs', 'remove', 'guide', '--prune-cache'], { env });
      h.untouched();
    },
  );

  it(
    'a cache index that is a link, ' + 'too large or of the wrong shape is read as empty and replaced, never followed',
    () => {
      const h = hostile();
      h.commit();
      const clone = h.clone();
      const env = refsEnv(h);
      const src = sourceRepo(h, 'ref-source');
      const index = join(cacheOf(h), 'index.json');
      mkdirSync(cacheOf(h), { recursive: true });
      symlinkSync(join(h.sentinel, 'precious.txt'), index);
      ok(clone, ['refs', 'add', `file://${src}`, '--link', 'a'], { env });
      expect(lstatSync(index).isSymbolicLink(), 'replaced by a file of its own').toBe(false);
      writeFileSync(
        index,
        `{"format":1,"entries":{"x":1,"__proto__":{"users":[1]},"ok-0123456789":{"source":7}}, "pad": ` +
          `"${'x'.repeat(17 * 1024 * 1024)}"}`,
      );
      ok(clone, ['refs', 'add', `file://${src}`, '--link', 'b', '--path', 'docs'], { env });
      const after = JSON.parse(readFileSync(index, 'utf8'));
      expect(Object.values(after.entries), 'rebuilt: the one checkout both refs use').toEqual([
        expect.objectContaining({ source: `file://${src}` }),
      ]);
      writeFileSync(index, JSON.stringify({ format: 1, entries: { 'ref-0123456789': { source: 1 }, bad: 'x' } }));
      expect(ok(clone, ['refs', 'list', '--json'], { env }).json!.data.map((r: { link: string }) => r.link)).toEqual([
        'a',
        'b',
      ]);
      h.untouched();
    },
  );
});
