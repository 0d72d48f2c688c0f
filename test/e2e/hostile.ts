/**
 * Hostile repositories, built as an attacker would and met as a user meets them: the attacker's
 * repository gets its files committed (`git add -f` for what git would ignore, links included),
 * then it is cloned into a fresh folder and sow runs in the clone. Beside the clone lies a
 * sentinel folder with a file in it — what a link may point at — and a marker path that a hostile
 * command would create. `untouched()` checks that neither changed.
 */
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, afterEach, expect } from 'vitest';
import { expectEnvelope, makeRepo, TEST_ENV, type Repo } from './harness.js';

export interface Hostile {
  /** The attacker's repository (a normal repo made with sow, with a project if asked). */
  origin: Repo;
  /** A folder outside both repositories: links point here; nothing may change in it. */
  sentinel: string;
  /** A path a hostile command creates when it runs; it must never exist. */
  marker: string;
  /** Commits everything in `origin`, forced (ignored files and links too), on its current branch. */
  commit(message?: string): void;
  /** Writes a file of `origin` (folders made). */
  write(rel: string, text: string): void;
  /** Makes `rel` in `origin` a link to `target` (replacing what is there). */
  link(rel: string, target: string): void;
  /** Clones `origin` (its current branch) into a fresh folder and returns the clone as a Repo. */
  clone(): Repo;
  /** The sentinel folder holds exactly its file, unchanged, and the marker does not exist. */
  untouched(): void;
}

const SENTINEL_FILE = 'precious.txt';
const SENTINEL_TEXT = 'keep me\n';

export interface HostileOptions {
  branch?: string;
  /**
   * What the attacker's repository holds before the test's own changes (e.g. a project with
   * tasks), made once per test file under `key` and copied for each test: building it again
   * would run the same sow commands every time.
   */
  start?: { key: string; setup: (repo: Repo) => void };
}

/** Hostile repositories removed after each test of the calling file. */
export function useHostile(): (opts?: HostileOptions) => Hostile {
  const made: string[] = [];
  const starts = new Map<string, string>();
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  afterAll(() => {
    for (const dir of starts.values()) rmSync(dir, { recursive: true, force: true });
  });
  /** The folder of a start repository, made on first use. */
  const startDir = (start: NonNullable<HostileOptions['start']>, branch?: string): string => {
    let dir = starts.get(start.key);
    if (dir === undefined) {
      dir = join(mkdtempSync(join(tmpdir(), 'sow-hostile-start-')), 'origin');
      mkdirSync(dir);
      start.setup(makeRepo({ dir, ...(branch ? { branch } : {}) }));
      starts.set(start.key, dirname(dir));
    }
    return join(starts.get(start.key)!, 'origin');
  };
  return (opts = {}) => {
    const top = mkdtempSync(join(tmpdir(), 'sow-hostile-'));
    made.push(top);
    const sentinel = join(top, 'sentinel');
    mkdirSync(sentinel);
    writeFileSync(join(sentinel, SENTINEL_FILE), SENTINEL_TEXT);
    const marker = join(top, 'pwned');
    let origin: Repo;
    if (opts.start) {
      // A copy of the start repository, its links and runtime folder as they are.
      cpSync(startDir(opts.start, opts.branch), join(top, 'origin'), { recursive: true, verbatimSymlinks: true });
      origin = makeRepo({ dir: join(top, 'origin'), existing: true, init: false });
    } else {
      mkdirSync(join(top, 'origin'));
      origin = makeRepo({ dir: join(top, 'origin'), ...(opts.branch ? { branch: opts.branch } : {}) });
    }
    const git = (cwd: string, args: string[]) =>
      execFileSync('git', args, { cwd, env: { ...process.env, ...TEST_ENV }, encoding: 'utf8' }).trim();
    let clones = 0;
    return {
      origin,
      sentinel,
      marker,
      commit(message = 'hostile') {
        git(origin.dir, ['add', '-A', '-f', '.']);
        git(origin.dir, ['commit', '-q', '--allow-empty', '-m', message]);
      },
      write(rel, text) {
        mkdirSync(dirname(join(origin.dir, rel)), { recursive: true });
        writeFileSync(join(origin.dir, rel), text);
      },
      link(rel, target) {
        const abs = join(origin.dir, rel);
        rmSync(abs, { recursive: true, force: true });
        mkdirSync(dirname(abs), { recursive: true });
        symlinkSync(target, abs);
      },
      clone() {
        const dir = join(top, `clone-${++clones}`);
        git(top, ['clone', '-q', origin.dir, dir]);
        return makeRepo({ dir, existing: true, init: false });
      },
      untouched() {
        expect(readdirSync(sentinel), 'nothing was added to or removed from the folder outside the repository').toEqual(
          [SENTINEL_FILE],
        );
        expect(
          readFileSync(join(sentinel, SENTINEL_FILE), 'utf8'),
          'the file outside the repository is unchanged',
        ).toBe(SENTINEL_TEXT);
        expect(existsSync(marker), 'a hostile command ran (its marker exists)').toBe(false);
      },
    };
  };
}

/** Every entry of the repository but .git/ and sow's runtime folder: files by text, links by where they point. */
export function tree(repo: Repo): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (abs: string) => {
    for (const name of readdirSync(abs)) {
      const p = join(abs, name);
      const rel = relative(repo.dir, p);
      if (rel === '.git' || rel === '.git/sow') continue;
      const st = lstatSync(p);
      if (st.isSymbolicLink()) out[rel] = `-> ${readlinkSync(p)}`;
      else if (st.isDirectory()) walk(p);
      else out[rel] = readFileSync(p, 'utf8');
    }
  };
  walk(repo.dir);
  return out;
}

export interface RefusalOptions {
  /** The exit code (default 4: a hostile or unreadable file). */
  exit?: number;
  /** The error code `--json` must carry. */
  code?: string;
  env?: Record<string, string>;
}

/**
 * A refusal, in both forms: the human one (the message on stderr) and `--json` (one envelope,
 * placed before a `--`), each with the exit code, the message or hint matching `pattern`, no stack
 * trace, and nothing in the repository changed. Returns the envelope's "message\nhint".
 */
export function expectRefused(repo: Repo, args: string[], pattern: RegExp, opts: RefusalOptions = {}): string {
  const exit = opts.exit ?? 4;
  const before = tree(repo);
  const end = args.indexOf('--');
  const json = end < 0 ? [...args, '--json'] : [...args.slice(0, end), '--json', ...args.slice(end)];
  let envelope = '';
  for (const form of [args, json]) {
    const r = repo.sow(form, opts.env ? { env: opts.env } : {});
    const shown = `sow ${form.join(' ')}`;
    expect(r.code, `${shown}\n${r.stdout}\n${r.stderr}`).toBe(exit);
    const text = form === json ? `${expectEnvelope(r).error.message}\n${r.json?.error?.hint}` : r.stderr;
    expect(text, shown).toMatch(pattern);
    if (form === json) {
      envelope = text;
      if (opts.code) expect(r.json?.error?.code, shown).toBe(opts.code);
    }
    expect(r.stderr, `${shown}: no stack trace`).not.toMatch(/\n\s+at /);
    expect(tree(repo), `${shown} changed nothing in the repository`).toEqual(before);
  }
  return envelope;
}
