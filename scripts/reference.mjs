#!/usr/bin/env node
/**
 * The command reference (docs/reference/): one page per command, generated from sow's own command
 * model — what `sow help reference --json` and `sow exit-codes --json` print, the same definitions
 * the command line, completion and `sow mcp` are built from — so it cannot say what sow does not do.
 *
 *   node scripts/reference.mjs           writes docs/reference/ (run after `npm run build`)
 *   node scripts/reference.mjs --check   exit 1, naming the pages, when docs/reference/ is not what
 *                                        the build would write (a test runs this in CI)
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'docs', 'reference');
const SOW = process.env.SOW_BIN ?? join(ROOT, 'dist', 'sow.cjs');
const check = process.argv.includes('--check');

const sow = (...args) =>
  JSON.parse(
    execFileSync(process.execPath, [SOW, ...args, '--json'], {
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    }),
  ).data;
const commands = sow('help', 'reference');
const exitCodes = sow('exit-codes');

/** `sow task add` → `task-add.md`. */
const pageOf = (command) => `${command.replace(/^sow /, '').replace(/ /g, '-')}.md`;
const cell = (text) => String(text).replace(/\|/g, '\\|').replace(/\n/g, ' ');
const meaning = new Map(exitCodes.map((e) => [e.code, e.meaning]));

/**
 * The exit codes a command may give, from what its definition says: every command may succeed,
 * be refused, be misused, meet an invalid state, a missing tool, a bug or Ctrl-C; a command that
 * writes may be blocked by a guard; one with a time limit may run out of it.
 */
function exitsOf(entry) {
  const codes = [0, 1, 2];
  if (entry.writes) codes.push(3);
  codes.push(4, 5);
  if (entry.options.some((o) => /--timeout\b/.test(o.flags))) codes.push(124);
  codes.push(70, 130);
  return codes.filter((c) => meaning.has(c));
}

function page(entry) {
  const lines = [`# ${entry.command}`, '', entry.description, '', '```', entry.usage, '```', ''];
  if (entry.arguments.length) {
    lines.push('## Arguments', '', '| argument | |', '|---|---|');
    for (const a of entry.arguments) {
      const name = `${a.optional ? '[' : '<'}${a.name}${a.variadic ? '...' : ''}${a.optional ? ']' : '>'}`;
      lines.push(
        `| \`${name}\` | ${cell(a.description ?? '')}${a.choices ? ` (one of: ${a.choices.join(', ')})` : ''} |`,
      );
    }
    lines.push('');
  }
  lines.push('## Options', '', '| option | |', '|---|---|');
  for (const o of entry.options) {
    const extra = [
      o.required ? 'required' : '',
      o.choices ? `one of: ${o.choices.join(', ')}` : '',
      o.default !== undefined && !(Array.isArray(o.default) && o.default.length === 0)
        ? `default: ${JSON.stringify(o.default)}`
        : '',
    ]
      .filter(Boolean)
      .join('; ');
    lines.push(`| \`${o.flags}\` | ${cell(o.description)}${extra ? ` (${extra})` : ''} |`);
  }
  lines.push(
    '| `--json` | print exactly one JSON document on stdout (`sow help json` says what it holds) |',
    '| `--no-color` | no colour, even on a terminal |',
    '| `-h, --help` | this page, in the terminal |',
    '',
  );
  if (entry.notes) lines.push('## Notes', '', entry.notes, '');
  if (entry.examples) lines.push('## Examples', '', '```bash', ...entry.examples, '```', '');
  lines.push(
    '## Exit codes',
    '',
    '| code | |',
    '|---|---|',
    ...exitsOf(entry).map((c) => `| ${c} | ${cell(meaning.get(c))} |`),
    '',
  );
  lines.push(
    (entry.writes
      ? 'Changes the state under `.sow/` (under the lock, all or nothing).'
      : 'Reads only: changes nothing.') +
      (entry.mcp_tool ? ` Offered to MCP clients as the \`${entry.mcp_tool}\` tool of \`sow mcp\`.` : ''),
    '',
  );
  return lines.join('\n');
}

function index() {
  const lines = [
    '# Command reference',
    '',
    "Generated from sow's own command model by `node scripts/reference.mjs` (a test checks that it matches the build);",
    'do not edit by hand. `sow help <command>` shows the same in the terminal, `sow help reference` all of it.',
    'Every command takes `--json`, `--no-color` and `-h, --help`.',
    '',
    '| command | |',
    '|---|---|',
    ...commands.map((e) => `| [\`${e.command}\`](${pageOf(e.command)}) | ${cell(e.description)} |`),
    '',
    '## Exit codes',
    '',
    '| code | meaning |',
    '|---|---|',
    ...exitCodes.map((e) => `| ${e.code} | ${cell(e.meaning)} |`),
    '',
  ];
  return lines.join('\n');
}

const want = new Map([['README.md', index()], ...commands.map((e) => [pageOf(e.command), page(e)])]);
if (check) {
  let have = [];
  try {
    have = readdirSync(OUT);
  } catch {
    // no folder: every page is missing
  }
  const stale = [...want].filter(([name, text]) => {
    try {
      return readFileSync(join(OUT, name), 'utf8') !== text;
    } catch {
      return true;
    }
  });
  const extra = have.filter((name) => !want.has(name));
  if (stale.length || extra.length) {
    process.stderr.write(
      `docs/reference/ does not match the command ` +
        `model: ${[...stale.map(([n]) => n), ...extra.map((n) => `${n} (no such command)`)].join(', ')}\nrun 'npm ` +
        `run build && node scripts/reference.mjs' and commit docs/reference/\n`,
    );
    process.exit(1);
  }
  process.stdout.write(`docs/reference/: ${want.size} pages, as the build says\n`);
} else {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  for (const [name, text] of want) writeFileSync(join(OUT, name), text);
  process.stdout.write(`wrote docs/reference/: ${want.size} pages\n`);
}
