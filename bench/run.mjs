#!/usr/bin/env node
/**
 * Start-up and scale benchmark for the built CLI.
 *
 * Builds throw-away git repos whose project sits in ImplementationExecuting with 100, 1,000 and
 * 10,000 tasks, then times each command — a fresh process, as a user's or an agent's command is —
 * against the floor of any Node CLI (`node -e 0`), interleaved in rounds in the same run so machine
 * noise hits every row alike; each run is divided by the floor run just before it in its round,
 * and the verdict takes the median of those ratios. The budgets are the design's (DESIGN §7):
 * at 100 tasks every read ≤ 1.4×, every write ≤ 1.6×; at 1,000 reads ≤ 1.8×, writes ≤ 1.9×;
 * `--version` ≤ 1.1×; at 10,000 tasks `task list` within the floor + 100 ms; `task list` at 1,000
 * tasks in at most 60 MB; `sow log` appends within the write budget, also on a 10,000-entry log.
 *
 *   npm run bench                    table on stdout, progress on stderr
 *   npm run bench -- --json          one JSON document on stdout
 *   npm run bench -- --check         exit 1 when a row is over its budget
 *   npm run bench -- --ready         mark every task completed, so `advance --dry-run` is ready (exit 0)
 *   npm run bench -- --keep          keep the temp repos and print where they are
 *   BENCH_RUNS=5 BENCH_SIZES=100,1000 npm run bench
 *
 * Creating 10,000 tasks through 10,000 CLI calls would take most of an hour, so the real CLI creates
 * the project and three tasks, and the rest is generated in the layout sow writes (with sow's own
 * emitter, src/adapters/yaml/emit.ts, built on the fly; it is checked byte-for-byte against what sow
 * wrote, and the generated state is checked to load with `sow task list` and `sow task get`).
 * "cold index" rows run without the task index (.git/sow/tasks.json), as the first command
 * after a clone or a checkout does.
 * Then one `sow mcp` server per size answers each of its read tools 20 times (or BENCH_RUNS, if
 * more): p50 per call, within 5 ms at 1,000 tasks — with the bench's mix of statuses and with all
 * 1,000 tasks pending (the start of execution).
 * It measures; it is not a test: without --check it exits 0 whatever the numbers are.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { importSource } from '../scripts/import-source.mjs';
import { lineClient } from '../scripts/mcp-lines.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const PKG_ROOT = resolve(HERE, '..');
const args = new Set(process.argv.slice(2));
for (const a of args) {
  if (!['--json', '--check', '--ready', '--keep', '--instructions', '--help', '-h'].includes(a)) {
    process.stderr.write(`bench: unknown option '${a}' (try --help)\n`);
    process.exit(2);
  }
}
if (args.has('--help') || args.has('-h')) {
  process.stdout.write(
    'usage: node bench/run.mjs [--json] [--check] [--ready] [--keep] [--instructions]\n  --instructions  also ' +
      'count instructions with valgrind (steady on a noisy machine; slow)\n  env: BENCH_RUNS (default 21), ' +
      'BENCH_SIZES (default 100,1000,10000)\n',
  );
  process.exit(0);
}
const JSON_OUT = args.has('--json');
const CHECK = args.has('--check');
const READY = args.has('--ready');
const KEEP = args.has('--keep');
const RUNS = Number(process.env.BENCH_RUNS ?? 21);
const SIZES = (process.env.BENCH_SIZES ?? '100,1000,10000').split(',').map(Number);
if (!Number.isInteger(RUNS) || RUNS < 1) fail(`BENCH_RUNS must be a positive integer, got '${process.env.BENCH_RUNS}'`);
if (SIZES.some((n) => !Number.isInteger(n) || n < 3 || n > 20000))
  fail(`BENCH_SIZES must be integers from 3 to 20000, got '${process.env.BENCH_SIZES}'`);

/**
 * The budgets, by project size: a ratio to the floor (`{ratio}`), or milliseconds over it
 * (`{overMs}`) where a ratio says little (10,000 tasks); null: shown, not judged.
 */
const LARGE = 1000;
const HUGE = 10000;
function budgetFor(kind, size, startup) {
  if (startup) return { ratio: 1.1 };
  if (size < LARGE) return { ratio: kind === 'write' ? 1.6 : 1.4 };
  if (size < HUGE) return { ratio: kind === 'write' ? 1.9 : 1.8 };
  return null;
}
const memoryBudgetFor = (size) => (size >= HUGE ? null : 60);
const HUGE_LIST_OVER_MS = 100;

function fail(message) {
  process.stderr.write(`bench: ${message}\n`);
  process.exit(2);
}
const log = (message) => process.stderr.write(`${message}\n`);

// The YAML sow writes: sow's own emitter, built from the source (checked against real output below).
const { emitYaml } = await importSource(PKG_ROOT, 'src/adapters/yaml/emit.ts');

// ---------------------------------------------------------------------------------------------
// Running things

const workDirs = [];
let SOW = join(PKG_ROOT, 'dist', 'sow.cjs');

function cleanup() {
  for (const dir of workDirs) {
    if (KEEP) log(`kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
  workDirs.length = 0;
}
process.on('SIGINT', () => {
  cleanup();
  process.exit(130);
});

const CHILD_ENV = { ...process.env, NO_COLOR: '1' };
delete CHILD_ENV.FORCE_COLOR;
delete CHILD_ENV.SOW_DEBUG;
delete CHILD_ENV.SOW_NO_COMPILE_CACHE;
delete CHILD_ENV.CI;
// Node reads the certificates NODE_EXTRA_CA_CERTS names at every start, before any code runs (on
// this machine about 30 ms, four fifths of `node -e 0`'s instructions). It is the same cost for the
// floor and for sow, and says nothing about sow: measured with it, every ratio looks better than
// sow is. Both run without it (so do the tests' processes, vitest.config.ts).
delete CHILD_ENV.NODE_EXTRA_CA_CERTS;

function run(cmd, argv, cwd) {
  return spawnSync(cmd, argv, { cwd, env: CHILD_ENV, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

function git(cwd, ...argv) {
  const r = run(
    'git',
    ['-c', 'user.name=sow bench', '-c', 'user.email=bench@sow.invalid', '-c', 'commit.gpgsign=false', ...argv],
    cwd,
  );
  if (r.status !== 0) throw new Error(`git ${argv.join(' ')} failed (${r.status}): ${r.stderr || r.error}`);
  return r.stdout;
}

/** Runs sow and insists on an exit code; returns the parsed --json document when asked. */
function sow(cwd, argv, { expect = [0], json = false, env } = {}) {
  const full = json ? ['--json', ...argv] : argv;
  const r = env
    ? spawnSync(process.execPath, [SOW, ...full], {
        cwd,
        env: { ...CHILD_ENV, ...env },
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      })
    : run(process.execPath, [SOW, ...full], cwd);
  if (expect === null) return { ...safeJson(r.stdout), status: r.status };
  if (!expect.includes(r.status)) {
    throw new Error(
      `'sow ${full.join(' ')}' exited ${r.status ?? r.signal} ` +
        `(expected ${expect.join(' or ')})\n${r.stdout}${r.stderr}`,
    );
  }
  return json ? JSON.parse(r.stdout) : r;
}

function safeJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return { ok: false, error: { message: text.trim().split('\n')[0] ?? '' } };
  }
}
function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}
function writeJson(path, value) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(value));
}

/** A copy of dist/ so a rebuild by someone else during the run cannot pull the CLI away. */
function snapshotCli() {
  if (!existsSync(SOW)) fail(`${SOW} is missing; run 'npm run build' first`);
  const dir = mkdtempSync(join(tmpdir(), 'sow-bench-cli-'));
  workDirs.push(dir);
  cpSync(join(PKG_ROOT, 'dist'), join(dir, 'dist'), { recursive: true });
  if (existsSync(join(PKG_ROOT, 'templates'))) symlinkSync(join(PKG_ROOT, 'templates'), join(dir, 'templates'));
  SOW = join(dir, 'dist', 'sow.cjs');
  // sow's compile cache (src/adapters/compile-cache.ts) lives beside this copy, not in ~/.cache;
  // the warm-up round fills it, as a user's first commands do.
  CHILD_ENV.XDG_CACHE_HOME = join(dir, 'cache-home');
}

// ---------------------------------------------------------------------------------------------
// A project with n tasks

const taskDir = (id) => `.sow/project/phases/implementation/tasks/${id}`;
const INDEX = '.git/sow/tasks.json';

/** Ids as sow numbers them: 010, 020, …, 990, 1000, 1010, … */
function taskIds(n) {
  return Array.from({ length: n }, (_, i) => String((i + 1) * 10).padStart(3, '0'));
}

const AREAS = [
  'auth',
  'billing',
  'search',
  'reports',
  'notifications',
  'accounts',
  'export',
  'settings',
  'audit',
  'api',
];
const VERBS = ['Implement', 'Refactor', 'Test', 'Document', 'Harden', 'Add metrics to', 'Migrate', 'Fix edge cases in'];

function generatedTask(id, i, ids, template, allPending = false) {
  const area = AREAS[i % AREAS.length];
  const status = allPending
    ? 'pending'
    : READY
      ? 'completed'
      : i % 10 < 6
        ? 'completed'
        : i % 10 < 7
          ? 'in_progress'
          : 'pending';
  const at = (minutes) => new Date(Date.parse(template.created_at) + minutes * 60_000).toISOString();
  const task = {
    id,
    name: `${VERBS[i % VERBS.length]} the ${area} module, part ${i + 1}`,
    phase: 'implementation',
    status,
    iteration: 1,
    assigned_agent: i % 7 === 3 ? 'reviewer' : 'implementer',
    parallel: i % 3 === 0,
    dependencies: i % 4 === 1 ? [ids[i - 1]] : [],
    created_at: at(i),
    ...(status !== 'pending' ? { started_at: at(i + 1) } : {}),
    updated_at: at(i + 2),
    ...(status === 'completed' ? { completed_at: at(i + 2) } : {}),
    inputs: [
      { type: 'reference', path: `knowledge/${area}-design.md`, created_at: at(i) },
      ...(i % 5 === 0
        ? [
            {
              type: 'feedback',
              path: `phases/implementation/tasks/${id}/feedback/001.md`,
              created_at: at(i + 1),
              metadata: { status: 'addressed' },
            },
          ]
        : []),
    ],
    outputs:
      status === 'pending'
        ? []
        : [
            { type: 'modified', path: `src/${area}/part-${i + 1}.ts`, created_at: at(i + 2) },
            { type: 'modified', path: `src/${area}/part-${i + 1}.test.ts`, created_at: at(i + 2) },
          ],
    metadata: {},
  };
  return task;
}

/** A task log of 10,000 entries, each as `sow log` writes one. */
function bigLog(id, name) {
  const entries = [`# Task log: ${id} ${name}\n`];
  for (let i = 0; i < 10_000; i++) {
    const at = new Date(Date.UTC(2026, 10, 1) + i * 60_000).toISOString();
    entries.push(
      `\n---\ntimestamp: "${at}"\nagent: implementer-1\naction: modified_file\nresult: ` +
        `success\n---\n\nStep ${i + 1}: changed the parser and ran the tests.\n`,
    );
  }
  return entries.join('');
}

function setUpProject(n, { allPending = false } = {}) {
  const started = performance.now();
  const repo = mkdtempSync(join(tmpdir(), `sow-bench-${n}-`));
  workDirs.push(repo);
  git(repo, 'init', '-q');
  git(repo, 'checkout', '-q', '-b', 'main');
  writeFileSync(join(repo, 'README.md'), `# bench repo (${n} tasks)\n`);
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'init');

  // The real CLI makes the project, so everything but the tasks is exactly what sow writes.
  sow(repo, ['init']);
  sow(repo, ['project', 'new', 'bench', '--description', `Benchmark project with ${n} tasks`]);
  mkdirSync(join(repo, '.sow/project/planning'), { recursive: true });
  writeFileSync(join(repo, '.sow/project/planning/tasks.md'), '# Tasks\n');
  sow(repo, ['output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md']);
  sow(repo, ['output', 'set', '--index', '0', 'approved', 'true']);
  sow(repo, ['advance']);
  for (const name of ['Implement JWT signing', 'Implement JWT verification', 'Add auth middleware']) {
    sow(repo, ['task', 'add', name, '--agent', 'implementer', '--description', `${name}.`]);
  }
  sow(repo, ['phase', 'set', 'tasks_approved', 'true']);
  sow(repo, ['advance']);

  // Our emitter must reproduce what sow wrote, byte for byte, or the generated files would not
  // be "the format sow writes".
  // The file itself, not `task get --json`, which leaves out empty fields a state file keeps.
  const realText = readFileSync(join(repo, `${taskDir('010')}/state.yaml`), 'utf8');
  const realTask = parseYaml(realText);
  if (realText !== emitYaml(realTask)) {
    log(
      "warning: bench's YAML emitter differs from sow's for the task state file; the generated files may not look " +
        "like sow's (they are still checked to load)",
    );
  }

  // Generate n tasks in place of the three, one folder per task (the project file lists none).
  rmSync(join(repo, '.sow/project/phases/implementation/tasks'), { recursive: true, force: true });
  const ids = taskIds(n);
  ids.forEach((id, i) => {
    const task = generatedTask(id, i, ids, realTask, allPending);
    const dir = join(repo, taskDir(id));
    const text = emitYaml(task);
    mkdirSync(join(dir, 'feedback'), { recursive: true });
    writeFileSync(join(dir, 'feedback', '.gitkeep'), '');
    writeFileSync(join(dir, 'state.yaml'), text);
    writeFileSync(
      join(dir, 'description.md'),
      `# ${task.name}\n\n${task.name} so that the ${AREAS[i % AREAS.length]} module does what the plan says.\n`,
    );
    writeFileSync(join(dir, 'log.md'), id === '030' ? bigLog(id, task.name) : `# Task log: ${id} ${task.name}\n\n`);
    if (i % 5 === 0) writeFileSync(join(dir, 'feedback', '001.md'), '# Feedback\n\nPlease handle the empty case.\n');
  });
  mkdirSync(join(repo, '.sow/project/ctx'), { recursive: true });
  writeFileSync(join(repo, '.sow/project/ctx/bench.md'), '# Bench context\n');
  rmSync(join(repo, INDEX), { force: true });

  // The generated state must load, whole and per task.
  const listed = sow(repo, ['task', 'list'], { json: true }).data;
  if (listed.length !== n || listed.some((t, i) => t.id !== ids[i]))
    throw new Error(`generated project lists ${listed.length} tasks, expected ${n}`);
  for (const id of ['010', ids[ids.length - 1]]) {
    const got = sow(repo, ['task', 'get', '--id', id], { json: true }).data;
    if (got.id !== id) throw new Error(`'sow task get --id ${id}' returned task ${got.id}`);
  }
  const state = sow(repo, ['phase', 'get', 'status', '--phase', 'implementation']).stdout.trim();
  if (state !== 'in_progress') throw new Error(`implementation phase is '${state}', expected in_progress`);
  log(`  ${n} tasks: set up in ${Math.round(performance.now() - started)} ms at ${repo}`);
  return repo;
}

// ---------------------------------------------------------------------------------------------
// What is measured

/** `kind` picks the budget; `args(i)` may vary per run (writes alternate values so each one writes). */
const COMMANDS = [
  // Start-up alone (no workspace is read): the part of every figure below that no data explains.
  { label: '--version', kind: 'read', args: () => ['--version'], startup: true },
  { label: 'task list', kind: 'read', args: () => ['task', 'list'] },
  { label: 'phase get tasks_approved', kind: 'read', args: () => ['phase', 'get', 'tasks_approved'] },
  { label: 'task get --id 010', kind: 'read', args: () => ['task', 'get', '--id', '010'] },
  { label: 'project status', kind: 'read', args: () => ['project', 'status'] },
  { label: 'advance --dry-run', kind: 'read', args: () => ['advance', '--dry-run'], expect: READY ? [0] : [3] },
  {
    label: 'task set --id 010 iteration N',
    kind: 'write',
    args: (i) => ['task', 'set', '--id', '010', 'iteration', String(2 + (i % 2))],
  },
  // Each run adds one input; ~20 extra lines next to 1,000 task summaries do not move the figure.
  {
    label: 'input add --type context',
    kind: 'write',
    args: () => ['input', 'add', '--type', 'context', '--path', 'ctx/bench.md'],
  },
  // An append to a task's log ("log append < 100 ms, append-only writes"): on 020, whose log is short,
  // and on 030, whose log the set-up filled with 10,000 entries.
  {
    label: 'log --task 020 (a short log)',
    kind: 'write',
    args: (i) => ['log', '--task', '020', '--agent', 'bench', '--action', 'note', '--result', 'success', `run ${i}`],
  },
  {
    label: 'log --task 030 (10,000 entries)',
    kind: 'write',
    args: (i) => ['log', '--task', '030', '--agent', 'bench', '--action', 'note', '--result', 'success', `run ${i}`],
    bigLog: true,
  },
  // The first read after a clone or a checkout has no task index: it reads every task file.
  { label: 'task list (cold index)', kind: 'read', args: () => ['task', 'list'], cold: true, info: true },
  // The first command after installing or upgrading sow (and every command on Node < 20.15) runs
  // without the compile cache; shown for information, since it happens once.
  {
    label: 'task list (no compile cache)',
    kind: 'read',
    args: () => ['task', 'list'],
    env: { SOW_NO_COMPILE_CACHE: '1' },
    info: true,
  },
];

function timeOnce(cmd, argv, cwd, env) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, argv, {
    cwd,
    env: env ? { ...CHILD_ENV, ...env } : CHILD_ENV,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  return { ms, status: r.status, stdout: r.stdout, stderr: r.stderr, signal: r.signal };
}

/** Runs the command with the task index moved aside, then puts the warm index back untouched. */
function withColdIndex(repo, fn) {
  const index = join(repo, INDEX);
  const aside = join(repo, `${INDEX}.bench-warm`);
  if (existsSync(index)) renameSync(index, aside);
  try {
    return fn();
  } finally {
    rmSync(index, { force: true });
    if (existsSync(aside)) renameSync(aside, index);
  }
}

/** One timed run; a run that exits unexpectedly marks the row as failed (it is not timed again). */
function measure(row, repo, i) {
  if (row.error) return undefined;
  const argv = [SOW, ...row.args(i)];
  const r = row.cold
    ? withColdIndex(repo, () => timeOnce(process.execPath, argv, repo, row.env))
    : timeOnce(process.execPath, argv, repo, row.env);
  const expect = row.expect ?? [0];
  row.exit.add(r.status ?? r.signal);
  if (!expect.includes(r.status)) {
    const first = `${r.stderr}${r.stdout}`.trim().split('\n')[0] ?? '';
    row.error = `exit ${r.status ?? r.signal} (expected ${expect.join(' or ')}): ${first}`;
    log(`\n  error: 'sow ${row.args(i).join(' ')}' at ${row.size} tasks: ${row.error}`);
    return undefined;
  }
  return r.ms;
}

const FLOOR_ARGV = ['-e', '0'];

function quantile(sorted, q) {
  // Nearest rank: the smallest sample with at least q of the samples at or below it.
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)];
}
const stats = (samples) => {
  const s = [...samples].sort((a, b) => a - b);
  return { median: quantile(s, 0.5), p90: quantile(s, 0.9), min: s[0], max: s[s.length - 1], n: s.length };
};

/** Peak resident memory of a child, in MB, and its exit status. */
function peakMemoryMb(argv, cwd) {
  if (existsSync('/usr/bin/time')) {
    const r = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, ...argv], {
      cwd,
      env: CHILD_ENV,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    const kb = Number(r.stderr.trim().split('\n').pop());
    if (Number.isFinite(kb) && kb > 0) return { mb: kb / 1024, status: r.status, via: '/usr/bin/time -f %M' };
  }
  // A wrapper that runs the CLI in-process and reports its own maxRSS (KB) as it exits.
  const report = "process.on('exit',()=>process.stderr.write('\\nRSS '+process.resourceUsage().maxRSS+'\\n'));";
  const wrapper =
    argv[0] === '-e'
      ? `${report}${argv[1]}`
      : `${report}process.argv=[process.argv[0],${JSON.stringify(argv[0])},` +
        `...${JSON.stringify(argv.slice(1))}];await ` +
        `import(${JSON.stringify(pathToFileURL(argv[0]).href)});`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', wrapper], {
    cwd,
    env: CHILD_ENV,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const m = /RSS (\d+)\s*$/.exec(r.stderr);
  if (!m) throw new Error(`could not measure the memory of ${argv.join(' ')}: ${r.stderr}`);
  return { mb: Number(m[1]) / 1024, status: r.status, via: 'process.resourceUsage().maxRSS of an in-process wrapper' };
}

// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// The long-lived server: `sow mcp` answers many calls; each is timed from the request written to
// its answer read, on one server per project size, after a warm-up call of each tool.

const MCP_BUDGET_MS = 5;
const MCP_CALLS = [
  { tool: 'status', args: {} },
  { tool: 'task_next', args: {} },
  { tool: 'continue', args: {} },
  { tool: 'advance', args: { dry_run: true } },
  { tool: 'artifact', args: { action: 'output list' } },
];

async function measureMcp(repo, size, runs, mix = 'mixed statuses') {
  const child = spawn(process.execPath, [SOW, 'mcp'], { cwd: repo, env: CHILD_ENV, stdio: ['pipe', 'pipe', 'pipe'] });
  const ended = new Promise((resolve) => child.on('exit', resolve));
  const { request } = lineClient(child);
  const rows = [];
  try {
    await request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'sow-bench', version: '1' },
    });
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    for (const c of MCP_CALLS) {
      const row = {
        command: `mcp ${c.tool}${Object.keys(c.args).length ? ` ${JSON.stringify(c.args)}` : ''} (${mix})`,
        tasks: size,
        samples: [],
        error: undefined,
      };
      const first = await request('tools/call', { name: c.tool, arguments: c.args });
      const text = first.result?.content?.[0]?.text ?? '';
      // advance --dry-run is refused by its guard here (the project is not ready): that is an answer too.
      if (first.error || (first.result?.isError && !(c.tool === 'advance' && /GUARD_BLOCKED|"ok":false/.test(text))))
        row.error = (first.error?.message ?? text).slice(0, 200);
      for (let i = 0; i < runs && !row.error; i++) {
        const t0 = performance.now();
        await request('tools/call', { name: c.tool, arguments: c.args });
        row.samples.push(performance.now() - t0);
      }
      rows.push(row);
    }
  } finally {
    child.stdin.end();
    await ended;
  }
  return rows.map((row) => {
    if (row.error)
      return {
        command: row.command,
        tasks: row.tasks,
        p50_ms: null,
        p90_ms: null,
        min_ms: null,
        budget_ms: MCP_BUDGET_MS,
        verdict: 'ERROR',
        error: row.error,
        calls: 0,
      };
    const st = stats(row.samples);
    return {
      command: row.command,
      tasks: row.tasks,
      p50_ms: round1(st.median),
      p90_ms: round1(st.p90),
      min_ms: round1(st.min),
      budget_ms: size >= LARGE && size < HUGE ? MCP_BUDGET_MS : null,
      verdict: size >= LARGE && size < HUGE ? (st.median <= MCP_BUDGET_MS ? 'PASS' : 'OVER') : 'info',
      calls: st.n,
    };
  });
}

/**
 * `sow ui` at 1,000 tasks: the project page (its HTML, then its data — what the page fetches on
 * load) timed from request to answer; a task change made by a sow command, timed from the command's
 * exit to the server-sent event that tells the page; and the server's CPU while nothing happens.
 */
const UI_BUDGETS = { pageAndDataOverFloorMs: 100, changeVisibleMs: 1000, idleCpuPercent: 1 };
async function measureUi(repo, floorMs, runs) {
  const child = spawn(process.execPath, [SOW, 'ui', '--json', '--no-open'], {
    cwd: repo,
    env: CHILD_ENV,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const rows = [];
  try {
    const first = await new Promise((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
        if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]).data);
      });
      child.on('exit', (code) => reject(new Error(`sow ui exited ${code}`)));
    });
    const base = `http://127.0.0.1:${first.port}`;
    const get = async (path) => {
      const res = await fetch(`${base}${path}${path.includes('?') ? '&' : '?'}token=${first.token}`);
      if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
      return res.text();
    };
    await get('/api/view?name=project');
    const samples = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      await get('/');
      await get('/api/view?name=project');
      samples.push(performance.now() - t0);
    }
    const st = stats(samples);
    rows.push({
      command: 'sow ui: project page + its data (1000 tasks)',
      median_ms: round1(st.median),
      p90_ms: round1(st.p90),
      over_floor_ms: round1(st.median - floorMs),
      budget: `+${UI_BUDGETS.pageAndDataOverFloorMs} ms`,
      verdict: st.median - floorMs <= UI_BUDGETS.pageAndDataOverFloorMs ? 'PASS' : 'OVER',
    });

    // A change, from the command's exit to the event.
    const res = await fetch(`${base}/api/changes?token=${first.token}`);
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let seen = 0;
    let text = '';
    const pump = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        text += decoder.decode(value);
        seen = (text.match(/event: change/g) ?? []).length;
      }
    })();
    const delays = [];
    for (let i = 0; i < 5; i++) {
      const before = seen;
      sow(repo, ['task', 'set', '--id', '010', 'metadata.bench', String(i)]);
      const t0 = performance.now();
      while (seen === before && performance.now() - t0 < 5_000) await new Promise((r) => setTimeout(r, 5));
      delays.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 300));
    }
    const worst = Math.max(...delays);
    rows.push({
      command: 'sow ui: a task change reaches the page (after the command exits)',
      median_ms: round1(stats(delays).median),
      p90_ms: round1(worst),
      over_floor_ms: null,
      budget: `≤ ${UI_BUDGETS.changeVisibleMs} ms`,
      verdict: worst <= UI_BUDGETS.changeVisibleMs ? 'PASS' : 'OVER',
    });

    // Idle: CPU ticks of the server over five quiet seconds (an open page listening).
    const ticks = () => {
      const f = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
      const parts = f.slice(f.lastIndexOf(')') + 2).split(' ');
      return Number(parts[11]) + Number(parts[12]);
    };
    if (existsSync(`/proc/${child.pid}/stat`)) {
      const t0 = ticks();
      await new Promise((r) => setTimeout(r, 5_000));
      const percent = ((ticks() - t0) / 100 / 5) * 100;
      rows.push({
        command: 'sow ui: CPU while idle, a page listening (5 s)',
        median_ms: null,
        p90_ms: null,
        over_floor_ms: null,
        cpu_percent: round1(percent),
        budget: `< ${UI_BUDGETS.idleCpuPercent} %`,
        verdict: percent < UI_BUDGETS.idleCpuPercent ? 'PASS' : 'OVER',
      });
    }
    await reader.cancel().catch(() => undefined);
    await pump.catch(() => undefined);
  } catch (err) {
    rows.push({
      command: 'sow ui',
      median_ms: null,
      p90_ms: null,
      over_floor_ms: null,
      budget: '',
      verdict: 'ERROR',
      error: String(err?.message ?? err).slice(0, 200),
    });
  } finally {
    child.kill('SIGINT');
  }
  return rows;
}

/**
 * Workers at work: `sow agent ps` with ten detached workers running (the fake claude of the tests,
 * waiting on a file), and `sow agent events` reading a run of 10,000 events. Each sample is paired
 * with a floor run just before it, as the rows above.
 */
const WORKERS = 10;
const EVENTS = 10_000;
const WORKER_BUDGETS = { ps: 50, events: 100 };
function measureWorkers(runs) {
  const repo = setUpProject(WORKERS + 2);
  const bin = join(repo, '..', `${repo.split('/').pop()}-bin`);
  workDirs.push(bin);
  mkdirSync(bin, { recursive: true });
  const fake = fileURLToPath(new URL('../test/fakes/fake-agent.mjs', import.meta.url));
  writeFileSync(join(bin, 'claude'), `#!/bin/sh\nexec "${process.execPath}" "${fake}" claude "$@"\n`, { mode: 0o755 });
  writeFileSync(join(bin, 'sow'), `#!/bin/sh\nexec "${process.execPath}" "${SOW}" "$@"\n`, { mode: 0o755 });
  const go = join(bin, 'go');
  const env = {
    PATH: `${bin}:${CHILD_ENV.PATH ?? ''}`,
    FAKE_AGENT_HOME: join(bin, 'home'),
    FAKE_AGENT_LOG: join(bin, 'calls.log'),
    FAKE_AGENT_SCRIPT: JSON.stringify([{ wait: go }]),
  };
  const ids = taskIds(WORKERS + 2).slice(0, WORKERS);
  const out = [];
  const row = (command, budget, fn) => {
    const samples = [];
    const over = [];
    for (let i = 0; i < runs + 1; i++) {
      const floor = timeOnce(process.execPath, FLOOR_ARGV).ms;
      const r = fn();
      if (r.status !== 0)
        return out.push({
          command,
          median_ms: null,
          over_floor_ms: null,
          budget_ms: budget,
          verdict: 'ERROR',
          error: `exit ${r.status}: ${(r.stderr || r.stdout).trim().split('\n')[0]}`,
        });
      if (i === 0) continue; // warm-up
      samples.push(r.ms);
      over.push(r.ms - floor);
    }
    const s = stats(samples);
    const o = stats(over).median;
    out.push({
      command,
      median_ms: round1(s.median),
      p90_ms: round1(s.p90),
      over_floor_ms: round1(o),
      budget_ms: budget,
      verdict: o <= budget ? 'PASS' : 'OVER',
    });
  };
  try {
    // --force: the generated tasks are in every state; the bench wants ten workers, not the guards.
    for (const id of ids) sow(repo, ['agent', 'spawn', 'implementer', id, '--detach', '--force'], { env });
    const live = sow(repo, ['agent', 'ps'], { json: true, env }).data.filter((w) => w.state === 'running').length;
    if (live !== WORKERS) throw new Error(`${live} of ${WORKERS} workers running`);
    row(`sow agent ps (${WORKERS} workers running)`, WORKER_BUDGETS.ps, () =>
      timeOnce(process.execPath, [SOW, 'agent', 'ps'], repo, env),
    );
  } finally {
    writeFileSync(go, '');
    timeOnce(process.execPath, [SOW, 'agent', 'wait', '--timeout', '60s'], repo, env);
  }
  // A long run: 10,000 events, as Claude Code writes them, and sow's reading of them.
  const dir = join(repo, '.git/sow/agent-outputs', ids[0]);
  const stamp = '2999-01-01T00-00-00-000Z-resume';
  const raw = [];
  const events = [];
  for (let i = 0; i < EVENTS; i++) {
    const at = new Date(Date.UTC(2026, 10, 26, 10, 0, 0) + i * 100).toISOString();
    if (i % 2 === 0) {
      raw.push(
        JSON.stringify({
          type: 'assistant',
          message: {
            content: [{ type: 'tool_use', name: 'Bash', input: { command: `npm test -- --grep case-${i}` } }],
          },
        }),
      );
      events.push(JSON.stringify({ at, kind: 'tool_call', text: `Bash: npm test -- --grep case-${i}`, tool: 'Bash' }));
    } else {
      raw.push(
        JSON.stringify({
          type: 'assistant',
          message: { content: [{ type: 'text', text: `Case ${i} passes; on to the next one.` }] },
        }),
      );
      events.push(JSON.stringify({ at, kind: 'message', text: `Case ${i} passes; on to the next one.` }));
    }
  }
  writeFileSync(join(dir, `${stamp}.jsonl`), `${raw.join('\n')}\n`);
  writeFileSync(join(dir, `${stamp}.events.jsonl`), `${events.join('\n')}\n`);
  row(`sow agent events (${EVENTS.toLocaleString('en-US')} events)`, WORKER_BUDGETS.events, () =>
    timeOnce(process.execPath, [SOW, 'agent', 'events', ids[0]], repo, env),
  );
  return out;
}

let loadStart = 0;
let loadPeak = 0;

async function main() {
  loadStart = loadavg()[0];
  log(`sow bench: ${RUNS} runs per command, sizes ${SIZES.join(', ')}, node ${process.version}, ${cpus().length} CPUs`);
  snapshotCli();
  const repos = new Map(SIZES.map((n) => [n, setUpProject(n)]));
  // The task index keeps a task only once its file is 2 s old (docs/decisions/0009): let the
  // generated files settle, as a project's files have long done when someone lists them.
  spawnSync(process.execPath, ['-e', 'setTimeout(() => {}, 2200)']);

  const rows = [];
  for (const n of SIZES) {
    for (const c of COMMANDS) {
      if (c.cold && n < LARGE && SIZES.includes(LARGE)) continue; // the cold figure is asked for from 1,000 tasks
      if ((c.startup || c.info) && n !== SIZES[0]) continue;
      // A cold index at 10,000 tasks reads every file: shown, but the budget is for warm reads.
      rows.push({
        ...c,
        size: n,
        samples: [],
        overFloor: [],
        ratios: [],
        exit: new Set(),
        ...(c.cold && n >= HUGE ? { info: true } : {}),
      });
    }
  }
  const floor = [];

  log('  warming up (one run of each command)…');
  timeOnce(process.execPath, FLOOR_ARGV);
  for (const row of rows) measure(row, repos.get(row.size), RUNS + 1);

  for (let round = 0; round < RUNS; round++) {
    if (process.stderr.isTTY) process.stderr.write(`\r  round ${round + 1}/${RUNS}`);
    else if (round === 0) log(`  measuring ${RUNS} interleaved rounds…`);
    // Rotate the order each round so no command always follows the same one.
    const order = rows.map((_, i) => rows[(i + round) % rows.length]);
    loadPeak = Math.max(loadPeak, loadavg()[0]);
    let lastFloor = timeOnce(process.execPath, FLOOR_ARGV).ms;
    floor.push(lastFloor);
    order.forEach((row, k) => {
      const ms = measure(row, repos.get(row.size), round);
      if (ms !== undefined) {
        row.samples.push(ms);
        // Paired with the floor run just before it: a slow minute of the machine moves both.
        row.overFloor.push(ms - lastFloor);
        row.ratios.push(ms / lastFloor);
      }
      if (k === Math.floor(order.length / 2)) {
        lastFloor = timeOnce(process.execPath, FLOOR_ARGV).ms;
        floor.push(lastFloor);
      }
    });
  }
  if (process.stderr.isTTY) process.stderr.write('\n');

  const floorStats = stats(floor);
  const results = rows.map((row) => {
    const budget = row.info
      ? null
      : row.size >= HUGE && row.label === 'task list'
        ? { overMs: HUGE_LIST_OVER_MS }
        : budgetFor(row.kind, row.size, row.startup);
    const base = {
      command: `sow ${row.label}`,
      tasks: row.startup ? null : row.size,
      kind: row.kind,
      index: row.cold ? 'cold' : 'warm',
      exit: [...row.exit].sort((a, b) => a - b),
    };
    if (row.error)
      return {
        ...base,
        median_ms: null,
        p90_ms: null,
        min_ms: null,
        over_floor_ms: null,
        min_over_floor_min_ms: null,
        ratio_to_floor: null,
        budget,
        verdict: 'ERROR',
        error: row.error,
        runs: row.samples.length,
      };
    const s = stats(row.samples);
    const overFloor = stats(row.overFloor).median;
    return {
      ...base,
      median_ms: round1(s.median),
      p90_ms: round1(s.p90),
      min_ms: round1(s.min),
      over_floor_ms: round1(overFloor),
      // Best case against best case: on a shared, noisy machine the minimum is the steadiest figure.
      min_over_floor_min_ms: round1(s.min - floorStats.min),
      ratio_to_floor: medianRatio(row.ratios),
      budget,
      verdict:
        budget === null
          ? 'info'
          : (budget.ratio !== undefined ? medianRatio(row.ratios) <= budget.ratio : overFloor <= budget.overMs)
            ? 'PASS'
            : 'OVER',
      runs: s.n,
    };
  });

  log('  measuring peak memory…');
  const memory = [];
  const largest = Math.max(...SIZES);
  const bigRepo = repos.get(largest);
  const memRow = (label, argv, size, cold, budget) => {
    const cwd = repos.get(size) ?? bigRepo;
    const samples = Array.from({ length: 3 }, () =>
      cold ? withColdIndex(cwd, () => peakMemoryMb(argv, cwd)) : peakMemoryMb(argv, cwd),
    );
    const peak = Math.max(...samples.map((s) => s.mb));
    const failed = samples.find((s) => s.status !== 0);
    const verdict = failed ? 'ERROR' : budget === null ? '' : peak <= budget ? 'PASS' : 'OVER';
    memory.push({
      command: label,
      tasks: size,
      peak_mb: round1(peak),
      budget_mb: budget,
      verdict,
      ...(failed ? { error: `exit ${failed.status} (the timed rows above show the message)` } : {}),
      via: samples[0].via,
    });
  };
  memRow('node -e 0 (floor)', FLOOR_ARGV, null, false, null);
  for (const n of SIZES.filter((size) => size >= LARGE)) {
    memRow('sow task list', [SOW, 'task', 'list'], n, false, memoryBudgetFor(n));
    memRow('sow task list (cold index)', [SOW, 'task', 'list'], n, true, n >= HUGE ? null : memoryBudgetFor(n));
  }

  // Instruction counts do not move with the machine's load the way wall time does, so they tell
  // whether a change made a command cheaper when the medians are too noisy to say.
  const instructions = [];
  if (args.has('--instructions')) {
    log('  counting instructions with valgrind (lowest of three runs each)…');
    // V8 picks its hash seed by testing random numbers for primality (HashSeed::InitializeRoots,
    // detail::sprp): a random amount of work in every process, the floor's too, 4 to 16 M
    // instructions here. Left out, and with the lowest of three runs, repeated counts of one build
    // agree to about 1 M. `argvFor(k)` may differ per run (a write that writes each time).
    const out = join(tmpdir(), `sow-bench-callgrind-${process.pid}.out`);
    const countOnce = (argv, cwd) => {
      const r = spawnSync(
        'valgrind',
        ['--tool=callgrind', '--log-file=/dev/null', `--callgrind-out-file=${out}`, process.execPath, ...argv],
        {
          cwd,
          env: CHILD_ENV,
          encoding: 'utf8',
          maxBuffer: 64 * 1024 * 1024,
        },
      );
      if (r.error || !existsSync(out)) return null;
      const total = /^summary: (\d+)$/m.exec(readFileSync(out, 'utf8'));
      const annotated = spawnSync('callgrind_annotate', [out], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      rmSync(out, { force: true });
      if (!total) return null;
      const seed = /^\s*([\d,]+) .*detail::sprp\(/m.exec(annotated.stdout ?? '');
      return Number(total[1]) - (seed ? Number(seed[1].replaceAll(',', '')) : 0);
    };
    const count = (argvFor, cwd) => {
      const counts = [0, 1, 2].map((k) => countOnce(argvFor(k), cwd));
      return counts.includes(null) ? null : Math.min(...counts);
    };
    const floorCount = count(() => FLOOR_ARGV, bigRepo);
    if (floorCount === null) log('  valgrind is not available; skipping instruction counts');
    else {
      // Convert to milliseconds at the floor's own pace: its median time over its instructions.
      const msPerInstruction = floorStats.median / floorCount;
      instructions.push({
        command: 'node -e 0 (floor)',
        tasks: null,
        instructions: floorCount,
        over_floor: 0,
        est_ms_over_floor: 0,
      });
      for (const row of rows) {
        if (row.error || row.cold || row.info) continue;
        const n = count((k) => [SOW, ...row.args(RUNS + 2 + k)], repos.get(row.size));
        if (n === null) continue;
        instructions.push({
          command: `sow ${row.label}`,
          tasks: row.startup ? null : row.size,
          instructions: n,
          over_floor: n - floorCount,
          est_ms_over_floor: round1((n - floorCount) * msPerInstruction),
        });
      }
    }
  }

  log('  timing sow mcp tool calls…');
  const mcp = [];
  for (const n of SIZES) mcp.push(...(await measureMcp(repos.get(n), n, Math.max(RUNS, 20))));
  // The start of execution: every task pending, what lists and the next task walk through whole.
  if (SIZES.includes(LARGE)) {
    const pending = setUpProject(LARGE, { allPending: true });
    spawnSync(process.execPath, ['-e', 'setTimeout(() => {}, 2200)']);
    mcp.push(...(await measureMcp(pending, LARGE, Math.max(RUNS, 20), 'all pending')));
  }

  log('  timing workers at work (agent ps, agent events)…');
  const workers = measureWorkers(Math.min(RUNS, 11));

  log('  timing sow ui at 1000 tasks…');
  const ui = repos.has(LARGE) ? await measureUi(repos.get(LARGE), floorStats.median, Math.min(RUNS, 11)) : [];

  const over = [...results, ...memory, ...mcp, ...workers, ...ui].filter(
    (r) => r.verdict === 'OVER' || r.verdict === 'ERROR',
  ).length;
  const report = {
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    cpus: cpus().length,
    cpu: cpus()[0]?.model ?? 'unknown',
    runs: RUNS,
    load_average: {
      start: round1(loadStart),
      end: round1(loadavg()[0]),
      max: round1(Math.max(loadStart, loadavg()[0], loadPeak)),
    },
    floor: {
      command: `node ${FLOOR_ARGV.join(' ')}`,
      median_ms: round1(floorStats.median),
      p90_ms: round1(floorStats.p90),
      min_ms: round1(floorStats.min),
      runs: floorStats.n,
    },
    budgets: {
      version: budgetFor('read', 0, true),
      at_100_tasks: { read: budgetFor('read', 100), write: budgetFor('write', 100) },
      at_1000_tasks: { read: budgetFor('read', LARGE), write: budgetFor('write', LARGE) },
      at_10000_tasks: { 'task list': { overMs: HUGE_LIST_OVER_MS } },
      task_list_memory_mb_at_1000: memoryBudgetFor(LARGE),
      mcp_p50_ms_at_1000: MCP_BUDGET_MS,
    },
    rows: results,
    memory,
    mcp,
    workers,
    ui,
    instructions,
    over_budget: over,
  };

  if (JSON_OUT) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else process.stdout.write(renderTable(report));
  return over;
}

const round1 = (x) => Math.round(x * 10) / 10;
/** The median of ratios, to two decimals. */
const medianRatio = (ratios) => Math.round(stats(ratios).median * 100) / 100;

const budgetText = (b) => (b === null ? '—' : b.ratio !== undefined ? `≤ ${b.ratio.toFixed(1)}×` : `≤ +${b.overMs} ms`);

function renderTable(report) {
  const f = (x) => x.toFixed(1);
  const lines = [];
  lines.push(
    `sow bench — node ${report.node}, ${report.platform}, ${report.cpus}× ${report.cpu}, ${report.runs} runs per ` +
      `row (interleaved rounds)`,
  );
  lines.push(
    `floor: node -e 0  median ${f(report.floor.median_ms)} ms, p90 ${f(report.floor.p90_ms)} ms, ` +
      `min ${f(report.floor.min_ms)} ms (${report.floor.runs} runs)`,
  );
  if (report.load_average.max > report.cpus) {
    lines.push(
      `note: load average up to ${report.load_average.max.toFixed(1)} on ${report.cpus} CPUs during the run; other ` +
        `work on the machine inflates every figure (compare ratios, or rerun when it is quiet)`,
    );
  }
  lines.push(
    '(+floor: median over the runs of each run minus the floor run just before it in the same round, which the ' +
      'verdict uses; ×floor: the same as a ratio; min+floor: fastest run over the fastest floor run)',
  );
  lines.push(
    `budgets (median of each run over the floor run before it): --version ≤ 1.1×; at 100 tasks reads ≤ 1.4×, ` +
      `writes ≤ 1.6×; at ${LARGE} tasks reads ≤ 1.8×, writes ≤ 1.9×; at ${HUGE} tasks task list ≤ floor ` +
      `+ ${HUGE_LIST_OVER_MS} ms`,
  );
  lines.push('');
  const header = ['command', 'tasks', 'exit', 'min', 'median', 'p90', '+floor', '×floor', 'min+floor', 'budget', ''];
  const ms = (x) => (x === null ? '—' : `${f(x)} ms`);
  const body = report.rows.map((r) => [
    r.command,
    r.tasks === null ? '—' : String(r.tasks),
    r.exit.join(','),
    ms(r.min_ms),
    ms(r.median_ms),
    ms(r.p90_ms),
    r.over_floor_ms === null ? '—' : `${r.over_floor_ms >= 0 ? '+' : ''}${f(r.over_floor_ms)} ms`,
    r.ratio_to_floor === null ? '—' : `${r.ratio_to_floor.toFixed(2)}×`,
    r.min_over_floor_min_ms === null
      ? '—'
      : `${r.min_over_floor_min_ms >= 0 ? '+' : ''}${f(r.min_over_floor_min_ms)} ms`,
    budgetText(r.budget),
    r.verdict,
  ]);
  lines.push(...table(header, body, [false, true, true, true, true, true, true, true, true, true, false]));
  lines.push('');
  lines.push('peak memory (maxRSS, worst of 3 runs, each read whole in a process of its own):');
  const memBody = report.memory.map((m) => [
    m.command,
    m.tasks === null ? '' : String(m.tasks),
    `${f(m.peak_mb)} MB`,
    m.budget_mb === null ? '' : `≤ ${m.budget_mb} MB`,
    m.verdict || (m.tasks ? 'info' : ''),
  ]);
  lines.push(...table(['command', 'tasks', 'peak', 'budget', ''], memBody, [false, true, true, true, false]));
  lines.push(`  (measured with ${report.memory[0]?.via})`);
  lines.push('');
  lines.push(
    `sow mcp tool calls (one server per size; each call timed from request to answer; budget p50 ` +
      `≤ ${MCP_BUDGET_MS} ms at ${LARGE} tasks):`,
  );
  const mcpBody = report.mcp.map((m) => [
    m.command,
    String(m.tasks),
    ms(m.min_ms),
    ms(m.p50_ms),
    ms(m.p90_ms),
    String(m.calls),
    m.budget_ms === null ? '' : `≤ ${m.budget_ms} ms`,
    m.verdict,
  ]);
  lines.push(
    ...table(['tool', 'tasks', 'min', 'p50', 'p90', 'calls', 'budget', ''], mcpBody, [
      false,
      true,
      true,
      true,
      true,
      true,
      true,
      false,
    ]),
  );
  lines.push('');
  lines.push('workers at work (each run paired with a floor run just before it):');
  const workerBody = report.workers.map((w) => [
    w.command,
    ms(w.median_ms),
    ms(w.p90_ms),
    w.over_floor_ms === null ? '' : `+${f(w.over_floor_ms)} ms`,
    `+${w.budget_ms} ms`,
    w.verdict,
  ]);
  lines.push(
    ...table(['command', 'median', 'p90', '+floor', 'budget', ''], workerBody, [false, true, true, true, true, false]),
  );
  if (report.ui.length) {
    lines.push('');
    lines.push('sow ui (1000 tasks):');
    const uiBody = report.ui.map((u) => [
      u.command,
      u.cpu_percent !== undefined ? `${f(u.cpu_percent)} %` : ms(u.median_ms),
      ms(u.p90_ms),
      u.over_floor_ms === null ? '' : `+${f(u.over_floor_ms)} ms`,
      u.budget,
      u.verdict,
    ]);
    lines.push(
      ...table(['what', 'median', 'p90 / worst', '+floor', 'budget', ''], uiBody, [
        false,
        true,
        true,
        true,
        true,
        false,
      ]),
    );
  }
  if (report.instructions.length) {
    lines.push('');
    lines.push(
      "instructions (valgrind callgrind, lowest of three runs each, without V8's random hash-seed search; ms at " +
        "the floor's pace = instructions over floor × floor median ÷ floor instructions):",
    );
    const body = report.instructions.map((r) => [
      r.command,
      r.tasks === null ? '—' : String(r.tasks),
      `${(r.instructions / 1e6).toFixed(1)} M`,
      `+${(r.over_floor / 1e6).toFixed(1)} M`,
      `+${r.est_ms_over_floor.toFixed(1)} ms`,
    ]);
    lines.push(
      ...table(['command', 'tasks', 'instructions', 'over floor', '≈ ms'], body, [false, true, true, true, true]),
    );
  }
  const errors = [...report.rows, ...report.memory, ...report.mcp, ...report.workers, ...report.ui].filter(
    (r) => r.error,
  );
  if (errors.length) {
    lines.push('');
    lines.push('errors:');
    for (const r of errors) lines.push(`  - ${r.command}${r.tasks ? ` (${r.tasks} tasks)` : ''}: ${r.error}`);
  }
  lines.push('');
  lines.push(
    report.over_budget === 0 ? 'all rows within budget' : `${report.over_budget} row(s) over budget or failing`,
  );
  return `${lines.join('\n')}\n`;
}

function table(header, body, rightAlign) {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const fmt = (cells) =>
    cells
      .map((c, i) => (rightAlign[i] ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [fmt(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(fmt)].map((l) => `  ${l}`);
}

let code = 0;
try {
  const over = await main();
  code = CHECK && over > 0 ? 1 : 0;
} catch (err) {
  process.stderr.write(`\nbench: ${err instanceof Error ? err.message : String(err)}\n`);
  code = 2;
} finally {
  cleanup();
}
process.exit(code);
