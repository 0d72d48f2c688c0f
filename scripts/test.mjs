#!/usr/bin/env node
/**
 * `npm test` after the build: the type check and the tests side by side, not one after the other.
 * The type check takes about 7 s of wall time and 10 s of CPU alone; beside the tests (which keep
 * the two cores about nine-tenths busy) it adds its CPU to theirs instead of its own wait to the
 * total. vitest's output streams as usual; tsc's is printed once it ends, so the two never
 * interleave. The exit code is the first failure's: the tests', else the type check's.
 * Arguments go to vitest (`npm test -- test/e2e/ui.test.ts`).
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
// A package's own file, found through its package.json (which every package exports).
const bin = (pkg, file) => join(dirname(require.resolve(`${pkg}/package.json`)), file);

function run(argv, capture) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, argv, { stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    let out = '';
    if (capture) {
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
    }
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), out }));
  });
}

const typecheck = run([bin('typescript', 'bin/tsc'), '--noEmit'], true);
const tests = run([bin('vitest', 'vitest.mjs'), 'run', ...process.argv.slice(2)], false);
const [types, vitest] = await Promise.all([typecheck, tests]);
if (types.code !== 0) process.stdout.write(`\ntype check (tsc --noEmit) failed:\n${types.out}`);
else process.stdout.write('\ntype check (tsc --noEmit): no errors\n');
process.exitCode = vitest.code || types.code;
