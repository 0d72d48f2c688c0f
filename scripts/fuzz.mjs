#!/usr/bin/env node
/**
 * Fuzz run of hostile `.sow/` trees: a cloned repository is untrusted input, so sow's read commands
 * (and the few writes that run on their own: the hooks, a worker completing a task, uninstall, a
 * stop of a task's worker) must never touch anything outside the repository, never run anything
 * the repository asked for, never signal a process sow did not start, and never crash, whatever
 * the tree holds. Two more corpora aim at what a worker and a web page may send: the commands a
 * worker asks to run over ACP (sow's permission decision, checked by running what it allows), and
 * the requests the page `sow ui` serves.
 *
 *   npm run fuzz                                 a run with a seed from the clock (printed first)
 *   npm run fuzz -- --seed 42 --runs 300         repeat a run: the same seed gives the same trees
 *   npm run fuzz -- --seed 42 --only 17 --keep   one run of it again, its tree kept for a look
 *   npm run fuzz -- --acp --runs 20              only the ACP corpus (--ui: only the page's)
 *
 * Options: --seed <n> (a 32-bit number; default from the clock), --runs <k> (default 50),
 * --only <i> (just run i of the seed), --alone <m,…> (apply only these of its mutations, numbered
 * from 0, as the summary says when it found what causes a finding), --jobs <j> (default 1),
 * --keep (keep the trees of runs with a finding and print where), --control (first run every
 * base tree unchanged: the harness must find nothing there), --bases (only make every base tree,
 * say which, and stop: the fuzzer's own set-up still works), --no-minimize (do not look for the
 * single mutation behind a finding), --bin <sow.cjs> (default dist/sow.cjs; SOW_FUZZ_BIN does the
 * same), --mutation <name,…> (only these kinds of mutation, e.g. link,journal), --quiet (no
 * progress lines), --verbose (each run's mutations), --trees / --acp / --ui (only these corpora,
 * each --runs times, or with --only its run i; without any of them: --runs trees, and a tenth as
 * many runs, at least one, of the ACP and the page corpora — but --only, --alone and --mutation
 * name runs and mutations of the trees alone). The last line sums up: runs (of each corpus),
 * commands, the ACP asks (how many sow allowed, how many of those ran in the sandbox), the page's
 * requests, findings.
 *
 * Hostile trees. A few real repositories are made with the built sow once per invocation (a
 * standard project in ImplementationExecuting and one in ReviewActive, an iterative and a
 * breakdown project, and one without a project; each with a check in .sow/config.yaml, codex and
 * claude installed, a refs index; committed like a clone, with no runtime folder). Each run copies
 * one into a fresh temp folder that holds, beside the repository, a sentinel folder (files with a
 * token no command may ever print, read or change) and a marker path that hostile commands create;
 * it also starts a sentinel process (`sleep 600`, the leader of a process group of its own, a
 * process of the user's that sow never started), killed when the run ends. Then it applies a few
 * mutations chosen by a seeded PRNG (mulberry32): links to the sentinel, to `../..`, to .git, to
 * /dev/zero, loops; `..`, absolute paths, option-like strings, newlines and escape sequences in
 * state values; odd file and folder names; big and deep files, YAML alias bombs; install records,
 * refs indexes and checks that name what they should not; a task's committed owner naming pid 1,
 * 0, a negative or huge pid, or the sentinel process (this host or another, this boot and pid
 * namespace or not, its start time or not). Runtime files go where a clone can carry them: the
 * work-tree folders an older sow used, `.sow/.runtime/` (journals of either format with a valid
 * checksum, staged files, locks held by a live process, task indexes whose stamps match, owner
 * and supervisor records naming the sentinel process) and `.sow/.backup/`, as files and as links
 * (dangling, to the sentinel); each crafted file carries a second token, the legacy token. sow
 * reads none of them. Apart, as defence in depth, the `git-runtime` mutation writes crafted files
 * into git's folder (`.git/sow/`), where no clone can put them: a journal with a valid checksum
 * naming bad paths, lock and task-index garbage, owner and supervisor records naming pid 1 or the
 * sentinel process, each differing from what sow would write in at least one field it checks —
 * sow may refuse them (exit 4) but never act outside. Every read command then runs (half of them
 * with --json), `sow mcp` answers its status and continue tools, `sow agent stop 010` (and with
 * --json) asks to signal task 010's worker, and last the writes that run on their own (`hook
 * stop`, `task set --id 010 status completed` with SOW_ALLOW_CHECKS unset, `uninstall codex`).
 *
 * After every command: the sentinel is the same (names, types, modes, mtimes, contents, link
 * targets), the sentinel process is alive (the same pid and start time, not a zombie), the marker
 * does not exist, nothing was added beside the repository, src/, README.md, .git/config, .git/HEAD
 * and .git/hooks are unchanged, the sentinel's token is nowhere in the output nor in the
 * repository, git's runtime folder or the run's home; the legacy token is nowhere in the output nor
 * outside `.sow/.runtime/`, `.sow/.backup/` and `.sow/.tmp/`, and those folders are unchanged
 * (names, types, contents, link targets), but for the workers' events and backups a first command
 * moves into git's folder when they are real folders; the exit code is one of sow's (never 70),
 * there is no "internal error", no stack trace, no kill by a signal and no hang (60 s); with
 * --json stdout is one JSON document; human output carries no raw control characters and no line
 * forged by a value (the process of `sow mcp`: exit 0 and a reply to each request). A finding is
 * printed on one line; at the end each kind of finding is listed with the mutation that causes it
 * alone (or the few that cause it together), found by replaying them on fresh trees.
 *
 * The ACP corpus. A run copies the standard project, declares two to four checks in
 * .sow/config.yaml that the person allows (`sow check allow <names> --yes`), then one more that
 * touches the marker, declared after (not allowed), and spawns one worker over ACP (`sow agent
 * spawn implementer 010`, the fake ACP agent of test/fakes as `claude-agent-acp`, its generic
 * wording) whose script asks, one `execute` tool call after another, to run a hundred and fifty
 * commands: fixed ones (`sow status`, `sow;/usr/bin/touch <marker>`, `sow\v/../bin/sh -c …` with
 * folders of those names made, …), every declared check as written (and with a command or a
 * letter appended), and the rest from the seeded PRNG over a tricky alphabet (sow, s\ow, quotes, `$`, `(`,
 * backquotes, `;|&<>`, `#`, `~`, `*?[`, `=`, newlines, `\`, tab, \v, \f, \r, NBSP, U+3000, U+FEFF,
 * U+200B, `../`, `/bin/sh`, `-c`, exec, env, IFS, the marker's path). Each is asked as a command
 * string, as Codex's `[<shell>, "-lc", script]` (bash, sh, dash by name or path; zsh; a "bash" in
 * the repository; a cwd outside), as a title alone (Gemini), or as an argv. sow's real decision
 * answers each (read from the fake agent's log). Every command it allows that is not an allowed
 * check (the person's own command, as written) is then run the way an agent would run it — by
 * bash and by sh with `-c`, an argv as it is; once, however many shapes it was asked in — in a
 * sandbox: cwd the repository, PATH a folder holding only a fake `sow` that appends its arguments
 * to a log (shell builtins only), HOME a folder of its own, under strace when it works here. It
 * must run exactly that fake sow, once, and nothing else (no other program executed, exit 0,
 * nothing printed, no file of the run made or changed, the marker absent, the sentinel process
 * alive), with the words a plain reading of the command gives (a reference reader in this script,
 * written apart from sow's: only quotes, backslashes, spaces and tabs; anything else the shell
 * acts on makes the command not plain, and so does a character no one sees). An allowed command
 * that is not plain or not `sow`, an allowed check refused as a string, an allowed check the
 * person did not allow, a cwd outside allowed, an ask the agent got no answer to, an agent left
 * running, and a spawn that crashes are findings too; after the sandbox runs, every invariant of
 * the trees.
 *
 * The page corpus. A run copies the standard project, declares a check that touches the marker
 * (not allowed; SOW_ALLOW_CHECKS unset), makes task 010's committed owner the sentinel process,
 * starts `sow ui --json --no-open` and sends it some hundred and fifty requests with its token:
 * actions named after everything Object.prototype carries, `__proto__`, random strings, the real
 * actions with a value of the wrong shape (objects, arrays, huge strings, negative or fractional
 * indexes, ids with `../` or `-x`), an unknown key, a body that is not an object or not JSON, too
 * large a body, no or another content type, other methods and paths, views of no such name and
 * views with hostile parameters; and once the page's own Stop for task 010. Each must be answered
 * as refused (a refused action 400, 404 or 413 with a JSON error; without the JSON content type
 * 403 with no body; another method or path, or a view of no such name, 404 with a JSON error; a
 * view with hostile values 200 with the commands' errors), never 5xx or an internal error, and the
 * Stop with NOT_SOWS_PROCESS. After each: the state files byte for byte the
 * same, and every invariant of the trees (nothing outside, nothing ran, the sentinel process
 * alive). At the end the server must still be running, stop on SIGINT, and leave no process.
 *
 * Every sow runs with HOME, XDG_CONFIG_HOME, XDG_CACHE_HOME, XDG_STATE_HOME, XDG_DATA_HOME and
 * TMPDIR inside the run's temp folder (sow's own cache and state are the run's, never the
 * user's), NO_COLOR=1, SOW_LOCK_TIMEOUT=0 (a lock that looks held fails at once instead of after
 * 15 s), no other SOW_* variable, and SOW_FUZZ_MARKER naming the marker (hostile shell commands
 * touch it).
 *
 * Exit 0 when nothing was found, 1 on any finding, 2 on a usage error or when the fuzzer itself
 * failed in a run (a bug of this script, said on its own line; the other runs go on).
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { request as httpRequestRaw } from 'node:http';
import { hostname, tmpdir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, normalize, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const DEFAULT_BIN = resolve(HERE, '..', 'dist', 'sow.cjs');
const COMMAND_TIMEOUT_MS = 60_000;
/** The exit codes sow has (`sow help exit-codes`); 70 is a bug. */
const SOW_EXIT_CODES = new Set([0, 1, 2, 3, 4, 5, 130]);

// ---------------------------------------------------------------------------------------------
// Options

const USAGE =
  'usage: node scripts/fuzz.mjs [--seed <n>] [--runs <k>] [--only <i> [--alone <m,…>]] [--jobs <j>] [--keep] ' +
  '[--control] [--bases] [--no-minimize] [--bin <sow.cjs>] [--mutation <name,…>] [--quiet] [--verbose] [--trees] ' +
  '[--acp] [--ui]';

/** The corpora: hostile trees, the commands a worker asks to run over ACP, the requests the page serves. */
const CORPORA = ['trees', 'acp', 'ui'];

export function parseArgs(argv) {
  const o = {
    seed: undefined,
    runs: 50,
    only: undefined,
    alone: undefined,
    jobs: 1,
    keep: false,
    control: false,
    basesOnly: false,
    minimize: true,
    bin: process.env.SOW_FUZZ_BIN || DEFAULT_BIN,
    quiet: false,
    verbose: false,
    mutations: MUTATIONS,
    corpora: [],
  };
  const num = (name, v) => {
    if (v === undefined || !/^\d+$/.test(v)) throw new UsageError(`${name} needs a whole number, not '${v ?? ''}'`);
    return Number(v);
  };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] =
      argv[i].startsWith('--') && argv[i].includes('=') ? argv[i].split(/=(.*)/s) : [argv[i], undefined];
    const value = () => inline ?? argv[++i];
    switch (flag) {
      case '--seed':
        o.seed = num('--seed', value()) >>> 0;
        break;
      case '--runs':
        o.runs = num('--runs', value());
        break;
      case '--only':
        o.only = num('--only', value());
        break;
      case '--alone':
        o.alone = (value() ?? '').split(',').map((v) => num('--alone', v));
        break;
      case '--jobs':
        o.jobs = Math.max(1, num('--jobs', value()));
        break;
      case '--bin':
        o.bin = resolve(value() ?? '');
        break;
      case '--keep':
        o.keep = true;
        break;
      case '--control':
        o.control = true;
        break;
      case '--bases':
        o.basesOnly = true;
        break;
      case '--no-minimize':
        o.minimize = false;
        break;
      case '--quiet':
        o.quiet = true;
        break;
      case '--verbose':
        o.verbose = true;
        break;
      case '--mutation': {
        const names = (value() ?? '').split(',');
        const unknown = names.filter((n) => !MUTATION_BY_NAME.has(n));
        if (unknown.length)
          throw new UsageError(
            `no mutation named ${unknown.join(', ')} (mutations: ${[...MUTATION_BY_NAME.keys()].join(', ')})`,
          );
        o.mutations = MUTATIONS.filter((m) => names.includes(m.name));
        o.mutationArg = names.join(',');
        break;
      }
      case '--trees':
      case '--acp':
      case '--ui':
        if (!o.corpora.includes(flag.slice(2))) o.corpora.push(flag.slice(2));
        break;
      case '--help':
      case '-h':
        throw new UsageError('');
      default:
        throw new UsageError(`unknown option '${argv[i]}'`);
    }
  }
  if (o.seed === undefined) o.seed = (Date.now() ^ (process.pid << 16)) >>> 0;
  if ((o.alone !== undefined || o.mutationArg !== undefined) && o.corpora.some((c) => c !== 'trees'))
    throw new UsageError('--alone and --mutation choose mutations of a tree; the ACP and page corpora have none');
  o.named = o.corpora.length > 0;
  // What names a tree's run or its mutations is about the trees alone.
  if (!o.named)
    o.corpora = o.only !== undefined || o.alone !== undefined || o.mutationArg !== undefined ? ['trees'] : [...CORPORA];
  o.corpora.sort((a, b) => CORPORA.indexOf(a) - CORPORA.indexOf(b));
  return o;
}

class UsageError extends Error {}

// ---------------------------------------------------------------------------------------------
// The seeded PRNG: mulberry32, one stream per purpose (run, its mutations, its commands), so that
// one mutation can be replayed alone with the same choices.

function mulberry32(a) {
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Rng {
  constructor(...parts) {
    this.next = mulberry32(createHash('sha256').update(parts.join('\0')).digest().readUInt32LE(0));
  }
  int(n) {
    return Math.floor(this.next() * n);
  }
  range(lo, hi) {
    return lo + this.int(hi - lo + 1);
  }
  chance(p) {
    return this.next() < p;
  }
  pick(list) {
    return list[this.int(list.length)];
  }
  weighted(list) {
    const total = list.reduce((s, x) => s + x.weight, 0);
    let r = this.next() * total;
    for (const x of list) if ((r -= x.weight) < 0) return x;
    return list[list.length - 1];
  }
  shuffle(list) {
    const a = [...list];
    for (let i = a.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [a[i], a[j]] = [a[j], a[i]];
    }
    return a;
  }
  sample(list, k) {
    return this.shuffle(list).slice(0, k);
  }
}

// ---------------------------------------------------------------------------------------------
// Processes

const sha256 = (data) => createHash('sha256').update(data).digest('hex');
const OUTPUT_CAP = 16 * 1024 * 1024;

/**
 * Runs a command in its own process group; after it ends (or after the timeout) the whole group
 * is killed, so nothing it started outlives it. `input` is written and stdin closed; or `talk`
 * gets the child and each chunk of stdout, and closes stdin itself. Resolves with code, signal,
 * output, timedOut.
 */
function run(file, args, { cwd, env, input = '', talk, timeoutMs = COMMAND_TIMEOUT_MS }) {
  return new Promise((done) => {
    const child = spawn(file, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    const out = { stdout: [], stderr: [], size: { stdout: 0, stderr: 0 } };
    for (const name of ['stdout', 'stderr']) {
      child[name].on('data', (d) => {
        if (out.size[name] < OUTPUT_CAP) out[name].push(d);
        out.size[name] += d.length;
        if (name === 'stdout' && talk) talk.onStdout(child, d);
      });
    }
    let timedOut = false;
    const killGroup = () => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      done({ code: -1, signal: null, stdout: '', stderr: `spawn failed: ${err.message}`, timedOut: false });
    });
    child.stdin.on('error', () => undefined);
    if (talk) talk.start(child);
    else child.stdin.end(input);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      killGroup();
      done({
        code,
        signal: timedOut ? null : signal,
        timedOut,
        stdout: Buffer.concat(out.stdout).toString('utf8'),
        stderr: Buffer.concat(out.stderr).toString('utf8'),
      });
    });
  });
}

function git(cwd, args, env) {
  const r = spawnSync('git', args, { cwd, env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} (in ${cwd}) failed: ${r.stderr}`);
  return r.stdout.trim();
}

/** The environment of every process of a run: its home, config, cache, state and temp folders. */
function runEnv(home, marker) {
  const env = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('SOW_') && !k.startsWith('GIT_') && !k.startsWith('XDG_')) env[k] = v;
  delete env.FORCE_COLOR;
  delete env.NODE_OPTIONS;
  return {
    ...env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    TMPDIR: join(home, 'tmp'),
    NO_COLOR: '1',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: 'sow fuzz',
    GIT_AUTHOR_EMAIL: 'fuzz@example.invalid',
    GIT_COMMITTER_NAME: 'sow fuzz',
    GIT_COMMITTER_EMAIL: 'fuzz@example.invalid',
    SOW_LOCK_TIMEOUT: '0',
    SOW_FUZZ_MARKER: marker,
  };
}

function makeHome(home) {
  for (const d of ['.config', '.cache', join('.local', 'state'), join('.local', 'share'), 'tmp'])
    mkdirSync(join(home, d), { recursive: true });
}

// ---------------------------------------------------------------------------------------------
// The sentinel process: a process of the user's that sow never started, which no command may signal

/**
 * A process's state letter, process group and start time (clock ticks since boot), from /proc; undefined when there
 * is none.
 */
function procStat(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: f[0], pgrp: Number(f[2]), pstart: Number(f[19]) };
  } catch {
    return undefined;
  }
}

const sentinelProcesses = new Set();

/** `sleep 600`, the leader of a process group of its own (as a shell's job is), as a child of this fuzzer. */
function startSentinelProcess() {
  const child = spawn('sleep', ['600'], { detached: true, stdio: 'ignore' });
  child.on('error', () => undefined);
  child.unref();
  if (child.pid === undefined) throw new Error('could not start the sentinel process (sleep 600)');
  const p = { child, pid: child.pid, pstart: procStat(child.pid)?.pstart ?? 0 };
  sentinelProcesses.add(p);
  return p;
}

/**
 * Why the sentinel process is not the live process it was (it ended, was killed, is a zombie, or its pid is
 * another's); undefined while it lives.
 */
function sentinelProcessGone(p) {
  const now = procStat(p.pid);
  if (
    p.child.exitCode !== null ||
    p.child.signalCode !== null ||
    !now ||
    now.state === 'Z' ||
    now.state === 'X' ||
    now.pstart !== p.pstart
  )
    return (
      `the sentinel process (pid ${p.pid}, sleep 600 in a process group of its own, never started by sow) was ` +
      `ended${p.child.signalCode ? ` by ${p.child.signalCode}` : ''}`
    );
  return undefined;
}

/**
 * Ends a sentinel process; only while it is this fuzzer's unreaped child (so its pid cannot be another's), and never
 * pid 1 or less.
 */
function stopSentinelProcess(p) {
  sentinelProcesses.delete(p);
  if (p.pid > 1 && p.child.exitCode === null && p.child.signalCode === null) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
}

process.on('exit', () => {
  for (const p of [...sentinelProcesses]) stopSentinelProcess(p);
});

// ---------------------------------------------------------------------------------------------
// Base trees: real repositories made with sow, once per invocation

const TASKS_DIR = '.sow/project/phases/implementation/tasks';

/**
 * Makes the base repositories `needed` (names) under `root`; returns {bases: {name: repoDir}, homeTemplate}. The
 * home template holds sow's cache with the refs sources cloned (copied into each run's home), so
 * `refs status` fetches for real — from local repositories, never the network.
 */
async function makeBases(root, bin, needed) {
  const home = join(root, 'base-home');
  makeHome(home);
  const env = { ...runEnv(home, join(root, 'base-marker')), SOW_ALLOW_CHECKS: '1' };
  // The sources of refs: a plain repository, and one whose default branch is an option that runs
  // a command when a git that does not put `--` first fetches it.
  const srcRepo = join(root, 'src-repo');
  mkdirSync(srcRepo);
  git(srcRepo, ['init', '-q', '-b', 'main'], env);
  writeFileSync(join(srcRepo, 'STYLE.md'), '# House style\n');
  git(srcRepo, ['add', '.'], env);
  git(srcRepo, ['commit', '-q', '-m', 'style'], env);
  const evilRepo = join(root, 'evil-repo');
  mkdirSync(evilRepo);
  git(evilRepo, ['init', '-q', '-b', 'main'], env);
  writeFileSync(join(evilRepo, 'README.md'), 'nothing to see\n');
  git(evilRepo, ['add', '.'], env);
  git(evilRepo, ['commit', '-q', '-m', 'x'], env);
  const evilBranch = 'refs/heads/--upload-pack=touch${IFS}$SOW_FUZZ_MARKER;git-upload-pack';
  git(evilRepo, ['update-ref', evilBranch, 'HEAD'], env);
  git(evilRepo, ['symbolic-ref', 'HEAD', evilBranch], env);

  const sow = async (dir, args, input) => {
    const r = await run(process.execPath, [bin, ...args], { cwd: dir, env, input });
    if (r.code !== 0)
      throw new Error(
        `making the base trees: sow ${args.join(' ')} exited ${r.code} (in ${dir})\n${r.stdout}${r.stderr}`,
      );
    return r.stdout;
  };
  const write = (dir, rel, text) => {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  };
  const newRepo = (name) => {
    const dir = join(root, `base-${name}`, 'repo');
    mkdirSync(dir, { recursive: true });
    git(dir, ['init', '-q', '-b', 'main'], env);
    write(dir, 'src/main.c', 'int main(void) { return 0; }\n');
    write(dir, 'README.md', '# A project\n');
    git(dir, ['add', '.'], env);
    git(dir, ['commit', '-q', '-m', 'initial'], env);
    return dir;
  };
  /** What every base has besides its project: a check, codex and claude installed, a refs index, knowledge. */
  const furnish = async (dir) => {
    write(dir, '.sow/config.yaml', 'checks:\n  - name: unit\n    run: "true"\n    when: [task_complete]\n');
    await sow(dir, ['install', 'codex']);
    await sow(dir, ['install', 'claude']);
    write(dir, '.sow/knowledge/notes.md', '# Notes\n\nWhat we learnt.\n');
    const ref = { link: 'style', source: pathToFileURL(srcRepo).href, semantic: 'knowledge', tags: ['style'] };
    write(dir, '.sow/refs/index.json', `${JSON.stringify({ version: 1, refs: [ref] }, null, 2)}\n`);
  };
  /** Commits everything as the attacker's clone would carry it, and leaves no runtime files. */
  const seal = (dir) => {
    rmSync(join(dir, '.git', 'sow'), { recursive: true, force: true });
    for (const name of existsSync(join(dir, '.sow/refs')) ? readdirSync(join(dir, '.sow/refs')) : []) {
      if (lstatSync(join(dir, '.sow/refs', name)).isSymbolicLink()) rmSync(join(dir, '.sow/refs', name));
    }
    rmSync(join(dir, '.sow/refs/index.local.json'), { force: true });
    git(dir, ['add', '-A', '-f', '.'], env);
    git(dir, ['commit', '-q', '--allow-empty', '-m', 'state'], env);
  };

  const bases = {};
  // A standard project in ImplementationExecuting: tasks 010 and 020, inputs, outputs, logs; and
  // the same project in ReviewActive, a review output written.
  const standard = async () => {
    const dir = newRepo('executing');
    await sow(dir, ['init']);
    await sow(dir, ['project', 'new', 'demo', '--description', 'A demo project']);
    write(dir, '.sow/project/planning/tasks.md', '# Tasks\n\n1. First task\n2. Second task\n');
    await sow(dir, ['output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md']);
    await sow(dir, ['output', 'set', '--index', '0', 'approved', 'true']);
    await sow(dir, ['advance']);
    await sow(dir, ['task', 'add', 'First task', '--agent', 'implementer']);
    await sow(dir, ['task', 'add', 'Second task', '--agent', 'implementer', '--depends-on', '010']);
    await sow(dir, ['phase', 'set', 'tasks_approved', 'true']);
    await sow(dir, ['advance']);
    write(dir, '.sow/project/notes/design.md', '# Design\n');
    await sow(dir, ['task', 'input', 'add', '--id', '010', '--type', 'reference', '--path', 'notes/design.md']);
    await sow(dir, ['task', 'output', 'add', '--id', '010', '--type', 'modified', '--path', 'src/main.c']);
    await sow(dir, ['log', '--task', '010', '--action', 'research', '--result', 'success', 'read the code']);
    await sow(dir, ['log', '--project', '--action', 'research', '--result', 'success', 'started']);
    await furnish(dir);
    bases.executing = dir;
    if (needed.has('review')) {
      const review = join(root, 'base-review', 'repo');
      mkdirSync(dirname(review), { recursive: true });
      cpSync(dir, review, { recursive: true, verbatimSymlinks: true });
      await sow(review, ['task', 'set', '--id', '010', 'status', 'completed']);
      await sow(review, ['task', 'set', '--id', '020', 'status', 'completed']);
      await sow(review, ['advance']);
      write(review, '.sow/project/review/round1.md', '# Review\n\nAll good.\n');
      await sow(review, ['output', 'add', '--type', 'review', '--path', 'review/round1.md', '--assessment', 'pass']);
      seal(review);
      bases.review = review;
    }
    seal(dir);
  };
  // An iterative project executing its work phases, one iteration logged.
  const iterative = async () => {
    const dir = newRepo('iterative');
    await sow(dir, ['init']);
    await sow(dir, ['project', 'new', 'lit', '--type', 'iterative', '--description', 'Literature review']);
    // The brief as a person fills it in: a template's placeholders cannot be approved.
    write(
      dir,
      '.sow/project/brief.md',
      '# Literature review\n\n**Domain:** research\n\n## Outcome Needed\nA review of the field.\n\n## Done When\n- ' +
        '10 sources\n',
    );
    await sow(dir, ['output', 'set', '--index', '0', 'approved', 'true']);
    await sow(dir, ['advance']);
    await sow(dir, [
      'iter',
      'phase',
      'add',
      'R1',
      '--title',
      'Collect sources',
      '--criteria',
      '10 sources',
      '--output',
      'outputs/sources.md',
      '--max',
      '3',
    ]);
    await sow(dir, [
      'iter',
      'phase',
      'add',
      'R2',
      '--title',
      'Write the review',
      '--criteria',
      '2000 words',
      '--output',
      'outputs/review.md',
      '--max',
      '4',
      '--after',
      'R1',
    ]);
    await sow(dir, ['output', 'set', '--index', '0', 'approved', 'true']);
    await sow(dir, ['advance']);
    await sow(dir, ['iter', 'log', 'R1', '--did', 'found 4 sources', '--remaining', '6 more']);
    await furnish(dir);
    seal(dir);
    bases.iterative = dir;
  };
  // A breakdown project in Active: three work units, one specified.
  const breakdown = async () => {
    const dir = newRepo('breakdown');
    await sow(dir, ['init']);
    await sow(dir, ['project', 'new', 'auth', '--type', 'breakdown', '--description', 'JWT authentication']);
    write(dir, '.sow/project/discovery.md', '# Discovery\n');
    await sow(dir, ['output', 'add', '--type', 'discovery', '--path', 'discovery.md']);
    await sow(dir, ['output', 'set', '--index', '0', 'approved', 'true']);
    await sow(dir, ['advance']);
    await sow(dir, ['task', 'add', 'Token format']);
    await sow(dir, ['task', 'add', 'Refresh tokens', '--depends-on', '010']);
    await sow(dir, ['task', 'add', 'Admin screen']);
    write(dir, '.sow/project/units/010.md', '# Token format\n');
    await sow(dir, ['task', 'output', 'add', '--id', '010', '--type', 'work_unit_spec', '--path', 'units/010.md']);
    await furnish(dir);
    seal(dir);
    bases.breakdown = dir;
  };
  // No project: sow init only.
  const empty = async () => {
    const dir = newRepo('empty');
    await sow(dir, ['init']);
    await furnish(dir);
    seal(dir);
    bases.empty = dir;
  };
  // sow's cache with both refs sources cloned, for every run's home.
  const refs = async () => {
    const dir = newRepo('refs');
    await sow(dir, ['init']);
    await sow(dir, ['refs', 'add', pathToFileURL(srcRepo).href, '--link', 'style']);
    await sow(dir, ['refs', 'add', pathToFileURL(evilRepo).href, '--link', 'evil']);
    rmSync(join(root, 'base-refs'), { recursive: true, force: true });
  };
  // Every maker settles before an error is thrown: the caller removes the folder they write in.
  const made = await Promise.allSettled([
    refs(),
    ...(needed.has('executing') || needed.has('review') ? [standard()] : []),
    ...(needed.has('iterative') ? [iterative()] : []),
    ...(needed.has('breakdown') ? [breakdown()] : []),
    ...(needed.has('empty') ? [empty()] : []),
  ]);
  const failed = made.find((m) => m.status === 'rejected');
  if (failed) throw failed.reason;
  if (existsSync(join(root, 'base-marker')))
    throw new Error('making the base trees ran a hostile command (the marker exists)');
  return { bases, homeTemplate: home, srcRepo, evilRepo };
}

// ---------------------------------------------------------------------------------------------
// The sentinel: what lies beside the repository and must never change

const SENTINEL_STATE = (token) =>
  `id: "010"\nname: ${token}\nphase: implementation\nstatus: pending\niteration: 1\nparallel: false\ndependencies: ` +
  `[]\ncreated_at: "2026-01-01T00:00:00.000Z"\nupdated_at: "2026-01-01T00:00:00.000Z"\ninputs: []\noutputs: ` +
  `[]\nmetadata: {}\n`;

function makeSentinel(dir, token) {
  mkdirSync(join(dir, 'sub', 'deeper'), { recursive: true });
  mkdirSync(join(dir, 'empty'));
  writeFileSync(join(dir, 'precious.txt'), `${token}\nkeep me\n`);
  writeFileSync(join(dir, 'sub', 'deeper', 'notes.md'), `# ${token}\n`);
  writeFileSync(join(dir, 'state.yaml'), SENTINEL_STATE(token));
  writeFileSync(join(dir, 'config'), `[core]\n\t# ${token}\n`);
  symlinkSync('precious.txt', join(dir, 'link-inside'));
}

/** Every entry under `dir` (links not followed): type, mode, mtime, size and content hash or link target. */
function manifest(dir) {
  const out = new Map();
  const walk = (abs, rel) => {
    const st = lstatSync(abs);
    const common = `mode=${st.mode.toString(8)} mtime=${st.mtimeMs}`;
    if (st.isSymbolicLink()) out.set(rel, `link -> ${readlinkSync(abs)} ${common}`);
    else if (st.isDirectory()) {
      out.set(rel, `dir ${common}`);
      for (const name of readdirSync(abs).sort()) walk(join(abs, name), rel ? `${rel}/${name}` : name);
    } else if (st.isFile()) out.set(rel, `file size=${st.size} sha256=${sha256(readFileSync(abs))} ${common}`);
    else out.set(rel, `other ${common}`);
  };
  if (existsSync(dir) || isLink(dir)) walk(dir, '');
  return out;
}

function isLink(p) {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

function diffManifest(before, after) {
  const changes = [];
  for (const [rel, was] of before) {
    const now = after.get(rel);
    if (now === undefined) changes.push(`removed ${rel || '.'}`);
    else if (now !== was) changes.push(`changed ${rel || '.'} (${was} → ${now})`);
  }
  for (const rel of after.keys()) if (!before.has(rel)) changes.push(`added ${rel}`);
  return changes;
}

const isRealDir = (p) => {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
};

/**
 * The folders where a clone may carry the legacy token: an older sow's runtime files, its backups, and the work
 * tree's temp folder a journal may name.
 */
const LEGACY_AREAS = ['.sow/.runtime', '.sow/.backup', '.sow/.tmp'];

/**
 * Files holding the sentinel's token (anywhere in the repository but .git, in git's runtime folder
 * and in the run's home), and files holding the legacy token outside the folders a clone carries
 * it in. Links are not followed; files over 8 MB are not read.
 */
function tokenFiles(ctx) {
  const sentinel = [];
  const legacy = [];
  const [token, legacyToken] = [Buffer.from(ctx.token), Buffer.from(ctx.legacyToken)];
  const carried = new Set(LEGACY_AREAS.map((rel) => join(ctx.repo, rel)));
  const walk = (abs, inCarried) => {
    let st;
    try {
      st = lstatSync(abs);
    } catch {
      return;
    }
    if (st.isDirectory()) {
      let names = [];
      try {
        names = readdirSync(abs);
      } catch {
        return;
      }
      for (const name of names) if (name !== '.git') walk(join(abs, name), inCarried || carried.has(join(abs, name)));
    } else if (st.isFile() && st.size <= 8 * 1024 * 1024) {
      let data;
      try {
        data = readFileSync(abs);
      } catch {
        return;
      }
      if (data.includes(token)) sentinel.push(abs);
      if (!inCarried && data.includes(legacyToken)) legacy.push(abs);
    }
  };
  walk(ctx.repo, false);
  walk(join(ctx.repo, '.git', 'sow'), false);
  walk(ctx.home, false);
  return { sentinel, legacy };
}

/**
 * What a clone carries where an older sow kept its runtime files and backups: each entry's type,
 * mode, link target and content (a hash; for a file over 1 MB its stat). The workers' events are
 * left out, and folders' mtimes: a first command moves `.sow/.runtime/agent-outputs/` and
 * `.sow/.backup/` into git's folder when they are real folders, as it should.
 */
function legacyManifest(ctx) {
  const out = new Map();
  if (!isRealDir(join(ctx.repo, '.sow'))) return out;
  const walk = (abs, key) => {
    if (key === '.sow/.runtime/agent-outputs') return;
    let st;
    try {
      st = lstatSync(abs);
    } catch {
      return;
    }
    const mode = `mode=${st.mode.toString(8)}`;
    if (st.isSymbolicLink()) out.set(key, `link -> ${readlinkSync(abs)}`);
    else if (st.isDirectory()) {
      out.set(key, `dir ${mode}`);
      for (const name of readdirSync(abs).sort()) walk(join(abs, name), `${key}/${name}`);
    } else if (st.isFile())
      out.set(
        key,
        `file ${mode} ` +
          `size=${st.size} ` +
          (st.size <= 1024 * 1024 ? `sha256=${sha256(readFileSync(abs))}` : `mtime=${st.mtimeMs} ino=${st.ino}`),
      );
    else out.set(key, `other ${mode}`);
  };
  for (const rel of ['.sow/.runtime', '.sow/.backup']) walk(join(ctx.repo, rel), rel);
  return out;
}

/**
 * How the legacy folders changed since `before`, but for a real `.sow/.backup` moved away whole (into git's folder).
 */
function legacyChanges(before, after) {
  const adopted = before.get('.sow/.backup')?.startsWith('dir ') && !after.has('.sow/.backup');
  const keep = (m) =>
    new Map([...m].filter(([k]) => !(adopted && (k === '.sow/.backup' || k.startsWith('.sow/.backup/')))));
  return diffManifest(keep(before), keep(after));
}

// ---------------------------------------------------------------------------------------------
// Hostile values

/** A hostile string value, for a path, a name, a branch, an id. */
function hostileString(rng, ctx) {
  const s = ctx.sentinel;
  const m = ctx.marker;
  const up = (k) => '../'.repeat(k);
  const choices = [
    () => `${up(rng.range(1, 8))}sentinel/precious.txt`,
    () => `${up(rng.range(1, 8))}sentinel`,
    () => `${s}/precious.txt`,
    () => `${s}/sub`,
    () => s,
    () => `${s}/state.yaml`,
    () => '/etc/passwd',
    () => '/dev/zero',
    () => '/proc/self/environ',
    () => '.git/config',
    () => '../.git/config',
    () => `.sow/../${up(1)}sentinel/precious.txt`,
    () => `src/../../sentinel/precious.txt`,
    () => `planning/../../../../sentinel/precious.txt`,
    () => '.git/sow/journal.json',
    () => '.sow/.runtime/journal.json',
    () => '.sow/config.yaml',
    () => '-rf',
    () => '--help',
    () => '--upload-pack=touch${IFS}$SOW_FUZZ_MARKER;git-upload-pack',
    () => `--output=${m}`,
    () => '-c core.pager=touch${IFS}$SOW_FUZZ_MARKER',
    () => '-oProxyCommand=touch${IFS}$SOW_FUZZ_MARKER',
    () => `$(touch ${m})`,
    () => `\`touch ${m}\``,
    () => `; touch ${m}`,
    () => `x | touch ${m}`,
    () => 'name\nFORGED line from a value',
    () => 'a\rFORGED',
    () => 'red \u001b[31mRED\u001b[0m',
    () => '\u001b]0;title\u0007bell',
    () => '\u001b[2J\u001b[Hcleared',
    () => '\u009b31mC1 CSI',
    () => '\u202etxt.exe',
    () => 'zero\u200bwidth',
    () => 'ﬁle ünïcödé 名前',
    () => 'line\u2028sep',
    () => 'lone \ud800 surrogate',
    () => '',
    () => ' ',
    () => '.',
    () => '..',
    () => '~',
    () => '~/.ssh/id_rsa',
    () => '*',
    () => 'null',
    () => '010',
    () => '0x1F',
    () => '1e308',
    () => '9999999999999999',
    () => 'x'.repeat(rng.pick([256, 4096, 100_000])),
    () => 'a/'.repeat(5000),
    () => '__proto__',
    () => 'constructor',
    () => '%s%n%x',
    () => '{{ project.name }}${HOME}',
    () => 'C:\\Windows\\system32',
    () => '\\\\server\\share\\x',
    () => pathToFileURL(s).href,
  ];
  return rng.pick(choices)();
}

/** A hostile YAML value as it would be written in the file: a quoted string, or a value of another type. */
function hostileYamlValue(rng, ctx) {
  if (rng.chance(0.75)) return JSON.stringify(hostileString(rng, ctx));
  return rng.pick([
    '[1, 2]',
    '{a: 1}',
    'null',
    '~',
    '9999999999999999',
    '12345678901234567890',
    '.inf',
    '-.nan',
    '0x1F',
    '007',
    '!!binary aGVsbG8=',
    '!!set {a, b}',
    '!!js/function "function(){}"',
    '!!python/object/apply:os.system ["id"]',
    '*nosuchalias',
    '&anchor value',
    '!!timestamp 2001-12-14',
    '"\\u0000"',
    '|\n  block\n  text',
    '>-\n  folded',
    '',
  ]);
}

const ODD_NAMES = [
  '..a',
  '...',
  '-rf',
  '--help',
  'ﬁ',
  '010\n',
  'a\nb',
  '\u001b[2J',
  ' 010',
  '010 ',
  '0100',
  '010.',
  '%s%n',
  'x'.repeat(250),
  '\u202eevil',
  '.hidden',
  'CON',
  'nul',
  'a:b',
  'a\\b',
  '*',
  '?',
  '\t',
  '$(touch x)',
  'état',
  '0',
  '-1',
  '999999999999',
];

// ---------------------------------------------------------------------------------------------
// Mutations. Every file operation goes through these helpers, which refuse a path with a link on
// its way (a mutation must never write through a link it or another mutation made).

function within(ctx, rel) {
  const norm = normalize(rel).replace(/(.)\/+$/, '$1');
  if (isAbsolute(rel) || norm.startsWith('..')) throw new Error(`bug: mutation path ${rel} leaves the repository`);
  const parts = norm.split(sep);
  let p = ctx.repo;
  for (const part of parts.slice(0, -1)) {
    p = join(p, part);
    if (isLink(p)) return undefined;
  }
  return join(ctx.repo, norm);
}

const fx = {
  write(ctx, rel, data) {
    const abs = within(ctx, rel);
    if (!abs || isLink(abs)) return false;
    mkdirSync(dirname(abs), { recursive: true });
    if (existsSync(abs) && statSync(abs).isDirectory()) rmSync(abs, { recursive: true, force: true });
    writeFileSync(abs, data);
    return true;
  },
  read(ctx, rel) {
    const abs = within(ctx, rel);
    if (!abs || isLink(abs) || !existsSync(abs) || !statSync(abs).isFile()) return undefined;
    return readFileSync(abs, 'utf8');
  },
  remove(ctx, rel) {
    const abs = within(ctx, rel);
    if (!abs) return false;
    rmSync(abs, { recursive: true, force: true });
    return true;
  },
  link(ctx, rel, target) {
    const abs = within(ctx, rel);
    if (!abs) return false;
    rmSync(abs, { recursive: true, force: true });
    mkdirSync(dirname(abs), { recursive: true });
    symlinkSync(target, abs);
    return true;
  },
  mkdir(ctx, rel) {
    const abs = within(ctx, rel);
    if (!abs) return false;
    mkdirSync(abs, { recursive: true });
    return true;
  },
};

/** Repository-relative entries under these roots (links not followed), sorted. */
function entries(ctx, roots = ['.sow', '.claude', '.agents'], { files = true, dirs = true } = {}) {
  const out = [];
  const walk = (rel) => {
    const abs = join(ctx.repo, rel);
    let st;
    try {
      st = lstatSync(abs);
    } catch {
      return;
    }
    if (st.isDirectory()) {
      if (dirs) out.push(rel);
      for (const name of readdirSync(abs).sort()) walk(`${rel}/${name}`);
    } else if (files || st.isSymbolicLink()) out.push(rel);
  };
  for (const r of roots) walk(r);
  return out;
}

const yamlFiles = (ctx) =>
  entries(ctx, ['.sow'], { dirs: false }).filter((r) => /\.ya?ml$/.test(r) && !isLink(join(ctx.repo, r)));

const WELL_KNOWN = [
  '.sow',
  // Where an older sow kept its runtime files and backups: a clone carries anything there.
  '.sow/.runtime',
  '.sow/.runtime/tmp',
  '.sow/.runtime/trash',
  '.sow/.runtime/lock',
  '.sow/.runtime/lock.takeover',
  '.sow/.runtime/journal.json',
  '.sow/.runtime/tasks.json',
  '.sow/.runtime/agent-outputs',
  '.sow/.runtime/agent-outputs/010',
  '.sow/.runtime/owners',
  '.sow/.runtime/supervisors',
  '.sow/.backup',
  '.sow/.tmp',
  '.sow/project',
  '.sow/project/state.yaml',
  `${TASKS_DIR}/010`,
  TASKS_DIR,
  `${TASKS_DIR}/010/state.yaml`,
  `${TASKS_DIR}/010/log.md`,
  `${TASKS_DIR}/010/description.md`,
  `${TASKS_DIR}/010/feedback`,
  '.sow/project/planning/tasks.md',
  '.sow/project/log.md',
  '.sow/project/notes',
  '.sow/project/evidence',
  '.sow/project/phases',
  '.sow/knowledge',
  '.sow/knowledge/notes.md',
  '.sow/refs',
  '.sow/refs/style',
  '.sow/refs/index.json',
  '.sow/refs/index.local.json',
  '.sow/config.yaml',
  '.sow/integrations.yaml',
  '.sow/.version',
  '.sow/.gitignore',
  '.sow/worktrees',
  '.sow/worktrees/feat-x',
  '.sow/.journal.json',
  '.claude',
  '.claude/settings.json',
  '.claude/agents',
  '.claude/skills/sow',
  '.agents',
  '.agents/skills/sow',
  '.agents/skills/sow/SKILL.md',
  'AGENTS.md',
  '.sow/project/outputs',
];

/** Where a link at `rel` should point, by kind; `decoy` copies what was there into the sentinel first. */
function linkTarget(rng, ctx, rel) {
  const abs = join(ctx.repo, rel);
  const from = dirname(abs);
  const relTo = (p) => relative(from, p) || '.';
  const kind = rng.pick([
    'decoy',
    'decoy',
    'sentinel-dir',
    'sentinel-file',
    'run-dir',
    'up-two',
    'git',
    'git-config',
    'dev-zero',
    'dev-null',
    'dangling',
    'self-loop',
    'pair-loop',
    'repo-root',
    'src',
  ]);
  const absolute = rng.chance(0.5);
  const to = (p) => (absolute ? p : relTo(p));
  switch (kind) {
    case 'decoy': {
      const decoy = join(ctx.sentinel, `decoy-${ctx.decoys++}`);
      if (existsSync(abs) && !isLink(abs)) {
        cpSync(abs, decoy, { recursive: true, verbatimSymlinks: true });
        // What a read through the link would find names the token: printing it is a leak.
        for (const f of statSync(decoy).isDirectory() ? entriesAbs(decoy) : [decoy]) {
          if (/\.ya?ml$/.test(f) && statSync(f).isFile())
            writeFileSync(f, readFileSync(f, 'utf8').replace(/^name: .*$/m, `name: ${ctx.token}`));
        }
      } else {
        mkdirSync(decoy);
        writeFileSync(join(decoy, 'state.yaml'), SENTINEL_STATE(ctx.token));
      }
      return { kind, target: to(decoy) };
    }
    case 'sentinel-dir':
      return { kind, target: to(ctx.sentinel) };
    case 'sentinel-file':
      return { kind, target: to(join(ctx.sentinel, rng.pick(['precious.txt', 'state.yaml', 'config']))) };
    case 'run-dir':
      return { kind, target: to(ctx.runDir) };
    case 'up-two':
      return { kind, target: '../..' };
    case 'git':
      return { kind, target: to(join(ctx.repo, '.git')) };
    case 'git-config':
      return { kind, target: to(join(ctx.repo, '.git', 'config')) };
    case 'dev-zero':
      return { kind, target: '/dev/zero' };
    case 'dev-null':
      return { kind, target: '/dev/null' };
    case 'dangling':
      return { kind, target: to(join(ctx.sentinel, 'no-such-file')) };
    case 'self-loop':
      return { kind, target: rel.split('/').pop() };
    case 'pair-loop':
      return { kind, target: `${rel.split('/').pop()}.loop`, pair: `${rel}.loop` };
    case 'repo-root':
      return { kind, target: to(ctx.repo) };
    default:
      return { kind, target: to(join(ctx.repo, 'src')) };
  }
}

function entriesAbs(dir) {
  return readdirSync(dir, { recursive: true })
    .map((n) => join(dir, n))
    .filter((p) => !isLink(p));
}

/** Replaces the line of a `key: value` in a YAML text; returns the new text, or undefined. */
function replaceYamlValue(rng, ctx, text, { keys } = {}) {
  const lines = text.split('\n');
  const candidates = [];
  lines.forEach((line, i) => {
    const m = /^(\s*(?:- )?)([A-Za-z_][\w.-]*): (.+)$/.exec(line);
    if (m && (!keys || keys.includes(m[2]))) candidates.push({ i, prefix: m[1], key: m[2] });
    const item = /^(\s*- )(?!\S+:)(.+)$/.exec(line);
    if (item && !keys) candidates.push({ i, prefix: item[1], key: null });
  });
  if (!candidates.length) return undefined;
  const c = rng.pick(candidates);
  const value = hostileYamlValue(rng, ctx);
  lines[c.i] = c.key ? `${c.prefix}${c.key}: ${value}` : `${c.prefix}${value}`;
  return { text: lines.join('\n'), what: `${c.key ?? 'a list item'} = ${truncate(value)}` };
}

const truncate = (s, n = 60) => {
  const t = JSON.stringify(s);
  return t.length > n ? `${t.slice(0, n)}…"` : t;
};

const TARGET_KEYS = [
  'path',
  'output',
  'branch',
  'base_branch',
  'name',
  'id',
  'assigned_agent',
  'current_state',
  'type',
  'status',
  'phase',
  'run',
  'when',
  'source',
  'link',
  'sha256',
  'kind',
  'description',
  'iteration',
  'by',
  'dependencies',
  'title',
  'after',
];

function bigText(bytes, line = '# padding padding padding padding padding padding padding padding padding\n') {
  return line.repeat(Math.ceil(bytes / line.length));
}

const aliasBomb = () => {
  const names = 'abcdefghi'.split('');
  let out = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n';
  for (let i = 1; i < names.length; i++)
    out += `${names[i]}: &${names[i]} [${Array(9)
      .fill(`*${names[i - 1]}`)
      .join(',')}]\n`;
  return out;
};

const deep = (n, open, close, inner = '') => `${open.repeat(n)}${inner}${close.repeat(n)}`;

function taskFolders(ctx) {
  const abs = join(ctx.repo, TASKS_DIR);
  if (!existsSync(abs) || isLink(abs)) return [];
  return readdirSync(abs)
    .sort()
    .map((n) => `${TASKS_DIR}/${n}`);
}

/**
 * The steps of a crafted journal: files staged in `staging.dir` (repository-relative) and named
 * `${staging.prefix}/<name>` by the journal, renamed onto targets sow writes and onto targets it
 * never writes; removals. With `token` (a journal a clone carries), most steps are ones a sow that
 * read the journal would replay — texts holding the token onto the places sow writes through
 * journals — so that a replay shows; without, anything goes (git's folder: sow's own, checked all
 * the same).
 */
function stagedJournal(rng, ctx, staging, removalChoices) {
  const renames = [];
  const folders = [];
  const replayable = [
    `.sow/knowledge/${staging.name}.md`,
    `.sow/project/${staging.name}.md`,
    `${TASKS_DIR}/010/log.md`,
  ];
  const targets = () =>
    staging.token && rng.chance(0.6)
      ? rng.pick(replayable)
      : rng.pick([
          '.sow/project/state.yaml',
          `${TASKS_DIR}/010/state.yaml`,
          `${TASKS_DIR}/010/log.md`,
          '.sow/knowledge/x.md',
          '.sow/project/new.md',
          '.sow/refs/index.json',
          '.sow/.version',
          '.sow/.gitignore',
          '.sow/config.yaml',
          '.sow/integrations.yaml',
          '.git/config',
          'src/main.c',
          '../sentinel/precious.txt',
          `${ctx.sentinel}/precious.txt`,
          '.sow/../../sentinel/x',
          '.sow/project/',
          '.sow/project/./x',
          '.git/sow/lock',
          '.sow/.runtime/lock',
          '.claude/settings.json',
          '.sow/project/phases/implementation/tasks/030',
          '',
          '.',
          '.sow',
          `.sow/${'x/'.repeat(200)}y`,
        ]);
  const staged = () => {
    if (staging.token && rng.chance(0.6))
      return { text: `# ${staging.token}\n\nA note a journal would put in place.\n` };
    const existing = entries(ctx, ['.sow/project'], { dirs: false }).filter((r) => /state\.yaml$/.test(r));
    return rng.pick([
      () => ({ text: fx.read(ctx, rng.pick(existing.length ? existing : ['.sow/.version'])) ?? 'x' }),
      () => ({ text: `name: ${JSON.stringify(hostileString(rng, ctx))}\n` }),
      () => ({ text: '\u0000\u0001binary' }),
      () => ({
        link: rng.pick([
          join(ctx.sentinel, 'precious.txt'),
          join(ctx.sentinel, 'state.yaml'),
          ctx.sentinel,
          '/dev/zero',
        ]),
      }),
      () => ({
        files: { 'state.yaml': SENTINEL_STATE(staging.token ?? 'crafted'), 'log.md': `# log ${staging.token ?? ''}\n` },
      }),
    ])();
  };
  const n = rng.range(1, 4);
  for (let i = 0; i < n; i++) {
    const s = staged();
    const odd = rng.chance(0.15);
    const name = odd
      ? rng.pick(['../../../sentinel/precious.txt', '.hidden', 'a/b', '..', ''])
      : `${staging.name}-${i}.tmp`;
    const from = `${staging.prefix}/${name}`;
    const at = `${staging.dir}/${name}`;
    // A source with an odd name is only named: the journal points at something that is not staged.
    if (odd) renames.push({ from, to: targets() });
    else if (s.files) {
      for (const [f, t] of Object.entries(s.files)) fx.write(ctx, `${at}/${f}`, t);
      folders.push({ from, to: targets() });
    } else {
      if (s.link) fx.link(ctx, at, s.link);
      else fx.write(ctx, at, s.text);
      renames.push({ from, to: targets() });
    }
  }
  const removals = rng.sample(removalChoices, rng.range(0, 3));
  return { renames, folders, removals };
}

/** A journal file: the body with its checksum (valid unless `valid` is false), as sow computes it. */
function journalText(body, valid) {
  return JSON.stringify({ ...body, checksum: valid ? sha256(JSON.stringify(body)) : sha256('not it') });
}

const journalSteps = (body) =>
  truncate(
    [
      ...body.renames.map((r) => `${r.from.split('/').pop()}→${r.to}`),
      ...body.folders.map((f) => `folder→${f.to}`),
      ...body.removals.map((r) => `rm ${r}`),
    ].join(', '),
    200,
  );

/** This machine, as sow's records and owners name it. */
const HOST = hostname();
const BOOT = bootId();
const PIDNS = pidNamespace();

const LOCK_KINDS = [
  'garbage',
  'pid-1-other-host',
  'pid-1-other-namespace',
  'live-sentinel',
  'live-pid',
  'huge-pid',
  'dir',
  'link-to-sentinel',
  'empty',
  'json-array',
];

/**
 * A lock file at `rel` of one kind: garbage, a holder that is gone or elsewhere, a live holder (the sentinel
 * process, or this fuzzer), a folder, a link.
 */
function craftLock(rng, ctx, rel, kind, command) {
  const holder = (pid, host, more = {}) =>
    JSON.stringify({ pid, host, started: Date.now(), command, boot: 'not-this-boot', pstart: 1, ...more });
  return {
    garbage: () => fx.write(ctx, rel, '\u0000\u00ff garbage {{{'),
    'pid-1-other-host': () => fx.write(ctx, rel, holder(1, 'elsewhere.invalid')),
    // A holder in a sandbox (another pid namespace) on this host: pid 1 there is not init here.
    'pid-1-other-namespace': () =>
      fx.write(ctx, rel, holder(1, HOST, { boot: BOOT, pstart: 999_999_999, pidns: 'pid:[4026500001]' })),
    // Alive, here, exactly as a holder would record itself: a command that read this file would wait for it (and name
    // its command).
    'live-sentinel': () =>
      fx.write(ctx, rel, holder(ctx.proc.pid, HOST, { boot: BOOT, pstart: ctx.proc.pstart, pidns: PIDNS })),
    'live-pid': () => fx.write(ctx, rel, holder(process.pid, '')),
    'huge-pid': () => fx.write(ctx, rel, holder(2 ** 53, 'x')),
    dir: () => fx.mkdir(ctx, `${rel}/inside`),
    'link-to-sentinel': () => fx.link(ctx, rel, join(ctx.sentinel, 'precious.txt')),
    empty: () => fx.write(ctx, rel, ''),
    'json-array': () => fx.write(ctx, rel, '[1,2,3]'),
  }[kind]();
}

const TASK_INDEX_GARBAGE = [
  'garbage',
  '{"format": 5, "tasks": [["010", 1, 1, 1, 1, "\\u001b[31mforged", "pending", 0, 0, 0, 0]]}',
  '{"format": 5, "tasks": "x"}',
  '[]',
  '{"format": 5, "tasks": [[null]]}',
];

/**
 * Task index entries (format 5) for the task folders as they are now: their stamps match, so an index sow believed
 * would be taken at its word.
 */
function taskIndexRows(ctx, name) {
  const us = (ms) => Math.trunc(ms * 1000);
  return taskFolders(ctx).flatMap((rel) => {
    let st;
    try {
      st = lstatSync(join(ctx.repo, rel, 'state.yaml'));
    } catch {
      return [];
    }
    return st.isFile()
      ? [[rel.split('/').pop(), st.ino, st.size, us(st.mtimeMs), us(st.ctimeMs), name, 'pending', 0, 0, 0, 0]]
      : [];
  });
}

/**
 * Makes `owner` (its fields in the order sow writes them) task `id`'s committed owner, the task in progress; false
 * when there is no state file to change.
 */
function setOwner(ctx, id, owner) {
  const rel = `${TASKS_DIR}/${id}/state.yaml`;
  const text = fx.read(ctx, rel);
  if (text === undefined) return false;
  const lines = [
    'owner:',
    ...Object.entries(owner).flatMap(([k, v]) =>
      v === undefined ? [] : [`  ${k}: ${typeof v === 'string' ? JSON.stringify(v) : v}`],
    ),
  ];
  // An owner already there (another mutation's) is replaced.
  const without = text.replace(/^owner:\n(?: {2}.*(?:\n|$))*/m, '');
  return fx.write(
    ctx,
    rel,
    `${without.trimEnd()}\n${lines.join('\n')}\n`.replace(/^status: \w+$/m, 'status: in_progress'),
  );
}

/**
 * What a clone may carry where an older sow kept its runtime files (`.sow/.runtime/`) and backups (`.sow/.backup/`);
 * each returns what it made, or null.
 */
const LEGACY_CRAFTS = {
  owners(rng, ctx) {
    const p = ctx.proc;
    const record = {
      pid: p.pid,
      pstart: p.pstart,
      boot: BOOT,
      pidns: PIDNS,
      host: HOST,
      pgrp: p.pid,
      task: '010',
      agent_id: 'implementer-7',
      nonce: 'e'.repeat(32),
    };
    return fx.write(ctx, `.sow/.runtime/owners/${p.pid}-${p.pstart}.json`, `${JSON.stringify(record)}\n`)
      ? 'owners/ holds a record of the sentinel process for task 010'
      : null;
  },
  supervisors(rng, ctx) {
    const ready = {
      task: '010',
      agent_id: ctx.legacyToken,
      pid: rng.pick([ctx.proc.pid, 1]),
      events_file: join(ctx.sentinel, 'precious.txt'),
    };
    return fx.write(ctx, '.sow/.runtime/supervisors/2026-01-01T00-00-00-000Z-legacy/ready.json', JSON.stringify(ready))
      ? `supervisors/ holds a ready.json naming pid ${ready.pid === 1 ? 1 : 'of the sentinel process'}`
      : null;
  },
  'agent-outputs'(rng, ctx) {
    // A real folder here is moved into git's folder by the first command (the workers' events are kept); a link stays
    // where it is.
    const rel = '.sow/.runtime/agent-outputs';
    const how = rng.pick(['link-sentinel', 'link-dangling', 'link-src', 'folder-with-link']);
    const ok = {
      'link-sentinel': () => fx.link(ctx, rel, rng.chance(0.5) ? ctx.sentinel : '../../../sentinel'),
      'link-dangling': () => fx.link(ctx, rel, join(ctx.sentinel, 'no-such-folder')),
      'link-src': () => fx.link(ctx, rel, '../../src'),
      'folder-with-link': () =>
        fx.link(ctx, `${rel}/010/2026-01-01T00-00-00-000Z-spawn.jsonl`, join(ctx.sentinel, 'precious.txt')),
    }[how]();
    return ok ? `agent-outputs: ${how}` : null;
  },
  backup(rng, ctx) {
    // The same: a real folder is moved into git's folder, a link stays.
    const rel = '.sow/.backup';
    const how = rng.pick(['link-sentinel', 'link-dangling', 'link-git', 'folder-with-links']);
    const ok = {
      'link-sentinel': () => fx.link(ctx, rel, rng.chance(0.5) ? ctx.sentinel : '../../sentinel'),
      'link-dangling': () => fx.link(ctx, rel, join(ctx.sentinel, 'no-such-folder')),
      'link-git': () => fx.link(ctx, rel, '../.git'),
      'folder-with-links': () =>
        fx.link(ctx, `${rel}/1/.gitignore`, join(ctx.sentinel, 'precious.txt')) &&
        fx.link(ctx, `${rel}/removed`, ctx.sentinel),
    }[how]();
    return ok ? `.sow/.backup: ${how}` : null;
  },
  'runtime-link'(rng, ctx) {
    const target = rng.pick([
      ctx.sentinel,
      '../../sentinel',
      join(ctx.sentinel, 'no-such-folder'),
      '../.git/sow',
      '../src',
      '.',
    ]);
    return fx.link(ctx, '.sow/.runtime', target) ? `.sow/.runtime -> ${target}` : null;
  },
  'tmp-and-trash'(rng, ctx) {
    const ok =
      fx.write(ctx, '.sow/.runtime/tmp/write-1.tmp', `# ${ctx.legacyToken}\n`) &&
      fx.link(ctx, '.sow/.runtime/tmp/write-2.tmp', join(ctx.sentinel, 'precious.txt')) &&
      fx.link(ctx, '.sow/.runtime/trash/old', ctx.sentinel);
    return ok ? 'tmp/ and trash/ with a stale file and links to the sentinel' : null;
  },
};

/**
 * Crafted files in git's folder (`.git/sow/`), for defence in depth: each differs from what sow
 * writes in something sow checks, so none may make it act outside or signal the sentinel process.
 */
const GIT_RUNTIME_CRAFTS = {
  journal(rng, ctx) {
    const staging = rng.chance(0.8)
      ? { dir: '.git/sow/tmp', prefix: 'tmp' }
      : { dir: '.sow/.tmp', prefix: '.sow/.tmp' };
    const removals = [
      '.sow/project',
      'runtime:agent-outputs',
      'runtime:owners',
      'runtime:../../sentinel',
      'runtime:',
      '.sow/knowledge',
      '.sow/worktrees/feat-x',
      'src',
      '.git',
      '../sentinel',
      ctx.sentinel,
      '.sow',
      '.',
      '',
      '.sow/refs',
    ];
    const body = { version: 3, ...stagedJournal(rng, ctx, { ...staging, name: 'crafted' }, removals) };
    const valid = rng.chance(0.9);
    return fx.write(ctx, '.git/sow/journal.json', journalText(body, valid))
      ? `journal.json (${valid ? 'valid checksum' : 'bad checksum'}, staged in ${staging.dir}): ${journalSteps(body)}`
      : null;
  },
  'odd-journal'(rng, ctx) {
    const rel = '.git/sow/journal.json';
    const kind = rng.pick(['5mb', 'deep', 'folder', 'link-to-sentinel', 'format-2']);
    const ok = {
      '5mb': () =>
        fx.write(
          ctx,
          rel,
          `{"version":3,"renames":[],"folders":[],"removals":[],"pad":"${'x'.repeat(5 * 1024 * 1024)}"}`,
        ),
      deep: () => fx.write(ctx, rel, `{"version": 3, "renames": ${deep(100_000, '[', ']')}}`),
      folder: () => fx.mkdir(ctx, `${rel}/inside`),
      'link-to-sentinel': () => fx.link(ctx, rel, join(ctx.sentinel, 'state.yaml')),
      'format-2': () =>
        fx.write(ctx, rel, journalText({ version: 2, renames: [], folders: [], removals: ['.sow/project'] }, true)),
    }[kind]();
    return ok ? `journal.json: ${kind}` : null;
  },
  lock(rng, ctx) {
    const rel = rng.chance(0.8) ? '.git/sow/lock' : '.git/sow/lock.takeover';
    const kind = rng.pick(LOCK_KINDS);
    return craftLock(rng, ctx, rel, kind, 'sow task set') ? `${rel.slice('.git/sow/'.length)}: ${kind}` : null;
  },
  'task-index'(rng, ctx) {
    const rel = '.git/sow/tasks.json';
    if (rng.chance(0.5)) {
      const v = rng.pick(TASK_INDEX_GARBAGE);
      return fx.write(ctx, rel, v) ? `tasks.json = ${truncate(v)}` : null;
    }
    // Entries sow would believe (their stamps match), with names a list must still print safely.
    const rows = taskIndexRows(
      ctx,
      rng.pick(['red \u001b[31mRED\u001b[0m', 'name\nFORGED line from an index', 'x'.repeat(100_000)]),
    );
    return fx.write(ctx, rel, JSON.stringify({ format: 5, tasks: rows }))
      ? `tasks.json: ${rows.length} entries whose stamps match, with odd names`
      : null;
  },
  owners(rng, ctx) {
    const p = ctx.proc;
    const truth = {
      pid: p.pid,
      pstart: p.pstart,
      boot: BOOT,
      pidns: PIDNS,
      host: HOST,
      pgrp: p.pid,
      task: '010',
      agent_id: 'implementer-7',
      nonce: 'd'.repeat(32),
    };
    const name = `${p.pid}-${p.pstart}.json`;
    const dir = '.git/sow/owners';
    const write = (record, file = name) => fx.write(ctx, `${dir}/${file}`, `${JSON.stringify(record)}\n`);
    // What differs from a record sow would write for the sentinel process as task 010's worker.
    const off = rng.pick([
      'pid-1',
      'pstart',
      'boot',
      'pidns',
      'host',
      'task',
      'worker',
      'no-nonce',
      'link',
      'folder-link',
      'oversize',
    ]);
    const ok = {
      'pid-1': () =>
        write({ ...truth, pid: 1, pgrp: 1, pstart: 0 }, '1-0.json') &&
        write({ ...truth, pid: 1, pgrp: 1, pstart: 1 }, '1-1.json'),
      pstart: () => write({ ...truth, pstart: p.pstart + 1 }),
      boot: () => write({ ...truth, boot: 'not-this-boot' }),
      pidns: () => write({ ...truth, pidns: 'pid:[4026500001]' }),
      host: () => write({ ...truth, host: 'elsewhere.invalid' }),
      task: () => write({ ...truth, task: '999' }),
      worker: () => write({ ...truth, agent_id: 'someone-else-1' }),
      'no-nonce': () => write({ ...truth, nonce: undefined }),
      link: () => fx.link(ctx, `${dir}/${name}`, join(ctx.sentinel, 'precious.txt')),
      'folder-link': () => fx.link(ctx, dir, ctx.sentinel),
      oversize: () => fx.write(ctx, `${dir}/${name}`, JSON.stringify({ ...truth, pad: 'x'.repeat(8192) })),
    }[off]();
    return ok ? `owners/: a record of the sentinel process, but ${off}` : null;
  },
  supervisors(rng, ctx) {
    const dir = '.git/sow/supervisors';
    const how = rng.pick(['ready-pid-1', 'ready-sentinel', 'ready-link', 'folder-link']);
    const ready = (pid) =>
      JSON.stringify({
        task: '010',
        agent_id: rng.pick(['implementer-7', 'red \u001b[31mRED', 'a\nFORGED line from a record']),
        pid,
        events_file: join(ctx.sentinel, 'precious.txt'),
      });
    const ok = {
      'ready-pid-1': () => fx.write(ctx, `${dir}/2026-01-01T00-00-00-000Z-a/ready.json`, ready(1)),
      'ready-sentinel': () => fx.write(ctx, `${dir}/2026-01-01T00-00-00-000Z-b/ready.json`, ready(ctx.proc.pid)),
      'ready-link': () =>
        fx.link(ctx, `${dir}/2026-01-01T00-00-00-000Z-c/ready.json`, join(ctx.sentinel, 'precious.txt')),
      'folder-link': () => fx.link(ctx, dir, ctx.sentinel),
    }[how]();
    return ok ? `supervisors/: ${how}` : null;
  },
  links(rng, ctx) {
    const part = rng.pick([
      'tmp',
      'trash',
      'agent-outputs',
      'agent-outputs/010',
      'owners',
      'supervisors',
      'backup',
      'backup/removed',
    ]);
    const target = rng.pick([ctx.sentinel, join(ctx.sentinel, 'no-such-folder'), '/']);
    return fx.link(ctx, `.git/sow/${part}`, target) ? `${part} -> ${target}` : null;
  },
};

/** Each mutation changes the tree and returns what it did (one line), or null when it found nothing to do. */
const MUTATIONS = [
  {
    name: 'link',
    weight: 7,
    apply(rng, ctx) {
      const existing = entries(ctx).filter((r) => r !== '.sow' || rng.chance(0.2));
      const rel = rng.chance(0.5) ? rng.pick(WELL_KNOWN) : rng.pick(existing.length ? existing : WELL_KNOWN);
      const t = linkTarget(rng, ctx, rel);
      if (!fx.link(ctx, rel, t.target)) return null;
      if (t.pair) fx.link(ctx, t.pair, rel.split('/').pop());
      return `${rel} -> ${t.target} (${t.kind})`;
    },
  },
  {
    name: 'yaml-value',
    weight: 6,
    apply(rng, ctx) {
      const files = yamlFiles(ctx);
      if (!files.length) return null;
      const rel = rng.pick(files);
      const r = replaceYamlValue(rng, ctx, fx.read(ctx, rel) ?? '', rng.chance(0.7) ? { keys: TARGET_KEYS } : {});
      if (!r || !fx.write(ctx, rel, r.text)) return null;
      return `${rel}: ${r.what}`;
    },
  },
  {
    name: 'artifact',
    weight: 4,
    apply(rng, ctx) {
      // An artifact whose path is hostile, added where a project keeps its inputs and outputs.
      const files = yamlFiles(ctx).filter((r) => r.startsWith('.sow/project/') && r.endsWith('state.yaml'));
      if (!files.length) return null;
      const rel = rng.pick(files);
      const text = fx.read(ctx, rel) ?? '';
      const lists = [...text.matchAll(/^(\s*)(inputs|outputs): ?(\[\])?$/gm)];
      if (!lists.length) return null;
      const m = rng.pick(lists);
      const ind = m[1];
      const path = JSON.stringify(hostileString(rng, ctx));
      const type = rng.pick([
        'reference',
        'modified',
        'task_list',
        'review',
        'work_unit_spec',
        'discovery',
        'evidence',
        'source',
      ]);
      const item =
        `${ind}  - type: ${type}\n${ind}    path: ${path}\n${ind}    created_at: ` +
        `"2026-01-01T00:00:00.000Z"\n${ind}    ` +
        `approved: ${rng.chance(0.5)}${type === 'review' ? `\n${ind}    metadata:\n${ind}      assessment: pass` : ''}`;
      const next = `${text.slice(0, m.index)}${ind}${m[2]}:\n${item}${text.slice(m.index + m[0].length)}`;
      if (!fx.write(ctx, rel, next)) return null;
      return `${rel}: ${m[2]} += ${type} at ${truncate(JSON.parse(path))}`;
    },
  },
  {
    name: 'odd-task-folder',
    weight: 2,
    apply(rng, ctx) {
      const tasks = taskFolders(ctx);
      const src = tasks.find((t) => t.endsWith('/010'));
      const name = rng.pick(ODD_NAMES);
      const rel = `${TASKS_DIR}/${name}`;
      const state = src ? fx.read(ctx, `${src}/state.yaml`) : SENTINEL_STATE('odd');
      if (state === undefined) return null;
      const text = rng.chance(0.5) ? state.replace(/^id: .*$/m, `id: ${JSON.stringify(name)}`) : state;
      if (!fx.write(ctx, `${rel}/state.yaml`, text)) return null;
      fx.write(ctx, `${rel}/log.md`, '# log\n');
      return `task folder ${truncate(name)} (${text === state ? 'a copy of 010' : 'its id the folder name'})`;
    },
  },
  {
    name: 'odd-file-names',
    weight: 2,
    apply(rng, ctx) {
      const dirs = entries(ctx, ['.sow'], { files: false }).filter((r) => !isLink(join(ctx.repo, r)));
      if (!dirs.length) return null;
      const dir = rng.pick(dirs);
      const names = rng.sample(ODD_NAMES, rng.range(1, 3)).map((n) => (rng.chance(0.5) ? `${n}.md` : n));
      const made = names.filter((n) => fx.write(ctx, `${dir}/${n}`, rng.chance(0.5) ? '' : SENTINEL_STATE('odd')));
      return made.length ? `${dir}/ files ${made.map((n) => truncate(n, 24)).join(', ')}` : null;
    },
  },
  {
    name: 'big-file',
    weight: 1,
    apply(rng, ctx) {
      const kind = rng.pick([
        'state-2mb',
        'state-900kb',
        'config-60mb',
        'integrations-60mb',
        'settings-60mb',
        'index-60mb',
        'log-20mb',
        'tasks-md-20mb',
        'journal-5mb',
        'lock-20mb',
        'description-20mb',
      ]);
      const task = taskFolders(ctx)[0] ?? `${TASKS_DIR}/010`;
      const MB = 1024 * 1024;
      const padState = (rel, bytes) => {
        const text = fx.read(ctx, rel);
        if (text === undefined) return false;
        return fx.write(
          ctx,
          rel,
          `${text.replace(/^metadata: \{\}$/m, '').trimEnd()}\n` +
            `${text.includes('\nmetadata: {}') ? 'metadata:\n' : ''}  ` +
            `pad: "${'x'.repeat(bytes)}"\n`,
        );
      };
      const done = {
        'state-2mb': () => padState(rng.pick(['.sow/project/state.yaml', `${task}/state.yaml`]), 2 * MB),
        'state-900kb': () => padState(`${task}/state.yaml`, 900 * 1024),
        'config-60mb': () => fx.write(ctx, '.sow/config.yaml', `checks: []\n${bigText(60 * MB)}`),
        'integrations-60mb': () => fx.write(ctx, '.sow/integrations.yaml', `files: []\n${bigText(60 * MB)}`),
        'settings-60mb': () => fx.write(ctx, '.claude/settings.json', `{"pad": "${'x'.repeat(60 * MB)}"}`),
        'index-60mb': () =>
          fx.write(ctx, '.sow/refs/index.json', `{"version": 1, "refs": [], "pad": "${'x'.repeat(60 * MB)}"}`),
        'log-20mb': () => fx.write(ctx, `${task}/log.md`, bigText(20 * MB, 'a log line a log line a log line\n')),
        'tasks-md-20mb': () => fx.write(ctx, '.sow/project/planning/tasks.md', bigText(20 * MB, '- a task\n')),
        'journal-5mb': () =>
          fx.write(
            ctx,
            '.sow/.runtime/journal.json',
            `{"version":3,"renames":[],"folders":[],"removals":[],"pad":"${'x'.repeat(5 * MB)}"}`,
          ),
        'lock-20mb': () => fx.write(ctx, '.sow/.runtime/lock', bigText(20 * MB)),
        'description-20mb': () =>
          fx.write(ctx, `${task}/description.md`, bigText(20 * MB, 'describe describe describe\n')),
      }[kind]();
      return done ? `big file: ${kind}` : null;
    },
  },
  {
    name: 'deep',
    weight: 1,
    apply(rng, ctx) {
      const n = 100_000;
      const where = rng.pick([
        'project-state',
        'task-state',
        'config',
        'integrations',
        'settings',
        'refs-index',
        'journal',
        'task-index',
        'lock',
      ]);
      const task = taskFolders(ctx)[0] ?? `${TASKS_DIR}/010`;
      const yamlDeep = rng.chance(0.5)
        ? `metadata: ${deep(n, '[', ']')}\n`
        : `metadata: ${deep(n, '{a: ', '}', '1')}\n`;
      const json = deep(n, '[', ']');
      const rel = {
        'project-state': '.sow/project/state.yaml',
        'task-state': `${task}/state.yaml`,
        config: '.sow/config.yaml',
        integrations: '.sow/integrations.yaml',
        settings: '.claude/settings.json',
        'refs-index': '.sow/refs/index.json',
        journal: '.sow/.runtime/journal.json',
        'task-index': '.sow/.runtime/tasks.json',
        lock: '.sow/.runtime/lock',
      }[where];
      const text = rel.endsWith('.yaml')
        ? yamlDeep
        : rel.endsWith('lock')
          ? json
          : `{"version": ${where === 'journal' ? 3 : 1}, "refs": ${json}, "renames": ${json}}`;
      return fx.write(ctx, rel, text) ? `deep: ${rel} nested ${n} levels` : null;
    },
  },
  {
    name: 'alias-bomb',
    weight: 1,
    apply(rng, ctx) {
      const files = yamlFiles(ctx);
      if (!files.length) return null;
      const rel = rng.pick(files);
      const text = rng.chance(0.5)
        ? aliasBomb()
        : `${(fx.read(ctx, rel) ?? '').replace(/^metadata: \{\}$/m, '')}\n` +
          `${aliasBomb().replace(/^/gm, '').replace(/^a:/m, 'bomb_a:')}`;
      return fx.write(ctx, rel, text) ? `alias bomb in ${rel}` : null;
    },
  },
  {
    name: 'journal',
    weight: 3,
    apply(rng, ctx) {
      // Where an older sow kept its journal: a clone carries it, whole, in either format. sow reads
      // none (its journal is in git's folder); one that did would put the legacy token in place.
      const format = rng.pick([2, 3]);
      const staging =
        format === 2
          ? { dir: '.sow/.runtime/tmp', prefix: '.sow/.runtime/tmp' }
          : rng.chance(0.5)
            ? { dir: '.sow/.tmp', prefix: '.sow/.tmp' }
            : { dir: '.sow/.runtime/tmp', prefix: 'tmp' };
      const removals = [
        '.sow/project',
        format === 2 ? '.sow/.runtime/agent-outputs' : 'runtime:agent-outputs',
        '.sow/knowledge',
        'src',
        '.git',
        '../sentinel',
        ctx.sentinel,
        '.sow',
        '.sow/.backup',
      ];
      const body = {
        version: format,
        ...stagedJournal(rng, ctx, { ...staging, name: 'legacy', token: ctx.legacyToken }, removals),
      };
      const valid = rng.chance(0.9);
      if (!fx.write(ctx, '.sow/.runtime/journal.json', journalText(body, valid))) return null;
      return (
        `.sow/.runtime/journal.json (format ${format}, ${valid ? 'valid checksum' : 'bad checksum'}, staged ` +
        `in ${staging.dir}): ${journalSteps(body)}`
      );
    },
  },
  {
    name: 'legacy-journal',
    weight: 1,
    apply(rng, ctx) {
      const writes = Array.from({ length: rng.range(1, 3) }, () => ({
        path: rng.pick([
          '.sow/project/state.yaml',
          '../sentinel/precious.txt',
          `${ctx.sentinel}/x`,
          '.git/config',
          '.sow/knowledge/a.md',
          'src/main.c',
        ]),
        text: rng.chance(0.5) ? SENTINEL_STATE('legacy') : 'x',
      }));
      const removals = rng.sample(['.sow/project', '.sow/knowledge', 'src', '../sentinel', '.git'], rng.range(0, 2));
      return fx.write(ctx, '.sow/.journal.json', JSON.stringify({ writes, removals }))
        ? `legacy .sow/.journal.json: writes ${writes.map((w) => w.path).join(', ')}; ` +
            `removals ${removals.join(', ') || 'none'}`
        : null;
    },
  },
  {
    name: 'records',
    weight: 3,
    apply(rng, ctx) {
      // Install records naming what sow never wrote, with the file's hash (it "matches"), a wrong one or none.
      const items = [];
      const n = rng.range(1, 3);
      for (let i = 0; i < n; i++) {
        let path = rng.pick([
          'src/main.c',
          '.git/config',
          '.git/HEAD',
          '../sentinel/precious.txt',
          `${ctx.sentinel}/precious.txt`,
          '.agents/evil/precious.txt',
          'AGENTS.md',
          '.sow/project/state.yaml',
          'README.md',
          '.agents/skills/sow/../../../src/main.c',
          '.claude/../src/main.c',
        ]);
        if (
          path.startsWith('.agents/evil/') &&
          !fx.link(ctx, '.agents/evil', rng.chance(0.5) ? ctx.sentinel : '../../sentinel')
        )
          path = 'src/main.c';
        const real = path.startsWith('/') ? path : resolve(ctx.repo, path);
        const hashKind = rng.pick(['current', 'wrong', 'none']);
        const hash =
          hashKind === 'current' && existsSync(real) && statSync(real).isFile()
            ? sha256(readFileSync(real))
            : hashKind === 'wrong'
              ? 'ab'.repeat(32)
              : undefined;
        const kind = rng.pick(['file', 'file', 'section', 'json']);
        const target = rng.pick(['codex', 'codex', 'claude', 'gemini']);
        items.push(
          `  - path: ${JSON.stringify(path)}\n    kind: ${kind}\n${hash ? `    sha256: "${hash}"\n` : ''}    ` +
            `created: true\n    targets:\n      - ${target}\n`,
        );
        if (path === 'src/main.c' && hash && hashKind === 'current')
          ctx.notes.push('a record names src/main.c with its current hash');
      }
      const text = fx.read(ctx, '.sow/integrations.yaml') ?? 'files:\n';
      const next = text.includes('files:\n')
        ? text.replace('files:\n', `files:\n${items.join('')}`)
        : `files:\n${items.join('')}`;
      return fx.write(ctx, '.sow/integrations.yaml', next)
        ? `integrations.yaml ` +
            `records: ` +
            items
              .map(
                (s) =>
                  s.split('\n')[0].replace('  - path: ', '') +
                  (s.includes('sha256') ? (s.includes('abab') ? ' (wrong hash)' : ' (hash)') : ' (no hash)'),
              )
              .join(', ')
        : null;
    },
  },
  {
    name: 'refs-index',
    weight: 2,
    apply(rng, ctx) {
      const file = rng.chance(0.7) ? '.sow/refs/index.json' : '.sow/refs/index.local.json';
      const refs = Array.from({ length: rng.range(1, 3) }, (_, i) => {
        const r = {
          link: rng.chance(0.7)
            ? `r${i}`
            : rng.pick(['../x', '.git', 'index.json', '..', 'a/b', '-rf', 'x'.repeat(70)]),
          source: rng.pick([
            ctx.sentinel,
            '../sentinel',
            '../../..',
            `file://${ctx.sentinel}`,
            pathToFileURL(ctx.repo).href,
            `${ctx.repo}/.git`,
            '-oProxyCommand=touch${IFS}$SOW_FUZZ_MARKER:x',
            '--upload-pack=touch${IFS}$SOW_FUZZ_MARKER',
            'ext::sh -c touch% $SOW_FUZZ_MARKER',
            '/dev/zero',
            '~/.ssh',
          ]),
          semantic: 'knowledge',
          tags: [],
        };
        if (rng.chance(0.4))
          r.branch = rng.pick(['--upload-pack=touch${IFS}$SOW_FUZZ_MARKER;git-upload-pack', '-c', '../../x', 'main']);
        if (rng.chance(0.4))
          r.path = rng.pick(['../../sentinel', '..', '/etc', '../../../../../../../../etc/passwd', 'a/../..']);
        return r;
      });
      return fx.write(ctx, file, JSON.stringify({ version: 1, refs }, null, 2))
        ? `${file}: ` +
            truncate(
              refs
                .map(
                  (r) => `${r.link} ← ${r.source}` + (r.branch ? ` @${r.branch}` : '') + (r.path ? ` :${r.path}` : ''),
                )
                .join('; '),
              240,
            )
        : null;
    },
  },
  {
    name: 'evil-ref',
    weight: 1,
    apply(rng, ctx) {
      // A ref whose source's default branch is an option (its clone is in sow's cache already).
      const text = fx.read(ctx, '.sow/refs/index.json');
      let index;
      try {
        index = JSON.parse(text ?? '');
      } catch {
        index = { version: 1, refs: [] };
      }
      if (!Array.isArray(index.refs)) index.refs = [];
      index.refs.push({ link: 'evil', source: pathToFileURL(ctx.evilRepo).href, semantic: 'knowledge', tags: [] });
      return fx.write(ctx, '.sow/refs/index.json', JSON.stringify(index, null, 2))
        ? 'refs index: a source whose default branch is --upload-pack=…'
        : null;
    },
  },
  {
    name: 'checks',
    weight: 2,
    apply(rng, ctx) {
      const run = rng.pick([
        `touch ${ctx.marker}`,
        'touch "$SOW_FUZZ_MARKER"',
        `echo pwned > ${ctx.marker}`,
        `sh -c 'touch "$SOW_FUZZ_MARKER"'`,
      ]);
      const when = rng.pick(['[task_complete]', '[finalize]', '[task_complete, finalize]', '[]']);
      const name = rng.chance(0.8) ? 'unit' : rng.pick(['-rf', '../x', 'a\nb']);
      return fx.write(
        ctx,
        '.sow/config.yaml',
        `checks:\n  - name: ${JSON.stringify(name)}\n    run: ${JSON.stringify(run)}\n    when: ${when}\n`,
      )
        ? `config.yaml check ${truncate(name)} runs ${truncate(run)} when ${when}`
        : null;
    },
  },
  {
    name: 'lock',
    weight: 2,
    apply(rng, ctx) {
      // Where an older sow kept its lock: a clone carries it. A held one names the legacy token as its
      // command, which sow says when it waits for a holder — if it read this file.
      const rel = rng.chance(0.8) ? '.sow/.runtime/lock' : '.sow/.runtime/lock.takeover';
      const kind = rng.pick(LOCK_KINDS);
      return craftLock(rng, ctx, rel, kind, `sow task set ${ctx.legacyToken}`) ? `${rel}: ${kind}` : null;
    },
  },
  {
    name: 'garbage',
    weight: 2,
    apply(rng, ctx) {
      const files = entries(ctx, ['.sow', '.claude', '.agents'], { dirs: false }).filter(
        (r) => !isLink(join(ctx.repo, r)),
      );
      if (!files.length) return null;
      const rel = rng.pick(files);
      const text = fx.read(ctx, rel) ?? '';
      const kind = rng.pick(['binary', 'invalid-utf8', 'empty', 'bom-crlf', 'half', 'tabs']);
      const data = {
        binary: Buffer.from(Array.from({ length: 512 }, () => rng.int(256))),
        'invalid-utf8': Buffer.concat([
          Buffer.from(text.slice(0, 40)),
          Buffer.from([0xc3, 0x28, 0xff, 0xfe]),
          Buffer.from(text.slice(40)),
        ]),
        empty: '',
        'bom-crlf': `\ufeff${text.replace(/\n/g, '\r\n')}`,
        half: text.slice(0, Math.floor(text.length / 2)),
        tabs: text.replace(/^ +/gm, '\t'),
      }[kind];
      return fx.write(ctx, rel, data) ? `garbage (${kind}) in ${rel}` : null;
    },
  },
  {
    name: 'remove',
    weight: 1,
    apply(rng, ctx) {
      const rel = rng.pick([
        '.sow/project/state.yaml',
        `${TASKS_DIR}/010/state.yaml`,
        '.sow/.version',
        '.sow/.gitignore',
        '.sow/project/log.md',
        `${TASKS_DIR}/010`,
        '.sow/knowledge',
        '.sow/config.yaml',
        '.sow/refs/.gitignore',
        '.sow/project/planning',
      ]);
      return fx.remove(ctx, rel) ? `removed ${rel}` : null;
    },
  },
  {
    name: 'settings',
    weight: 1,
    apply(rng, ctx) {
      const text = rng.pick([
        '{"hooks": {"SessionStart": "not a list"}}',
        '{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "touch $SOW_FUZZ_MARKER"}]}]}}',
        '{"__proto__": {"polluted": true}, "hooks": null}',
        '[]',
        'null',
        '{',
        '{"hooks": {"Stop": [1, 2, {"x": []}]}}',
      ]);
      return fx.write(ctx, '.claude/settings.json', text) ? `.claude/settings.json = ${truncate(text)}` : null;
    },
  },
  {
    name: 'worktrees',
    weight: 1,
    apply(rng, ctx) {
      const name = rng.chance(0.6) ? 'feat-x' : rng.pick(ODD_NAMES);
      const rel = `.sow/worktrees/${name}`;
      const how = rng.pick(['gitfile-sentinel', 'link-sentinel', 'gitfile-dotdot']);
      const ok =
        how === 'link-sentinel'
          ? fx.link(ctx, rel, ctx.sentinel)
          : fx.write(ctx, `${rel}/.git`, `gitdir: ${how === 'gitfile-sentinel' ? ctx.sentinel : '../../../..'}\n`);
      return ok ? `worktree ${truncate(name)}: ${how}` : null;
    },
  },
  {
    name: 'version',
    weight: 1,
    apply(rng, ctx) {
      const v = rng.pick(['999\n', '-1\n', '0\n', '1e308\n', 'x'.repeat(10000), '2\n3\n', '../../sentinel\n']);
      return fx.write(ctx, '.sow/.version', v) ? `.sow/.version = ${truncate(v)}` : null;
    },
  },
  {
    name: 'task-index',
    weight: 1,
    apply(rng, ctx) {
      // Where an older sow kept its task index: entries whose stamps match the task files as they
      // are now, and whose names are the legacy token — what a list would show, if it read them.
      const rel = '.sow/.runtime/tasks.json';
      if (rng.chance(0.3)) {
        const v = rng.pick(TASK_INDEX_GARBAGE);
        return fx.write(ctx, rel, v) ? `${rel} = ${truncate(v)}` : null;
      }
      const rows = taskIndexRows(ctx, ctx.legacyToken);
      return fx.write(ctx, rel, JSON.stringify({ format: 5, tasks: rows }))
        ? `${rel}: ${rows.length} entries whose stamps match, named by the legacy token`
        : null;
    },
  },
  {
    name: 'owner',
    weight: 3,
    apply(rng, ctx) {
      // A task's committed owner: a worker sow never started. `sow agent stop` must signal none of them.
      const made = [];
      for (const id of ['010', ...(rng.chance(0.3) ? ['020'] : [])]) {
        const p = ctx.proc;
        const who = rng.weighted([
          { v: 'sentinel', weight: 6 },
          { v: 1, weight: 2 },
          { v: 0, weight: 1 },
          { v: -1, weight: 1 },
          { v: 4_194_305, weight: 1 },
          { v: 2 ** 53, weight: 1 },
        ]).v;
        const pid = who === 'sentinel' ? p.pid : who;
        const host = rng.chance(0.7) ? HOST : rng.pick(['elsewhere.invalid', '', HOST.toUpperCase(), `${HOST}.`]);
        const boot = rng.chance(0.75) ? BOOT : rng.pick(['not-this-boot', undefined]);
        const pidns = rng.chance(0.75) ? PIDNS : rng.pick(['pid:[4026500001]', undefined]);
        const pstart = who === 'sentinel' && rng.chance(0.75) ? p.pstart : rng.pick([1, undefined, p.pstart + 1]);
        const by = rng.pick(['implementer-7', 'implementer-1', '-rf']);
        const kind = rng.chance(0.9) ? 'worker' : 'claim';
        if (!setOwner(ctx, id, { kind, by, pid, host, boot, pstart, pidns, since: '2026-11-26T00:00:00.000Z' }))
          continue;
        const said = [
          host === HOST ? 'this host' : `host ${JSON.stringify(host)}`,
          boot === BOOT ? 'this boot' : 'another boot',
          pidns === PIDNS ? 'this pid namespace' : 'another pid namespace',
          who === 'sentinel' && pstart === p.pstart ? 'its start time' : 'another start time',
          ...(kind === 'claim' ? ['a claim'] : []),
        ];
        let what =
          `task ${id} owned by ${who === 'sentinel' ? 'the sentinel process' : `pid ${pid}`} ` + `(${said.join(', ')})`;
        if (pid > 1 && rng.chance(0.4)) {
          // The record the owning sow would write, committed where an older sow kept it: it proves nothing.
          const record = { pid, pstart, boot, pidns, host, pgrp: pid, task: id, agent_id: by, nonce: 'f'.repeat(32) };
          if (fx.write(ctx, `.sow/.runtime/owners/${pid}-${pstart ?? 0}.json`, `${JSON.stringify(record)}\n`))
            what += ', its record committed in .sow/.runtime/owners/';
        }
        made.push(what);
      }
      return made.length ? made.join('; ') : null;
    },
  },
  {
    name: 'legacy-runtime',
    weight: 3,
    apply(rng, ctx) {
      // What else a clone carries where an older sow kept its runtime files and backups.
      const kinds = rng.sample(Object.keys(LEGACY_CRAFTS), rng.range(1, 3));
      const done = kinds.map((k) => LEGACY_CRAFTS[k](rng, ctx)).filter(Boolean);
      return done.length ? `legacy runtime: ${done.join('; ')}` : null;
    },
  },
  {
    name: 'git-runtime',
    weight: 2,
    apply(rng, ctx) {
      // Defence in depth: crafted files in git's folder, where no clone can put them (a worker that
      // runs commands of its choosing, or a bug, could). None is what sow would have written.
      const kinds = rng.sample(Object.keys(GIT_RUNTIME_CRAFTS), rng.range(1, 3));
      const done = kinds.map((k) => GIT_RUNTIME_CRAFTS[k](rng, ctx)).filter(Boolean);
      return done.length ? `git's runtime folder: ${done.join('; ')}` : null;
    },
  },
];

function bootId() {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return 'unknown';
  }
}

function pidNamespace() {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return 'unknown';
  }
}

const MUTATION_BY_NAME = new Map(MUTATIONS.map((m) => [m.name, m]));

// ---------------------------------------------------------------------------------------------
// Commands

const READS = [
  ['status'],
  ['project', 'status', '--json'],
  ['project', 'continue'],
  ['project', 'history'],
  ['task', 'list'],
  ['task', 'get', '--id', '010'],
  ['task', 'next'],
  ['advance', '--list'],
  ['advance', '--dry-run'],
  ['phase', 'get', 'status'],
  ['phase', 'get', '--phase', 'implementation', 'tasks_approved'],
  ['output', 'list'],
  ['task', 'output', 'list', '--id', '010'],
  ['refs', 'list'],
  ['refs', 'status'],
  ['check', 'list'],
  ['doctor'],
  ['graph', 'lifecycle'],
  ['graph', 'tasks'],
  ['iter', 'status'],
  ['iter', 'next'],
  ['config', 'show'],
  ['config', 'validate'],
  ['worktree', 'list'],
  ['agent', 'ps'],
];

/**
 * The commands of a run: every read in a shuffled order (half with --json), MCP, a stop of task 010's worker, then
 * the writes that run on their own.
 */
function commandPlan(rng) {
  const reads = rng
    .shuffle(READS)
    .map((args) => ({ kind: 'cli', args: args.includes('--json') || rng.chance(0.5) ? args : [...args, '--json'] }));
  reads.splice(rng.int(reads.length + 1), 0, { kind: 'mcp', args: ['mcp'] });
  return [
    ...reads,
    // What the page's Stop runs too: it signals a task's worker only with proof that sow started it.
    { kind: 'cli', args: ['agent', 'stop', '010'] },
    { kind: 'cli', args: ['agent', 'stop', '010', '--json'] },
    // Claude Code's Stop hook, as it runs in a worker sow spawned on task 010.
    {
      kind: 'cli',
      args: ['hook', 'stop'],
      input: '{"session_id":"fuzz","stop_hook_active":false}',
      env: { SOW_AGENT_ID: 'implementer-1', SOW_TASK_ID: '010' },
    },
    { kind: 'cli', args: ['task', 'set', '--id', '010', 'status', 'completed'] },
    { kind: 'cli', args: ['uninstall', 'codex'] },
  ];
}

const label = (cmd) => `sow ${cmd.args.join(' ')}`;

/**
 * `sow mcp` as a client uses it: initialize; once answered, the initialized notification and its
 * status tool; once answered, its continue tool; once answered, stdin is closed.
 */
async function runMcp(bin, cwd, env) {
  const send = (child, m) => child.stdin.write(`${JSON.stringify(m)}\n`);
  const replies = new Map();
  let buffer = '';
  const talk = {
    start(child) {
      send(child, {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
      });
    },
    onStdout(child, chunk) {
      buffer += chunk.toString('utf8');
      let nl;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        let m;
        try {
          m = JSON.parse(line);
        } catch {
          continue;
        }
        if (!m || m.id === undefined || replies.has(m.id)) continue;
        replies.set(m.id, m);
        // One request at a time, as a client waiting for each answer would send them.
        if (m.id === 1) {
          send(child, { jsonrpc: '2.0', method: 'notifications/initialized' });
          send(child, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'status', arguments: {} } });
        } else if (m.id === 2) {
          send(child, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'continue', arguments: {} } });
        } else if (m.id === 3) child.stdin.end();
      }
    },
  };
  const r = await run(process.execPath, [bin, 'mcp'], { cwd, env, talk });
  return { ...r, replies };
}

// ---------------------------------------------------------------------------------------------
// Invariants

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
const STACK = /\n\s+at \S/;

/**
 * The kinds of finding, in four families, most serious first: what a finding is classed by
 * (with the mutation that causes it), one headline per family and command. The rule family is
 * what sow decided wrongly about a worker's command (the ACP corpus), apart from what the
 * command then did (the world).
 */
const WORLD = 'world';
const RULE = 'rule';
const CRASH = 'crash';
const DISPLAY = 'display';
const problem = (family, kind, text = kind) => ({ family, kind, text });

/** What broke in one command's result (output and exit). */
function outputProblems(cmd, r, ctx) {
  const problems = [];
  if (r.stdout.includes(ctx.token) || r.stderr.includes(ctx.token))
    problems.push(
      problem(
        WORLD,
        'printed a file from outside the repository',
        'printed the content of a file outside the repository (the sentinel token)',
      ),
    );
  if (r.stdout.includes(ctx.legacyToken) || r.stderr.includes(ctx.legacyToken))
    problems.push(
      problem(
        WORLD,
        'used a runtime file a clone carries',
        'printed what a file in .sow/.runtime or .sow/.backup holds (the legacy token)',
      ),
    );
  if (r.timedOut) problems.push(problem(CRASH, 'hang', `hang: no exit within ${COMMAND_TIMEOUT_MS / 1000} s (killed)`));
  else if (r.signal) problems.push(problem(CRASH, 'killed by a signal', `killed by ${r.signal}`));
  else if (r.code === 70) problems.push(problem(CRASH, 'exit 70'));
  else if (cmd.kind === 'mcp' ? r.code !== 0 : !SOW_EXIT_CODES.has(r.code))
    problems.push(problem(CRASH, 'an exit code sow does not have', `exit ${r.code}`));
  if (/internal error/i.test(r.stderr) || /internal error|"code":"INTERNAL"/i.test(r.stdout))
    problems.push(problem(CRASH, 'internal error', 'says "internal error"'));
  if (STACK.test(r.stderr) || STACK.test(r.stdout)) problems.push(problem(CRASH, 'stack trace'));
  if (cmd.kind === 'mcp') {
    if (!r.timedOut)
      for (const id of [1, 2, 3])
        if (!r.replies.has(id))
          problems.push(problem(CRASH, 'mcp: a request without a reply', `mcp: no reply to request ${id}`));
  } else if (cmd.args.includes('--json')) {
    if (!r.timedOut && !r.signal) {
      let doc;
      try {
        doc = JSON.parse(r.stdout);
      } catch {
        doc = undefined;
      }
      if (!doc || typeof doc.ok !== 'boolean' || r.stdout.trim().includes('\n'))
        problems.push(problem(CRASH, '--json: stdout is not one JSON document'));
    }
  } else {
    const raw = `${r.stdout}${r.stderr}`;
    const c = raw.match(CONTROL);
    if (c)
      problems.push(
        problem(
          DISPLAY,
          'raw control character in human output',
          `raw control character ${JSON.stringify(c[0])} in human output`,
        ),
      );
    if (/^FORGED/m.test(raw)) problems.push(problem(DISPLAY, 'a value forged a line of human output'));
  }
  return problems;
}

/** What changed where nothing may change: the sentinel, beside the repository, .git, src/, the marker. */
function worldProblems(ctx) {
  const problems = [];
  if (existsSync(ctx.marker)) {
    problems.push(problem(WORLD, 'a hostile command ran', 'a hostile command ran (the marker exists)'));
    rmSync(ctx.marker, { recursive: true, force: true });
  }
  const now = manifest(ctx.sentinel);
  const diff = diffManifest(ctx.sentinelManifest, now);
  if (diff.length)
    problems.push(
      problem(
        WORLD,
        'changed a folder outside the repository',
        `outside the repository: ${diff.slice(0, 4).join('; ')}${diff.length > 4 ? ` (+${diff.length - 4})` : ''}`,
      ),
    );
  ctx.sentinelManifest = now;
  const beside = readdirSync(ctx.runDir).sort().join(',');
  if (beside !== ctx.beside) {
    problems.push(
      problem(WORLD, 'wrote beside the repository', `beside the repository: [${ctx.beside}] became [${beside}]`),
    );
    ctx.beside = beside;
  }
  const guarded = guardedManifest(ctx);
  const g = diffManifest(ctx.guardedManifest, guarded);
  if (g.length)
    problems.push(
      problem(
        WORLD,
        "changed the repository's own files (src/, README.md, .git/)",
        `the repository's own ` +
          `files: ${g.slice(0, 4).join('; ')}${ctx.notes.length ? ` [${ctx.notes.join('; ')}]` : ''}`,
      ),
    );
  ctx.guardedManifest = guarded;
  const gone = sentinelProcessGone(ctx.proc);
  if (gone) {
    problems.push(problem(WORLD, 'signalled the sentinel process', gone));
    // A new one, so that the next command is judged on its own.
    stopSentinelProcess(ctx.proc);
    ctx.proc = startSentinelProcess();
  }
  const legacyNow = legacyManifest(ctx);
  const changed = legacyChanges(ctx.legacyManifest, legacyNow);
  if (changed.length)
    problems.push(
      problem(
        WORLD,
        'acted on what a clone carries in .sow/.runtime or .sow/.backup',
        `the legacy runtime ` +
          `folders: ${changed.slice(0, 4).join('; ')}${changed.length > 4 ? ` (+${changed.length - 4})` : ''}`,
      ),
    );
  ctx.legacyManifest = legacyNow;
  const held = tokenFiles(ctx);
  const freshLegacy = held.legacy.filter((f) => !ctx.legacyLeaks.has(f));
  if (freshLegacy.length)
    problems.push(
      problem(
        WORLD,
        'used a runtime file a clone carries',
        `what a file in .sow/.runtime or .sow/.backup holds (the legacy token) was copied to ${freshLegacy
          .map((f) => relative(ctx.runDir, f))
          .slice(0, 3)
          .join(', ')}`,
      ),
    );
  for (const f of freshLegacy) ctx.legacyLeaks.add(f);
  const fresh = held.sentinel.filter((f) => !ctx.leaks.has(f));
  if (fresh.length)
    problems.push(
      problem(
        WORLD,
        'copied a file from outside the repository in',
        `the sentinel's content was copied to ${fresh
          .map((f) => relative(ctx.runDir, f))
          .slice(0, 3)
          .join(', ')}`,
      ),
    );
  for (const f of fresh) ctx.leaks.add(f);
  return problems;
}

/** The first problem of each family: what a finding is classed by. */
function headlines(problems) {
  const seen = new Set();
  return problems.filter((p) => !seen.has(p.family) && seen.add(p.family));
}

/** The repository's own files outside sow's folders, which no command here may change. */
const GUARDED = ['src', 'README.md', '.git/config', '.git/HEAD', '.git/hooks'];

function guardedManifest(ctx) {
  const out = new Map();
  for (const rel of GUARDED)
    for (const [k, v] of manifest(join(ctx.repo, rel))) out.set(`${rel}${k ? `/${k}` : ''}`, v);
  return out;
}

// ---------------------------------------------------------------------------------------------
// A run

const BASE_NAMES = ['executing', 'review', 'iterative', 'breakdown', 'empty'];

/** Makes the temp folder of a run: the repository (a copy of a base), the sentinel, a home. */
function prepareRun(world, dir, baseName) {
  mkdirSync(dir, { recursive: true });
  const repo = join(dir, 'repo');
  cpSync(world.bases[baseName], repo, { recursive: true, verbatimSymlinks: true });
  const home = join(dir, 'home');
  cpSync(world.homeTemplate, home, { recursive: true, verbatimSymlinks: true });
  makeHome(home);
  const sentinel = join(dir, 'sentinel');
  const token = `SENTINEL-${sha256(dir).slice(0, 16)}`;
  makeSentinel(sentinel, token);
  const ctx = {
    runDir: dir,
    repo,
    home,
    sentinel,
    token,
    // What the crafted runtime files a clone carries hold: sow reads none of them, so it shows nowhere else.
    legacyToken: `LEGACY-${sha256(`legacy\0${dir}`).slice(0, 16)}`,
    marker: join(dir, 'pwned'),
    evilRepo: world.evilRepo,
    proc: startSentinelProcess(),
    decoys: 0,
    notes: [],
    leaks: new Set(),
    legacyLeaks: new Set(),
  };
  return ctx;
}

/** Ends what a run started (its sentinel process); its folder is removed by the caller. */
function finishRun(ctx) {
  stopSentinelProcess(ctx.proc);
}

/** Takes the baselines the invariants compare against (after the mutations). */
function settle(ctx) {
  ctx.sentinelManifest = manifest(ctx.sentinel);
  ctx.beside = readdirSync(ctx.runDir).sort().join(',');
  ctx.guardedManifest = guardedManifest(ctx);
  ctx.legacyManifest = legacyManifest(ctx);
  const held = tokenFiles(ctx);
  for (const f of held.sentinel) ctx.leaks.add(f);
  for (const f of held.legacy) ctx.legacyLeaks.add(f);
}

function planRun(seed, index, mutations = MUTATIONS) {
  const rng = new Rng(seed, index, 'run');
  const baseName = rng.pick(BASE_NAMES);
  const count = rng.range(1, 5);
  // Links last, so other mutations still find the files they change.
  const picks = Array.from({ length: count }, () => rng.weighted(mutations).name).sort(
    (a, b) => (a === 'link') - (b === 'link'),
  );
  return { baseName, picks, commands: commandPlan(new Rng(seed, index, 'commands')) };
}

/** Applies the run's mutations (or only those whose numbers are in `keep`). */
function applyMutations(ctx, seed, index, picks, keep) {
  const applied = [];
  picks.forEach((name, j) => {
    if (keep !== undefined && !keep.includes(j)) return;
    let what;
    try {
      what = MUTATION_BY_NAME.get(name).apply(new Rng(seed, index, 'mutation', j), ctx);
    } catch (err) {
      // A path the tree does not allow (a file where a folder would be): the mutation stopped,
      // perhaps part way, and says so (what it changed stays).
      if (!['ENOTDIR', 'EEXIST', 'ENOENT', 'ENAMETOOLONG', 'ELOOP', 'EISDIR'].includes(err.code)) throw err;
      what = `${name}: stopped part way (${err.code})`;
    }
    if (what) applied.push({ j, name, what });
  });
  return applied;
}

async function runCommand(bin, ctx, cmd) {
  const env = { ...runEnv(ctx.home, ctx.marker), ...cmd.env };
  const t0 = Date.now();
  const r =
    cmd.kind === 'mcp'
      ? await runMcp(bin, ctx.repo, env)
      : await run(process.execPath, [bin, ...cmd.args], { cwd: ctx.repo, env, input: cmd.input ?? '' });
  if (process.env.FUZZ_TRACE) process.stderr.write(`trace: ${Date.now() - t0} ms exit ${r.code} ${label(cmd)}\n`);
  const problems = [...worldProblems(ctx), ...outputProblems(cmd, r, ctx)];
  return { problems, excerpt: excerpt(cmd, r) };
}

/** The first lines of what the command said (for sow mcp: the error of a reply, else stderr). */
function excerpt(cmd, r) {
  if (cmd.kind === 'mcp') {
    const said = (reply) => (reply.error ? JSON.stringify(reply.error) : (reply.result?.content?.[0]?.text ?? ''));
    const failed = [...r.replies.values()].filter((reply) => reply.error || reply.result?.isError);
    const worst = failed.find((reply) => /INTERNAL|internal error/.test(said(reply))) ?? failed[0];
    if (worst) return firstLines(said(worst), 1);
  }
  return firstLines(r.stderr || r.stdout);
}

const firstLines = (text, n = 3) =>
  text
    .split('\n')
    .filter((l) => l.trim())
    .slice(0, n)
    .map((l) => (l.length > 200 ? `${l.slice(0, 200)}…` : l))
    .join(' | ');

async function fuzzRun(opts, world, index, report) {
  const { baseName, picks, commands } = planRun(opts.seed, index, opts.mutations);
  const dir = join(world.root, `run-${index}`);
  const ctx = prepareRun(world, dir, baseName);
  const applied = applyMutations(ctx, opts.seed, index, picks, opts.alone);
  settle(ctx);
  if (opts.verbose)
    opts.out(`run ${index} (${baseName}): ${applied.map((m) => oneLine(m.what)).join(' ; ') || 'no mutation applied'}`);
  for (const name of picks) opts.stats.picked[name] = (opts.stats.picked[name] ?? 0) + 1;
  for (const m of applied) opts.stats.applied[m.name] = (opts.stats.applied[m.name] ?? 0) + 1;
  return runCommands(opts, ctx, { run: index, base: baseName, mutations: applied }, commands, report);
}

/** The control: a base exactly as made, every command; a finding here is a bug of sow or of this harness. */
async function controlRun(opts, world, baseName, report) {
  const ctx = prepareRun(world, join(world.root, `control-${baseName}`), baseName);
  settle(ctx);
  return runCommands(
    opts,
    ctx,
    { run: `control-${baseName}`, base: baseName, mutations: [] },
    commandPlan(new Rng(opts.seed, baseName, 'control')),
    report,
  );
}

async function runCommands(opts, ctx, about, commands, report) {
  const findings = [];
  try {
    for (const cmd of commands) {
      const { problems, excerpt: said } = await runCommand(opts.bin, ctx, cmd);
      if (!problems.length) continue;
      const f = { seed: opts.seed, ...about, command: label(cmd), cmd, problems, excerpt: said };
      findings.push(f);
      report(f);
    }
  } finally {
    finishRun(ctx);
  }
  const keepIt = opts.keep && findings.length > 0;
  if (!keepIt) rmSync(ctx.runDir, { recursive: true, force: true });
  return { commands: commands.length, findings, kept: keepIt ? ctx.runDir : undefined };
}

/**
 * What causes `kind` of a finding: each mutation of its run alone on a fresh tree, the command run again; else the
 * ones it needs, together.
 */
async function causesOf(opts, world, f, kind) {
  const { picks } = planRun(opts.seed, f.run, opts.mutations);
  const attempt = async (keep) => {
    const ctx = prepareRun(
      world,
      join(world.root, `min-${f.run}-${keep.join('-')}-${process.hrtime.bigint()}`),
      f.base,
    );
    const applied = applyMutations(ctx, opts.seed, f.run, picks, keep);
    settle(ctx);
    const again = await runCommand(opts.bin, ctx, f.cmd);
    finishRun(ctx);
    rmSync(ctx.runDir, { recursive: true, force: true });
    return again.problems.some((p) => p.kind === kind)
      ? {
          names: applied.map((m) => m.name),
          j: keep,
          what: applied.map((m) => m.what).join(' + '),
          excerpt: again.excerpt,
        }
      : undefined;
  };
  const causes = [];
  for (const m of f.mutations) {
    const alone = await attempt([m.j]);
    if (alone) causes.push(alone);
  }
  if (causes.length || f.mutations.length < 2) return causes;
  // None alone: the ones it cannot do without, together.
  const all = f.mutations.map((m) => m.j);
  const needed = [];
  for (const j of all) if (!(await attempt(all.filter((x) => x !== j)))) needed.push(j);
  const together = needed.length > 1 ? await attempt(needed) : undefined;
  return together ? [together] : [];
}

/**
 * Classes the findings by what broke and the mutation that causes it alone (or the mutations that
 * cause it together). A finding whose run holds mutations already known to cause this kind on
 * this command is put with them; otherwise (at most three times per kind and command) its
 * mutations are replayed: each alone, then, if none does it alone, all but one in turn.
 */
async function classify(opts, world, findings) {
  const known = new Map();
  const tries = new Map();
  const classes = new Map();
  const normal = (command) => command.replace(/ --json$/, '');
  for (const f of findings) {
    for (const h of headlines(f.problems)) {
      const key = `${h.kind}\0${normal(f.command)}`;
      const names = new Set(f.mutations.map((m) => m.name));
      let cause = [...(known.get(key) ?? [])].find((c) => c.names.every((n) => names.has(n)));
      if (!cause && f.mutations.length && opts.minimize && (tries.get(key) ?? 0) < 3) {
        tries.set(key, (tries.get(key) ?? 0) + 1);
        const found = await causesOf(opts, world, f, h.kind);
        if (found.length) {
          if (!known.has(key)) known.set(key, []);
          known.get(key).push(...found);
          cause = found[0];
        }
      }
      const by = f.corpus
        ? `the ${f.corpus === 'acp' ? 'ACP' : 'page'} corpus`
        : !f.mutations.length
          ? 'no mutation (the base tree)'
          : cause
            ? cause.names.join(' + ')
            : opts.minimize
              ? `not found (${[...names].join(', ')})`
              : [...names].join(', ');
      const ck = `${h.kind} ← ${by}`;
      if (!classes.has(ck)) classes.set(ck, { kind: h.kind, by, items: [] });
      classes.get(ck).items.push({ f, h, cause });
    }
  }
  return [...classes.values()].sort((a, b) => b.items.length - a.items.length);
}

// ---------------------------------------------------------------------------------------------
// The ACP corpus: the commands a worker asks to run, judged by sow's real decision, and what it
// allows run in a sandbox to see what they do

const FAKE_ACP_AGENT = resolve(HERE, '..', 'test', 'fakes', 'fake-acp-agent.mjs');
/** How many commands an ACP run asks about, the fixed ones and the checks included. */
const ACP_ASKS = 150;

/** The checks a person might declare: none is plain sow but for one, each allowed only as written. */
const CHECK_POOL = [
  'npm test -- --grep "a b"',
  'make check && echo done',
  'FOO=1 ./scripts/check.sh "$HOME"',
  'sow status --json | head -1',
  'sow task list; true',
  'cargo test --all',
  '  pytest -q tests/  ',
  "sh -c 'exit 0'",
  'go vet ./...',
  'echo "$(date)" > /dev/null',
  'sow task list',
  "npm run lint -- 'src/**/*.ts'",
];

/** A check declared but not allowed (committed after the person allowed the others): it must be refused. */
const withheldCheck = (ctx) => [
  `/usr/bin/touch ${ctx.marker}`,
  'sow status; /usr/bin/touch "$SOW_FUZZ_MARKER"',
  `sow status && /usr/bin/touch ${ctx.marker}`,
];

/**
 * A shell Codex's `[shell, "-lc", script]` may name for the script to be what runs: sh, bash or dash, by name or at
 * a system place.
 */
const SYSTEM_SHELL = /^(?:(?:\/usr(?:\/local)?)?\/bin\/|\/opt\/homebrew\/bin\/)?(?:sh|bash|dash)$/;

/** Where a path a command names lands: inside the repository or not (`..` and links as written, no link followed). */
const insideRepo = (ctx, p) => {
  const abs = resolve(ctx.repo, p);
  return abs === ctx.repo || abs.startsWith(`${ctx.repo}${sep}`);
};

const trimBlanks = (s) => s.replace(/^[ \t\n]+|[ \t\n]+$/g, '');

/** Whether an ask is check `c` as written (blanks around it are nothing to the shell), or, as an argv, its words. */
function isCheck(c, a) {
  if (!a.argv) return trimBlanks(c.run) === trimBlanks(a.script);
  const p = plainReading(c.run);
  return p.plain && JSON.stringify(p.words) === JSON.stringify(a.argv);
}

/**
 * A plain reading of a command line, written apart from sow's own: the words a POSIX shell would
 * pass to the program, or why it would do more than remove quotes. Only quotes, backslashes,
 * spaces and tabs are read; any other character the shell acts on (an operator, `$`, a backquote,
 * a glob, a brace, `~`, a `#` that begins a word, a newline outside quotes, a leading assignment
 * or `!`) makes it not plain, and so does a control character, a Unicode space or an invisible
 * character (the shell does not split on them, a person does not see them). Blanks around it are
 * nothing to the shell.
 */
export function plainReading(command) {
  const not = (why) => ({ plain: false, why });
  const odd = (c) => c !== '\t' && c !== '\n' && c !== ' ' && /[\p{Cc}\p{Cf}\p{Z}\p{Cs}]/u.test(c);
  // `#` begins a comment only where a word begins; `!` is a word of the grammar only first.
  const literal = (c) => /[A-Za-z0-9_\-.,/:+@%^=!#\]]/.test(c) || (c.codePointAt(0) > 0x7f && !odd(c));
  const s = trimBlanks(command);
  const words = [];
  let word = null;
  let raw = '';
  const end = () => {
    if (word !== null) words.push({ value: word, raw });
    word = null;
    raw = '';
  };
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === ' ' || c === '\t') {
      end();
      continue;
    }
    if (odd(c)) return not(`U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
    const from = i;
    if (c === "'") {
      const close = s.indexOf("'", i + 1);
      if (close < 0) return not('an unclosed quote');
      const part = s.slice(i + 1, close);
      const bad = [...part].find(odd);
      if (bad) return not(`U+${bad.codePointAt(0).toString(16).toUpperCase()} in quotes`);
      word = (word ?? '') + part;
      i = close;
    } else if (c === '"') {
      let part = '';
      let j = i + 1;
      for (; ; j++) {
        const d = s[j];
        if (d === undefined) return not('an unclosed quote');
        if (d === '"') break;
        if (d === '$' || d === '`') return not(`${d} in double quotes`);
        if (odd(d)) return not(`U+${d.codePointAt(0).toString(16).toUpperCase()} in quotes`);
        if (d === '\\') {
          const e = s[j + 1];
          if (e === undefined) return not('an unclosed quote');
          if (e === '\n') return not('a line continuation');
          if ('$`"\\'.includes(e)) {
            part += e;
            j++;
            continue;
          }
        }
        part += d;
      }
      word = (word ?? '') + part;
      i = j;
    } else if (c === '\\') {
      const e = s[i + 1];
      if (e === undefined) return not('a backslash at the end');
      if (e === '\n') return not('a line continuation');
      if (odd(e)) return not(`U+${e.codePointAt(0).toString(16).toUpperCase()} after a backslash`);
      word = (word ?? '') + e;
      i++;
    } else if (c === '#' && word === null) return not('a comment');
    else if (c === '!' && word === null && !words.length) return not('a leading !');
    else if (literal(c)) word = (word ?? '') + c;
    else return not(`${JSON.stringify(c)}, which the shell acts on`);
    raw += s.slice(from, i + 1);
  }
  end();
  if (!words.length) return not('no command');
  if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0].raw)) return not('an assignment before the command');
  return { plain: true, words: words.map((w) => w.value), raw: words.map((w) => w.raw) };
}

/** Pieces of the tricky alphabet the generated commands are made of. */
const ACP_PIECES = (ctx) => [
  'sow',
  's\\ow',
  "'sow'",
  '"sow"',
  'so"w"',
  'status',
  'task',
  'list',
  '--json',
  '-c',
  'exec',
  'env',
  'IFS',
  'IFS=x',
  '${IFS}',
  '$IFS',
  '$',
  '$(',
  ')',
  '(',
  '`',
  ';',
  '|',
  '&',
  '&&',
  '<',
  '>',
  '>>',
  '#',
  '~',
  '*',
  '?',
  '[',
  ']',
  '{',
  '}',
  '=',
  '\n',
  '\\',
  '\\\n',
  '\t',
  '\v',
  '\f',
  '\r',
  '\u00a0',
  '\u3000',
  '\ufeff',
  '\u200b',
  '../',
  '../../',
  '/bin/sh',
  '/usr/bin/touch',
  '"',
  "'",
  ' ',
  '"a b"',
  "'c d'",
  'e\\ f',
  '!',
  '%',
  '^',
  '@',
  ':',
  ',',
  '+',
  'x=1',
  '-',
  'ü',
  ctx.marker,
  '"$SOW_FUZZ_MARKER"',
];

/** Words that are plain in any quoting, to build commands sow should allow. */
const PLAIN_BITS = [
  'status',
  'task',
  'list',
  '--json',
  '--id',
  '010',
  'a b',
  "it's",
  'x"y',
  'back\\slash',
  '$HOME',
  '`id`',
  ';',
  '|',
  '*',
  '~',
  '#x',
  'a\tb',
  'ü',
  '--',
  '-c',
  '/bin/sh',
  '../x',
  '',
];

/** A word written so that the shell reads it as `w`: bare when it can be, else quoted or escaped (chosen by `rng`). */
function quoteWord(rng, w) {
  const bare = /^[A-Za-z0-9_\-.,/:+@%=]+$/.test(w);
  const how = bare
    ? rng.pick(['bare', 'bare', 'single', 'double', 'escape'])
    : rng.pick(['single', 'double', 'escape']);
  if (how === 'bare') return w;
  if (how === 'single' && !w.includes("'")) return `'${w}'`;
  if (how === 'double' || how === 'single') return `"${w.replace(/["\\$`]/g, (c) => `\\${c}`)}"`;
  return w.length ? w.replace(/[^A-Za-z0-9_]/g, (c) => (c === '\t' ? "'\t'" : `\\${c}`)) : "''";
}

/** Words that look like `sow` to a person but are another program (or none) to the shell. */
const SOW_LOOKALIKES = [
  './sow',
  '/usr/bin/sow',
  '\\sow',
  'sow\\',
  'SOW',
  'sow\u00a0',
  'sow\v',
  ' sow',
  'sow\u3000',
  'sow\ufeff',
  'so\u200bw',
  '"sow "',
  'sow=1',
  'command sow',
  'exec sow',
  'env sow',
  'IFS=/ sow',
];

/** A generated command line. */
function acpCommand(rng, ctx) {
  const pieces = ACP_PIECES(ctx);
  const kind = rng.weighted([
    { v: 'sow-then-pieces', weight: 5 },
    { v: 'quoted', weight: 3 },
    { v: 'pieces', weight: 2 },
    { v: 'lookalike', weight: 1 },
  ]).v;
  const glue = () => rng.pick(['', ' ', ' ', ' ', '\t']);
  const some = (n) => Array.from({ length: n }, () => `${rng.pick(pieces)}${glue()}`).join('');
  switch (kind) {
    case 'sow-then-pieces':
      return `sow ${some(rng.range(1, 6))}`;
    case 'quoted':
      return ['sow', ...Array.from({ length: rng.range(0, 4) }, () => quoteWord(rng, rng.pick(PLAIN_BITS)))].join(
        rng.pick([' ', ' ', '\t', '  ']),
      );
    case 'pieces':
      return some(rng.range(1, 7));
    default:
      return `${rng.pick(SOW_LOOKALIKES)}${rng.pick(['', ' status', ` ${some(2)}`])}`;
  }
}

/** The asks every ACP run makes besides the generated ones: the obvious tries, by their shape. */
function fixedAsks(ctx, checks) {
  const m = ctx.marker;
  const up = '/..'.repeat(12);
  const scripts = [
    'sow status',
    'sow task list --json',
    ' sow  status ',
    `sow "a b" 'c d' e\\ f`,
    'sow status\n',
    `sow;/usr/bin/touch ${m}`,
    `sow && /usr/bin/touch ${m}`,
    `sow || /usr/bin/touch ${m}`,
    `sow | /usr/bin/touch ${m}`,
    `sow & /usr/bin/touch ${m}`,
    `sow $(/usr/bin/touch ${m})`,
    `sow \`/usr/bin/touch ${m}\``,
    `sow "$(/usr/bin/touch ${m})"`,
    `sow > ${m}`,
    `sow\n/usr/bin/touch ${m}`,
    `sow #\n/usr/bin/touch ${m}`,
    `sow 'a\n/usr/bin/touch ${m}'`,
    `sow \\\n;/usr/bin/touch ${m}`,
    'IFS=/ sow',
    `exec /usr/bin/touch ${m}`,
    `env /usr/bin/touch ${m}`,
    's\\ow status',
    "'sow' status",
    './sow status',
    `sow\v${up}/bin/sh -c '/usr/bin/touch ${m}'`,
    `sow\u3000${up}/bin/sh -c '/usr/bin/touch ${m}'`,
    `sow\u00a0${up}/bin/sh -c '/usr/bin/touch ${m}'`,
    `sow\ufeff${up}/bin/sh -c '/usr/bin/touch ${m}'`,
    'sow ${IFS}x',
    'sow ~/x',
    'sow *',
    'sow {a,b}',
    "sow $'\\x41'",
    `sow <(/usr/bin/touch ${m})`,
  ];
  const asks = scripts.map((script) => ({ form: 'string', script }));
  asks.push(
    { form: 'codex', shell: '/bin/bash', script: 'sow status' },
    { form: 'codex', shell: '/bin/bash', script: `sow; /usr/bin/touch ${m}` },
    { form: 'codex', shell: 'bash', script: `sow status | /usr/bin/touch ${m}` },
    { form: 'codex', shell: 'zsh', script: 'sow status' },
    { form: 'codex', shell: join(ctx.repo, 'x', 'bash'), script: 'sow status' },
    { form: 'codex', shell: '/bin/bash', script: 'sow status', cwd: ctx.sentinel },
    { form: 'codex', shell: '/bin/bash', script: 'sow status', cwd: '../sentinel' },
    { form: 'codex', shell: '/bin/bash', script: 'sow status', cwd: join(ctx.repo, 'src') },
    { form: 'title', script: 'sow status' },
    { form: 'title', script: `sow;/usr/bin/touch ${m}` },
    { form: 'argv', argv: ['sow', 'status'] },
    { form: 'argv', argv: ['sow', `; /usr/bin/touch ${m}`, '$(id)'] },
    { form: 'argv', argv: ['sow\v', 'x'] },
    { form: 'argv', argv: ['sow', 'a\u00a0b'] },
    { form: 'codex', shell: '/bin/sh', script: 'sow' },
    { form: 'argv', argv: ['/usr/bin/touch', m] },
  );
  // Every declared check as written, in each shape; the allowed ones must be allowed.
  for (const c of checks) {
    asks.push(
      { form: 'string', script: c.run, check: c },
      { form: 'codex', shell: '/bin/bash', script: c.run, check: c },
      { form: 'title', script: c.run, check: c },
    );
    const p = plainReading(c.run);
    if (p.plain) asks.push({ form: 'argv', argv: p.words, check: c });
    asks.push(
      { form: 'string', script: `${c.run.trim()}; /usr/bin/touch ${m}` },
      { form: 'string', script: `${c.run.trim()}x` },
    );
  }
  return asks;
}

/**
 * An ask as the tool call an agent sends: a command string, Codex's shell argv (and cwd), a title alone (Gemini), or
 * an argv.
 */
function toolCallOf(a) {
  switch (a.form) {
    case 'codex':
      return {
        kind: 'execute',
        title: a.script,
        rawInput: { command: [a.shell, '-lc', a.script], ...(a.cwd !== undefined ? { cwd: a.cwd } : {}) },
      };
    case 'title':
      return { kind: 'execute', title: a.script };
    case 'argv':
      return { kind: 'execute', title: a.argv.join(' '), rawInput: { command: a.argv } };
    default:
      return { kind: 'execute', title: `Run ${a.script}`, rawInput: { command: a.script } };
  }
}

const askLabel = (a, n) =>
  `ask ${n} (${a.form}${a.shell ? ` ${a.shell}` : ''}${a.cwd !== undefined ? ` in ${a.cwd}` : ''}): ` +
  `${a.argv ? JSON.stringify(a.argv) : JSON.stringify(a.script)}`;

/** Whether strace can follow a program here (ptrace may be denied in a container); its path, or undefined. */
let straceAt;
function strace() {
  if (straceAt === undefined) {
    const which = spawnSync('sh', ['-c', 'command -v strace'], { encoding: 'utf8' });
    const path = which.status === 0 ? which.stdout.trim() : '';
    straceAt =
      path && spawnSync(path, ['-f', '-qq', '-e', 'trace=execve', '-o', '/dev/null', '--', '/bin/true']).status === 0
        ? path
        : '';
  }
  return straceAt || undefined;
}

/** The programs a run under strace executed (each successful execve's path), in order. */
function executed(traceText) {
  const paths = [];
  const pending = new Map();
  const unquote = (q) => {
    try {
      return JSON.parse(`"${q}"`);
    } catch {
      return q;
    }
  };
  for (const line of traceText.split('\n')) {
    const call = /^(\d+) +execve(?:at)?\((?:-?\w+, )?"((?:[^"\\]|\\.)*)"/.exec(line);
    if (call) {
      if (/<unfinished \.\.\.>$/.test(line)) pending.set(call[1], unquote(call[2]));
      else if (/= 0$/.test(line)) paths.push(unquote(call[2]));
      continue;
    }
    const resumed = /^(\d+) +<\.\.\. execve(?:at)? resumed>.*= 0$/.exec(line);
    if (resumed && pending.has(resumed[1])) paths.push(pending.get(resumed[1]));
  }
  return paths;
}

/**
 * A sandbox for what sow allows: PATH is a folder holding only a fake `sow` that records its arguments, HOME a
 * folder of its own.
 */
function makeSandbox(dir, ctx) {
  const bin = join(dir, 'bin');
  const home = join(dir, 'home');
  mkdirSync(bin, { recursive: true });
  mkdirSync(home, { recursive: true });
  const log = join(dir, 'sow-calls');
  // Builtins only: the count of arguments, then each, NUL-terminated.
  writeFileSync(join(bin, 'sow'), `#!/bin/sh\nprintf '%s\\0' "$#" "$@" >> '${log}'\n`, { mode: 0o755 });
  return {
    dir,
    bin,
    home,
    log,
    fake: join(bin, 'sow'),
    trace: join(dir, 'trace'),
    env: { PATH: bin, HOME: home, SOW_FUZZ_MARKER: ctx.marker },
  };
}

/** The calls the fake sow recorded: each its arguments. */
function sowCalls(sb) {
  let data;
  try {
    data = readFileSync(sb.log, 'utf8');
  } catch {
    return [];
  }
  const parts = data.split('\0');
  const calls = [];
  for (let i = 0; i < parts.length - 1;) {
    const n = Number(parts[i]);
    calls.push(parts.slice(i + 1, i + 1 + n));
    i += 1 + n;
  }
  return calls;
}

/**
 * What may change when a command runs: every entry of the run's folder (type, size, mtime, link target); cheap, no
 * contents.
 */
function stamps(dir) {
  const out = new Map();
  const walk = (abs, rel) => {
    let st;
    try {
      st = lstatSync(abs);
    } catch {
      return;
    }
    if (st.isSymbolicLink()) out.set(rel, `link ${readlinkSync(abs)}`);
    else if (st.isDirectory()) {
      out.set(rel, `dir ${st.mtimeMs}`);
      for (const name of readdirSync(abs)) walk(join(abs, name), `${rel}/${name}`);
    } else out.set(rel, `${st.isFile() ? 'file' : 'other'} ${st.size} ${st.mtimeMs} ${st.mode}`);
  };
  walk(dir, '');
  return out;
}

/**
 * Runs what sow allowed the way an agent would — a script by bash and by sh with `-c`, an argv as
 * it is — in the sandbox, under strace when it works here; says what it did that is not running
 * the fake sow once with `words` (undefined: the words are not known) and nothing else.
 */
async function sandboxRun(sb, ctx, a, words) {
  const problems = [];
  const ways = a.argv
    ? [{ how: 'as an argv', argv: a.argv }]
    : ['/bin/bash', '/bin/sh'].map((sh) => ({ how: `by ${sh} -c`, argv: [sh, '-c', a.script] }));
  for (const way of ways) {
    writeFileSync(sb.log, '');
    rmSync(sb.trace, { force: true });
    const before = stamps(ctx.runDir);
    const st = strace();
    const [file, ...args] = st
      ? [st, '-f', '-qq', '-e', 'trace=execve,execveat', '-o', sb.trace, '--', ...way.argv]
      : way.argv;
    // An argv's program is found on the sandbox's PATH, as execvp finds it.
    const program = !st && !file.includes('/') ? join(sb.bin, file) : file;
    const r = await run(program, args, { cwd: ctx.repo, env: sb.env, timeoutMs: 20_000 });
    const said = [];
    const calls = sowCalls(sb);
    if (st) {
      const ran = executed(existsSync(sb.trace) ? readFileSync(sb.trace, 'utf8') : '').slice(1);
      const others = ran.filter((p) => p !== sb.fake);
      if (others.length)
        said.push(
          `it executed ${others
            .slice(0, 3)
            .map((p) => JSON.stringify(p))
            .join(', ')}`,
        );
    }
    if (calls.length !== 1) said.push(`the fake sow ran ${calls.length} times`);
    else if (words && JSON.stringify(calls[0]) !== JSON.stringify(words.slice(1)))
      said.push(`sow got ${JSON.stringify(calls[0])}, a plain reading gives ${JSON.stringify(words.slice(1))}`);
    if (r.timedOut) said.push('it did not end (killed)');
    else if (r.code !== 0) said.push(`exit ${r.code ?? r.signal}`);
    const out = `${r.stdout}${r.stderr}`.replace(/^strace: .*\n?/gm, '');
    if (out) said.push(`it printed ${truncate(out, 100)}`);
    const changed = diffManifest(before, stamps(ctx.runDir));
    if (changed.length) said.push(`files changed: ${changed.slice(0, 3).join('; ')}`);
    // Said here, with the command that made it; the next command is judged on its own.
    if (existsSync(ctx.marker)) rmSync(ctx.marker, { recursive: true, force: true });
    const gone = sentinelProcessGone(ctx.proc);
    if (gone) {
      said.push(gone);
      stopSentinelProcess(ctx.proc);
      ctx.proc = startSentinelProcess();
    }
    if (said.length)
      problems.push(
        problem(
          WORLD,
          'ACP: an allowed command does more than run sow',
          `allowed, and run ${way.how}: ${said.join('; ')}`,
        ),
      );
  }
  return problems;
}

/**
 * The user's configuration of an ACP run: one executor over ACP (claude-agent-acp, the fake), bound to the
 * implementer.
 */
const ACP_CONFIG =
  'agents:\n  executors:\n    w:\n      type: claude\n      transport: acp\n  bindings:\n    implementer: w\n';

/**
 * One run of the ACP corpus: the standard project with declared checks (all but one allowed), a
 * worker spawned over ACP whose script asks about every command in turn, sow's answers read from
 * the fake agent's log, and every allowed command run in the sandbox.
 */
async function acpRun(opts, world, index, report) {
  const rng = new Rng(opts.seed, index, 'acp');
  const dir = join(world.root, `acp-${index}`);
  const ctx = prepareRun(world, dir, 'executing');
  const sb = makeSandbox(join(world.root, `acp-${index}-sandbox`), ctx);
  const about = { corpus: 'acp', run: index, base: 'executing', mutations: [] };
  const findings = [];
  const counts = { asks: 0, allowed: 0, executed: 0 };
  const add = (command, problems, said, cmd) => {
    if (!problems.length) return;
    const f = { seed: opts.seed, ...about, command, cmd, problems, excerpt: said };
    findings.push(f);
    report(f);
  };
  try {
    const env = runEnv(ctx.home, ctx.marker);
    // The folders a look-alike of sow names (`sow\v/..` is a path the shell follows).
    for (const name of ['sow\v', 'sow\u3000', 'sow\u00a0', 'sow\ufeff', 'x'])
      mkdirSync(join(ctx.repo, name, 'x'), { recursive: true });
    const allowed = rng
      .sample(CHECK_POOL, rng.range(2, 4))
      .map((run, i) => ({ name: `check-${i + 1}`, run, allowed: true }));
    const withheld = { name: 'late', run: rng.pick(withheldCheck(ctx)), allowed: false };
    const yamlChecks = (list) =>
      `checks:\n` +
      list.map((c) => `  - name: ${c.name}\n    run: ${JSON.stringify(c.run)}\n    when: [task_complete]\n`).join('');
    writeFileSync(join(ctx.repo, '.sow', 'config.yaml'), yamlChecks(allowed));
    const allow = await run(process.execPath, [opts.bin, 'check', 'allow', ...allowed.map((c) => c.name), '--yes'], {
      cwd: ctx.repo,
      env,
    });
    if (allow.code !== 0) throw new Error(`sow check allow exited ${allow.code}: ${allow.stderr}`);
    // Declared after the person allowed the others: sow must not hand it to a worker.
    writeFileSync(join(ctx.repo, '.sow', 'config.yaml'), yamlChecks([...allowed, withheld]));
    const checks = [...allowed, withheld];
    mkdirSync(join(ctx.home, '.config', 'sow'), { recursive: true });
    writeFileSync(join(ctx.home, '.config', 'sow', 'config.yaml'), ACP_CONFIG);
    const agentBin = join(sb.dir, 'agents');
    mkdirSync(agentBin);
    writeFileSync(
      join(agentBin, 'claude-agent-acp'),
      `#!/bin/sh\nexec "${process.execPath}" "${FAKE_ACP_AGENT}" claude-agent-acp "$@"\n`,
      { mode: 0o755 },
    );
    settle(ctx);

    const asks = fixedAsks(ctx, checks);
    while (asks.length < ACP_ASKS) {
      const script = acpCommand(rng, ctx);
      const form = rng.weighted([
        { v: 'string', weight: 6 },
        { v: 'codex', weight: 2 },
        { v: 'title', weight: 2 },
        { v: 'argv', weight: 1 },
      ]).v;
      if (form === 'argv')
        asks.push({ form, argv: ['sow', ...Array.from({ length: rng.range(0, 3) }, () => rng.pick(ACP_PIECES(ctx)))] });
      else if (form === 'codex')
        asks.push({
          form,
          shell: rng.pick(['/bin/bash', '/bin/bash', 'bash', '/bin/sh', 'sh', '/usr/bin/dash']),
          script,
        });
      else asks.push({ form, script });
    }
    counts.asks = asks.length;
    const log = join(sb.dir, 'agent.log');
    const spawnCmd = {
      kind: 'cli',
      args: ['agent', 'spawn', 'implementer', '010', '--json'],
      env: {
        PATH: `${agentBin}${delimiter}${env.PATH ?? ''}`,
        FAKE_ACP_SCRIPT: JSON.stringify(asks.map((a) => ({ ask: toolCallOf(a) }))),
        FAKE_ACP_SHAPE: 'generic',
        FAKE_AGENT_LOG: log,
        FAKE_AGENT_HOME: join(sb.dir, 'agent-home'),
      },
    };
    const spawned = await runCommand(opts.bin, ctx, spawnCmd);
    add(label(spawnCmd), spawned.problems, spawned.excerpt, spawnCmd);
    const events = existsSync(log)
      ? readFileSync(log, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l))
      : [];
    // The agent must be gone with the spawn: sow ends its worker's process group.
    const isAgent = (pid) => {
      try {
        return (
          pid > 1 &&
          procStat(pid)?.state !== 'Z' &&
          readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(FAKE_ACP_AGENT)
        );
      } catch {
        return false;
      }
    };
    const left = events.filter((e) => e.event === 'start' && isAgent(e.pid)).map((e) => e.pid);
    if (left.length) {
      add(
        label(spawnCmd),
        [problem(WORLD, 'ACP: left the agent running', `the agent (pid ${left.join(', ')}) outlived sow agent spawn`)],
        '',
        spawnCmd,
      );
      for (const pid of left) process.kill(pid, 'SIGKILL');
    }
    const answers = new Map();
    for (const e of events) {
      const n = /^call_(\d+)_/.exec(e.toolCall?.toolCallId ?? '')?.[1];
      if (e.event === 'permission' && n !== undefined) answers.set(Number(n), e);
    }
    const ran = new Set();
    for (let [n, a] of asks.entries()) {
      const what = askLabel(a, n);
      const e = answers.get(n);
      if (!e || !e.outcome) {
        // A turn cut short leaves every later ask unanswered: one finding says so.
        add(
          what,
          [
            problem(
              CRASH,
              'ACP: an ask without an answer',
              e?.error
                ? `the permission request failed: ${JSON.stringify(e.error)}`
                : 'the agent got no answer (the turn ended before it)',
            ),
          ],
          spawned.excerpt,
          spawnCmd,
        );
        if (!e) break;
        continue;
      }
      const ok = e.outcome.outcome === 'selected' && e.outcome.optionId === 'allow-once';
      // An argv matches a check only when sow reads the check as one simple command (not `sh -c …`): no expectation
      // there.
      if (a.check?.allowed && !ok && !a.argv) {
        add(
          what,
          [problem(RULE, 'ACP: an allowed check refused', 'a check the person allowed, asked as written, was refused')],
          '',
          spawnCmd,
        );
        continue;
      }
      if (!ok) continue;
      counts.allowed += 1;
      if (a.check && !a.check.allowed) {
        add(
          what,
          [
            problem(
              RULE,
              'ACP: allowed a check the person did not allow',
              'a check declared after the person allowed the others was allowed',
            ),
          ],
          '',
          spawnCmd,
        );
      }
      if (a.cwd !== undefined && !insideRepo(ctx, a.cwd))
        add(
          what,
          [problem(RULE, 'ACP: allowed a command in a folder outside the repository', `it runs in ${a.cwd}`)],
          '',
          spawnCmd,
        );
      // The person's own command, as written: not ours to run.
      if (checks.some((c) => c.allowed && isCheck(c, a))) continue;
      const problems = [];
      // Codex's shape names a shell that carries a script only when it is a system's sh, bash or dash; else it is an
      // argv like any other.
      const argv =
        a.argv ?? (a.form === 'codex' && !SYSTEM_SHELL.test(a.shell) ? [a.shell, '-lc', a.script] : undefined);
      if (argv) a = { ...a, argv };
      let words = a.argv;
      if (!a.argv) {
        const reading = plainReading(a.script);
        if (!reading.plain)
          problems.push(
            problem(
              RULE,
              'ACP: allowed a command that is not plain',
              `allowed, but a plain reading finds ${reading.why}`,
            ),
          );
        else if (reading.raw[0] !== 'sow')
          problems.push(
            problem(
              RULE,
              'ACP: allowed a command that is not sow',
              `allowed, but its first word is written ${JSON.stringify(reading.raw[0])}`,
            ),
          );
        words = reading.plain ? reading.words : undefined;
      } else if (a.argv[0] !== 'sow')
        problems.push(
          problem(
            RULE,
            'ACP: allowed a command that is not sow',
            `allowed, but its program is ${JSON.stringify(a.argv[0])}`,
          ),
        );
      // The same command asked in another shape runs the same way: once is enough.
      const key = JSON.stringify(a.argv ?? a.script);
      if (ran.has(key)) {
        add(what, problems, '', spawnCmd);
        continue;
      }
      ran.add(key);
      counts.executed += a.argv ? 1 : 2;
      // Files and the sentinel process are looked at after each; the rest of the world once, after all.
      problems.push(...(await sandboxRun(sb, ctx, a, words)));
      add(what, problems, '', spawnCmd);
    }
    add('the allowed commands, run', worldProblems(ctx), '', spawnCmd);
  } finally {
    finishRun(ctx);
    rmSync(sb.dir, { recursive: true, force: true });
  }
  const keepIt = opts.keep && findings.length > 0;
  if (!keepIt) rmSync(ctx.runDir, { recursive: true, force: true });
  return { commands: 1, findings, kept: keepIt ? ctx.runDir : undefined, counts };
}

// ---------------------------------------------------------------------------------------------
// The page corpus: what a page (or anything that learnt the token) may send `sow ui`

/** How many requests a page run sends (the fixed ones included). */
const UI_REQUESTS = 150;

/**
 * One HTTP request to the server, with exactly these headers; resolves with status, content type and body (never
 * rejects).
 */
function httpRequest(port, path, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((done) => {
    const req = httpRequestRaw(
      { host: '127.0.0.1', port, path, method, headers: { host: `127.0.0.1:${port}`, ...headers }, agent: false },
      (res) => {
        const chunks = [];
        res.on('data', (d) => chunks.push(d));
        res.on('end', () =>
          done({
            status: res.statusCode ?? 0,
            type: String(res.headers['content-type'] ?? ''),
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', (err) => done({ status: 0, type: '', body: '', error: err.message }));
      },
    );
    req.setTimeout(COMMAND_TIMEOUT_MS, () => req.destroy(new Error('no answer within the time')));
    req.on('error', (err) => done({ status: 0, type: '', body: '', error: err.message }));
    req.end(body);
  });
}

/** A value of the wrong shape for a field of an action (never one the field takes: the action must not run). */
function wrongValue(rng, field) {
  const common = [null, true, false, {}, { toString: 'x' }, [], ['010'], 'x'.repeat(70_000)];
  const byField = {
    index: ['0', '0; rm -rf /', '-x', '../0', -1, -0.5, 1.5, 2 ** 53, 1e308, [0], { n: 0 }],
    task: [
      10,
      '',
      ' ',
      '10a',
      '../010',
      '../../etc/passwd',
      '-x',
      '--yes',
      '$(touch x)',
      '010\n',
      ' 010',
      '010 ',
      '0x10',
      '1e3',
      '\uff10\uff11\uff10',
      '0123456789',
      '+10',
      { id: '010' },
      'x'.repeat(100),
    ],
    prompt: [['--yolo'], { text: 'x' }, 1, -1, 'x'.repeat(16 * 1024 + 1)],
    text: [['x'], 1, 1.5, 'x'.repeat(16 * 1024 + 1)],
  };
  return rng.pick([...common, ...byField[field]]);
}

/** The fields of the page's actions, and a value of the right shape for each (what the page itself sends). */
const UI_ACTIONS = {
  advance: {},
  approve_output: { index: 0 },
  approve_tasks: {},
  resume: { task: '010', prompt: 'go on' },
  stop: { task: '010' },
  feedback: { task: '010', text: 'more tests' },
};

/**
 * The requests of a page run, each with what it must get: a refused action 400, 404 or 413 with a
 * JSON error; without the JSON content type 403; another method or path, or a view of no such
 * name, 404 with a JSON error; a view with hostile values 200 with the commands' errors. Never a
 * valid action but the one Stop of task 010 (a committed owner sow never started).
 */
function uiRequests(rng) {
  const reqs = [];
  const post = (body, expect, why, headers = { 'content-type': 'application/json' }) =>
    reqs.push({ method: 'POST', path: '/api/action', body, headers, expect, why });
  const json = (v) => JSON.stringify(v);
  // Every name of Object.prototype as an action (with what it would have run through the prototype) and as a view.
  for (const name of new Set([...Object.getOwnPropertyNames(Object.prototype), '__proto__', 'prototype'])) {
    post(`{"action":${json(name)},"name":"check allow","args":[],"opts":{"yes":true}}`, [400], `action ${name}`);
    reqs.push({
      method: 'GET',
      path: `/api/view?name=${encodeURIComponent(name)}`,
      expect: [404],
      why: `view ${name}`,
    });
  }
  post(`{"__proto__":{"action":"advance"}}`, [400], 'an action only on the prototype');
  post(`{"action":"advance","action":"nosuch"}`, [400], 'a repeated key, the last unknown');
  // A body that is not one JSON object.
  for (const body of [
    '',
    '[]',
    '"advance"',
    'null',
    '1',
    'true',
    '{',
    '{"action":"advance"',
    'garbage',
    '\u0000',
    '[{"action":"advance"}]',
  ])
    post(body, [400], `body ${truncate(body, 30)}`);
  // Too large, declared or not.
  post(json({ action: 'feedback', task: '010', text: 'x'.repeat(70 * 1024) }), [413], 'a body over 64 KiB');
  const big = json({ action: 'feedback', task: '010', text: 'x'.repeat(70 * 1024) });
  post(big, [413], 'a body over 64 KiB, its length declared', {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(big)),
  });
  // No or another content type: refused before the body is read.
  for (const type of [
    undefined,
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data',
    'application/jsonp',
    'text/json',
  ])
    post(json({ action: 'advance' }), [403], `content type ${type ?? 'none'}`, type ? { 'content-type': type } : {});
  // Other methods and paths.
  for (const [method, path] of [
    ['PUT', '/api/action'],
    ['DELETE', '/api/action'],
    ['PATCH', '/api/action'],
    ['GET', '/api/action'],
    ['POST', '/api/view'],
    ['POST', '/'],
    ['GET', '/api/nosuch'],
    ['GET', '/API/view?name=project'],
    ['GET', '/api/view/x'],
    ['GET', '/%2e%2e/%2e%2e/etc/passwd'],
    ['GET', '/api/view/../../etc/passwd'],
    ['GET', '/index.html'],
  ])
    reqs.push({
      method,
      path,
      headers: method === 'GET' ? {} : { 'content-type': 'application/json' },
      body: method === 'GET' ? undefined : json({ action: 'advance' }),
      expect: [404],
      why: `${method} ${path}`,
    });
  // Views of no such name, and the real views with hostile values (their commands refuse them, inside the view's data).
  for (const name of ['', 'Project', 'project ', 'tasks', '../project', 'project\u0000', 'x'.repeat(5000)])
    reqs.push({
      method: 'GET',
      path: `/api/view?name=${encodeURIComponent(name)}`,
      expect: [404],
      why: `view ${truncate(name, 20)}`,
    });
  const hostileParams = [
    '../../../etc/passwd',
    '-x',
    '--all',
    '010\n',
    '$(touch x)',
    '0'.repeat(30),
    '',
    '%00',
    '\u202e',
    'x'.repeat(5000),
  ];
  // The page's own Stop of task 010: refused, for sow never started the owner the state names.
  const stop = {
    method: 'POST',
    path: '/api/action',
    body: json({ action: 'stop', task: '010' }),
    headers: { 'content-type': 'application/json' },
    expect: [200],
    refusal: 'NOT_SOWS_PROCESS',
    why: "the page's Stop of task 010",
  };
  const fixed = reqs.length;
  while (reqs.length < UI_REQUESTS - 1) {
    const kind = rng.weighted([
      { v: 'wrong-shape', weight: 6 },
      { v: 'unknown-key', weight: 2 },
      { v: 'random-name', weight: 2 },
      { v: 'view', weight: 3 },
    ]).v;
    if (kind === 'view') {
      const v = rng.pick(hostileParams);
      const q = rng.chance(0.5)
        ? `name=task&id=${encodeURIComponent(v)}`
        : `name=${rng.pick(['project', 'task'])}&id=010&checkout=${encodeURIComponent(v)}`;
      reqs.push({
        method: 'GET',
        path: `/api/view?${q}`,
        expect: [200],
        view: true,
        why: `view ${truncate(decodeURIComponent(q), 40)}`,
      });
      continue;
    }
    if (kind === 'random-name') {
      const name = rng.pick([
        'ADVANCE',
        'advance ',
        ' advance',
        'advance\u0000',
        'stop;',
        '../stop',
        'check allow',
        'project delete',
        'agent spawn',
        'run',
        '',
        'x'.repeat(5000),
        'valueOf',
        'toString',
        'hasOwnProperty',
        'constructor',
      ]);
      post(json({ action: name, name: 'check allow', opts: { yes: true } }), [400], `action ${truncate(name, 20)}`);
      continue;
    }
    const [action, fields] = rng.pick(Object.entries(UI_ACTIONS));
    const body = { action, ...fields };
    const names = Object.keys(fields);
    if (kind === 'unknown-key' || !names.length) {
      body[rng.pick(['name', 'opts', 'args', 'yes', 'force', 'id', 'constructor', 'Task', 'task '])] = rng.pick([
        'check allow',
        { yes: true },
        ['--yes'],
        true,
        '010',
      ]);
      if (rng.chance(0.3)) body.checkout = rng.pick([7, {}, [], 'x'.repeat(5000), '../..']);
    } else {
      for (const f of rng.sample(names, rng.range(1, names.length))) body[f] = wrongValue(rng, f);
      if (rng.chance(0.2)) body.checkout = rng.pick([7, {}, [], '../..', '-x']);
    }
    const text = json(body);
    post(text, [Buffer.byteLength(text) > 64 * 1024 ? 413 : 400], `action ${truncate(text, 60)}`);
  }
  reqs.splice(fixed + rng.int(reqs.length - fixed + 1), 0, stop);
  return reqs;
}

/** The state files of the repository, byte for byte (`.sow/`, links as their targets, folders as names). */
function stateManifest(ctx) {
  const out = new Map();
  const walk = (abs, rel) => {
    let st;
    try {
      st = lstatSync(abs);
    } catch {
      return;
    }
    if (st.isSymbolicLink()) out.set(rel, `link ${readlinkSync(abs)}`);
    else if (st.isDirectory()) {
      out.set(rel, 'dir');
      for (const name of readdirSync(abs).sort()) walk(join(abs, name), `${rel}/${name}`);
    } else if (st.isFile()) out.set(rel, `file ${sha256(readFileSync(abs))}`);
  };
  walk(join(ctx.repo, '.sow'), '.sow');
  return out;
}

/**
 * What is wrong with one answer of the server to a request that must be refused (or, a view, answered with the
 * commands' errors).
 */
function answerProblems(r, req) {
  const problems = [];
  if (r.error) return [problem(CRASH, 'page: no answer', `no answer: ${r.error}`)];
  if (r.status >= 500) problems.push(problem(CRASH, 'page: a 5xx answer', `answered ${r.status}`));
  else if (!req.expect.includes(r.status))
    problems.push(
      problem(
        WORLD,
        'page: a request not refused as it should be',
        `answered ${r.status}, not ${req.expect.join(' or ')}`,
      ),
    );
  if (r.status === 403) {
    if (r.body) problems.push(problem(DISPLAY, 'page: a 403 with a body', `a 403 said ${truncate(r.body, 60)}`));
    return problems;
  }
  let doc;
  try {
    doc = JSON.parse(r.body);
  } catch {
    doc = undefined;
  }
  if (!doc || typeof doc.ok !== 'boolean' || !/^application\/json/.test(r.type))
    problems.push(
      problem(
        CRASH,
        'page: the answer is not a JSON document',
        `answered ${truncate(r.body, 60)} (${r.type || 'no content type'})`,
      ),
    );
  else if (
    !req.view &&
    (doc.ok !== false || typeof doc.error?.code !== 'string' || typeof doc.error?.message !== 'string')
  )
    problems.push(problem(WORLD, 'page: a request not refused as it should be', `answered ${truncate(r.body, 80)}`));
  else if (req.refusal && doc.error.code !== req.refusal)
    problems.push(
      problem(
        WORLD,
        'page: the Stop of a worker sow never started not refused',
        `answered ${doc.error.code}, not ${req.refusal}`,
      ),
    );
  if (/"code":"INTERNAL"|internal error/i.test(r.body))
    problems.push(problem(CRASH, 'internal error', 'says "internal error"'));
  if (STACK.test(r.body.replace(/\\n/g, '\n'))) problems.push(problem(CRASH, 'stack trace'));
  return problems;
}

/**
 * One run of the page corpus: the standard project with a check that touches the marker (not
 * allowed), task 010 owned by the sentinel process as sow would record a worker, `sow ui` started,
 * and every request sent in turn; after each, the state files and every invariant of the trees.
 */
async function uiRun(opts, world, index, report) {
  const rng = new Rng(opts.seed, index, 'ui');
  const ctx = prepareRun(world, join(world.root, `ui-${index}`), 'executing');
  const about = { corpus: 'ui', run: index, base: 'executing', mutations: [] };
  const findings = [];
  const counts = { requests: 0 };
  const add = (command, problems, said) => {
    if (!problems.length) return;
    const f = { seed: opts.seed, ...about, command, cmd: { kind: 'ui', args: ['ui'] }, problems, excerpt: said };
    findings.push(f);
    report(f);
  };
  let child;
  try {
    writeFileSync(
      join(ctx.repo, '.sow', 'config.yaml'),
      'checks:\n  - name: unit\n    run: "touch \\"$SOW_FUZZ_MARKER\\""\n    when: [task_complete, finalize]\n',
    );
    const p = ctx.proc;
    if (
      !setOwner(ctx, '010', {
        kind: 'worker',
        by: 'implementer-7',
        pid: p.pid,
        host: HOST,
        boot: BOOT,
        pstart: p.pstart,
        pidns: PIDNS,
        since: '2026-11-26T00:00:00.000Z',
      })
    )
      throw new Error('no task 010 to give an owner');
    settle(ctx);
    const state = stateManifest(ctx);
    child = spawn(process.execPath, [opts.bin, 'ui', '--json', '--no-open'], {
      cwd: ctx.repo,
      env: runEnv(ctx.home, ctx.marker),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const exited = new Promise((done) => child.on('close', (code, signal) => done({ code, signal })));
    const first = await timeLimit(
      Promise.race([
        new Promise((done) => {
          child.stdout.on('data', (d) => {
            out += d;
            if (out.includes('\n')) done(out.split('\n')[0]);
          });
        }),
        exited.then(() => undefined),
      ]),
    );
    let served;
    try {
      served = JSON.parse(first ?? '').data;
    } catch {
      served = undefined;
    }
    if (!served?.token || !served?.port) {
      add(
        'sow ui --json --no-open',
        [problem(CRASH, 'page: the server did not start', `sow ui printed ${truncate(out, 80)}`)],
        firstLines(err),
      );
      return { commands: 1, findings, counts };
    }
    for (const req of uiRequests(rng)) {
      const headers = { ...(req.headers ?? {}), ...(req.method === 'POST' ? { 'x-sow-token': served.token } : {}) };
      const path =
        req.method === 'POST' ? req.path : `${req.path}${req.path.includes('?') ? '&' : '?'}token=${served.token}`;
      const r = await httpRequest(served.port, path, { method: req.method, headers, body: req.body });
      counts.requests += 1;
      if (process.env.FUZZ_TRACE)
        process.stderr.write(
          `trace: ${r.status} ${oneLine(req.method)} ${oneLine(req.why)} → ${oneLine(truncate(r.body, 120))}\n`,
        );
      const problems = answerProblems(r, req);
      const now = stateManifest(ctx);
      const changed = diffManifest(state, now);
      if (changed.length) {
        problems.push(
          problem(
            WORLD,
            'page: a refused request changed the state files',
            `the state files: ${changed.slice(0, 3).join('; ')}`,
          ),
        );
        state.clear();
        for (const [k, v] of now) state.set(k, v);
      }
      problems.push(...worldProblems(ctx));
      add(`${req.method} ${req.why}`, problems, r.status ? `${r.status} ${firstLines(r.body, 1)}` : '');
    }
    // The server is still serving, stops on Ctrl-C, and leaves nothing behind.
    const end = [];
    if (child.exitCode !== null || child.signalCode !== null)
      end.push(
        problem(
          CRASH,
          'page: the server ended',
          `the server ended (${child.exitCode ?? child.signalCode}) while it was being sent requests`,
        ),
      );
    else {
      child.kill('SIGINT');
      const stopped = await timeLimit(exited);
      if (!stopped)
        end.push(
          problem(
            CRASH,
            'page: the server did not stop on SIGINT',
            `no exit within ${COMMAND_TIMEOUT_MS / 1000} s of SIGINT`,
          ),
        );
      else if (stopped.signal || !SOW_EXIT_CODES.has(stopped.code))
        end.push(
          problem(
            CRASH,
            'page: the server did not stop on SIGINT',
            `it ended ${stopped.signal ?? `with exit ${stopped.code}`}`,
          ),
        );
    }
    if (STACK.test(err) || /internal error/i.test(err))
      end.push(problem(CRASH, 'stack trace', `the server said ${truncate(err, 100)}`));
    if (groupAlive(child.pid))
      end.push(problem(WORLD, 'page: left a process', 'a process of the server’s group is left after it stopped'));
    add('sow ui --json --no-open', [...end, ...worldProblems(ctx)], firstLines(err));
  } finally {
    if (child?.pid && groupAlive(child.pid)) process.kill(-child.pid, 'SIGKILL');
    finishRun(ctx);
  }
  const keepIt = opts.keep && findings.length > 0;
  if (!keepIt) rmSync(ctx.runDir, { recursive: true, force: true });
  return { commands: 1, findings, kept: keepIt ? ctx.runDir : undefined, counts };
}

/** What `promise` resolves to, or undefined after `ms` (the timer cleared either way: it keeps no one waiting). */
async function timeLimit(promise, ms = COMMAND_TIMEOUT_MS) {
  let timer;
  try {
    return await Promise.race([promise, new Promise((done) => (timer = setTimeout(() => done(undefined), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether any process of group `pgid` is left (a zombie waiting for its parent counts as gone). */
function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const s = procStat(Number(name));
    if (s && s.pgrp === pgid && s.state !== 'Z') return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// The whole run

export async function fuzz(options, out = (line) => process.stdout.write(`${line}\n`)) {
  const opts = { ...options, out, stats: { picked: {}, applied: {}, counts: {} } };
  if (!existsSync(opts.bin)) throw new UsageError(`no sow build at ${opts.bin}; run 'npm run build' first`);
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'sow-fuzz-')));
  const started = Date.now();
  const findings = [];
  let commands = 0;
  let runsDone = 0;
  const kept = [];
  const harnessErrors = [];
  try {
    if (!opts.quiet) out(`fuzz: making the base trees with ${opts.bin}`);
    // A named corpus runs --runs times; unnamed, the ACP and page corpora run a tenth as often (at least once).
    const runsOf = (corpus) =>
      !opts.corpora.includes(corpus)
        ? []
        : opts.only !== undefined
          ? [opts.only]
          : Array.from(
              {
                length:
                  opts.named || corpus === 'trees' || !opts.runs ? opts.runs : Math.max(1, Math.round(opts.runs / 10)),
              },
              (_, i) => i + 1,
            );
    const indexes = runsOf('trees');
    const needed = new Set([
      ...indexes.map((i) => planRun(opts.seed, i, opts.mutations).baseName),
      ...(opts.control || opts.basesOnly ? BASE_NAMES : []),
      ...(runsOf('acp').length || runsOf('ui').length ? ['executing'] : []),
    ]);
    const world = { root, ...(await makeBases(root, opts.bin, needed)) };
    if (opts.basesOnly) {
      out(`bases: ${Object.keys(world.bases).sort().join(', ')}`);
      return { runs: 0, commands: 0, findings, harnessErrors };
    }
    const print = (f) =>
      out(
        `FINDING seed=${f.seed}${f.corpus ? ` corpus=${f.corpus}` : ''} run=${f.run} base=${f.base} ` +
          `cmd='${oneLine(f.command)}' ` +
          `mutations=[${f.mutations.map((m) => oneLine(m.what)).join(' ; ') || 'none'}] ` +
          `what: ${f.problems.map((p) => oneLine(p.text)).join('; ')}` +
          `${f.excerpt ? ` — said: ${oneLine(f.excerpt)}` : ''}`,
      );
    const jobs = [];
    if (opts.control) for (const base of BASE_NAMES) jobs.push({ control: base, name: `control-${base}` });
    for (const i of indexes) jobs.push({ corpus: 'trees', index: i, name: String(i) });
    for (const corpus of ['acp', 'ui'])
      for (const i of runsOf(corpus)) jobs.push({ corpus, index: i, name: `${corpus} ${i}` });
    const perCorpus = { trees: 0, acp: 0, ui: 0 };
    let next = 0;
    const worker = async () => {
      while (next < jobs.length) {
        const job = jobs[next++];
        let result;
        try {
          if (job.control) result = await controlRun(opts, world, job.control, print);
          else result = await { trees: fuzzRun, acp: acpRun, ui: uiRun }[job.corpus](opts, world, job.index, print);
        } catch (err) {
          // A bug of this fuzzer, not a finding: said, counted, and the other runs go on.
          harnessErrors.push(`run ${job.name}: ${err.stack ?? err}`);
          out(
            `fuzz: run ${job.name} stopped: the fuzzer itself failed: ${oneLine(
              String(err.stack ?? err)
                .split('\n')
                .slice(0, 3)
                .join(' | '),
            )}`,
          );
          continue;
        }
        runsDone += 1;
        perCorpus[job.corpus ?? 'trees'] += 1;
        commands += result.commands;
        for (const [k, v] of Object.entries(result.counts ?? {}))
          opts.stats.counts[k] = (opts.stats.counts[k] ?? 0) + v;
        findings.push(...result.findings);
        if (result.kept) kept.push(result.kept);
        if (!opts.quiet && runsDone % 10 === 0)
          out(
            `fuzz: ${runsDone}/${jobs.length} runs, ${commands} commands, ${findings.length} ` +
              `findings, ${Math.round((Date.now() - started) / 1000)} s`,
          );
      }
    };
    await Promise.all(Array.from({ length: Math.min(opts.jobs, jobs.length) }, worker));

    if (findings.length) {
      const classes = await classify(opts, world, findings);
      out('');
      out(`fuzz: ${classes.length} kind(s) of finding`);
      for (const c of classes) {
        const commands = [...new Set(c.items.map((i) => i.f.command.replace(/ --json$/, '')))];
        const eg = c.items.find((i) => i.cause) ?? c.items[0];
        out(`KIND ${c.kind} ← ${c.by}: ${c.items.length}× in ${commands.length} command(s) (${commands.join(', ')})`);
        const again = eg.f.corpus
          ? `--seed ${eg.f.seed} --${eg.f.corpus} --only ${eg.f.run}`
          : `--seed ${eg.f.seed} ` +
            `${String(eg.f.run).startsWith('control-') ? '--runs 0 --control' : `--only ${eg.f.run}`}` +
            `${eg.cause ? ` --alone ${eg.cause.j.join(',')}` : ''}` +
            `${opts.mutationArg ? ` --mutation ${opts.mutationArg}` : ''}`;
        const what = eg.cause
          ? oneLine(eg.cause.what)
          : eg.f.mutations.map((m) => oneLine(m.what)).join(' ; ') || 'no mutation';
        const excerpt = eg.cause?.excerpt ?? eg.f.excerpt;
        out(
          `  e.g. ${again} ` +
            `(${eg.f.base}): ${what} → ` +
            `'${oneLine(eg.f.command)}': ${oneLine(eg.h.text)}${excerpt ? ` — ${oneLine(excerpt)}` : ''}`,
        );
      }
    }
    if (!opts.quiet && Object.keys(opts.stats.picked).length)
      out(
        `mutations applied/picked: ${Object.keys(opts.stats.picked)
          .sort()
          .map((k) => `${k} ${opts.stats.applied[k] ?? 0}/${opts.stats.picked[k]}`)
          .join(', ')}`,
      );
    for (const dir of kept) out(`kept: ${dir}`);
    const c = opts.stats.counts;
    const summary = [
      `runs ${runsDone}` +
        (runsOf('acp').length || runsOf('ui').length
          ? ` (trees ${perCorpus.trees}, acp ${perCorpus.acp}, page ${perCorpus.ui})`
          : ''),
      `commands ${commands}`,
      ...(runsOf('acp').length ? [`asks ${c.asks ?? 0} (${c.allowed ?? 0} allowed, ${c.executed ?? 0} run)`] : []),
      ...(runsOf('ui').length ? [`requests ${c.requests ?? 0}`] : []),
      `findings ${findings.length} (seed ${opts.seed}, ${Math.round((Date.now() - started) / 1000)} s)`,
    ];
    out(summary.join(', '));
    if (harnessErrors.length)
      out(`fuzz: the fuzzer itself failed in ${harnessErrors.length} run(s) (see above); those runs are not counted`);
    return { runs: runsDone, commands, findings, harnessErrors };
  } finally {
    if (!kept.length) rmSync(root, { recursive: true, force: true });
    // A kept tree needs the refs sources it names; the rest goes.
    else
      for (const name of readdirSync(root))
        if (!kept.includes(join(root, name)) && !/-repo$/.test(name))
          rmSync(join(root, name), { recursive: true, force: true });
  }
}

const oneLine = (s) =>
  String(s).replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) =>
    c === '\n' ? '\\n' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

// ---------------------------------------------------------------------------------------------

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    if (err.message) process.stderr.write(`fuzz: ${err.message}\n`);
    (err.message ? process.stderr : process.stdout).write(`${USAGE}\n`);
    process.exit(err.message ? 2 : 0);
  }
  process.stdout.write(
    `fuzz: seed ${opts.seed} (repeat: npm run fuzz -- ` +
      `--seed ${opts.seed}${opts.named ? opts.corpora.map((c) => ` --${c}`).join('') : ''}` +
      `${opts.only !== undefined ? ` --only ${opts.only}` : ` --runs ${opts.runs}`}` +
      `${opts.alone !== undefined ? ` --alone ${opts.alone.join(',')}` : ''}` +
      `${opts.mutationArg ? ` --mutation ${opts.mutationArg}` : ''})\n`,
  );
  try {
    const { findings, harnessErrors } = await fuzz(opts);
    process.exitCode = findings.length ? 1 : harnessErrors.length ? 2 : 0;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`fuzz: ${err.message}\n`);
      process.exitCode = 2;
    } else throw err;
  }
}

/** For tests of the harness itself. */
export const internals = { MUTATIONS, planRun, Rng, prepareRun, makeBases, applyMutations };
