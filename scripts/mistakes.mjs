#!/usr/bin/env node
/**
 * Prints the table of deliberate mistakes (test/e2e/mistakes-table.mjs) as markdown — mistake,
 * command, exit code, error code, message and hint — with what the built sow answers to each, run
 * in throw-away repositories. A row whose exit code or error code differs from the table's is
 * marked, and the script then exits 1.
 *
 *   npm run mistakes                 build, then print the table
 *   node scripts/mistakes.mjs        print it with the sow built already (SOW_BIN: another build)
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FIXTURES, MISTAKES } from '../test/e2e/mistakes-table.mjs';

const SOW = process.env.SOW_BIN || resolve(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'sow.cjs');
const work = mkdtempSync(join(tmpdir(), 'sow-mistakes-'));
const home = join(work, 'home');

/** A home of its own: no row reads or writes the invoking user's configuration. */
const ENV = {
  ...process.env,
  NO_COLOR: '1',
  HOME: home,
  XDG_CONFIG_HOME: join(home, '.config'),
  XDG_CACHE_HOME: join(home, '.cache'),
  XDG_STATE_HOME: join(home, '.state'),
  GIT_AUTHOR_NAME: 'sow mistakes',
  GIT_AUTHOR_EMAIL: 'mistakes@example.invalid',
  GIT_COMMITTER_NAME: 'sow mistakes',
  GIT_COMMITTER_EMAIL: 'mistakes@example.invalid',
};
for (const name of ['SOW_AGENT_ID', 'SOW_SESSION_ID', 'SOW_TASK_ID', 'SOW_OWNER', 'SOW_ALLOW_CHECKS']) delete ENV[name];

const sow = (dir, args, env = {}) =>
  spawnSync(process.execPath, [SOW, ...args], { cwd: dir, env: { ...ENV, ...env }, encoding: 'utf8', input: '' });

function step(dir, [kind, ...rest]) {
  if (kind === 'sow') {
    const r = sow(dir, rest);
    if (r.status !== 0) throw new Error(`sow ${rest.join(' ')} exited ${r.status}: ${r.stderr}`);
  } else if (kind === 'write') {
    mkdirSync(dirname(join(dir, rest[0])), { recursive: true });
    writeFileSync(join(dir, rest[0]), rest[1]);
  } else if (kind === 'git') {
    execFileSync('git', rest, { cwd: dir, env: ENV, stdio: 'ignore' });
  } else throw new Error(`unknown step ${kind}`);
}

const built = new Map();
function fixture(name) {
  if (built.has(name)) return built.get(name);
  const def = FIXTURES[name];
  if (!def) throw new Error(`no fixture '${name}'`);
  const dir = join(work, `fixture-${built.size}`);
  mkdirSync(dir);
  if (def.git !== false) {
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir, env: ENV });
    execFileSync('git', ['commit', '-q', '--allow-empty', '-m', 'initial'], { cwd: dir, env: ENV });
    if (def.init !== false) step(dir, ['sow', 'init']);
  }
  for (const s of def.steps) step(dir, s);
  built.set(name, dir);
  return dir;
}

const cell = (s) => String(s).replaceAll('|', '\\|').replaceAll('\n', ' ');
const shell = (args) => args.map((a) => (/^[\w./:=@,+-]+$/.test(a) ? a : `'${a.replaceAll("'", "'\\''")}'`)).join(' ');

let differ = 0;
const rows = [];
try {
  MISTAKES.forEach((m, i) => {
    const dir = join(work, `row-${i}`);
    cpSync(fixture(m.at), dir, { recursive: true });
    for (const s of m.setup ?? []) step(dir, s);
    const env = Object.fromEntries(Object.entries(m.env ?? {}).map(([k, v]) => [k, v.replaceAll('$REPO', dir)]));
    const r = sow(dir, [...m.args, '--json'], env);
    let error = {};
    try {
      error = JSON.parse(r.stdout).error ?? {};
    } catch {
      error = { code: '(no JSON)', message: r.stderr.trim() };
    }
    const same = r.status === m.exit && error.code === m.code;
    if (!same) differ++;
    const mark = same ? '' : ` ≠ table: ${m.exit} ${m.code}`;
    const env1 = Object.keys(m.env ?? {})
      .filter((k) => k !== 'XDG_CONFIG_HOME')
      .map((k) => `${k}=${m.env[k]} `)
      .join('');
    rows.push(
      `| ${i + 1} | ${cell(m.mistake)} (${cell(m.at)}) | \`${cell(`${env1}sow ${shell(m.args)}`)}\` ` +
        `| ${r.status}${cell(mark)} | ${cell(error.code ?? '')} | ${cell(error.message ?? '')} ` +
        `| ${cell(error.hint ?? '')} |`,
    );
    rmSync(dir, { recursive: true, force: true });
  });
} finally {
  rmSync(work, { recursive: true, force: true });
}

process.stdout.write(
  [
    '| # | mistake (where) | command | exit | error | message | hint |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `${MISTAKES.length} ` +
      `mistakes${differ ? `; ${differ} answered otherwise than the table says` : ', each answered as the table says'}.`,
    '',
  ].join('\n'),
);
process.exitCode = differ ? 1 : 0;
