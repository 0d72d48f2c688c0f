/**
 * What a command loads before it does its work (start-up is most of what a read costs): reads
 * load none of the Node modules that only spawning and hashing need.
 */
import { spawn, spawnSync } from 'node:child_process';
import { isAscii } from 'node:buffer';
import {
  closeSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SOW, taskFile, TEST_ENV, toExecuting, useRepos } from './harness.js';

const fresh = useRepos();
const dir = mkdtempSync(join(tmpdir(), 'sow-startup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// Preloaded into the sow process: says at exit which of Node's own modules it loaded.
const preload = join(dir, 'loaded.cjs');
// (Written with fs.writeSync: process.stderr would load modules of its own first.)
writeFileSync(
  preload,
  "process.on('exit', () => require('fs').writeSync(2, `\\nLOADED ${JSON.stringify(process.moduleLoadList)}\\n`));\n",
);

function loaded(stderr: string): string[] {
  const line = stderr.split('\n').find((l) => l.startsWith('LOADED '));
  if (!line) throw new Error(`no module list in: ${stderr}`);
  return (JSON.parse(line.slice('LOADED '.length)) as string[])
    .filter((m) => m.startsWith('NativeModule '))
    .map((m) => m.slice('NativeModule '.length));
}

describe('start-up', () => {
  it(
    'reads load neither child_process nor crypto (only spawning git or agents, and hashing a journal, need them), ' +
      'nor net for their output',
    () => {
      const repo = fresh();
      toExecuting(repo);
      for (const args of [
        ['--version'],
        ['task', 'list'],
        ['status'],
        ['phase', 'get', 'status'],
        ['task', 'get', '--id', '010'],
        ['advance', '--dry-run'],
      ]) {
        const r = repo.sow(args, { via: [process.execPath, '-r', preload, SOW] });
        expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBeLessThan(4);
        const modules = loaded(r.stderr);
        expect(modules, args.join(' ')).toContain('fs');
        expect(
          modules.filter((m) => /^(child_process|crypto)$/.test(m)),
          args.join(' '),
        ).toEqual([]);
        // Output and errors to a pipe are written without making process.stdout or process.stderr, sockets
        // (cli/stdio.ts).
        expect(modules, args.join(' ')).not.toContain('net');
        // The code cache's CRC-32 comes from zlib's binding: node:zlib would load node:stream and more.
        expect(modules, args.join(' ')).not.toContain('zlib');
        expect(modules, args.join(' ')).not.toContain('stream');
      }
    },
  );

  it(
    'output and errors sent to /dev/null are written without making streams (a script that checks only the ' +
      'exit code)',
    () => {
      const repo = fresh();
      toExecuting(repo);
      // The module list goes to a file: stdout and stderr are /dev/null.
      const listed = join(dir, 'devnull-modules.json');
      const preloadToFile = join(dir, 'loaded-to-file.cjs');
      writeFileSync(
        preloadToFile,
        `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(listed)}, ` +
          `JSON.stringify(process.moduleLoadList)));\n`,
      );
      const devNull = openSync('/dev/null', 'w');
      try {
        for (const [args, code] of [
          [['task', 'list'], 0],
          [['advance', '--dry-run'], 3],
          [['task', 'get', '--id', '999'], 1],
        ] as const) {
          const r = spawnSync(process.execPath, ['-r', preloadToFile, SOW, ...args], {
            cwd: repo.dir,
            env: TEST_ENV,
            stdio: ['ignore', devNull, devNull],
          });
          expect(r.status, args.join(' ')).toBe(code);
          const modules = (JSON.parse(readFileSync(listed, 'utf8')) as string[])
            .filter((m) => m.startsWith('NativeModule '))
            .map((m) => m.slice('NativeModule '.length));
          expect(
            modules.filter((m) => /^(net|tty|stream|internal\/streams\/(writable|readable|duplex))$/.test(m)),
            args.join(' '),
          ).toEqual([]);
        }
      } finally {
        closeSync(devNull);
      }
    },
  );

  it(
    'the bundles are ASCII, so the executable reads them without decoding UTF-8 (a character esbuild keeps as ' +
      'written: a regular expression)',
    () => {
      const bundles = readdirSync(dirname(SOW)).filter((f) => f === 'core.cjs' || /^pack-[a-z-]+\.cjs$/.test(f));
      expect(bundles.length).toBeGreaterThan(1);
      for (const file of bundles) {
        const bytes = readFileSync(join(dirname(SOW), file));
        const text = bytes.toString('utf8');
        const at = [...text].findIndex((c) => c.charCodeAt(0) > 0x7f);
        expect(
          at === -1 ? '' : `${[...text][at]} in …${[...text].slice(Math.max(0, at - 60), at + 20).join('')}…`,
          file,
        ).toBe('');
        expect(isAscii(bytes), file).toBe(true);
      }
    },
  );

  it(
    'sow --version loads no node:os, and no command makes a file URL of the CLI before it needs one (the ' +
      'templates)',
    () => {
      const repo = fresh();
      toExecuting(repo);
      // node:os is for the home folder when HOME is unset, and the host name a lock records.
      const version = repo.sow(['--version'], { via: [process.execPath, '-r', preload, SOW] });
      expect(version.code).toBe(0);
      expect(loaded(version.stderr)).not.toContain('os');
      // import.meta.url (the CLI's own file as a URL, to find the templates) is made when asked for.
      const counting = join(dir, 'file-urls.cjs');
      writeFileSync(
        counting,
        "const url = require('url'); const made = url.pathToFileURL; let n = 0; url.pathToFileURL = (...a) => (n++, " +
          'made(...a));\n' +
          "process.on('exit', () => require('fs').writeSync(2, `\\nFILE URLS ${n}\\n`));\n",
      );
      const urls = (args: string[]) => {
        const r = repo.sow(args, { via: [process.execPath, '-r', counting, SOW] });
        expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
        return Number(/^FILE URLS (\d+)$/m.exec(r.stderr)?.[1]);
      };
      expect(urls(['--version'])).toBe(0);
      expect(urls(['task', 'list'])).toBe(0);
      expect(urls(['phase', 'get', 'status'])).toBe(0);
    },
  );
  it('sow --version is answered by the executable alone, word for word as the CLI answers it', () => {
    // The executable without the CLI beside it: --version still answers; a command cannot.
    const alone = join(dir, 'alone');
    mkdirSync(alone, { recursive: true });
    copyFileSync(SOW, join(alone, 'sow.cjs'));
    const run = (file: string, args: string[]) =>
      spawnSync(process.execPath, [file, ...args], { cwd: dir, env: TEST_ENV, encoding: 'utf8' });
    // The CLI itself (core.cjs run directly, as the executable runs it when the cache is off) for the same words.
    const cli = (args: string[]) =>
      spawnSync(
        process.execPath,
        ['-e', 'process.argv = [process.argv[0], "sow", ...JSON.parse(process.env.ARGS)]; require(process.env.CORE)'],
        {
          cwd: dir,
          env: { ...TEST_ENV, ARGS: JSON.stringify(args), CORE: join(dirname(SOW), 'core.cjs') },
          encoding: 'utf8',
        },
      );
    for (const args of [
      ['--version'],
      ['-V'],
      ['--json', '--version'],
      ['-V', '--no-color', '--json'],
      ['--version', '--no-color'],
    ]) {
      const fast = run(join(alone, 'sow.cjs'), args);
      const slow = cli(args);
      expect(slow.status, args.join(' ')).toBe(0);
      expect({ status: fast.status, stdout: fast.stdout, stderr: fast.stderr }, args.join(' ')).toEqual({
        status: slow.status,
        stdout: slow.stdout,
        stderr: slow.stderr,
      });
    }
    const { version } = JSON.parse(readFileSync(join(dirname(SOW), '..', 'package.json'), 'utf8'));
    expect(run(join(alone, 'sow.cjs'), ['--json', '--version']).stdout).toBe(
      `${JSON.stringify({ ok: true, data: { version } })}\n`,
    );
    // Anything else on the line is the CLI's to answer.
    expect(run(join(alone, 'sow.cjs'), ['--version', '--help']).status).not.toBe(0);
    expect(run(join(alone, 'sow.cjs'), ['status']).status).not.toBe(0);
    expect(run(SOW, ['--version', '--bogus']).stdout).toBe(cli(['--version', '--bogus']).stdout);
  });

  it(
    "a group's help lists all its commands, wherever --help stands; a mistyped command is matched " +
      'against them all',
    () => {
      const repo = fresh();
      const commands = (args: string[]) => {
        const r = repo.sow(args);
        expect(r.code, r.stderr).toBe(0);
        return r.stdout
          .slice(r.stdout.indexOf('Commands:'))
          .match(/^ {2}\S+/gm)
          ?.map((c) => c.trim());
      };
      const all = commands(['task', '--help']);
      expect(all).toEqual(expect.arrayContaining(['add', 'set', 'get', 'list', 'next']));
      expect(commands(['task', '--help', 'get'])).toEqual(all);
      expect(commands(['task', '-h', 'list'])).toEqual(all);
      // The command's own help after its word, built alone, says the same as always.
      expect(repo.sow(['task', 'get', '--help']).stdout).toMatch(/^Usage: sow task get \[options\] \[field\]$/m);
      const typo = repo.sow(['task', 'gte']);
      expect(typo.code).toBe(2);
      expect(typo.stderr).toContain("did you mean 'get'?");
    },
  );
});

describe('output', () => {
  it('goes on through a pipe the reader drains slowly, whole and in order', async () => {
    const repo = fresh();
    toExecuting(repo, ['First']);
    // 400 tasks with long names: more than a pipe holds (64 KiB), in the form sow writes.
    const first = repo.read(taskFile('010'));
    for (let i = 2; i <= 400; i++) {
      const id = String(i * 10).padStart(3, '0');
      repo.write(
        taskFile(id),
        first
          .replace('id: "010"', `id: "${id}"`)
          .replace(/^name: .*$/m, `name: "Task ${i} ${'with a long name '.repeat(11)}"`),
      );
    }
    const expected = repo.sow(['task', 'list']);
    expect(expected.code, expected.stderr).toBe(0);
    expect(expected.stdout.length).toBeGreaterThan(80_000);
    const child = spawn(process.execPath, [SOW, 'task', 'list'], {
      cwd: repo.dir,
      env: { ...process.env, ...TEST_ENV },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    // One chunk at a time, the next only after the event loop turned: the pipe fills up meanwhile.
    child.stdout.on('data', (d) => {
      out += d;
      child.stdout.pause();
      setImmediate(() => child.stdout.resume());
    });
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect({ code, err, out }).toEqual({ code: 0, err: '', out: expected.stdout });
  });

  it("ends quietly with the command's own exit code when the reader has gone (sow … | head)", async () => {
    const repo = fresh();
    toExecuting(repo);
    const runs: [string[], number][] = [
      [['task', 'list'], 0],
      [['--json', 'task', 'list'], 0],
      [['--json', 'advance', '--dry-run'], 3],
    ];
    for (const [args, exit] of runs) {
      const child = spawn(process.execPath, [SOW, ...args], {
        cwd: repo.dir,
        env: { ...process.env, ...TEST_ENV },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      // The reader goes before sow has started, let alone written.
      child.stdout.destroy();
      let err = '';
      child.stderr.on('data', (d) => (err += d));
      const code = await new Promise((resolve) => child.on('close', resolve));
      expect({ args, code, err }).toEqual({ args, code: exit, err: '' });
    }
  });
});

describe('no process left behind', () => {
  /** The processes whose working folder lies in `dir` (a process sow left running would sit there). */
  function processesIn(dir: string): string[] {
    const found: string[] = [];
    for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
      try {
        const cwd = readlinkSync(`/proc/${pid}/cwd`);
        if (cwd === dir || cwd.startsWith(`${dir}/`))
          found.push(`${pid}: ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ')}`);
      } catch {
        // gone meanwhile, or not ours to look at
      }
    }
    return found;
  }

  it.runIf(process.platform === 'linux')(
    'a hundred piped reads, each with an environment of its own, leave no process of sow running',
    async () => {
      const repo = fresh();
      toExecuting(repo);
      const reads = [
        ['task', 'list'],
        ['task', 'get', '--id', '010'],
        ['task', 'next'],
        ['phase', 'get', 'status'],
        ['status'],
        ['advance', '--dry-run'],
      ];
      for (let i = 0; i < 100; i++) {
        const args = reads[i % reads.length]!;
        // Output to a pipe, as a script's or an agent's; one variable differs each time.
        // As a user's machine runs it: not CI, nothing switched off.
        const env: Record<string, string | undefined> = { ...process.env, ...TEST_ENV, SOW_VARIES: String(i) };
        for (const name of ['CI', 'SOW_NO_READ_SERVER']) delete env[name];
        const child = spawn(process.execPath, [SOW, ...args], {
          cwd: repo.dir,
          env,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        child.stdout!.resume();
        child.stderr!.resume();
        const code = await new Promise<number | null>((r) => child.on('close', r));
        expect(code, args.join(' ')).toBeLessThan(4);
      }
      expect(processesIn(realpathSync(repo.dir))).toEqual([]);
    },
  );
});
