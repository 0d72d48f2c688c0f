/**
 * The read server (docs/decisions/0060): a read that no terminal sees starts one; the next reads
 * of the same sow, folder and environment are answered by it, byte for byte as a fresh process
 * answers them (stdout, stderr, their order, the exit code); writes and everything else never go
 * there; a server that is gone, refuses or answers nonsense leaves the read to the fresh process;
 * a folder that is not the user's own is never used. The other tests run without one
 * (vitest.config.ts sets SOW_NO_READ_SERVER).
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { buildOf, residentKey } from '../../src/cli/resident.js';
import { makeRepo, SOW, taskFile, TEST_ENV, toExecuting, type Repo } from './harness.js';

const runtimes: string[] = [];
const repos: Repo[] = [];
const servers: Server[] = [];

/** The environment of a user at a shell, with a runtime folder of the test's own and a log of the server's answers. */
function serverEnv(extra: Record<string, string> = {}): { env: NodeJS.ProcessEnv; runtime: string; log: string } {
  const runtime = mkdtempSync(join(tmpdir(), 'sow-rt-'));
  chmodSync(runtime, 0o700);
  runtimes.push(runtime);
  const env: NodeJS.ProcessEnv = { ...process.env, ...TEST_ENV, XDG_RUNTIME_DIR: runtime, SOW_READ_SERVER_LOG: join(runtime, 'log'), ...extra };
  delete env['SOW_NO_READ_SERVER'];
  delete env['CI'];
  delete env['SOW_AGENT_ID'];
  return { env, runtime, log: join(runtime, 'log') };
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}
const sow = (dir: string, args: string[], env: NodeJS.ProcessEnv): Run => {
  const r = spawnSync(process.execPath, [SOW, ...args], { cwd: dir, env, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};

/** As `sow`, without blocking this process (a server of the test's own must answer meanwhile). */
const sowAsync = (dir: string, args: string[], env: NodeJS.ProcessEnv): Promise<Run> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [SOW, ...args], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });

type Entry = { pid: number; started?: string; argv?: string[] };
const entries = (log: string): Entry[] =>
  existsSync(log)
    ? readFileSync(log, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Entry)
    : [];
const answered = (log: string): string[] => entries(log).flatMap((e) => (e.argv ? [e.argv.join(' ')] : []));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Waits (up to a minute, for a busy machine) until `check` holds. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 600 && !check(); i++) await sleep(100);
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}
/** Whether `pid` runs (a process that has exited but not been reaped yet, state Z, does not: this machine's init reaps slowly). */
const alive = (pid: number): boolean => {
  try {
    return !/^\d+ \(.*\) Z /s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

/** Runs `args` until the server's log shows it answered them (the first read only starts the server). */
async function served(dir: string, args: string[], env: NodeJS.ProcessEnv, log: string): Promise<Run> {
  for (let i = 0; i < 100; i++) {
    const before = answered(log).length;
    const r = sow(dir, args, env);
    if (answered(log).length > before) return r;
    await sleep(100);
  }
  throw new Error(`no read server answered sow ${args.join(' ')}`);
}

function executing(): Repo {
  const repo = makeRepo();
  repos.push(repo);
  toExecuting(repo, ['First task', 'Second task', 'Third task']);
  return repo;
}

afterEach(async () => {
  for (const s of servers.splice(0)) s.close();
});
afterAll(() => {
  // Each server stops when its socket is gone (within 30 s) or idle; the tests' ones are ended here.
  for (const runtime of runtimes) for (const e of entries(join(runtime, 'log'))) if (e.started && alive(e.pid)) process.kill(e.pid, 'SIGTERM');
  for (const dir of [...runtimes, ...repos.map((r) => r.dir)]) rmSync(dir, { recursive: true, force: true });
});

describe('the read server', () => {
  it('answers the reads byte for byte as a fresh process does: output, errors, their order, exit codes', async () => {
    const repo = executing();
    const { env, log } = serverEnv();
    // A warning on stderr before the output on stdout (a read on another branch), in one stream with 2>&1.
    repo.git(['checkout', '-q', '-b', 'elsewhere']);
    const lines = [
      ['task', 'list'],
      ['task', 'list', '--json'],
      ['task', 'list', '--status', 'pending'],
      ['task', 'list', '-s=completed'],
      ['task', 'get', '--id', '010'],
      ['task', 'get', '--id=020', 'name', '--no-color'],
      ['task', 'get', '--id', '999'],
      ['task', 'get', '--id', '999', '--json'],
      ['task', 'get', '--id', 'abc'],
      ['task', 'list', '--status', 'nonsense'],
      ['task', 'next'],
      ['phase', 'get', 'tasks_approved'],
      ['phase', 'get', 'no_such_field', '--json'],
      ['project', 'status'],
      ['status', '--json'],
      ['advance', '--dry-run'],
      ['advance', '-n', '--json'],
    ];
    for (const args of lines) {
      const fresh = sow(repo.dir, args, { ...env, SOW_NO_READ_SERVER: '1' });
      const warm = await served(repo.dir, args, env, log);
      expect({ args, ...warm }).toEqual({ args, ...fresh });
    }
    // Errors and output in one stream keep their order.
    const both = (extra: Record<string, string>) =>
      spawnSync('sh', ['-c', `"${process.execPath}" "${SOW}" task list 2>&1; echo "exit $?"`], { cwd: repo.dir, env: { ...env, ...extra }, encoding: 'utf8' }).stdout;
    const fresh = both({ SOW_NO_READ_SERVER: '1' });
    expect(fresh).toMatch(/^warning: [^\n]*\n\[010\][^]*exit 0\n$/);
    let warm: string | undefined;
    for (let i = 0; i < 100 && warm === undefined; i++) {
      const before = answered(log).length;
      const out = both({});
      if (answered(log).length > before) warm = out;
      else await sleep(100);
    }
    expect(warm).toBe(fresh);
    // One server answered all the reads run directly, and another those run by sh, which sets PWD
    // to the folder (the test process's own PWD is another): the environment is part of the key.
    expect(new Set(entries(log).map((e) => e.pid)).size).toBe(2);
  });

  it('sees every change made between two reads: a write by sow and an edit by hand', async () => {
    const repo = executing();
    const { env, log } = serverEnv();
    expect((await served(repo.dir, ['task', 'get', '--id', '010', 'iteration'], env, log)).stdout).toBe('1\n');
    expect(sow(repo.dir, ['task', 'set', '--id', '010', 'iteration', '4'], env).code).toBe(0);
    expect((await served(repo.dir, ['task', 'get', '--id', '010', 'iteration'], env, log)).stdout).toBe('4\n');
    // In place, as an editor saves, to the same size.
    repo.write(taskFile('010'), repo.read(taskFile('010')).replace(/^iteration: 4$/m, 'iteration: 6'));
    expect((await served(repo.dir, ['task', 'get', '--id', '010', 'iteration'], env, log)).stdout).toBe('6\n');
    // A new task folder, added by hand, is listed.
    repo.write(
      taskFile('040'),
      repo
        .read(taskFile('030'))
        .replace(/^id: .*$/m, "id: '040'")
        .replace(/^name: .*$/m, 'name: Fourth task'),
    );
    const list = await served(repo.dir, ['task', 'list'], env, log);
    expect(list.stdout).toContain('Fourth task');
    expect(list).toEqual(sow(repo.dir, ['task', 'list'], { ...env, SOW_NO_READ_SERVER: '1' }));
  });

  it('is never asked for a write, a watch, help or anything else; nor started in CI, for a worker or when switched off', async () => {
    const repo = executing();
    const { env, log, runtime } = serverEnv();
    await served(repo.dir, ['task', 'list'], env, log);
    const count = answered(log).length;
    for (const args of [
      ['task', 'set', '--id', '010', 'iteration', '2'],
      ['task', 'list', '--help'],
      ['project', 'status', '--all'],
      ['task', 'next', '--claim'],
      ['advance'],
      ['log', '--json'],
      ['task', 'get', '--id', '--json'],
      ['--version'],
    ])
      sow(repo.dir, args, env);
    expect(answered(log).length).toBe(count);
    expect(repo.yaml(taskFile('010')).iteration).toBe(2);
    // A terminal gets a process of its own (script(1) gives sow one; util-linux and BSD spell it differently).
    const command = [process.execPath, SOW, 'task', 'list'].map((a) => `'${a}'`).join(' ');
    const args = process.platform === 'darwin' ? ['-q', '/dev/null', 'sh', '-c', command] : ['-qefc', command, '/dev/null'];
    // Run again and again: the shell script(1) starts sets variables of its own, so a server for this
    // environment would have to start first (it never does: a read at a terminal does not start one).
    for (let i = 0; i < 5; i++) {
      const tty = spawnSync('script', args, { cwd: repo.dir, env: { ...env, TERM: 'xterm' }, encoding: 'utf8' });
      expect(tty.error, 'script(1) is needed to give sow a terminal').toBeUndefined();
      expect(tty.stdout).toContain('First task');
      await sleep(200);
    }
    expect(answered(log).length).toBe(count);
    // Output to /dev/null is no terminal: a script's `sow advance --dry-run >/dev/null && …` is answered.
    const quiet = async () => {
      for (let i = 0; i < 100; i++) {
        const before = answered(log).length;
        const r = spawnSync('sh', ['-c', `"${process.execPath}" "${SOW}" task list >/dev/null 2>&1`], { cwd: repo.dir, env, encoding: 'utf8' });
        expect(r.status).toBe(0);
        if (answered(log).length > before) return true;
        await sleep(100);
      }
      return false;
    };
    expect(await quiet()).toBe(true);
    const afterQuiet = answered(log).length;
    // Where it may not run, no socket is made and none is asked.
    const sockets = () => readdirSync(join(runtime, 'sow')).length;
    const made = sockets();
    for (const extra of [{ CI: 'true' }, { SOW_NO_READ_SERVER: '1' }, { SOW_AGENT_ID: 'implementer-1' }]) {
      for (let i = 0; i < 3; i++) expect(sow(repo.dir, ['task', 'list'], { ...env, ...extra }).code).toBe(0);
    }
    await sleep(500);
    expect(sockets()).toBe(made);
    expect(answered(log).length).toBe(afterQuiet);
  });

  it("makes the files a read makes (the task index) with the client's umask, not the server's", async () => {
    const { env, log } = serverEnv();
    const run = (dir: string, mask: string) => {
      const r = spawnSync('sh', ['-c', `umask ${mask}; "${process.execPath}" "${SOW}" task list >/dev/null`], { cwd: dir, env, encoding: 'utf8' });
      expect(r.status).toBe(0);
    };
    for (const [mask, mode] of [
      ['077', 0o600],
      ['027', 0o640],
    ] as const) {
      // A server started under umask 022, whose first answer has no index to start from: it makes one.
      const repo = executing();
      const index = join(repo.dir, '.git/sow/tasks.json');
      run(repo.dir, '022');
      // The index keeps only task files that have settled (2 s old, decision 0009): then a read writes it.
      await sleep(2100);
      let servedOnce = false;
      for (let i = 0; i < 100 && !servedOnce; i++) {
        rmSync(index, { force: true });
        const before = answered(log).length;
        run(repo.dir, mask);
        servedOnce = answered(log).length > before;
        if (!servedOnce) await sleep(100);
      }
      expect(servedOnce, 'a read server answered').toBe(true);
      expect((statSync(index).mode & 0o777).toString(8), `umask ${mask}`).toBe(mode.toString(8));
    }
  });

  it('another environment or folder has a server of its own', async () => {
    const repo = executing();
    const { env, log, runtime } = serverEnv();
    await served(repo.dir, ['task', 'list'], env, log);
    await served(repo.dir, ['task', 'list'], { ...env, SOW_OWNER: 'someone' }, log);
    mkdirSync(join(repo.dir, 'sub'));
    const sub = join(repo.dir, 'sub');
    const there = await served(sub, ['task', 'get', '--id', '010', 'name'], env, log);
    expect(there.stdout).toBe('First task\n');
    expect(new Set(entries(log).map((e) => e.pid)).size).toBe(3);
    expect(readdirSync(join(runtime, 'sow')).filter((n) => n.endsWith('.sock'))).toHaveLength(3);
  });

  it('a server that was killed, refuses or answers nonsense leaves the read to the fresh process; a killed one is replaced', async () => {
    const repo = executing();
    const { env, log, runtime } = serverEnv();
    const expected = sow(repo.dir, ['task', 'list'], { ...env, SOW_NO_READ_SERVER: '1' });
    await served(repo.dir, ['task', 'list'], env, log);
    const first = entries(log).find((e) => e.started)!;

    const socket = first.started!;
    process.kill(first.pid, 'SIGKILL');
    await until(() => !alive(first.pid), 'the server to die');
    expect(existsSync(socket)).toBe(true);
    // Nobody listens on the socket: the read runs here, and starts a new server, which takes the place.
    expect(sow(repo.dir, ['task', 'list'], env)).toEqual(expected);
    expect(await served(repo.dir, ['task', 'list'], env, log)).toEqual(expected);
    const second = entries(log).filter((e) => e.started);
    expect(second).toHaveLength(2);
    process.kill(second[1]!.pid, 'SIGTERM');
    await until(() => !existsSync(socket), 'the stopped server to remove its socket');
    // Impostors at the socket: a refusal, an answer cut short, nonsense, silence then close.
    for (const reply of [`${JSON.stringify({ refused: 'no' })}\n`, `${JSON.stringify({ code: 0, parts: [[1, 50]] })}\nshort`, 'nonsense\n', '']) {
      const server = createServer((c) => {
        c.on('data', () => undefined);
        c.on('end', () => c.end(reply));
      });
      servers.push(server);
      await new Promise<void>((r) => server.listen(socket, r));
      let asked = 0;
      server.on('connection', () => asked++);
      expect(await sowAsync(repo.dir, ['task', 'list'], env)).toEqual(expected);
      expect((await sowAsync(repo.dir, ['task', 'get', '--id', '999'], env)).code).toBe(1);
      expect(asked).toBe(2);
      await new Promise((r) => server.close(r));
    }
    expect(readdirSync(join(runtime, 'sow')).filter((n) => n.endsWith('.sock')).length).toBeLessThanOrEqual(1);
  });

  it('answers only a request with its own key, and only the reads it serves, whatever a client asks', async () => {
    const repo = executing();
    const { env, log } = serverEnv();
    await served(repo.dir, ['task', 'list'], env, log);
    const socket = entries(log).find((e) => e.started)!.started!;
    const version = (JSON.parse(readFileSync(join(dirname(SOW), '..', 'package.json'), 'utf8')) as { version: string }).version;
    const key = residentKey(buildOf(join(dirname(SOW), 'core.cjs'), version)!, realpathSync(repo.dir), env);
    const ask = (request: unknown) =>
      new Promise<string>((resolve, reject) => {
        const conn = createConnection(socket);
        let text = '';
        conn.on('connect', () => conn.end(typeof request === 'string' ? request : JSON.stringify(request)));
        conn.on('data', (d) => (text += d));
        conn.on('end', () => resolve(text));
        conn.on('error', reject);
      });
    const before = repo.snapshot();
    // The key the client computes is the server's: the same read is answered.
    const list = await ask({ key, argv: ['task', 'list', '--json'], volatile: {}, umask: 0o022 });
    expect(JSON.parse(list.slice(list.indexOf('\n') + 1)).data.map((t: { id: string }) => t.id)).toEqual(['010', '020', '030']);
    for (const request of [
      { key, argv: ['task', 'set', '--id', '010', 'iteration', '9'], volatile: {}, umask: 0o022 },
      { key, argv: ['advance'], volatile: {}, umask: 0o022 },
      { key, argv: ['task', 'list', '--watch'], volatile: {}, umask: 0o022 },
      { key: key.replace('"SOW_READ_SERVER_LOG"', '"SOW_READ_SERVER_LOX"'), argv: ['task', 'list'], volatile: {}, umask: 0o022 },
      { key, argv: 'task list', volatile: {}, umask: 0o022 },
      { key, argv: ['task', 'list', 7], volatile: {}, umask: 0o022 },
      { key, argv: ['task', 'list'], volatile: {} },
      'not json',
    ])
      expect(JSON.parse(await ask(request)), JSON.stringify(request)).toEqual({ refused: expect.any(String) });
    expect(repo.snapshot()).toEqual(before);
    expect(repo.yaml(taskFile('010')).iteration).toBe(1);
  });

  it('never uses a folder that others may enter or that is a link', async () => {
    const repo = executing();
    for (const make of [(f: string) => mkdirSync(f, { mode: 0o755 }), (f: string) => (mkdirSync(`${f}-real`, { mode: 0o700 }), symlinkSync(`${f}-real`, f))]) {
      const { env, log, runtime } = serverEnv();
      const folder = join(runtime, 'sow');
      make(folder);
      chmodSync(folder, 0o755);
      for (let i = 0; i < 3; i++) expect(sow(repo.dir, ['task', 'list'], env).code).toBe(0);
      await sleep(500);
      expect(readdirSync(folder)).toEqual([]);
      expect(entries(log)).toEqual([]);
    }
  });

  it('stops after SOW_READ_SERVER_IDLE seconds without a read, and removes its socket', async () => {
    const repo = executing();
    const { env, log } = serverEnv({ SOW_READ_SERVER_IDLE: '1' });
    await served(repo.dir, ['task', 'list'], env, log);
    const start = entries(log).find((e) => e.started)!;
    await until(() => !alive(start.pid) && !existsSync(start.started!), 'the idle server to stop');
  });
});
