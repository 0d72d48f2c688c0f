/**
 * End-to-end harness: runs the built `sow` (dist/sow.cjs) in a fresh temp git repository, as a
 * user would, and snapshots .sow/ so error paths can be checked for byte-identical state.
 */
import { createHash } from 'node:crypto';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { afterAll, afterEach, expect } from 'vitest';
import { snapshotSow } from '../snapshot.js';
import { hostName, processGone } from '../../src/adapters/liveness.js';

/** The built sow; SOW_TEST_BIN points the tests at another build (`node scripts/build.mjs --out <dir>`). */
/**
 * With SOW_TEST_RUNLOG=<file>, each run of sow through a repo appends its test file's name: which
 * files run the binary most (`sort <file> | uniq -c | sort -rn`), the suite's main cost.
 */
function countRun(): void {
  const log = process.env['SOW_TEST_RUNLOG'];
  if (log) appendFileSync(log, `${expect.getState().testPath ?? '?'}\n`);
}

export const SOW = process.env['SOW_TEST_BIN'] || fileURLToPath(new URL('../../dist/sow.cjs', import.meta.url));

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON, when it is JSON. */
  json?: { ok: boolean; data?: any; error?: { code: string; message: string; hint?: string } };
}

export interface Repo {
  dir: string;
  /** Nothing was done in it since makeRepo made it (a template may stand in for setting it up). */
  readonly pristine: boolean;
  /** Runs sow with these arguments in the repo (or in `cwd`, relative to it). */
  /** `via`: the command that runs sow instead of `node dist/sow.cjs` (e.g. `setpriv … node <copy of sow>`). */
  sow(args: string[], opts?: { cwd?: string; env?: Record<string, string>; input?: string; via?: string[] }): RunResult;
  /** Runs sow asynchronously (for concurrency and kill tests). */
  sowAsync(args: string[], opts?: { env?: Record<string, string> }): Promise<RunResult>;
  git(args: string[]): string;
  read(rel: string): string;
  /** Writes a file of the repository (folders created), as a person or an agent would. */
  write(rel: string, text: string): void;
  yaml(rel: string): any;
  exists(rel: string): boolean;
  /** Every file under .sow/ that belongs to the state (runtime files excluded) → its bytes. */
  snapshot(): Map<string, string>;
  cleanup(): void;
}

/**
 * sow's compile cache (src/adapters/compile-cache.ts) for the test runs: one folder for all test
 * files and runs, so the tests exercise the cache as users do but never write to ~/.cache.
 */
export const TEST_CACHE_HOME = join(tmpdir(), 'sow-tests-cache-home');

/** A home of the tests' own, so no test reads or writes the invoking user's configuration. */
export const TEST_HOME = join(tmpdir(), 'sow-tests-home');

/**
 * The state folder (where sow records the checks a person allowed) of this test file alone: a
 * fresh one per file, removed after its tests, so allowances never pile up between runs.
 */
export const TEST_STATE_HOME = mkdtempSync(join(tmpdir(), 'sow-tests-state-'));
afterAll(() => rmSync(TEST_STATE_HOME, { recursive: true, force: true }));

/**
 * What every sow run in the tests gets: no colour, a git identity for commits, a home, a
 * configuration folder, a cache folder and a state folder of its own (never the invoking user's).
 */
export const TEST_ENV: Readonly<Record<string, string>> = {
  NO_COLOR: '1',
  HOME: TEST_HOME,
  XDG_CONFIG_HOME: join(TEST_HOME, '.config'),
  XDG_CACHE_HOME: TEST_CACHE_HOME,
  XDG_STATE_HOME: TEST_STATE_HOME,
  GIT_AUTHOR_NAME: 'sow test',
  GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'sow test',
  GIT_COMMITTER_EMAIL: 'test@example.invalid',
};

function baseEnv(extra?: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, ...TEST_ENV, ...extra };
}

function toResult(code: number | null, stdout: string, stderr: string): RunResult {
  const result: RunResult = { code: code ?? -1, stdout, stderr };
  try {
    result.json = JSON.parse(stdout);
  } catch {
    // not JSON
  }
  return result;
}

export interface RepoOptions {
  /** Run `sow init` (default true). */
  init?: boolean;
  /** Branch to start on (default main). */
  branch?: string;
  /** An existing empty folder to make the repository in (default: a new temp folder). */
  dir?: string;
  /** `dir` is a git checkout already (a clone): no `git init`, no first commit. */
  existing?: boolean;
}

/**
 * Starting points made once per run of the suite and copied for each repository: a fresh
 * repository (git init, a first commit, `sow init`) costs three processes, a project executing
 * tasks eleven, and most tests start from one. A copy is the same repository (its commit, its
 * .sow/), in another folder. The templates are kept in the temp folder under the vitest process
 * that runs the test files (their parent) and a hash of the built files and of this harness
 * (which holds the recipes), so every test file of a run copies what the first one made; another
 * run, a new build or a changed recipe makes them afresh. Those of runs that have ended go.
 */
const TEMPLATES_DIR = join(tmpdir(), 'sow-tests-templates');
const templates = new Map<string, string>();
let templatesRoot: string | undefined;

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

function templatesOfThisRun(): string {
  if (templatesRoot) return templatesRoot;
  const hash = createHash('sha256');
  const dist = dirname(SOW);
  for (const name of readdirSync(dist)
    .filter((n) => n.endsWith('.cjs'))
    .sort())
    hash.update(name).update(readFileSync(join(dist, name)));
  hash.update(readFileSync(fileURLToPath(import.meta.url)));
  templatesRoot = join(TEMPLATES_DIR, `${process.ppid}-${hash.digest('hex').slice(0, 32)}`);
  if (!existsSync(templatesRoot)) {
    for (const name of existsSync(TEMPLATES_DIR) ? readdirSync(TEMPLATES_DIR) : []) {
      const pid = Number(/^(\d+)-/.exec(name)?.[1]);
      if (!(pid > 0 && alive(pid))) rmSync(join(TEMPLATES_DIR, name), { recursive: true, force: true });
    }
    mkdirSync(templatesRoot, { recursive: true });
  }
  return templatesRoot;
}

/**
 * The folder of the template `key`, made by `build` (in an empty folder) unless a test file of this build made it
 * already in this run.
 */
function template(key: string, build: (dir: string) => void): string {
  let dir = templates.get(key);
  if (dir === undefined) {
    const root = templatesOfThisRun();
    dir = join(root, createHash('sha256').update(key).digest('hex').slice(0, 32));
    if (!existsSync(dir)) {
      // Made aside and renamed into place whole: a test file running beside this one either
      // sees none yet (and makes its own, one rename wins) or a finished one.
      const aside = mkdtempSync(join(root, 'making-'));
      try {
        mkdirSync(join(aside, 't'));
        build(join(aside, 't'));
        try {
          renameSync(join(aside, 't'), dir);
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw err;
        }
      } finally {
        rmSync(aside, { recursive: true, force: true });
      }
    }
    templates.set(key, dir);
  }
  return dir;
}

/** Copies a template into `dir` (which exists and is empty), links as links. */
const copyTemplate = (from: string, dir: string) => cpSync(from, dir, { recursive: true, verbatimSymlinks: true });

export function makeRepo(opts: RepoOptions = {}): Repo {
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'sow-e2e-'));
  const run = (cmd: string, args: string[]) =>
    execFileSync(cmd, args, { cwd: dir, env: baseEnv(), encoding: 'utf8' }).trim();
  if (!opts.existing) {
    const init = opts.init !== false;
    const branch = opts.branch ?? 'main';
    copyTemplate(
      template(`repo:${branch}:${init}`, (t) => {
        const at = (cmd: string, args: string[]) =>
          execFileSync(cmd, args, { cwd: t, env: baseEnv(), encoding: 'utf8' });
        // No template: git's sample hooks and description are a dozen inert files that every copy of
        // the repository would copy again and every test would remove.
        at('git', ['init', '-q', '--template=', '-b', branch]);
        at('git', ['commit', '-q', '--allow-empty', '-m', 'initial']);
        if (init) {
          const r = spawnSync(process.execPath, [SOW, 'init'], { cwd: t, env: baseEnv(), encoding: 'utf8' });
          if (r.status !== 0) throw new Error(`sow init failed: ${r.stderr}`);
        }
      }),
      dir,
    );
  }
  let pristine = !opts.existing && opts.init !== false;
  const touched = () => {
    pristine = false;
  };
  const repo: Repo = {
    dir,
    get pristine() {
      return pristine;
    },
    sow(args, o = {}) {
      touched();
      countRun();
      const [cmd, ...pre] = o.via ?? [process.execPath, SOW];
      const r = spawnSync(cmd!, [...pre, ...args], {
        cwd: o.cwd ? join(dir, o.cwd) : dir,
        env: baseEnv(o.env),
        encoding: 'utf8',
        input: o.input ?? '',
      });
      return toResult(r.status, r.stdout, r.stderr);
    },
    sowAsync(args, o = {}) {
      touched();
      countRun();
      return new Promise((resolve) => {
        const child = spawn(process.execPath, [SOW, ...args], {
          cwd: dir,
          env: baseEnv(o.env),
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d) => (stdout += d));
        child.stderr.on('data', (d) => (stderr += d));
        child.on('close', (code) => resolve(toResult(code, stdout, stderr)));
      });
    },
    git: (args) => {
      touched();
      return run('git', args);
    },
    read: (rel) => readFileSync(join(dir, rel), 'utf8'),
    write: (rel, text) => {
      touched();
      mkdirSync(dirname(join(dir, rel)), { recursive: true });
      writeFileSync(join(dir, rel), text);
    },
    yaml: (rel) => parse(readFileSync(join(dir, rel), 'utf8')),
    exists: (rel) => existsSync(join(dir, rel)),
    snapshot: () => snapshotSow(dir),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
  return repo;
}

/** Whether a process runs: alive, and not a zombie waiting for its parent to reap it. */
export const running = (pid: number) => processGone({ pid, host: hostName() }) !== true;

export const PROJECT = '.sow/project/state.yaml';
export const taskFile = (id: string) => `.sow/project/phases/implementation/tasks/${id}/state.yaml`;
export const TASK_LIST = '.sow/project/planning/tasks.md';

/** Runs sow and throws with its output unless it exits 0. */
export function ok(repo: Repo, args: string[], opts?: { cwd?: string; env?: Record<string, string> }): RunResult {
  const r = repo.sow(args, opts);
  if (r.code !== 0) throw new Error(`sow ${args.join(' ')} exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r;
}

/** Brings a fresh repo to ImplementationExecuting with the given task names (ids 010, 020, …). */
export function toExecuting(repo: Repo, tasks: string[] = ['First task', 'Second task']): void {
  // A repository nothing was done in yet gets a copy of one brought there once (same commands).
  if (repo.pristine && !process.env['SOW_TEST_NO_TEMPLATES']) {
    const from = template(`executing:${JSON.stringify(tasks)}`, (t) => {
      const built = makeRepo({ dir: t });
      walkToExecuting(built, tasks);
    });
    // Emptied, not removed: the folder may be a mount point (the full-disk tests).
    for (const name of readdirSync(repo.dir)) rmSync(join(repo.dir, name), { recursive: true, force: true });
    copyTemplate(from, repo.dir);
    repo.git(['status', '--porcelain']); // marks it used, and refreshes git's index for the new folder
    return;
  }
  walkToExecuting(repo, tasks);
}

function walkToExecuting(repo: Repo, tasks: readonly string[]): void {
  ok(repo, ['project', 'new', 'demo', '--description', 'A demo project']);
  repo.write(TASK_LIST, '# Tasks\n');
  ok(repo, ['output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md']);
  ok(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
  ok(repo, ['advance']);
  for (const name of tasks) ok(repo, ['task', 'add', name, '--agent', 'implementer']);
  ok(repo, ['phase', 'set', 'tasks_approved', 'true']);
  ok(repo, ['advance']);
}

/** A `makeRepo` whose repositories are removed after each test of the calling file. */
export function useRepos(): (opts?: RepoOptions) => Repo {
  const repos: Repo[] = [];
  afterEach(() => {
    for (const repo of repos.splice(0)) repo.cleanup();
  });
  return (opts) => {
    const repo = makeRepo(opts);
    repos.push(repo);
    return repo;
  };
}

/** A fresh repo (from `fresh`, e.g. `useRepos()`) with a project in PlanningActive. */
export function inPlanning(fresh: (opts?: RepoOptions) => Repo): Repo {
  const repo = fresh();
  ok(repo, ['project', 'new', 'demo', '--description', 'A demo project']);
  return repo;
}

/** A fresh repo with a project in ImplementationPlanning (no tasks yet). */
export function inImplementationPlanning(fresh: (opts?: RepoOptions) => Repo): Repo {
  const repo = inPlanning(fresh);
  repo.write(TASK_LIST, '# Tasks\n');
  ok(repo, ['output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md', '--approved', 'true']);
  ok(repo, ['advance']);
  return repo;
}

/** stdout is exactly one JSON document; returns it. */
export function expectEnvelope(r: RunResult): any {
  expect(r.json, `stdout is not one JSON document: ${r.stdout}`).toBeDefined();
  expect(r.stdout.trim().split('\n')).toHaveLength(1);
  return r.json;
}

/**
 * Expects a refusal with this exit code and error code, a hint (every refusal names the next
 * step), and no change to .sow/. Runs the --json form (and, with `human`, the plain form too);
 * returns "message\nhint".
 */
export function expectFails(
  repo: Repo,
  args: string[],
  code: number,
  errorCode: string,
  opts: { human?: boolean; cwd?: string; env?: Record<string, string> } = {},
): string {
  const before = repo.snapshot();
  const at = { ...(opts.cwd ? { cwd: opts.cwd } : {}), ...(opts.env ? { env: opts.env } : {}) };
  const r = repo.sow([...args, '--json'], at);
  expect(r.code, `sow ${args.join(' ')} --json\nstdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(code);
  const doc = expectEnvelope(r);
  expect(doc, `sow ${args.join(' ')} --json`).toMatchObject({
    ok: false,
    error: { code: errorCode, message: expect.any(String) },
  });
  expect(doc.error.hint, `sow ${args.join(' ')}: a refusal names the next step`).toEqual(expect.stringMatching(/\S/));
  if (opts.human) {
    const human = repo.sow(args, at);
    expect(human.code, `sow ${args.join(' ')}`).toBe(code);
    expect(human.stdout).toBe('');
    expect(human.stderr).toContain(`error: ${doc.error.message}`);
    expect(human.stderr).toContain(`hint: ${doc.error.hint}`);
  }
  expect(repo.snapshot(), `sow ${args.join(' ')} changed .sow/`).toEqual(before);
  return `${doc.error.message}\n${doc.error.hint}`;
}

/** A step of a crafted journal: a file (its text) or a folder (its files) moved onto `to`. */
export interface JournalStep {
  to: string;
  text?: string;
  files?: Record<string, string>;
}

/**
 * Writes `.git/sow/journal.json` as a sow process that was killed after its commit point
 * would leave it: the new texts staged in `.git/sow/tmp/`, the journal naming them, with
 * its checksum (sha256 of the body's JSON). `edit` changes the body before the checksum is taken
 * (a journal that is whole but names what it should not), `tamper` after (one that is not whole).
 */
export function writeJournal(
  repo: Repo,
  steps: JournalStep[],
  opts: { removals?: string[]; edit?: (body: any) => void; tamper?: (body: any) => void } = {},
): Record<string, unknown> {
  const tmp = '.git/sow/tmp';
  mkdirSync(join(repo.dir, tmp), { recursive: true });
  const renames: { from: string; to: string }[] = [];
  const folders: { from: string; to: string }[] = [];
  steps.forEach((step, i) => {
    // The journal names its temp files relative to the runtime folder (.git/sow/).
    const from = `tmp/crafted-${i}.tmp`;
    const abs = join(repo.dir, '.git/sow', from);
    if (step.files) {
      for (const [name, text] of Object.entries(step.files)) {
        mkdirSync(dirname(join(abs, name)), { recursive: true });
        writeFileSync(join(abs, name), text);
      }
      folders.push({ from, to: step.to });
    } else {
      writeFileSync(abs, step.text ?? '');
      renames.push({ from, to: step.to });
    }
  });
  const body: Record<string, unknown> = { version: 3, renames, folders, removals: opts.removals ?? [] };
  opts.edit?.(body);
  const checksum = createHash('sha256').update(JSON.stringify(body)).digest('hex');
  opts.tamper?.(body);
  const journal = { ...body, checksum };
  writeFileSync(join(repo.dir, '.git/sow/journal.json'), JSON.stringify(journal));
  return journal;
}
