#!/usr/bin/env node
/**
 * What sow puts in an agent's context, counted with a real tokenizer (o200k_base, gpt-tokenizer)
 * on a project as agents meet it: the built CLI makes a 40-task project in a temp git repository,
 * with 15 tasks done, and walks it through every state of the standard lifecycle. Each row is
 * judged against the design's budget:
 *
 *   always loaded in Claude Code without MCP ≤ 500   what `sow install claude` puts in the listings
 *                                                    (name + description of each command, agent and
 *                                                    skill) + the SessionStart hook's output, in the
 *                                                    state where that is largest
 *   SessionStart hook output ≤ 200, in every state   the hook command as installed, run by a shell
 *   the loop ≤ 200 tokens in ≤ 3 calls               claim (its output must hold the description) +
 *                                                    one log + finish, stdout and stderr of each call
 *   a worker's prompt + what it is told to read      the prompt `sow agent spawn <role>` sends
 *     ≤ 1,500, for every role but the orchestrator   (a fake CLI records it), and every guidance it
 *                                                    is told to run: `sow prompt …` in a command block
 *                                                    (recursively), the largest of a bulleted list of
 *                                                    alternatives; one named in a sentence is a file
 *                                                    it may read, and is not counted
 *   MCP tool definitions ≤ 1,400                     name + description + input schema of every tool,
 *                                                    as `tools/list` returns them from `sow mcp`
 *   `task list` at 40 tasks, piped ≤ 400
 *
 *   npm run tokens                  table on stdout, progress on stderr
 *   npm run tokens -- --json        one JSON document on stdout
 *   npm run tokens -- --check       exit 1 when a row is over its budget
 *   npm run tokens -- --keep        keep the temp repository and print where it is
 *
 * It measures; it is not a test: without --check it exits 0 whatever the numbers are.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { lineClient } from './mcp-lines.mjs';

const PKG_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SOW = process.env.SOW_TOKENS_BIN || join(PKG_ROOT, 'dist', 'sow.cjs');
const FAKE_AGENT = join(PKG_ROOT, 'test', 'fakes', 'fake-agent.mjs');
const args = new Set(process.argv.slice(2));
for (const a of args) {
  if (!['--json', '--check', '--keep', '--help', '-h'].includes(a)) {
    process.stderr.write(`tokens: unknown option '${a}' (try --help)\n`);
    process.exit(2);
  }
}
if (args.has('--help') || args.has('-h')) {
  process.stdout.write('usage: node scripts/tokens.mjs [--json] [--check] [--keep]\n');
  process.exit(0);
}
const JSON_OUT = args.has('--json');
const CHECK = args.has('--check');
const KEEP = args.has('--keep');

const TASKS = 40;
const DONE = 15;
const BUDGET = { alwaysLoaded: 500, hook: 200, loop: 200, loopCalls: 3, worker: 1500, mcp: 1400, taskList: 400 };

const log = (message) => process.stderr.write(`${message}\n`);
const tokens = (text) => countTokens(text);

// ---------------------------------------------------------------------------------------------
// Running things

const work = realpathSync(mkdtempSync(join(tmpdir(), 'sow-tokens-')));
const repo = join(work, 'repo');
const bin = join(work, 'bin');
const fakeLog = join(work, 'fake-agent.log');
for (const d of [repo, bin, join(work, 'home'), join(work, 'config'), join(work, 'state'), join(work, 'fake-home')])
  mkdirSync(d, { recursive: true });
// The hook runs `sow …` through a shell, and a worker's CLI is found on PATH: both are ours.
writeFileSync(join(bin, 'sow'), `#!/bin/sh\nexec "${process.execPath}" "${SOW}" "$@"\n`);
writeFileSync(join(bin, 'claude'), `#!/bin/sh\nexec "${process.execPath}" "${FAKE_AGENT}" claude "$@"\n`);
for (const f of ['sow', 'claude']) chmodSync(join(bin, f), 0o755);

const ENV = Object.fromEntries(
  Object.entries(process.env).filter(
    ([k]) => !/^(SOW_|FAKE_AGENT_)/.test(k) && !['FORCE_COLOR', 'CI', 'IS_SANDBOX'].includes(k),
  ),
);
Object.assign(ENV, {
  NO_COLOR: '1',
  GIT_CONFIG_NOSYSTEM: '1',
  HOME: join(work, 'home'),
  XDG_CONFIG_HOME: join(work, 'config'),
  XDG_STATE_HOME: join(work, 'state'),
  PATH: `${bin}${delimiter}${process.env.PATH ?? ''}`,
  FAKE_AGENT_HOME: join(work, 'fake-home'),
  FAKE_AGENT_LOG: fakeLog,
  GIT_AUTHOR_NAME: 'Tokens Person',
  GIT_AUTHOR_EMAIL: 'tokens@sow.invalid',
  GIT_COMMITTER_NAME: 'Tokens Person',
  GIT_COMMITTER_EMAIL: 'tokens@sow.invalid',
});

function run(file, argv, { expect = [0], env, input = '' } = {}) {
  const r = spawnSync(file, argv, {
    cwd: repo,
    env: env ? { ...ENV, ...env } : ENV,
    encoding: 'utf8',
    input,
    maxBuffer: 64 * 1024 * 1024,
  });
  const shown = file === process.execPath ? ['sow', ...argv.slice(1)] : [file, ...argv];
  if (expect && !expect.includes(r.status))
    throw new Error(
      `'${shown.join(' ')}' exited ${r.status ?? r.signal} (expected ${expect.join(' or ')})\n${r.stdout}${r.stderr}`,
    );
  return r;
}
const sow = (argv, opts) => run(process.execPath, [SOW, ...argv], opts);
const git = (...argv) => run('git', ['-c', 'commit.gpgsign=false', ...argv]);
/** What an agent reads of a call: everything it printed, stdout and stderr. */
const printed = (r) => `${r.stdout}${r.stderr}`;
const state = () => JSON.parse(sow(['--json', 'project', 'continue']).stdout).data.state;
function write(rel, text) {
  mkdirSync(dirname(join(repo, rel)), { recursive: true });
  writeFileSync(join(repo, rel), text);
}

function advanceTo(to) {
  sow(['advance']);
  const now = state();
  if (now !== to) throw new Error(`'sow advance' moved to ${now}, expected ${to}`);
}

// ---------------------------------------------------------------------------------------------
// What Claude Code always carries

/** The front matter of a markdown file sow installed: its fields, as one-line strings. */
function frontMatter(path) {
  const text = readFileSync(path, 'utf8');
  const m = /^---\n([\s\S]*?)\n---\n/.exec(text);
  if (!m) throw new Error(`${path} has no front matter`);
  const fields = {};
  for (const line of m[1].split('\n')) {
    const i = line.indexOf(':');
    if (i < 0) continue;
    const raw = line.slice(i + 1).trim();
    fields[line.slice(0, i).trim()] = raw.startsWith('"') ? JSON.parse(raw) : raw;
  }
  return fields;
}

/** The lines Claude Code lists for what `sow install claude` wrote: `- name: description` each. */
function listings() {
  const lines = [];
  for (const f of readdirSync(join(repo, '.claude/agents')).sort()) {
    const fm = frontMatter(join(repo, '.claude/agents', f));
    lines.push(`- ${fm.name}: ${fm.description}`);
  }
  for (const f of readdirSync(join(repo, '.claude/commands/sow')).sort()) {
    const fm = frontMatter(join(repo, '.claude/commands/sow', f));
    lines.push(`- /sow:${f.replace(/\.md$/, '')}: ${fm.description}`);
  }
  const skill = frontMatter(join(repo, '.claude/skills/sow/SKILL.md'));
  lines.push(`- ${skill.name}: ${skill.description}`);
  return lines.join('\n');
}

/**
 * The SessionStart hooks as installed, each run by a shell as Claude Code runs it; what they print goes into the
 * context.
 */
function hookOutput() {
  const settings = JSON.parse(readFileSync(join(repo, '.claude/settings.json'), 'utf8'));
  const commands = (settings.hooks?.SessionStart ?? []).flatMap((g) => (g.hooks ?? []).map((h) => h.command));
  if (commands.length === 0) throw new Error('sow install claude added no SessionStart hook');
  return commands.map((c) => run('sh', ['-c', c]).stdout).join('');
}

// ---------------------------------------------------------------------------------------------
// Guidance an agent is told to read

const FENCE = /^\s*```/;
const PROMPT_REF = /`?sow prompt ([\w/.-]+)`?/g;

/**
 * The `sow prompt` and `sow project continue` calls a text tells its reader to run: each in a
 * command block, and of a bulleted list of alternatives (two or more bullets that each name one)
 * the largest. A reference in a sentence is a file the reader may open when it needs it.
 */
function toldToRead(text) {
  const told = [];
  const alternatives = [];
  let inFence = false;
  let bullets = [];
  const flush = () => {
    if (bullets.length >= 2) alternatives.push(bullets);
    else if (bullets.length === 1) told.push(...bullets[0].map((p) => ({ kind: 'prompt', path: p })));
    bullets = [];
  };
  for (const line of text.split('\n')) {
    if (FENCE.test(line)) {
      inFence = !inFence;
      continue;
    }
    if (inFence) {
      const cmd = line.trim().replace(/\s+#.*$/, '');
      const m = /^sow prompt ([\w/.-]+)$/.exec(cmd);
      if (m) told.push({ kind: 'prompt', path: m[1] });
      else if (/^sow project continue( --full)?$/.test(cmd))
        told.push({ kind: 'continue', full: cmd.endsWith('--full') });
      continue;
    }
    const refs = [...line.matchAll(PROMPT_REF)].map((m) => m[1]);
    if (/^\s*[-*] /.test(line) && refs.length) bullets.push(refs);
    else if (!/^\s*[-*] /.test(line) || !line.trim()) flush();
  }
  flush();
  return { told, alternatives };
}

/** The text and its tokens, with what it is told to read, followed to the end. */
function withReads(label, text, seen = new Set()) {
  const parts = [{ what: label, tokens: tokens(text) }];
  const { told, alternatives } = toldToRead(text);
  const read = (ref) => {
    const key = ref.kind === 'continue' ? `sow project continue${ref.full ? ' --full' : ''}` : `sow prompt ${ref.path}`;
    if (seen.has(key)) return [];
    seen.add(key);
    const out =
      ref.kind === 'continue'
        ? sow(['project', 'continue', ...(ref.full ? ['--full'] : [])]).stdout
        : sow(['prompt', ref.path]).stdout;
    return withReads(key, out, seen);
  };
  for (const ref of told) parts.push(...read(ref));
  for (const group of alternatives) {
    const options = group
      .flat()
      .map((path) => ({ path, parts: withReads(`sow prompt ${path}`, sow(['prompt', path]).stdout, new Set(seen)) }));
    const largest = options.sort((a, b) => sum(b.parts) - sum(a.parts))[0];
    seen.add(`sow prompt ${largest.path}`);
    parts.push(
      ...largest.parts.map((p, i) =>
        i === 0 ? { ...p, what: `${p.what} (largest of ${options.length} to choose from)` } : p,
      ),
    );
  }
  return parts;
}
const sum = (parts) => parts.reduce((n, p) => n + p.tokens, 0);

/** The prompt sow sends a worker of `role`: a fake CLI records it and reports back at once. */
function workerPrompt(role, target, report) {
  rmSync(fakeLog, { force: true });
  const r = sow(['agent', 'spawn', role, ...target], {
    expect: null,
    env: { FAKE_AGENT_SCRIPT: JSON.stringify(report) },
  });
  if (!existsSync(fakeLog))
    throw new Error(`'sow agent spawn ${role}' started no agent CLI (exit ${r.status}):\n${printed(r)}`);
  const calls = readFileSync(fakeLog, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const call = calls.find((c) => c.cli === 'claude');
  const text = call?.prompt || call?.stdin;
  if (!text) throw new Error(`the fake claude got no prompt from 'sow agent spawn ${role}'`);
  return text;
}

// ---------------------------------------------------------------------------------------------
// MCP

async function mcpTools() {
  const child = spawn(process.execPath, [SOW, 'mcp'], { cwd: repo, env: ENV, stdio: ['pipe', 'pipe', 'pipe'] });
  const { request } = lineClient(child);
  try {
    await request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'sow-tokens', version: '1' },
    });
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    const listed = await request('tools/list', {});
    if (!listed.result) throw new Error(`tools/list failed: ${JSON.stringify(listed.error)}`);
    return listed.result.tools;
  } finally {
    child.stdin.end();
    child.kill();
  }
}

// ---------------------------------------------------------------------------------------------
// The project

const AREAS = ['auth', 'billing', 'search', 'reports', 'notifications', 'accounts', 'export', 'settings'];
const VERBS = ['Add', 'Validate input in', 'Test', 'Paginate', 'Cache'];
const taskName = (i) =>
  `${VERBS[i % VERBS.length]} the ${AREAS[i % AREAS.length]} endpoint, part ${Math.floor(i / AREAS.length) + 1}`;
/** What only a task's description says (its name is printed everywhere). */
const acceptance = (i) =>
  `Acceptance: the ${AREAS[i % AREAS.length]} handler returns 400 on a malformed body, and the new tests pass.`;
const taskDescription = (i) => `${taskName(i)}. ${acceptance(i)}`;

const rows = [];
function row(what, text, budget, extra = {}) {
  const n = typeof text === 'number' ? text : tokens(text);
  rows.push({ row: what, tokens: n, budget, ...extra });
  return n;
}

async function main() {
  log(`tokens: a ${TASKS}-task project with ${DONE} done, in ${repo}`);
  git('init', '-q', '-b', 'main');
  write('README.md', '# api\n\nA small HTTP API.\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'init');
  sow(['init']);
  // One declared check, allowed, as a project that uses FinalizeChecks has.
  write('.sow/config.yaml', 'checks:\n  - name: tests\n    run: "true"\n    when: [finalize]\n');
  sow(['check', 'allow', '--yes']);
  sow(['install', 'claude']);
  git('add', '-A');
  git('commit', '-q', '-m', 'sow');
  const listing = listings();
  const hooks = [];
  const hook = (s) => {
    const text = hookOutput();
    hooks.push({ state: s, text, tokens: tokens(text) });
  };
  hook('NoProject');

  sow([
    'project',
    'new',
    'api-validation',
    '--description',
    'Validate every request body of the API and answer 400 with the reason',
  ]);
  hook('PlanningActive');
  write('.sow/project/planning/tasks.md', '# Tasks\n\nForty small tasks, one per endpoint and concern.\n');
  sow(['output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md']);
  sow(['output', 'set', '--index', '0', 'approved', 'true']);
  advanceTo('ImplementationPlanning');
  hook('ImplementationPlanning');

  log('  adding the tasks…');
  const ids = [];
  for (let i = 0; i < TASKS; i++) {
    const deps = i % 5 === 4 ? ['--depends-on', ids[i - 1]] : [];
    ids.push(
      sow([
        'task',
        'add',
        taskName(i),
        '--agent',
        'implementer',
        '--description',
        taskDescription(i),
        ...deps,
      ]).stdout.trim(),
    );
  }
  sow(['phase', 'set', 'tasks_approved', 'true']);
  advanceTo('ImplementationExecuting');
  for (const id of ids.slice(0, DONE)) {
    sow(['task', 'set', '--id', id, 'status', 'in_progress']);
    sow(['task', 'set', '--id', id, 'status', 'completed']);
  }
  hook('ImplementationExecuting');

  log('  measuring the task list, the loop, MCP and the prompts…');
  const list = sow(['task', 'list']);
  row('`task list`, 40 tasks, piped', printed(list), BUDGET.taskList);

  // The loop as an agent runs it today: pick, start, log once, finish.
  {
    const next = sow(['task', 'next']);
    const id = /\b(\d{3,})\b/.exec(next.stdout)?.[1];
    if (!id) throw new Error(`'sow task next' named no task:\n${printed(next)}`);
    const calls = [
      next,
      sow(['task', 'set', '--id', id, 'status', 'in_progress']),
      sow(['log', '--task', id, '--action', 'completed_task', '--result', 'success', 'Validated the body; tests pass']),
      sow(['task', 'set', '--id', id, 'status', 'completed']),
    ];
    row('loop: task next, set in_progress, log, set completed', calls.map(printed).join(''), null, {
      calls: calls.length,
      note: 'the description is not in it',
    });
  }
  // The loop in three calls: the claim must carry the description, or the worker needs another call.
  {
    // An agent claims under its own name (a worker's SOW_AGENT_ID, a session's SOW_SESSION_ID).
    const as = { env: { SOW_OWNER: 'tokens-agent' } };
    const claim = sow(['task', 'next', '--claim'], as);
    const id = /\b(\d{3,})\b/.exec(claim.stdout)?.[1];
    if (!id) throw new Error(`'sow task next --claim' named no task:\n${printed(claim)}`);
    const described = printed(claim).includes(acceptance(ids.indexOf(id)));
    const calls = [
      claim,
      sow(
        ['log', '--task', id, '--action', 'completed_task', '--result', 'success', 'Validated the body; tests pass'],
        as,
      ),
      sow(['task', 'set', '--id', id, 'status', 'completed'], as),
    ];
    row('loop: task next --claim, log, set completed', calls.map(printed).join(''), BUDGET.loop, {
      calls: calls.length,
      calls_budget: BUDGET.loopCalls,
      described,
      ...(described ? {} : { note: "the claim's output does not hold the description" }),
    });
  }

  const tools = await mcpTools();
  const defs = tools.map((t) =>
    JSON.stringify({ name: t.name, description: t.description, inputSchema: t.inputSchema }),
  );
  row(`MCP tool definitions (${tools.length} tools)`, defs.join('\n'), BUDGET.mcp, {
    tools: tools.length,
    per_tool: Object.fromEntries(tools.map((t, i) => [t.name, tokens(defs[i])])),
  });

  // A worker on a pending task: its prompt, then what the prompt tells it to read.
  const ready = JSON.parse(sow(['--json', 'task', 'next']).stdout).data;
  const workerTask = (Array.isArray(ready) ? ready : ready.tasks)?.[0]?.id;
  if (!workerTask) throw new Error("'sow task next' found no task for a worker");
  const implementer = workerPrompt('implementer', [workerTask], [['task', 'set', 'status', 'needs_review']]);
  const workerParts = withReads('the prompt', implementer);
  row('worker prompt + guidance it is told to read', sum(workerParts), BUDGET.worker, { parts: workerParts });
  sow(['task', 'set', '--id', workerTask, 'status', 'completed']);
  // The other roles, each spawned on the project with an instruction as the orchestrator gives one.
  for (const role of ['architect', 'reviewer', 'planner', 'researcher', 'decomposer']) {
    const prompt = workerPrompt(
      role,
      ['--prompt', `Do the ${role}'s part of this project.`],
      [['agent', 'report', '--status', 'done', 'measured']],
    );
    const parts = withReads('the prompt', prompt);
    row(`${role} prompt + guidance it is told to read`, sum(parts), BUDGET.worker, { parts });
  }
  const orchestrator = workerPrompt('orchestrator', [], [['agent', 'report', '--status', 'done', 'measured']]);
  const orchestratorParts = withReads('the prompt', orchestrator);
  row('orchestrator prompt + what it is told to read', sum(orchestratorParts), null, { parts: orchestratorParts });

  log('  walking the rest of the lifecycle…');
  for (const t of JSON.parse(sow(['--json', 'task', 'list']).stdout).data) {
    if (t.status === 'completed') continue;
    if (t.status === 'pending') sow(['task', 'set', '--id', t.id, 'status', 'in_progress']);
    sow(['task', 'set', '--id', t.id, 'status', 'completed']);
  }
  advanceTo('ReviewActive');
  hook('ReviewActive');
  write('.sow/project/review/report.md', '# Review\n\nAssessment: pass\n');
  sow(['output', 'add', '--type', 'review', '--path', 'review/report.md', '--assessment', 'pass']);
  const reviewIndex = JSON.parse(sow(['--json', 'output', 'list']).stdout).data.findIndex((o) => o.type === 'review');
  sow(['output', 'set', '--index', String(reviewIndex), 'approved', 'true']);
  advanceTo('FinalizeDocumentation');
  hook('FinalizeDocumentation');
  advanceTo('FinalizeChecks');
  hook('FinalizeChecks');
  sow(['check', 'run']);
  advanceTo('FinalizeDelete');
  hook('FinalizeDelete');
  sow(['phase', 'set', 'project_deleted', 'true']);
  advanceTo('NoProject');
  hook('NoProject (after a project)');

  for (const h of hooks) row(`SessionStart hook, ${h.state}`, h.tokens, BUDGET.hook, { state: h.state });
  const largest = hooks.reduce((a, b) => (b.tokens > a.tokens ? b : a));
  const listed = tokens(listing);
  row(
    `always loaded in Claude Code (listings ${listed} + hook in ${largest.state})`,
    listed + largest.tokens,
    BUDGET.alwaysLoaded,
    { listings: listed, hook: largest.tokens, state: largest.state },
  );

  for (const r of rows) {
    const over =
      r.budget !== null &&
      (r.tokens > r.budget || (r.calls_budget !== undefined && r.calls > r.calls_budget) || r.described === false);
    r.verdict = r.budget === null ? 'info' : over ? 'OVER' : 'ok';
  }
  const order = (r) =>
    r.row.startsWith('always')
      ? 0
      : r.row.startsWith('SessionStart')
        ? 1
        : r.row.startsWith('loop')
          ? 2
          : / prompt \+ /.test(r.row)
            ? 3
            : r.row.startsWith('MCP')
              ? 4
              : 5;
  rows.sort((a, b) => order(a) - order(b));
  return rows.filter((r) => r.verdict === 'OVER').length;
}

function report(over) {
  if (JSON_OUT) {
    const json = { tokenizer: 'o200k_base', project: { tasks: TASKS, done: DONE }, rows, over_budget: over };
    return `${JSON.stringify(json, null, 2)}\n`;
  }
  const lines = [`sow in an agent's context: tokens (o200k_base), a ${TASKS}-task project with ${DONE} done`, ''];
  const body = rows.map((r) => [
    r.row,
    String(r.tokens),
    r.calls === undefined ? '' : String(r.calls),
    r.budget === null ? '' : `≤ ${r.budget}${r.calls_budget ? ` in ≤ ${r.calls_budget}` : ''}`,
    r.verdict,
    r.note ?? '',
  ]);
  const header = ['what an agent carries', 'tokens', 'calls', 'budget', '', ''];
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const right = [false, true, true, false, false, false];
  const fmt = (cells) =>
    `  ${cells
      .map((c, i) => (right[i] ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd()}`;
  lines.push(fmt(header), `  ${widths.map((w) => '-'.repeat(w)).join('  ')}`, ...body.map(fmt), '');
  for (const r of rows.filter((x) => x.parts))
    lines.push(`${r.row}:`, ...r.parts.map((p) => `  ${String(p.tokens).padStart(5)}  ${p.what}`), '');
  const mcp = rows.find((r) => r.per_tool);
  if (mcp)
    lines.push(
      'MCP tools:',
      ...Object.entries(mcp.per_tool).map(([name, n]) => `  ${String(n).padStart(5)}  ${name}`),
      '',
    );
  lines.push(over === 0 ? 'all rows within budget' : `${over} row(s) over budget`);
  return `${lines.join('\n')}\n`;
}

let code = 0;
try {
  const over = await main();
  process.stdout.write(report(over));
  code = CHECK && over > 0 ? 1 : 0;
} catch (err) {
  process.stderr.write(`\ntokens: ${err instanceof Error ? err.message : String(err)}\n`);
  code = 2;
} finally {
  if (KEEP) log(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
process.exit(code);
