import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * Tests never touch the invoking user's home: every test process (and every sow it runs with
 * process.env) gets a home, a configuration folder and a cache folder of the tests' own.
 */
const home = join(tmpdir(), 'sow-tests-home');

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Limits only a test that hangs meets: a busy machine (two suites side by side, other work)
    // makes a long test slower, never wrong. Waits inside tests are on events, with their own
    // generous limits; no test asserts on how long something took (that is npm run bench).
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: 'forks',
    // Two test files at once even on two cores (vitest's default there is one): the end-to-end
    // tests spend most of their time waiting for the sow processes they start, so the whole suite
    // took 481 s with one worker and 248 s with two on this 2-core machine, every test passing.
    maxWorkers: 2,
    env: {
      SOW_TESTS_INVOKING_HOME: process.env['HOME'] ?? '',
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_CACHE_HOME: join(tmpdir(), 'sow-tests-cache-home'),
      XDG_STATE_HOME: join(home, '.local', 'state'),
    },
  },
});
