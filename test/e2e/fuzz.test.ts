/**
 * The short fuzz run of hostile `.sow/` trees (scripts/fuzz.mjs, `npm run fuzz`): a fixed seed and
 * three runs over every read command, `sow mcp` and the writes that run on their own. It fails
 * with the fuzzer's findings. Seed 2489 was picked because its three runs together apply eleven
 * kinds of mutation (links, install records, a committed check, a refs index, odd names, a deep
 * settings.json, lock files, a removed config, state values) while needing only one base
 * repository, so it stays well under a minute on a loaded two-core machine. A long run:
 * `npm run fuzz -- --runs 300`.
 *
 * The second test keeps the fuzzer honest: a sow that misbehaves on purpose (it writes outside
 * the repository, runs a command, crashes, prints what it must not) must be caught.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { SOW } from './harness.js';

const FUZZ = fileURLToPath(new URL('../../scripts/fuzz.mjs', import.meta.url));

const temps: string[] = [];
afterEach(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});

function fuzz(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [FUZZ, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('fuzz run of hostile .sow/ trees', () => {
  it('seed 2489, three runs: nothing outside the repository touched, nothing ran, no crash', async () => {
    const r = await fuzz(['--seed', '2489', '--runs', '3', '--bin', SOW, '--quiet']);
    expect(r.stderr).toBe('');
    expect(r.code, `the fuzz run found something:\n${r.stdout}`).toBe(0);
    expect(r.stdout).toMatch(/^runs 3, commands 84, findings 0 \(seed 2489, /m);
  }, 300_000);

  it("makes every base tree: the fuzzer's own set-up still passes sow's guards (the runs above need only some of them)", async () => {
    const r = await fuzz(['--bases', '--bin', SOW, '--quiet']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^bases: breakdown, empty, executing, iterative, review$/m);
  }, 300_000);

  it('catches a sow that misbehaves: each invariant names what broke, and the run exits 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sow-fuzz-fake-'));
    temps.push(dir);
    const fake = join(dir, 'sow.cjs');
    // The real sow while the base trees are made (only then are checks allowed); afterwards one
    // misdeed per command, the rest left to the real sow.
    writeFileSync(
      fake,
      `
const fs = require('node:fs');
const path = require('node:path');
const args = process.argv.slice(2).filter((a) => a !== '--json');
const json = process.argv.includes('--json');
const cmd = args.slice(0, 2).join(' ');
if (!process.env.SOW_ALLOW_CHECKS) {
  if (cmd === 'status') { fs.appendFileSync(path.join('..', 'sentinel', 'precious.txt'), 'x'); }
  if (cmd === 'doctor') { fs.writeFileSync(process.env.SOW_FUZZ_MARKER, ''); }
  if (cmd === 'task list') { process.stderr.write('error: internal error: boom\\n'); process.exit(70); }
  if (cmd === 'graph tasks') { process.stdout.write(fs.readFileSync(path.join('..', 'sentinel', 'precious.txt'))); }
  if (cmd === 'check list') { fs.writeFileSync(path.join('..', 'beside.txt'), ''); }
  if (cmd === 'config show') { fs.appendFileSync(path.join('src', 'main.c'), '// x\\n'); }
  if (cmd === 'project history') { process.stderr.write('Error: x\\n    at f (/x.js:1:1)\\n'); process.exit(1); }
  if (cmd === 'worktree list') { process.stdout.write(json ? '{"ok":tr' : '\\u001b[31mred\\n'); process.exit(0); }
}
require(${JSON.stringify(SOW)});
`,
    );
    const r = await fuzz(['--seed', '2489', '--only', '3', '--bin', fake, '--quiet', '--no-minimize']);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const kinds = [...r.stdout.matchAll(/^KIND (.+?) ← /gm)].map((m) => m[1]);
    for (const kind of [
      'changed a folder outside the repository',
      'a hostile command ran',
      'exit 70',
      'printed a file from outside the repository',
      'wrote beside the repository',
      "changed the repository's own files (src/, README.md, .git/)",
      'stack trace',
    ])
      expect(kinds, r.stdout).toContain(kind);
    // worktree list ran with --json or without (the seed decides): broken JSON, or a raw escape.
    expect(kinds.filter((k) => k === '--json: stdout is not one JSON document' || k === 'raw control character in human output')).toHaveLength(1);
    expect(kinds).toHaveLength(8);
    expect(r.stdout).toMatch(/^FINDING seed=2489 run=3 base=executing cmd='sow status( --json)?' .*what: outside the repository: changed precious\.txt/m);
    expect(r.stdout).toMatch(/^runs 1, commands 28, findings 8 \(seed 2489, /m);
  }, 300_000);
});
