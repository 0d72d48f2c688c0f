/**
 * scripts/ensure-deps.mjs, which runs before `npm test`, `npm run demo` and `npm pack`: on a fresh
 * clone it runs `npm ci`; when it cannot (no npm, `npm ci` fails, Node.js too old, no
 * package-lock.json) it says in a sentence what to run instead and exits 1, never with a stack
 * trace. Each case runs the script in a copy of the repository's top (package.json,
 * package-lock.json, the script) with a PATH made for it.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const temps: string[] = [];
afterEach(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});

interface Clone {
  dir: string;
  /** A folder for PATH holding only `node`, and what the test adds. */
  bin: string;
  run(opts?: { env?: Record<string, string>; nodeArgs?: string[] }): {
    code: number | null;
    stderr: string;
    stdout: string;
  };
}

/** The top of a fresh clone: nothing installed. */
function freshClone(): Clone {
  const dir = mkdtempSync(join(tmpdir(), 'sow-ensure-deps-'));
  temps.push(dir);
  mkdirSync(join(dir, 'scripts'));
  for (const f of ['package.json', 'package-lock.json', 'scripts/ensure-deps.mjs']) cpSync(join(ROOT, f), join(dir, f));
  const bin = join(dir, '.bin');
  mkdirSync(bin);
  symlinkSync(process.execPath, join(bin, 'node'));
  return {
    dir,
    bin,
    run(opts = {}) {
      // Only what the test gives: no npm of this machine, no npm_* variables of the npm running the tests.
      const env: Record<string, string> = { PATH: bin, HOME: dir, ...opts.env };
      const r = spawnSync(process.execPath, [...(opts.nodeArgs ?? []), join(dir, 'scripts', 'ensure-deps.mjs')], {
        cwd: dir,
        env,
        encoding: 'utf8',
      });
      return { code: r.status, stderr: r.stderr, stdout: r.stdout };
    },
  };
}

/** A sentence and what to run; no stack trace. */
function expectSentence(r: { code: number | null; stderr: string }, ...parts: string[]): void {
  expect(r.code, r.stderr).toBe(1);
  for (const p of parts) expect(r.stderr).toContain(p);
  expect(r.stderr, 'no stack trace').not.toMatch(/^\s+at /m);
  expect(r.stderr).not.toMatch(/Error:/);
}

/** An executable script named `name` in the clone's bin folder. */
function fake(clone: Clone, name: string, body: string): void {
  writeFileSync(join(clone.bin, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
}

describe('ensure-deps on a fresh clone', () => {
  it('runs npm ci with the npm on PATH when nothing is installed', () => {
    const clone = freshClone();
    const log = join(clone.dir, 'npm-args');
    fake(clone, 'npm', `echo "$@" > "${log}"`);
    const r = clone.run();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Installing the dependencies package-lock.json pins (npm ci)');
    expect(readFileSync(log, 'utf8').trim()).toBe('ci --no-audit --no-fund');
  });

  it('under npm (npm test), the npm that runs it, not one found on PATH', () => {
    const clone = freshClone();
    const log = join(clone.dir, 'npm-args');
    const cli = join(clone.dir, 'npm-cli.cjs'); // .cjs: the clone's package.json says type module
    writeFileSync(cli, `require('fs').writeFileSync(${JSON.stringify(log)}, process.argv.slice(2).join(' '));\n`);
    const r = clone.run({ env: { npm_execpath: cli } });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(log, 'utf8')).toBe('ci --no-audit --no-fund');
  });

  it('without npm on PATH: a sentence saying to install Node.js with npm, then npm ci', () => {
    const r = freshClone().run();
    expectSentence(r, 'sow: npm is not on PATH, so the dependencies cannot be installed.', "then run 'npm ci' in");
  });

  it('when npm ci fails: a sentence pointing at what npm said, and what to run again', () => {
    const clone = freshClone();
    fake(clone, 'npm', 'echo "npm error network request failed" >&2; exit 3');
    const r = clone.run();
    expectSentence(
      r,
      'npm error network request failed',
      "sow: 'npm ci' failed (exit 3); npm said why above.",
      "then run 'npm ci' in",
    );
  });

  it(
    'on a Node.js older than 20: ' + 'a sentence naming the version and how to get a newer one, before anything runs',
    () => {
      const clone = freshClone();
      const log = join(clone.dir, 'npm-args');
      fake(clone, 'npm', `echo ran > "${log}"`);
      const r = clone.run({
        nodeArgs: ['--import', 'data:text/javascript,Object.defineProperty(process.versions,"node",{value:"18.19.0"})'],
      });
      expectSentence(r, 'sow: sow needs Node.js 20 or newer, and this is Node.js 18.19.0.', "'nvm install 20'");
      expect(() => readFileSync(log)).toThrow();
    },
  );

  it('without package-lock.json: a sentence saying to restore it', () => {
    const clone = freshClone();
    unlinkSync(join(clone.dir, 'package-lock.json'));
    expectSentence(clone.run(), 'package-lock.json (it is missing)', 'git checkout -- package-lock.json');
  });

  it('does nothing once what package-lock.json pins is installed', () => {
    const clone = freshClone();
    symlinkSync(join(ROOT, 'node_modules'), join(clone.dir, 'node_modules'));
    const r = clone.run();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
  });
});
