import { accessSync, constants, lstatSync, mkdirSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * Where the tests' temporary folders go. They make and remove tens of thousands of small files (repositories copied
 * from templates, git's objects, sow's atomic writes), and on ext4 each new file's inode is found by a search that
 * steps over recently deleted ones (the kernel's find_inode_bit and recently_deleted): measured with `perf record -a`,
 * an eighth of the whole suite's CPU, and the unit tests' system time 33 s on ext4 against 8 s on a tmpfs (test:fast 30
 * s against 16 s). So, on Linux, a folder of this user's in /dev/shm when that is a tmpfs with 2 GiB free (a
 * container's default /dev/shm of 64 MB is not used); SOW_TEST_TMPDIR names another (set but empty: the system's);
 * elsewhere the system's temporary folder. Nothing in the tests depends on the file system's kind (the full-disk and
 * read-only tests mount their own).
 */
function testTmpdir(): string | undefined {
  const chosen = process.env['SOW_TEST_TMPDIR'];
  if (chosen) return chosen;
  if (process.platform !== 'linux' || process.env['SOW_TEST_TMPDIR'] === '') return undefined;
  try {
    const shm = statfsSync('/dev/shm');
    if (shm.type !== 0x01021994 || shm.bavail * shm.bsize < 2 * 1024 ** 3) return undefined;
    const dir = join('/dev/shm', `sow-tests-${process.getuid?.() ?? 'user'}`);
    // Readable by others, like /tmp's folders: the tests that run sow as an unprivileged user reach into it.
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    const st = lstatSync(dir);
    if (!st.isDirectory() || st.uid !== process.getuid?.()) return undefined;
    accessSync(dir, constants.W_OK);
    return dir;
  } catch {
    return undefined;
  }
}
const testTmp = testTmpdir();
if (testTmp) process.env['TMPDIR'] = testTmp;

/**
 * Tests never touch the invoking user's home: every test process (and every sow it runs with
 * process.env) gets a home, a configuration folder and a cache folder of the tests' own.
 */
const home = join(tmpdir(), 'sow-tests-home');

// Node loads the certificates NODE_EXTRA_CA_CERTS names when it starts, before any code runs: on
// a machine that sets it (this one does) every process pays ~30 ms for it, half the cost of a sow
// command. sow itself makes no TLS connection and the tests reach no network, so the processes
// the tests start (sow, the fake agents, the fake gh) go without it; the test workers inherit this.
delete process.env['NODE_EXTRA_CA_CERTS'];

// git's own variables point git at a repository: run from a git hook or `git rebase -x`, they
// would send every git command of the tests (and of the sow they start) to the repository the
// tests were started from instead of their temp folders — one `git init --bare` there turns the
// checkout into a bare repository. The tests' processes go without them.
for (const name of Object.keys(process.env)) {
  if (
    /^GIT_(DIR|WORK_TREE|INDEX_FILE|OBJECT_DIRECTORY|ALTERNATE_OBJECT_DIRECTORIES|COMMON_DIR)$/.test(name) ||
    /^GIT_(NAMESPACE|CEILING_DIRECTORIES|PREFIX|QUARANTINE_PATH)$/.test(name)
  )
    delete process.env[name];
}

export default defineConfig({
  test: {
    // Two projects in one run: the unit and in-process tests (src/) share worker processes instead
    // of each loading sow's modules in a fresh one (safe: no test leaves module state behind, see
    // test:fast and decision 0043); the end-to-end tests (test/) keep a process per file, since
    // their harness keeps per-file state (templates, a state folder) at module level.
    projects: [
      { extends: true, test: { name: 'unit', include: ['src/**/*.test.ts'], isolate: false } },
      { extends: true, test: { name: 'e2e', include: ['test/**/*.test.ts'] } },
    ],
    // Limits only a test that hangs meets: a busy machine (two suites side by side, other work)
    // makes a long test slower, never wrong. Waits inside tests are on events, with their own
    // generous limits; no test asserts on how long something took (that is npm run bench).
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: 'forks',
    // Three test files at once on two cores: the end-to-end tests wait for the processes they
    // start (a worker's fake agent, a check, a lock holder), so a third file fills those waits. On
    // this 2-core machine, idle: 232 s with two, 218 s with three, every test passing.
    maxWorkers: 3,
    env: {
      // git runs `git maintenance run --auto` after each commit the tests make: a hundred
      // processes in the unit tests alone that test nothing of sow's.
      GIT_CONFIG_COUNT: '2',
      GIT_CONFIG_KEY_0: 'maintenance.auto',
      GIT_CONFIG_VALUE_0: 'false',
      GIT_CONFIG_KEY_1: 'gc.auto',
      GIT_CONFIG_VALUE_1: '0',
      SOW_TESTS_INVOKING_HOME: process.env['HOME'] ?? '',
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_CACHE_HOME: join(tmpdir(), 'sow-tests-cache-home'),
      XDG_STATE_HOME: join(home, '.local', 'state'),
    },
  },
});
