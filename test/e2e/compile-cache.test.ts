/**
 * The V8 code cache the `sow` executable keeps (src/bin.ts, src/adapters/compile-cache.ts): made
 * on first use, used after, extended by new commands, and never trusted when damaged — V8 itself
 * does not check the data, and a damaged cache would crash every sow command. Each test has a
 * cache folder of its own; SOW_DEBUG makes the loader say what it did.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';
import { crc32 } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { ok, PROJECT, SOW, TEST_ENV, toExecuting, useRepos, type Repo, type RunResult } from './harness.js';

const newRepo = useRepos();
const homes: string[] = [];
afterEach(() => {
  for (const dir of homes.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * A command the CLI answers without a project (`--version` alone is answered by the executable, which caches
 * nothing).
 */
const LOADS_CLI = ['--help'];

function cacheHome(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sow-cc-'));
  homes.push(dir);
  return dir;
}

/** Runs sow in the repo with `home` as its cache home, and the loader telling what it did. */
function sowIn(repo: Repo, home: string, args: string[], env: Record<string, string> = {}): RunResult {
  return repo.sow(args, { env: { XDG_CACHE_HOME: home, SOW_DEBUG: '1', ...env } });
}

/** What the loader reported: `missing`, `hit`, `damaged`, `rejected by V8`, `wrote`… */
const events = (r: RunResult) => [...r.stderr.matchAll(/^sow: compile cache: (.+?) \/.*$/gm)].map((m) => m[1]);

function cacheFiles(home: string): string[] {
  try {
    return readdirSync(join(home, 'sow', 'code-cache')).map((name) => join(home, 'sow', 'code-cache', name));
  } catch {
    return [];
  }
}

function onlyCacheFile(home: string): string {
  const files = cacheFiles(home);
  expect(files).toHaveLength(1);
  return files[0]!;
}

/** The parts of a cache file (layout in compile-cache.ts). */
function parts(file: string) {
  const bytes = readFileSync(file);
  const seenLength = bytes.readUInt32LE(20);
  return {
    bytes,
    seen: JSON.parse(bytes.toString('utf8', 24, 24 + seenLength)) as string[],
    dataStart: 24 + seenLength,
  };
}

describe('compile cache', () => {
  it('is written by the first command, used by the next, and extended by a command it has not seen', () => {
    const repo = newRepo();
    toExecuting(repo);
    const home = cacheHome();

    const first = sowIn(repo, home, ['task', 'list']);
    expect(first.code).toBe(0);
    expect(events(first)).toEqual(['missing', 'wrote']);
    const file = onlyCacheFile(home);
    // The task reads' pack has a cache apart from the task group's.
    expect(file).toMatch(
      new RegExp(`[0-9a-f]{8}-${process.version.replaceAll('.', '\\.')}-${process.arch}-task\\.read\\.bin$`),
    );
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, 'sow')).mode & 0o777).toBe(0o700);
    expect(statSync(join(home, 'sow', 'code-cache')).mode & 0o777).toBe(0o700);
    expect(parts(file).seen).toEqual(['task list']);

    const again = sowIn(repo, home, ['task', 'list']);
    expect(events(again)).toEqual(['hit']);
    expect(again.stdout).toBe(first.stdout);

    // Another command of the group extends the group's cache.
    const get = sowIn(repo, home, ['task', 'get', '--id', '010', 'name']);
    expect(get.stdout).toBe('First task\n');
    expect(events(get)).toEqual(['hit', 'wrote']);
    expect(parts(file).seen).toEqual(['task list', 'task get']);

    // Another group has a cache of its own.
    const other = sowIn(repo, home, ['phase', 'get', 'tasks_approved']);
    expect(other.stdout).toBe('true\n');
    expect(events(other)).toEqual(['missing', 'wrote']);
    expect(
      cacheFiles(home)
        .map((f) => f.replace(/^.*-/, ''))
        .sort(),
    ).toEqual(['phase.bin', 'task.read.bin']);

    // Options and values are not command words: `--json task list` is still `task list`.
    expect(events(sowIn(repo, home, ['--json', 'task', 'list', '--status', 'pending']))).toEqual(['hit']);
    // A blocked command (exit 3) is a normal outcome and teaches the cache too.
    expect(events(sowIn(repo, home, ['advance', '--dry-run']))).toEqual(['missing', 'wrote']);
    // A mistyped command (exit 2) makes no cache of its own, and does not touch the others.
    const before = cacheFiles(home).map((f) => readFileSync(f));
    const typo = sowIn(repo, home, ['tsk', 'list']);
    expect(typo.code).toBe(2);
    expect(events(typo)).toEqual(['missing']);
    expect(cacheFiles(home).map((f) => readFileSync(f))).toEqual(before);
    // Without SOW_DEBUG the loader is silent.
    const quiet = sowIn(repo, home, ['task', 'list'], { SOW_DEBUG: '' });
    expect(quiet.stderr).toBe('');
    expect(quiet.stdout).toBe(first.stdout);
  });

  it(
    "runs the pack of the command's group (the CLI with that group alone), and core.cjs for any other line or when " +
      'the pack is not there',
    () => {
      const repo = newRepo();
      toExecuting(repo);
      const home = cacheHome();
      const source = (r: RunResult) => [
        ...new Set([...r.stderr.matchAll(/^sow: compile cache: .* \((\S+)\)$/gm)].map((m) => m[1])),
      ];
      const list = sowIn(repo, home, ['task', 'list']);
      expect(source(list)).toEqual(['pack-task-read.cjs']);
      // The hottest reads run from a pack without their group's writes, chosen by the first two words.
      for (const args of [
        ['task', 'get', '--id', '010'],
        ['--json', 'task', 'next'],
        ['task', 'list', '--ready'],
      ])
        expect(source(sowIn(repo, home, args)), args.join(' ')).toEqual(['pack-task-read.cjs']);
      expect(source(sowIn(repo, home, ['--json', 'status']))).toEqual(['pack-project.cjs']);
      // Any other command of the group (a write), and a group's help wherever --help stands: the group's pack.
      const set = sowIn(repo, home, ['task', 'set', '--id', '010', 'iteration', '2']);
      expect({ code: set.code, source: source(set) }).toEqual({ code: 0, source: ['pack-task.cjs'] });
      for (const args of [
        ['task', '--help', 'list'],
        ['task', 'list', '-h'],
        ['task', 'diff', '--id', '010'],
      ])
        expect(source(sowIn(repo, home, args)), args.join(' ')).toEqual(['pack-task.cjs']);
      expect(source(sowIn(repo, home, ['project', 'history']))).toEqual(['pack-project.cjs']);
      // The read pack's cache is apart from the group pack's: after a write, a read still finds its own.
      expect(events(sowIn(repo, home, ['task', 'list']))).toEqual(['hit']);
      expect(source(sowIn(repo, home, ['input', 'list']))).toEqual(['pack-artifacts.cjs']);
      // Help of all commands, a mistyped group, completion: the whole CLI.
      for (const args of [['--help'], ['tsk', 'list'], ['help', 'task'], ['__complete', 'sow', 'ta']])
        expect(source(sowIn(repo, home, args)), args.join(' ')).toEqual(['core.cjs']);
      // A group's help and a mistyped command of the group are the pack's, and read as the CLI's.
      expect(source(sowIn(repo, home, ['task', '--help']))).toEqual(['pack-task.cjs']);
      const typo = sowIn(repo, home, ['task', 'lst']);
      expect(typo.code).toBe(2);
      expect(typo.stderr).toContain("did you mean 'list'?");
      // Whichever pack answers, the answer is the whole CLI's (core.cjs runs when source maps are on).
      for (const args of [
        ['task', '--help'],
        ['task', 'lst'],
        ['task'],
        ['task', 'list', '--help'],
        ['task', 'get', '--id', '999'],
        ['task', 'next', '--bogus'],
        ['task', 'next', '--claim', '--agent', 'nobody'],
      ]) {
        const pack = sowIn(repo, home, args, { SOW_DEBUG: '' });
        const core = sowIn(repo, home, args, { SOW_DEBUG: '', NODE_OPTIONS: '--enable-source-maps' });
        expect(pack, args.join(' ')).toEqual(core);
      }

      // The executable and core.cjs alone (no packs): the same answers, from core.cjs.
      const bin = join(cacheHome(), 'dist');
      mkdirSync(bin);
      for (const file of ['sow.cjs', 'core.cjs']) copyFileSync(join(dirname(SOW), file), join(bin, file));
      const alone = (env: Record<string, string> = {}) =>
        spawnSync(process.execPath, [join(bin, 'sow.cjs'), 'task', 'list'], {
          cwd: repo.dir,
          env: { ...process.env, ...TEST_ENV, XDG_CACHE_HOME: home, SOW_DEBUG: '1', ...env },
          encoding: 'utf8',
        });
      const fallback = alone();
      expect({
        code: fallback.status,
        stdout: fallback.stdout,
        source: source({ code: 0, stdout: '', stderr: fallback.stderr }),
      }).toEqual({ code: 0, stdout: list.stdout, source: ['core.cjs'] });
      const uncached = alone({ SOW_NO_COMPILE_CACHE: '1' });
      expect({ code: uncached.status, stdout: uncached.stdout, stderr: uncached.stderr }).toEqual({
        code: 0,
        stdout: list.stdout,
        stderr: '',
      });
    },
  );

  it('sow mcp compiles the MCP SDK, bundled apart, through a cache of its own as well', () => {
    const repo = newRepo();
    toExecuting(repo);
    const home = cacheHome();
    // The input ends at once: the server starts, loads the SDK, and ends.
    const loaded = (r: RunResult) =>
      [...r.stderr.matchAll(/^sow: compile cache: (\S+) .*\/([^/\n]+) \((\S+)\)$/gm)].map(
        (m) => `${m[1]} ${m[2]!.replace(/^[0-9a-f]{8}-/, '')} ${m[3]}`,
      );
    const first = repo.sow(['mcp'], { env: { XDG_CACHE_HOME: home, SOW_DEBUG: '1' }, input: '' });
    expect(first.code).toBe(0);
    const cli = `${process.version}-${process.arch}-mcp.bin core.cjs`;
    const sdk = `${process.version}-${process.arch}-mcp.mcp-sdk.bin mcp-sdk.cjs`;
    expect(loaded(first)).toEqual([`missing ${cli}`, `missing ${sdk}`, `wrote ${cli}`, `wrote ${sdk}`]);
    // Two files for the group: core.cjs's and the SDK's, each known by its own source.
    expect(cacheFiles(home)).toHaveLength(2);
    const again = repo.sow(['mcp'], { env: { XDG_CACHE_HOME: home, SOW_DEBUG: '1' }, input: '' });
    expect(again.code).toBe(0);
    expect(loaded(again)).toEqual([`hit ${cli}`, `hit ${sdk}`]);
    // Without the cache, the SDK is required the ordinary way.
    const without = repo.sow(['mcp'], {
      env: { XDG_CACHE_HOME: home, SOW_DEBUG: '1', SOW_NO_COMPILE_CACHE: '1' },
      input: '',
    });
    expect(without.code).toBe(0);
    expect(loaded(without)).toEqual([]);
  });

  it('ignores a damaged cache (changed bytes, cut short, wrong source) and writes a good one', () => {
    const repo = newRepo();
    const home = cacheHome();
    const expected = sowIn(repo, home, LOADS_CLI);
    const file = onlyCacheFile(home);
    const good = readFileSync(file);
    const { dataStart } = parts(file);

    const damage = (bytes: Buffer, event = 'damaged') => {
      writeFileSync(file, bytes);
      const r = sowIn(repo, home, LOADS_CLI);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(expected.stdout);
      expect(events(r)).toEqual([event, 'wrote']);
      // What was written in its place is whole again.
      expect(events(sowIn(repo, home, LOADS_CLI))).toEqual(['hit']);
    };
    // Bytes flipped inside V8's data: fed to V8, this crashes node (V8 does not check it).
    const flipped = Buffer.from(good);
    for (let i = dataStart + 64; i < flipped.length; i += 499) flipped[i] = flipped[i]! ^ 0x5a;
    damage(flipped);
    damage(good.subarray(0, good.length - 1000));
    damage(good.subarray(0, 10));
    const otherSource = Buffer.from(good);
    otherSource.writeUInt32LE((otherSource.readUInt32LE(8) + 1) >>> 0, 8);
    // Made for other bytes (a rebuild, an edit, another install of the same build): stale, not damaged.
    damage(otherSource, 'stale');
    damage(Buffer.from('not a cache at all'));
  });

  it('rewrites a cache that V8 refuses (made for other code) and runs the command as usual', () => {
    const repo = newRepo();
    const home = cacheHome();
    const expected = sowIn(repo, home, LOADS_CLI);
    const file = onlyCacheFile(home);
    // Intact as a file (right checksums), but V8 data made for another script.
    const script = new Script('(function () { return 42; })');
    script.runInThisContext();
    const foreign = script.createCachedData();
    const { bytes, dataStart } = parts(file);
    const forged = Buffer.concat([bytes.subarray(0, dataStart), foreign]);
    forged.writeUInt32LE(crc32(foreign), 12);
    forged.writeUInt32LE(foreign.length, 16);
    writeFileSync(file, forged);

    const r = sowIn(repo, home, LOADS_CLI);
    expect(r.stdout).toBe(expected.stdout);
    expect(events(r)).toEqual(['rejected by V8', 'wrote']);
    expect(events(sowIn(repo, home, LOADS_CLI))).toEqual(['hit']);
  });

  it(
    'is not needed: an unwritable cache folder, ' + 'SOW_NO_COMPILE_CACHE or source maps leave the command as it was',
    () => {
      const repo = newRepo();
      toExecuting(repo);
      const home = cacheHome();
      const before = repo.read(PROJECT);
      const plain = sowIn(repo, home, ['task', 'list'], { SOW_NO_COMPILE_CACHE: '1' });
      expect(plain.code).toBe(0);
      expect(plain.stderr).toBe('');
      expect(cacheFiles(home)).toEqual([]);

      const withMaps = sowIn(repo, home, ['task', 'list'], { NODE_OPTIONS: '--enable-source-maps' });
      expect(withMaps).toEqual(plain);
      expect(cacheFiles(home)).toEqual([]);

      // XDG_CACHE_HOME is a file, so the cache folder cannot be made.
      const blocked = join(home, 'a-file');
      writeFileSync(blocked, '');
      const r = sowIn(repo, blocked, ['task', 'list'], { SOW_DEBUG: '' });
      expect(r).toEqual({ ...plain, stderr: '' });
      const told = sowIn(repo, blocked, ['task', 'list']);
      expect(events(told)).toEqual([
        'missing',
        "not written (ENOTDIR: not a directory, mkdir '" + join(blocked, 'sow', 'code-cache') + "'):",
      ]);

      // A read-only cache folder: nothing written, nothing said.
      if (process.getuid?.() !== 0) {
        const ro = cacheHome();
        sowIn(repo, ro, LOADS_CLI);
        rmSync(onlyCacheFile(ro));
        chmodSync(join(ro, 'sow', 'code-cache'), 0o500);
        try {
          expect(sowIn(repo, ro, ['task', 'list'], { SOW_DEBUG: '' })).toEqual({ ...plain, stderr: '' });
        } finally {
          chmodSync(join(ro, 'sow', 'code-cache'), 0o700);
        }
      }
      expect(repo.read(PROJECT)).toBe(before);
    },
  );

  it('runs the bundle as written, whether it is ASCII (read as Latin-1) or not (read as UTF-8)', () => {
    // The executable beside a bundle of our own; the real one is ASCII (test/e2e/startup.test.ts).
    const bin = join(cacheHome(), 'dist');
    mkdirSync(bin);
    copyFileSync(SOW, join(bin, 'sow.cjs'));
    const home = cacheHome();
    const run = () => {
      const r = spawnSync(process.execPath, [join(bin, 'sow.cjs'), 'task', 'list'], {
        env: { ...process.env, ...TEST_ENV, XDG_CACHE_HOME: home, SOW_DEBUG: '1' },
        encoding: 'utf8',
      });
      return { stdout: r.stdout, events: events({ code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr }) };
    };
    for (const [text, first] of [
      ['plain ASCII', 'missing'],
      // The same executable: its cache was made for the other bundle.
      ['caf\u00e9 \u2014 \u20ac5 \u{1F331}', 'stale'],
    ] as const) {
      writeFileSync(
        join(bin, 'core.cjs'),
        `process.stdout.write(${JSON.stringify(`${text}\n`)} + ${JSON.stringify(text)}.length + '\\n');\n// ${text}\n`,
      );
      const expected = `${text}\n${text.length}\n`;
      expect(run()).toEqual({ stdout: expected, events: [first, 'wrote'] });
      expect(run()).toEqual({ stdout: expected, events: ['hit'] });
    }
  });

  it(
    'knows an edited bundle by its stat, even at the same length, and checks the cache with --pending-deprecation ' +
      'as well (without its warning)',
    () => {
      const bin = join(cacheHome(), 'dist');
      mkdirSync(bin);
      copyFileSync(SOW, join(bin, 'sow.cjs'));
      const home = cacheHome();
      const run = (env: Record<string, string> = {}) => {
        const r = spawnSync(process.execPath, [join(bin, 'sow.cjs')], {
          env: { ...process.env, ...TEST_ENV, XDG_CACHE_HOME: home, SOW_DEBUG: '1', ...env },
          encoding: 'utf8',
        });
        return {
          stdout: r.stdout,
          events: events({ code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr }),
          stderr: r.stderr.replace(/^sow: compile cache: .*\n/gm, ''),
        };
      };
      const core = join(bin, 'core.cjs');
      writeFileSync(core, "process.stdout.write('one\\n');\n");
      expect(run()).toEqual({ stdout: 'one\n', events: ['missing', 'wrote'], stderr: '' });
      expect(run()).toEqual({ stdout: 'one\n', events: ['hit'], stderr: '' });
      writeFileSync(core, "process.stdout.write('two\\n');\n");
      expect(run()).toEqual({ stdout: 'two\n', events: ['stale', 'wrote'], stderr: '' });
      // process.binding warns with --pending-deprecation: then node:zlib's CRC-32 checks the same file.
      for (const env of [{ NODE_OPTIONS: '--pending-deprecation' }, { NODE_PENDING_DEPRECATION: '1' }] as Record<
        string,
        string
      >[]) {
        expect(run(env)).toEqual({ stdout: 'two\n', events: ['hit'], stderr: '' });
      }
    },
  );

  it(
    'keeps the caches of the last four builds: ' + 'a machine that rebuilds sow often does not fill its cache folder',
    () => {
      const repo = newRepo();
      const home = cacheHome();
      const dir = join(home, 'sow', 'code-cache');
      mkdirSync(dir, { recursive: true });
      // Six older builds of sow, a day apart, two groups each (what is in them does not matter here).
      const day = 24 * 60 * 60;
      const now = Date.now() / 1000;
      const others = ['00000001', '00000002', '00000003', '00000004', '00000005', '00000006'];
      others.forEach((id, i) => {
        for (const group of ['task', 'agent']) {
          const file = join(dir, `${id}-${process.version}-${process.arch}-${group}.bin`);
          writeFileSync(file, 'an older build');
          utimesSync(file, now - (6 - i) * day, now - (6 - i) * day);
        }
      });
      // A command writes this build's cache, and prunes.
      expect(events(sowIn(repo, home, LOADS_CLI))).toEqual(['missing', 'wrote']);
      const builds = [...new Set(readdirSync(dir).map((n) => n.split('-').slice(0, 3).join('-')))].sort();
      expect(builds).toHaveLength(4);
      expect(builds.filter((b) => others.some((id) => b.startsWith(id)))).toEqual(
        ['00000004', '00000005', '00000006'].map((id) => `${id}-${process.version}-${process.arch}`),
      );
      expect(readdirSync(dir)).toHaveLength(3 * 2 + 1);
    },
  );

  it('keeps working for a user mistake and for commands that write, through the cache', () => {
    const repo = newRepo();
    toExecuting(repo);
    const home = cacheHome();
    for (let i = 0; i < 2; i++) {
      const bad = sowIn(repo, home, ['task', 'get', '--id', '999'], { SOW_DEBUG: '' });
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(/^error: .*999/);
      expect(bad.stderr).not.toMatch(/\n\s+at /);
    }
    const set = sowIn(repo, home, ['task', 'set', '--id', '010', 'iteration', '2']);
    expect(set.code).toBe(0);
    expect(ok(repo, ['task', 'get', '--id', '010', 'iteration']).stdout).toBe('2\n');
  });
});
