/**
 * The mistakes a new user makes (mistakes-table.mjs), each made for real: the exit code the rule
 * of `sow help exit-codes` gives it, the stable error code, a message that names what was wrong, a
 * hint that says something the message did not (never the generic "see help"), the same answer
 * with and without --json, and every state file byte-identical afterwards.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFails, makeRepo, ok, type Repo } from './harness.js';
import { FIXTURES, MISTAKES, type Step } from './mistakes-table.mjs';

const work = mkdtempSync(join(tmpdir(), 'sow-mistakes-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function run(repo: Repo, [kind, ...rest]: Step): void {
  if (kind === 'sow') ok(repo, rest);
  else if (kind === 'write') repo.write(rest[0]!, rest[1]!);
  else if (kind === 'git') repo.git(rest);
  else throw new Error(`unknown step ${kind}`);
}

/** Each fixture made once; every row works on a copy of it. */
const fixtures = new Map<string, string>();
beforeAll(() => {
  for (const name of new Set(MISTAKES.map((m) => m.at))) {
    const def = FIXTURES[name];
    if (!def) throw new Error(`no fixture '${name}'`);
    const dir = join(work, `fixture-${fixtures.size}`);
    mkdirSync(dir);
    const repo =
      def.git === false ? makeRepo({ dir, existing: true, init: false }) : makeRepo({ dir, init: def.init !== false });
    for (const step of def.steps) run(repo, step);
    fixtures.set(name, dir);
  }
}, 300_000);

function copyOf(name: string, row: number): Repo {
  const dir = join(work, `row-${row}`);
  cpSync(fixtures.get(name)!, dir, { recursive: true });
  return makeRepo({ dir, existing: true, init: false });
}

const words = (s: string) =>
  s
    .toLowerCase()
    .split(/[^a-z0-9_./'-]+/)
    .filter(Boolean);

/** The longest run of words the two texts share. */
function sharedRun(a: string, b: string): string {
  const x = words(a);
  const y = words(b);
  let best: string[] = [];
  for (let i = 0; i < x.length; i++) {
    for (let j = 0; j < y.length; j++) {
      let n = 0;
      while (i + n < x.length && j + n < y.length && x[i + n] === y[j + n]) n++;
      if (n > best.length) best = x.slice(i, i + n);
    }
  }
  return best.join(' ');
}

/** The hint a refusal falls back on when nobody wrote a better one. */
const GENERIC = /run 'sow help'|add --help to the command|'sow schema project' and 'sow schema task'/;

describe('the table', () => {
  it('has at least 60 mistakes, across every command group and every project type', () => {
    expect(MISTAKES.length).toBeGreaterThanOrEqual(60);
    const groups = new Set(MISTAKES.map((m) => (m.args[0] === 'help' ? 'exit-codes' : m.args[0])));
    for (const group of [
      'init',
      'project',
      'status',
      'phase',
      'task',
      'input',
      'output',
      'advance',
      'agent',
      'log',
      'prompt',
      'config',
      'schema',
      'migrate',
      'check',
      'worktree',
      'issue',
      'pr',
      'refs',
      'mcp',
      'graph',
      'install',
      'uninstall',
      'hook',
      'doctor',
      'completion',
      'exit-codes',
      'breakdown',
      'iter',
    ]) {
      expect(groups, `no mistake with 'sow ${group}'`).toContain(group);
    }
    const types = new Set(
      MISTAKES.flatMap((m) =>
        FIXTURES[m.at]!.steps.flatMap((s) =>
          s[0] === 'sow' && s[1] === 'project' && s[2] === 'new'
            ? [s.includes('--type') ? s[s.indexOf('--type') + 1]! : 'standard']
            : [],
        ),
      ),
    );
    expect([...types].sort()).toEqual(['breakdown', 'design', 'exploration', 'iterative', 'standard']);
    for (const exit of [1, 2, 3, 4])
      expect(
        MISTAKES.some((m) => m.exit === exit),
        `no mistake that exits ${exit}`,
      ).toBe(true);
  });
});

describe('every mistake, as a new user makes it', () => {
  it.each(MISTAKES.map((m, i) => ({ ...m, row: i + 1 })))('#$row: $mistake, exit $exit $code', (m) => {
    const repo = copyOf(m.at, m.row);
    for (const step of m.setup ?? []) run(repo, step);
    const env = Object.fromEntries(Object.entries(m.env ?? {}).map(([k, v]) => [k, v.replaceAll('$REPO', repo.dir)]));
    const said = expectFails(repo, m.args, m.exit, m.code, { human: true, env });
    const [message, ...rest] = said.split('\n');
    const hint = rest.join('\n');
    expect(message).toContain(m.message);
    if (m.hint !== undefined) expect(hint).toContain(m.hint);
    expect(hint, 'a hint that names a next step, not the generic one').not.toMatch(GENERIC);
    const shared = sharedRun(message!, hint);
    expect(shared.split(' ').length, `the hint repeats the message: '${shared}'`).toBeLessThan(5);
  });
});
