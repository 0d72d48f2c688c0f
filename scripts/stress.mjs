#!/usr/bin/env node
/**
 * Stress run of sow's store: many concurrent writers, and writers killed with SIGKILL at random
 * moments. It drives the built CLI (dist/sow.cjs) in throw-away git repositories and prints counts.
 *
 *   npm run build && npm run stress        the default run (64 writers × 5 rounds per kind, 1000 kills)
 *   node scripts/stress.mjs --quick        a smoke run (64 writers × 1 round, 100 kills)
 *   node scripts/stress.mjs --kills 300    another number of kills
 *   node scripts/stress.mjs --json         the counts as one JSON object on stdout (progress on stderr)
 *
 * Other options: --writers N, --rounds N, --max-delay MS (the kill delay is uniform in 0..MS; by
 * default MS is calibrated to ~1.25× how long a write takes on this machine, at least 60, so kills
 * land before, during and after the write), --seed S (the random choices; timing is not
 * reproducible), --keep (keep every temp repository; those where a check failed are always kept).
 *
 * Part 1, concurrency. For each kind of write — task add, task set metadata, project set metadata,
 * phase set metadata, log on task 010 — a fresh repository gets N concurrent `sow` processes per
 * round (spawned together, awaited with Promise.all), each writing its own key/name/entry. After
 * each round: every process exited 0 with {"ok":true} (otherwise a failure, its stderr recorded);
 * every acknowledged write is there (no lost update: each key has its value, each added task
 * exists under its id with its name, each log entry is in log.md exactly once); no task id was
 * handed out twice and no two tasks share a name; every task folder has state.yaml, description.md
 * and log.md; no journal.json, no lock and nothing in .git/sow/tmp is left; `sow task list
 * --json` and `sow project status --json` exit 0.
 *
 * Part 2, SIGKILL. Each iteration starts one random write (task add, task set metadata, log,
 * project set metadata) and SIGKILLs it after a random delay. Right after the child exits it notes
 * whether a journal.json (killed mid-transaction), a lock file (killed holding the lock) or temp
 * files were left. Then `sow task list --json` (a read) and `sow task set --id 010 metadata.after
 * <n>` (a write) must exit 0, after which no journal.json, lock or temp file may remain, every task
 * folder must be whole and listed, `sow project status --json` must exit 0, the killed write must
 * have happened zero times or once (a killed task add made at most one task; a key has its value
 * or is absent; a log entry is there at most once) — and exactly once if the process finished
 * before the kill — and metadata.after must hold <n>. A new repository every 250 iterations.
 *
 * Every sow process runs with HOME, XDG_CONFIG_HOME and XDG_RUNTIME_DIR in a temp folder and NO_COLOR=1.
 * State files are read with the `yaml` package sow already depends on; nothing else is needed.
 * Exit 0 when every check held, 1 when any failed (the failures are listed), 2 on a usage error.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

const SOW = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'sow.cjs');
const started = performance.now();

// ---------------------------------------------------------------------------------------------
// Options

const USAGE =
  'usage: node scripts/stress.mjs [--quick] [--kills N] [--writers N] [--rounds N] [--max-delay MS] [--seed S] ' +
  '[--keep] [--json]\n';
const opts = {
  quick: false,
  json: false,
  keep: false,
  kills: undefined,
  writers: 64,
  rounds: undefined,
  maxDelay: undefined,
  seed: undefined,
};
{
  const argv = process.argv.slice(2);
  const num = (name, v) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) usage(`${name} needs a whole number, got '${v ?? ''}'`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--help' || a === '-h') {
      process.stdout.write(USAGE);
      process.exit(0);
    } else if (a === '--quick') opts.quick = true;
    else if (a === '--json') opts.json = true;
    else if (a === '--keep') opts.keep = true;
    else if (a === '--kills') opts.kills = num(a, argv[++i]);
    else if (a === '--writers') opts.writers = num(a, argv[++i]);
    else if (a === '--rounds') opts.rounds = num(a, argv[++i]);
    else if (a === '--max-delay') opts.maxDelay = num(a, argv[++i]);
    else if (a === '--seed') opts.seed = num(a, argv[++i]);
    else usage(`unknown option '${a}'`);
  }
  opts.kills ??= opts.quick ? 100 : 1000;
  opts.rounds ??= opts.quick ? 1 : 5;
  opts.seed ??= Math.floor(Math.random() * 2 ** 31);
}
function usage(message) {
  process.stderr.write(`stress: ${message}\n${USAGE}`);
  process.exit(2);
}
if (!existsSync(SOW)) {
  process.stderr.write(`stress: ${SOW} is missing; run 'npm run build' first\n`);
  process.exit(1);
}

const KILLS_PER_REPO = 250;

/** mulberry32: a small seeded generator, so the sequence of random choices can be replayed. */
let seedState = opts.seed >>> 0;
function random() {
  seedState = (seedState + 0x6d2b79f5) >>> 0;
  let t = seedState;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

// ---------------------------------------------------------------------------------------------
// Output: progress on stderr (stdout is the summary, or the JSON)

const progress = (s) => process.stderr.write(`${s}\n`);
const elapsed = () => (performance.now() - started) / 1000;

// ---------------------------------------------------------------------------------------------
// Counts and failures

const counts = {
  concurrency: {
    writers: opts.writers,
    rounds: opts.rounds,
    processes: 0,
    writesAcknowledged: 0,
    lostUpdates: 0,
    duplicateIds: 0,
    duplicateNames: 0,
    duplicateEntries: 0,
    failures: 0, // a sow process that should have succeeded exited non-zero (or not {"ok":true})
    inconsistencies: 0, // leftover journal/lock/tmp, incomplete task folder, unreadable state
    waitedForLock: 0, // processes that said they were waiting for the lock (informational)
    byKind: {},
  },
  kills: {
    iterations: 0,
    repositories: 0,
    maxDelayMs: 0,
    writeMsMedian: 0,
    byKind: {},
    killed: 0, // the child died of our SIGKILL
    exitedBeforeKill: 0, // the child had already finished (exit 0) when the kill was due
    killedHoldingLock: 0, // a lock file was left right after the kill
    killedMidTransaction: 0, // a journal.json was left right after the kill
    tmpLeftAfterKill: 0, // temp files were left in .git/sow/tmp right after the kill
    journalReplayedByRead: 0, // the journal was gone after the read command
    killedTaskAddsThatMadeATask: 0,
    killedWritesThatHappened: 0, // task set / project set / log killed, yet the value is there
    failures: 0, // a command that should have succeeded exited non-zero
    lostUpdates: 0, // an acknowledged write missing (metadata.after, or a write that finished)
    duplicates: 0, // a killed write applied twice (two tasks, a log entry twice)
    inconsistencies: 0, // leftovers after the next write, incomplete task folder, list ≠ folders, …
    slowIterations: 0, // iterations over 3 s (e.g. a lock waited out)
  },
};
const failures = []; // { part, what, command?, code?, signal?, stderr?, detail? }
const badRepos = new Set();

function fail(part, counter, entry, repo) {
  counts[part][counter] += 1;
  failures.push({ part, ...entry });
  if (repo) badRepos.add(repo.dir);
  if (failures.length <= 20)
    progress(
      `  FAILED (${part}/${counter}): ${entry.what}` +
        (entry.code !== undefined ? ` — exit ${entry.code}${entry.signal ? ` ${entry.signal}` : ''}` : '') +
        (entry.stderr ? `\n    stderr: ${entry.stderr.trim().split('\n').join('\n    stderr: ')}` : ''),
    );
}

// ---------------------------------------------------------------------------------------------
// Running processes

const ROOT = mkdtempSync(join(tmpdir(), 'sow-stress-'));
const HOME = join(ROOT, 'home');
mkdirSync(HOME);
const ENV = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME,
  XDG_CONFIG_HOME: HOME,
  XDG_CACHE_HOME: join(HOME, '.cache'),
  NO_COLOR: '1',
  LANG: 'C.UTF-8',
  GIT_AUTHOR_NAME: 'Stress Test',
  GIT_AUTHOR_EMAIL: 'stress@example.invalid',
  GIT_COMMITTER_NAME: 'Stress Test',
  GIT_COMMITTER_EMAIL: 'stress@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
};

/**
 * Spawns one process. `exited` resolves on 'exit' (the earliest moment to look at what a killed
 * process left); `done` once its output is complete too.
 */
function start(file, args, cwd) {
  const t0 = performance.now();
  const child = spawn(file, args, { cwd, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  const exited = new Promise((res) => {
    child.on('error', (err) => res({ code: -1, signal: null, error: err.message }));
    child.on('exit', (code, signal) => res({ code, signal, ms: performance.now() - t0 }));
  });
  const done = new Promise((res) => {
    child.on('close', async () => res({ ...(await exited), stdout, stderr }));
    child.on('error', async () => res({ ...(await exited), stdout, stderr }));
  });
  return { child, exited, done };
}

const sowArgs = (args) => [SOW, ...args];
const runSow = (repo, args) => start(process.execPath, sowArgs(args), repo.path).done;
const show = (args) => `sow ${args.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a))).join(' ')}`;

function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The data of a `--json` answer, when the command exited 0 and said ok; else undefined. */
function okData(r) {
  if (r.code !== 0) return undefined;
  const doc = parseJson(r.stdout);
  return doc && doc.ok === true ? { data: doc.data } : undefined;
}

// ---------------------------------------------------------------------------------------------
// A test repository

class SetupError extends Error {}

async function newRepo(label) {
  const dir = mkdtempSync(join(ROOT, `${label}-`));
  const repo = { dir, path: join(dir, 'repo') };
  mkdirSync(repo.path);
  const step = async (file, args) => {
    const r = await start(file, args, repo.path).done;
    if (r.code !== 0)
      throw new SetupError(
        `setup of ${repo.path}: '${file === process.execPath ? show(args.slice(1)) : `${file} ${args.join(' ')}`}' ` +
          `exited ${r.code}${r.signal ? ` ${r.signal}` : ''}\n${r.stderr}${r.stdout}`,
      );
    return r;
  };
  const sow = (...args) => step(process.execPath, sowArgs(args));
  await step('git', ['init', '-q', '-b', 'main']);
  await step('git', ['-c', 'commit.gpgsign=false', 'commit', '-q', '--allow-empty', '-m', 'initial']);
  await sow('init');
  await sow('project', 'new', 'demo', '--description', 'A demo project');
  mkdirSync(join(repo.path, '.sow/project/planning'), { recursive: true });
  writeFileSync(join(repo.path, '.sow/project/planning/tasks.md'), '# Tasks\n');
  await sow('output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md');
  await sow('output', 'set', '--index', '0', 'approved', 'true');
  await sow('advance');
  const seed = okData(await sow('task', 'add', 'Seed', '--agent', 'implementer', '--json'));
  if (seed?.data?.id !== '010') throw new SetupError(`setup of ${repo.path}: the first task is not 010`);
  await sow('phase', 'set', 'tasks_approved', 'true');
  const state = (await sow('advance')).stdout.trim();
  if (state !== 'ImplementationExecuting') throw new SetupError(`setup of ${repo.path}: advance landed in '${state}'`);
  return repo;
}

// ---------------------------------------------------------------------------------------------
// Looking at .sow/ directly

const runtime = (repo, name) => join(repo.path, '.git/sow', name);
const tasksDir = (repo) => join(repo.path, '.sow/project/phases/implementation/tasks');
const TASK_FILES = ['state.yaml', 'description.md', 'log.md'];

function tmpEntries(repo) {
  try {
    return readdirSync(runtime(repo, 'tmp'));
  } catch (err) {
    if (err.code === 'ENOENT') return [];
    throw err;
  }
}

/** What a completed command must not leave behind: journal.json, the lock, temp files. */
function leftovers(repo) {
  const found = [];
  if (existsSync(runtime(repo, 'journal.json'))) found.push('journal.json');
  if (existsSync(runtime(repo, 'lock'))) found.push('lock');
  if (existsSync(runtime(repo, 'lock.takeover'))) found.push('lock.takeover');
  const tmp = tmpEntries(repo);
  if (tmp.length > 0) found.push(`tmp/ (${tmp.length}: ${tmp.slice(0, 3).join(', ')})`);
  return found;
}

/** Task folders missing one of state.yaml, description.md, log.md. */
function incompleteTaskFolders(repo) {
  const bad = [];
  for (const id of readdirSync(tasksDir(repo))) {
    const missing = TASK_FILES.filter((f) => !existsSync(join(tasksDir(repo), id, f)));
    if (missing.length > 0) bad.push(`${id} lacks ${missing.join(', ')}`);
  }
  return bad;
}

const taskFolders = (repo) => readdirSync(tasksDir(repo)).sort();
const readYaml = (file) => parseYaml(readFileSync(file, 'utf8'));
const projectMetadata = (repo) => readYaml(join(repo.path, '.sow/project/state.yaml'))?.metadata ?? {};
const taskMetadata = (repo, id) => readYaml(join(tasksDir(repo), id, 'state.yaml'))?.metadata ?? {};
const task010Log = (repo) => readFileSync(join(tasksDir(repo), '010', 'log.md'), 'utf8');
/** How often `line` is a whole line of `text`. */
const linesEqual = (text, line) => text.split('\n').filter((l) => l === line).length;

// ---------------------------------------------------------------------------------------------
// Part 1: concurrency

const WRITES = {
  'task add': { args: (i) => ['task', 'add', `c${i}`, '--agent', 'implementer', '--json'] },
  'task set': { args: (i) => ['task', 'set', '--id', '010', `metadata.w${i}`, String(i), '--json'] },
  'project set': { args: (i) => ['project', 'set', `metadata.w${i}`, String(i), '--json'] },
  'phase set': { args: (i) => ['phase', 'set', `w${i}`, String(i), '--json'] },
  log: {
    args: (i) => [
      'log',
      '--agent',
      'implementer-1',
      '--action',
      'modified_file',
      '--result',
      'success',
      '--task',
      '010',
      '--file',
      'src/x.ts',
      `entry ${i}`,
      '--json',
    ],
  },
};

async function concurrency() {
  const C = counts.concurrency;
  for (const kind of Object.keys(WRITES)) {
    const k = (C.byKind[kind] = { acknowledged: 0, lostUpdates: 0, failures: 0, roundSecondsMax: 0 });
    const repo = await newRepo(`concurrent-${kind.replace(' ', '-')}`);
    const ackedAdds = new Map(); // id → i, over all rounds
    for (let round = 0; round < opts.rounds; round++) {
      const ids = Array.from({ length: opts.writers }, (_, j) => round * opts.writers + j);
      const t0 = performance.now();
      const results = await Promise.all(ids.map((i) => runSow(repo, WRITES[kind].args(i))));
      const seconds = (performance.now() - t0) / 1000;
      k.roundSecondsMax = Math.max(k.roundSecondsMax, Number(seconds.toFixed(2)));
      C.processes += results.length;

      const acked = [];
      results.forEach((r, j) => {
        const i = ids[j];
        if (/waiting for/.test(r.stderr)) C.waitedForLock += 1;
        const ok = okData(r);
        if (!ok) {
          k.failures += 1;
          fail(
            'concurrency',
            'failures',
            {
              what: `${kind} writer ${i} (round ${round + 1})`,
              command: show(WRITES[kind].args(i)),
              code: r.code,
              signal: r.signal,
              stderr: r.stderr,
              stdout: r.stdout.slice(0, 500),
            },
            repo,
          );
          return;
        }
        acked.push({ i, data: ok.data });
      });
      C.writesAcknowledged += acked.length;
      k.acknowledged += acked.length;

      const lost = (what) => {
        k.lostUpdates += 1;
        fail('concurrency', 'lostUpdates', { what: `${kind} round ${round + 1}: ${what}` }, repo);
      };
      const inconsistent = (what) =>
        fail('concurrency', 'inconsistencies', { what: `${kind} round ${round + 1}: ${what}` }, repo);

      // Nothing left behind by completed commands, every task folder whole.
      const left = leftovers(repo);
      if (left.length > 0) inconsistent(`left behind after every writer exited: ${left.join(', ')}`);
      for (const bad of incompleteTaskFolders(repo)) inconsistent(`task folder ${bad}`);

      // The reads every round must pass.
      const [list, status] = await Promise.all([
        runSow(repo, ['task', 'list', '--json']),
        runSow(repo, ['project', 'status', '--json']),
      ]);
      const listData = okData(list);
      if (!listData || !Array.isArray(listData.data)) {
        fail(
          'concurrency',
          'failures',
          {
            what: `${kind} round ${round + 1}: read after the round`,
            command: 'sow task list --json',
            code: list.code,
            signal: list.signal,
            stderr: list.stderr,
          },
          repo,
        );
      }
      if (!okData(status)) {
        fail(
          'concurrency',
          'failures',
          {
            what: `${kind} round ${round + 1}: read after the round`,
            command: 'sow project status --json',
            code: status.code,
            signal: status.signal,
            stderr: status.stderr,
          },
          repo,
        );
      }
      const tasks = listData?.data ?? [];
      const seenIds = new Map();
      const seenNames = new Map();
      for (const t of tasks) {
        seenIds.set(t.id, (seenIds.get(t.id) ?? 0) + 1);
        seenNames.set(t.name, (seenNames.get(t.name) ?? 0) + 1);
      }
      for (const [id, n] of seenIds)
        if (n > 1)
          fail(
            'concurrency',
            'duplicateIds',
            { what: `${kind} round ${round + 1}: task id ${id} listed ${n} times` },
            repo,
          );
      for (const [name, n] of seenNames)
        if (n > 1)
          fail(
            'concurrency',
            'duplicateNames',
            { what: `${kind} round ${round + 1}: ${n} tasks named '${name}'` },
            repo,
          );
      if (listData) {
        const folders = taskFolders(repo);
        const listed = [...seenIds.keys()].sort();
        if (folders.join(',') !== listed.join(','))
          inconsistent(`task list (${listed.length}) ≠ task folders (${folders.length})`);
      }

      // Every acknowledged write is there.
      if (kind === 'task add') {
        for (const { i, data } of acked) {
          if (ackedAdds.has(data.id)) {
            fail(
              'concurrency',
              'duplicateIds',
              { what: `task add: id ${data.id} acknowledged to writer ${ackedAdds.get(data.id)} and to writer ${i}` },
              repo,
            );
          }
          ackedAdds.set(data.id, i);
          if (data.name !== `c${i}`) lost(`writer ${i} was answered with task ${data.id} named '${data.name}'`);
          const t = tasks.find((x) => x.id === data.id);
          if (listData && !t) lost(`task ${data.id} (c${i}) acknowledged but not listed`);
          else if (t && t.name !== `c${i}`) lost(`task ${data.id} acknowledged as 'c${i}' but listed as '${t.name}'`);
          if (!existsSync(join(tasksDir(repo), data.id, 'state.yaml')))
            lost(`task ${data.id} (c${i}) acknowledged but has no state.yaml`);
          else if (readYaml(join(tasksDir(repo), data.id, 'state.yaml'))?.name !== `c${i}`)
            lost(`task ${data.id}'s state.yaml does not name 'c${i}'`);
        }
      } else if (kind === 'task set') {
        const got = okData(await runSow(repo, ['task', 'get', '--id', '010', '--json']));
        if (!got) inconsistent('sow task get --id 010 --json failed');
        const meta = got?.data?.task?.metadata ?? got?.data?.metadata ?? {};
        const onDisk = taskMetadata(repo, '010');
        for (const { i } of acked) {
          if (meta[`w${i}`] !== i)
            lost(`task 010 metadata.w${i} is ${JSON.stringify(meta[`w${i}`])} (sow task get), expected ${i}`);
          else if (onDisk[`w${i}`] !== i)
            lost(`task 010 metadata.w${i} is ${JSON.stringify(onDisk[`w${i}`])} in state.yaml, expected ${i}`);
        }
      } else if (kind === 'project set') {
        const meta = projectMetadata(repo);
        for (const { i } of acked)
          if (meta[`w${i}`] !== i) lost(`project metadata.w${i} is ${JSON.stringify(meta[`w${i}`])}, expected ${i}`);
      } else if (kind === 'phase set') {
        const got = okData(await runSow(repo, ['phase', 'get', 'metadata', '--json']));
        if (!got) inconsistent('sow phase get metadata --json failed');
        const meta = got?.data?.value ?? {};
        const onDisk = readYaml(join(repo.path, '.sow/project/state.yaml'))?.phases?.implementation?.metadata ?? {};
        for (const { i } of acked) {
          if (meta[`w${i}`] !== i)
            lost(`implementation metadata.w${i} is ${JSON.stringify(meta[`w${i}`])} (sow phase get), expected ${i}`);
          else if (onDisk[`w${i}`] !== i)
            lost(`implementation metadata.w${i} is ${JSON.stringify(onDisk[`w${i}`])} in state.yaml, expected ${i}`);
        }
      } else if (kind === 'log') {
        const text = task010Log(repo);
        for (const { i } of acked) {
          const n = linesEqual(text, `entry ${i}`);
          if (n === 0) lost(`'entry ${i}' acknowledged but not in tasks/010/log.md`);
          else if (n > 1)
            fail(
              'concurrency',
              'duplicateEntries',
              { what: `log round ${round + 1}: 'entry ${i}' is in tasks/010/log.md ${n} times` },
              repo,
            );
        }
      }
      progress(
        `concurrency: ${kind.padEnd(11)} round ${round + 1}/${opts.rounds}: ${acked.length}/${results.length} ` +
          `acknowledged in ${seconds.toFixed(1)} s  [${elapsed().toFixed(0)} s]`,
      );
    }
    if (!opts.keep && !badRepos.has(repo.dir)) rmSync(repo.dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Part 2: SIGKILL

const KILL_WRITES = {
  'task add': (n) => ['task', 'add', `kill ${n}`, '--agent', 'implementer', '--json'],
  'task set': (n) => ['task', 'set', '--id', '010', `metadata.k${n}`, String(n), '--json'],
  log: (n) => [
    'log',
    '--agent',
    'implementer-1',
    '--action',
    'modified_file',
    '--result',
    'success',
    '--task',
    '010',
    '--file',
    'src/x.ts',
    `kill entry ${n}`,
    '--json',
  ],
  'project set': (n) => ['project', 'set', `metadata.k${n}`, String(n), '--json'],
};
const KILL_KINDS = Object.keys(KILL_WRITES);
const sleep = (ms) => new Promise((res) => setTimeout(res, ms));

/** How long a write takes here, spawn to exit (median of a few of each kind, not killed). */
async function calibrate(repo) {
  const times = [];
  for (let j = 0; j < 3; j++) {
    for (const kind of KILL_KINDS) {
      const args = KILL_WRITES[kind](`cal${j}`).map((a) => a.replace(/^metadata\.kcal/, 'metadata.cal'));
      const r = await runSow(repo, args);
      if (!okData(r)) throw new SetupError(`calibration: '${show(args)}' exited ${r.code}\n${r.stderr}`);
      times.push(r.ms);
    }
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

async function kills() {
  const K = counts.kills;
  let repo;
  for (let n = 1; n <= opts.kills; n++) {
    if ((n - 1) % KILLS_PER_REPO === 0) {
      if (repo && !opts.keep && !badRepos.has(repo.dir)) rmSync(repo.dir, { recursive: true, force: true });
      repo = await newRepo(`kill-${n}`);
      K.repositories += 1;
      if (K.repositories === 1) {
        K.writeMsMedian = Math.round(await calibrate(repo));
        K.maxDelayMs = opts.maxDelay ?? Math.max(60, Math.round(K.writeMsMedian * 1.25));
        progress(`kills: a write takes ~${K.writeMsMedian} ms here; kill delay uniform in 0..${K.maxDelayMs} ms`);
      }
    }
    const t0 = performance.now();
    const kind = KILL_KINDS[Math.floor(random() * KILL_KINDS.length)];
    const delay = random() * K.maxDelayMs;
    const k = (K.byKind[kind] ??= {
      iterations: 0,
      killed: 0,
      exitedBeforeKill: 0,
      killedHoldingLock: 0,
      killedMidTransaction: 0,
      happened: 0,
    });
    k.iterations += 1;
    K.iterations += 1;
    const where = `kill #${n} (${kind}, ${delay.toFixed(1)} ms)`;
    const inconsistent = (what) => fail('kills', 'inconsistencies', { what: `${where}: ${what}` }, repo);

    // The victim.
    const args = KILL_WRITES[kind](n);
    const victim = start(process.execPath, sowArgs(args), repo.path);
    let gone = false;
    victim.exited.then(() => (gone = true));
    await sleep(delay);
    if (!gone) victim.child.kill('SIGKILL');
    const exit = await victim.exited;
    // Look at once: what did it leave?
    const journalAfterKill = existsSync(runtime(repo, 'journal.json'));
    const lockAfterKill = existsSync(runtime(repo, 'lock'));
    const tmpAfterKill = tmpEntries(repo).length > 0;
    const vr = await victim.done;
    const finished = exit.signal === null && exit.code === 0;
    if (exit.signal === 'SIGKILL') {
      K.killed += 1;
      k.killed += 1;
      if (journalAfterKill) ((K.killedMidTransaction += 1), (k.killedMidTransaction += 1));
      if (lockAfterKill) ((K.killedHoldingLock += 1), (k.killedHoldingLock += 1));
      if (tmpAfterKill) K.tmpLeftAfterKill += 1;
    } else if (finished) {
      K.exitedBeforeKill += 1;
      k.exitedBeforeKill += 1;
      if (!okData(vr))
        fail(
          'kills',
          'failures',
          {
            what: `${where}: finished before the kill without {"ok":true}`,
            command: show(args),
            code: vr.code,
            stderr: vr.stderr,
          },
          repo,
        );
      const left = leftovers(repo);
      if (left.length > 0) inconsistent(`left behind by a write that finished: ${left.join(', ')}`);
    } else {
      fail(
        'kills',
        'failures',
        {
          what: `${where}: the write exited by itself, not 0`,
          command: show(args),
          code: exit.code,
          signal: exit.signal,
          stderr: vr.stderr,
        },
        repo,
      );
    }

    // A read, then a write: both must succeed.
    const read = await runSow(repo, ['task', 'list', '--json']);
    const readData = okData(read);
    if (!readData || !Array.isArray(readData.data))
      fail(
        'kills',
        'failures',
        {
          what: `${where}: the read after the kill`,
          command: 'sow task list --json',
          code: read.code,
          signal: read.signal,
          stderr: read.stderr,
        },
        repo,
      );
    if (journalAfterKill && !existsSync(runtime(repo, 'journal.json'))) K.journalReplayedByRead += 1;
    const writeArgs = ['task', 'set', '--id', '010', 'metadata.after', String(n), '--json'];
    const write = await runSow(repo, writeArgs);
    const wrote = okData(write);
    if (!wrote)
      fail(
        'kills',
        'failures',
        {
          what: `${where}: the write after the kill`,
          command: show(writeArgs),
          code: write.code,
          signal: write.signal,
          stderr: write.stderr,
        },
        repo,
      );

    // After that write: nothing left, every folder whole, status reads.
    const statusRun = runSow(repo, ['project', 'status', '--json']);
    if (wrote) {
      const left = leftovers(repo);
      if (left.length > 0) inconsistent(`left behind after '${show(writeArgs)}': ${left.join(', ')}`);
    }
    for (const bad of incompleteTaskFolders(repo)) inconsistent(`task folder ${bad}`);
    const folders = taskFolders(repo);
    if (readData) {
      const listed = readData.data.map((t) => t.id).sort();
      if (listed.join(',') !== folders.join(',')) {
        inconsistent(
          `the read listed ${listed.length} tasks (${listed.slice(-3).join(',')}…), the folders after the next ` +
            `write are ${folders.length} (${folders.slice(-3).join(',')}…)`,
        );
      }
      const ids = new Set(listed);
      if (ids.size !== listed.length)
        fail('kills', 'duplicates', { what: `${where}: duplicate task ids in sow task list` }, repo);
    }
    let meta010;
    try {
      meta010 = taskMetadata(repo, '010');
    } catch (err) {
      inconsistent(`tasks/010/state.yaml unreadable: ${err.message}`);
    }
    if (wrote && meta010 && meta010.after !== n) {
      fail(
        'kills',
        'lostUpdates',
        {
          what:
            `${where}: metadata.after is ${JSON.stringify(meta010.after)} after '${show(writeArgs)}' was ` +
            `acknowledged`,
        },
        repo,
      );
    }

    // The killed write happened zero times or once (exactly once if it finished).
    let times = 0;
    if (kind === 'task add') {
      for (const id of folders) {
        try {
          if (readYaml(join(tasksDir(repo), id, 'state.yaml'))?.name === `kill ${n}`) times += 1;
        } catch (err) {
          inconsistent(`tasks/${id}/state.yaml unreadable: ${err.message}`);
        }
      }
      const listedTimes = readData ? readData.data.filter((t) => t.name === `kill ${n}`).length : times;
      if (listedTimes !== times)
        inconsistent(`'kill ${n}' listed ${listedTimes} times by the read, ${times} task folders have it`);
      if (times > 0 && exit.signal === 'SIGKILL') K.killedTaskAddsThatMadeATask += 1;
    } else if (kind === 'log') {
      times = linesEqual(task010Log(repo), `kill entry ${n}`);
      if (times > 0 && exit.signal === 'SIGKILL') K.killedWritesThatHappened += 1;
    } else {
      let value;
      try {
        value = kind === 'task set' ? meta010?.[`k${n}`] : projectMetadata(repo)[`k${n}`];
      } catch (err) {
        inconsistent(`state.yaml unreadable: ${err.message}`);
      }
      if (value !== undefined && value !== n)
        inconsistent(`metadata.k${n} is ${JSON.stringify(value)}, expected ${n} or absent`);
      times = value === n ? 1 : 0;
      if (times > 0 && exit.signal === 'SIGKILL') K.killedWritesThatHappened += 1;
    }
    if (times > 0) k.happened += 1;
    if (times > 1) fail('kills', 'duplicates', { what: `${where}: the write happened ${times} times` }, repo);
    if (finished && times === 0)
      fail('kills', 'lostUpdates', { what: `${where}: finished (exit 0) before the kill, yet it is not there` }, repo);

    const status = await statusRun;
    if (!okData(status))
      fail(
        'kills',
        'failures',
        {
          what: `${where}: status after the kill`,
          command: 'sow project status --json',
          code: status.code,
          signal: status.signal,
          stderr: status.stderr,
        },
        repo,
      );

    if (performance.now() - t0 > 3000) K.slowIterations += 1;
    if (n % 50 === 0 || n === opts.kills) {
      progress(
        `kills: ${n}/${opts.kills}: ${K.killed} killed (${K.killedHoldingLock} holding the ` +
          `lock, ${K.killedMidTransaction} mid-transaction), ${K.exitedBeforeKill} finished first  ` +
          `[${elapsed().toFixed(0)} s]`,
      );
    }
  }
  if (repo && !opts.keep && !badRepos.has(repo.dir)) rmSync(repo.dir, { recursive: true, force: true });
}

// ---------------------------------------------------------------------------------------------
// Main

let setupError;
try {
  progress(
    `stress: ${opts.writers} writers × ${opts.rounds} round(s) × ${Object.keys(WRITES).length} ` +
      `kinds, ${opts.kills} kills, seed ${opts.seed}; temp ${ROOT}`,
  );
  await concurrency();
  await kills();
} catch (err) {
  if (!(err instanceof SetupError)) throw err;
  setupError = err.message;
  progress(`stress: ${err.message}`);
}

const C = counts.concurrency;
const K = counts.kills;
const invariantsFailed =
  C.lostUpdates +
  C.duplicateIds +
  C.duplicateNames +
  C.duplicateEntries +
  C.failures +
  C.inconsistencies +
  K.failures +
  K.lostUpdates +
  K.duplicates +
  K.inconsistencies;
const ok = invariantsFailed === 0 && !setupError;
const seconds = Number(elapsed().toFixed(1));

if (ok && !opts.keep) rmSync(ROOT, { recursive: true, force: true });
const kept = opts.keep ? [ROOT] : ok ? [] : [...badRepos];

if (opts.json) {
  const summary = {
    ok,
    seed: opts.seed,
    elapsedSeconds: seconds,
    ...counts,
    invariantsFailed,
    setupError,
    failures: failures.slice(0, 100),
    failuresOmitted: Math.max(0, failures.length - 100),
    kept,
  };
  process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
} else {
  const out = (s = '') => process.stdout.write(`${s}\n`);
  out();
  out(
    `Concurrency: ${C.writers} concurrent writers × ${C.rounds} round(s) × ${Object.keys(WRITES).length} kinds ` +
      `= ${C.processes} processes`,
  );
  for (const [kind, k] of Object.entries(C.byKind))
    out(
      `  ${kind.padEnd(12)} ${k.acknowledged} acknowledged, ${k.lostUpdates} lost, ${k.failures} failed, slowest ` +
        `round ${k.roundSecondsMax} s`,
    );
  out(`  writes acknowledged: ${C.writesAcknowledged}`);
  out(`  lost updates:        ${C.lostUpdates}`);
  out(
    `  duplicate ids:       ${C.duplicateIds}  (duplicate names: ${C.duplicateNames}, duplicate log ` +
      `entries: ${C.duplicateEntries})`,
  );
  out(`  failures:            ${C.failures}  (non-zero exits of commands that should succeed)`);
  out(
    `  inconsistencies:     ${C.inconsistencies}  (leftover journal/lock/tmp, incomplete task folder, list ≠ folders)`,
  );
  out(`  said "waiting for the lock": ${C.waitedForLock} processes`);
  out();
  out(
    `SIGKILL: ${K.iterations} iterations in ${K.repositories} repositories; kill delay uniform in ` +
      `0..${K.maxDelayMs} ms (a write takes ~${K.writeMsMedian} ms here)`,
  );
  for (const [kind, k] of Object.entries(K.byKind))
    out(
      `  ${kind.padEnd(12)} ${k.iterations}: ${k.killed} killed (${k.killedHoldingLock} holding the ` +
        `lock, ${k.killedMidTransaction} mid-transaction), ${k.exitedBeforeKill} finished first; the write is ` +
        `there in ${k.happened}`,
    );
  out(`  killed:                        ${K.killed}`);
  out(`  already exited before the kill: ${K.exitedBeforeKill}`);
  out(`  killed holding the lock:       ${K.killedHoldingLock}`);
  out(
    `  killed mid-transaction:        ${K.killedMidTransaction}  (journal.json right after the ` +
      `kill; ${K.journalReplayedByRead} of them gone after the read)`,
  );
  out(`  temp files left by the kill:   ${K.tmpLeftAfterKill}`);
  out(
    `  killed task adds with a task:  ${K.killedTaskAddsThatMadeATask}; other killed writes that ` +
      `happened: ${K.killedWritesThatHappened}`,
  );
  out(`  failures:                      ${K.failures}`);
  out(`  lost updates:                  ${K.lostUpdates}`);
  out(`  duplicates:                    ${K.duplicates}`);
  out(`  inconsistencies:               ${K.inconsistencies}`);
  out(`  iterations over 3 s:           ${K.slowIterations}`);
  out();
  if (setupError) out(`Setup failed: ${setupError}`);
  if (failures.length > 0) {
    out(`Failures (${failures.length}${failures.length > 20 ? ', first 20' : ''}):`);
    for (const f of failures.slice(0, 20)) {
      out(
        `  [${f.part}] ${f.what}${f.command ? `\n    command: ${f.command}` : ''}` +
          (f.code !== undefined ? `\n    exit: ${f.code}${f.signal ? ` (${f.signal})` : ''}` : '') +
          (f.stderr ? `\n    stderr: ${f.stderr.trim().split('\n').join('\n    stderr: ')}` : ''),
      );
    }
  }
  if (kept.length > 0) out(`Kept for inspection: ${kept.join(' ')}`);
  out(
    (ok
      ? 'OK: every invariant held'
      : `FAILED: ${invariantsFailed} invariant violation(s)${setupError ? ' and a setup failure' : ''}`) +
      ` — seed ${opts.seed}, elapsed ${seconds} s`,
  );
}
process.exit(ok ? 0 : 1);
